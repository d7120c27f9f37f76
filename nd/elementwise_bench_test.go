package nd

import (
	"math/rand/v2"
	"testing"
)

func randFloat64(n int) *Array {
	r := rand.New(rand.NewPCG(3, 4))
	s := make([]float64, n)
	for i := range s {
		s[i] = r.Float64()
	}
	a, _ := FromSlice(s)
	return a
}

// benchmarkBinary times dst = op(a, b) into a preallocated dst and reports
// the bytes read and written per second.
func benchmarkBinary(b *testing.B, op BinaryOp, x, y *Array) {
	dt, err := BinaryResultTypeOf(op, x, y)
	if err != nil {
		b.Fatal(err)
	}
	shape, _ := BroadcastShapes("bench", x.Shape(), y.Shape())
	dst, _ := Zeros(dt, shape...)
	bytes := float64(dst.Nbytes() + x.Nbytes() + y.Nbytes())
	b.ReportAllocs()
	for b.Loop() {
		if err := BinaryInto(op, dst, x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkAddFloat64_1e6(b *testing.B) {
	benchmarkBinary(b, Add, randFloat64(1e6), randFloat64(1e6))
}

func BenchmarkMulFloat64_1e6(b *testing.B) {
	benchmarkBinary(b, Mul, randFloat64(1e6), randFloat64(1e6))
}

func BenchmarkMulScalarFloat64_1e6(b *testing.B) {
	benchmarkBinary(b, Mul, randFloat64(1e6), Scalar(2.0))
}

func BenchmarkAddFloat32_1e6(b *testing.B) {
	x, _ := randFloat64(1e6).AsType(Float32)
	y, _ := randFloat64(1e6).AsType(Float32)
	benchmarkBinary(b, Add, x, y)
}

func BenchmarkBroadcastAdd1000x1000(b *testing.B) {
	x, _ := randFloat64(1000).Reshape(1000, 1)
	y, _ := randFloat64(1000).Reshape(1, 1000)
	benchmarkBinary(b, Add, x, y)
}

func BenchmarkLessFloat64_1e6(b *testing.B) {
	benchmarkBinary(b, Less, randFloat64(1e6), randFloat64(1e6))
}

func BenchmarkSinFloat64_1e6(b *testing.B) {
	x := randFloat64(1e6)
	dst, _ := Zeros(Float64, 1e6)
	b.ReportAllocs()
	for b.Loop() {
		if err := UnaryInto(Sin, dst, x); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(16e6*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkAsTypeInt32ToInt64_1e6(b *testing.B) {
	s := make([]int32, 1e6)
	for i := range s {
		s[i] = int32(i)
	}
	x, _ := FromSlice(s)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.AsType(Int64); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(12e6*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}
