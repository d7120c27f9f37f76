package chunkarray

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// The last dask.array functions of issue 13's list ("rest"): elementwise
// ones (positive, sinc, i0, spacing, nextafter; modf, frexp and divmod with
// two outputs; float_power; the predicates notnull, iscomplex, isreal),
// each an nd elementwise operation or a short expression of them, so that
// they fuse with their neighbours; and extract and union1d, whose lengths
// depend on the data. Operands are *Array, *nd.Array or Go scalars, as for
// Add. The .npy stacks (to_npy_stack, from_npy_stack) are in npystack.go.

// Positive is np.positive / da.positive: a's values (bools are an error, as
// numpy's). Lazy arrays are immutable, so an Array operand is returned as
// it is.
func Positive(a any) *Array {
	x := ufuncOperand("positive", a)
	if x.err != nil {
		return x
	}
	if _, err := nd.UnaryResultType(nd.Positive, x.dtype); err != nil {
		return errArray(&Error{Op: "positive", Reason: err.Error(), Err: err})
	}
	return x
}

// NotNull is da.notnull (pandas.notnull): true where a is not NaN (a
// complex number is null when either part is NaN); integers and bools
// are never null. It is LogicalNot(IsNaN(a)), fused.
func NotNull(a any) *Array { return LogicalNot(IsNaN(a)) }

// IsComplex is np.iscomplex / da.iscomplex: true where the imaginary part
// is not zero (NaN included); false everywhere for non-complex dtypes.
func IsComplex(a any) *Array { return NotEqual(Imag(a), 0) }

// IsReal is np.isreal / da.isreal: true where the imaginary part is zero;
// true everywhere for non-complex dtypes.
func IsReal(a any) *Array { return Equal(Imag(a), 0) }

// Sinc is np.sinc / da.sinc: sin(πx)/(πx), 1 at 0; float32, float64 and
// complex arrays keep their dtype, integers and bools give float64.
func Sinc(a any) *Array { return Unary(nd.Sinc, a) }

// I0 is np.i0 / da.i0: the modified Bessel function of the first kind of
// order 0, by numpy's Chebyshev series (Cephes'); float32 stays float32,
// integers and bools give float64, complex numbers are an error; i0(±Inf)
// is NaN, as numpy's.
func I0(a any) *Array { return Unary(nd.I0, a) }

// Spacing is np.spacing / da.spacing: the distance from x to the next
// float of its dtype away from zero (the smallest subnormal for ±0); NaN
// for ±Inf and NaN.
func Spacing(a any) *Array { return Unary(nd.Spacing, a) }

// Nextafter is np.nextafter / da.nextafter: the next float after x towards
// y, in the result dtype's precision.
func Nextafter(x, y any) *Array { return Binary(nd.Nextafter, x, y) }

// Ldexp is np.ldexp / da.ldexp: x·2**e, in x's float dtype (integers of
// up to 2 bytes give float32, wider ones float64); e must be an integer
// dtype (not uint64), as numpy's loops; a Go integer exponent is taken by
// its value (numpy's value-based casting: ldexp(float32 array, 2**40) is
// float32), one past int64 is an error.
func Ldexp(x, e any) *Array {
	var v int64
	switch n := e.(type) {
	case int:
		v = int64(n)
	case int8:
		v = int64(n)
	case int16:
		v = int64(n)
	case int32:
		v = int64(n)
	case int64:
		v = n
	case uint:
		return Ldexp(x, uint64(n))
	case uint8:
		v = int64(n)
	case uint16:
		v = int64(n)
	case uint32:
		v = int64(n)
	case uint64:
		if n > math.MaxInt64 {
			return errorf("ldexp", nil, "exponent %d does not fit int64", n)
		}
		v = int64(n)
	default:
		return Binary(nd.Ldexp, x, e)
	}
	// Past ±4000 every float32 or float64 result is 0, ±Inf or NaN alike:
	// clamped, the exponent is a small integer whatever its Go type.
	return Binary(nd.Ldexp, x, max(-4000, min(4000, v)))
}

// Modf is np.modf / da.modf: the fractional and the integral parts of a,
// both with a's sign (modf(-Inf) is (-0, -Inf)). The two results are two
// elementwise operations on a; computed together (Compute of both, or in
// one graph), a's blocks are shared unless a fuses into each.
func Modf(a any) (frac, integral *Array) {
	x := ufuncOperand("modf", a)
	return Unary(nd.ModfFrac, x), Unary(nd.ModfInt, x)
}

// Frexp is np.frexp / da.frexp: the mantissa, in [0.5, 1) in magnitude (a
// float dtype), and the int32 exponent of a, with a = mantissa·2**exponent
// (0, ±Inf and NaN have exponent 0 and themselves as mantissa).
func Frexp(a any) (mantissa, exponent *Array) {
	x := ufuncOperand("frexp", a)
	return Unary(nd.FrexpMantissa, x), Unary(nd.FrexpExponent, x)
}

// Divmod is np.divmod / da.divmod: FloorDiv(a, b) and Mod(a, b), numpy's
// dtypes (complex numbers are an error).
func Divmod(a, b any) (quotient, remainder *Array) {
	return FloorDiv(a, b), Mod(a, b)
}

// FloatPower is np.float_power / da.float_power: a**b computed in float64,
// or in complex128 when either operand is complex (numpy's only loops), so
// that negative integer exponents are fine.
func FloatPower(a, b any) *Array {
	const name = "float_power"
	x, y := ufuncOperand(name, a), ufuncOperand(name, b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	d := nd.Float64
	if x.dtype.IsComplex() || y.dtype.IsComplex() {
		d = nd.Complex128
	}
	return Pow(x.AsType(d), y.AsType(d))
}

// Extract is np.extract / da.extract: the elements of arr (flattened)
// where condition (flattened, as bools) is true, in C order. The result's
// length is Unknown until computed. A condition shorter than arr selects
// among arr's first elements, as numpy's; a longer one is an error (numpy
// accepts one whose extra elements are false; Dask refuses it, as here).
func Extract(condition, arr any) *Array {
	const name = "extract"
	c, x := ufuncOperand(name, condition), ufuncOperand(name, arr)
	if c.err != nil {
		return c
	}
	if x.err != nil {
		return x
	}
	if err := needKnown(name, c); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, x); err != nil {
		return errArray(err)
	}
	c = c.AsType(nd.Bool).Ravel()
	x = x.Ravel()
	nc, nx := c.Size(), x.Size()
	switch {
	case nc > nx:
		return errorf(name, [][]int{c.shape, x.shape}, "condition has %d elements, arr %d: a longer condition cannot be checked lazily", nc, nx)
	case nc < nx:
		x = x.Index(Range(0, nc))
	}
	return x.Index(Mask(c))
}

// Union1D is np.union1d / da.union1d: the sorted unique values of a and b
// together (both flattened, their dtypes promoted), of Unknown length
// until computed.
func Union1D(a, b any) *Array {
	const name = "union1d"
	x, y := ufuncOperand(name, a), ufuncOperand(name, b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	return Concatenate([]*Array{x.Ravel(), y.Ravel()}, 0).Unique(UniqueOpts{}).Values
}

// Moment is da.moment: the order-th central moment of a over axes (nil:
// all), the sum of (a - mean)**order divided by n - o.Ddof, n the count of
// the reduced elements (o.Keepdims and o.SplitEvery as for Reduce; a
// zero divisor gives Inf or NaN, as numpy's division). It is computed in
// two passes, the mean (kept as an axis of length 1) then the sum of the
// powers of the deviations, in the dtype numpy's var gives (float64 for
// integers and bools, float32 for float32); Dask combines per-chunk
// central moments instead, which agrees within rounding. Orders 0 and 1
// are 1 and 0 by definition (float64, without Keepdims, as Dask's);
// a negative order and complex arrays (whose result dtype Dask leaves
// inconsistent) are errors.
func Moment(a *Array, order int, axes []int, o ReduceOpts) *Array {
	const name = "moment"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if order < 0 {
		return errorf(name, [][]int{a.shape}, "order must be an integer >= 0, not %d", order)
	}
	if a.dtype.IsComplex() {
		return errorf(name, [][]int{a.shape}, "complex arrays are not supported")
	}
	if err := needKnown(name, a); err != nil {
		return errArray(err)
	}
	so := ReduceOpts{SplitEvery: o.SplitEvery}
	if order < 2 {
		r := a.Reduce(nd.Sum, axes, so) // the reduced shape and chunks
		if r.err != nil {
			return r
		}
		return FullLike(r, 1-order, nd.Float64)
	}
	sum := a.Reduce(nd.Sum, axes, so)
	if sum.err != nil {
		return sum
	}
	n := a.Size() / max(1, sum.Size())
	if sum.Size() == 0 { // an empty result: the count of one output element
		n = 1
		for i, s := range a.shape {
			if axes == nil || slices.Contains(axes, i) || slices.Contains(axes, i-a.NDim()) {
				n *= s
			}
		}
	}
	mu := a.Reduce(nd.Mean, axes, ReduceOpts{Keepdims: true, SplitEvery: o.SplitEvery})
	d := a.Sub(mu)
	if d.dtype != mu.dtype {
		d = d.AsType(mu.dtype)
	}
	so.Keepdims = o.Keepdims
	return d.Pow(order).Reduce(nd.Sum, axes, so).Div(float64(n - o.Ddof))
}
