package distributed_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
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

// double is a registered op, for Submit and Map.
var double graph.Op = &graph.FuncOp{OpName: "example.double", Fn: func(_ context.Context, args []any) (any, error) {
	return 2 * args[0].(int), nil
}}

func init() { graph.Register(double) }

// Futures: values computed on the cluster and left there. A Future passed
// to another submission is read by the workers where it is, never sent
// through the client; the values are released with the last Future of
// their key (or the client's end).
func ExampleClient_Submit() {
	ctx := context.Background()
	cl, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 2, InProcess: true, Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close()
	c := cl.Client()

	x := c.Submit(ctx, double, 21)                                // a registered op and its arguments
	ys := c.Map(ctx, double, [][]any{{1}, {2}, {3}})              // one job, three Futures
	z := c.Submit(ctx, add(inc(delayed.Lit(1)), delayed.Lit(40))) // a delayed value
	w := c.Submit(ctx, double, x)                                 // a Future as an argument
	vals, err := c.Gather(ctx, append([]*distributed.Future{x, z, w}, ys...)...)
	fmt.Println(vals, err)
	for _, f := range append([]*distributed.Future{x, z, w}, ys...) {
		f.Release()
	}
	// Output:
	// [42 42 84 2 4 6] <nil>
}

// Scaling a local cluster down retires the workers it stops: the values
// only they held move to the worker that stays, so the futures are still
// there and nothing is computed again.
func ExampleCluster_Scale() {
	ctx := context.Background()
	cl, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 3, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cl.Close()
	c := cl.Client()

	fs := c.Map(ctx, double, [][]any{{1}, {2}, {3}, {4}, {5}, {6}}) // spread over the three workers
	if err := c.Wait(ctx, fs...); err != nil {
		fmt.Println(err)
		return
	}
	if err := cl.Scale(ctx, 1); err != nil { // retires worker-2 and worker-1, then stops them
		fmt.Println(err)
		return
	}
	fmt.Println(len(cl.Server().Status().Workers), "worker")
	fmt.Println(c.Gather(ctx, fs...))

	// Retiring the last worker is refused: its values would have nowhere to go.
	err = cl.Server().RetireWorkers(ctx, "worker-0")
	fmt.Println(errors.Is(err, distributed.ErrNoRecipient))
	// Output:
	// 1 worker
	// [2 4 6 8 10 12] <nil>
	// true
}
