package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// envPlaceNoOp makes a process of this test binary leave placeDouble
// unregistered: a worker started with it runs, in effect, another
// binary, one without the test's op (as the stock tessera worker lacks a
// user's ops).
const envPlaceNoOp = "DISTRIBUTED_TEST_PLACE_NO_OP"

var (
	// placeDouble doubles an int.
	placeDouble = &graph.FuncOp{OpName: "distributedtest.place-double", Fn: func(_ context.Context, a []any) (any, error) {
		return 2 * a[0].(int), nil
	}}
	// placePid returns the pid of the process that runs it (its argument
	// only makes the keys differ).
	placePid = &graph.FuncOp{OpName: "distributedtest.place-pid", Fn: func(context.Context, []any) (any, error) {
		return os.Getpid(), nil
	}}
	// placeRecord appends its argument to placeLog; the first call of a
	// test waits for placeLog.release.
	placeRecord = &graph.FuncOp{OpName: "distributedtest.place-record", Fn: func(_ context.Context, a []any) (any, error) {
		placeLog.mu.Lock()
		placeLog.order = append(placeLog.order, a[0].(int))
		first := len(placeLog.order) == 1
		placeLog.mu.Unlock()
		if first {
			close(placeLog.started)
			<-placeLog.release
		}
		return a[0], nil
	}}
)

var placeLog struct {
	mu       sync.Mutex
	order    []int
	started  chan struct{}
	release  chan struct{}
	lateSeqs atomic.Int64
}

func init() {
	if os.Getenv(envPlaceNoOp) == "" {
		graph.Register(placeDouble)
	}
	graph.Register(placePid)
	graph.Register(placeRecord)
}

// placeGraph is, for n leaves and a prefix p:
//
//	p-r-i = Inc(i) ──▶ p-d-i = Double(p-r-i) ──┐
//	           └─────▶ p-n-i = Inc(Double(p-r-i) nested) ──▶ p-total = SumList(every p-d-i and p-n-i)
//	p-lit = 7 (a literal), p-alias ──▶ p-r-0
//
// p-total is n(n+1) + n(n+1) + n = 2n(n+1) + n.
func placeGraph(t *testing.T, p string, n int) (*graph.Graph, []graph.Key, []any) {
	t.Helper()
	g := graph.New(0)
	set := func(k string, nd graph.Node) {
		if err := g.Set(graph.Key(k), nd); err != nil {
			t.Fatal(err)
		}
	}
	var parts []graph.Arg
	for i := range n {
		r := fmt.Sprintf("%s-r-%d", p, i)
		set(r, graph.Task(schedtest.Inc, graph.Lit(i)))
		set(fmt.Sprintf("%s-d-%d", p, i), graph.Task(placeDouble, graph.Ref(graph.Key(r))))
		set(fmt.Sprintf("%s-n-%d", p, i), graph.Task(schedtest.Inc, graph.Nested(placeDouble, graph.Ref(graph.Key(r)))))
		parts = append(parts, graph.Ref(graph.Key(fmt.Sprintf("%s-d-%d", p, i))), graph.Ref(graph.Key(fmt.Sprintf("%s-n-%d", p, i))))
	}
	set(p+"-total", graph.Task(schedtest.SumList, graph.List(parts...)))
	set(p+"-lit", graph.Literal(7))
	set(p+"-alias", graph.Alias(graph.Key(p+"-r-0")))
	return g, []graph.Key{graph.Key(p + "-total"), graph.Key(p + "-lit"), graph.Key(p + "-alias")}, []any{2*n*(n+1) + n, 7, 1}
}

// fusedGraph is the chain f-x = Inc(1) ──▶ f-y = Double(f-x) ──▶ f-z =
// Inc(f-y) fused into one task f-z (optimize.Optimize), whose value is 5:
// Double travels nested inside it, wrapped in an optimize.Fused.
func fusedGraph(t *testing.T) *graph.Graph {
	t.Helper()
	g := graph.New(0)
	for _, kn := range []struct {
		k  graph.Key
		nd graph.Node
	}{
		{"f-x", graph.Task(schedtest.Inc, graph.Lit(1))},
		{"f-y", graph.Task(placeDouble, graph.Ref("f-x"))},
		{"f-z", graph.Task(schedtest.Inc, graph.Ref("f-y"))},
	} {
		if err := g.Set(kn.k, kn.nd); err != nil {
			t.Fatal(err)
		}
	}
	fused, _, err := optimize.Optimize(g, []graph.Key{"f-z"})
	if err != nil {
		t.Fatal(err)
	}
	if fused.Len() != 1 {
		t.Fatalf("the fused chain has %d nodes, want 1", fused.Len())
	}
	return fused
}

// workersRan records, by key, the worker ids that ran each task.
type workersRan struct {
	mu sync.Mutex
	by map[graph.Key]int
}

func (r *workersRan) ctx() context.Context {
	r.by = map[graph.Key]int{}
	return sched.WithCallbacks(context.Background(), &sched.Callbacks{Pretask: func(k graph.Key, w int) {
		r.mu.Lock()
		r.by[k] = w
		r.mu.Unlock()
	}})
}

// check fails t unless every task of the graph of prefix p that needs
// placeDouble (p-d-*, p-n-*) ran on worker want.
func (r *workersRan) check(t *testing.T, p string, n, want int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range n {
		for _, k := range []graph.Key{graph.Key(fmt.Sprintf("%s-d-%d", p, i)), graph.Key(fmt.Sprintf("%s-n-%d", p, i))} {
			if got, ok := r.by[k]; !ok || got != want {
				t.Errorf("%s ran on worker %d (reported %v), want %d, the only worker with op %s", k, got, ok, want, placeDouble.OpName)
			}
		}
	}
}

// workerPids maps the names of c's worker processes to their pids.
func workerPids(c *Cluster) map[string]int {
	pids := map[string]int{}
	for _, p := range c.Workers() {
		pids[p.Name] = p.Pid
	}
	return pids
}

func workerIDs(c *Cluster) map[string]int {
	ids := map[string]int{}
	for _, w := range c.Server().Status().Workers {
		ids[w.Name] = int(w.ID)
	}
	return ids
}

// TestPlaceOps: tasks run only on workers that registered their op (or
// an op nested in their arguments).
//
//  1. No worker at all: a job waits (its tasks have no worker).
//  2. worker-0 joins without the op: that job still waits, and a new job
//     needing the op fails at once with a *NoWorkerForOpError naming the
//     op, the task and worker-0 (WorkerTimeout is an hour: a wait would
//     hang the test rather than pass it).
//  3. worker-1 joins with the op: the first job's tasks go there, and it
//     finishes.
//  4. With both connected, every task needing the op runs on worker-1.
func TestPlaceOps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 0, ThreadsPerWorker: 1, Quiet: true,
		Scheduler: SchedulerOptions{WorkerTimeout: time.Hour}})
	const n = 12

	// 1.
	var ranA workersRan
	gA, keysA, wantA := placeGraph(t, "a", n)
	type result struct {
		vals []any
		err  error
	}
	doneA := make(chan result, 1)
	go func() {
		v, err := c.Get(ranA.ctx(), gA, keysA)
		doneA <- result{v, err}
	}()
	eventually(t, "job a's tasks parked without a worker", func() bool {
		for _, j := range c.Server().Status().Jobs {
			if j.States["no-worker"] > 0 {
				return true
			}
		}
		return false
	})

	// 2.
	t.Setenv(envPlaceNoOp, "1")
	if _, err := c.AddWorker(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	gB, keysB, _ := placeGraph(t, "b", n)
	_, err := c.Get(context.Background(), gB, keysB)
	var nw *NoWorkerForOpError
	if !errors.As(err, &nw) {
		t.Fatalf("Get with no worker having the op = %v; want a *NoWorkerForOpError", err)
	}
	if nw.Op != placeDouble.OpName || !strings.HasPrefix(string(nw.Key), "b-d-") && !strings.HasPrefix(string(nw.Key), "b-n-") || !slices.Equal(nw.Workers, []string{"worker-0"}) {
		t.Errorf("NoWorkerForOpError = %+v; want op %s, a task b-d-* or b-n-*, workers [worker-0]", nw, placeDouble.OpName)
	}
	if !errors.Is(err, ErrNoWorker) || !strings.Contains(err.Error(), "MaybeWorker") {
		t.Errorf("error %q: want errors.Is ErrNoWorker, and a hint at MaybeWorker", err)
	}
	// The op nested, fused, in another task's arguments counts.
	_, err = c.Get(context.Background(), fusedGraph(t), []graph.Key{"f-z"})
	if !errors.As(err, &nw) || nw.Op != placeDouble.OpName || nw.Key != "f-z" {
		t.Errorf("Get of a fused chain with no worker having its op = %v; want a *NoWorkerForOpError for %s, f-z", err, placeDouble.OpName)
	}
	select {
	case r := <-doneA:
		t.Fatalf("job a ended (%v, %v) with no worker having its op", r.vals, r.err)
	default:
	}

	// 3.
	t.Setenv(envPlaceNoOp, "")
	if _, err := c.AddWorker(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ids := workerIDs(c)
	r := <-doneA
	if r.err != nil || !slices.Equal(r.vals, wantA) {
		t.Fatalf("job a = %v, %v; want %v", r.vals, r.err, wantA)
	}
	ranA.check(t, "a", n, ids["worker-1"])

	// 4.
	var ranC workersRan
	gC, keysC, wantC := placeGraph(t, "c", n)
	got, err := c.Get(ranC.ctx(), gC, keysC)
	if err != nil || !slices.Equal(got, wantC) {
		t.Fatalf("job c = %v, %v; want %v", got, err, wantC)
	}
	ranC.check(t, "c", n, ids["worker-1"])
	var ranF workersRan
	got, err = c.Get(ranF.ctx(), fusedGraph(t), []graph.Key{"f-z"})
	if err != nil || got[0] != 5 {
		t.Fatalf("fused chain = %v, %v; want 5", got, err)
	}
	if w := ranF.by["f-z"]; w != ids["worker-1"] {
		t.Errorf("the fused chain ran on worker %d, want %d, the only worker with op %s", w, ids["worker-1"], placeDouble.OpName)
	}
}

// TestLateOp: a client whose workers are other processes refuses ops
// registered after package initialization (a delayed wrapper built in a
// function, a graph.Register in a test), in Get, Submit, Map and
// Persist, with a *LateOpError naming the op and the key, before
// anything reaches the scheduler; a cluster of in-process workers runs
// them.
func TestLateOp(t *testing.T) {
	add := delayed.Fn2("distributedtest.late_add", func(a, b int) int { return a + b })
	late := &graph.FuncOp{OpName: fmt.Sprintf("distributedtest.late-%d", placeLog.lateSeqs.Add(1)),
		Fn: func(_ context.Context, a []any) (any, error) { return a[0].(int) + 1, nil }}
	graph.Register(late)
	sum := add(delayed.Value(1), delayed.Value(2))
	g, err := sum.Graph()
	if err != nil {
		t.Fatal(err)
	}
	g2 := graph.New(0)
	if err := g2.Set("x", graph.Task(late, graph.Lit(1))); err != nil {
		t.Fatal(err)
	}
	wantLate := func(what string, err error, op string, key func(graph.Key) bool) {
		t.Helper()
		var le *LateOpError
		if !errors.As(err, &le) || le.Op != op || !key(le.Key) {
			t.Errorf("%s = %v; want a *LateOpError for op %s", what, err, op)
			return
		}
		if !strings.Contains(err.Error(), "delayed.Fn2") || !strings.Contains(err.Error(), "MaybeWorker") {
			t.Errorf("%s: error %q does not say how to register the op", what, err)
		}
	}
	isKey := func(k graph.Key) func(graph.Key) bool { return func(x graph.Key) bool { return x == k } }

	s := newTestServer(t, SchedulerOptions{})
	cl, err := Connect(context.Background(), s.Addr(), ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	_, err = cl.Get(ctx, g, []graph.Key{sum.Key()})
	wantLate("Get of a wrapper built in a function", err, "delayed.distributedtest.late_add", isKey(sum.Key()))
	_, err = cl.Get(ctx, g2, []graph.Key{"x"})
	wantLate("Get of an op registered in a test", err, late.OpName, isKey("x"))
	f := cl.Submit(ctx, sum)
	<-f.Done()
	wantLate("Submit", f.Err(), "delayed.distributedtest.late_add", isKey(sum.Key()))
	fs := cl.Map(ctx, late, [][]any{{1}, {2}})
	for _, f := range fs {
		<-f.Done()
		wantLate("Map", f.Err(), late.OpName, func(k graph.Key) bool { return k == fs[0].Key() || k == fs[1].Key() })
	}
	_, err = cl.Persist(ctx, g2, []graph.Key{"x"})
	wantLate("Persist", err, late.OpName, isKey("x"))
	if st := s.Status(); len(st.Jobs) != 0 {
		t.Errorf("the scheduler got jobs %+v; want none", st.Jobs)
	}

	// In-process workers share the registry.
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	got, err := c.Get(ctx, g, []graph.Key{sum.Key()})
	if err != nil || got[0] != 3 {
		t.Fatalf("in-process Get = %v, %v; want 3", got, err)
	}
	fs = c.Client().Map(ctx, late, [][]any{{1}, {2}})
	vals, err := c.Client().Gather(ctx, fs...)
	if err != nil || !slices.Equal(vals, []any{2, 3}) {
		t.Fatalf("in-process Map = %v, %v; want [2 3]", vals, err)
	}
}

// TestWorkersOption: Workers pins every task of a Map to the worker
// named (by name, by data address), as the pid each task returns shows;
// with AllowOtherWorkers, a Map restricted to a worker that does not
// exist runs on the others.
func TestWorkersOption(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true})
	pids := workerPids(c)
	addr := map[string]string{}
	for _, w := range c.Server().Status().Workers {
		addr[w.Name] = w.Address
	}
	ctx := context.Background()
	const n = 16
	for k, tc := range []struct {
		name, sel, want string
	}{
		{"by-name", "worker-1", "worker-1"},
		{"by-address", addr["worker-0"], "worker-0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := make([][]any, n)
			for i := range args {
				args[i] = []any{k*1000 + i}
			}
			vals, err := c.Client().Gather(ctx, c.Client().Map(ctx, placePid, args, Workers(tc.sel))...)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if v != pids[tc.want] {
					t.Errorf("task %d ran in pid %v, want %s's pid %d (workers' pids %v)", i, v, tc.want, pids[tc.want], pids)
				}
			}
		})
	}
	t.Run("allow-other-workers", func(t *testing.T) {
		args := make([][]any, n)
		for i := range args {
			args[i] = []any{5000 + i}
		}
		vals, err := c.Client().Gather(ctx, c.Client().Map(ctx, placePid, args, Workers("nobody"), AllowOtherWorkers())...)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if v != pids["worker-0"] && v != pids["worker-1"] {
				t.Errorf("task %d ran in pid %v, not a worker's (%v)", i, v, pids)
			}
		}
	})
}

// TestServerRestrictedNoWorker: a job restricted to a worker that is
// not connected waits like a task whose resources nobody offers, then
// fails NO_WORKER naming the worker asked for; restricted to the one
// connected, it runs.
func TestServerRestrictedNoWorker(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{WorkerTimeout: 300 * time.Millisecond})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", heartbeat: 20 * time.Millisecond})
	defs := tdefs([]tnode{{key: "y"}, {key: "z", deps: []int32{0}}})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{1}, PlaceWorkers: []string{"a"}})
	eventually(t, "the end", func() bool { return c.outputsReady([]int32{1}) || c.jobError() != nil })
	if e := c.jobError(); e != nil {
		t.Fatalf("job error %v", e)
	}
	c.checkOutputs(sim, defs, []int32{1})
	c = submit(t, s, Security{}, tdefs([]tnode{{key: "x"}}), &pb.Run{Outputs: []int32{0}, PlaceWorkers: []string{"b"}})
	eventually(t, "job error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_NO_WORKER || !strings.Contains(e.Message, `"b"`) || !strings.Contains(e.Message, `"x"`) {
		t.Errorf("job error %v, want NO_WORKER naming worker b and task x", e)
	}
}

// TestPriority: with one worker of one thread busy with the first task
// of a large Map (it waits for the test), a Submit of priority 10 runs
// next, before the Map's other tasks, which were queued first (on the
// worker or on the scheduler).
func TestPriority(t *testing.T) {
	placeLog.mu.Lock()
	placeLog.order = nil
	placeLog.started = make(chan struct{})
	placeLog.release = make(chan struct{})
	placeLog.mu.Unlock()
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	ctx := context.Background()
	const n = 40
	args := make([][]any, n)
	for i := range args {
		args[i] = []any{i}
	}
	fs := c.Client().Map(ctx, placeRecord, args)
	<-placeLog.started
	hi := c.Client().SubmitWith(ctx, []SubmitOption{Priority(10)}, placeRecord, 1000)
	// Release the first task once the Submit's task has reached the
	// worker's queue, or (were it not preferred) a root queue.
	s, w := c.Server(), c.Workers()[0].w
	eventually(t, "the Submit's task placed", func() bool {
		state := uint8(255)
		s.locked("test", func() {
			for _, j := range s.jobs {
				if i, ok := j.lookupKey(string(hi.Key())); ok && j.run {
					state = j.state[i]
				}
			}
		})
		if state == tsQueued {
			return true
		}
		if state != tsProcessing {
			return false
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		for id := range w.tasks {
			if id.key == string(hi.Key()) {
				return true
			}
		}
		return false
	})
	close(placeLog.release)
	if err := c.Client().Wait(ctx, append(fs, hi)...); err != nil {
		t.Fatal(err)
	}
	placeLog.mu.Lock()
	defer placeLog.mu.Unlock()
	if len(placeLog.order) != n+1 {
		t.Fatalf("%d tasks ran, want %d: %v", len(placeLog.order), n+1, placeLog.order)
	}
	if placeLog.order[1] != 1000 {
		t.Errorf("order of runs %v: want the Submit's task (1000) second, right after the Map's first", placeLog.order)
	}
}
