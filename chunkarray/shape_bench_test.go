package chunkarray

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Benchmarks of the shape functions' block kernels, on one 1000×1000
// float64 block built outside the timed loop, and of whole chunked
// computations of the composed ones (pad, roll) against a plain copy of
// the same array. Run one at a time on a shared machine:
//
//	go test ./chunkarray/ -run '^$' -bench 'ShapeKernel|ShapeCompute' -count 5

func shapeBenchBlock(b *testing.B) *nd.Array {
	b.Helper()
	v := make([]float64, 1000*1000)
	for i := range v {
		v[i] = float64(i%977) * 0.5
	}
	x, err := nd.FromSlice(v, 1000, 1000)
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// benchmarkShapeKernel runs a block op's run on args and reports bytes read
// per second.
func benchmarkShapeKernel(b *testing.B, bytes int, r runner, args ...any) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.run(ctx, args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkShapeKernelRepeat(b *testing.B) {
	benchmarkShapeKernel(b, 8e6, repeatP{Axis: 1, N: 2}, shapeBenchBlock(b))
}

func BenchmarkShapeKernelCoarsenMean(b *testing.B) {
	benchmarkShapeKernel(b, 8e6, coarsenP{Op: nd.Mean, Factors: []int{4, 4}}, shapeBenchBlock(b))
}

func BenchmarkShapeKernelDiagonal(b *testing.B) {
	x := shapeBenchBlock(b)
	x3, err := x.Reshape(10, 100, 1000)
	if err != nil {
		b.Fatal(err)
	}
	// the diagonals of the 10 100×1000 planes of a 1e6-element block
	benchmarkShapeKernel(b, 8*10*100, diagonalP{Axis1: 1, Axis2: 2}, x3, []int{0, 0, 100})
}

func BenchmarkShapeKernelConj(b *testing.B) {
	x, err := shapeBenchBlock(b).AsType(nd.Complex128)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkShapeKernel(b, 16e6, conjP{}, x)
}

func benchmarkShapeCompute(b *testing.B, build func(x *Array) *Array) {
	b.ReportAllocs()
	x := FromNDArray(shapeBenchBlock(b), 250)
	a := build(x)
	ctx := context.Background()
	for b.Loop() {
		if _, err := a.Compute(ctx, WithScheduler(sched.Sync{})); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(8e6*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkShapeComputeCopy(b *testing.B) {
	benchmarkShapeCompute(b, func(x *Array) *Array { return x.Add(0) })
}

func BenchmarkShapeComputePadReflect(b *testing.B) {
	benchmarkShapeCompute(b, func(x *Array) *Array { return x.Pad([][2]int{{3, 5}}, PadReflect, nil) })
}

func BenchmarkShapeComputeRoll(b *testing.B) {
	benchmarkShapeCompute(b, func(x *Array) *Array { return x.Roll([]int{333, -41}, 0, 1) })
}
