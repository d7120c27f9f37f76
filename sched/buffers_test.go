package sched_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// bufferGraph is n independent tasks that each take a 1 MiB buffer from
// their run's free list, write their index into it and give it back,
// recording the list they saw, and a sum over them:
//
//	t0  t1 … t(n-1)
//	  \  |   /
//	    sum
func bufferGraph(t *testing.T, n int, seen func(*freelist.List)) (*graph.Graph, graph.Key) {
	g := graph.New(n + 1)
	refs := make([]graph.Arg, n)
	for i := range n {
		k := graph.Key("t" + string(rune('a'+i)))
		op := &graph.FuncOp{OpName: "buf", Fn: func(ctx context.Context, _ []any) (any, error) {
			fl := freelist.FromContext(ctx)
			seen(fl)
			b := fl.Get(1 << 20)
			defer fl.Put(b)
			for j := range b {
				b[j] = byte(i)
			}
			return int(b[len(b)-1]), nil
		}}
		if err := g.AddTask(k, op); err != nil {
			t.Fatal(err)
		}
		refs[i] = graph.Ref(k)
	}
	sum := &graph.FuncOp{OpName: "sum", Fn: func(_ context.Context, args []any) (any, error) {
		s := 0
		for _, v := range args {
			s += v.(int)
		}
		return s, nil
	}}
	if err := g.AddTask("sum", sum, refs...); err != nil {
		t.Fatal(err)
	}
	return g, "sum"
}

// TestRunFreeList: every task of a Get sees one list, the run's; on Sync
// the tasks after the first reuse the first one's buffer; the list is
// closed (empty) when Get returns; a list already in the context is used
// as it is and left open (a nested run); ComputeConfig.BufferLimit gives
// the run a fixed-size list, a negative one a list that keeps nothing.
func TestRunFreeList(t *testing.T) {
	const n = 8
	want := n * (n - 1) / 2
	for _, tc := range []struct {
		name     string
		s        sched.Scheduler
		minHits  int64
		maxAlloc int64 // bytes the list allocated
	}{
		{"sync", sched.Sync{}, n - 1, 1 << 20},
		{"threaded", sched.Threaded{Workers: 3}, 0, 3 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			lists := map[*freelist.List]int{}
			g, root := bufferGraph(t, n, func(l *freelist.List) { mu.Lock(); lists[l]++; mu.Unlock() })
			vals, err := tc.s.Get(context.Background(), g, []graph.Key{root})
			if err != nil {
				t.Fatal(err)
			}
			if vals[0] != want {
				t.Fatalf("sum %v, want %d", vals[0], want)
			}
			if len(lists) != 1 {
				t.Fatalf("tasks saw %d lists, want one", len(lists))
			}
			for l, c := range lists {
				s := l.Stats()
				if l == nil || c != n || s.Gets != n || s.Hits < tc.minHits || s.Allocated > tc.maxAlloc || s.Held != 0 {
					t.Fatalf("list %p seen by %d tasks: %+v", l, c, s)
				}
			}
		})
	}
	t.Run("nested", func(t *testing.T) {
		outer := freelist.New(64 << 20)
		g, root := bufferGraph(t, n, func(l *freelist.List) {
			if l != outer {
				t.Errorf("task saw list %p, want the caller's %p", l, outer)
			}
		})
		if _, err := (sched.Sync{}).Get(freelist.NewContext(context.Background(), outer), g, []graph.Key{root}); err != nil {
			t.Fatal(err)
		}
		if s := outer.Stats(); s.Held != 1<<20 || s.Hits != n-1 {
			t.Fatalf("the caller's list after the run: %+v (want it open, holding the buffer)", s)
		}
	})
	for _, lc := range []struct {
		name  string
		limit int64
		held  bool // whether the tasks reuse a buffer
	}{{"limit", 2 << 20, true}, {"negative", -1, false}} {
		t.Run("BufferLimit/"+lc.name, func(t *testing.T) {
			var got *freelist.List
			g, root := bufferGraph(t, n, func(l *freelist.List) { got = l })
			c := sched.ComputeConfig{Scheduler: sched.Sync{}, BufferLimit: lc.limit}
			if _, err := c.Run(context.Background(), g, []graph.Key{root}); err != nil {
				t.Fatal(err)
			}
			s := got.Stats()
			if hits := s.Hits == n-1; hits != lc.held || s.Held != 0 {
				t.Fatalf("BufferLimit %d: %+v", lc.limit, s)
			}
		})
	}
}
