package nd_test

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestValuesEmptyViewPastData is the regression of a panic that
// chunkarray's TestDiffNumpy found: Values of an empty view whose offset
// lies past its (empty) data sliced out of range. Every such view must
// give an empty slice.
func TestValuesEmptyViewPastData(t *testing.T) {
	a, err := nd.Zeros(nd.Float64, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		row, err := a.Index(0, i)
		if err != nil {
			t.Fatal(err)
		}
		v, err := nd.Values[float64](row)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if len(v) != 0 {
			t.Fatalf("row %d: %d values, want 0", i, len(v))
		}
	}
	b, err := nd.Zeros(nd.Int32, 4, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Slice(nd.Slice1{Start: 2, Stop: 4, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := nd.Values[int32](s); err != nil || len(v) != 0 {
		t.Fatalf("slice 2:4: %v, %v; want no values", v, err)
	}
}

// TestFFTEmptyViewPastData is the regression of a panic that
// chunkarray's TestDiffNumpy found (np.fft.rfft(x, n=3, axis=1) of a
// chunked x of shape (4, 0, 0, 1)): a transform of an empty view whose
// offset lies past its data sliced out of range.
func TestFFTEmptyViewPastData(t *testing.T) {
	a, err := nd.Zeros(nd.Float64, 3, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	row, err := a.Index(0, 2) // shape (2, 0)
	if err != nil {
		t.Fatal(err)
	}
	// numpy: np.fft.fft(np.zeros((2, 0)), n=3, axis=1) is zeros (2, 3);
	// rfft's last axis is 3//2+1 = 2
	for kind, cols := range map[nd.FFTKind]int{nd.FFTForward: 3, nd.FFTInverse: 3, nd.FFTReal: 2, nd.FFTRealInv: 3} {
		out, err := nd.FFTN(row, kind, []int{3}, []int{1}, "ortho")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if !slices.Equal(out.Shape(), []int{2, cols}) {
			t.Fatalf("%s: shape %v, want [2 %d]", kind, out.Shape(), cols)
		}
		c, _ := out.AsType(nd.Complex128)
		v, _ := nd.Values[complex128](c)
		for _, z := range v {
			if z != 0 {
				t.Fatalf("%s: %v, want zeros", kind, v)
			}
		}
	}
}
