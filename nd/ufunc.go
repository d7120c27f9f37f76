package nd

import (
	"fmt"
	"math"
	"math/cmplx"
)

// The numpy ufuncs beyond the core arithmetic of elementwise.go: rounding,
// the remaining transcendental functions, classification (isnan, ...),
// complex parts, bitwise operations and the binary float functions
// (hypot, fmod, fmax, ...). They are numbered from ufuncUnaryBase and
// ufuncBinaryBase, apart from the core operations, so that either list
// can grow without renumbering the other; UnaryOp and BinaryOp values are
// used alike whichever list they come from (Unary, UnaryInto, the lazy
// evaluators).
//
// Result dtypes follow numpy 1.24 for the twelve dtypes, with one
// deviation shared with the core operations: numpy computes the float
// functions of bool, int8 and uint8 in float16, which nd has not; they
// give float32 here (floatFor). Float32 results are computed in float64
// and rounded (within an ulp of numpy's float32 loops).

const ufuncUnaryBase UnaryOp = 64

// The ufunc unary operations. String gives numpy's name.
const (
	Floor      UnaryOp = ufuncUnaryBase + iota // floor: float only (complex: TypeError); integers give floats
	Ceil                                       // ceil
	Trunc                                      // trunc
	Rint                                       // rint: half to even; complex: both parts
	Sign                                       // sign: bools: TypeError; complex: numpy 1.x's sign of the first non-zero part
	Reciprocal                                 // reciprocal: integers in integer arithmetic (1/0 as numpy on x86)
	Cbrt                                       // cbrt: float only
	Log10                                      // log10
	Log2                                       // log2
	Log1p                                      // log1p
	Expm1                                      // expm1
	Exp2                                       // exp2
	Sinh                                       // sinh
	Cosh                                       // cosh
	Tanh                                       // tanh
	Arcsin                                     // arcsin
	Arccos                                     // arccos
	Arctan                                     // arctan
	Arcsinh                                    // arcsinh
	Arccosh                                    // arccosh
	Arctanh                                    // arctanh
	Deg2Rad                                    // deg2rad: float only
	Rad2Deg                                    // rad2deg: float only
	Conj                                       // conjugate: bools give int8
	IsNaN                                      // isnan: bool result
	IsInf                                      // isinf
	IsFinite                                   // isfinite
	Signbit                                    // signbit: not for complex
	Invert                                     // invert (bitwise not): integers and bools only
	RealPart                                   // real part (np.real): complex gives its float dtype, others themselves
	ImagPart                                   // imaginary part (np.imag): zeros of the dtype for non-complex
	IsPosInf                                   // isposinf (a numpy function): not for complex
	IsNegInf                                   // isneginf
	Fabs                                       // fabs: float only (complex: TypeError); integers give floats
	NanToNum                                   // nan_to_num with numpy's defaults: NaN 0, ±Inf the extreme finite values, complex parts each; others unchanged
	ufuncUnaryEnd
)

var ufuncUnaryNames = [ufuncUnaryEnd - ufuncUnaryBase]string{
	"floor", "ceil", "trunc", "rint", "sign", "reciprocal", "cbrt", "log10", "log2",
	"log1p", "expm1", "exp2", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
	"arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "conjugate", "isnan", "isinf",
	"isfinite", "signbit", "invert", "real", "imag", "isposinf", "isneginf", "fabs",
	"nan_to_num",
}

const ufuncBinaryBase BinaryOp = 64

// The ufunc binary operations. String gives numpy's name.
const (
	Hypot      BinaryOp = ufuncBinaryBase + iota // hypot: float only
	Fmod                                         // fmod: C's fmod, the dividend's sign; integer x fmod 0 is 0
	Fmax                                         // fmax: NaN ignored unless both are
	Fmin                                         // fmin
	Copysign                                     // copysign: float only
	Heaviside                                    // heaviside(x, h0): 0, h0 or 1; float only
	Logaddexp                                    // logaddexp: log(exp(a) + exp(b)); float only
	Logaddexp2                                   // logaddexp2: log2(2**a + 2**b)
	BitwiseAnd                                   // bitwise_and: integers and bools only
	BitwiseOr                                    // bitwise_or
	BitwiseXor                                   // bitwise_xor
	LeftShift                                    // left_shift: integers only (bools give int8); shifts past the width give 0
	RightShift                                   // right_shift: arithmetic for signed types
	Complex                                      // complex(re, im): not a numpy ufunc; re + im·1j exactly (signed zeros kept), floats only
	ufuncBinaryEnd
)

var ufuncBinaryNames = [ufuncBinaryEnd - ufuncBinaryBase]string{
	"hypot", "fmod", "fmax", "fmin", "copysign", "heaviside", "logaddexp", "logaddexp2",
	"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "complex",
}

func ufuncUnaryName(op UnaryOp) (string, bool) {
	if op >= restUnaryBase {
		return restUnaryName(op) // ufunc_rest.go
	}
	if op >= ufuncUnaryBase && op < ufuncUnaryEnd {
		return ufuncUnaryNames[op-ufuncUnaryBase], true
	}
	return "", false
}

func ufuncBinaryName(op BinaryOp) (string, bool) {
	if op >= restBinaryBase {
		return restBinaryName(op) // ufunc_rest.go
	}
	if op >= ufuncBinaryBase && op < ufuncBinaryEnd {
		return ufuncBinaryNames[op-ufuncBinaryBase], true
	}
	return "", false
}

func parseUfuncUnary(name string) (UnaryOp, bool) {
	for i, n := range ufuncUnaryNames {
		if n == name {
			return ufuncUnaryBase + UnaryOp(i), true
		}
	}
	if op, ok := parseRestUnary(name); ok { // ufunc_rest.go
		return op, true
	}
	switch name {
	case "conj":
		return Conj, true
	case "bitwise_not":
		return Invert, true
	}
	return 0, false
}

func parseUfuncBinary(name string) (BinaryOp, bool) {
	for i, n := range ufuncBinaryNames {
		if n == name {
			return ufuncBinaryBase + BinaryOp(i), true
		}
	}
	return parseRestBinary(name) // ufunc_rest.go
}

// linearUfunc reports whether numpy picks op's loop by its linear search
// (the rule binaryEffective applies to floor_divide, remainder and power):
// uint8 array & 256 is int16 where uint8 array + 256 is uint16.
func linearUfunc(op BinaryOp) bool {
	switch op {
	case Fmod, BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift, RightShift:
		return true
	}
	return false
}

func ufuncUnaryTypes(op UnaryOp, a DType) (ct, ot DType, err error) {
	if op >= restUnaryBase {
		return restUnaryTypes(op, a) // ufunc_rest.go
	}
	if op >= ufuncUnaryEnd {
		return Invalid, Invalid, fmt.Errorf("nd: invalid UnaryOp %d", uint8(op))
	}
	if !a.Valid() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: "invalid dtype"}
	}
	bad := func(reason string) (DType, DType, error) {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: reason}
	}
	switch op {
	case Floor, Ceil, Trunc, Cbrt, Deg2Rad, Rad2Deg, Fabs:
		if a.IsComplex() {
			return bad("not supported for complex numbers")
		}
		f := floatFor(a)
		return f, f, nil
	case Sign:
		if a == Bool {
			return bad("not supported for booleans")
		}
		return a, a, nil
	case NanToNum:
		return a, a, nil
	case Reciprocal, Conj:
		if a == Bool {
			return Int8, Int8, nil
		}
		return a, a, nil
	case IsNaN, IsInf, IsFinite:
		return a, Bool, nil
	case Signbit, IsPosInf, IsNegInf:
		if a.IsComplex() {
			return bad("not supported for complex numbers")
		}
		return a, Bool, nil
	case Invert:
		if a.IsFloat() || a.IsComplex() {
			return bad("not supported for floating point and complex numbers")
		}
		return a, a, nil
	case RealPart, ImagPart:
		switch a {
		case Complex64:
			return a, Float32, nil
		case Complex128:
			return a, Float64, nil
		}
		return a, a, nil
	}
	f := floatFor(a) // the float and complex functions
	return f, f, nil
}

func ufuncBinaryTypes(op BinaryOp, a, b DType) (ct, ot DType, err error) {
	if op >= restBinaryBase {
		return restBinaryTypes(op, a, b) // ufunc_rest.go
	}
	if op >= ufuncBinaryEnd {
		return Invalid, Invalid, fmt.Errorf("nd: invalid BinaryOp %d", uint8(op))
	}
	if !a.Valid() || !b.Valid() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a, b}, Reason: "invalid dtype"}
	}
	r := promote2(a, b)
	bad := func(reason string) (DType, DType, error) {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a, b}, Reason: reason}
	}
	switch op {
	case Fmax, Fmin:
		return r, r, nil
	case Fmod:
		if r.IsComplex() {
			return bad("not supported for complex numbers")
		}
		if r == Bool {
			return Int8, Int8, nil
		}
		return r, r, nil
	case BitwiseAnd, BitwiseOr, BitwiseXor:
		if r.IsFloat() || r.IsComplex() {
			return bad("not supported for floating point and complex numbers")
		}
		return r, r, nil
	case LeftShift, RightShift:
		if r.IsFloat() || r.IsComplex() {
			return bad("not supported for floating point and complex numbers")
		}
		if r == Bool {
			return Int8, Int8, nil
		}
		return r, r, nil
	case Complex:
		if r.IsComplex() {
			return bad("the parts must be real")
		}
		f := promote2(floatFor(a), floatFor(b))
		if f == Float32 {
			return f, Complex64, nil
		}
		return f, Complex128, nil
	}
	// Hypot, Copysign, Heaviside, Logaddexp, Logaddexp2: float loops only,
	// the first both operands cast to safely (as Arctan2).
	if r.IsComplex() {
		return bad("not supported for complex numbers")
	}
	f := promote2(floatFor(a), floatFor(b))
	return f, f, nil
}

// ---------------------------------------------------------------- unary

func ufuncUnaryDispatch(op UnaryOp, dst, a *Array) {
	if op >= restUnaryBase {
		restUnaryDispatch(op, dst, a) // ufunc_rest.go
		return
	}
	switch a.dtype {
	case Bool:
		boolUfuncUnary(op, dst, a)
	case Int8:
		intUfuncUnary[int8](op, dst, a)
	case Int16:
		intUfuncUnary[int16](op, dst, a)
	case Int32:
		intUfuncUnary[int32](op, dst, a)
	case Int64:
		intUfuncUnary[int64](op, dst, a)
	case Uint8:
		intUfuncUnary[uint8](op, dst, a)
	case Uint16:
		intUfuncUnary[uint16](op, dst, a)
	case Uint32:
		intUfuncUnary[uint32](op, dst, a)
	case Uint64:
		intUfuncUnary[uint64](op, dst, a)
	case Float32:
		floatUfuncUnary[float32](op, dst, a)
	case Float64:
		floatUfuncUnary[float64](op, dst, a)
	case Complex64:
		complexUfuncUnary[complex64, float32](op, dst, a)
	case Complex128:
		complexUfuncUnary[complex128, float64](op, dst, a)
	}
}

func boolUfuncUnary(op UnaryOp, dst, a *Array) {
	switch op {
	case IsNaN, IsInf, Signbit, IsPosInf, IsNegInf:
		runUnary(constBoolK[bool](false), dst, a)
	case IsFinite:
		runUnary(constBoolK[bool](true), dst, a)
	case Invert:
		runUnary(notK, dst, a)
	case RealPart, NanToNum:
		runUnary(copyK[bool], dst, a)
	case ImagPart:
		runUnary(constBoolK[bool](false), dst, a)
	default:
		panic("nd: no bool loop for " + op.String()) // ufuncUnaryTypes never asks
	}
}

func constBoolK[T any](v bool) func(d []bool, a []T) {
	return func(d []bool, _ []T) {
		for i := range d {
			d[i] = v
		}
	}
}

func intUfuncUnary[T integer](op UnaryOp, dst, a *Array) {
	switch op {
	case IsNaN, IsInf, IsPosInf, IsNegInf:
		runUnary(constBoolK[T](false), dst, a)
	case IsFinite:
		runUnary(constBoolK[T](true), dst, a)
	case Signbit:
		runUnary(func(d []bool, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = x[i] < 0
			}
		}, dst, a)
	case Sign:
		runUnary(signIntK[T], dst, a)
	case Reciprocal:
		runUnary(reciprocalIntK[T], dst, a)
	case Conj, RealPart, NanToNum:
		runUnary(copyK[T], dst, a)
	case ImagPart:
		runUnary(zeroK[T], dst, a)
	case Invert:
		runUnary(invertK[T], dst, a)
	default:
		panic("nd: no integer loop for " + op.String())
	}
}

func zeroK[T any](d, _ []T) { clear(d) }

func invertK[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = ^a[i]
	}
}

func signIntK[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		x := a[i]
		switch {
		case x > 0:
			d[i] = 1
		case x < 0:
			d[i] = 0
			d[i]-- // -1 (never reached for unsigned types)
		default:
			d[i] = 0
		}
	}
}

// reciprocalIntK is numpy's integer reciprocal: 1.0/x truncated to the
// type, so 1 for 1, -1 for -1 and 0 for other values; 1/0 is infinity cast
// as an x86 build of numpy casts it: the most negative value for int32
// and int64, 0 for the other types.
func reciprocalIntK[T integer](d, a []T) {
	a = a[:len(d)]
	var inf T // what numpy stores for 1/0
	switch any(inf).(type) {
	case int32:
		v := int32(math.MinInt32)
		inf = T(v)
	case int64:
		v := int64(math.MinInt64)
		inf = T(v)
	}
	for i := range d {
		x := a[i]
		switch {
		case x == 0:
			d[i] = inf
		case x == 1:
			d[i] = 1
		case ^x == 0 && x < 0: // -1 for signed types
			d[i] = x
		default:
			d[i] = 0
		}
	}
}

func floatUfuncUnary[T float](op UnaryOp, dst, a *Array) {
	var k func(d, x []T)
	switch op {
	case Floor:
		k = floorK[T]
	case Ceil:
		k = ceilK[T]
	case Trunc:
		k = truncK[T]
	case Rint:
		k = rintK[T]
	case Sign:
		k = signFloatK[T]
	case Reciprocal:
		k = reciprocalFloatK[T]
	case Cbrt:
		k = mathK[T](math.Cbrt)
	case Fabs:
		k = absFloatK[T]
	case NanToNum:
		k = nanToNumK[T]
	case Log10:
		k = mathK[T](math.Log10)
	case Log2:
		k = mathK[T](math.Log2)
	case Log1p:
		k = mathK[T](math.Log1p)
	case Expm1:
		k = mathK[T](math.Expm1)
	case Exp2:
		k = mathK[T](math.Exp2)
	case Sinh:
		k = mathK[T](math.Sinh)
	case Cosh:
		k = mathK[T](math.Cosh)
	case Tanh:
		k = mathK[T](math.Tanh)
	case Arcsin:
		k = mathK[T](math.Asin)
	case Arccos:
		k = mathK[T](math.Acos)
	case Arctan:
		k = mathK[T](math.Atan)
	case Arcsinh:
		k = mathK[T](math.Asinh)
	case Arccosh:
		k = mathK[T](math.Acosh)
	case Arctanh:
		k = mathK[T](math.Atanh)
	case Deg2Rad:
		k = scaleK[T](math.Pi / 180)
	case Rad2Deg:
		k = scaleK[T](180 / math.Pi)
	case Conj, RealPart:
		k = copyK[T]
	case ImagPart:
		k = zeroK[T]
	case IsNaN:
		runUnary(floatPredK[T](func(x float64) bool { return x != x }), dst, a)
		return
	case IsInf:
		runUnary(floatPredK[T](func(x float64) bool { return math.IsInf(x, 0) }), dst, a)
		return
	case IsFinite:
		runUnary(floatPredK[T](func(x float64) bool { return x-x == 0 }), dst, a)
		return
	case Signbit:
		runUnary(floatPredK[T](math.Signbit), dst, a)
		return
	case IsPosInf:
		runUnary(floatPredK[T](func(x float64) bool { return math.IsInf(x, 1) }), dst, a)
		return
	case IsNegInf:
		runUnary(floatPredK[T](func(x float64) bool { return math.IsInf(x, -1) }), dst, a)
		return
	default:
		panic("nd: no float loop for " + op.String())
	}
	runUnary(k, dst, a)
}

// The rounding kernels call math's functions directly, which the
// compiler turns into one rounding instruction where the CPU has one.

func floorK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Floor(float64(a[i])))
	}
}

func ceilK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Ceil(float64(a[i])))
	}
}

func truncK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Trunc(float64(a[i])))
	}
}

func rintK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.RoundToEven(float64(a[i])))
	}
}

// mathK applies f (computed in float64) to every element.
func mathK[T float](f func(float64) float64) func(d, a []T) {
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(f(float64(a[i])))
		}
	}
}

func scaleK[T float](s float64) func(d, a []T) {
	return func(d, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = T(float64(a[i]) * s)
		}
	}
}

func floatPredK[T float](f func(float64) bool) func(d []bool, a []T) {
	return func(d []bool, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = f(float64(a[i]))
		}
	}
}

// nanToNumK replaces NaN by 0 and the infinities by the largest finite
// values of T.
func nanToNumK[T float](d, a []T) {
	big := math.MaxFloat64
	if _, ok := any(T(0)).(float32); ok {
		big = math.MaxFloat32
	}
	a = a[:len(d)]
	for i := range d {
		d[i] = T(nanToNum(float64(a[i]), big))
	}
}

func nanToNum(x, big float64) float64 {
	switch {
	case x != x:
		return 0
	case x > big:
		return big
	case x < -big:
		return -big
	}
	return x
}

// signFloatK: 1, -1, 0 (+0 for either zero) or NaN.
func signFloatK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		x := a[i]
		switch {
		case x > 0:
			d[i] = 1
		case x < 0:
			d[i] = -1
		case x == 0:
			d[i] = 0
		default:
			d[i] = x
		}
	}
}

func reciprocalFloatK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = 1 / a[i]
	}
}

func complexUfuncUnary[T complexT, F float](op UnaryOp, dst, a *Array) {
	switch op {
	case IsNaN:
		runUnary(complexPredK[T](func(z complex128) bool { return z != z }), dst, a)
		return
	case IsInf:
		runUnary(complexPredK[T](func(z complex128) bool {
			return math.IsInf(real(z), 0) || math.IsInf(imag(z), 0)
		}), dst, a)
		return
	case IsFinite:
		runUnary(complexPredK[T](func(z complex128) bool {
			return real(z)-real(z) == 0 && imag(z)-imag(z) == 0
		}), dst, a)
		return
	case RealPart:
		runUnary(func(d []F, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = F(real(complex128(x[i])))
			}
		}, dst, a)
		return
	case ImagPart:
		runUnary(func(d []F, x []T) {
			x = x[:len(d)]
			for i := range d {
				d[i] = F(imag(complex128(x[i])))
			}
		}, dst, a)
		return
	}
	var f func(complex128) complex128
	switch op {
	case Rint:
		f = func(z complex128) complex128 { return complex(math.RoundToEven(real(z)), math.RoundToEven(imag(z))) }
	case Sign:
		f = csign
	case Reciprocal:
		f = creciprocal
	case Conj:
		f = cmplx.Conj
	case NanToNum:
		big := math.MaxFloat64
		if _, ok := any(T(0)).(complex64); ok {
			big = math.MaxFloat32
		}
		f = func(z complex128) complex128 { return complex(nanToNum(real(z), big), nanToNum(imag(z), big)) }
	case Log10:
		f = cmplx.Log10
	case Log2:
		f = func(z complex128) complex128 { l := cmplx.Log(z); return complex(real(l)/math.Ln2, imag(l)/math.Ln2) }
	case Log1p:
		f = clog1p
	case Expm1:
		f = cexpm1
	case Exp2:
		f = func(z complex128) complex128 { return cexp(complex(real(z)*math.Ln2, imag(z)*math.Ln2)) }
	case Sinh:
		f = cmplx.Sinh
	case Cosh:
		f = cmplx.Cosh
	case Tanh:
		f = cmplx.Tanh
	case Arcsin:
		f = cmplx.Asin
	case Arccos:
		f = cmplx.Acos
	case Arctan:
		f = catan
	case Arcsinh:
		f = cmplx.Asinh
	case Arccosh:
		f = cmplx.Acosh
	case Arctanh:
		f = cmplx.Atanh
	default:
		panic("nd: no complex loop for " + op.String())
	}
	runUnary(func(d, x []T) {
		x = x[:len(d)]
		for i := range d {
			d[i] = T(f(complex128(x[i])))
		}
	}, dst, a)
}

func complexPredK[T complexT](f func(complex128) bool) func(d []bool, a []T) {
	return func(d []bool, a []T) {
		a = a[:len(d)]
		for i := range d {
			d[i] = f(complex128(a[i]))
		}
	}
}

// csign is numpy 1.x's complex sign: the sign of the real part, or of the
// imaginary part when the real part is zero, as a complex number with a
// zero imaginary part; NaN when either part is NaN and decides.
func csign(z complex128) complex128 {
	r, i := real(z), imag(z)
	switch {
	case (r > 0 && i == i) || (r == 0 && i > 0):
		return 1
	case (r < 0 && i == i) || (r == 0 && i < 0):
		return -1
	case r == 0 && i == 0:
		return 0
	}
	return complex(math.NaN(), 0)
}

// creciprocal is numpy's complex reciprocal (1/0 is nan+nanj).
func creciprocal(z complex128) complex128 {
	re, im := real(z), imag(z)
	if math.Abs(im) <= math.Abs(re) {
		r := im / re
		d := re + im*r
		return complex(1/d, -r/d)
	}
	r := re / im
	d := re*r + im
	return complex(r/d, -1/d)
}

// catan is cmplx.Atan with C99's branch cuts: on the cut (a zero real
// part, |imaginary part| > 1) the real part is ±π/2 with the zero's sign.
func catan(z complex128) complex128 {
	r := cmplx.Atan(z)
	if real(z) == 0 && math.Abs(imag(z)) > 1 {
		return complex(math.Copysign(math.Pi/2, real(z)), imag(r))
	}
	return r
}

// clog1p is numpy's complex log1p: log|1+z| + i·arg(1+z).
func clog1p(z complex128) complex128 {
	x, y := real(z)+1, imag(z)
	return complex(math.Log(math.Hypot(x, y)), math.Atan2(y, x))
}

// cexpm1 is numpy's complex expm1: expm1(x)·cos y − 2·sin²(y/2) for the
// real part (accurate near zero), exp(x)·sin y for the imaginary part.
func cexpm1(z complex128) complex128 {
	x, y := real(z), imag(z)
	a := math.Sin(y / 2)
	return complex(math.Expm1(x)*math.Cos(y)-2*a*a, math.Exp(x)*math.Sin(y))
}

// --------------------------------------------------------------- binary

func ufuncBinaryDispatch(op BinaryOp, dst, a, b *Array) {
	if op >= restBinaryBase {
		restBinaryDispatch(op, dst, a, b) // ufunc_rest.go
		return
	}
	switch a.dtype {
	case Bool:
		switch op {
		case Fmax, BitwiseOr:
			runBinary(orK, dst, a, b)
		case Fmin, BitwiseAnd:
			runBinary(andK, dst, a, b)
		case BitwiseXor:
			runBinary(xorK, dst, a, b)
		default:
			panic("nd: no bool loop for " + op.String())
		}
	case Int8:
		intUfuncBinary[int8](op, dst, a, b)
	case Int16:
		intUfuncBinary[int16](op, dst, a, b)
	case Int32:
		intUfuncBinary[int32](op, dst, a, b)
	case Int64:
		intUfuncBinary[int64](op, dst, a, b)
	case Uint8:
		intUfuncBinary[uint8](op, dst, a, b)
	case Uint16:
		intUfuncBinary[uint16](op, dst, a, b)
	case Uint32:
		intUfuncBinary[uint32](op, dst, a, b)
	case Uint64:
		intUfuncBinary[uint64](op, dst, a, b)
	case Float32:
		floatUfuncBinary[float32, complex64](op, dst, a, b)
	case Float64:
		floatUfuncBinary[float64, complex128](op, dst, a, b)
	case Complex64:
		complexUfuncBinary[complex64](op, dst, a, b)
	case Complex128:
		complexUfuncBinary[complex128](op, dst, a, b)
	}
}

func intUfuncBinary[T integer](op BinaryOp, dst, a, b *Array) {
	var k func(d, x, y []T)
	switch op {
	case Fmod:
		k = intFmodK[T]
	case Fmax:
		k = maxIntK[T]
	case Fmin:
		k = minIntK[T]
	case BitwiseAnd:
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = x[i] & y[i]
			}
		}
	case BitwiseOr:
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = x[i] | y[i]
			}
		}
	case BitwiseXor:
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = x[i] ^ y[i]
			}
		}
	case LeftShift:
		// A count at or past the width (or negative, as a huge unsigned
		// count) gives 0, as numpy's npy_lshift; Go's shift does the same
		// for counts past the width.
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = x[i] << uint64(y[i])
			}
		}
	case RightShift:
		// Past the width: 0, or -1 for a negative signed value (Go's >>
		// is arithmetic on signed types, as numpy's npy_rshift).
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = x[i] >> uint64(y[i])
			}
		}
	default:
		panic("nd: no integer loop for " + op.String())
	}
	runBinary(k, dst, a, b)
}

// intFmodK is C's remainder (the dividend's sign); x fmod 0 is 0, as numpy.
func intFmodK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
			continue
		}
		if y+1 == 0 && y < 0 { // -1: MinInt % -1 overflows in some languages; 0
			d[i] = 0
			continue
		}
		d[i] = x % y
	}
}

func floatUfuncBinary[T float, C complexT](op BinaryOp, dst, a, b *Array) {
	var f func(x, y float64) float64
	switch op {
	case Fmax:
		runBinary(fmaxK[T], dst, a, b)
		return
	case Fmin:
		runBinary(fminK[T], dst, a, b)
		return
	case Complex:
		runBinary(func(d []C, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				d[i] = C(complex(float64(x[i]), float64(y[i])))
			}
		}, dst, a, b)
		return
	case Hypot:
		f = math.Hypot
	case Fmod:
		f = math.Mod
	case Copysign:
		f = math.Copysign
	case Heaviside:
		f = heaviside
	case Logaddexp:
		f = logaddexp
	case Logaddexp2:
		f = logaddexp2
	default:
		panic("nd: no float loop for " + op.String())
	}
	runBinary(func(d, x, y []T) {
		x, y = x[:len(d)], y[:len(d)]
		for i := range d {
			d[i] = T(f(float64(x[i]), float64(y[i])))
		}
	}, dst, a, b)
}

// fmaxK and fminK ignore a NaN beside a number (numpy's fmax, fmin: the
// second operand when the first is NaN, the first otherwise).
func fmaxK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if x >= y || y != y {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

func fminK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if x <= y || y != y {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

func heaviside(x, h0 float64) float64 {
	switch {
	case x < 0:
		return 0
	case x > 0:
		return 1
	case x == 0:
		return h0
	}
	return x // NaN
}

// logaddexp is numpy's npy_logaddexp: equal arguments (infinities among
// them) give x + log 2; otherwise the larger plus log1p(exp(-|x-y|)).
func logaddexp(x, y float64) float64 {
	if x == y {
		return x + math.Ln2
	}
	t := x - y
	switch {
	case t > 0:
		return x + math.Log1p(math.Exp(-t))
	case t <= 0:
		return y + math.Log1p(math.Exp(t))
	}
	return t // NaN
}

func logaddexp2(x, y float64) float64 {
	if x == y {
		return x + 1
	}
	t := x - y
	switch {
	case t > 0:
		return x + math.Log1p(math.Exp2(-t))/math.Ln2
	case t <= 0:
		return y + math.Log1p(math.Exp2(t))/math.Ln2
	}
	return t
}

func complexUfuncBinary[T complexT](op BinaryOp, dst, a, b *Array) {
	var k func(d, x, y []T)
	switch op {
	case Fmax:
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				p, q := x[i], y[i]
				if cLessEq(q, p) || cIsNaN(q) {
					d[i] = p
				} else {
					d[i] = q
				}
			}
		}
	case Fmin:
		k = func(d, x, y []T) {
			x, y = x[:len(d)], y[:len(d)]
			for i := range d {
				p, q := x[i], y[i]
				if cLessEq(p, q) || cIsNaN(q) {
					d[i] = p
				} else {
					d[i] = q
				}
			}
		}
	default:
		panic("nd: no complex loop for " + op.String())
	}
	runBinary(k, dst, a, b)
}
