package chunkarray

import (
	"context"
	"errors"
	"math/cmplx"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Regressions of disagreements with numpy that TestDiffNumpy found, each
// with numpy 1.24's answer written out.

// IsIn, SearchSorted and Digitize of a 0-d array are 0-d, as numpy's
// (their blocks came back 1-d, and an operation on them panicked).
func TestDiffSortuZeroD(t *testing.T) {
	x := FromNDArray(nd.Scalar[float64](2.5), nil)
	a := FromNDArray(must1(nd.FromSlice([]float64{1, 2, 3, 4}, 4)), 3)
	bins := must1(nd.FromSlice([]float64{0, 2, 5}, 3))
	cases := []struct {
		name string
		x    *Array
		want int64 // np.isin(2.5, a) is False: 0
	}{
		{"isin", IsIn(x, a, false).AsType(nd.Int64), 0},
		{"searchsorted", SearchSorted(a, x, false), 2},    // np.searchsorted([1,2,3,4], 2.5)
		{"digitize", Digitize(x, bins, false), 2},         // np.digitize(2.5, [0,2,5])
		{"digitize+1", Digitize(x, bins, true).Add(1), 3}, // and an op after it
	}
	for _, c := range cases {
		got, err := c.x.Compute(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.NDim() != 0 {
			t.Fatalf("%s: shape %v, want ()", c.name, got.Shape())
		}
		if v, _ := nd.Values[int64](got); v[0] != c.want {
			t.Errorf("%s: %d, want %d", c.name, v[0], c.want)
		}
	}
}

// NanVar and NanStd with a complex dtype= return that dtype, as numpy's
// nanvar(x, dtype=complex128) does (they returned its real dtype).
func TestDiffNanVarComplexDType(t *testing.T) {
	x := FromNDArray(must1(nd.FromSlice([]complex128{1 + 1i, 2, 3 - 1i}, 3)), 2)
	o := ReduceOpts{DType: nd.Complex128}
	for name, v := range map[string]*Array{"nanvar": x.NanVar(nil, o), "nanstd": x.NanStd(nil, o)} {
		got, err := v.Compute(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.DType() != nd.Complex128 {
			t.Fatalf("%s: dtype %s, want complex128", name, got.DType())
		}
		// np.nanvar([1+1j, 2, 3-1j]) = 4/3
		want := complex(4.0/3, 0)
		if name == "nanstd" {
			want = cmplx.Sqrt(want)
		}
		if z, _ := nd.Values[complex128](got); cmplx.Abs(z[0]-want) > 1e-15 {
			t.Errorf("%s: %v, want %v", name, z[0], want)
		}
	}
}

// An FFT along an axis of unknown length, a Stack of arrays whose shapes
// are unknown and an Average with weights beside unknown lengths give
// unknown.go's error (wrapping ErrUnknownChunks), not an FFT-points or a
// shapes error; ExpandDims of unknown chunks
// computes blocks that are empty (a -1 with nothing to infer it from).
func TestDiffUnknownChunksOps(t *testing.T) {
	x := FromNDArray(must1(nd.FromSlice([]float64{0, 1, 0, 2, 0, 0}, 6)), 2)
	nz := Flatnonzero(x) // [1 3], chunks (?, ?, ?), one empty
	if err := FFT(nz.AsType(nd.Float64), 0, 0, "").Err(); !errors.Is(err, ErrUnknownChunks) {
		t.Errorf("fft: got %v, want an error wrapping ErrUnknownChunks", err)
	}
	w := FromNDArray(must1(nd.FromSlice([]float64{1, 2}, 2)), 1)
	if avg, _ := nz.Average(nil, AverageOpts{Weights: w}); !errors.Is(avg.Err(), ErrUnknownChunks) {
		t.Errorf("average: got %v, want an error wrapping ErrUnknownChunks", avg.Err())
	}
	y := FromNDArray(must1(nd.FromSlice([]int64{7}, 1)), 1)
	if err := Stack([]*Array{nz, y}, 0).Err(); !errors.Is(err, ErrUnknownChunks) {
		t.Errorf("stack: got %v, want an error wrapping ErrUnknownChunks", err)
	}
	got, err := nz.ExpandDims(1).Compute(context.Background())
	if err != nil {
		t.Fatalf("expand_dims: %v", err)
	}
	if !slices.Equal(got.Shape(), []int{2, 1}) {
		t.Fatalf("expand_dims: shape %v, want [2 1]", got.Shape())
	}
	if v, _ := nd.Values[int64](got.Contiguous()); !slices.Equal(v, []int64{1, 3}) {
		t.Errorf("expand_dims: %v, want [1 3]", v)
	}
	// a (?, 0) array: its blocks hold no element to infer the unknown
	// length from, (1, 0) to (-1, 1, 0)
	z := FromNDArray(must1(nd.Zeros(nd.Int64, 3, 0)), 2)
	m := FromNDArray(must1(nd.FromSlice([]bool{true, false, true}, 3)), 2)
	got, err = z.Index(Mask(m)).ExpandDims(1).Compute(context.Background())
	if err != nil {
		t.Fatalf("expand_dims of (?, 0): %v", err)
	}
	if !slices.Equal(got.Shape(), []int{2, 1, 0}) {
		t.Errorf("expand_dims of (?, 0): shape %v, want [2 1 0]", got.Shape())
	}
}
