package optimize_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
)

var errFail = errors.New("optimize_test: fail")

var (
	opFail  = &graph.FuncOp{OpName: "optimize_test.fail", Fn: func(context.Context, []any) (any, error) { return nil, errFail }}
	opPanic = &graph.FuncOp{OpName: "optimize_test.panic", Fn: func(context.Context, []any) (any, error) { panic("optimize_test: boom") }}
)

func init() {
	graph.Register(opFail)
	graph.Register(opPanic)
}

// TestFusedErrorNamesConstituent runs a chain whose middle task fails or
// panics, on the graph as built and on its fused form (one task, keyed
// d), and requires the same *sched.TaskError key and op from both: the
// failing task's, never d's.
//
//	d = inc(c)
//	|
//	c = inc(b)
//	|
//	b = fail(a)   (or panic)
//	|
//	a (literal)
func TestFusedErrorNamesConstituent(t *testing.T) {
	for _, tt := range []struct {
		name    string
		op      graph.Op
		isPanic bool
	}{
		{"error", opFail, false},
		{"panic", opPanic, true},
	} {
		g := mustGraph(t,
			E("a", graph.Literal(1)),
			E("b", T(tt.op, graph.Key("a"))),
			E("c", T(opInc, graph.Key("b"))),
			E("d", T(opInc, graph.Key("c"))),
		)
		fused, _, err := optimize.Optimize(g, keys("d"))
		if err != nil {
			t.Fatal(err)
		}
		if fused.Len() != 1 {
			t.Fatalf("%s: optimized graph has %d nodes, want 1 (the chain fused)", tt.name, fused.Len())
		}
		// Through JSON too: a worker decodes the fused graph and must
		// still name b.
		b, err := fused.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var decoded graph.Graph
		if err := decoded.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		if !graph.Equal(fused, &decoded) {
			t.Fatalf("%s: fused graph changed through JSON", tt.name)
		}
		for _, run := range []struct {
			name      string
			g         *graph.Graph
			wantFused graph.Key
		}{
			{"unfused", g, ""},
			{"fused", fused, "d"},
			{"fused-json", &decoded, "d"},
		} {
			for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
				t.Run(tt.name+"/"+run.name, func(t *testing.T) {
					_, err := s.Get(context.Background(), run.g, keys("d"))
					var te *sched.TaskError
					if !errors.As(err, &te) {
						t.Fatalf("err = %v, want *sched.TaskError", err)
					}
					if te.Key != "b" || te.Op != tt.op.Name() || te.Fused != run.wantFused {
						t.Errorf("TaskError{Key: %q, Op: %q, Fused: %q}, want {b, %s, %q}", te.Key, te.Op, te.Fused, tt.op.Name(), run.wantFused)
					}
					if !strings.Contains(err.Error(), `task "b" (`+tt.op.Name()) {
						t.Errorf("message %q does not name b and its op", err)
					}
					var pe *sched.PanicError
					if got := errors.As(err, &pe); got != tt.isPanic {
						t.Errorf("*sched.PanicError found: %v, want %v", got, tt.isPanic)
					}
					if tt.isPanic && (pe.Value != "optimize_test: boom" || len(pe.Stack) == 0) {
						t.Errorf("PanicError{Value: %v, %d bytes of stack}", pe.Value, len(pe.Stack))
					}
					if !tt.isPanic && !errors.Is(err, errFail) {
						t.Errorf("err = %v, want it to wrap errFail", err)
					}
				})
			}
		}
	}
}

func TestFusedLabel(t *testing.T) {
	f := &optimize.Fused{Op: opInc, Key: "b"}
	if got := f.Label(); got != "inc" {
		t.Errorf("Label() = %q, want inc", got)
	}
	v, err := f.Run(context.Background(), []any{41})
	if err != nil || v != 42 {
		t.Errorf("Run = %v, %v; want 42", v, err)
	}
}

// TestFusedParams round-trips Fused through graph.LookupOp and feeds the
// decoder broken parameters: each must be an error, never a panic.
func TestFusedParams(t *testing.T) {
	f := &optimize.Fused{Op: opInc, Key: "t-3"}
	p, err := f.Params()
	if err != nil {
		t.Fatal(err)
	}
	op, err := graph.LookupOp(optimize.FusedOpName, p)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := op.(*optimize.Fused); !ok || g.Key != "t-3" || g.Op != opInc {
		t.Errorf("decoded %#v, want Fused{inc, t-3}", op)
	}
	nested, _ := (&optimize.Fused{Op: f, Key: "x"}).Params()
	for name, bad := range map[string][]byte{
		"empty":           nil,
		"short-key":       {5, 'a'},
		"no-flag":         p[:len(p)-1],
		"bad-flag":        append(append([]byte(nil), p[:len(p)-1]...), 7),
		"trailing":        append(append([]byte(nil), p...), 1),
		"unknown-op":      {1, 'k', 3, 'n', 'o', 'p', 0},
		"nested-fused":    nested,
		"huge-length":     {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
		"key-only-length": {3},
	} {
		if _, err := graph.LookupOp(optimize.FusedOpName, bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := (&optimize.Fused{Op: &graph.FuncOp{OpName: "optimize_test.unregistered"}, Key: "k"}).Params(); !errors.As(err, new(*graph.UnknownOpError)) {
		t.Errorf("unregistered op: err = %v, want *graph.UnknownOpError", err)
	}
}
