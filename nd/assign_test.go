package nd

import (
	"errors"
	"testing"
)

// Assign is checked against an element-by-element second path: for every
// index of dst, the value must be src's broadcast element converted with
// AsType, and elements outside the view must be untouched.
func TestAssign(t *testing.T) {
	base := func() *Array {
		v := make([]float64, 6*5)
		for i := range v {
			v[i] = -1
		}
		a, _ := FromSlice(v, 6, 5)
		return a
	}
	ints, _ := FromSlice([]int32{1, 2, 3, 4, 5, 6}, 3, 2)
	row, _ := FromSlice([]float32{10, 20}, 2)
	seven, _ := Full(Float64, 7, 3, 2)
	colT, _ := ints.Transpose()
	for _, tc := range []struct {
		name string
		view func(a *Array) *Array
		src  *Array
	}{
		{"strided view, cast", func(a *Array) *Array { v, _ := a.Slice(Slice1{0, 6, 2}, Slice1{1, 5, 2}); return v }, ints},
		{"reversed view, broadcast row", func(a *Array) *Array { v, _ := a.Slice(Slice1{5, -1, -2}, Slice1{0, 2, 1}); return v }, row},
		{"contiguous rows, cast", func(a *Array) *Array { v, _ := a.Slice(Slice1{0, 3, 1}, Slice1{0, 2, 1}); return v }, ints},
		{"constant src", func(a *Array) *Array { v, _ := a.Slice(Slice1{1, 4, 1}, Slice1{3, 5, 1}); return v }, seven},
		{"transposed src into transposed view", func(a *Array) *Array {
			v, _ := a.Slice(Slice1{0, 3, 1}, Slice1{0, 2, 1})
			v, _ = v.Transpose()
			return v
		}, colT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := base()
			view := tc.view(a)
			if err := Assign(view, tc.src); err != nil {
				t.Fatal(err)
			}
			want, _ := tc.src.BroadcastTo(view.Shape()...)
			want, _ = want.AsType(Float64)
			inView := map[int]bool{}
			ForEachOffset(view.Shape(), view.Strides(), view.Offset(), func(off, n, step int) {
				for k := 0; k < n; k++ {
					inView[off+k*step] = true
				}
			})
			data := a.Data().([]float64)
			wv, _ := Values[float64](want)
			got, _ := Values[float64](view)
			for i := range wv {
				if got[i] != wv[i] {
					t.Errorf("element %d: got %v, want %v", i, got[i], wv[i])
				}
			}
			for off, x := range data {
				if !inView[off] && x != -1 {
					t.Errorf("offset %d outside the view changed to %v", off, x)
				}
			}
		})
	}
	t.Run("errors", func(t *testing.T) {
		a := base()
		bad, _ := FromSlice([]float64{1, 2, 3}, 3)
		var se *ShapeError
		if err := Assign(a, bad); !errors.As(err, &se) {
			t.Errorf("shape mismatch: got %v, want *ShapeError", err)
		}
		var ia *InvalidArrayError
		if err := Assign(nil, bad); !errors.As(err, &ia) {
			t.Errorf("nil dst: got %v, want *InvalidArrayError", err)
		}
	})
}
