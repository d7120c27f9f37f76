package nd

import (
	"fmt"
	"math"
	"reflect"
	"slices"
)

// Array is an eager n-d array: a dtype, a shape, strides in elements, an
// offset in elements, and a backing slice of the dtype's Go type ([]float32
// for Float32, ...). Several arrays may share one backing slice (views).
// Arrays are treated as immutable once built; functions that write in place
// take a destination named dst and say so.
type Array struct {
	dtype   DType
	shape   []int
	strides []int
	offset  int
	data    any
}

// ShapeError reports a shape that is invalid for an operation.
type ShapeError struct {
	Op     string
	Shapes [][]int
	Reason string
}

func (e *ShapeError) Error() string {
	s := "nd: " + e.Op + ":"
	for i, sh := range e.Shapes {
		if i > 0 {
			s += ","
		}
		s += " " + FormatShape(sh)
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// FormatShape prints a shape as numpy does: (3, 4), (5,), ().
func FormatShape(sh []int) string {
	switch len(sh) {
	case 0:
		return "()"
	case 1:
		return fmt.Sprintf("(%d,)", sh[0])
	}
	s := "("
	for i, n := range sh {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(n)
	}
	return s + ")"
}

// SizeOf returns the number of elements of shape, or an error when a
// dimension is negative or the product overflows.
func SizeOf(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, &ShapeError{Op: "shape", Shapes: [][]int{shape}, Reason: "negative dimension"}
		}
		if d != 0 && n > math.MaxInt/d {
			return 0, &ShapeError{Op: "shape", Shapes: [][]int{shape}, Reason: "too many elements"}
		}
		n *= d
	}
	return n, nil
}

// CStrides returns the C-order (row-major) strides of shape, in elements.
func CStrides(shape []int) []int { return CStridesInto(nil, shape) }

// makeSlice allocates a backing slice of n elements of dtype d.
func makeSlice(d DType, n int) any {
	switch d {
	case Bool:
		return make([]bool, n)
	case Int8:
		return make([]int8, n)
	case Int16:
		return make([]int16, n)
	case Int32:
		return make([]int32, n)
	case Int64:
		return make([]int64, n)
	case Uint8:
		return make([]uint8, n)
	case Uint16:
		return make([]uint16, n)
	case Uint32:
		return make([]uint32, n)
	case Uint64:
		return make([]uint64, n)
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case Complex64:
		return make([]complex64, n)
	case Complex128:
		return make([]complex128, n)
	}
	return nil
}

// Zeros returns a new C-contiguous array of zeros.
func Zeros(d DType, shape ...int) (*Array, error) {
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	if err := checkBytes("Zeros", d, shape); err != nil {
		return nil, err
	}
	n, _ := SizeOf(shape)
	return &Array{dtype: d, shape: slices.Clone(shape), strides: CStrides(shape), data: makeSlice(d, n)}, nil
}

// alloc is Zeros for shapes already known to be valid.
func alloc(d DType, shape []int) *Array {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return &Array{dtype: d, shape: slices.Clone(shape), strides: CStrides(shape), data: makeSlice(d, n)}
}

// FromSlice returns a C-contiguous array over data (shared, not copied).
// With no shape, the array is 1-d of len(data).
func FromSlice[T Elem](data []T, shape ...int) (*Array, error) {
	d := DTypeFor[T]()
	if d == Invalid {
		// A named type such as `type myfloat float64`: convert the slice.
		return nil, &DTypeError{Text: reflect.TypeFor[T]().String(), Reason: "use the plain Go element type"}
	}
	if shape == nil {
		shape = []int{len(data)}
	}
	n, err := SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if n != len(data) {
		return nil, &ShapeError{Op: "FromSlice", Shapes: [][]int{shape}, Reason: fmt.Sprintf("needs %d elements, got %d", n, len(data))}
	}
	return &Array{dtype: d, shape: slices.Clone(shape), strides: CStrides(shape), data: data}, nil
}

// Scalar returns a 0-d array holding v.
func Scalar[T Elem](v T) *Array {
	a, _ := FromSlice([]T{v}, []int{}...)
	return a
}

// Full returns an array of the given shape in which every element is v
// converted to d. It is a zero-stride view of one element, as Dask's
// constant chunks are: it costs one element of memory whatever its shape.
// Use Copy to get a writable array.
func Full(d DType, v any, shape ...int) (*Array, error) {
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	if _, err := SizeOf(shape); err != nil {
		return nil, err
	}
	one := makeSlice(d, 1)
	if err := setFromAny(one, 0, v); err != nil {
		return nil, err
	}
	return &Array{dtype: d, shape: slices.Clone(shape), strides: make([]int, len(shape)), data: one}, nil
}

// DType returns the element type.
func (a *Array) DType() DType { return a.dtype }

// Shape returns the shape. Do not modify it.
func (a *Array) Shape() []int { return a.shape }

// Strides returns the strides in elements (0 for broadcast axes). Do not
// modify them.
func (a *Array) Strides() []int { return a.strides }

// Offset returns the index in Data of element (0, ..., 0).
func (a *Array) Offset() int { return a.offset }

// NDim returns the number of dimensions.
func (a *Array) NDim() int { return len(a.shape) }

// Size returns the number of elements.
func (a *Array) Size() int {
	n := 1
	for _, s := range a.shape {
		n *= s
	}
	return n
}

// Nbytes returns Size times the element size: the bytes the array stands
// for, not the (possibly smaller) bytes it holds.
func (a *Array) Nbytes() int { return a.Size() * a.dtype.Size() }

// Data returns the backing slice ([]float64 for Float64, ...). Elements are
// at Offset + Σ index·stride.
func (a *Array) Data() any { return a.data }

// IsCContiguous reports whether the elements lie in C order, densely, from
// Offset.
func (a *Array) IsCContiguous() bool {
	s := 1
	for i := len(a.shape) - 1; i >= 0; i-- {
		if a.shape[i] == 1 {
			continue
		}
		if a.shape[i] == 0 {
			return true
		}
		if a.strides[i] != s {
			return false
		}
		s *= a.shape[i]
	}
	return true
}

// view returns an array sharing a's data with new geometry.
func (a *Array) view(shape, strides []int, offset int) *Array {
	return &Array{dtype: a.dtype, shape: shape, strides: strides, offset: emptyOffset(shape, offset), data: a.data}
}

// emptyOffset is offset, or 0 for an empty shape: an empty view may keep
// an offset beyond its (empty) backing slice (a column of a (0, 3)
// array), and every reader that slices data from the offset would panic.
func emptyOffset(shape []int, offset int) int {
	for _, d := range shape {
		if d == 0 {
			return 0
		}
	}
	return offset
}

// Slice1 is one axis of a basic slice, already normalised as Python's
// slice.indices does: 0 <= Start <= len for Step > 0, and Stop may be -1
// for negative steps. Use NormalizeSlice to build it from user input.
type Slice1 struct{ Start, Stop, Step int }

// Len returns the number of elements the slice selects.
func (s Slice1) Len() int {
	// Written so that a huge step (math.MaxInt, math.MinInt) cannot
	// overflow: (stop-start-1)/step + 1, the divisor as unsigned.
	if s.Step > 0 && s.Stop > s.Start {
		return int(uint(s.Stop-s.Start-1)/uint(s.Step)) + 1
	}
	if s.Step < 0 && s.Stop < s.Start {
		return int(uint(s.Start-s.Stop-1)/(uint(-(s.Step+1))+1)) + 1
	}
	return 0
}

// NormalizeSlice applies Python's rules to start:stop:step on an axis of
// length n; nil bounds mean "from the end that step points away from".
// A zero step is an error.
func NormalizeSlice(start, stop *int, step int, n int) (Slice1, error) {
	if step == 0 {
		return Slice1{}, fmt.Errorf("nd: slice step cannot be zero")
	}
	clamp := func(p *int, def, lo, hi int) int {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += n
			if v < lo {
				v = lo
			}
		} else if v > hi {
			v = hi
		}
		if v < lo {
			v = lo
		}
		return v
	}
	if step > 0 {
		return Slice1{clamp(start, 0, 0, n), clamp(stop, n, 0, n), step}, nil
	}
	return Slice1{clamp(start, n-1, -1, n-1), clamp(stop, -1, -1, n-1), step}, nil
}

// Slice returns the view of a selected by one Slice1 per axis (missing
// trailing axes are taken whole).
func (a *Array) Slice(s ...Slice1) (*Array, error) {
	v := &Array{}
	if err := v.SetSlice(a, s...); err != nil {
		return nil, err
	}
	return v, nil
}

// SetSlice makes dst the view of a that a.Slice(s...) returns, writing
// dst's own header (and reusing its shape and strides storage when large
// enough) instead of allocating a new one: a loop that takes a view per
// tile into one header allocates nothing. dst is a header its caller owns
// (new(nd.Array), or one it set before) and that nothing else holds as a
// value, since arrays are otherwise treated as immutable; dst may be a.
// On error dst is left unchanged.
func (dst *Array) SetSlice(a *Array, s ...Slice1) error {
	if len(s) > len(a.shape) {
		return &ShapeError{Op: "Slice", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("%d slices for %d axes", len(s), len(a.shape))}
	}
	off := a.offset
	for ax, sl := range s {
		n := a.shape[ax]
		if sl.Step == 0 {
			return fmt.Errorf("nd: Slice: axis %d: step cannot be zero", ax)
		}
		if ln := sl.Len(); ln > 0 {
			last := sl.Start + (ln-1)*sl.Step
			if sl.Start < 0 || sl.Start >= n || last < 0 || last >= n {
				return &ShapeError{Op: "Slice", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("axis %d: %d:%d:%d out of range", ax, sl.Start, sl.Stop, sl.Step)}
			}
			off += sl.Start * a.strides[ax]
		}
	}
	if dst != a {
		dst.shape = append(dst.shape[:0], a.shape...)
		dst.strides = append(dst.strides[:0], a.strides...)
		dst.dtype, dst.data = a.dtype, a.data
	}
	for ax, sl := range s {
		dst.shape[ax] = sl.Len()
		dst.strides[ax] *= sl.Step
	}
	dst.offset = emptyOffset(dst.shape, off)
	return nil
}

// SetReshape makes dst a view of a with the given shape (one dimension
// may be -1), as a.Reshape does for a C-contiguous a, writing dst's own
// header as SetSlice does; a that is not C-contiguous is an error (there
// is no memory to view without a copy). dst may be a. On error dst is
// left unchanged.
func (dst *Array) SetReshape(a *Array, shape ...int) error {
	if err := checkArrays("Reshape", a); err != nil {
		return err
	}
	infer, known := -1, 1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, slices.Clone(shape)}, Reason: "invalid dimension"}
		default:
			known *= d
		}
	}
	size := a.Size()
	inferred := 0
	if infer >= 0 {
		if known == 0 || size%known != 0 {
			return &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, slices.Clone(shape)}, Reason: fmt.Sprintf("cannot reshape array of size %d", size)}
		}
		inferred = size / known
	} else if known != size {
		return &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, slices.Clone(shape)}, Reason: fmt.Sprintf("cannot reshape array of size %d", size)}
	}
	if !a.IsCContiguous() {
		return &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, slices.Clone(shape)}, Reason: "a view needs a C-contiguous array"}
	}
	dst.dtype, dst.data, dst.offset = a.dtype, a.data, a.offset
	dst.shape = append(dst.shape[:0], shape...)
	if infer >= 0 {
		dst.shape[infer] = inferred
	}
	dst.strides = CStridesInto(dst.strides, dst.shape)
	return nil
}

// CStridesInto is CStrides written into st's storage (no allocation
// when it holds len(shape) elements).
func CStridesInto(st, shape []int) []int {
	if cap(st) < len(shape) {
		st = make([]int, len(shape))
	}
	st = st[:len(shape)]
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		if shape[i] > 0 {
			s *= shape[i]
		}
	}
	return st
}

// Index returns the view of a at position i of axis (the axis disappears).
// Negative i counts from the end.
func (a *Array) Index(axis, i int) (*Array, error) {
	if axis < 0 || axis >= len(a.shape) {
		return nil, &AxisError{Op: "Index", Axis: axis, NDim: len(a.shape)}
	}
	n := a.shape[axis]
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, &ShapeError{Op: "Index", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("index %d out of range for axis %d", i, axis)}
	}
	shape := slices.Delete(slices.Clone(a.shape), axis, axis+1)
	strides := slices.Delete(slices.Clone(a.strides), axis, axis+1)
	return a.view(shape, strides, a.offset+i*a.strides[axis]), nil
}

// AxisError reports an axis out of range.
type AxisError struct {
	Op         string
	Axis, NDim int
}

func (e *AxisError) Error() string {
	return fmt.Sprintf("nd: %s: axis %d is out of bounds for array of dimension %d", e.Op, e.Axis, e.NDim)
}

// NormalizeAxes resolves negative axes and checks for duplicates.
func NormalizeAxes(op string, axes []int, ndim int) ([]int, error) {
	out := make([]int, len(axes))
	seen := make([]bool, ndim)
	for i, ax := range axes {
		if ax < 0 {
			ax += ndim
		}
		if ax < 0 || ax >= ndim {
			return nil, &AxisError{Op: op, Axis: axes[i], NDim: ndim}
		}
		if seen[ax] {
			return nil, fmt.Errorf("nd: %s: repeated axis %d", op, axes[i])
		}
		seen[ax] = true
		out[i] = ax
	}
	return out, nil
}

// Transpose returns the view with axes permuted; no axes reverses them.
func (a *Array) Transpose(axes ...int) (*Array, error) {
	n := len(a.shape)
	if len(axes) == 0 {
		axes = make([]int, n)
		for i := range axes {
			axes[i] = n - 1 - i
		}
	}
	if len(axes) != n {
		return nil, fmt.Errorf("nd: Transpose: %d axes for an array of dimension %d", len(axes), n)
	}
	ax, err := NormalizeAxes("Transpose", axes, n)
	if err != nil {
		return nil, err
	}
	shape := make([]int, n)
	strides := make([]int, n)
	for i, j := range ax {
		shape[i] = a.shape[j]
		strides[i] = a.strides[j]
	}
	return a.view(shape, strides, a.offset), nil
}

// BroadcastShapes returns the shape numpy broadcasting gives shapes.
func BroadcastShapes(op string, shapes ...[]int) ([]int, error) {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := n - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil, &ShapeError{Op: op, Shapes: shapes, Reason: "operands could not be broadcast together"}
			}
		}
	}
	return out, nil
}

// BroadcastTo returns a view of a with the given shape, repeating size-1
// axes with stride 0 as numpy does.
func (a *Array) BroadcastTo(shape ...int) (*Array, error) {
	if len(shape) < len(a.shape) {
		return nil, &ShapeError{Op: "BroadcastTo", Shapes: [][]int{a.shape, shape}, Reason: "cannot broadcast to fewer dimensions"}
	}
	lead := len(shape) - len(a.shape)
	strides := make([]int, len(shape))
	for i := range shape {
		if i < lead {
			continue
		}
		d := a.shape[i-lead]
		switch {
		case d == shape[i]:
			strides[i] = a.strides[i-lead]
		case d == 1:
			strides[i] = 0
		default:
			return nil, &ShapeError{Op: "BroadcastTo", Shapes: [][]int{a.shape, shape}, Reason: "operands could not be broadcast together"}
		}
	}
	return a.view(slices.Clone(shape), strides, a.offset), nil
}

// Reshape returns an array with the same elements in C order and a new
// shape; one dimension may be -1. It is a view when a is C-contiguous and a
// copy otherwise.
func (a *Array) Reshape(shape ...int) (*Array, error) {
	if err := checkArrays("Reshape", a); err != nil {
		return nil, err
	}
	shape = slices.Clone(shape)
	infer := -1
	known := 1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d < 0:
			return nil, &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, shape}, Reason: "invalid dimension"}
		default:
			known *= d
		}
	}
	size := a.Size()
	if infer >= 0 {
		if known == 0 || size%known != 0 {
			return nil, &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, shape}, Reason: fmt.Sprintf("cannot reshape array of size %d", size)}
		}
		shape[infer] = size / known
	} else if known != size {
		return nil, &ShapeError{Op: "Reshape", Shapes: [][]int{a.shape, shape}, Reason: fmt.Sprintf("cannot reshape array of size %d", size)}
	}
	src := a
	if !a.IsCContiguous() {
		src = a.Copy()
	}
	return src.view(shape, CStrides(shape), src.offset), nil
}

// Copy returns a C-contiguous copy of a.
func (a *Array) Copy() *Array {
	out := alloc(a.dtype, a.shape)
	copyInto(out, a)
	return out
}

// Contiguous returns a itself when it is C-contiguous, and a copy otherwise.
func (a *Array) Contiguous() *Array {
	if a.IsCContiguous() {
		return a
	}
	return a.Copy()
}

// copyInto copies src into dst (same shape and dtype; dst C-contiguous).
func copyInto(dst, src *Array) {
	switch d := dst.data.(type) {
	case []bool:
		gather(d, src.data.([]bool), src)
	case []int8:
		gather(d, src.data.([]int8), src)
	case []int16:
		gather(d, src.data.([]int16), src)
	case []int32:
		gather(d, src.data.([]int32), src)
	case []int64:
		gather(d, src.data.([]int64), src)
	case []uint8:
		gather(d, src.data.([]uint8), src)
	case []uint16:
		gather(d, src.data.([]uint16), src)
	case []uint32:
		gather(d, src.data.([]uint32), src)
	case []uint64:
		gather(d, src.data.([]uint64), src)
	case []float32:
		gather(d, src.data.([]float32), src)
	case []float64:
		gather(d, src.data.([]float64), src)
	case []complex64:
		gather(d, src.data.([]complex64), src)
	case []complex128:
		gather(d, src.data.([]complex128), src)
	}
}

// gather writes the elements of the strided view (src geometry over
// srcData) into dst in C order.
func gather[T any](dst, srcData []T, src *Array) {
	i := 0
	ForEachOffset(src.shape, src.strides, src.offset, func(off, n, step int) {
		if step == 1 {
			copy(dst[i:i+n], srcData[off:off+n])
		} else {
			for k := 0; k < n; k++ {
				dst[i+k] = srcData[off+k*step]
			}
		}
		i += n
	})
}

// ForEachOffset walks a strided geometry in C order, calling fn once per
// run along the last axis with the run's first offset, its length and its
// stride. Kernels use it to keep the inner loop tight. A 0-d geometry is one
// run of length 1; an empty one calls fn never.
func ForEachOffset(shape, strides []int, offset int, fn func(off, n, step int)) {
	nd := len(shape)
	if nd == 0 {
		fn(offset, 1, 1)
		return
	}
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	inner, step := shape[nd-1], strides[nd-1]
	if nd == 1 {
		fn(offset, inner, step)
		return
	}
	var idxBuf [walkDims]int
	idx := idxBuf[:0]
	for range nd - 1 {
		idx = append(idx, 0)
	}
	off := offset
	for {
		fn(off, inner, step)
		ax := nd - 2
		for ; ax >= 0; ax-- {
			idx[ax]++
			off += strides[ax]
			if idx[ax] < shape[ax] {
				break
			}
			off -= strides[ax] * shape[ax]
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// At returns the element at idx (negative indices count from the end) as
// the dtype's Go type.
func (a *Array) At(idx ...int) (any, error) {
	if len(idx) != len(a.shape) {
		return nil, &ShapeError{Op: "At", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("%d indices for %d axes", len(idx), len(a.shape))}
	}
	off := a.offset
	for i, x := range idx {
		if x < 0 {
			x += a.shape[i]
		}
		if x < 0 || x >= a.shape[i] {
			return nil, &ShapeError{Op: "At", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("index %d out of range for axis %d", idx[i], i)}
		}
		off += x * a.strides[i]
	}
	return reflect.ValueOf(a.data).Index(off).Interface(), nil
}

// Values returns the elements of a in C order as []T; T must be the
// dtype's Go type. The slice is a's own backing when a is C-contiguous
// and covers it exactly; treat it as read-only.
func Values[T Elem](a *Array) ([]T, error) {
	if err := checkArrays("Values", a); err != nil {
		return nil, err
	}
	data, ok := a.data.([]T)
	if !ok {
		var zero T
		return nil, fmt.Errorf("nd: Values: array of %s is not []%T", a.dtype, zero)
	}
	n := a.Size()
	if n == 0 {
		return data[:0:0], nil
	}
	if a.IsCContiguous() {
		return data[a.offset : a.offset+n : a.offset+n], nil
	}
	out := make([]T, n)
	gather(out, data, a)
	return out, nil
}
