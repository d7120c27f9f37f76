package distributed

import (
	"context"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
)

// runsOf counts the task runs of key prefix prefix that the scheduler's
// task stream recorded (the last streamCap runs).
func runsOf(s *Server, prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, _, _ := s.stream.since(0, 0)
	n := 0
	for _, r := range recs {
		if r.Prefix == prefix && !r.Failed {
			n++
		}
	}
	return n
}

// heapPeak samples the heap in use every 5 ms until stop is called, and
// returns the largest sample.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// TestPersistStaysOnCluster: an array persisted on a cluster of two
// worker processes stays there; reducing it twice moves no block through
// the client (whose heap stays small) and generates no block again (the
// scheduler's task stream counts the generator's runs).
//
// The 1 GiB (128 blocks of 8 MiB; about 2 s on two cores, the
// local oracle included); TESSERA_PERSIST_SMALL=1 makes it 64 MiB for
// machines short of memory.
func TestPersistStaysOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	n, chunk := 1<<27, 1<<20 // 1 GiB of float64, 128 blocks
	if os.Getenv("TESSERA_PERSIST_SMALL") == "1" {
		n = 1 << 23 // 64 MiB, 8 blocks
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a := chunkarray.Random(7).Uniform(0, 1, []int{n}, chunk)
	blocks := n / chunk

	// The oracle: the same sum on the threaded scheduler, block by block
	// in this process, before the heap is watched.
	want := scalar(t, ctx, a.Sum())
	runtime.GC()

	peak := heapPeak()
	start := time.Now()
	p, err := a.Persist(ctx, chunkarray.WithScheduler(c))
	if err != nil {
		t.Fatal(err)
	}
	persisted := time.Since(start)
	prefix := graph.Key(p.Keys()[0]).Prefix()
	if got := runsOf(c.Server(), prefix); got != blocks {
		t.Fatalf("persist ran %d %s tasks, want %d", got, prefix, blocks)
	}
	waitStored(t, c, int64(blocks))
	var fetched0, held int64
	for _, w := range c.Server().Status().Workers {
		fetched0 += w.FetchedBytes
		held += w.MemoryBytes + w.SpilledBytes
	}
	if held < int64(n)*8 {
		t.Errorf("the workers hold %d bytes, want the array's %d at least", held, n*8)
	}
	for round := range 2 {
		got := scalar(t, ctx, p.Sum(), chunkarray.WithScheduler(c))
		if math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("reduction %d: sum %v, want %v (local)", round+1, got, want)
		}
		if runs := runsOf(c.Server(), prefix); runs != blocks {
			t.Errorf("after reduction %d, %d %s tasks ran, want %d (none again)", round+1, runs, prefix, blocks)
		}
	}
	heap := peak()
	var fetched int64
	for _, w := range c.Server().Status().Workers {
		fetched += w.FetchedBytes
	}
	t.Logf("%d MiB in %d blocks: persisted in %v, the workers hold %d MiB; client heap in use at most %.1f MiB; workers fetched %d bytes from each other in the two reductions",
		n*8>>20, blocks, persisted.Round(time.Millisecond), held>>20, float64(heap)/(1<<20), fetched-fetched0)
	if heap >= 64<<20 {
		t.Errorf("client heap in use reached %.1f MiB, want < 64 MiB", float64(heap)/(1<<20))
	}
	// The blocks are released when the persisted Array is unreachable.
	runtime.KeepAlive(p)
	p = nil
	deadline := time.Now().Add(20 * time.Second)
	for len(c.Client().Held()) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	waitStored(t, c, 0)
}

func scalar(t *testing.T, ctx context.Context, a *chunkarray.Array, opts ...chunkarray.Option) float64 {
	t.Helper()
	x, err := a.Compute(ctx, opts...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := x.At()
	if err != nil {
		t.Fatal(err)
	}
	f, ok := v.(float64)
	if !ok {
		t.Fatalf("sum is %T, want float64", v)
	}
	return f
}

// Delayed.Persist on a cluster: the value stays on the workers, and
// values built on it read it there.
func TestDelayedPersistStaysOnCluster(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x := persistInc(delayed.Value(41))
	px, err := x.Persist(ctx, delayed.WithScheduler(c))
	if err != nil {
		t.Fatal(err)
	}
	prefix := px.Key().Prefix()
	if n := runsOf(c.Server(), prefix); n != 1 {
		t.Fatalf("%d runs of %s after persist, want 1", n, prefix)
	}
	waitStored(t, c, 1)
	y := persistAdd(px, px)
	for range 2 {
		v, err := y.Compute(ctx, delayed.WithScheduler(c))
		if err != nil || v != 84 {
			t.Fatalf("x+x = %v, %v; want 84", v, err)
		}
	}
	if n := runsOf(c.Server(), prefix); n != 1 {
		t.Errorf("%d runs of %s after two computations on it, want 1", n, prefix)
	}
	// On another scheduler the node fetches the value.
	if v, err := y.Compute(ctx); err != nil || v != 84 {
		t.Errorf("x+x on Threaded = %v, %v; want 84", v, err)
	}
	runtime.KeepAlive(px)
}

var (
	persistInc = delayed.Fn1("distributed_test.persist_inc", func(x int) int { return x + 1 })
	persistAdd = delayed.Fn2("distributed_test.persist_add", func(x, y int) int { return x + y })
)
