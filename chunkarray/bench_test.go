package chunkarray

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Benchmarks that mirror dask_bench.py's array workloads (the names
// match cmd/internal/workloads), and the memory-bandwidth reference that
// in-memory chunked sums are measured against. Run one group at a time on
// a shared machine, e.g.
//
//	go test ./chunkarray/ -run '^$' -bench 'RandintSum|MemoryBandwidth|ChunkedSum' -benchtime 3x

var benchSchedulers = []struct {
	name string
	s    sched.Scheduler
}{{"sync", sched.Sync{}}, {"threads", sched.Threaded{}}}

// benchmarkCompute computes the Array that build returns (built afresh
// each iteration, outside the timer, as bench/dask/dask_bench.py does) and
// reports the logical bytes it reads per second.
func benchmarkCompute(b *testing.B, s sched.Scheduler, bytes int, build func() *Array) {
	b.ReportAllocs()
	ctx := context.Background()
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		a := build()
		b.StartTimer()
		t0 := time.Now()
		if _, err := a.Compute(ctx, WithScheduler(s)); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
	}
	b.ReportMetric(float64(bytes)*float64(b.N)/total.Seconds()/1e9, "GB/s")
}

func benchmarkRandintSum(b *testing.B, chunk int) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 500*500*500*8, func() *Array {
				return Random(0).Integers(0, 100, []int{500, 500, 500}, chunk).Sum()
			})
		})
	}
}

func BenchmarkRandintSum500(b *testing.B) { benchmarkRandintSum(b, 500) }
func BenchmarkRandintSum200(b *testing.B) { benchmarkRandintSum(b, 200) }
func BenchmarkRandintSum100(b *testing.B) { benchmarkRandintSum(b, 100) }
func BenchmarkRandintSum50(b *testing.B)  { benchmarkRandintSum(b, 50) }

func BenchmarkOnesSum50(b *testing.B) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 500*500*500*8, func() *Array {
				return Ones([]int{500, 500, 500}, nd.Int64, 50).Sum()
			})
		})
	}
}

func BenchmarkSinColTimesT(b *testing.B) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 1e8*8, func() *Array {
				im := Ones([]int{10000, 10000}, nd.Float64, 1000)
				return im.Index(All(), At(0)).Sin().Mul(im.T()).Sum()
			})
		})
	}
}

// BenchmarkUniformSinColTimesT is sin_col_times_T on random data, where no
// constant short cut applies: the fused reduction's own speed.
func BenchmarkUniformSinColTimesT(b *testing.B) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 4000*4000*8, func() *Array {
				im := Random(1).Uniform(0, 1, []int{4000, 4000}, 1000)
				return im.Index(All(), At(0)).Sin().Mul(Random(2).Uniform(0, 1, []int{4000, 4000}, 1000)).Sum()
			})
		})
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 3e6*8, func() *Array {
				im := Ones([]int{3, 1000, 1000}, nd.Float64, []int{1, 600, 600})
				return im.Div(im.Max(1, 2).Index(All(), NewAxis(), NewAxis()))
			})
		})
	}
}

// BenchmarkUniformNormalize is normalize_3x1000x1000 on random data: the
// constant short cut does not apply, so the max reduction and the fused
// division run over every element. GB/s counts the input once.
func BenchmarkUniformNormalize(b *testing.B) {
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, 3e6*8, func() *Array {
				im := Random(4).Uniform(0, 1, []int{3, 1000, 1000}, []int{1, 600, 600})
				return im.Div(im.Max(1, 2).Index(All(), NewAxis(), NewAxis()))
			})
		})
	}
}

func BenchmarkGraphBuild10k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		a := Ones([]int{1000, 1000, 100}, nd.Float64, []int{10, 10, 100}).Add(1).Mul(2).Sum()
		if _, _, err := BuildGraph([]*Array{a}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/graph")
}

// bandwidthElems is 512 MiB of float64.
const bandwidthElems = 512 << 20 / 8

var bigOnce struct {
	sync.Once
	data []float64
	a    *nd.Array
}

func bigArray(b *testing.B) ([]float64, *nd.Array) {
	bigOnce.Do(func() {
		bigOnce.data = make([]float64, bandwidthElems)
		for i := range bigOnce.data {
			bigOnce.data[i] = float64(i & 1023)
		}
		bigOnce.a, _ = nd.FromSlice(bigOnce.data)
	})
	return bigOnce.data, bigOnce.a
}

// streamSum is the reference: four independent accumulators over a
// contiguous slice, as fast as one core streams memory.
func streamSum(x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c := x[i : i+4 : i+4]
		s0 += c[0]
		s1 += c[1]
		s2 += c[2]
		s3 += c[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// BenchmarkMemoryBandwidth is the machine's reference: a plain streaming
// sum over a 512 MiB []float64 on one core.
func BenchmarkMemoryBandwidth(b *testing.B) {
	x, _ := bigArray(b)
	b.SetBytes(int64(len(x) * 8))
	b.ReportAllocs()
	var sink float64
	for b.Loop() {
		sink += streamSum(x)
	}
	b.ReportMetric(float64(len(x)*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	_ = sink
}

// referenceGBs measures the streaming sum's bandwidth (best of 3).
func referenceGBs(x []float64) float64 {
	best := time.Duration(1 << 62)
	for range 3 {
		t0 := time.Now()
		streamSum(x)
		best = min(best, time.Since(t0))
	}
	return float64(len(x)*8) / best.Seconds() / 1e9
}

// BenchmarkChunkedSum sums the same 512 MiB in memory as a chunked
// Array (FromNDArray: blocks are views, no copy) and reports its
// bandwidth as a fraction of BenchmarkMemoryBandwidth's, measured in the
// same process.
func BenchmarkChunkedSum(b *testing.B) {
	x, a := bigArray(b)
	ref := referenceGBs(x)
	for _, chunk := range []int{1 << 20, 8 << 20} {
		for _, s := range benchSchedulers {
			b.Run(fmt.Sprintf("chunk%dMiB/%s", chunk*8>>20, s.name), func(b *testing.B) {
				b.SetBytes(int64(len(x) * 8))
				b.ReportAllocs()
				ctx := context.Background()
				arr := FromNDArray(a, chunk)
				for b.Loop() {
					if _, err := arr.Sum().Compute(ctx, WithScheduler(s.s)); err != nil {
						b.Fatal(err)
					}
				}
				gbs := float64(len(x)*8) * float64(b.N) / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(gbs, "GB/s")
				b.ReportMetric(gbs/ref, "of-bandwidth")
			})
		}
	}
}

// BenchmarkInt32SqSum is zarr_1e4_sq_sum's expression on an in-memory
// int32 array of the same shape and chunks: the compute part without the
// reads.
func BenchmarkInt32SqSum(b *testing.B) {
	v := make([]int32, 4000*4000)
	for i := range v {
		v[i] = int32(i % 100)
	}
	x, _ := nd.FromSlice(v, 4000, 4000)
	for _, s := range benchSchedulers {
		b.Run(s.name, func(b *testing.B) {
			benchmarkCompute(b, s.s, len(v)*4, func() *Array {
				return FromNDArray(x, 1000).AsType(nd.Int64).Pow(2).Sum()
			})
		})
	}
}
