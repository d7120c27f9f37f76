package chunkarray

import (
	"math"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// The numpy ufuncs beyond the core arithmetic (nd/ufunc.go), lazy and
// elementwise: each is an nd.UnaryOp or nd.BinaryOp node, or a short
// expression of them (Round, Clip, NanToNum, IsClose, Angle), so that
// they fuse with their neighbours as any elementwise operation. Operands
// are *Array, *nd.Array or Go scalars, as for Add; result dtypes are
// numpy 1.24's (the float functions of bool, int8 and uint8 give float32
// where numpy gives float16, which nd has not).

// Floor is np.floor / da.floor: floats (integers give floats); complex: an error.
func Floor(a any) *Array { return Unary(nd.Floor, a) }

// Ceil is np.ceil / da.ceil.
func Ceil(a any) *Array { return Unary(nd.Ceil, a) }

// Trunc is np.trunc / da.trunc.
func Trunc(a any) *Array { return Unary(nd.Trunc, a) }

// Rint is np.rint / da.rint: to the nearest integer, half to even.
func Rint(a any) *Array { return Unary(nd.Rint, a) }

// Sign is np.sign / da.sign: -1, 0 or 1 (NaN for NaN); complex numbers
// take numpy 1.x's rule (the sign of the real part, or of the imaginary
// part when the real part is zero); bools are an error.
func Sign(a any) *Array { return Unary(nd.Sign, a) }

// Reciprocal is np.reciprocal / da.reciprocal: integers stay integers (1/x truncated).
func Reciprocal(a any) *Array { return Unary(nd.Reciprocal, a) }

// Cbrt is np.cbrt / da.cbrt.
func Cbrt(a any) *Array { return Unary(nd.Cbrt, a) }

// Log10 is np.log10 / da.log10.
func Log10(a any) *Array { return Unary(nd.Log10, a) }

// Log2 is np.log2 / da.log2.
func Log2(a any) *Array { return Unary(nd.Log2, a) }

// Log1p is np.log1p / da.log1p.
func Log1p(a any) *Array { return Unary(nd.Log1p, a) }

// Expm1 is np.expm1 / da.expm1.
func Expm1(a any) *Array { return Unary(nd.Expm1, a) }

// Exp2 is np.exp2 / da.exp2.
func Exp2(a any) *Array { return Unary(nd.Exp2, a) }

// Sinh is np.sinh / da.sinh.
func Sinh(a any) *Array { return Unary(nd.Sinh, a) }

// Cosh is np.cosh / da.cosh.
func Cosh(a any) *Array { return Unary(nd.Cosh, a) }

// Tanh is np.tanh / da.tanh.
func Tanh(a any) *Array { return Unary(nd.Tanh, a) }

// Arcsin is np.arcsin / da.arcsin.
func Arcsin(a any) *Array { return Unary(nd.Arcsin, a) }

// Arccos is np.arccos / da.arccos.
func Arccos(a any) *Array { return Unary(nd.Arccos, a) }

// Arctan is np.arctan / da.arctan.
func Arctan(a any) *Array { return Unary(nd.Arctan, a) }

// Arcsinh is np.arcsinh / da.arcsinh.
func Arcsinh(a any) *Array { return Unary(nd.Arcsinh, a) }

// Arccosh is np.arccosh / da.arccosh.
func Arccosh(a any) *Array { return Unary(nd.Arccosh, a) }

// Arctanh is np.arctanh / da.arctanh.
func Arctanh(a any) *Array { return Unary(nd.Arctanh, a) }

// Deg2Rad is np.deg2rad / da.deg2rad (also np.radians).
func Deg2Rad(a any) *Array { return Unary(nd.Deg2Rad, a) }

// Rad2Deg is np.rad2deg / da.rad2deg (also np.degrees).
func Rad2Deg(a any) *Array { return Unary(nd.Rad2Deg, a) }

// Conj is np.conjugate / da.conj: bools give int8, as numpy.
func Conj(a any) *Array { return Unary(nd.Conj, a) }

// Fabs is np.fabs / da.fabs: the absolute value of reals as floats
// (integers give floats); complex numbers are an error (use Abs).
func Fabs(a any) *Array { return Unary(nd.Fabs, a) }

// Real is np.real / da.real: the real part, a float dtype for complex
// arrays, the array's own values otherwise.
func Real(a any) *Array { return Unary(nd.RealPart, a) }

// Imag is np.imag / da.imag: the imaginary part, zeros of the array's
// dtype for a non-complex array.
func Imag(a any) *Array { return Unary(nd.ImagPart, a) }

// IsNaN is np.isnan / da.isnan.
func IsNaN(a any) *Array { return Unary(nd.IsNaN, a) }

// IsInf is np.isinf / da.isinf.
func IsInf(a any) *Array { return Unary(nd.IsInf, a) }

// IsFinite is np.isfinite / da.isfinite.
func IsFinite(a any) *Array { return Unary(nd.IsFinite, a) }

// IsPosInf is np.isposinf / da.isposinf (complex: an error, as numpy).
func IsPosInf(a any) *Array { return Unary(nd.IsPosInf, a) }

// IsNegInf is np.isneginf / da.isneginf.
func IsNegInf(a any) *Array { return Unary(nd.IsNegInf, a) }

// Signbit is np.signbit / da.signbit.
func Signbit(a any) *Array { return Unary(nd.Signbit, a) }

// Invert is np.invert (np.bitwise_not) / da.invert: integers and bools.
func Invert(a any) *Array { return Unary(nd.Invert, a) }

// Hypot is np.hypot / da.hypot.
func Hypot(a, b any) *Array { return Binary(nd.Hypot, a, b) }

// Fmod is np.fmod / da.fmod: C's remainder, with the dividend's sign
// (integer x fmod 0 is 0, as numpy's value).
func Fmod(a, b any) *Array { return Binary(nd.Fmod, a, b) }

// Fmax is np.fmax / da.fmax: the larger, a NaN ignored beside a number.
func Fmax(a, b any) *Array { return Binary(nd.Fmax, a, b) }

// Fmin is np.fmin / da.fmin.
func Fmin(a, b any) *Array { return Binary(nd.Fmin, a, b) }

// Copysign is np.copysign / da.copysign.
func Copysign(a, b any) *Array { return Binary(nd.Copysign, a, b) }

// Heaviside is np.heaviside / da.heaviside: 0 below zero, h0 at zero, 1 above.
func Heaviside(x, h0 any) *Array { return Binary(nd.Heaviside, x, h0) }

// Logaddexp is np.logaddexp / da.logaddexp.
func Logaddexp(a, b any) *Array { return Binary(nd.Logaddexp, a, b) }

// Logaddexp2 is np.logaddexp2 / da.logaddexp2.
func Logaddexp2(a, b any) *Array { return Binary(nd.Logaddexp2, a, b) }

// BitwiseAnd is np.bitwise_and / da.bitwise_and: integers and bools.
func BitwiseAnd(a, b any) *Array { return Binary(nd.BitwiseAnd, a, b) }

// BitwiseOr is np.bitwise_or / da.bitwise_or.
func BitwiseOr(a, b any) *Array { return Binary(nd.BitwiseOr, a, b) }

// BitwiseXor is np.bitwise_xor / da.bitwise_xor.
func BitwiseXor(a, b any) *Array { return Binary(nd.BitwiseXor, a, b) }

// LeftShift is np.left_shift / da.left_shift: a count past the width gives 0.
func LeftShift(a, b any) *Array { return Binary(nd.LeftShift, a, b) }

// RightShift is np.right_shift / da.right_shift: arithmetic on signed types.
func RightShift(a, b any) *Array { return Binary(nd.RightShift, a, b) }

// ufuncOperand returns v as an Array: itself, an *nd.Array cut into one chunk
// per axis, or a Go scalar as a 0-d Array of the scalar's dtype.
func ufuncOperand(opName string, v any) *Array {
	o, err := toOperand(opName, v)
	if err != nil {
		return errArray(err)
	}
	if o.arr != nil {
		return o.arr
	}
	return elemwise(opName, kCast, 0, o.sc.D, v)
}

// Round is np.round (np.around) / da.round: half to even, to decimals
// places (negative: to tens, hundreds, ...), in numpy's arithmetic: x
// times 10**decimals, cast back to x's dtype, rounded, divided and cast
// again (so float32 rounds in float32); decimals 0 is Rint; integers are
// returned as they are for decimals >= 0 and rounded through float64
// otherwise; complex numbers have both parts rounded; bools are an error
// (numpy's UFuncTypeError) but for decimals 0.
func Round(a any, decimals int) *Array {
	const name = "round"
	x := ufuncOperand(name, a)
	if x.err != nil {
		return x
	}
	d := x.dtype
	switch {
	case d.IsInteger() && decimals >= 0:
		return x
	case decimals == 0:
		return x.Rint() // bools too (float32 here, float16 in numpy)
	case d == nd.Bool:
		return errArray(&Error{Op: name, Reason: "bool arrays cannot be rounded to decimals other than 0 (numpy: cannot cast the float64 output to bool)", Err: &nd.TypeError{Op: name, DTypes: []nd.DType{d}, Reason: "not supported for booleans"}})
	case d.IsInteger():
		f := math.Pow10(-decimals)
		return Div(x, f).Rint().Mul(f).AsType(d)
	case decimals >= 0:
		f := math.Pow10(decimals)
		return Div(x.Mul(f).AsType(d).Rint(), f).AsType(d)
	}
	f := math.Pow10(-decimals)
	return Div(x, f).AsType(d).Rint().Mul(f).AsType(d)
}

// Around is np.around: Round.
func Around(a any, decimals int) *Array { return Round(a, decimals) }

// Clip is np.clip / da.clip: min(max(a, lo), hi), either bound nil for
// none (both nil is an error, as numpy's ValueError); NaN propagates as in
// np.minimum and np.maximum. The dtype is numpy's result type of a, lo
// and hi.
func Clip(a, lo, hi any) *Array {
	const name = "clip"
	if lo == nil && hi == nil {
		return errorf(name, nil, "one of max or min must be given")
	}
	x := ufuncOperand(name, a)
	if lo != nil {
		x = Maximum(x, lo)
	}
	if hi != nil {
		x = Minimum(x, hi)
	}
	return x
}

// NanToNumOpts are np.nan_to_num's replacements: Nan for NaN (0 by
// default), PosInf and NegInf for the infinities (nil: the largest and
// most negative finite value of the dtype).
type NanToNumOpts struct {
	Nan            float64
	PosInf, NegInf *float64
}

// NanToNum is np.nan_to_num / da.nan_to_num: NaN and the infinities of a
// float array replaced by finite numbers, in the real and the imaginary
// parts of a complex one; integer and bool arrays are returned as they
// are. The dtype is a's (a replacement too large for float32 becomes an
// infinity there, as numpy's assignment). With numpy's defaults it is one
// elementwise operation; other replacements are an expression that uses
// a several times, so that a (when it is an expression itself) is
// computed as blocks of its own instead of fusing with it.
func NanToNum(a any, o NanToNumOpts) *Array {
	const name = "nan_to_num"
	x := ufuncOperand(name, a)
	if x.err != nil {
		return x
	}
	if o.Nan == 0 && !math.Signbit(o.Nan) && o.PosInf == nil && o.NegInf == nil {
		return Unary(nd.NanToNum, x) // numpy's defaults: one operation
	}
	switch d := x.dtype; {
	case d.IsComplex():
		return Binary(nd.Complex, NanToNum(x.Real(), o), NanToNum(x.Imag(), o))
	case d.IsFloat():
		big := math.MaxFloat64
		if d == nd.Float32 {
			big = math.MaxFloat32
		}
		pos, neg := big, -big
		if o.PosInf != nil {
			pos = *o.PosInf
		}
		if o.NegInf != nil {
			neg = *o.NegInf
		}
		r := Where(x.IsNaN(), o.Nan, x)
		r = Where(x.IsPosInf(), pos, r)
		r = Where(x.IsNegInf(), neg, r)
		return r.AsType(d)
	}
	return x
}

// IsCloseOpts are np.isclose's tolerances: |a - b| <= Atol + Rtol·|b|,
// and EqualNaN to count NaN as equal to NaN.
type IsCloseOpts struct {
	Rtol, Atol float64
	EqualNaN   bool
}

// DefaultIsClose is numpy's default: rtol 1e-5, atol 1e-8.
var DefaultIsClose = IsCloseOpts{Rtol: 1e-5, Atol: 1e-8}

// IsClose is np.isclose / da.isclose: elementwise |a - b| <= atol +
// rtol·|b| where both are finite, equality elsewhere (an infinity is
// close only to itself), NaN close to NaN with EqualNaN; b is made
// inexact first (numpy's result_type(b, 1.0)). Without opts it uses
// DefaultIsClose. A bool Array of the broadcast shape.
func IsClose(a, b any, opts ...IsCloseOpts) *Array {
	const name = "isclose"
	o := DefaultIsClose
	if len(opts) > 0 {
		o = opts[0]
	}
	x, y := ufuncOperand(name, a), ufuncOperand(name, b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	if y.dtype.IsInteger() || y.dtype == nd.Bool {
		y = y.AsType(nd.Float64)
	}
	within := x.Sub(y).Abs().LessEqual(Add(o.Atol, Mul(o.Rtol, y.Abs())))
	r := Where(LogicalAnd(x.IsFinite(), y.IsFinite()), within, x.Equal(y))
	if o.EqualNaN {
		r = r.LogicalOr(LogicalAnd(x.IsNaN(), y.IsNaN()))
	}
	return r
}

// AllClose is np.allclose / da.allclose: IsClose(a, b, opts...).All(),
// a lazy 0-d bool.
func AllClose(a, b any, opts ...IsCloseOpts) *Array {
	return IsClose(a, b, opts...).All()
}

// ArrayEqual is np.array_equal / da.array_equal (dask computes it; here
// it stays lazy): a 0-d bool, true when a and b have the same shape and
// elements; with equalNaN, NaN equals NaN (for complex numbers, a NaN in
// either part). Arrays of different shapes give false without computing.
func ArrayEqual(a, b any, equalNaN bool) *Array {
	const name = "array_equal"
	x, y := ufuncOperand(name, a), ufuncOperand(name, b)
	if x.err != nil {
		return x
	}
	if y.err != nil {
		return y
	}
	if !slices.Equal(x.shape, y.shape) {
		return Full([]int{}, false, nd.Bool, nil)
	}
	eq := x.Equal(y)
	if equalNaN {
		eq = eq.LogicalOr(LogicalAnd(x.IsNaN(), y.IsNaN()))
	}
	return eq.All()
}

// Angle is np.angle / da.angle: the argument of complex numbers
// (arctan2(imag, real)), 0 or π for real ones (arctan2(0, x)); in degrees
// with deg.
func Angle(z any, deg bool) *Array {
	const name = "angle"
	x := ufuncOperand(name, z)
	if x.err != nil {
		return x
	}
	var r *Array
	if x.dtype.IsComplex() {
		r = Arctan2(x.Imag(), x.Real())
	} else {
		r = Arctan2(0, x)
	}
	if deg {
		r = r.Mul(180 / math.Pi)
	}
	return r
}

// The methods, for chaining.

func (a *Array) Floor() *Array             { return Floor(a) }
func (a *Array) Ceil() *Array              { return Ceil(a) }
func (a *Array) Trunc() *Array             { return Trunc(a) }
func (a *Array) Rint() *Array              { return Rint(a) }
func (a *Array) Sign() *Array              { return Sign(a) }
func (a *Array) Reciprocal() *Array        { return Reciprocal(a) }
func (a *Array) Conj() *Array              { return Conj(a) }
func (a *Array) Real() *Array              { return Real(a) }
func (a *Array) Imag() *Array              { return Imag(a) }
func (a *Array) IsNaN() *Array             { return IsNaN(a) }
func (a *Array) IsInf() *Array             { return IsInf(a) }
func (a *Array) IsFinite() *Array          { return IsFinite(a) }
func (a *Array) IsPosInf() *Array          { return IsPosInf(a) }
func (a *Array) IsNegInf() *Array          { return IsNegInf(a) }
func (a *Array) Round(decimals int) *Array { return Round(a, decimals) }
func (a *Array) Clip(lo, hi any) *Array    { return Clip(a, lo, hi) }
