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

// TestScalarOperandRuns checks the runs of a contiguous operand with a
// repeated one (x op scalar, scalar op x, a broadcast column) against
// the same operation on materialised operands, including dst aliasing
// the contiguous operand (in place), and that they allocate nothing.
func TestScalarOperandRuns(t *testing.T) {
	x := formulaF32(t, 6, 50)
	two := Scalar(float32(2.5))
	col := formulaF32(t, 6, 1)
	for _, tc := range []struct {
		name string
		a, b *Array
	}{{"x-scalar", x, two}, {"scalar-x", two, x}, {"x-col", x, col}, {"col-x", col, x}} {
		for _, op := range []BinaryOp{Sub, Div, Pow, Maximum} {
			t.Run(tc.name+"/"+op.String(), func(t *testing.T) {
				want, err := Binary(op, broadcastCopy(t, tc.a, x.Shape()), broadcastCopy(t, tc.b, x.Shape()))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := Zeros(want.DType(), x.Shape()...)
				if err := BinaryInto(op, got, tc.a, tc.b); err != nil {
					t.Fatal(err)
				}
				if !bytesEqualC(got, want) {
					t.Fatal("differs from the materialised operands'")
				}
				if n := testing.AllocsPerRun(10, func() { _ = BinaryInto(op, got, tc.a, tc.b) }); n != 0 {
					t.Fatalf("%v allocations per call", n)
				}
				// In place: dst is the contiguous operand.
				in := x.Copy()
				a, b := tc.a, tc.b
				if a == x {
					a = in
				} else {
					b = in
				}
				if err := BinaryInto(op, in, a, b); err != nil {
					t.Fatal(err)
				}
				if !bytesEqualC(in, want) {
					t.Fatal("in place: differs from the materialised operands'")
				}
			})
		}
	}
}

func broadcastCopy(t *testing.T, a *Array, shape []int) *Array {
	v, err := a.BroadcastTo(shape...)
	if err != nil {
		t.Fatal(err)
	}
	return v.Copy()
}
