package distributed

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// gateOpen, closed once by TestReplicas, releases the gate op's runs
// (on in-process workers, so the channel is shared).
var (
	gateOpen = make(chan struct{})
	openGate = sync.OnceFunc(func() { close(gateOpen) })
)

// gate returns its argument once the test sends on gateOpen (or its
// context ends), so that a test can look at the workers mid-job.
var gate graph.Op = &graph.FuncOp{OpName: "distributed_test.gate", Fn: func(ctx context.Context, args []any) (any, error) {
	select {
	case <-gateOpen:
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
	done := make(chan result, 1)
	go func() {
		v, err := c.Get(context.Background(), g, []graph.Key{"gate"})
		done <- result{v, err}
	}()
	defer openGate()

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
