//go:build cuda && cgo

package chunkarray

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestDeviceReduce needs a GPU (a cuda build exits in gorgonia.org/cu's
// init without one): device reductions against the CPU's, sums within
// 1e-5 (float32) or 1e-12 (float64) of the sum of magnitudes, max and min
// exact; chunk tasks run concurrently on the shared device.
func TestDeviceReduce(t *testing.T) {
	for _, dt := range []nd.DType{nd.Float32, nd.Float64} {
		x, a := devData(t, dt)
		absX, err := nd.Unary(nd.Abs, x)
		if err != nil {
			t.Fatal(err)
		}
		absA := FromNDArray(absX, []int{4, 5, 10})
		rtol := 1e-5
		if dt == nd.Float64 {
			rtol = 1e-12
		}
		for _, c := range []struct {
			op   nd.ReduceOp
			axes []int
		}{
			{nd.Sum, nil}, {nd.Max, nil}, {nd.Min, nil},
			{nd.Sum, []int{0}}, {nd.Sum, []int{0, 1}}, {nd.Sum, []int{2}}, {nd.Sum, []int{1, 2}},
		} {
			name := fmt.Sprintf("%v %v %v", dt, c.op, c.axes)
			for _, keep := range []bool{false, true} {
				want, err := a.Reduce(c.op, c.axes, ReduceOpts{Keepdims: keep}).Compute(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				got, err := a.Reduce(c.op, c.axes, ReduceOpts{Keepdims: keep, Device: DeviceCUDA}).Compute(context.Background())
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				scale, err := absA.Reduce(nd.Sum, c.axes, ReduceOpts{Keepdims: keep}).Compute(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) || got.DType() != want.DType() {
					t.Fatalf("%s: %v %v, want %v %v", name, got.DType(), got.Shape(), want.DType(), want.Shape())
				}
				g, w, s := f64s(t, got), f64s(t, want), f64s(t, scale)
				for i := range w {
					tol := rtol * s[i]
					if c.op != nd.Sum {
						tol = 0
					}
					if math.Abs(g[i]-w[i]) > tol {
						t.Errorf("%s keepdims %v: [%d] = %g, want %g (tolerance %g)", name, keep, i, g[i], w[i], tol)
						break
					}
				}
			}
		}
	}
}

func f64s(t *testing.T, a *nd.Array) []float64 {
	t.Helper()
	b, err := a.AsType(nd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[float64](b.Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	return v
}
