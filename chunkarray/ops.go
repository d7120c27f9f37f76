package chunkarray

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// runner is the parameter struct of a block op: JSON-encodable, and able
// to run the op.
type runner interface {
	run(ctx context.Context, args []any) (any, error)
}

// op is a registered block op: a name and JSON parameters. The encoded
// parameters are computed once per op, which serves every block of a
// layer.
type op[P runner] struct {
	name string
	p    P
	once sync.Once
	enc  []byte
	err  error
}

func (o *op[P]) Name() string { return o.name }

func (o *op[P]) Run(ctx context.Context, args []any) (any, error) { return o.p.run(ctx, args) }

func (o *op[P]) Params() ([]byte, error) {
	o.once.Do(func() { o.enc, o.err = json.Marshal(o.p) })
	return o.enc, o.err
}

func newOp[P runner](name string, p P) *op[P] { return &op[P]{name: name, p: p} }

// requirer is a parameter type that names functions of the user's
// registries (block functions, reductions): the op's requirements
// (graph.Requirer), which a cluster's client checks and its scheduler
// places by.
type requirer interface{ requires() []string }

// Requires lists what the op's parameters name in the user's registries.
func (o *op[P]) Requires() []string {
	if r, ok := any(o.p).(requirer); ok {
		return r.requires()
	}
	return nil
}

// Requirement names of the user's registries (graph.RegisterRequirement).
const (
	requireBlockFunc = "chunkarray.blockfunc/"
	requireReduction = "chunkarray.reduction/"
)

// register records the decoder of the ops named name with parameters P.
func register[P runner](name string) {
	graph.RegisterOp(name, func(b []byte) (graph.Op, error) {
		var p P
		if err := json.Unmarshal(b, &p); err != nil {
			return nil, err
		}
		return newOp(name, p), nil
	})
}

const (
	opFull     = "chunkarray.full"
	opRandom   = "chunkarray.random"
	opArange   = "chunkarray.arange"
	opEye      = "chunkarray.eye"
	opElemwise = "chunkarray.elemwise"
	opRechunk  = "chunkarray.rechunk"
	opFinalize = "chunkarray.finalize"
	opGetitem  = "chunkarray.getitem"
	opReduce   = "chunkarray.reduce"
)

func init() {
	register[fullP](opFull)
	register[randomP](opRandom)
	register[arangeP](opArange)
	register[eyeP](opEye)
	register[elemP](opElemwise)
	register[rechunkP](opRechunk)
	register[finalizeP](opFinalize)
	register[getitemP](opGetitem)
	register[reduceP](opReduce)
}

// scalar is a dtype and one value, encoded without loss (floats by their
// bits, so NaN and ±Inf survive JSON).
type scalar struct {
	D  nd.DType `json:"d"`
	Lo uint64   `json:"lo"` // bool 0/1, int two's complement, uint, float bits, complex real bits
	Hi uint64   `json:"hi,omitempty"`
}

// scalarOf converts the Go scalar v to dtype d.
func scalarOf(v any, d nd.DType) (scalar, error) {
	a, err := nd.ScalarOf(v)
	if err != nil {
		return scalar{}, err
	}
	if a, err = a.AsType(d); err != nil {
		return scalar{}, err
	}
	s := scalar{D: d}
	switch x := a.Data().(type) {
	case []bool:
		if x[a.Offset()] {
			s.Lo = 1
		}
	case []int8:
		s.Lo = uint64(int64(x[a.Offset()]))
	case []int16:
		s.Lo = uint64(int64(x[a.Offset()]))
	case []int32:
		s.Lo = uint64(int64(x[a.Offset()]))
	case []int64:
		s.Lo = uint64(x[a.Offset()])
	case []uint8:
		s.Lo = uint64(x[a.Offset()])
	case []uint16:
		s.Lo = uint64(x[a.Offset()])
	case []uint32:
		s.Lo = uint64(x[a.Offset()])
	case []uint64:
		s.Lo = x[a.Offset()]
	case []float32:
		s.Lo = math.Float64bits(float64(x[a.Offset()]))
	case []float64:
		s.Lo = math.Float64bits(x[a.Offset()])
	case []complex64:
		c := x[a.Offset()]
		s.Lo, s.Hi = math.Float64bits(float64(real(c))), math.Float64bits(float64(imag(c)))
	case []complex128:
		c := x[a.Offset()]
		s.Lo, s.Hi = math.Float64bits(real(c)), math.Float64bits(imag(c))
	default:
		return scalar{}, fmt.Errorf("chunkarray: scalar of dtype %s", d)
	}
	return s, nil
}

// value returns the scalar as a Go value of its dtype's type.
func (s scalar) value() any {
	switch s.D {
	case nd.Bool:
		return s.Lo != 0
	case nd.Int8:
		return int8(s.Lo)
	case nd.Int16:
		return int16(s.Lo)
	case nd.Int32:
		return int32(s.Lo)
	case nd.Int64:
		return int64(s.Lo)
	case nd.Uint8:
		return uint8(s.Lo)
	case nd.Uint16:
		return uint16(s.Lo)
	case nd.Uint32:
		return uint32(s.Lo)
	case nd.Uint64:
		return s.Lo
	case nd.Float32:
		return float32(math.Float64frombits(s.Lo))
	case nd.Float64:
		return math.Float64frombits(s.Lo)
	case nd.Complex64:
		return complex64(complex(math.Float64frombits(s.Lo), math.Float64frombits(s.Hi)))
	case nd.Complex128:
		return complex(math.Float64frombits(s.Lo), math.Float64frombits(s.Hi))
	}
	return nil
}

func (s scalar) array() (*nd.Array, error) { return nd.ScalarOf(s.value()) }

// argInts returns args[i] as []int.
func argInts(args []any, i int, opName string) ([]int, error) {
	if i >= len(args) {
		return nil, fmt.Errorf("%s: missing argument %d", opName, i)
	}
	v, ok := args[i].([]int)
	if !ok {
		return nil, fmt.Errorf("%s: argument %d is %T, want []int", opName, i, args[i])
	}
	return v, nil
}

// argArray returns v as an *nd.Array.
func argArray(v any, opName string) (*nd.Array, error) {
	a, ok := v.(*nd.Array)
	if !ok || a == nil {
		return nil, fmt.Errorf("%s: argument is %T, want *nd.Array", opName, v)
	}
	return a, nil
}

// fullP makes a constant block: a zero-stride view of one element.
// Args: the block shape.
type fullP struct {
	V scalar `json:"v"`
}

func (p fullP) run(_ context.Context, args []any) (any, error) {
	shape, err := argInts(args, 0, opFull)
	if err != nil {
		return nil, err
	}
	return nd.Full(p.V.D, p.V.value(), shape...)
}

// Cheap: a constant block costs a header; Inline may put it into its
// dependents.
func (o *op[P]) Cheap() bool {
	_, ok := any(o.p).(fullP)
	return ok
}
