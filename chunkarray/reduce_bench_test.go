package chunkarray

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Benchmarks of the kernels of cumulative.go, topk.go and quantile.go on
// one block, and of the lazy scans end to end.

func benchmarkCumLocal(b *testing.B, n int) {
	x := seededNormal(b, n, n)
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := cumLocalBlock(x, 1, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCumLocal64(b *testing.B)  { benchmarkCumLocal(b, 64) }
func BenchmarkCumLocal512(b *testing.B) { benchmarkCumLocal(b, 512) }

func benchmarkTopKBlock(b *testing.B, n, k int) {
	x := seededNormal(b, n, n)
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := topkFields(x, nil, 0, 1, k, false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTopKBlock256k5(b *testing.B) { benchmarkTopKBlock(b, 256, 5) }

func benchmarkMedianBlock(b *testing.B, n int) {
	x := seededNormal(b, n, n)
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := quantileBlock(x, []int{0}, []float64{0.5}, "median", false); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMedianBlock256(b *testing.B) { benchmarkMedianBlock(b, 256) }

func benchmarkCumsum(b *testing.B, method string) {
	x := FromNDArray(seededNormal(b, 256, 4096), []int{64, 256})
	c := x.Cumsum(1, false, CumOpts{Method: method})
	b.ReportAllocs()
	b.SetBytes(int64(256 * 4096 * 8))
	for b.Loop() {
		if _, err := c.Compute(context.Background(), WithScheduler(sched.Threaded{Workers: 2})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCumsumSequential(b *testing.B) { benchmarkCumsum(b, "sequential") }
func BenchmarkCumsumBlelloch(b *testing.B)   { benchmarkCumsum(b, "blelloch") }

func BenchmarkNanSum(b *testing.B) {
	x := FromNDArray(seededNormal(b, 512, 512), 128).nanFill(0)
	s := x.Reduce(nd.Sum, []int{0}, ReduceOpts{})
	b.ReportAllocs()
	b.SetBytes(512 * 512 * 8)
	for b.Loop() {
		if _, err := s.Compute(context.Background(), WithScheduler(sched.Sync{})); err != nil {
			b.Fatal(err)
		}
	}
}
