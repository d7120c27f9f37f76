package graph_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/graph"
)

// Ops and types registered for the tests of this package. Names carry the
// "graphtest." prefix so they cannot collide with the library's own.

// addOp sums its int arguments; it has no parameters.
type addOp struct{}

func (addOp) Name() string { return "graphtest.add" }
func (addOp) Run(_ context.Context, args []any) (any, error) {
	s := 0
	for _, a := range args {
		x, ok := a.(int)
		if !ok {
			return nil, fmt.Errorf("graphtest.add: got %T", a)
		}
		s += x
	}
	return s, nil
}

// scaleOp multiplies its one int argument by Factor; its parameters are
// JSON, so the JSON graph form stores them as a readable string.
type scaleOp struct{ Factor int }

func (scaleOp) Name() string { return "graphtest.scale" }
func (s scaleOp) Params() ([]byte, error) {
	return json.Marshal(struct {
		Factor int `json:"factor"`
	}{s.Factor})
}
func (s scaleOp) Run(_ context.Context, args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("graphtest.scale: want 1 arg, got %d", len(args))
	}
	x, ok := args[0].(int)
	if !ok {
		return nil, fmt.Errorf("graphtest.scale: got %T", args[0])
	}
	return x * s.Factor, nil
}

// binOp carries a float64 parameter as raw little-endian bytes, which are
// not valid UTF-8 for most values (the JSON form must use params64).
type binOp struct{ C float64 }

func (binOp) Name() string { return "graphtest.bin" }
func (o binOp) Params() ([]byte, error) {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(o.C)), nil
}
func (o binOp) Run(context.Context, []any) (any, error) { return o.C, nil }

// listOp returns its arguments as a list.
type listOp struct{}

func (listOp) Name() string { return "graphtest.list" }
func (listOp) Run(_ context.Context, args []any) (any, error) {
	return append([]any(nil), args...), nil
}

// point is a registered value type.
type point struct{ X, Y int32 }

func init() {
	graph.Register(addOp{})
	graph.Register(listOp{})
	graph.RegisterOp("graphtest.scale", func(p []byte) (graph.Op, error) {
		var v struct {
			Factor int `json:"factor"`
		}
		if err := json.Unmarshal(p, &v); err != nil {
			return nil, err
		}
		return scaleOp{Factor: v.Factor}, nil
	})
	graph.RegisterOp("graphtest.bin", func(p []byte) (graph.Op, error) {
		if len(p) != 8 {
			return nil, fmt.Errorf("graphtest.bin: want 8 bytes, got %d", len(p))
		}
		return binOp{C: math.Float64frombits(binary.LittleEndian.Uint64(p))}, nil
	})
	graph.RegisterType("graphtest.point",
		func(p point) ([]byte, error) {
			b := binary.LittleEndian.AppendUint32(nil, uint32(p.X))
			return binary.LittleEndian.AppendUint32(b, uint32(p.Y)), nil
		},
		func(b []byte) (point, error) {
			if len(b) != 8 {
				return point{}, errors.New("graphtest.point: want 8 bytes")
			}
			return point{int32(binary.LittleEndian.Uint32(b)), int32(binary.LittleEndian.Uint32(b[4:]))}, nil
		})
}

// mustSet binds k to n or fails the test.
func mustSet(t interface {
	Helper()
	Fatalf(string, ...any)
}, g *graph.Graph, k graph.Key, n graph.Node) {
	t.Helper()
	if err := g.Set(k, n); err != nil {
		t.Fatalf("Set(%q): %v", k, err)
	}
}
