package nd

import (
	"math"
	"testing"
)

// Constant (zero-stride) runs take short cuts in the sum, min and max
// kernels; they must agree bit for bit with the materialised run.
func TestReduceZeroStrideRunsMatchMaterialised(t *testing.T) {
	for _, v := range []float64{1, math.Sin(1), 0.1, -3.7e-5, 1e300, math.NaN(), math.Inf(-1)} {
		for _, n := range []int{0, 1, 7, 8, 9, 127, 128, 129, 130, 1000, 12345, 125000, 1 << 20} {
			x := make([]float64, n)
			for i := range x {
				x[i] = v
			}
			want := pairwise(x)
			got := pairwiseRepeat(v, n)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("pairwiseRepeat(%v, %d) = %v, want %v", v, n, got, want)
			}
		}
	}
	for _, tc := range []struct {
		name string
		d    DType
		v    any
		sh   []int
		axes []int
	}{
		{"f64 all", Float64, math.Sin(1), []int{100, 1000}, nil},
		{"f64 axis1", Float64, 0.1, []int{30, 333}, []int{1}},
		{"f32 all", Float32, float32(0.3), []int{50, 50, 50}, nil},
		{"c128 all", Complex128, complex(0.1, 0.7), []int{999}, nil},
		{"i64 all", Int64, int64(7), []int{50, 50, 50}, nil},
		{"i64 wrap", Int64, int64(math.MaxInt64 / 3), []int{10, 10}, nil},
		{"u8 all", Uint8, uint8(200), []int{300}, nil},
		{"i32 axis0", Int32, int32(-3), []int{40, 5}, []int{0}},
		{"bool all", Bool, true, []int{17, 3}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Full(tc.d, tc.v, tc.sh...)
			if err != nil {
				t.Fatal(err)
			}
			m := c.Copy()
			for _, op := range []ReduceOp{Sum, Min, Max, Prod} {
				if op == Prod && tc.d.IsFloat() {
					continue
				}
				got, err1 := Reduce(op, c, tc.axes, false)
				want, err2 := Reduce(op, m, tc.axes, false)
				if err1 != nil || err2 != nil {
					t.Fatalf("%s: %v, %v", op, err1, err2)
				}
				g, _ := Values[complex128](mustAs(t, got))
				w, _ := Values[complex128](mustAs(t, want))
				for i := range w {
					if g[i] != w[i] && !(g[i] != g[i] && w[i] != w[i]) {
						t.Errorf("%s[%d]: got %v, want %v", op, i, g[i], w[i])
					}
				}
			}
		})
	}
}

func mustAs(t *testing.T, a *Array) *Array {
	t.Helper()
	b, err := a.AsType(Complex128)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
