package nd

import (
	"slices"
	"testing"
)

// TestSetSliceMatchesSlice sets one header to many views and compares
// each with Slice's (the oracle): same shape, strides, offset and
// elements; after the first, setting costs no allocation.
func TestSetSliceMatchesSlice(t *testing.T) {
	v := make([]float64, 4*5*6)
	for i := range v {
		v[i] = float64(i)
	}
	a, err := FromSlice(v, 4, 5, 6)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := a.Transpose(2, 0, 1)
	cases := []struct {
		name string
		src  *Array
		s    []Slice1
	}{
		{"rows", a, []Slice1{{1, 3, 1}}},
		{"region", a, []Slice1{{0, 4, 1}, {1, 4, 1}, {2, 6, 2}}},
		{"reversed", a, []Slice1{{3, -1, -1}}},
		{"empty", a, []Slice1{{2, 2, 1}}},
		{"none", a, nil},
		{"transposed", tr, []Slice1{{1, 5, 2}, {0, 1, 1}}},
	}
	var dst Array
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.src.Slice(tc.s...)
			if err != nil {
				t.Fatal(err)
			}
			if err := dst.SetSlice(tc.src, tc.s...); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dst.Shape(), want.Shape()) || !slices.Equal(dst.Strides(), want.Strides()) || dst.Offset() != want.Offset() {
				t.Fatalf("SetSlice: shape %v strides %v offset %d, want %v %v %d", dst.Shape(), dst.Strides(), dst.Offset(), want.Shape(), want.Strides(), want.Offset())
			}
			if !bytesEqualC(&dst, want) {
				t.Fatal("SetSlice: elements differ from Slice's")
			}
			if n := testing.AllocsPerRun(10, func() { _ = dst.SetSlice(tc.src, tc.s...) }); n != 0 {
				t.Fatalf("SetSlice into a set header: %v allocations", n)
			}
		})
	}
	// dst may be the source: a view of a view.
	w, _ := a.Slice()
	if err := w.SetSlice(w, Slice1{1, 4, 1}, Slice1{0, 5, 2}); err != nil {
		t.Fatal(err)
	}
	want, _ := a.Slice(Slice1{1, 4, 1}, Slice1{0, 5, 2})
	if !slices.Equal(w.Shape(), want.Shape()) || w.Offset() != want.Offset() || !bytesEqualC(w, want) {
		t.Fatalf("SetSlice onto itself: shape %v offset %d", w.Shape(), w.Offset())
	}
	// Errors leave dst as it was.
	before := slices.Clone(dst.Shape())
	for _, s := range [][]Slice1{{{0, 5, 1}}, {{0, 1, 0}}, {{0, 1, 1}, {0, 1, 1}, {0, 1, 1}, {0, 1, 1}}} {
		if err := dst.SetSlice(a, s...); err == nil {
			t.Fatalf("SetSlice(%v): no error", s)
		}
		if !slices.Equal(dst.Shape(), before) {
			t.Fatalf("SetSlice(%v) failed but changed dst to %v", s, dst.Shape())
		}
	}
}

func TestSetReshapeMatchesReshape(t *testing.T) {
	a, _ := Zeros(Int32, 4, 6)
	for i := range 24 {
		a.Data().([]int32)[i] = int32(i * 3)
	}
	rows, _ := a.Slice(Slice1{1, 3, 1})
	var dst Array
	for _, tc := range []struct {
		name  string
		src   *Array
		shape []int
	}{
		{"2x12", a, []int{2, 12}},
		{"infer", a, []int{3, -1, 2}},
		{"flat rows", rows, []int{-1}},
		{"0-d of one", Scalar(int32(5)), []int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := tc.src.Reshape(tc.shape...)
			if err != nil {
				t.Fatal(err)
			}
			if err := dst.SetReshape(tc.src, tc.shape...); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(dst.Shape(), want.Shape()) || !slices.Equal(dst.Strides(), want.Strides()) || dst.Offset() != want.Offset() || !bytesEqualC(&dst, want) {
				t.Fatalf("SetReshape: shape %v strides %v offset %d, want %v %v %d", dst.Shape(), dst.Strides(), dst.Offset(), want.Shape(), want.Strides(), want.Offset())
			}
			if n := testing.AllocsPerRun(10, func() { _ = dst.SetReshape(tc.src, tc.shape...) }); n != 0 {
				t.Fatalf("SetReshape into a set header: %v allocations", n)
			}
		})
	}
	tr, _ := a.Transpose()
	for _, tc := range []struct {
		name  string
		src   *Array
		shape []int
	}{{"not contiguous", tr, []int{24}}, {"wrong size", a, []int{5, 5}}, {"two -1", a, []int{-1, -1}}, {"negative", a, []int{-2, 12}}} {
		before := slices.Clone(dst.Shape())
		if err := dst.SetReshape(tc.src, tc.shape...); err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if !slices.Equal(dst.Shape(), before) {
			t.Fatalf("%s: failed but changed dst", tc.name)
		}
	}
}
