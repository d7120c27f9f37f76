package chunkarray

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// heldBytes computes a unoptimized on sched.Sync and returns the largest
// number of input bytes any rechunk task received.
func heldBytes(t *testing.T, a *Array) (*nd.Array, int) {
	t.Helper()
	var mu sync.Mutex
	size := map[graph.Key]int{}
	var g *graph.Graph
	cb := &sched.Callbacks{
		Start: func(gr *graph.Graph) { g = gr },
		Posttask: func(k graph.Key, v any, _ error, _ int) {
			if x, ok := v.(*nd.Array); ok {
				mu.Lock()
				size[k] = x.Nbytes()
				mu.Unlock()
			}
		},
	}
	out, err := a.Compute(context.Background(), WithScheduler(sched.Sync{}), WithOptimize(false), WithCallbacks(cb))
	if err != nil {
		t.Fatal(err)
	}
	worst := 0
	var refs func(args []graph.Arg) int
	refs = func(args []graph.Arg) int {
		s := 0
		for _, x := range args {
			switch x.Kind {
			case graph.ArgRef:
				s += size[x.Ref]
			case graph.ArgList:
				s += refs(x.List)
			}
		}
		return s
	}
	for i := range g.Len() {
		n := g.At(i)
		if n.Kind != graph.KindTask || !strings.HasPrefix(string(g.Key(i)), "rechunk") {
			continue
		}
		worst = max(worst, refs(n.Args))
	}
	return out, worst
}

func TestRechunkLayoutsAndBound(t *testing.T) {
	const n = 24
	x := seqND(t, nd.Float64, n, n)
	layouts := []any{
		[]int{n, 1}, []int{1, n}, []int{5, 7}, []int{7, 5}, []int{n, n}, []int{2, 2},
		[][]int{{1, 23}, {20, 4}}, []int{3, -1},
	}
	for _, from := range layouts {
		for _, to := range layouts {
			a := FromNDArray(x, from)
			r := a.Rechunk(to)
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			want, err := NormalizeChunks("test", to, []int{n, n}, nd.Float64)
			if err != nil {
				t.Fatal(err)
			}
			got, held := heldBytes(t, r)
			if d := diff(x, got, 0); d != "" {
				t.Errorf("%v -> %v: %s", from, to, d)
			}
			if bound := RechunkBound(a.Chunks(), want, 8); held > bound {
				t.Errorf("%v -> %v: a task held %d bytes, bound %d", from, to, held, bound)
			}
		}
	}
}

// TestRechunkStrips is the case a direct plan gets wrong: every output
// row strip overlaps every input column strip.
func TestRechunkStrips(t *testing.T) {
	const n = 64
	x := seqND(t, nd.Float64, n, n)
	a := FromNDArray(x, []int{n, 1})
	r := a.Rechunk([]int{1, n})
	got, held := heldBytes(t, r)
	if d := diff(x, got, 0); d != "" {
		t.Fatal(d)
	}
	if bound := 2 * n * 8; held > bound {
		t.Errorf("held %d bytes, bound %d", held, bound)
	}
	// The intermediate stage keeps the task count well under n².
	g, err := r.Graph(WithOptimize(false))
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() >= n*n {
		t.Errorf("%d tasks, want fewer than n² = %d", g.Len(), n*n)
	}
	t.Logf("%d tasks for %d input and %d output blocks, held ≤ %d bytes", g.Len(), n, n, held)
}
