package nd_test

import (
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

func randomFloats(n int) []float64 {
	r := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.Float64()
	}
	return x
}

var sinkF float64

// BenchmarkStreamSum is the memory-bandwidth reference for
// BenchmarkSumAll: the plainest loop over the same 1e7 float64 slice, with
// eight accumulators so that it is bound by memory rather than by the add
// latency (with four it runs at a third of the speed on this machine).
func BenchmarkStreamSum(b *testing.B) {
	x := randomFloats(1e7)
	b.SetBytes(int64(len(x) * 8))
	b.ReportAllocs()
	for b.Loop() {
		sinkF = streamSum(x)
	}
	b.ReportMetric(float64(len(x)*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// streamSum is a plain sequential loop, the reference for memory speed. It
// is a function of its own: written inline in the b.Loop body it ran at
// half the speed (b.Loop keeps the body's values alive, so they are
// spilled).
func streamSum(x []float64) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	i := 0
	for ; i+8 <= len(x); i += 8 {
		c := x[i : i+8 : i+8]
		s0 += c[0]
		s1 += c[1]
		s2 += c[2]
		s3 += c[3]
		s4 += c[4]
		s5 += c[5]
		s6 += c[6]
		s7 += c[7]
	}
	for ; i < len(x); i++ {
		s0 += x[i]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

func benchmarkReduce(b *testing.B, op nd.ReduceOp, shape []int, axes []int) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	a, err := nd.FromSlice(randomFloats(n), shape...)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(n * 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nd.Reduce(op, a, axes, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkSumAll sums 1e7 contiguous float64 (pairwise, as numpy).
func BenchmarkSumAll(b *testing.B) { benchmarkReduce(b, nd.Sum, []int{1e7}, nil) }

// BenchmarkSumAxis0 adds 2000 rows of 2000 into one row.
func BenchmarkSumAxis0(b *testing.B) { benchmarkReduce(b, nd.Sum, []int{2000, 2000}, []int{0}) }

// BenchmarkSumAxis1 sums each of 2000 rows pairwise.
func BenchmarkSumAxis1(b *testing.B) { benchmarkReduce(b, nd.Sum, []int{2000, 2000}, []int{1}) }

func BenchmarkMaxAll(b *testing.B) { benchmarkReduce(b, nd.Max, []int{1e7}, nil) }

func BenchmarkVarAxis0(b *testing.B) { benchmarkReduce(b, nd.Var, []int{2000, 2000}, []int{0}) }

func benchmarkMatmul(b *testing.B, n int) {
	x, _ := nd.FromSlice(randomFloats(n*n), n, n)
	y, _ := nd.FromSlice(randomFloats(n*n), n, n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nd.Matmul(x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(2*float64(n*n*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMatmul512 is a 512×512 float64 product through gonum's Dgemm.
func BenchmarkMatmul512(b *testing.B) { benchmarkMatmul(b, 512) }

// BenchmarkMatmul64 is a 64×64 product, where the scan of both operands
// for Inf and NaN (which then take the plain loop) costs the most
// against the product.
func BenchmarkMatmul64(b *testing.B) { benchmarkMatmul(b, 64) }
