package distributed

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// BenchmarkTree is the 65,535-task AddTree of Dask's delayed benchmark on
// a cluster of two workers, end to end (plan, order, encode, schedule,
// run, fetch the root), reported per task. InProcess keeps the profile of
// every part in one process; Processes is what LocalCluster runs.
func BenchmarkTree(b *testing.B) {
	b.Run("InProcess", func(b *testing.B) { benchmarkTree(b, 1<<15, true) })
	b.Run("Processes", func(b *testing.B) { benchmarkTree(b, 1<<15, false) })
}

func benchmarkTree(b *testing.B, leaves int, inProcess bool) {
	c, err := StartCluster(context.Background(), ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: inProcess})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	g, root := schedtest.AddTree(leaves)
	want := leaves * (leaves + 1) / 2
	b.ReportAllocs()
	for b.Loop() {
		got, err := c.Get(context.Background(), g, []graph.Key{root})
		if err != nil {
			b.Fatal(err)
		}
		if got[0] != want {
			b.Fatalf("root = %v, want %d", got[0], want)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(g.Len()), "µs/task")
}

var benchSaturation = 256.0
