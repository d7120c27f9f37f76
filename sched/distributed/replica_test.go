package distributed

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// gateOpen holds the channel whose closing releases the gate op's runs
// (on in-process workers, so it is shared); each TestReplicas run makes a
// new one.
var gateOpen atomic.Pointer[chan struct{}]

// gate returns its argument once the running test closes its gateOpen
// channel (or its context ends), so that a test can look at the workers
// mid-job.
var gate graph.Op = &graph.FuncOp{OpName: "distributed_test.gate", Fn: func(ctx context.Context, args []any) (any, error) {
	select {
	case <-*gateOpen.Load():
		return args[0], nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}}

func init() { graph.Register(gate) }

// storeStats returns the in-process workers' store counters, by the
// resource name each offers.
func storeStatsByResource(c *Cluster) map[string]storeStats {
	m := map[string]storeStats{}
	for _, p := range c.Workers() {
		for r := range p.w.opts.Resources {
			m[r] = p.w.store.statsNow()
		}
	}
	return m
}

// TestReplicas: a 1 MiB block made on worker A and used by 16 tasks that
// can run only on worker B (4 threads) crosses once: B keeps it as a
// replica, reads it locally for the other 15 tasks, and drops it when
// its last consumer finishes (mid-job, while a gate task holds the job
// open), as A does; at job end B holds nothing.
//
//	big (A) ──▶ use[0..15] (B) ──▶ sum ──▶ gate
func TestReplicas(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 4, InProcess: true,
		Resources: []map[string]float64{{"A": 1}, {"B": 16}}})
	var b *Worker
	for _, p := range c.Workers() {
		if p.w.opts.Resources["B"] > 0 {
			b = p.w
		}
	}
	const n, size = 16, 1 << 20
	g := graph.New(0)
	big := graph.Task(makeBytes, graph.Lit(size))
	big.Resources = map[string]float64{"A": 1}
	if err := g.Set("big", big); err != nil {
		t.Fatal(err)
	}
	var refs []graph.Arg
	for i := range n {
		k := graph.Key(fmt.Sprintf("use-%d", i))
		use := graph.Task(lenSum, graph.Ref("big"))
		use.Resources = map[string]float64{"B": 1}
		if err := g.Set(k, use); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("sum", schedtest.Add, refs...); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTask("gate", gate, graph.Ref("sum")); err != nil {
		t.Fatal(err)
	}
	type result struct {
		v   []any
		err error
	}
	open := make(chan struct{})
	gateOpen.Store(&open)
	openGate := sync.OnceFunc(func() { close(open) })
	defer openGate()
	done := make(chan result, 1)
	go func() {
		v, err := c.Get(context.Background(), g, []graph.Key{"gate"})
		done <- result{v, err}
	}()

	// Mid-job: every use has run, and only sum is held (on B, where its
	// inputs are); big is gone from A and from B's replica.
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := storeStatsByResource(c)
		if st["A"].keys == 0 && st["B"].keys == 1 && st["B"].memory < size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mid-job the workers hold %+v; want only sum, on B", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := b.fetched.Load(); got != 1 {
		t.Errorf("B fetched %d values for %d tasks needing big; want 1 (kept as a replica)", got, n)
	}
	openGate()
	r := <-done
	if r.err != nil || r.v[0] != n*size {
		t.Fatalf("gate = %v, %v; want %d", r.v, r.err, n*size)
	}
	for {
		st := storeStatsByResource(c)
		if st["A"].keys == 0 && st["B"].keys == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the job the workers hold %+v; want nothing", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServerReplicas: the scheduler's side of replicas, with simulated
// workers. b reports a replica of r (made on a): the next task needing r
// goes to b (without the replica a would win by r's megabyte) with both
// addresses for r; when r's last consumer finishes both holders are told
// to drop it; a replica reported for a value no longer needed is answered
// with a release.
//
//	r (a, 1 MiB) ──▶ c1, c2 (b)
//	             ╲
//	g (b) ────────▶ c4 (anywhere)
//	h (a, held until the end)
func TestServerReplicas(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	// a is kept busy with h, so that it does not steal from b.
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", resources: map[string]float64{"X": 1},
		hold: func(c *pb.TaskSpec) bool { return c.Key == "h" }})
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", resources: map[string]float64{"Y": 1},
		hold: func(*pb.TaskSpec) bool { return true }})
	y := map[string]float64{"Y": 1}
	defs := tdefs([]tnode{
		{key: "r", op: "big", res: map[string]float64{"X": 1}},
		{key: "c1", deps: []int32{0}, res: y},
		{key: "c2", deps: []int32{0}, res: y},
		{key: "g", res: y},
		{key: "c4", deps: []int32{0, 3}},
		{key: "h", res: map[string]float64{"X": 1}},
	})
	outs := []int32{1, 2, 4, 5}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "c1, c2 and g on b, h on a", func() bool {
		ra, _, _, _, _ := a.snapshot()
		rb, _, _, _, _ := b.snapshot()
		return len(rb) == 3 && slices.Contains(ra, "h")
	})
	job := c.jobID()
	v, ok := sim.get([]string{a.addr}, job, "r")
	if !ok {
		t.Fatal("r is not on a")
	}
	sim.mu.Lock()
	sim.vals[b.addr] = map[string]int64{simKey(job, "r"): v}
	sim.mu.Unlock()
	b.send(&pb.WorkerMessage{Replicas: []*pb.Replica{{Job: job, Key: "r", Nbytes: 1 << 20}}})
	b.release(func(c *pb.TaskSpec) bool { return c.Key == "g" })
	eventually(t, "c4 on b", func() bool { r, _, _, _, _ := b.snapshot(); return slices.Contains(r, "c4") })
	var addrs []string
	b.mu.Lock()
	for _, c := range b.held {
		for _, d := range c.Deps {
			if c.Key == "c4" && d.Key == "r" {
				addrs = slices.Sorted(slices.Values(d.Addresses))
			}
		}
	}
	b.mu.Unlock()
	if want := []string{a.addr, b.addr}; !slices.Equal(addrs, want) {
		t.Errorf("c4's dependency r at %v, want %v", addrs, want)
	}
	b.release(nil)
	a.release(nil)
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
	count := func(w *fakeWorker) int {
		_, _, rel, _, _ := w.snapshot()
		n := 0
		for _, k := range rel {
			if k == "r" {
				n++
			}
		}
		return n
	}
	eventually(t, "r released on a and b", func() bool { return count(a) == 1 && count(b) == 1 })
	b.send(&pb.WorkerMessage{Replicas: []*pb.Replica{{Job: job, Key: "r", Nbytes: 1 << 20}}})
	eventually(t, "a stale replica released", func() bool { return count(b) == 2 })
	if n := count(a); n != 1 {
		t.Errorf("a told to release r %d times, want 1", n)
	}
}
