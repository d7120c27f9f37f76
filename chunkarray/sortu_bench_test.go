package chunkarray

import (
	"context"
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Benchmarks of the sorting and counting block kernels on one block of
// 1<<16 float64 values (a seeded pseudo-random permutation with ties and
// a NaN), built outside the timed loop, and of one chunked pipeline.

const benchSortuN = 1 << 16

func benchSortuBlock(b *testing.B) *nd.Array {
	b.Helper()
	v := make([]float64, benchSortuN)
	z := uint64(7)
	for i := range v {
		v[i] = float64(splitmix(z, uint64(i))%1000) / 10
	}
	v[17] = math.NaN()
	a, err := nd.FromSlice(v, 256, 256)
	if err != nil {
		b.Fatal(err)
	}
	return a
}

func benchmarkSortuOp(b *testing.B, p sortuP, args func(x *nd.Array) []any) {
	x := benchSortuBlock(b)
	in := args(x)
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := p.run(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSortuSortBlock(b *testing.B) {
	benchmarkSortuOp(b, sortuP{Kind: kSort, Axis: 1}, func(x *nd.Array) []any { return []any{x} })
}

func BenchmarkSortuArgSortBlock(b *testing.B) {
	benchmarkSortuOp(b, sortuP{Kind: kSort, Axis: 0, Arg: true}, func(x *nd.Array) []any { return []any{x} })
}

func BenchmarkSortuUniqueChunk(b *testing.B) {
	benchmarkSortuOp(b, sortuP{Kind: kUniqueChunk}, func(x *nd.Array) []any { return []any{x, []int{0}} })
}

// BenchmarkSortuUniqueChunkIndex is the chunk stage with positions
// (Unique with Index): a stable sort of (value, position).
func BenchmarkSortuUniqueChunkIndex(b *testing.B) {
	benchmarkSortuOp(b, sortuP{Kind: kUniqueChunk, Arg: true}, func(x *nd.Array) []any { return []any{x, []int{0}} })
}

func BenchmarkSortuHistogramUniform(b *testing.B) {
	e := linspaceEdges(0, 100, 64, false)
	benchmarkSortuOp(b, sortuP{Kind: kHist, Bins: []int{64}, Uniform: true, Edges: [][]uint64{bitsOf(e)}},
		func(x *nd.Array) []any { return []any{[]any{x}} })
}

func BenchmarkSortuHistogramEdges(b *testing.B) {
	e := []float64{0, 1, 2, 5, 10, 20, 50, 99}
	benchmarkSortuOp(b, sortuP{Kind: kHist, Bins: []int{len(e) - 1}, Edges: [][]uint64{bitsOf(e)}},
		func(x *nd.Array) []any { return []any{[]any{x}} })
}

func BenchmarkSortuSearchSorted(b *testing.B) {
	s := make([]float64, 1000)
	for i := range s {
		s[i] = float64(i) / 10
	}
	a, _ := nd.FromSlice(s, len(s))
	benchmarkSortuOp(b, sortuP{Kind: kSearch, D: nd.Float64}, func(x *nd.Array) []any { return []any{x, []any{a}} })
}

func BenchmarkSortuIsIn(b *testing.B) {
	t, _ := nd.FromSlice([]float64{1, 2.5, 50, 99.9, math.NaN()}, 5)
	benchmarkSortuOp(b, sortuP{Kind: kIsIn, D: nd.Float64}, func(x *nd.Array) []any { return []any{x, []any{t}} })
}

func BenchmarkSortuMaskSel(b *testing.B) {
	benchmarkSortuOp(b, sortuP{Kind: kMaskSel}, func(x *nd.Array) []any {
		m, err := nd.Binary(nd.Greater, x, nd.Scalar(50.0))
		if err != nil {
			b.Fatal(err)
		}
		return []any{x, m}
	})
}

// BenchmarkSortuMaskSumPipeline is x[x > 50].sum() over a 1024×1024
// array in 16 blocks, on the default scheduler.
func BenchmarkSortuMaskSumPipeline(b *testing.B) {
	x := Random(3).Uniform(0, 100, []int{1024, 1024}, 256)
	s := x.Index(Mask(x.Greater(50))).Sum()
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := s.Compute(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
