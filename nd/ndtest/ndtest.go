// Package ndtest holds test helpers shared by the packages that store nd
// arrays (npy, zarr): the value formula their testdata/gen.py scripts
// write, recomputed in Go as the oracle.
package ndtest

import (
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Formula returns the values the gen.py scripts write, computed in Go: for
// the flat C-order index i, bool i%3 == 1, integers 7i-20 (wrapping),
// floats 0.5i-3.25, complex (0.5i-3.25)+i·1j.
func Formula(t testing.TB, d nd.DType, shape ...int) *nd.Array {
	t.Helper()
	n, err := nd.SizeOf(shape)
	if err != nil {
		t.Fatal(err)
	}
	var a *nd.Array
	switch {
	case d.IsBool():
		v := make([]bool, n)
		for i := range v {
			v[i] = i%3 == 1
		}
		a, err = nd.FromSlice(v, shape...)
	case d.IsInteger():
		v := make([]int64, n)
		for i := range v {
			v[i] = 7*int64(i) - 20
		}
		a, err = nd.FromSlice(v, shape...)
	case d.IsFloat():
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.5*float64(i) - 3.25
		}
		a, err = nd.FromSlice(v, shape...)
	default:
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(0.5*float64(i)-3.25, float64(i))
		}
		a, err = nd.FromSlice(v, shape...)
	}
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(d); err != nil {
		t.Fatal(err)
	}
	return a
}
