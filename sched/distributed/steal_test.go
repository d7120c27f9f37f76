package distributed

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// gatedLen returns the length of its []byte argument once the running
// test closes its gateOpen channel (or its context ends).
var gatedLen graph.Op = &graph.FuncOp{OpName: "distributed_test.gatedlen", Fn: func(ctx context.Context, args []any) (any, error) {
	select {
	case <-*gateOpen.Load():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return len(args[0].([]byte)), nil
}}

func init() { graph.Register(gatedLen) }

// TestStealWeighsBytes: eight tasks all needing one value sit on worker
// a, which holds the value and runs one task at a time; worker b joins
// idle. A task is stolen only if its value crosses, at stealBandwidth, in
// less than the mean run time of its kind × (1 + a's surplus per thread)
// (worthMoving); up to 1 MiB always does, more only once a task of the
// kind has reported its run time. The fake workers report the run times
// the rows give, so the decision is the formula's, whatever the machine.
// (The first version ran real workers with 20 ms sleeps and read what
// moved: on a loaded machine a 20 ms sleep measured 50 ms, and a 32 MiB
// value moved; 1 run in 3 with busy loops on one core.)
//
//	big ──▶ use[0..7]
func TestStealWeighsBytes(t *testing.T) {
	for _, tt := range []struct {
		name  string
		size  int64
		ran   int // ms that use[0] reports; -1: it has not run
		steal bool
	}{
		{"64 B, no run time yet", 64, -1, true},
		{"64 B", 64, 20, true},
		// 32 MiB takes 0.34 s; the other seven wait 20 ms × (1 + 6).
		{"32 MiB, no run time yet", 32 << 20, -1, false},
		{"32 MiB, 20 ms tasks", 32 << 20, 20, false},
		// 100 ms × 7 = 0.7 s: moving pays.
		{"32 MiB, 100 ms tasks", 32 << 20, 100, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, SchedulerOptions{})
			sim := newSim()
			isUse := func(c *pb.TaskSpec) bool { return strings.HasPrefix(c.Key, "use[") }
			a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 1, hold: isUse})
			nodes := []tnode{{key: "big", op: fmt.Sprint("size:", tt.size)}}
			var outs []int32
			for i := range 8 {
				nodes = append(nodes, tnode{key: string(graph.BlockKey("use", i)), deps: []int32{0}, prio: int64(i + 1), op: fmt.Sprint("ms:", max(tt.ran, 0))})
				outs = append(outs, int32(i+1))
			}
			defs := tdefs(nodes)
			c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
			eventually(t, "every use on a", func() bool { _, _, _, _, h := a.snapshot(); return h == 8 })
			if tt.ran >= 0 {
				a.release(func(c *pb.TaskSpec) bool { return c.Key == defs[1].Key })
				eventually(t, "use[0] done", func() bool { return c.outputsReady(outs[:1]) })
			}
			startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 1})
			// balance runs on joins and after every message; once more
			// here, so that the decision below has surely been taken.
			s.locked("the test's balance", s.balance)
			if tt.steal {
				eventually(t, "a steal from a", func() bool { _, steals, _, _, _ := a.snapshot(); return len(steals) > 0 })
			} else {
				_, steals, _, _, _ := a.snapshot()
				s.locked("reading steal counts", func() {
					for _, w := range s.live {
						if w.stealIn+w.stealOut > 0 {
							t.Errorf("worker %s: %d steals in, %d out; want none", w.reg.Name, w.stealIn, w.stealOut)
						}
					}
				})
				if len(steals) > 0 {
					t.Errorf("a was asked for %v; want no steal", steals)
				}
			}
			for !c.outputsReady(outs) {
				a.release(nil)
				eventually(t, "progress", func() bool { _, _, _, _, h := a.snapshot(); return h > 0 || c.outputsReady(outs) })
			}
			c.checkOutputs(sim, defs, outs)
			onB := 0
			for _, d := range defs[1:] {
				if slices.Equal(sim.ranOn(d.Key), []string{"b"}) {
					onB++
				}
			}
			if got := onB > 0; got != tt.steal {
				t.Errorf("%d uses ran on b; want some: %v", onB, tt.steal)
			}
		})
	}
}

// TestStealAcrossWorkers: the same graph on two real workers of one
// thread, the value 64 bytes: the idle worker steals uses, fetches the
// value and runs them. The uses wait on a gate until the thief is running
// one, so that the victim cannot finish them all first, however the
// machine schedules the two.
func TestStealAcrossWorkers(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true})
	g := graph.New(0)
	if err := g.AddTask("big", makeBytes, graph.Lit(64)); err != nil {
		t.Fatal(err)
	}
	var keys []graph.Key
	for i := range 8 {
		k := graph.BlockKey("use", i) // one prefix, as a collection's blocks
		if err := g.AddTask(k, gatedLen, graph.Ref("big")); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	open := make(chan struct{})
	gateOpen.Store(&open)
	openGate := sync.OnceFunc(func() { close(open) })
	defer openGate()
	var mu sync.Mutex
	ranOn := map[graph.Key]int{}
	ctx := sched.WithCallbacks(context.Background(), &sched.Callbacks{
		Posttask: func(k graph.Key, _ any, _ error, w int) {
			mu.Lock()
			ranOn[k] = w
			mu.Unlock()
		},
	})
	type result struct {
		v   []any
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := c.Get(ctx, g, keys)
		done <- result{v, err}
	}()
	eventually(t, "both workers running a use", func() bool {
		for _, p := range c.Workers() {
			p.w.mu.Lock()
			n := p.w.executing
			p.w.mu.Unlock()
			if n == 0 {
				return false
			}
		}
		return true
	})
	openGate()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	for i, v := range r.v {
		if v != 64 {
			t.Fatalf("%s = %v, want 64", keys[i], v)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	home := ranOn["big"]
	moved := 0
	for _, k := range keys {
		if ranOn[k] != home {
			moved++
		}
	}
	var fetched int64
	for _, p := range c.Workers() {
		fetched += p.w.fetched.Load()
	}
	t.Logf("big on worker %d; %d of %d uses moved; values fetched %d", home, moved, len(keys), fetched)
	if moved == 0 || fetched == 0 {
		t.Errorf("%d uses moved to the idle worker, %d values fetched; want some of each", moved, fetched)
	}
}
