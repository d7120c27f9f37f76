package chunkarray

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/nd"
)

// The NaN-ignoring reductions, ptp, count_nonzero and average are
// written, as numpy writes them (numpy/lib/nanfunctions.py), as
// elementwise steps around the tree reductions of reduce.go: NaN replaced
// by the reduction's identity (x != x is the NaN test; an elementwise
// Where, fused into the reduction's chunk step), then Sum, Prod, Min, Max
// or ArgMin. They keep numpy's accumulation dtypes and its two-pass
// variance, so they agree with numpy to rounding. On integer and bool
// arrays, which hold no NaN, each is its plain reduction, as in numpy.
//
// All-NaN slices, as numpy 1.24 (which also warns, where Go cannot):
// NanSum gives 0 and NanProd 1; NanMin, NanMax, NanMean, NanVar, NanStd
// and NanMedian give NaN; NanArgMin and NanArgMax fail at compute time
// with an *Error "All-NaN slice encountered" (numpy's ValueError).

func inexactDType(d nd.DType) bool { return d.IsFloat() || d.IsComplex() }

// nanFill returns a with its NaNs replaced by v (a itself when its dtype
// holds no NaN).
func (a *Array) nanFill(v any) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !inexactDType(a.dtype) {
		return a
	}
	return Where(a.NotEqual(a), v, a)
}

// isNaN is a != a.
func (a *Array) isNaN() *Array { return a.NotEqual(a) }

// NanSum is numpy.nansum and dask.array.nansum: Sum with NaN counted as
// 0. o is Reduce's (Keepdims, SplitEvery, DType).
func (a *Array) NanSum(axes []int, o ReduceOpts) *Array {
	return a.nanFill(0).Reduce(nd.Sum, axes, o)
}

// NanProd is numpy.nanprod: Prod with NaN counted as 1.
func (a *Array) NanProd(axes []int, o ReduceOpts) *Array {
	return a.nanFill(1).Reduce(nd.Prod, axes, o)
}

// NanMin is numpy.nanmin: Min ignoring NaN; NaN where a lane is all NaN.
// A zero-size reduction is an error (numpy's ValueError). Complex arrays
// are ordered as Min orders them, with NaNs replaced by +inf, which
// differs from numpy's fmin only between values with an infinite real
// part.
func (a *Array) NanMin(axes []int, o ReduceOpts) *Array {
	return a.nanMinMax("nanmin", nd.Min, math.Inf(1), axes, o)
}

// NanMax is numpy.nanmax (see NanMin).
func (a *Array) NanMax(axes []int, o ReduceOpts) *Array {
	return a.nanMinMax("nanmax", nd.Max, math.Inf(-1), axes, o)
}

func (a *Array) nanMinMax(name string, op nd.ReduceOp, fill float64, axes []int, o ReduceOpts) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := a.checkNonEmpty(name, axes); err != nil {
		return errArray(err)
	}
	if o.DType != nd.Invalid {
		return errorf(name, [][]int{a.shape}, "takes no dtype (numpy's %s has no dtype argument)", name)
	}
	if !inexactDType(a.dtype) {
		return a.Reduce(op, axes, o)
	}
	r := a.nanFill(fill).Reduce(op, axes, o)
	all := a.isNaN().Reduce(nd.All, axes, ReduceOpts{Keepdims: o.Keepdims, SplitEvery: o.SplitEvery})
	return Where(all, math.NaN(), r)
}

// checkNonEmpty fails a reduction with no identity over a zero-length
// axis.
func (a *Array) checkNonEmpty(name string, axes []int) error {
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return err
	}
	for _, x := range ax {
		if a.shape[x] == 0 {
			return &Error{Op: name, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("zero-size axis %d has no identity (numpy's ValueError)", x)}
		}
	}
	return nil
}

// nanCount is the number of non-NaN elements over axes (int64).
func (a *Array) nanCount(axes []int, o ReduceOpts) *Array {
	return a.Equal(a).Reduce(nd.Sum, axes, ReduceOpts{Keepdims: o.Keepdims, SplitEvery: o.SplitEvery})
}

// nanOutDType is the result dtype of NanMean and NanVar with o.DType (a
// float or complex dtype, or none: the input's), for an inexact input.
func (a *Array) nanOutDType(name string, o ReduceOpts) (nd.DType, error) {
	if o.DType == nd.Invalid {
		return a.dtype, nil
	}
	if !inexactDType(o.DType) {
		return 0, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("dtype %s: only float and complex dtypes are supported for a float input", o.DType)}
	}
	return o.DType, nil
}

// NanMean is numpy.nanmean: the sum of the non-NaN elements (in o.DType,
// or the input's dtype) over their count, NaN for an all-NaN lane. An
// integer or bool input is Mean's (float64).
func (a *Array) NanMean(axes []int, o ReduceOpts) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !inexactDType(a.dtype) {
		return a.Reduce(nd.Mean, axes, o)
	}
	d, err := a.nanOutDType("nanmean", o)
	if err != nil {
		return errArray(err)
	}
	return a.nanFill(0).Reduce(nd.Sum, axes, o).Div(a.nanCount(axes, o)).AsType(d)
}

// NanVar is numpy.nanvar: numpy's two passes, the mean of the non-NaN
// elements, then the sum of their squared deviations (|x - mean|² for
// complex) over count - o.Ddof; NaN where that is not positive (an
// all-NaN lane too). The result is the input's dtype (complex: its real
// dtype), or o.DType's. Integer and bool inputs are Var's.
func (a *Array) NanVar(axes []int, o ReduceOpts) *Array {
	return a.nanVar("nanvar", axes, o, false)
}

// NanStd is numpy.nanstd: the square root of NanVar.
func (a *Array) NanStd(axes []int, o ReduceOpts) *Array {
	return a.nanVar("nanstd", axes, o, true)
}

func (a *Array) nanVar(name string, axes []int, o ReduceOpts, std bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !inexactDType(a.dtype) {
		op := nd.Var
		if std {
			op = nd.Std
		}
		return a.Reduce(op, axes, o)
	}
	d, err := a.nanOutDType(name, o)
	if err != nil {
		return errArray(err)
	}
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return errArray(err)
	}
	k := ReduceOpts{Keepdims: true, SplitEvery: o.SplitEvery}
	x := a.AsType(d)
	cnt := a.nanCount(ax, k)
	mean := x.nanFill(0).Reduce(nd.Sum, ax, k).Div(cnt).AsType(d)
	dev := Where(x.isNaN(), 0, x.Sub(mean))
	var sq *Array
	if d.IsComplex() {
		sq = dev.Abs().Square()
	} else {
		sq = dev.Mul(dev)
	}
	rd := sq.DType()
	if o.DType != nd.Invalid {
		rd = d // numpy's dtype= is the result's, complex too
	}
	k.Keepdims = o.Keepdims
	dof := a.nanCount(ax, k).Sub(o.Ddof)
	v := Where(dof.LessEqual(0), math.NaN(), sq.Reduce(nd.Sum, ax, k).Div(dof)).AsType(rd)
	if std {
		v = v.Sqrt()
	}
	return v
}

// NanArgMin is numpy.nanargmin: the index of the minimum ignoring NaN,
// along axis or over the flattened array when flat (o: Keepdims,
// SplitEvery). NaNs count as +inf, as numpy's; a lane of NaNs only fails
// the computation with "All-NaN slice encountered" (numpy's ValueError).
func (a *Array) NanArgMin(axis int, flat bool, o ReduceOpts) *Array {
	return a.nanArg(nd.ArgMin, axis, flat, o)
}

// NanArgMax is numpy.nanargmax (NaNs count as -inf; see NanArgMin).
func (a *Array) NanArgMax(axis int, flat bool, o ReduceOpts) *Array {
	return a.nanArg(nd.ArgMax, axis, flat, o)
}

func (a *Array) nanArg(op nd.ArgOp, axis int, flat bool, o ReduceOpts) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !inexactDType(a.dtype) {
		return a.ArgReduce(op, axis, flat, o)
	}
	fill, fn := math.Inf(1), blockNanArgMin
	if op == nd.ArgMax {
		fill, fn = math.Inf(-1), blockNanArgMax
	}
	idx := a.nanFill(fill).ArgReduce(op, axis, flat, o)
	if idx.Err() != nil {
		return idx
	}
	var axes []int
	if !flat {
		axes = []int{axis}
	}
	all := a.isNaN().Reduce(nd.All, axes, ReduceOpts{Keepdims: o.Keepdims, SplitEvery: o.SplitEvery})
	return MapBlocks(fn, BlockOpts{DType: nd.Int64}, idx, all)
}

const (
	blockNanArgMin  = "chunkarray.nanargmin-check"
	blockNanArgMax  = "chunkarray.nanargmax-check"
	blockAverageChk = "chunkarray.average-check"
)

func init() {
	for fn, name := range map[string]string{blockNanArgMin: "nanargmin", blockNanArgMax: "nanargmax"} {
		mustRegister(RegisterBlockFunc(fn, func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
			all, err := nd.Values[bool](b[1].Contiguous())
			if err != nil {
				return nil, err
			}
			for _, v := range all {
				if v {
					return nil, &Error{Op: name, Reason: "All-NaN slice encountered (numpy's ValueError)"}
				}
			}
			return b[0], nil
		}))
	}
	mustRegister(RegisterBlockFunc(blockAverageChk, func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		z, err := nd.Binary(nd.Equal, b[0], nd.Scalar(0.0))
		if err != nil {
			return nil, err
		}
		zs, err := nd.Values[bool](z.Contiguous())
		if err != nil {
			return nil, err
		}
		for _, v := range zs {
			if v {
				return nil, &Error{Op: "average", Reason: "weights sum to zero, can't be normalized (numpy's ZeroDivisionError)"}
			}
		}
		return b[0], nil
	}))
}

// mustInit panics on an error at init (a programmer error).
func mustRegister(err error) {
	if err != nil {
		panic(err)
	}
}

// Ptp is numpy.ptp: Max - Min over axes, in the input's dtype (integers
// wrap as numpy's; bool is an error, as numpy's subtract of booleans).
func (a *Array) Ptp(axes []int, keepdims bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.dtype.IsBool() {
		return errorf("ptp", [][]int{a.shape}, "boolean subtract is not supported (numpy's TypeError)")
	}
	o := ReduceOpts{Keepdims: keepdims}
	return a.Reduce(nd.Max, axes, o).Sub(a.Reduce(nd.Min, axes, o))
}

// CountNonzero is numpy.count_nonzero: the number of non-zero elements
// (NaN counts) over axes (nil: all, a 0-d result), int64.
func (a *Array) CountNonzero(axes []int, keepdims bool) *Array {
	return a.NotEqual(0).Reduce(nd.Sum, axes, ReduceOpts{Keepdims: keepdims})
}

// AverageOpts are numpy.average's options.
type AverageOpts struct {
	// Weights (nil: none, then Average is Mean): an Array of a's shape,
	// or a 1-d one as long as the one axis averaged over.
	Weights  *Array
	Keepdims bool
}

// Average is numpy.average and dask.array.average: the weighted mean
// over axes (nil: all), sum(a·w)/sum(w) in numpy's dtype (the result type
// of a and w, at least float64 for integer or bool a). It also returns
// the sum of the weights broadcast to the result's shape (numpy's
// returned=True). A zero sum of weights fails the computation (numpy's
// ZeroDivisionError, raised before computing; Dask does not check).
func (a *Array) Average(axes []int, o AverageOpts) (avg, sumOfWeights *Array) {
	const name = "average"
	if err := a.Err(); err != nil {
		return errArray(err), errArray(err)
	}
	fail := func(format string, args ...any) (*Array, *Array) {
		e := errorf(name, [][]int{a.shape}, format, args...)
		return e, e
	}
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return errArray(err), errArray(err)
	}
	ro := ReduceOpts{Keepdims: o.Keepdims}
	if o.Weights == nil {
		avg := a.Reduce(nd.Mean, ax, ro)
		n := 1
		for _, x := range ax {
			n *= a.shape[x]
		}
		return avg, Full(avg.Shape(), n, avg.DType(), avg.Chunks())
	}
	w := o.Weights
	if err := w.Err(); err != nil {
		return errArray(err), errArray(err)
	}
	if !equalShapes(w.shape, a.shape) {
		for _, x := range []*Array{a, w} { // sizes unknown: unknown.go's error
			if err := needKnown(name, x); err != nil {
				return errArray(err), errArray(err)
			}
		}
		if axes == nil || len(ax) != 1 {
			return fail("axis must be one axis when the shapes of a and weights %v differ (numpy's TypeError)", w.shape)
		}
		if w.NDim() != 1 || w.shape[0] != a.shape[ax[0]] {
			return fail("weights %v: 1-d weights must be as long as axis %d (numpy's ValueError)", w.shape, ax[0])
		}
		sh := ones(a.NDim())
		sh[ax[0]] = w.shape[0]
		w = w.Reshape(sh...)
	}
	var rd nd.DType
	if a.dtype.IsInteger() || a.dtype.IsBool() {
		rd = nd.ResultType(a.dtype, w.dtype, nd.Float64)
	} else {
		rd = nd.ResultType(a.dtype, w.dtype)
	}
	wt := w.AsType(rd)
	scl := MapBlocks(blockAverageChk, BlockOpts{DType: rd}, wt.Reduce(nd.Sum, ax, ro))
	avg = a.AsType(rd).Mul(wt).Reduce(nd.Sum, ax, ro).Div(scl).AsType(rd)
	if err := avg.Err(); err != nil {
		return errArray(err), errArray(err)
	}
	return avg, Where(Full(avg.Shape(), true, nd.Bool, avg.Chunks()), scl, scl)
}

func equalShapes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
