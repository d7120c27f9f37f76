package udfbridge

// Small array helpers of the engine (udf-core).

import (
	"fmt"
	"reflect"

	"github.com/tessera-go/tessera/nd"
)

func shapeProd(sh []int) int {
	n := 1
	for _, s := range sh {
		n *= s
	}
	return n
}

// rowsView views rows [k, k+m) of the leading axis.
func rowsView(a *nd.Array, k, m int) (*nd.Array, error) {
	return a.Slice(nd.Slice1{Start: k, Stop: k + m, Step: 1})
}

// regionView views the region start/shape of the leading len(start) axes
// of a (the sig axes of a sig buffer), from axis off.
func regionView(a *nd.Array, off int, start, shape []int) (*nd.Array, error) {
	s := make([]nd.Slice1, off+len(start))
	for i := 0; i < off; i++ {
		s[i] = nd.Slice1{Start: 0, Stop: a.Shape()[i], Step: 1}
	}
	for i := range start {
		s[off+i] = nd.Slice1{Start: start[i], Stop: start[i] + shape[i], Step: 1}
	}
	return a.Slice(s...)
}

// setRegion is regionView into the header h (nd.Array.SetSlice): no
// allocation for arrays of up to 16 axes.
func setRegion(h, a *nd.Array, off int, start, shape []int) error {
	var buf [16]nd.Slice1
	s := buf[:0]
	for i := 0; i < off; i++ {
		s = append(s, nd.Slice1{Start: 0, Stop: a.Shape()[i], Step: 1})
	}
	for i := range start {
		s = append(s, nd.Slice1{Start: start[i], Stop: start[i] + shape[i], Step: 1})
	}
	return h.SetSlice(a, s...)
}

// copyRows copies src, C-contiguous after conversion to dst's dtype, into
// rows [row, row+len(src)) of dst, a C-contiguous array.
func copyRows(dst *nd.Array, row int, src *nd.Array) error {
	if src.DType() != dst.DType() {
		var err error
		if src, err = src.AsType(dst.DType()); err != nil {
			return err
		}
	}
	src = src.Contiguous()
	if !dst.IsCContiguous() {
		return fmt.Errorf("copyRows: destination not contiguous")
	}
	rowSize := 1
	if dst.NDim() > 0 {
		rowSize = shapeProd(dst.Shape()[1:])
	}
	n := src.Size()
	if row*rowSize+n > dst.Size() {
		return fmt.Errorf("copyRows: %v rows at %d do not fit %v", src.Shape(), row, dst.Shape())
	}
	d := reflect.ValueOf(dst.Data())
	s := reflect.ValueOf(src.Data())
	o := dst.Offset() + row*rowSize
	reflect.Copy(d.Slice(o, o+n), s.Slice(src.Offset(), src.Offset()+n))
	return nil
}

// gatherRows returns the rows idx of a's leading axis, as a new array.
func gatherRows(a *nd.Array, idx []int) (*nd.Array, error) {
	sh := append([]int{len(idx)}, a.Shape()[1:]...)
	out, err := nd.Zeros(a.DType(), sh...)
	if err != nil {
		return nil, err
	}
	for i, r := range idx {
		v, err := rowsView(a, r, 1)
		if err != nil {
			return nil, err
		}
		if err := copyRows(out, i, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// embedNav puts a flat ROI-compressed (r,)+E array into nav+E, with the
// fill value outside the ROI.
func embedNav(a *nd.Array, nav []int, roi []bool) (*nd.Array, error) {
	sh := append(append([]int(nil), nav...), a.Shape()[1:]...)
	if roi == nil {
		return a.Contiguous().Reshape(sh...)
	}
	n := shapeProd(nav)
	out, err := nd.Full(a.DType(), fillValue(a.DType()), append([]int{n}, a.Shape()[1:]...)...)
	if err != nil {
		return nil, err
	}
	out = out.Copy() // Full may be a broadcast view
	k := 0
	for i, in := range roi {
		if !in {
			continue
		}
		v, err := rowsView(a, k, 1)
		if err != nil {
			return nil, err
		}
		if err := copyRows(out, i, v); err != nil {
			return nil, err
		}
		k++
	}
	return out.Reshape(sh...)
}

// unravel returns the nav coordinates of flat indices, (len, ndim) int64.
func unravel(flat []int, nav []int) *nd.Array {
	d := len(nav)
	out := make([]int64, len(flat)*d)
	for i, f := range flat {
		for j := d - 1; j >= 0; j-- {
			out[i*d+j] = int64(f % nav[j])
			f /= nav[j]
		}
	}
	a, _ := nd.FromSlice(out, len(flat), d)
	return a
}
