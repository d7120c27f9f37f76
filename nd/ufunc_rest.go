package nd

import (
	"fmt"
	"math"
	"math/cmplx"
)

// The last numpy elementwise functions dask.array exposes (issue 13,
// "rest"): positive, sinc and i0 (numpy Python functions, computed here
// as one kernel each), spacing, nextafter, and modf and frexp, whose two
// outputs are two operations each (ModfFrac and ModfInt, FrexpMantissa
// and FrexpExponent), so that either output is an ordinary elementwise
// node that fuses. They are numbered from restUnaryBase and
// restBinaryBase, after the ufunc lists of ufunc.go, so that each list
// grows without renumbering the others.
//
// Result dtypes are numpy 1.24's, with the float16 deviation of the
// package note: the float functions of bool, int8 and uint8 give float32.

const restUnaryBase UnaryOp = 128

// The unary operations of this file. String gives numpy's name, with a
// suffix naming the output for the two-output functions.
const (
	Positive      UnaryOp = restUnaryBase + iota // positive: a copy; bools: TypeError
	Sinc                                         // sinc (np.sinc): sin(πx)/(πx), 1 at 0; integers and bools give float64; complex too
	I0                                           // i0 (np.i0): modified Bessel function of order 0 by Cephes' Chebyshev series, as numpy; integers give float64; complex: TypeError
	Spacing                                      // spacing: the distance to the next float away from zero (NaN for ±Inf, NaN); float only
	ModfFrac                                     // modf's first output: the fractional part with x's sign (±0 for ±Inf)
	ModfInt                                      // modf's second output: the integral part
	FrexpMantissa                                // frexp's first output: m in [0.5, 1) with x = m·2**e (x itself for 0, ±Inf, NaN)
	FrexpExponent                                // frexp's second output: e, as int32 (0 for 0, ±Inf, NaN)
	restUnaryEnd
)

var restUnaryNames = [restUnaryEnd - restUnaryBase]string{
	"positive", "sinc", "i0", "spacing", "modf_fractional", "modf_integral", "frexp_mantissa", "frexp_exponent",
}

const restBinaryBase BinaryOp = 128

// The binary operations of this file.
const (
	Nextafter BinaryOp = restBinaryBase + iota // nextafter(x, y): the next float after x towards y, in the result's precision
	Ldexp                                      // ldexp(x, e): x·2**e, the float dtype of x; e an integer (not uint64), as numpy's loops
	restBinaryEnd
)

var restBinaryNames = [restBinaryEnd - restBinaryBase]string{"nextafter", "ldexp"}

func restUnaryName(op UnaryOp) (string, bool) {
	if op >= restUnaryBase && op < restUnaryEnd {
		return restUnaryNames[op-restUnaryBase], true
	}
	return "", false
}

func restBinaryName(op BinaryOp) (string, bool) {
	if op >= restBinaryBase && op < restBinaryEnd {
		return restBinaryNames[op-restBinaryBase], true
	}
	return "", false
}

func parseRestUnary(name string) (UnaryOp, bool) {
	for i, n := range restUnaryNames {
		if n == name {
			return restUnaryBase + UnaryOp(i), true
		}
	}
	return 0, false
}

func parseRestBinary(name string) (BinaryOp, bool) {
	for i, n := range restBinaryNames {
		if n == name {
			return restBinaryBase + BinaryOp(i), true
		}
	}
	return 0, false
}

func restUnaryTypes(op UnaryOp, a DType) (ct, ot DType, err error) {
	if op >= restUnaryEnd {
		return Invalid, Invalid, fmt.Errorf("nd: invalid UnaryOp %d", uint8(op))
	}
	if !a.Valid() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: "invalid dtype"}
	}
	bad := func(reason string) (DType, DType, error) {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: reason}
	}
	switch op {
	case Positive:
		if a == Bool {
			return bad("not supported for booleans")
		}
		return a, a, nil
	case Sinc:
		if a.IsFloat() || a.IsComplex() {
			return a, a, nil
		}
		return Float64, Float64, nil // np.sinc multiplies by the Python float π
	case I0:
		if a.IsComplex() {
			return bad("not supported for complex values")
		}
		if a.IsFloat() {
			return a, a, nil
		}
		return Float64, Float64, nil // np.i0 casts to float
	}
	if a.IsComplex() {
		return bad("not supported for complex numbers")
	}
	f := floatFor(a)
	if op == FrexpExponent {
		return f, Int32, nil
	}
	return f, f, nil
}

func restBinaryTypes(op BinaryOp, a, b DType) (ct, ot DType, err error) {
	if op >= restBinaryEnd {
		return Invalid, Invalid, fmt.Errorf("nd: invalid BinaryOp %d", uint8(op))
	}
	if !a.Valid() || !b.Valid() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a, b}, Reason: "invalid dtype"}
	}
	if promote2(a, b).IsComplex() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a, b}, Reason: "not supported for complex numbers"}
	}
	if op == Ldexp {
		// numpy's loops take x as float16, float32 or float64 and e as
		// int32 or int64: e of a float dtype or uint64 has none. The
		// exponent is computed in x's float dtype (exact up to 2**24 in
		// float32; larger exponents overflow or underflow any float alike).
		if b.IsFloat() || b == Uint64 {
			return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a, b}, Reason: "the exponent must be an integer of at most 64 signed bits"}
		}
		f := floatFor(a)
		return f, f, nil
	}
	// Nextafter: the float loops only, the first both operands cast to
	// safely (as Hypot).
	f := promote2(floatFor(a), floatFor(b))
	return f, f, nil
}

// ---------------------------------------------------------------- unary

// restUnaryDispatch runs op on a, already of the op's computation dtype
// (restUnaryTypes): a float or complex dtype, or any but bool for Positive.
func restUnaryDispatch(op UnaryOp, dst, a *Array) {
	switch a.dtype {
	case Float32:
		floatRestUnary[float32](op, dst, a)
	case Float64:
		floatRestUnary[float64](op, dst, a)
	case Complex64:
		complexRestUnary[complex64](op, dst, a)
	case Complex128:
		complexRestUnary[complex128](op, dst, a)
	case Int8:
		runUnary(copyK[int8], dst, a)
	case Int16:
		runUnary(copyK[int16], dst, a)
	case Int32:
		runUnary(copyK[int32], dst, a)
	case Int64:
		runUnary(copyK[int64], dst, a)
	case Uint8:
		runUnary(copyK[uint8], dst, a)
	case Uint16:
		runUnary(copyK[uint16], dst, a)
	case Uint32:
		runUnary(copyK[uint32], dst, a)
	case Uint64:
		runUnary(copyK[uint64], dst, a)
	default:
		panic("nd: no " + a.dtype.String() + " loop for " + op.String()) // restUnaryTypes never asks
	}
}

func floatRestUnary[T float](op UnaryOp, dst, a *Array) {
	switch op {
	case Positive:
		runUnary(copyK[T], dst, a)
	case Sinc:
		runUnary(mathK[T](sinc), dst, a)
	case I0:
		runUnary(mathK[T](i0), dst, a)
	case Spacing:
		runUnary(spacingK[T], dst, a)
	case ModfFrac:
		runUnary(mathK[T](modfFrac), dst, a)
	case ModfInt:
		runUnary(mathK[T](modfInt), dst, a)
	case FrexpMantissa:
		runUnary(mathK[T](func(x float64) float64 { m, _ := math.Frexp(x); return m }), dst, a)
	case FrexpExponent:
		runUnary(frexpExpK[T], dst, a)
	default:
		panic("nd: no float loop for " + op.String())
	}
}

func complexRestUnary[T complexT](op UnaryOp, dst, a *Array) {
	switch op {
	case Positive:
		runUnary(copyK[T], dst, a)
	case Sinc:
		runUnary(func(d, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = T(csinc(complex128(x[i])))
			}
		}, dst, a)
	default:
		panic("nd: no complex loop for " + op.String())
	}
}

// sinc is np.sinc: sin(πx)/(πx); numpy replaces 0 by 1e-20 first, whose
// quotient is exactly 1.
func sinc(x float64) float64 {
	if x == 0 {
		return 1
	}
	y := math.Pi * x
	return math.Sin(y) / y
}

func csinc(z complex128) complex128 {
	if z == 0 {
		return 1
	}
	y := complex(math.Pi, 0) * z
	return smithDiv(cmplx.Sin(y), y)
}

// i0 is np.i0: numpy's Python implementation of Cephes' i0, e**|x| times a
// Chebyshev series in x/2 - 2 up to 8 and in 32/x - 2 (divided by √x)
// beyond, the same operations in the same order (so i0(±Inf) is NaN, as
// numpy's Inf/Inf).
func i0(x float64) float64 {
	x = math.Abs(x)
	if x <= 8 {
		return math.Exp(x) * chbevl(x/2-2, i0A[:])
	}
	return expWide(x) * chbevl(32/x-2, i0B[:]) / math.Sqrt(x)
}

// expWide is math.Exp, but near the top of its range as the product of
// two exponentials (within 2 ulps): the amd64 assembly of math.Exp
// overflows from about 709.4, below the true limit of 709.78.
func expWide(x float64) float64 {
	if x > 704 && x < 710 {
		return math.Exp(704) * math.Exp(x-704)
	}
	return math.Exp(x)
}

// chbevl sums the Chebyshev series c at x by Clenshaw's recurrence (the
// first coefficient is the highest order's).
func chbevl(x float64, c []float64) float64 {
	b0, b1, b2 := c[0], 0.0, 0.0
	for _, v := range c[1:] {
		b2 = b1
		b1 = b0
		b0 = x*b1 - b2 + v
	}
	return 0.5 * (b0 - b2)
}

// The Chebyshev coefficients of Cephes' i0 (Moshier's table, also numpy's),
// for exp(-x)·I0(x) on [0, 8] and exp(-x)·√x·I0(x) on (8, ∞).
var i0A = [30]float64{
	-4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
	-1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
	-1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
	-1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
	-4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
	-0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
	-0.02373741480589947, 0.04930528423967071, -0.09490109704804764, 0.17162090152220877,
	-0.3046826723431984, 0.6767952744094761,
}

var i0B = [25]float64{
	-7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
	-2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
	-9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
	7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
	1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
	2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
	0.8044904110141088,
}

// modfFrac and modfInt are C's modf: x - trunc(x) with x's sign, and
// trunc(x); ±Inf splits into ±0 and ±Inf (math.Modf gives NaN for the
// fractional part).
func modfFrac(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Copysign(0, x)
	}
	_, f := math.Modf(x)
	return f
}

func modfInt(x float64) float64 {
	i, _ := math.Modf(x)
	return i
}

func frexpExpK[T float](d []int32, a []T) {
	a = a[:len(d)]
	for i := range d {
		_, e := math.Frexp(float64(a[i]))
		d[i] = int32(e)
	}
}

// spacingK is numpy's spacing in T's precision: the next T after x away
// from zero minus x (the smallest positive subnormal for either zero; the
// largest finite value's spacing is Inf); NaN for ±Inf and NaN.
func spacingK[T float](d, a []T) {
	a = a[:len(d)]
	_, f32 := any(T(0)).(float32)
	for i := range d {
		x := a[i]
		switch {
		case x != x || math.IsInf(float64(x), 0):
			d[i] = T(math.NaN())
		case f32:
			v := float32(x)
			if v == 0 {
				d[i] = T(math.Float32frombits(1))
				continue
			}
			d[i] = T(math.Nextafter32(v, float32(math.Copysign(math.Inf(1), float64(v)))) - v)
		default:
			v := float64(x)
			if v == 0 {
				d[i] = T(math.Float64frombits(1))
				continue
			}
			d[i] = T(math.Nextafter(v, math.Copysign(math.Inf(1), v)) - v)
		}
	}
}

// --------------------------------------------------------------- binary

func restBinaryDispatch(op BinaryOp, dst, a, b *Array) {
	if op == Ldexp {
		switch a.dtype {
		case Float32:
			runBinary(ldexpK[float32], dst, a, b)
		case Float64:
			runBinary(ldexpK[float64], dst, a, b)
		default:
			panic("nd: no " + a.dtype.String() + " loop for " + op.String())
		}
		return
	}
	switch a.dtype {
	case Float32:
		runBinary(func(d, x, y []float32) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = y[i] // C's nextafter(x, x) is its second operand (-0 towards +0 is +0)
				if x[i] != y[i] {
					d[i] = math.Nextafter32(x[i], y[i])
				}
			}
		}, dst, a, b)
	case Float64:
		runBinary(func(d, x, y []float64) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = y[i]
				if x[i] != y[i] {
					d[i] = math.Nextafter(x[i], y[i])
				}
			}
		}, dst, a, b)
	default:
		panic("nd: no " + a.dtype.String() + " loop for " + op.String())
	}
}

// ldexpK is x·2**e with one rounding (e, an integer held in T, clamped
// to a range past which every result is 0 or ±Inf alike).
func ldexpK[T float](d, x, e []T) {
	x, e = x[:len(d)], e[:len(d)]
	for i := range d {
		n := max(-4000, min(4000, float64(e[i])))
		d[i] = T(math.Ldexp(float64(x[i]), int(n)))
	}
}
