package chunkarray

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// One fused chunk task at a time, on blocks of 1, 16 and 256 evaluation
// tiles (tileElems elements each), so that the allocations of a task can
// be told apart from those of its tiles: allocs/task is one task's count
// on a one-tile block, allocs/tile the count each further tile adds
// (both from testing.AllocsPerRun, exact), beside the timed loop's
// allocs/op. A steady state that allocates nothing per tile shows
// allocs/tile 0 and the same allocs/op at every size.
//
//	go test ./chunkarray/ -run '^$' -bench FusedChunkTask -benchtime 20x

// chunkTaskCase builds, for a block of n elements, a graph and the
// function that runs its one chunk task once.
type chunkTaskCase struct {
	name  string
	setup func(b *testing.B, n int) func() error
}

var chunkTaskCases = []chunkTaskCase{
	{"random-astype-into", func(b *testing.B, n int) func() error {
		// The udf bench's dataset block: random float64 as float32,
		// evaluated straight into a destination (ComputeKeyInto).
		a := Random(4).Uniform(0, 1, []int{4, n / 4}, []int{4, n / 4}).AsType(nd.Float32)
		g, _ := benchGraph(b, a)
		key := a.Key(0, 0)
		dst, err := nd.Zeros(nd.Float32, 4, n/4)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		return func() error { return ComputeKeyInto(ctx, g, key, dst, sched.Sync{}) }
	}},
	{"random-scale-sum", func(b *testing.B, n int) func() error {
		// A reduction's chunk stage fused with its elementwise input.
		a := Random(4).Uniform(0, 1, []int{4, n / 4}, []int{4, n / 4}).Mul(2.0).Sum(1)
		return runTask(b, a)
	}},
	{"zarr-sq-sum", func(b *testing.B, n int) func() error {
		// A zarr chunk read inside the sum's chunk task (zlib).
		dir := filepath.Join(b.TempDir(), "a.zarr")
		src := Random(5).Integers(0, 100, []int{4, n / 4}, []int{4, n / 4}).AsType(nd.Int32)
		if err := src.ToZarr(context.Background(), dir, ZarrOptions{Compressor: "zlib"}); err != nil {
			b.Fatal(err)
		}
		z := FromZarr(dir)
		return runTask(b, z.Mul(z).Sum())
	}},
}

// benchGraph builds a's graph (fused as Compute fuses it) and its keys.
func benchGraph(b testing.TB, a *Array) (*graph.Graph, []graph.Key) {
	g, keys, err := BuildGraph([]*Array{a})
	if err != nil {
		b.Fatal(err)
	}
	return g, keys
}

// runTask returns a function that computes a (one chunk task and the
// aggregation that follows it) on the synchronous scheduler.
func runTask(b *testing.B, a *Array) func() error {
	g, keys := benchGraph(b, a)
	ctx := context.Background()
	return func() error {
		_, err := sched.Sync{}.Get(ctx, g, keys)
		return err
	}
}

func BenchmarkFusedChunkTask(b *testing.B) {
	for _, tc := range chunkTaskCases {
		one := tc.setup(b, tileElems)
		perTask := testing.AllocsPerRun(5, func() { _ = one() })
		for _, tiles := range []int{1, 16, 256} {
			b.Run(fmt.Sprintf("%s/tiles=%d", tc.name, tiles), func(b *testing.B) {
				run := tc.setup(b, tiles*tileElems)
				if err := run(); err != nil {
					b.Fatal(err)
				}
				perTile := 0.0
				if tiles > 1 {
					all := testing.AllocsPerRun(5, func() { _ = run() })
					perTile = (all - perTask) / float64(tiles-1)
				}
				b.ReportAllocs()
				b.SetBytes(int64(tiles * tileElems * 4))
				for b.Loop() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}
				// After the loop: b.Loop's first call resets reported metrics.
				b.ReportMetric(perTask, "allocs/task")
				b.ReportMetric(perTile, "allocs/tile")
			})
		}
	}
}
