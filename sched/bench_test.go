package sched_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// schedulers are the schedulers every benchmark runs on.
func benchSchedulers() []struct {
	name string
	s    sched.Scheduler
} {
	return []struct {
		name string
		s    sched.Scheduler
	}{
		{"Sync", sched.Sync{}},
		{"Threaded1", sched.Threaded{Workers: 1}},
		{"Threaded2", sched.Threaded{Workers: 2}},
		{"ThreadedMax", sched.Threaded{Workers: runtime.GOMAXPROCS(0)}},
	}
}

// benchmarkGet runs g on every scheduler and reports ns per task; the graph
// is built once, outside the timed loop (Get does not modify it).
func benchmarkGet(b *testing.B, g *graph.Graph, keys []graph.Key, check func([]any) error) {
	for _, bs := range benchSchedulers() {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				vals, err := bs.s.Get(ctx, g, keys)
				if err != nil {
					b.Fatal(err)
				}
				if check != nil {
					if err := check(vals); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.Len()), "ns/task")
		})
	}
}

// BenchmarkTree is Dask's delayed_tree_65535: a binary tree of additions.
func BenchmarkTree(b *testing.B) {
	const leaves = 1 << 15
	g, root := schedtest.AddTree(leaves)
	want := leaves * (leaves + 1) / 2
	benchmarkGet(b, g, []graph.Key{root}, func(v []any) error {
		if v[0] != want {
			b.Fatalf("root = %v, want %d", v[0], want)
		}
		return nil
	})
}

// BenchmarkWide is an embarrassingly parallel graph: 100,000 independent
// tasks, all requested.
func BenchmarkWide(b *testing.B) {
	g, keys := schedtest.Wide(100_000)
	benchmarkGet(b, g, keys, nil)
}

// BenchmarkMillion builds and runs a 1,000,000-task tree (2^19 leaves,
// 1,048,575 tasks) each iteration, reporting build and run time per task
// separately.
func BenchmarkMillion(b *testing.B) {
	const leaves = 1 << 19
	for _, bs := range benchSchedulers() {
		b.Run(bs.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			var build, run time.Duration
			n := 0
			for b.Loop() {
				t0 := time.Now()
				g, root := schedtest.AddTree(leaves)
				t1 := time.Now()
				if _, err := bs.s.Get(ctx, g, []graph.Key{root}); err != nil {
					b.Fatal(err)
				}
				build += t1.Sub(t0)
				run += time.Since(t1)
				n += g.Len()
			}
			b.ReportMetric(float64(build.Nanoseconds())/float64(n), "build-ns/task")
			b.ReportMetric(float64(run.Nanoseconds())/float64(n), "run-ns/task")
		})
	}
}

var _ = strconv.Itoa

// BenchmarkHandoff measures the cost that rejected a central dispatcher
// (doc.go): a task handed to a worker over a channel and its result handed
// back, against the one mutex acquisition per task the engine pays.
func BenchmarkHandoff(b *testing.B) {
	b.Run("ChannelRoundTrip", func(b *testing.B) {
		work, done := make(chan int32), make(chan int32)
		go func() {
			for i := range work {
				done <- i
			}
			close(done)
		}()
		for b.Loop() {
			work <- 1
			<-done
		}
		close(work)
		<-done
	})
	b.Run("Mutex", func(b *testing.B) {
		var mu sync.Mutex
		n := 0
		for b.Loop() {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
}
