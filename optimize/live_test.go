package optimize_test

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// liveCounter counts values alive during a run: a task's value is alive
// from its Posttask until its Release. sched.Sync calls both on the
// goroutine that called Get, so no locking is needed.
type liveCounter struct{ live, peak int }

func (c *liveCounter) callbacks() *sched.Callbacks {
	return &sched.Callbacks{
		Posttask: func(graph.Key, any, error, int) {
			c.live++
			c.peak = max(c.peak, c.live)
		},
		Release: func(graph.Key) { c.live-- },
	}
}

// TestLiveValues runs reduction and merge trees of 2^k leaves under
// sched.Sync, counting live intermediates through callbacks. With Order's
// depth-first priorities the peak must grow with the depth k, not with the
// width 2^k; a level-by-level order, simulated as the contrast, holds every
// leaf at once.
func TestLiveValues(t *testing.T) {
	shapes := []struct {
		name    string
		picture string
		build   func(k int) (*graph.Graph, graph.Key)
		value   func(k int) int // independent formula for the root's value
	}{
		{
			name: "reduction",
			picture: `
			       sum
			     /     \
			   sum     sum      k levels of pairwise sums
			   / \     / \
			  l   l   l   l     2^k leaves, each 1`,
			build: binaryTree,
			value: func(k int) int { return 1 << k },
		},
		{
			name: "merge",
			picture: `
			         merge
			        /     \
			    merge     merge         k levels of pairwise merges
			    /  \      /  \
			  udf  udf  udf  udf        one UDF task per partition: 1+1
			   |    |    |    |
			 load load load load        2^k loaded chunks`,
			build: mergeTree,
			value: func(k int) int { return 2 << k },
		},
	}
	for _, s := range shapes {
		for _, k := range []int{10, 12, 14} {
			g, root := s.build(k)
			var c liveCounter
			ctx := sched.WithCallbacks(context.Background(), c.callbacks())
			vals, err := sched.Sync{}.Get(ctx, g, []graph.Key{root})
			if err != nil {
				t.Fatalf("%s k=%d: %v", s.name, k, err)
			}
			if got, want := vals[0], s.value(k); got != want {
				t.Errorf("%s k=%d: root = %v, want %d", s.name, k, got, want)
			}
			if bound := 2*k + 2; c.peak > bound {
				t.Errorf("%s k=%d: peak of %d live values, want at most 2k+2 = %d", s.name, k, c.peak, bound)
			}

			// Exactly: a level-l node is computed while its left sibling
			// and one value per level above are alive, so l+2 at the top.
			if c.peak != k+2 {
				t.Errorf("%s k=%d: peak of %d live values, the optimum is k+2 = %d", s.name, k, c.peak, k+2)
			}

			// Second code path: replay Order's sequence in a simulation.
			prio, d := mustOrder(t, g)
			if sim := peakLive(d, sequence(prio)); sim != c.peak {
				t.Errorf("%s k=%d: simulated peak of Order %d, measured %d", s.name, k, sim, c.peak)
			}
			bfs := peakLive(d, levelOrder(g, d))
			if bfs < 1<<k {
				t.Errorf("%s k=%d: level-by-level peak %d, expected at least the width %d", s.name, k, bfs, 1<<k)
			}
			t.Logf("%s k=%-2d nodes=%6d: peak live %2d with Order, %5d level by level", s.name, k, g.Len(), c.peak, bfs)
		}
	}
}
