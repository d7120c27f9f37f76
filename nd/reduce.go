package nd

import (
	"fmt"
	"math"
	"slices"
)

// ReduceOp names a reduction: numpy's sum, prod, min, max, mean, var, std,
// any and all.
type ReduceOp uint8

// The reductions.
const (
	Sum ReduceOp = iota
	Prod
	Min
	Max
	Mean
	Var
	Std
	Any
	All
	numReduceOps
)

var reduceNames = [numReduceOps]string{"sum", "prod", "min", "max", "mean", "var", "std", "any", "all"}

// String returns numpy's function name: "sum", "min", "var".
func (op ReduceOp) String() string {
	if op >= numReduceOps {
		return fmt.Sprintf("ReduceOp(%d)", uint8(op))
	}
	return reduceNames[op]
}

// ParseReduceOp is the inverse of String; it also accepts "amin", "amax",
// "minimum" and "maximum".
func ParseReduceOp(name string) (ReduceOp, error) {
	switch name {
	case "amin", "minimum":
		return Min, nil
	case "amax", "maximum":
		return Max, nil
	}
	for i, n := range reduceNames {
		if n == name {
			return ReduceOp(i), nil
		}
	}
	return 0, fmt.Errorf("nd: unknown reduction %q", name)
}

// ufuncName is the name numpy's errors use for the ufunc behind op.
func (op ReduceOp) ufuncName() string {
	switch op {
	case Min:
		return "minimum"
	case Max:
		return "maximum"
	}
	return op.String()
}

// ArgOp names an arg-reduction: numpy's argmin and argmax.
type ArgOp uint8

// The arg-reductions.
const (
	ArgMin ArgOp = iota
	ArgMax
)

// String returns "argmin" or "argmax".
func (op ArgOp) String() string {
	switch op {
	case ArgMin:
		return "argmin"
	case ArgMax:
		return "argmax"
	}
	return fmt.Sprintf("ArgOp(%d)", uint8(op))
}

// ReduceResultType returns the dtype numpy (on a 64-bit Linux) gives op
// applied to an array of dtype d: sum and prod widen bool and signed
// integers to int64 and unsigned ones to uint64; mean, var and std of
// bools and integers are float64; var and std of complex numbers are
// real; any and all are bool; min and max keep d. It returns Invalid for
// an invalid d or op.
func ReduceResultType(op ReduceOp, d DType) DType {
	if !d.Valid() {
		return Invalid
	}
	switch op {
	case Sum, Prod:
		switch {
		case d.IsBool(), d.Kind() == 'i':
			return Int64
		case d.IsUnsigned():
			return Uint64
		}
		return d
	case Min, Max:
		return d
	case Mean:
		if d.IsBool() || d.IsInteger() {
			return Float64
		}
		return d
	case Var, Std:
		switch d {
		case Complex64, Float32:
			return Float32
		}
		return Float64
	case Any, All:
		return Bool
	}
	return Invalid
}

// reduceAxes resolves axes (nil = all) into a per-axis flag.
func reduceAxes(op string, a *Array, axes []int) ([]bool, error) {
	return reduceAxesInto(nil, op, a, axes)
}

// reduceAxesInto is reduceAxes writing the flags into red's storage,
// with NormalizeAxes' checks (range, repeats) and errors.
func reduceAxesInto(red []bool, op string, a *Array, axes []int) ([]bool, error) {
	n := a.NDim()
	red = red[:0]
	for range n {
		red = append(red, axes == nil)
	}
	for _, ax := range axes {
		i := ax
		if i < 0 {
			i += n
		}
		if i < 0 || i >= n {
			return nil, &AxisError{Op: op, Axis: ax, NDim: n}
		}
		if red[i] {
			return nil, fmt.Errorf("nd: %s: repeated axis %d", op, ax)
		}
		red[i] = true
	}
	return red, nil
}

// reducedShape returns the keepdims shape, the final shape and the number
// of elements reduced into each output element.
func reducedShape(shape []int, red []bool, keepdims bool) (keep, final []int, count int) {
	keep = slices.Clone(shape)
	final = make([]int, 0, len(shape))
	count = 1
	for i, r := range red {
		if r {
			keep[i] = 1
			count *= shape[i]
		} else {
			final = append(final, shape[i])
		}
	}
	if keepdims {
		final = slices.Clone(keep)
	}
	return keep, final, count
}

// Reduce applies op over axes of a (nil means every axis; an empty,
// non-nil slice means none, as numpy's axis=()). With keepdims the reduced
// axes stay with length 1. The result dtype is ReduceResultType(op, d).
//
// It follows numpy: NaN propagates through sum, prod, mean, min and max;
// the sum of nothing is 0, its product 1, its mean NaN, its any false and
// its all true; min and max of nothing are an error. Floating-point sums
// along a run of elements are pairwise, as numpy's, so that results agree
// with numpy's to a few ulp; float32 accumulates in float32, like numpy.
// Var and Std use ddof 0; see VarStd.
func Reduce(op ReduceOp, a *Array, axes []int, keepdims bool) (*Array, error) {
	if err := checkArrays(op.String(), a); err != nil {
		return nil, err
	}
	if op >= numReduceOps {
		return nil, fmt.Errorf("nd: Reduce: invalid op %d", uint8(op))
	}
	if op == Var || op == Std {
		return VarStd(a, axes, keepdims, 0, op == Std)
	}
	red, err := reduceAxes(op.String(), a, axes)
	if err != nil {
		return nil, err
	}
	keep, final, count := reducedShape(a.shape, red, keepdims)
	if count == 0 && (op == Min || op == Max) {
		return nil, &ShapeError{Op: op.String(), Shapes: [][]int{a.shape},
			Reason: "zero-size array to reduction operation " + op.ufuncName() + " which has no identity"}
	}
	out := alloc(ReduceResultType(op, a.dtype), keep)
	if err := reduceInto(op, out, a, red, count); err != nil {
		return nil, err
	}
	out.shape = final
	out.strides = CStrides(final)
	return out, nil
}

// reduceInto reduces a into out (C-contiguous, keepdims shape, dtype
// ReduceResultType(op, a.dtype)) over the flagged axes.
func reduceInto(op ReduceOp, out, a *Array, red []bool, count int) error {
	switch op {
	case Sum, Mean:
		src := a
		if a.dtype.IsBool() {
			src, _ = a.AsType(out.dtype)
		}
		if err := sumDispatch(out, src, red); err != nil {
			return err
		}
		if op == Mean {
			divideBy(out, float64(count))
		}
		return nil
	case Prod:
		src := a
		if a.dtype.IsBool() {
			src, _ = a.AsType(Int64)
		}
		fillOne(out)
		return prodDispatch(out, src, red)
	case Min, Max:
		if count == 0 {
			return nil
		}
		if a.dtype.IsBool() {
			// min of bools is all, max is any.
			bop := All
			if op == Max {
				bop = Any
			}
			return reduceInto(bop, out, a, red, count)
		}
		// Start from the first element along the reduced axes, so that
		// no identity is needed and NaN handling stays in one place.
		// (A header on the stack: the view at index 0 of each reduced
		// axis; Index per axis allocated a view each.)
		var shBuf, stBuf [walkDims]int
		first := Array{dtype: a.dtype, shape: shBuf[:0], strides: stBuf[:0], offset: a.offset, data: a.data}
		for i, r := range red {
			if !r {
				first.shape = append(first.shape, a.shape[i])
				first.strides = append(first.strides, a.strides[i])
			}
		}
		convertInto(out.data, &first)
		return minMaxDispatch(op == Max, out, a, red)
	case Any, All:
		if op == All {
			fillOne(out)
		}
		return anyAllDispatch(op == All, out, a, red)
	}
	return fmt.Errorf("nd: Reduce: op %s not handled", op)
}

// outGeom returns out's strides in a's index space: out's C strides on the
// kept axes and 0 on the reduced ones (out has the keepdims shape).
func outGeom(st []int, out *Array, red []bool) []int {
	st = append(st[:0], out.strides...)
	for i, r := range red {
		if r {
			st[i] = 0
		}
	}
	return st
}

// fillOne sets every element of the C-contiguous out to one (true).
func fillOne(out *Array) {
	switch d := out.data.(type) {
	case []bool:
		fillSlice(d, true)
	case []int8:
		fillSlice(d, 1)
	case []int16:
		fillSlice(d, 1)
	case []int32:
		fillSlice(d, 1)
	case []int64:
		fillSlice(d, 1)
	case []uint8:
		fillSlice(d, 1)
	case []uint16:
		fillSlice(d, 1)
	case []uint32:
		fillSlice(d, 1)
	case []uint64:
		fillSlice(d, 1)
	case []float32:
		fillSlice(d, 1)
	case []float64:
		fillSlice(d, 1)
	case []complex64:
		fillSlice(d, 1)
	case []complex128:
		fillSlice(d, 1)
	}
}

func fillSlice[T any](s []T, v T) {
	for i := range s {
		s[i] = v
	}
}

// divideBy divides the float or complex C-contiguous out by n in place.
func divideBy(out *Array, n float64) {
	switch d := out.data.(type) {
	case []float32:
		for i := range d {
			d[i] /= float32(n)
		}
	case []float64:
		for i := range d {
			d[i] /= n
		}
	case []complex64:
		for i := range d {
			d[i] /= complex(float32(n), 0)
		}
	case []complex128:
		for i := range d {
			d[i] /= complex(n, 0)
		}
	}
}

// VarStd returns the variance (std false) or the standard deviation (std
// true) of a over axes (nil = all), with ddof delta degrees of freedom:
// Σ|x - mean|² / (N - ddof). As numpy, it takes two passes (the mean, then
// the squared deviations) and N - ddof ≤ 0 gives +Inf or NaN, not an
// error. Complex input gives a real result.
func VarStd(a *Array, axes []int, keepdims bool, ddof int, std bool) (*Array, error) {
	if err := checkArrays("VarStd", a); err != nil {
		return nil, err
	}
	op := Var
	if std {
		op = Std
	}
	red, err := reduceAxes(op.String(), a, axes)
	if err != nil {
		return nil, err
	}
	keep, final, count := reducedShape(a.shape, red, keepdims)
	x, err := a.AsType(ReduceResultType(Mean, a.dtype))
	if err != nil {
		return nil, err
	}
	_, m2, err := moments(x, red, keep, count)
	if err != nil {
		return nil, err
	}
	div := math.Max(float64(count-ddof), 0)
	divideBy(m2, div)
	if std {
		sqrtInPlace(m2)
	}
	m2.shape = final
	m2.strides = CStrides(final)
	return m2, nil
}

// moments returns the mean (in x's dtype) and the sum of squared
// deviations (real) of the float or complex x over the flagged axes, both
// with the keepdims shape.
func moments(x *Array, red []bool, keep []int, count int) (mean, m2 *Array, err error) {
	mean = alloc(x.dtype, keep)
	if err := reduceInto(Mean, mean, x, red, count); err != nil {
		return nil, nil, err
	}
	x = x.Contiguous()
	rd := ReduceResultType(Var, x.dtype)
	m2 = alloc(rd, keep)
	// The squared deviations are summed a slab of rows (along axis 0) at
	// a time, through one slab-sized buffer, instead of through a buffer
	// of x's size: a fused chunk's moments then cost no block-sized
	// allocation. Along a reduced axis 0 the slabs' sums are added (in
	// slab order); otherwise each slab writes its own rows of m2.
	if len(x.shape) == 0 || x.shape[0] <= 1 || x.Size() <= momentSlab {
		return mean, m2, devSqSum(m2, x, mean, red, alloc(rd, x.shape))
	}
	row := x.Size() / x.shape[0]
	rows := max(1, momentSlab/max(row, 1))
	buf := alloc(rd, []int{rows * row})
	var part *Array
	if red[0] {
		part = alloc(rd, keep)
	}
	for r0 := 0; r0 < x.shape[0]; r0 += rows {
		r1 := min(r0+rows, x.shape[0])
		sh := slices.Clone(x.shape)
		sh[0] = r1 - r0
		xs := x.view(sh, x.strides, x.offset+r0*x.strides[0])
		ms, out := mean, part
		if !red[0] {
			msh := slices.Clone(mean.shape)
			msh[0] = r1 - r0
			ms = rowsFrom(mean, r0, msh)
			out = rowsFrom(m2, r0, msh)
		} else if r0 == 0 {
			out = m2
		}
		sq := &Array{dtype: rd, shape: sh, strides: CStridesInto(nil, sh), data: buf.data}
		if err := devSqSum(out, xs, ms, red, sq); err != nil {
			return nil, nil, err
		}
		if red[0] && r0 > 0 {
			switch d := m2.data.(type) {
			case []float32:
				addTo(d, part.data.([]float32))
			case []float64:
				addTo(d, part.data.([]float64))
			}
		}
	}
	return mean, m2, nil
}

// momentSlab is the number of elements of x whose squared deviations
// moments holds at a time.
const momentSlab = 1 << 16

// rowsFrom returns the rows of the C-contiguous a (mean or m2) from r0 on,
// of shape sh, as an array at offset 0 (the reduction kernels write and
// read their output from offset 0).
func rowsFrom(a *Array, r0 int, sh []int) *Array {
	off := r0 * a.strides[0]
	v := &Array{dtype: a.dtype, shape: sh, strides: a.strides}
	switch d := a.data.(type) {
	case []float32:
		v.data = d[off:]
	case []float64:
		v.data = d[off:]
	case []complex64:
		v.data = d[off:]
	case []complex128:
		v.data = d[off:]
	}
	return v
}

func addTo[T float32 | float64](d, s []T) {
	s = s[:len(d)]
	for i := range d {
		d[i] += s[i]
	}
}

// devSqSum writes into out (mean's shape, x's reduced axes of length 1)
// the sum over the reduced axes of |x - mean|², through sq (x's shape,
// C-contiguous from offset 0, out's dtype).
func devSqSum(out, x, mean *Array, red []bool, sq *Array) error {
	var p plan
	p.init(x.shape, x.strides, x.offset, outGeom(nil, mean, red))
	switch xs := x.data.(type) {
	case []float32:
		devSq(sq.data.([]float32), xs, mean.data.([]float32), &p)
	case []float64:
		devSq(sq.data.([]float64), xs, mean.data.([]float64), &p)
	case []complex64:
		devSqC(sq.data.([]float32), xs, mean.data.([]complex64), &p)
	case []complex128:
		devSqC(sq.data.([]float64), xs, mean.data.([]complex128), &p)
	default:
		return fmt.Errorf("nd: moments: dtype %s", x.dtype)
	}
	return sumDispatch(out, sq, red)
}

// sqrtInPlace takes the square root of the float C-contiguous out.
func sqrtInPlace(out *Array) {
	switch d := out.data.(type) {
	case []float32:
		for i, v := range d {
			d[i] = float32(math.Sqrt(float64(v)))
		}
	case []float64:
		for i, v := range d {
			d[i] = math.Sqrt(v)
		}
	}
}

// ArgReduce returns the int64 indices of the first minimum or maximum of a
// along axis (negative counts from the end), or, with flat, of a flattened
// in C order (axis is ignored; the result is 0-d). As numpy, a NaN is
// both the minimum and the maximum: the first NaN's index is returned.
// Complex numbers compare lexicographically (real part first). An empty
// axis is an error.
func ArgReduce(op ArgOp, a *Array, axis int, flat bool) (*Array, error) {
	if err := checkArrays(op.String(), a); err != nil {
		return nil, err
	}
	if op != ArgMin && op != ArgMax {
		return nil, fmt.Errorf("nd: ArgReduce: invalid op %d", uint8(op))
	}
	if flat {
		f, err := a.Reshape(-1)
		if err != nil {
			return nil, err
		}
		a, axis = f, 0
	}
	if a.NDim() == 0 {
		f, _ := a.Reshape(1)
		a, axis = f, 0
	}
	ax, err := NormalizeAxes(op.String(), []int{axis}, a.NDim())
	if err != nil {
		return nil, err
	}
	_, idx, err := argScan(op, a, ax[0], 0)
	return idx, err
}
