package distributed

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// TestFusedFailure runs a fused chain whose middle task fails or panics on
// an in-process cluster: the graph crosses the wire with its optimize.Fused
// ops, a panic is still a *sched.PanicError, an error still wraps its
// sentinel, and the message of an error names the task that failed.
//
//	after = inc(bad)
//	|
//	bad = fail(one)   (or panic)
//	|
//	one (literal)
func TestFusedFailure(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true})
	for _, tt := range []struct {
		name    string
		op      graph.Op
		isPanic bool
	}{
		{"error", schedtest.Fail, false},
		{"panic", schedtest.Panic, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			if err := g.AddLiteral("one", 1); err != nil {
				t.Fatal(err)
			}
			if err := g.AddTask("bad", tt.op, graph.Ref("one")); err != nil {
				t.Fatal(err)
			}
			if err := g.AddTask("after", schedtest.Inc, graph.Ref("bad")); err != nil {
				t.Fatal(err)
			}
			fused, _, err := optimize.Optimize(g, []graph.Key{"after"})
			if err != nil {
				t.Fatal(err)
			}
			if fused.Len() != 1 {
				t.Fatalf("optimized graph has %d nodes, want 1", fused.Len())
			}
			_, err = c.Get(context.Background(), fused, []graph.Key{"after"})
			var te *sched.TaskError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want *sched.TaskError", err)
			}
			var pe *sched.PanicError
			if got := errors.As(err, &pe); got != tt.isPanic {
				t.Errorf("PanicError: %v, want %v (err %v)", got, tt.isPanic, err)
			}
			if !tt.isPanic {
				if !errors.Is(err, schedtest.ErrBoom) {
					t.Errorf("err = %v, want it to wrap ErrBoom", err)
				}
				if !strings.Contains(err.Error(), `task "bad" (`+tt.op.Name()+`)`) {
					t.Errorf("message %q does not name bad", err)
				}
			}
		})
	}
}

func TestFailureOfFused(t *testing.T) {
	f := failureOf(&optimize.FusedError{Key: "bad", Op: "x.op", Panic: "oops", Stack: []byte("stack")})
	if !f.Panic || f.PanicValue != "oops" || string(f.Stack) != "stack" || !strings.Contains(f.Message, `"bad"`) {
		t.Errorf("panic: Failure = %+v", f)
	}
	f = failureOf(&optimize.FusedError{Key: "bad", Op: "x.op", Err: schedtest.ErrBoom})
	if f.Panic || f.Sentinel == "" || !strings.Contains(f.Message, `"bad"`) {
		t.Errorf("error: Failure = %+v", f)
	}
}
