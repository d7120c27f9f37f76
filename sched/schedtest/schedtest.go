// Package schedtest is the conformance suite of sched.Scheduler: every
// scheduler runs it in one line,
//
//	func TestConformance(t *testing.T) { schedtest.Run(t, sched.Threaded{}) }
//
// It uses only the ops registered by this package and values the graph
// codec encodes, so a distributed scheduler whose workers import schedtest
// runs it unchanged. Expected values come from closed forms or from
// graph.Validate, never from a scheduler.
package schedtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// Run runs the conformance suite against s, as subtests of t.
func Run(t *testing.T, s sched.Scheduler) {
	t.Run("Values", func(t *testing.T) { testValues(t, s) })
	t.Run("Wide", func(t *testing.T) { testWide(t, s) })
	t.Run("Deep", func(t *testing.T) { testDeep(t, s) })
	t.Run("Tree", func(t *testing.T) { testTree(t, s) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, s) })
	t.Run("TaskErrors", func(t *testing.T) { testTaskErrors(t, s) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, s) })
	t.Run("Callbacks", func(t *testing.T) { testCallbacks(t, s) })
	t.Run("Profiler", func(t *testing.T) { testProfiler(t, s) })
}

// testProfiler: a sched.Profiler attached to a Get records every task
// once, with the time it ran where it ran: a task that sleeps 40 ms lasts
// at least that long (a lower bound the sleep guarantees; no upper bound,
// which would depend on the machine's load), within the Get's wall-clock
// window (a second of slack for the clocks of other processes).
func testProfiler(t *testing.T, s sched.Scheduler) {
	const sleepMs = 40
	g := graph.New(0)
	var refs []graph.Arg
	for i := 0; i < 3; i++ {
		k := graph.BlockKey("nap", i)
		must(g.AddTask(k, Sleep, graph.Lit(sleepMs), graph.Lit(i)))
		refs = append(refs, graph.Ref(k))
	}
	must(g.AddTask("total", Add, refs...))
	p := sched.NewProfiler()
	t0 := time.Now()
	vals, err := s.Get(sched.WithCallbacks(context.Background(), p.Callbacks()), g, []graph.Key{"total"})
	t1 := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if vals[0] != 3 {
		t.Fatalf("total = %v, want 3", vals[0])
	}
	recs := p.Records()
	seen := map[graph.Key]int{}
	for _, r := range recs {
		seen[r.Key]++
		if r.End.Before(r.Start) {
			t.Errorf("%s: ends %v before it starts %v", r.Key, r.End, r.Start)
		}
		if r.Start.Before(t0.Add(-time.Second)) || r.End.After(t1.Add(time.Second)) {
			t.Errorf("%s: ran %v to %v, outside the Get's %v to %v", r.Key, r.Start, r.End, t0, t1)
		}
	}
	d := p.Durations()
	for i := 0; i < 3; i++ {
		k := graph.BlockKey("nap", i)
		if seen[k] != 1 {
			t.Errorf("%s recorded %d times, want once", k, seen[k])
		}
		if d[k] < (sleepMs-2)*time.Millisecond {
			t.Errorf("%s lasted %v, want at least the %d ms it slept", k, d[k], sleepMs)
		}
	}
	if seen["total"] != 1 {
		t.Errorf("total recorded %d times, want once", seen["total"])
	}
}

// small is the graph most value tests share:
//
//	one(lit 1)   two(lit 2)
//	  |  \          |
//	  |   b=inc   c=inc(one)...
//
// see the node list for the exact shape; values in comments.
func small() *graph.Graph {
	g := graph.New(0)
	must(g.AddLiteral("one", 1))                                                                             // 1
	must(g.AddLiteral("two", 2))                                                                             // 2
	must(g.AddTask("b", Inc, graph.Ref("one")))                                                              // 2
	must(g.AddTask("c", Inc, graph.Ref("one")))                                                              // 2
	must(g.AddTask("d", Add, graph.Ref("b"), graph.Ref("c")))                                                // 4: diamond over one
	must(g.AddAlias("alias-d", "d"))                                                                         // 4
	must(g.AddAlias("alias-alias-d", "alias-d"))                                                             // 4
	must(g.AddAlias("alias-two", "two"))                                                                     // 2
	must(g.AddTask("twice", Add, graph.Ref("d"), graph.Ref("d")))                                            // 8: a repeated reference
	must(g.AddTask("mixed", Add, graph.Lit(10), graph.Ref("b"), graph.Lit(100)))                             // 112
	must(g.AddTask("nested", Add, graph.Nested(Add, graph.Ref("d"), graph.Lit(3)), graph.Ref("two")))        // 9
	must(g.AddTask("list", SumList, graph.List(graph.Ref("b"), graph.Lit(5), graph.List(), graph.Ref("c")))) // error: [] is not an int
	must(g.AddTask("list2", SumList, graph.List(graph.Ref("b"), graph.Lit(5), graph.Ref("c"))))              // 9
	must(g.AddTask("tuple", Tuple, graph.Ref("b"), graph.Ref("alias-two"), graph.Lit(7)))                    // [2 2 7]
	must(g.AddTask("via-alias", Add, graph.Ref("alias-alias-d"), graph.Ref("alias-two")))                    // 6
	return g
}

func testValues(t *testing.T, s sched.Scheduler) {
	tests := []struct {
		name string
		keys []graph.Key
		want []any
	}{
		{"one task", []graph.Key{"b"}, []any{2}},
		{"diamond", []graph.Key{"d"}, []any{4}},
		{"repeated keys", []graph.Key{"d", "b", "d"}, []any{4, 2, 4}},
		{"literal", []graph.Key{"two"}, []any{2}},
		{"literal and its user", []graph.Key{"one", "b"}, []any{1, 2}},
		{"alias of task", []graph.Key{"alias-d"}, []any{4}},
		{"alias of alias", []graph.Key{"alias-alias-d"}, []any{4}},
		{"alias of literal", []graph.Key{"alias-two"}, []any{2}},
		{"alias and target", []graph.Key{"alias-d", "d", "alias-alias-d"}, []any{4, 4, 4}},
		{"repeated reference", []graph.Key{"twice"}, []any{8}},
		{"literal args", []graph.Key{"mixed"}, []any{112}},
		{"nested task", []graph.Key{"nested"}, []any{9}},
		{"list", []graph.Key{"list2"}, []any{9}},
		{"tuple", []graph.Key{"tuple"}, []any{[]any{2, 2, 7}}},
		{"through aliases", []graph.Key{"via-alias"}, []any{6}},
		{"no keys", []graph.Key{}, []any{}},
		{"everything", []graph.Key{"via-alias", "tuple", "list2", "nested", "mixed", "twice", "one"},
			[]any{6, []any{2, 2, 7}, 9, 9, 112, 8, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// "list" fails if run: a scheduler must run only what keys need.
			got, err := s.Get(context.Background(), small(), tt.keys)
			if err != nil {
				t.Fatalf("Get(%v): %v", tt.keys, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Get(%v) = %v, want %v", tt.keys, got, tt.want)
			}
		})
	}
}

func testWide(t *testing.T, s sched.Scheduler) {
	const n = 10_000
	g, keys := Wide(n)
	got, err := s.Get(context.Background(), g, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("got %d values, want %d", len(got), n)
	}
	for i, v := range got {
		if v != i+1 {
			t.Fatalf("value of %s = %v, want %d", keys[i], v, i+1)
		}
	}
}

func testDeep(t *testing.T, s sched.Scheduler) {
	const n = 10_000
	g, end := Chain(n)
	got, err := s.Get(context.Background(), g, []graph.Key{end})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != n {
		t.Errorf("end of a %d-chain = %v, want %d", n, got[0], n)
	}
	// A chain of aliases, each the only user of the previous, and a
	// node with many aliases, each aliased again.
	prev := end
	for i := 0; i < n; i++ {
		k := graph.BlockKey("alias", i)
		must(g.AddAlias(k, prev))
		prev = k
	}
	for i := 0; i < 100; i++ {
		must(g.AddAlias(graph.BlockKey("fan", i), end))
		must(g.AddAlias(graph.BlockKey("fan2", i), graph.BlockKey("fan", i)))
	}
	must(g.AddTask("last", Add, graph.Ref(prev), graph.Ref(graph.BlockKey("fan2", 99))))
	got, err = s.Get(context.Background(), g, []graph.Key{"last", graph.BlockKey("fan2", 7)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{2 * n, n}; !reflect.DeepEqual(got, want) {
		t.Errorf("through alias chains: %v, want %v", got, want)
	}
}

func testTree(t *testing.T, s sched.Scheduler) {
	for _, leaves := range []int{1, 2, 8, 1 << 12} {
		t.Run(fmt.Sprint(leaves), func(t *testing.T) {
			g, root := AddTree(leaves)
			got, err := s.Get(context.Background(), g, []graph.Key{root})
			if err != nil {
				t.Fatal(err)
			}
			if want := leaves * (leaves + 1) / 2; got[0] != want {
				t.Errorf("sum over %d leaves = %v, want %d", leaves, got[0], want)
			}
		})
	}
}

func testBadInput(t *testing.T, s sched.Scheduler) {
	cycle := graph.New(0)
	must(cycle.AddTask("a", Inc, graph.Ref("b")))
	must(cycle.AddTask("b", Inc, graph.Ref("c")))
	must(cycle.AddTask("c", Inc, graph.Ref("a")))
	must(cycle.AddLiteral("x", 1))
	dangling := graph.New(0)
	must(dangling.AddTask("a", Inc, graph.Ref("nowhere")))
	must(dangling.AddLiteral("x", 1))

	tests := []struct {
		name string
		g    *graph.Graph
		keys []graph.Key
		want error // compared with reflect.DeepEqual
	}{
		{"missing requested key", small(), []graph.Key{"d", "nope"}, &graph.MissingKeyError{Key: "nope"}},
		{"cycle", cycle, []graph.Key{"a"}, cycle.Validate()},
		{"cycle elsewhere", cycle, []graph.Key{"x"}, cycle.Validate()},
		{"dangling reference", dangling, []graph.Key{"a"}, dangling.Validate()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.want == nil {
				t.Fatal("oracle returned no error")
			}
			_, err := s.Get(context.Background(), tt.g, tt.keys)
			if !reflect.DeepEqual(err, tt.want) {
				t.Errorf("Get error = %#v (%v), want %#v (%v)", err, err, tt.want, tt.want)
			}
		})
	}
}

func testTaskErrors(t *testing.T, s sched.Scheduler) {
	tests := []struct {
		name  string
		op    graph.Op
		panic bool
	}{
		{"error", Fail, false},
		{"panic", Panic, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, keys := Wide(50)
			must(g.AddTask("bad", tt.op, graph.Ref(keys[3])))
			must(g.AddTask("after", Inc, graph.Ref("bad")))
			keys = append(keys, "after")
			_, err := s.Get(context.Background(), g, keys)
			var te *sched.TaskError
			if !errors.As(err, &te) {
				t.Fatalf("Get error = %v (%T), want a *sched.TaskError", err, err)
			}
			if te.Key != "bad" || te.Op != tt.op.Name() {
				t.Errorf("TaskError names key %q op %q, want %q %q", te.Key, te.Op, "bad", tt.op.Name())
			}
			var pe *sched.PanicError
			if got := errors.As(err, &pe); got != tt.panic {
				t.Errorf("errors.As(err, *PanicError) = %v, want %v (err %v)", got, tt.panic, err)
			}
			if !tt.panic && !errors.Is(err, ErrBoom) {
				t.Errorf("errors.Is(%v, ErrBoom) = false", err)
			}
		})
	}
}

// settle waits for the goroutine count to fall to at most base, which the
// runtime reaches shortly after the goroutines exit; the 20 s bound is a
// hang guard (it was 2 s, which a loaded machine may need).
func settle(base int) int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(20 * time.Second); n > base && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func testCancel(t *testing.T, s sched.Scheduler) {
	// Warm up, so that anything a scheduler starts once and keeps (a
	// connection, a pool) is running before the count.
	if _, err := s.Get(context.Background(), small(), []graph.Key{"d"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		ctx    func() (context.Context, context.CancelFunc)
		cancel bool
		want   error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, true, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 30*time.Millisecond)
		}, false, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Long tasks that honour ctx: 16 roots of ten minutes each,
			// more than any worker count runs at once, under one sum.
			g := graph.New(0)
			var refs []graph.Arg
			for i := 0; i < 16; i++ {
				k := graph.BlockKey("sleep", i)
				must(g.AddTask(k, Sleep, graph.Lit(600_000), graph.Lit(i)))
				refs = append(refs, graph.Ref(k))
			}
			must(g.AddTask("sum", Add, refs...))
			base := runtime.NumGoroutine()
			ctx, cancel := tt.ctx()
			defer cancel()
			if tt.cancel {
				time.AfterFunc(30*time.Millisecond, cancel)
			}
			start := time.Now()
			_, err := s.Get(ctx, g, []graph.Key{"sum"})
			took := time.Since(start)
			// The brief is 100 ms after cancellation; the bound below only
			// catches a scheduler that waits for the ten-minute tasks, so
			// that a busy machine cannot fail the test. (It was 10 s
			// against one-minute tasks.)
			t.Logf("Get returned %v after %v (cancelled at 30ms)", err, took)
			if err != tt.want {
				t.Errorf("Get error = %v, want %v", err, tt.want)
			}
			if took > time.Minute {
				t.Errorf("Get returned after %v: it waited for the tasks", took)
			}
			if n := settle(base); n > base {
				buf := make([]byte, 1<<16)
				buf = buf[:runtime.Stack(buf, true)]
				t.Errorf("%d goroutines after Get, %d before:\n%s", n, base, buf)
			}
		})
	}
}

// recorder records callback events.
type recorder struct {
	mu       sync.Mutex
	events   []string // "start", "finish"
	starts   int
	graph    *graph.Graph
	pre      map[graph.Key]int
	post     map[graph.Key]int
	bad      []string // ordering violations
	released map[graph.Key]int
	finErr   error
}

func newRecorder() *recorder {
	return &recorder{pre: map[graph.Key]int{}, post: map[graph.Key]int{}, released: map[graph.Key]int{}}
}

func (r *recorder) callbacks() *sched.Callbacks {
	return &sched.Callbacks{
		Start: func(g *graph.Graph) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.events = append(r.events, "start")
			r.graph = g
		},
		Pretask: func(k graph.Key, w int) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.events) != 1 {
				r.bad = append(r.bad, fmt.Sprintf("Pretask(%s) after %v", k, r.events))
			}
			r.pre[k]++
		},
		Posttask: func(k graph.Key, v any, err error, w int) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.pre[k] != r.post[k]+1 {
				r.bad = append(r.bad, fmt.Sprintf("Posttask(%s) without Pretask", k))
			}
			r.post[k]++
		},
		Release: func(k graph.Key) {
			r.mu.Lock()
			defer r.mu.Unlock()
			if len(r.events) != 1 {
				r.bad = append(r.bad, fmt.Sprintf("Release(%s) after %v", k, r.events))
			}
			r.released[k]++
		},
		Finish: func(err error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.events = append(r.events, "finish")
			r.finErr = err
		},
	}
}

func testCallbacks(t *testing.T, s sched.Scheduler) {
	t.Run("success", func(t *testing.T) {
		// A tree, plus literals and aliases in the middle:
		//
		//	out = Add(root, alias-root, tree-half, lit)
		//	alias-root -> root;  tree-half = add-(d-1)[0] is requested too
		g, root := AddTree(64)
		must(g.AddLiteral("lit", 1000))
		must(g.AddAlias("alias-root", root))
		must(g.AddAlias("alias-lit", "lit"))
		must(g.AddTask("out", Add, graph.Ref(root), graph.Ref("alias-root"), graph.Ref("alias-lit")))
		half := graph.BlockKey("add-5", 0)
		keys := []graph.Key{"out", half, "out"}
		rec := newRecorder()
		ctx := sched.WithCallbacks(context.Background(), rec.callbacks())
		got, err := s.Get(ctx, g, keys)
		if err != nil {
			t.Fatal(err)
		}
		sum := 64 * 65 / 2
		if want := []any{2*sum + 1000, 32 * 33 / 2, 2*sum + 1000}; !reflect.DeepEqual(got, want) {
			t.Errorf("Get = %v, want %v", got, want)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if !reflect.DeepEqual(rec.events, []string{"start", "finish"}) || rec.finErr != nil {
			t.Errorf("Start/Finish events %v, Finish(%v); want [start finish], Finish(nil)", rec.events, rec.finErr)
		}
		for _, b := range rec.bad {
			t.Error(b)
		}
		wanted := map[graph.Key]bool{}
		for _, k := range keys {
			wanted[k] = true
		}
		for i := 0; i < g.Len(); i++ {
			k := g.Key(i)
			if g.At(i).Kind == graph.KindTask {
				if rec.pre[k] != 1 || rec.post[k] != 1 {
					t.Errorf("task %s: %d Pretask, %d Posttask; want 1, 1", k, rec.pre[k], rec.post[k])
				}
			}
			want := 1
			if wanted[k] {
				want = 0
			}
			if rec.released[k] != want {
				t.Errorf("%s released %d times, want %d", k, rec.released[k], want)
			}
		}
	})
	t.Run("failure", func(t *testing.T) {
		g, keys := Wide(20)
		must(g.AddTask("bad", Fail, graph.Ref(keys[0])))
		rec := newRecorder()
		ctx := sched.WithCallbacks(context.Background(), rec.callbacks())
		_, err := s.Get(ctx, g, append(keys, "bad"))
		if !errors.Is(err, ErrBoom) {
			t.Fatalf("Get error = %v, want ErrBoom", err)
		}
		// Workers may still be finishing tasks after Get returns; no
		// callback may follow Finish.
		time.Sleep(20 * time.Millisecond)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if !reflect.DeepEqual(rec.events, []string{"start", "finish"}) || rec.finErr != err {
			t.Errorf("events %v, Finish(%v); want [start finish], Finish(%v)", rec.events, rec.finErr, err)
		}
		for _, b := range rec.bad {
			t.Error(b)
		}
		if rec.post["bad"] != 1 {
			t.Errorf("Posttask(bad) called %d times, want 1", rec.post["bad"])
		}
	})
	t.Run("bad input", func(t *testing.T) {
		rec := newRecorder()
		ctx := sched.WithCallbacks(context.Background(), rec.callbacks())
		_, err := s.Get(ctx, small(), []graph.Key{"nope"})
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if err == nil || !reflect.DeepEqual(rec.events, []string{"start", "finish"}) || rec.finErr != err {
			t.Errorf("events %v, Finish(%v), err %v; want [start finish] and Finish(err)", rec.events, rec.finErr, err)
		}
	})
}
