package nd

import (
	"math"
	"math/cmplx"

	gfloats "gonum.org/v1/gonum/floats"
)

// Kernels: one generic function per operation and element class, on
// equal-length slices. They are instantiated per element type, so the
// inner loops compile to plain arithmetic; float64 add, subtract,
// multiply and divide go to gonum's floats (assembly where gonum has it).

type integer interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

type float interface{ ~float32 | ~float64 }

type complexT interface{ ~complex64 | ~complex128 }

func binaryDispatch(op BinaryOp, dst, a, b *Array) {
	switch a.dtype {
	case Bool:
		boolBinary(op, dst, a, b)
	case Int8:
		intBinary[int8](op, dst, a, b)
	case Int16:
		intBinary[int16](op, dst, a, b)
	case Int32:
		intBinary[int32](op, dst, a, b)
	case Int64:
		intBinary[int64](op, dst, a, b)
	case Uint8:
		intBinary[uint8](op, dst, a, b)
	case Uint16:
		intBinary[uint16](op, dst, a, b)
	case Uint32:
		intBinary[uint32](op, dst, a, b)
	case Uint64:
		intBinary[uint64](op, dst, a, b)
	case Float32:
		floatBinary[float32](op, dst, a, b)
	case Float64:
		switch op {
		case Add:
			runBinary(func(d, x, y []float64) { gfloats.AddTo(d, x, y) }, dst, a, b)
		case Sub:
			runBinary(func(d, x, y []float64) { gfloats.SubTo(d, x, y) }, dst, a, b)
		case Mul:
			runBinary(func(d, x, y []float64) { gfloats.MulTo(d, x, y) }, dst, a, b)
		case Div:
			runBinary(func(d, x, y []float64) { gfloats.DivTo(d, x, y) }, dst, a, b)
		default:
			floatBinary[float64](op, dst, a, b)
		}
	case Complex64:
		complexBinary[complex64](op, dst, a, b)
	case Complex128:
		complexBinary[complex128](op, dst, a, b)
	}
}

func boolBinary(op BinaryOp, dst, a, b *Array) {
	switch op {
	case Add, Maximum, LogicalOr:
		runBinary(orK, dst, a, b)
	case Mul, Minimum, LogicalAnd:
		runBinary(andK, dst, a, b)
	case LogicalXor:
		runBinary(xorK, dst, a, b)
	}
}

func intBinary[T integer](op BinaryOp, dst, a, b *Array) {
	if op.IsComparison() {
		runBinary(cmpKernel[T](op), dst, a, b)
		return
	}
	var k func(d, x, y []T)
	switch op {
	case Add:
		k = addK[T]
	case Sub:
		k = subK[T]
	case Mul:
		k = mulK[T]
	case FloorDiv:
		k = intFloorDivK[T]
	case Mod:
		k = intModK[T]
	case Pow:
		k = intPowK[T]
	case Minimum:
		k = minIntK[T]
	case Maximum:
		k = maxIntK[T]
	default:
		panic("nd: no integer loop for " + op.String()) // binaryTypes never asks
	}
	runBinary(k, dst, a, b)
}

func floatBinary[T float](op BinaryOp, dst, a, b *Array) {
	if op.IsComparison() {
		runBinary(cmpKernel[T](op), dst, a, b)
		return
	}
	var k func(d, x, y []T)
	switch op {
	case Add:
		k = addK[T]
	case Sub:
		k = subK[T]
	case Mul:
		k = mulK[T]
	case Div:
		k = divK[T]
	case FloorDiv:
		k = floatFloorDivK[T]
	case Mod:
		k = floatModK[T]
	case Pow:
		k = floatPowK[T]
	case Minimum:
		k = minFloatK[T]
	case Maximum:
		k = maxFloatK[T]
	case Arctan2:
		k = atan2K[T]
	default:
		panic("nd: no float loop for " + op.String())
	}
	runBinary(k, dst, a, b)
}

func complexBinary[T complexT](op BinaryOp, dst, a, b *Array) {
	if op.IsComparison() {
		runBinary(cmpComplexKernel[T](op), dst, a, b)
		return
	}
	var k func(d, x, y []T)
	switch op {
	case Add:
		k = addK[T]
	case Sub:
		k = subK[T]
	case Mul:
		k = mulK[T]
	case Div:
		k = divK[T]
	case Pow:
		k = complexPowK[T]
	case Minimum:
		k = minComplexK[T]
	case Maximum:
		k = maxComplexK[T]
	default:
		panic("nd: no complex loop for " + op.String())
	}
	runBinary(k, dst, a, b)
}

func orK(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] || b[i]
	}
}

func andK(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] && b[i]
	}
}

func xorK(d, a, b []bool) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] != b[i]
	}
}

func addK[T Number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] + b[i]
	}
}

func subK[T Number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] - b[i]
	}
}

func mulK[T Number](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] * b[i]
	}
}

// divK is true division on floats and complex numbers (x/0 is ±Inf or NaN,
// as IEEE 754 says).
func divK[T float | complexT](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = a[i] / b[i]
	}
}

// intFloorDivK rounds toward negative infinity (Python's rule); x // 0 is
// 0, as numpy returns (with a warning tessera does not give). MinInt // -1
// wraps to MinInt, as in numpy and Go.
func intFloorDivK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
			continue
		}
		q := x / y
		if (x%y != 0) && ((x < 0) != (y < 0)) {
			q--
		}
		d[i] = q
	}
}

// intModK gives the remainder with the divisor's sign; x % 0 is 0.
func intModK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if y == 0 {
			d[i] = 0
			continue
		}
		r := x % y
		if r != 0 && ((r < 0) != (y < 0)) {
			r += y
		}
		d[i] = r
	}
}

// intPowK raises by squaring, wrapping on overflow. Exponents are
// non-negative (binaryInto checks signed ones first).
func intPowK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, e := a[i], b[i]
		if e == 2 { // x**2, the common case: one multiply, same wrapping
			d[i] = x * x
			continue
		}
		r := T(1)
		for e > 0 {
			if e&1 != 0 {
				r *= x
			}
			x *= x
			e >>= 1
		}
		d[i] = r
	}
}

func minIntK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = min(a[i], b[i])
	}
}

func maxIntK[T integer](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = max(a[i], b[i])
	}
}

// minFloatK and maxFloatK propagate NaN, the first operand's when both are
// NaN, as numpy's minimum and maximum do. (Go's min and max also
// propagate NaN but order -0 below +0, which numpy does not.)
func minFloatK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if x <= y || x != x {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

func maxFloatK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if x >= y || x != x {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

// floatDivmod returns numpy's floor division and remainder of floats: the
// remainder from fmod, moved to the divisor's sign, and the quotient from
// the exact difference a - mod, rounded to the nearest integer below.
// Division by zero gives a/b (±Inf or NaN) and a NaN remainder.
func floatDivmod[T float](a, b T) (div, mod T) {
	m := T(math.Mod(float64(a), float64(b)))
	if b == 0 {
		return a / b, m
	}
	q := (a - m) / b
	if m != 0 {
		if (b < 0) != (m < 0) {
			m += b
			q -= 1
		}
	} else {
		m = T(math.Copysign(0, float64(b)))
	}
	if q != 0 {
		f := T(math.Floor(float64(q)))
		if q-f > 0.5 {
			f += 1
		}
		return f, m
	}
	return T(math.Copysign(0, float64(a/b))), m
}

func floatFloorDivK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i], _ = floatDivmod(a[i], b[i])
	}
}

func floatModK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		_, d[i] = floatDivmod(a[i], b[i])
	}
}

func floatPowK[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(math.Pow(float64(a[i]), float64(b[i])))
	}
}

func atan2K[T float](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(math.Atan2(float64(a[i]), float64(b[i])))
	}
}

func cmpKernel[T Real](op BinaryOp) func(d []bool, a, b []T) {
	switch op {
	case Equal:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] == b[i]
			}
		}
	case NotEqual:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] != b[i]
			}
		}
	case Less:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] < b[i]
			}
		}
	case LessEqual:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] <= b[i]
			}
		}
	case Greater:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] > b[i]
			}
		}
	}
	return func(d []bool, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			d[i] = a[i] >= b[i]
		}
	}
}

// Complex numbers order lexicographically, as numpy orders them: by real
// part, then imaginary part; any NaN part makes < and <= false.
func cLess[T complexT](x, y T) bool {
	xr, xi, yr, yi := real(complex128(x)), imag(complex128(x)), real(complex128(y)), imag(complex128(y))
	return (xr < yr && xi == xi && yi == yi) || (xr == yr && xi < yi)
}

func cLessEq[T complexT](x, y T) bool {
	xr, xi, yr, yi := real(complex128(x)), imag(complex128(x)), real(complex128(y)), imag(complex128(y))
	return (xr < yr && xi == xi && yi == yi) || (xr == yr && xi <= yi)
}

func cIsNaN[T complexT](x T) bool { return x != x }

func cmpComplexKernel[T complexT](op BinaryOp) func(d []bool, a, b []T) {
	var f func(x, y T) bool
	switch op {
	case Equal:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] == b[i]
			}
		}
	case NotEqual:
		return func(d []bool, a, b []T) {
			a, b = a[:len(d)], b[:len(d)]
			for i := range d {
				d[i] = a[i] != b[i]
			}
		}
	case Less:
		f = cLess[T]
	case LessEqual:
		f = cLessEq[T]
	case Greater:
		f = func(x, y T) bool { return cLess(y, x) }
	default:
		f = func(x, y T) bool { return cLessEq(y, x) }
	}
	// Ordered comparison of complex numbers is rare enough that one
	// indirect call per element is accepted here.
	return func(d []bool, a, b []T) {
		a, b = a[:len(d)], b[:len(d)]
		for i := range d {
			d[i] = f(a[i], b[i])
		}
	}
}

// minComplexK and maxComplexK follow numpy: lexicographic order, and a
// NaN (in either part) propagates, the first operand's first.
func minComplexK[T complexT](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if cIsNaN(x) || cLessEq(x, y) {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

func maxComplexK[T complexT](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		x, y := a[i], b[i]
		if cIsNaN(x) || cLessEq(y, x) {
			d[i] = x
		} else {
			d[i] = y
		}
	}
}

// cpow is numpy's complex power (npy_cpow): exact 1 for a zero exponent;
// 0 for a zero base raised to a positive real exponent, NaN for any other
// exponent; for integral real exponents below 100 in magnitude, products:
// a itself, a·a and a·(a·a) for 1, 2 and 3, repeated squaring from 1
// otherwise, and 1/r (Smith's quotient) for negative ones, all with the
// plain complex product, so that (1+2j)**2 is exactly -3+4j and
// (1e300+0j)**2 is inf+0j; and otherwise the C library's cpow,
// exp(b·log a), its product C99's (whose infinities survive a NaN part:
// 2**inf is inf+nanj, not nan+nanj as cmplx.Pow gives).
func cpow(a, b complex128) complex128 {
	if b == 0 {
		return 1
	}
	if a == 0 {
		if real(b) > 0 && imag(b) == 0 {
			return 0
		}
		return complex(math.NaN(), math.NaN())
	}
	if br := real(b); imag(b) == 0 && br == math.Trunc(br) && math.Abs(br) < 100 {
		n := int(br)
		switch n {
		case 1:
			return a
		case 2:
			return a * a
		case 3:
			return a * (a * a)
		}
		if n < 0 {
			n = -n
		}
		r, p := complex(1, 0), a
		for {
			if n&1 != 0 {
				r *= p
			}
			n >>= 1
			if n == 0 {
				break
			}
			p *= p
		}
		if br < 0 {
			r = smithDiv(1, r)
		}
		return r
	}
	return cexp(c99Mul(b, cmplx.Log(a)))
}

// cexp is the C library's complex exponential: cmplx.Exp, but for finite
// arguments a zero imaginary part stays zero beside an overflowing real
// part (exp(800+0i) is inf+0i, not inf+nani), and a real part beyond
// exp's range is scaled into the cosine and sine first, so that a small
// cosine or sine can bring the result back into range.
func cexp(x complex128) complex128 {
	re, im := real(x), imag(x)
	if math.IsInf(re, 0) || math.IsNaN(re) || math.IsInf(im, 0) || math.IsNaN(im) {
		return cmplx.Exp(x) // C99's special values
	}
	if im == 0 {
		return complex(math.Exp(re), im)
	}
	s, c := math.Sincos(im)
	const t = 1023 * math.Ln2 // exp(t) is near the largest float64
	if re > t {
		et := math.Exp(t)
		re -= t
		s, c = s*et, c*et
		if re > t {
			re -= t
			s, c = s*et, c*et
		}
	}
	if re > t {
		return complex(math.MaxFloat64*c, math.MaxFloat64*s)
	}
	e := math.Exp(re)
	return complex(e*c, e*s)
}

// smithDiv is numpy's complex quotient a/b (Smith's algorithm, with no
// recovery of infinities: 1/(inf+nanj) is nan+nanj). Go's / differs for
// such operands.
func smithDiv(a, b complex128) complex128 {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	abr, abi := math.Abs(br), math.Abs(bi)
	if abr >= abi {
		if abr == 0 && abi == 0 {
			return complex(ar/abr, ai/abi)
		}
		rat := bi / br
		scl := 1 / (br + bi*rat)
		return complex((ar+ai*rat)*scl, (ai-ar*rat)*scl)
	}
	rat := br / bi
	scl := 1 / (bi + br*rat)
	return complex((ar*rat+ai)*scl, (ai*rat-ar)*scl)
}

// c99Mul is the complex product of C99's Annex G (what a C compiler emits
// for the C library's cpow): the plain product, except that when both of
// its parts are NaN and an operand (or a partial product) is infinite,
// the infinity is recovered (Go's * keeps the NaNs).
func c99Mul(x, y complex128) complex128 {
	a, b, c, d := real(x), imag(x), real(y), imag(y)
	ac, bd, ad, bc := a*c, b*d, a*d, b*c
	re, im := ac-bd, ad+bc
	if !math.IsNaN(re) || !math.IsNaN(im) {
		return complex(re, im)
	}
	box := func(v float64) float64 { // ±1 for an infinity, ±0 otherwise
		if math.IsInf(v, 0) {
			return math.Copysign(1, v)
		}
		return math.Copysign(0, v)
	}
	unNaN := func(v float64) float64 {
		if math.IsNaN(v) {
			return math.Copysign(0, v)
		}
		return v
	}
	recalc := false
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		a, b = box(a), box(b)
		c, d = unNaN(c), unNaN(d)
		recalc = true
	}
	if math.IsInf(c, 0) || math.IsInf(d, 0) {
		c, d = box(c), box(d)
		a, b = unNaN(a), unNaN(b)
		recalc = true
	}
	if !recalc && (math.IsInf(ac, 0) || math.IsInf(bd, 0) || math.IsInf(ad, 0) || math.IsInf(bc, 0)) {
		a, b, c, d = unNaN(a), unNaN(b), unNaN(c), unNaN(d)
		recalc = true
	}
	if recalc {
		re = math.Inf(1) * (a*c - b*d)
		im = math.Inf(1) * (a*d + b*c)
	}
	return complex(re, im)
}

func complexPowK[T complexT](d, a, b []T) {
	a, b = a[:len(d)], b[:len(d)]
	for i := range d {
		d[i] = T(cpow(complex128(a[i]), complex128(b[i])))
	}
}

func unaryDispatch(op UnaryOp, dst, a *Array) {
	switch a.dtype {
	case Bool:
		// Only LogicalNot and Abs (the identity) compute on bools.
		if op == Abs {
			runUnary(copyK[bool], dst, a)
			return
		}
		runUnary(notK, dst, a)
	case Int8:
		intUnary[int8](op, dst, a)
	case Int16:
		intUnary[int16](op, dst, a)
	case Int32:
		intUnary[int32](op, dst, a)
	case Int64:
		intUnary[int64](op, dst, a)
	case Uint8:
		intUnary[uint8](op, dst, a)
	case Uint16:
		intUnary[uint16](op, dst, a)
	case Uint32:
		intUnary[uint32](op, dst, a)
	case Uint64:
		intUnary[uint64](op, dst, a)
	case Float32:
		floatUnary[float32](op, dst, a)
	case Float64:
		floatUnary[float64](op, dst, a)
	case Complex64:
		if op == Abs {
			runUnary(cabsK[complex64, float32], dst, a)
			return
		}
		complexUnary[complex64](op, dst, a)
	case Complex128:
		if op == Abs {
			runUnary(cabsK[complex128, float64], dst, a)
			return
		}
		complexUnary[complex128](op, dst, a)
	}
}

func intUnary[T integer](op UnaryOp, dst, a *Array) {
	switch op {
	case Neg:
		runUnary(negK[T], dst, a)
	case Abs:
		runUnary(absIntK[T], dst, a)
	case Square:
		runUnary(squareK[T], dst, a)
	default:
		panic("nd: no integer loop for " + op.String())
	}
}

func floatUnary[T float](op UnaryOp, dst, a *Array) {
	var k func(d, x []T)
	switch op {
	case Neg:
		k = negK[T]
	case Abs:
		k = absFloatK[T]
	case Square:
		k = squareK[T]
	case Sqrt:
		k = sqrtK[T]
	case Exp:
		k = expK[T]
	case Log:
		k = logK[T]
	case Sin:
		k = sinK[T]
	case Cos:
		k = cosK[T]
	case Tan:
		k = tanK[T]
	default:
		panic("nd: no float loop for " + op.String())
	}
	runUnary(k, dst, a)
}

func complexUnary[T complexT](op UnaryOp, dst, a *Array) {
	var k func(d, x []T)
	switch op {
	case Neg:
		k = negK[T]
	case Square:
		k = squareK[T]
	case Sqrt:
		k = csqrtK[T]
	case Exp:
		k = cexpK[T]
	case Log:
		k = clogK[T]
	case Sin:
		k = csinK[T]
	case Cos:
		k = ccosK[T]
	case Tan:
		k = ctanK[T]
	default:
		panic("nd: no complex loop for " + op.String())
	}
	runUnary(k, dst, a)
}

func copyK[T any](d, a []T) { copy(d, a) }

func notK(d, a []bool) {
	a = a[:len(d)]
	for i := range d {
		d[i] = !a[i]
	}
}

func negK[T Number](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = -a[i]
	}
}

func squareK[T Number](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = a[i] * a[i]
	}
}

// absIntK wraps the most negative value onto itself, as numpy does.
func absIntK[T integer](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		x := a[i]
		if x < 0 {
			x = -x
		}
		d[i] = x
	}
}

func absFloatK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Abs(float64(a[i])))
	}
}

func cabsK[T complexT, O float](d []O, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = O(cmplx.Abs(complex128(a[i])))
	}
}

// The float transcendental kernels compute in float64 and round; for
// float32 that is within an ulp of numpy's float32 libm.

func sqrtK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Sqrt(float64(a[i])))
	}
}

func expK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(expWide(float64(a[i]))) // ufunc_rest.go: math.Exp overflows early on amd64
	}
}

func logK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Log(float64(a[i])))
	}
}

func sinK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Sin(float64(a[i])))
	}
}

func cosK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Cos(float64(a[i])))
	}
}

func tanK[T float](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(math.Tan(float64(a[i])))
	}
}

func csqrtK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(cmplx.Sqrt(complex128(a[i])))
	}
}

func cexpK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(cmplx.Exp(complex128(a[i])))
	}
}

func clogK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(cmplx.Log(complex128(a[i])))
	}
}

func csinK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(cmplx.Sin(complex128(a[i])))
	}
}

func ccosK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		d[i] = T(cmplx.Cos(complex128(a[i])))
	}
}

// ctanK follows C99's special values where Go's cmplx.Tan does not:
// tan(±Inf + 0i) is NaN + 0i (numpy), not NaN + NaNi.
func ctanK[T complexT](d, a []T) {
	a = a[:len(d)]
	for i := range d {
		z := complex128(a[i])
		if math.IsInf(real(z), 0) && imag(z) == 0 {
			d[i] = T(complex(math.NaN(), imag(z)))
			continue
		}
		d[i] = T(cmplx.Tan(z))
	}
}
