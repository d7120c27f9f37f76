package nd

import (
	"math"
	"strings"
)

// Type promotion follows numpy 1.24.
//
// ResultType is np.result_type on dtypes: the smallest dtype to which every
// argument casts safely. It is computed from kinds and sizes rather than
// from a 13×13 table so that the rule reads in one place; the table numpy
// produces is in testdata/promote_table.json and the tests hold the two
// together.
//
// Operations whose operands are arrays of different dimensionality use
// numpy 1.x's value-based casting for 0-d operands (ResultTypeOf): a 0-d
// operand beside n-d ones whose kind category (bool < integer < inexact,
// where float and complex share one category) is no higher than theirs
// counts as the smallest dtype that holds its value, so int8 array + 1 stays
// int8 and float32 array * 2.0 stays float32, while int8 array + 1.5 is
// float64. When every operand is 0-d, plain promotion applies. Go scalars
// reach these functions as 0-d arrays built by ScalarOf, so `x + 1` in
// tessera has the dtype it has in numpy 1.24 (not NEP 50's numpy 2 rule).
// As in numpy, floor_divide, remainder and power pick their loop by a
// linear search rather than by np.result_type, which differs for a
// non-negative integer scalar that also fits the signed type of its size
// beside a narrower unsigned array: uint8 array // 256 is int16, uint8
// array + 256 uint16 (binaryEffective). A float64 scalar counts as float32
// below 3.4e38 in magnitude (numpy's bound, a little under MaxFloat32:
// float32 array + 3.4e38 is float64), and Inf and NaN always; a complex128
// one as complex64 when both parts are below 3.4e38, not Inf or NaN.
//
// numpy returns float16 for a few operations on 1-byte integers and bools
// (sqrt, exp, arctan2, ...). tessera has no float16 and gives float32, the
// nearest dtype that holds every such result.

// ResultType returns the dtype numpy's np.result_type gives dts: the
// smallest dtype that every one of dts casts to safely. With no argument, or
// an invalid dtype among them, it returns Invalid.
//
// For three dtypes or more it is numpy's PyArray_PromoteDTypeSequence, not
// a pairwise fold: the dtype with the highest numpy type number is
// promoted with each of the others, and those results with one another.
// int16, uint16 and complex64 give complex64 (each integer fits
// complex64), where folding gives int32 first, then complex128; int8,
// uint16 and float32 give float32.
func ResultType(dts ...DType) DType {
	if len(dts) == 0 {
		return Invalid
	}
	main := dts[0]
	for _, d := range dts {
		if !d.Valid() {
			return Invalid
		}
		if typeNum[d] > typeNum[main] {
			main = d
		}
	}
	r := main
	for _, d := range dts {
		r = promote2(r, promote2(main, d))
	}
	return r
}

// typeNum is numpy's type number of each dtype on a 64-bit Linux (int64 is
// C long, 7; uint64 unsigned long, 8), the order of PyArray_PromoteDTypeSequence.
var typeNum = [numDTypes]int8{Bool: 0, Int8: 1, Uint8: 2, Int16: 3, Uint16: 4, Int32: 5, Uint32: 6,
	Int64: 7, Uint64: 8, Float32: 11, Float64: 12, Complex64: 14, Complex128: 15}

// promoteFold promotes dts pairwise from the left, numpy 1.x's rule when
// value-based casting applies (PyArray_ResultType with use_min_scalar).
func promoteFold(dts []DType) DType {
	r := dts[0]
	for _, d := range dts[1:] {
		if !r.Valid() || !d.Valid() {
			return Invalid
		}
		r = promote2(r, d)
	}
	return r
}

// intOfSize returns the signed (or unsigned) integer dtype of size bytes.
func intOfSize(size int, unsigned bool) DType {
	switch size {
	case 1:
		if unsigned {
			return Uint8
		}
		return Int8
	case 2:
		if unsigned {
			return Uint16
		}
		return Int16
	case 4:
		if unsigned {
			return Uint32
		}
		return Int32
	}
	if unsigned {
		return Uint64
	}
	return Int64
}

// floatFor returns the float dtype that holds every value of d exactly
// enough for numpy: float32 for integers of up to 2 bytes (numpy's float16
// for 1-byte ones, see the package note), float64 for wider ones.
func floatFor(d DType) DType {
	switch {
	case d.IsFloat():
		return d
	case d.IsComplex():
		return d
	case d.Size() <= 2:
		return Float32
	}
	return Float64
}

func promote2(a, b DType) DType {
	if a == b {
		return a
	}
	if a.IsBool() {
		return b
	}
	if b.IsBool() {
		return a
	}
	ka, kb := a.Kind(), b.Kind()
	// Order so that a is the lower kind: i/u < f < c.
	rank := func(k byte) int {
		switch k {
		case 'i', 'u':
			return 1
		case 'f':
			return 2
		}
		return 3
	}
	if rank(ka) > rank(kb) {
		a, b, ka, kb = b, a, kb, ka
	}
	switch {
	case ka == kb:
		if a.Size() >= b.Size() {
			return a
		}
		return b
	case (ka == 'i' || ka == 'u') && (kb == 'i' || kb == 'u'):
		s, u := a, b
		if ka == 'u' {
			s, u = b, a
		}
		if u.Size() < s.Size() {
			return s
		}
		if u.Size() == 8 {
			return Float64
		}
		return intOfSize(2*u.Size(), false)
	case kb == 'f':
		// a is an integer.
		f := floatFor(a)
		if f.Size() > b.Size() {
			return f
		}
		return b
	}
	// b is complex; a is an integer or a float.
	f := floatFor(a)
	if 2*f.Size() > b.Size() {
		return Complex128
	}
	return b
}

// category is numpy 1.x's kind category for value-based casting: bool 0,
// integers 1, floats and complex 2.
func category(d DType) int {
	switch d.Kind() {
	case 'b':
		return 0
	case 'i', 'u':
		return 1
	}
	return 2
}

// minScalarType returns the smallest dtype holding the value of the 0-d
// array s (np.min_scalar_type), and whether it is an unsigned integer dtype
// whose value also fits the signed dtype of its size (numpy then promotes it
// as that signed dtype beside signed arrays). Float values that fit float16
// give Float32 (there is no float16; beside the float arrays it is promoted
// with, the two give the same result).
func minScalarType(s *Array) (DType, bool) {
	// The element read from the backing slice by type (At boxed it in an
	// interface: an allocation per elementwise call with a scalar).
	o := s.offset
	switch x := s.data.(type) {
	case []bool:
		return Bool, false
	case []int8:
		return minInt(int64(x[o]))
	case []int16:
		return minInt(int64(x[o]))
	case []int32:
		return minInt(int64(x[o]))
	case []int64:
		return minInt(x[o])
	case []uint8:
		return minUint(uint64(x[o]))
	case []uint16:
		return minUint(uint64(x[o]))
	case []uint32:
		return minUint(uint64(x[o]))
	case []uint64:
		return minUint(x[o])
	case []float32:
		return Float32, false // float16 or float32: no narrower type here
	case []float64:
		return minFloat(x[o]), false
	case []complex64:
		return Complex64, false
	case []complex128:
		return minComplex(x[o]), false
	}
	return s.dtype, false
}

func minInt(v int64) (DType, bool) {
	if v >= 0 {
		return minUint(uint64(v))
	}
	switch {
	case v >= math.MinInt8:
		return Int8, false
	case v >= math.MinInt16:
		return Int16, false
	case v >= math.MinInt32:
		return Int32, false
	}
	return Int64, false
}

func minUint(v uint64) (DType, bool) {
	switch {
	case v <= math.MaxUint8:
		return Uint8, v <= math.MaxInt8
	case v <= math.MaxUint16:
		return Uint16, v <= math.MaxInt16
	case v <= math.MaxUint32:
		return Uint32, v <= math.MaxInt32
	}
	return Uint64, v <= math.MaxInt64
}

// minFloat is numpy 1.24's min_scalar_type of a float64 value: float16
// (Float32 here) for |v| < 65000 and for Inf and NaN, float32 for |v| <
// 3.4e38 (not MaxFloat32: 3.4e38 itself needs float64, so float32 array +
// 3.4e38 is float64), float64 beyond.
func minFloat(v float64) DType {
	if math.IsNaN(v) || math.IsInf(v, 0) || (v > -3.4e38 && v < 3.4e38) {
		return Float32
	}
	return Float64
}

// minComplex is min_scalar_type of a complex128 value: complex64 when both
// parts lie strictly within ±3.4e38; Inf and NaN parts need complex128
// (unlike a float's).
func minComplex(v complex128) DType {
	in := func(x float64) bool { return x > -3.4e38 && x < 3.4e38 }
	if in(real(v)) && in(imag(v)) {
		return Complex64
	}
	return Complex128
}

// effectiveDTypes returns the dtypes numpy 1.24 uses to choose a loop for
// operands xs: their own dtypes, except that 0-d operands beside n-d ones
// count as the smallest dtype holding their value when their kind category
// is no higher than the n-d operands' (see the package note).
func effectiveDTypes(xs ...*Array) []DType {
	return effectiveFor(false, make([]DType, len(xs)), xs...)
}

// effectiveDTypesInto is effectiveDTypes writing into out (len(xs) long).
func effectiveDTypesInto(out []DType, xs ...*Array) []DType {
	return effectiveFor(false, out, xs...)
}

// binaryEffective is effectiveDTypes for op's operands a and b, without
// an allocation. floor_divide, remainder and power choose their loop by
// numpy's linear search over the ufunc's loops (the others by
// np.result_type), in which a non-negative integer scalar that fits the
// signed type of its size may take that type, and the signed loop of a
// size comes before the unsigned one: beside a narrower unsigned array
// the search stops there (uint8 array // 256 is int16 where uint8 array
// + 256 is uint16).
func binaryEffective(op BinaryOp, a, b *Array) (DType, DType) {
	if (a.NDim() == 0) == (b.NDim() == 0) {
		return a.dtype, b.dtype
	}
	var buf [2]DType
	ed := effectiveFor(op == FloorDiv || op == Mod || op == Pow || linearUfunc(op), buf[:], a, b)
	return ed[0], ed[1]
}

// effectiveFor writes the effective dtypes of xs into out (len(xs) long);
// linear selects the loop-search rule of binaryEffective.
func effectiveFor(linear bool, out []DType, xs ...*Array) []DType {
	maxArr, maxScal := -1, -1
	var arrType DType
	for i, x := range xs {
		out[i] = x.dtype
		if x.NDim() == 0 {
			maxScal = max(maxScal, category(x.dtype))
		} else {
			maxArr = max(maxArr, category(x.dtype))
			if arrType == Invalid {
				arrType = x.dtype
			} else {
				arrType = promote2(arrType, x.dtype)
			}
		}
	}
	if maxArr < 0 || maxScal < 0 || maxScal > maxArr {
		return out
	}
	for i, x := range xs {
		if x.NDim() != 0 {
			continue
		}
		d, smallUnsigned := minScalarType(x)
		if smallUnsigned && (arrType.Kind() == 'i' || linear && arrType.Kind() == 'u' && d.Size() > arrType.Size()) {
			d = intOfSize(d.Size(), false)
		}
		out[i] = d
	}
	return out
}

// ResultTypeOf returns np.result_type of arrays, with numpy 1.x's
// value-based casting for 0-d arrays beside n-d ones, where numpy then
// promotes pairwise from the left (ResultType otherwise). It returns
// Invalid for no argument.
func ResultTypeOf(xs ...*Array) DType {
	if len(xs) == 0 {
		return Invalid
	}
	maxArr, maxScal := -1, -1
	for _, x := range xs {
		if x.NDim() == 0 {
			maxScal = max(maxScal, category(x.dtype))
		} else {
			maxArr = max(maxArr, category(x.dtype))
		}
	}
	if maxArr >= 0 && maxScal >= 0 && maxScal <= maxArr {
		return promoteFold(effectiveDTypes(xs...))
	}
	return ResultType(effectiveDTypes(xs...)...)
}

// CanCastSameKind reports numpy's can_cast(from, to, casting='same_kind'):
// a safe cast (ResultType(from, to) is to), or one that does not go down
// numpy's order of kinds bool < unsigned < signed < float < complex
// (float64 to float32 and uint64 to int8 yes; float to int, signed to
// unsigned and complex to float no).
func CanCastSameKind(from, to DType) bool {
	if !from.Valid() || !to.Valid() {
		return false
	}
	if ResultType(from, to) == to {
		return true
	}
	order := func(k byte) int { return strings.IndexByte("buifc", k) }
	return order(from.Kind()) <= order(to.Kind())
}
