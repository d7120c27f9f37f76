package distributed_test

import (
	"context"
	"fmt"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched/distributed"
)

// Functions that run on workers are wrapped at package level, so that the
// worker processes (this binary, re-executed) register them too.
var (
	inc = delayed.Fn1("example.inc", func(x int) int { return x + 1 })
	add = delayed.Fn2("example.add", func(a, b int) int { return a + b })
)

// A local cluster of two worker processes runs what Threaded ran: only
// the scheduler option changes. The program's main must call
// distributed.MaybeWorker() first (this test binary's TestMain does).
func ExampleLocalCluster() {
	ctx := context.Background()
	cl, err := distributed.LocalCluster(2)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close()

	v, err := add(inc(delayed.Lit(1)), inc(delayed.Lit(2))).Compute(ctx, delayed.WithScheduler(cl))
	fmt.Println(v, err)

	x := chunkarray.Arange(0, 1000, 1, nd.Int64, 100) // ten blocks
	s, err := x.Sum().Compute(ctx, chunkarray.WithScheduler(cl))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(nd.Values[int64](s))
	// Output:
	// 5 <nil>
	// [499500] <nil>
}

// A cluster whose workers are Slurm jobs: four jobs of 8 cores and 32 GiB
// each, for two hours, on partition cpu, charged to proj-42. The workers
// are this binary (its main calls distributed.MaybeWorker() first), so it
// must lie on a filesystem the compute nodes see. Not run: it needs Slurm.
func ExampleStartSlurmCluster() {
	ctx := context.Background()
	cl, err := distributed.StartSlurmCluster(ctx, distributed.SlurmOptions{
		Workers: 4, Cores: 8, Memory: 32 << 30, Walltime: 2 * time.Hour,
		Partition: "cpu", Account: "proj-42",
		Prologue: []string{"module load hdf5"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close() // scancel

	x := chunkarray.Arange(0, 1000, 1, nd.Int64, 100)
	s, err := x.Sum().Compute(ctx, chunkarray.WithScheduler(cl))
	fmt.Println(s, err)
	if err := cl.Scale(ctx, 8); err != nil { // four jobs more
		fmt.Println(err)
	}
}
