package distributed

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// blockTree is a tree reduction the way chunkarray builds one over many
// blocks: n root blocks of size bytes each (makeBytes), a lenSum per group
// of fanout blocks (the per-block step that turns a block into a small
// partial), then Add over groups of fanout partials, level by level, to
// one key. Its value is n×size.
func blockTree(n, size, fanout int) (*graph.Graph, graph.Key) {
	g := graph.New(0)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	var level []graph.Key
	for i := range n {
		k := graph.BlockKey("block", i)
		must(g.AddTask(k, makeBytes, graph.Lit(size)))
		level = append(level, k)
	}
	op, name := lenSum, "partial"
	for depth := 0; len(level) > 1 || depth == 0; depth++ {
		var next []graph.Key
		for lo := 0; lo < len(level); lo += fanout {
			var refs []graph.Arg
			for _, k := range level[lo:min(lo+fanout, len(level))] {
				refs = append(refs, graph.Ref(k))
			}
			k := graph.BlockKey(name, depth, len(next))
			must(g.AddTask(k, op, refs...))
			next = append(next, k)
		}
		level, op, name = next, schedtest.Add, "sum"
	}
	return g, level[0]
}

// TestRootThrottlingMemory: a sum over 400 blocks of 256 KiB (100 MiB in
// all) on two workers of one thread each holds little more than the root
// budget per worker at any time. A worker takes root tasks while its
// processing tasks and the root values it holds for consumers already
// running stay below rootCap (with the default WorkerSaturation 2:
// ceil(1×2) + 32 MiB / 256 KiB = 130); beyond those it holds only the
// tree's live values: blocks of groups whose partial cannot run yet (their
// other blocks are still to come) and replicas of blocks fetched from the
// other worker for a partial running here, a few groups of 8 of each (4
// groups in all are allowed). The peak of each worker's memory_bytes,
// sampled from Server.Status() (heartbeats every 2 ms) and from the
// workers' stores directly, must stay below that bound, itself far below
// the 100 MiB the blocks total. (Before held values counted, a worker ran
// ahead of the releases by about a round trip of roots: 44 to 60 MiB.)
func TestRootThrottlingMemory(t *testing.T) {
	const (
		blocks  = 400
		size    = 256 << 10
		fanout  = 8
		threads = 1
	)
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: threads, InProcess: true,
		Scheduler: SchedulerOptions{HeartbeatInterval: 2 * time.Millisecond}})
	rootCap := int(math.Ceil(threads*2.0)) + (32<<20)/size
	bound := int64(rootCap+4*fanout) * size
	if total := int64(blocks) * size; bound > total/2 {
		t.Fatalf("bound %d is not far below the total %d: the test proves nothing", bound, total)
	}

	var mu sync.Mutex
	peak := map[string]int64{} // worker name -> bytes
	note := func(name string, b int64) {
		mu.Lock()
		peak[name] = max(peak[name], b)
		mu.Unlock()
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			for _, w := range c.Server().Status().Workers {
				note(w.Name, w.MemoryBytes)
			}
			for _, p := range c.Workers() {
				note(p.Name, p.w.store.statsNow().memory)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	g, root := blockTree(blocks, size, fanout)
	got, err := c.Get(context.Background(), g, []graph.Key{root})
	close(stop)
	wg.Wait()
	if err != nil || got[0] != blocks*size {
		t.Fatalf("sum = %v, %v; want %d", got, err, blocks*size)
	}
	srv := c.Server()
	srv.mu.Lock()
	for _, w := range srv.live {
		if w.held != 0 {
			t.Errorf("after the job worker %d still counts %d held root values", w.id, w.held)
		}
	}
	srv.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if len(peak) != 2 {
		t.Fatalf("sampled workers %v; want 2", peak)
	}
	for name, b := range peak {
		t.Logf("worker %s: peak %.1f MiB in memory (bound %.1f MiB, total %.1f MiB)", name,
			float64(b)/(1<<20), float64(bound)/(1<<20), float64(blocks*size)/(1<<20))
		if b > bound {
			t.Errorf("worker %s held %d bytes at its peak; the root budget allows %d (of %d in all)", name, b, bound, blocks*size)
		}
	}
}
