package udfbridge

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// benchmarkMerge runs SumUDF over an in-memory float32 dataset of nav×sig
// in 16 partitions with one merge strategy (the seed's merge vs merge_all).
func benchmarkMerge(b *testing.B, nav, sig int, u UDF, ms MergeStrategy) {
	v := make([]float32, nav*nav*sig*sig)
	for i := range v {
		v[i] = float32(i % 251)
	}
	a, err := nd.FromSlice(v, nav, nav, sig, sig)
	if err != nil {
		b.Fatal(err)
	}
	ds, err := NewMemoryDataset(a, 2)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(v) * 4))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, ds, []UDF{u}, WithPartitions(16), WithMerge(ms), WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumMergeLinear(b *testing.B) { benchmarkMerge(b, 64, 128, &SumUDF{}, MergeLinear) }
func BenchmarkSumMergeTree(b *testing.B)   { benchmarkMerge(b, 64, 128, &SumUDF{}, MergeTree) }
func BenchmarkSumMergeAll(b *testing.B)    { benchmarkMerge(b, 64, 128, &SumMergeAllUDF{}, MergeAllNode) }

// The partition loop, one task at a time: SumUDF over one partition read
// in tiles of 8 frames of 64×64, on 1, 8 and 64 tiles (so 8 to 512
// frames), from a dataset in memory (a tile copied out of it), from a
// lazy chunkarray (the udf bench's random float32 frames, a block per
// partition, computed into the reader's buffer), from a raw file of
// uint16 and from a zarr store of uint16 (decoded chunk by chunk); uint16
// tiles are converted to float32 tile by tile.
// allocs/task is the count of a run of one tile (plan, the task, its
// merge); allocs/tile what each further tile adds (testing.AllocsPerRun,
// exact). An allocation-free tile loop shows allocs/tile 0.
//
//	go test ./udfbridge/ -run '^$' -bench PartitionTask -benchtime 20x
func BenchmarkPartitionTask(b *testing.B) {
	const depth, sig = 8, 64
	for _, ds := range []struct {
		name string
		make func(b *testing.B, frames int) Dataset
	}{
		{"memory", func(b *testing.B, frames int) Dataset {
			v := make([]float32, frames*sig*sig)
			for i := range v {
				v[i] = float32(i % 251)
			}
			a, err := nd.FromSlice(v, frames, sig, sig)
			if err != nil {
				b.Fatal(err)
			}
			d, err := NewMemoryDataset(a, 1)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}},
		{"chunkarray", func(b *testing.B, frames int) Dataset {
			a := chunkarray.Random(4).Uniform(0, 1, []int{frames, sig, sig}, []int{frames, sig, sig}).AsType(nd.Float32)
			d, err := FromChunkArray(a, 2)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}},
		{"raw-u16", func(b *testing.B, frames int) Dataset {
			v := make([]uint16, frames*sig*sig)
			for i := range v {
				v[i] = uint16(i % 65521)
			}
			a, err := nd.FromSlice(v, frames, sig, sig)
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "d.raw")
			writeRaw(b, path, a, 0)
			d, err := OpenRaw(path, nd.Uint16, []int{frames}, []int{sig, sig}, 0)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}},
		{"zarr-u16", func(b *testing.B, frames int) Dataset {
			dir := filepath.Join(b.TempDir(), "d.zarr")
			a := chunkarray.Random(5).Integers(0, 1000, []int{frames, sig, sig}, []int{depth * 4, sig, sig}).AsType(nd.Uint16)
			if err := a.ToZarr(context.Background(), dir, chunkarray.ZarrOptions{}); err != nil {
				b.Fatal(err)
			}
			d, err := OpenZarr(dir, 2)
			if err != nil {
				b.Fatal(err)
			}
			return d
		}},
	} {
		ctx := context.Background()
		runner := func(b *testing.B, frames int) func() error {
			d := ds.make(b, frames)
			return func() error {
				_, err := Run(ctx, d, []UDF{&SumUDF{}}, WithPartitions(1), WithTileShape(depth, nil), WithScheduler(sched.Sync{}))
				return err
			}
		}
		one := runner(b, depth)
		perTask := testing.AllocsPerRun(5, func() { _ = one() })
		for _, tiles := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("%s/tiles=%d", ds.name, tiles), func(b *testing.B) {
				run := runner(b, tiles*depth)
				if err := run(); err != nil {
					b.Fatal(err)
				}
				perTile := 0.0
				if tiles > 1 {
					perTile = (testing.AllocsPerRun(5, func() { _ = run() }) - perTask) / float64(tiles-1)
				}
				b.SetBytes(int64(tiles * depth * sig * sig * 4))
				b.ReportAllocs()
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
