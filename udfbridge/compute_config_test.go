package udfbridge

// Every run path goes through the run's compute configuration: the
// scheduler given to WithScheduler runs Run's graph, each RunIter step and
// LazyResults.Compute; callbacks see the tasks; WithOptimize(false) keeps
// the graph as built; WithProgress draws sched's bar (one for RunIter,
// over its partitions).

import (
	"bytes"
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// countSched counts its Get calls and runs them on Sync.
type countSched struct{ gets *atomic.Int64 }

func (s countSched) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	s.gets.Add(1)
	return sched.Sync{}.Get(ctx, g, keys)
}

func TestEveryPathUsesTheScheduler(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	ctx := context.Background()
	var gets atomic.Int64
	opt := WithScheduler(countSched{&gets})
	if _, err := Run(ctx, ds, []UDF{tNavSum{}}, WithPartitions(3), opt); err != nil {
		t.Fatal(err)
	}
	if g := gets.Swap(0); g != 1 {
		t.Errorf("Run: %d Get calls on the scheduler, want 1", g)
	}
	it, err := RunIter(ds, []UDF{tNavSum{}}, WithPartitions(3), opt)
	if err != nil {
		t.Fatal(err)
	}
	for it.Next(ctx) {
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if g := gets.Swap(0); g != 3 {
		t.Errorf("RunIter: %d Get calls, want 3 (one per step)", g)
	}
	lazy, err := RunLazy(ds, []UDF{tNavSum{}, tSigSum{}}, WithPartitions(3), opt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := lazy[0].Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if g := gets.Swap(0); g != 1 {
		t.Errorf("RunLazy: %d Get calls, want 1", g)
	}
	want, _ := Run(ctx, ds, []UDF{tNavSum{}}, WithPartitions(3), WithScheduler(sched.Sync{}))
	w, _ := want[0].Data("intensity")
	coreSame(t, "lazy intensity", got["intensity"], w)
	if _, err := lazy[0].Compute(ctx, "nope"); err == nil {
		t.Error("Compute of an unknown buffer: no error")
	}
	_ = nav
}

func TestCallbacksAndOptimize(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	ctx := context.Background()
	count := func(opts ...RunOption) (tasks, parts int64) {
		var nt, np atomic.Int64
		cb := &sched.Callbacks{
			Start: func(g *graph.Graph) {
				for i := 0; i < g.Len(); i++ {
					if g.At(i).Kind == graph.KindTask {
						nt.Add(1)
					}
				}
			},
			Posttask: func(k graph.Key, _ any, err error, _ int) {
				if strings.HasPrefix(string(k), "udf-partition-") {
					np.Add(1)
				}
			},
		}
		if _, err := Run(ctx, ds, []UDF{tNavSum{}}, append(opts, WithPartitions(1), WithScheduler(sched.Sync{}), WithCallbacks(cb))...); err != nil {
			t.Fatal(err)
		}
		return nt.Load(), np.Load()
	}
	// One partition and its merge: two tasks as built, fused into one
	// by the default optimization.
	if nt, np := count(WithOptimize(false)); nt != 2 || np != 1 {
		t.Errorf("WithOptimize(false): %d tasks, %d partition tasks run; want 2 and 1", nt, np)
	}
	if nt, _ := count(); nt != 1 {
		t.Errorf("optimized: %d tasks, want 1 (partition fused into its merge)", nt)
	}
}

func TestWithProgress(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := Run(ctx, ds, []UDF{tNavSum{}}, WithPartitions(3), WithScheduler(sched.Sync{}), WithProgress(&buf)); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.HasSuffix(strings.SplitAfter(s, "\r")[len(strings.SplitAfter(s, "\r"))-1], "\n") || !strings.Contains(s, "100%") || strings.Count(s, "\n") != 1 {
		t.Errorf("Run's bar: %q, want one bar ending at 100%% and a newline", s)
	}
	for _, early := range []bool{false, true} {
		buf.Reset()
		it, err := RunIter(ds, []UDF{tNavSum{}}, WithPartitions(4), WithScheduler(sched.Sync{}), WithProgress(&buf))
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for it.Next(ctx) {
			steps++
			if early && steps == 2 {
				it.Close()
				break
			}
		}
		it.Close()
		s := buf.String()
		if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
			t.Errorf("RunIter early=%v: %q, want one bar, ended once", early, s)
		}
		last := s[strings.LastIndex(s, "\r")+1:]
		if want := map[bool]string{false: "100%", true: " 50%"}[early]; !strings.Contains(last, want) {
			t.Errorf("RunIter early=%v: last line %q, want %s", early, last, want)
		}
	}
	// No bar unless asked for.
	buf.Reset()
	if _, err := Run(ctx, ds, []UDF{tNavSum{}}, WithScheduler(sched.Sync{})); err != nil || buf.Len() != 0 {
		t.Errorf("no WithProgress: %v, %q", err, buf.String())
	}
}
