package nd_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

func ExampleReduce() {
	a, _ := nd.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	s, _ := nd.Reduce(nd.Sum, a, []int{0}, false) // numpy: a.sum(axis=0)
	m, _ := nd.Reduce(nd.Max, a, nil, true)       // a.max(keepdims=True)
	mean, _ := nd.Reduce(nd.Mean, a, []int{-1}, false)
	fmt.Println(s.DType(), s.Shape(), s.Data())
	fmt.Println(m.DType(), m.Shape(), m.Data())
	fmt.Println(mean.DType(), mean.Data())
	// Output:
	// int64 [3] [5 7 9]
	// int32 [1 1] [6]
	// float64 [2 5]
}

func ExampleVarStd() {
	a, _ := nd.FromSlice([]float64{1, 2, 3, 4})
	v, _ := nd.VarStd(a, nil, false, 1, false) // a.var(ddof=1)
	fmt.Printf("%.4f\n", v.Data())
	// Output: [1.6667]
}

func ExampleArgReduce() {
	a, _ := nd.FromSlice([]float64{3, 9, 9, math.NaN(), 1, 9}, 2, 3)
	rows, _ := nd.ArgReduce(nd.ArgMax, a, 1, false)
	flat, _ := nd.ArgReduce(nd.ArgMin, a, 0, true)
	fmt.Println(rows.Data(), flat.Data())
	// Output: [1 0] [3]
}

func ExampleMatmul() {
	a, _ := nd.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b, _ := nd.FromSlice([]float64{1, 0, 1})
	c, _ := nd.Matmul(a, b) // 2×3 @ 3 -> 2
	fmt.Println(c.Shape(), c.Data())
	// Output: [2] [4 10]
}

func ExampleCombineMoments() {
	// The variance of [1 2 3 4 5 6] from two chunks.
	x, _ := nd.FromSlice([]float64{1, 2, 3})
	y, _ := nd.FromSlice([]float64{4, 5, 6})
	c1, m1, v1, _ := nd.Moments(x, nil)
	c2, m2, v2, _ := nd.Moments(y, nil)
	c, m, v, _ := nd.CombineMoments([]*nd.Array{c1, c2}, []*nd.Array{m1, m2}, []*nd.Array{v1, v2})
	r, _ := nd.MomentsResult(nd.Var, nd.Float64, c, m, v, 0, nil, false)
	fmt.Printf("%.4f\n", r.Data())
	// Output: [2.9167]
}

// TestReduceErrors checks that bad input gives typed errors that name the
// op and the shapes.
func TestReduceErrors(t *testing.T) {
	a, _ := nd.Zeros(nd.Float64, 2, 3)
	b, _ := nd.Zeros(nd.Float64, 4, 5)
	empty, _ := nd.Zeros(nd.Int16, 0, 4)
	scalar := nd.Scalar(1.0)
	var se *nd.ShapeError
	var ae *nd.AxisError
	for _, tc := range []struct {
		name   string
		run    func() error
		target any
		want   string
	}{
		{"min of empty", func() error { _, err := nd.Reduce(nd.Min, empty, []int{0}, false); return err }, &se,
			"nd: min: (0, 4): zero-size array to reduction operation minimum which has no identity"},
		{"max of empty", func() error { _, err := nd.Reduce(nd.Max, empty, nil, false); return err }, &se, ""},
		{"axis out of range", func() error { _, err := nd.Reduce(nd.Sum, a, []int{2}, false); return err }, &ae,
			"nd: sum: axis 2 is out of bounds for array of dimension 2"},
		{"repeated axis", func() error { _, err := nd.Reduce(nd.Sum, a, []int{0, -2}, false); return err }, nil, ""},
		{"var axis", func() error { _, err := nd.VarStd(a, []int{-3}, false, 0, false); return err }, &ae, ""},
		{"argmax empty", func() error { _, err := nd.ArgReduce(nd.ArgMax, empty, 0, false); return err }, &se, ""},
		{"argmax axis", func() error { _, err := nd.ArgReduce(nd.ArgMax, a, 3, false); return err }, &ae, ""},
		{"matmul mismatch", func() error { _, err := nd.Matmul(a, b); return err }, &se, ""},
		{"matmul 0-d", func() error { _, err := nd.Matmul(scalar, a); return err }, &se, ""},
		{"dot mismatch", func() error { _, err := nd.Dot(a, b); return err }, &se, ""},
		{"tensordot axes", func() error { _, err := nd.Tensordot(a, b, []int{0}, nil); return err }, &se, ""},
		{"bad op", func() error { _, err := nd.Reduce(nd.ReduceOp(99), a, nil, false); return err }, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatal("got nil error")
			}
			if tc.target != nil && !errors.As(err, tc.target) {
				t.Fatalf("got %T %v, want %T", err, err, tc.target)
			}
			if tc.want != "" && err.Error() != tc.want {
				t.Fatalf("got %q, want %q", err, tc.want)
			}
			if se != nil && len(se.Shapes) == 0 {
				t.Fatalf("ShapeError names no shape: %v", err)
			}
		})
	}
}

// TestReduceEdgeCases covers what the goldens do not: empty reductions'
// identities, 0-d arrays, zero-stride (Full) inputs and negative strides.
func TestReduceEdgeCases(t *testing.T) {
	empty, _ := nd.Zeros(nd.Float64, 0, 3)
	full, _ := nd.Full(nd.Float32, 0.1, 1000, 7)
	rev, _ := nd.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	rev, _ = rev.Slice(nd.Slice1{Start: 1, Stop: -1, Step: -1}, nd.Slice1{Start: 2, Stop: -1, Step: -1})
	for _, tc := range []struct {
		name string
		op   nd.ReduceOp
		a    *nd.Array
		axes []int
		want []float64
	}{
		{"sum of empty", nd.Sum, empty, []int{0}, []float64{0, 0, 0}},
		{"prod of empty", nd.Prod, empty, []int{0}, []float64{1, 1, 1}},
		{"mean of empty", nd.Mean, empty, []int{0}, []float64{math.NaN(), math.NaN(), math.NaN()}},
		{"var of empty", nd.Var, empty, nil, []float64{math.NaN()}},
		{"any of empty", nd.Any, empty, nil, []float64{0}},
		{"all of empty", nd.All, empty, nil, []float64{1}},
		{"sum of 0-d", nd.Sum, nd.Scalar(2.5), nil, []float64{2.5}},
		{"max of 0-d", nd.Max, nd.Scalar(int8(-3)), nil, []float64{-3}},
		// numpy: np.full((1000, 7), 0.1, np.float32).sum() == 700.0001
		{"sum of zero-stride f4 pairwise", nd.Sum, full, nil, []float64{float64(float32(700.0001))}},
		{"sum of reversed", nd.Sum, rev, []int{1}, []float64{15, 6}},
		{"max of reversed", nd.Max, rev, []int{0}, []float64{6, 5, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nd.Reduce(tc.op, tc.a, tc.axes, false)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := got.AsType(nd.Float64)
			v, _ := nd.Values[float64](f)
			if len(v) != len(tc.want) {
				t.Fatalf("got %v, want %v", v, tc.want)
			}
			for i := range v {
				if v[i] != tc.want[i] && !(math.IsNaN(v[i]) && math.IsNaN(tc.want[i])) {
					t.Fatalf("got %v, want %v", v, tc.want)
				}
			}
		})
	}
}
