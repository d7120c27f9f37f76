package distributed

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tessera-go/tessera/sched/schedtest"
)

// BenchmarkSubmit is one Submit and Result round trip of a tiny task
// (inc of a new number, so that every submission is a new key) on two
// worker processes: a job to compute and hold it, a job to fetch it, and
// the release. Dask's client.submit(inc, i).result() is the comparison.
func BenchmarkSubmit(b *testing.B) {
	c, err := StartCluster(context.Background(), ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	cl := c.Client()
	b.ReportAllocs()
	i := 0
	var times []time.Duration
	for b.Loop() {
		t0 := time.Now()
		f := cl.Submit(ctx, schedtest.Inc, i)
		v, err := f.Result(ctx)
		if err != nil || v != i+1 {
			b.Fatalf("inc(%d) = %v, %v", i, v, err)
		}
		f.Release()
		times = append(times, time.Since(t0))
		i++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/submit")
	// The median round trip, as bench/dask/dask_futures.py reports Dask's.
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "µs-median/submit")
}

// BenchmarkMap is Map of 100,000 tiny tasks (one job) on two worker
// processes, waited for, gathered and released, per task: Dask's
// client.map(inc, range(100000)) then client.gather.
func BenchmarkMap(b *testing.B) {
	const n = 100_000
	c, err := StartCluster(context.Background(), ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	cl := c.Client()
	b.ReportAllocs()
	round := 0
	for b.Loop() {
		args := make([][]any, n)
		for i := range args {
			args[i] = []any{round*n + i}
		}
		fs := cl.Map(ctx, schedtest.Inc, args)
		vals, err := cl.Gather(ctx, fs...)
		if err != nil {
			b.Fatal(err)
		}
		if vals[n-1] != round*n+n {
			b.Fatalf("last = %v, want %d", vals[n-1], round*n+n)
		}
		cl.Release(fs...)
		round++
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/n, "µs/task")
}
