package nd

import (
	"math"
	"math/cmplx"
	"testing"
)

// TestMomentsSlabs checks Moments on arrays past momentSlab elements,
// whose squared deviations are summed a slab of rows at a time, against
// the two-pass formula computed here element by element, over each set
// of axes (axis 0 reduced or not), for float64, float32 and complex128.
func TestMomentsSlabs(t *testing.T) {
	const n0, n1, n2 = 70, 40, 30 // 84000 elements: two slabs and a part
	vals := make([]complex128, n0*n1*n2)
	for i := range vals {
		vals[i] = complex(math.Sin(float64(i)*0.37)*3+float64(i%7), math.Cos(float64(i)*0.11))
	}
	for _, d := range []DType{Float64, Float32, Complex128} {
		c, _ := FromSlice(vals, n0, n1, n2)
		var a *Array
		if d == Complex128 {
			a = c
		} else {
			re, _ := Unary(RealPart, c)
			a, _ = re.AsType(d)
		}
		x, _ := a.AsType(Complex128)
		xv, _ := Values[complex128](x)
		for _, axes := range [][]int{{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}} {
			red := make([]bool, 3)
			for _, ax := range axes {
				red[ax] = true
			}
			_, mean, m2, err := Moments(a, axes)
			if err != nil {
				t.Fatal(err)
			}
			mc, _ := mean.AsType(Complex128)
			mv, _ := Values[complex128](mc)
			m2v, _ := Values[float64](m2)
			// the oracle: sums per output element, in float64
			shape := []int{n0, n1, n2}
			ostr := make([]int, 3)
			s := 1
			for ax := 2; ax >= 0; ax-- {
				if red[ax] {
					continue
				}
				ostr[ax] = s
				s *= shape[ax]
			}
			sum := make([]complex128, s)
			cnt := make([]float64, s)
			idx := func(i, j, k int) int { return i*ostr[0] + j*ostr[1] + k*ostr[2] }
			for i := range n0 {
				for j := range n1 {
					for k := range n2 {
						o := idx(i, j, k)
						sum[o] += xv[(i*n1+j)*n2+k]
						cnt[o]++
					}
				}
			}
			sq := make([]float64, s)
			for i := range n0 {
				for j := range n1 {
					for k := range n2 {
						o := idx(i, j, k)
						dv := xv[(i*n1+j)*n2+k] - sum[o]/complex(cnt[o], 0)
						sq[o] += real(dv)*real(dv) + imag(dv)*imag(dv)
					}
				}
			}
			tol := 1e-9
			if d == Float32 {
				tol = 1e-4
			}
			for o := range s {
				if w := sum[o] / complex(cnt[o], 0); cmplx.Abs(mv[o]-w) > tol*(1+cmplx.Abs(w)) {
					t.Fatalf("%s axes %v: mean[%d] = %v, want %v", d, axes, o, mv[o], w)
				}
				if math.Abs(m2v[o]-sq[o]) > tol*(1+sq[o]) {
					t.Fatalf("%s axes %v: m2[%d] = %v, want %v", d, axes, o, m2v[o], sq[o])
				}
			}
		}
	}
}
