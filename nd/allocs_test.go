package nd

import (
	"slices"
	"testing"
)

// TestKernelsAllocateNothing: the kernels a tile loop calls with reused
// destinations allocate nothing (testing.AllocsPerRun, exact): same-shape
// and broadcast elementwise operations, strided views, and reductions
// into a buffer. A regression here shows as garbage per tile in the UDF
// and fused chunk loops.
func TestKernelsAllocateNothing(t *testing.T) {
	a := formulaF32(t, 8, 64, 64)
	b := formulaF32(t, 8, 64, 64)
	row := formulaF32(t, 64)
	d, _ := Zeros(Float32, 8, 64, 64)
	region, _ := d.Slice(Slice1{0, 8, 1}, Slice1{8, 40, 1}, Slice1{4, 36, 1})
	ra, _ := a.Slice(Slice1{0, 8, 1}, Slice1{8, 40, 1}, Slice1{4, 36, 1})
	sig, _ := Zeros(Float32, 64, 64)
	frames, _ := Zeros(Float32, 8)
	u16, _ := Zeros(Uint16, 8, 64, 64)
	for _, tc := range []struct {
		name string
		fn   func() error
	}{
		{"BinaryInto same shape", func() error { return BinaryInto(Add, d, a, b) }},
		{"BinaryInto in place", func() error { return BinaryInto(Add, d, d, a) }},
		{"BinaryInto broadcast row", func() error { return BinaryInto(Mul, d, a, row) }},
		{"BinaryInto strided region", func() error { return BinaryInto(Add, region, region, ra) }},
		{"UnaryInto", func() error { return UnaryInto(Sqrt, d, a) }},
		{"AsTypeInto", func() error { return AsTypeInto(d, u16) }},
		{"ReduceInto axis 0", func() error { return ReduceInto(Sum, sig, a, []int{0}) }},
		{"ReduceInto sig axes", func() error { return ReduceInto(Sum, frames, a, []int{1, 2}) }},
		{"ReduceInto max", func() error { return ReduceInto(Max, frames, a, []int{-1, -2}) }},
		{"Assign", func() error { return Assign(region, ra) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.fn(); err != nil {
				t.Fatal(err)
			}
			if n := testing.AllocsPerRun(20, func() { _ = tc.fn() }); n != 0 {
				t.Fatalf("%v allocations per call", n)
			}
		})
	}
}

func formulaF32(t *testing.T, shape ...int) *Array {
	a, err := Zeros(Float32, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range a.Data().([]float32) {
		a.Data().([]float32)[i] = v + float32(i%97)*0.25
	}
	return a
}

// TestManyAxes runs the stack-bounded walkers past walkDims axes: an
// elementwise operation and reductions on a transposed array of 18 axes
// (no two of which merge) agree with the same on its contiguous copy.
func TestManyAxes(t *testing.T) {
	shape := slices.Repeat([]int{2}, walkDims+2)
	a, err := Zeros(Float64, shape...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Data().([]float64) {
		a.Data().([]float64)[i] = float64(i%1013) - 500
	}
	tr, _ := a.Transpose()
	c := tr.Copy()
	got, err := Zeros(Float64, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if err := BinaryInto(Mul, got, tr, tr); err != nil {
		t.Fatal(err)
	}
	want, err := Binary(Mul, c, c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytesEqualC(got, want) {
		t.Fatal("x*x on a transposed array of 18 axes differs from its contiguous copy's")
	}
	for _, axes := range [][]int{{0}, {3, 7, 17}, nil} {
		g, err := Reduce(Sum, tr, axes, false)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Reduce(Sum, c, axes, false)
		if err != nil {
			t.Fatal(err)
		}
		if !bytesEqualC(g, w) {
			t.Fatalf("sum over %v of a transposed array of 18 axes differs from its contiguous copy's", axes)
		}
	}
}
