package nd

import (
	"errors"
	"fmt"
	"slices"
)

// BinaryOp is a numpy binary ufunc.
type BinaryOp uint8

// The binary operations. String gives numpy's ufunc name.
const (
	Add          BinaryOp = iota // add; on bools: logical or
	Sub                          // subtract; an error on two bools, as in numpy
	Mul                          // multiply; on bools: logical and
	Div                          // divide (true division): integers and bools give float64
	FloorDiv                     // floor_divide: Python's sign rule; integer x // 0 is 0
	Mod                          // remainder: sign of the divisor; integer x % 0 is 0
	Pow                          // power: integers wrap; a negative integer exponent is an error
	Minimum                      // minimum: NaN propagates (the first NaN wins)
	Maximum                      // maximum: NaN propagates (the first NaN wins)
	Arctan2                      // arctan2: integers and bools give floats
	Equal                        // equal
	NotEqual                     // not_equal: true for NaN
	Less                         // less: false with NaN
	LessEqual                    // less_equal
	Greater                      // greater
	GreaterEqual                 // greater_equal
	LogicalAnd                   // logical_and: non-zero is true
	LogicalOr                    // logical_or
	LogicalXor                   // logical_xor
	numBinaryOps
)

var binaryNames = [numBinaryOps]string{
	"add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
	"minimum", "maximum", "arctan2", "equal", "not_equal", "less", "less_equal",
	"greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
}

// String returns numpy's ufunc name: "add", "divide", "floor_divide", ...
func (op BinaryOp) String() string {
	if op >= numBinaryOps {
		if n, ok := ufuncBinaryName(op); ok {
			return n
		}
		return fmt.Sprintf("BinaryOp(%d)", uint8(op))
	}
	return binaryNames[op]
}

// binaryAliases are the other names numpy and Python give the operations.
var binaryAliases = map[string]BinaryOp{
	"true_divide": Div, "mod": Mod, "pow": Pow, "sub": Sub, "mul": Mul, "div": Div,
	"floordiv": FloorDiv, "eq": Equal, "ne": NotEqual, "lt": Less, "le": LessEqual,
	"gt": Greater, "ge": GreaterEqual,
}

// ParseBinaryOp returns the operation named by a numpy ufunc name (String's
// output) or a common alias ("true_divide", "mod", "pow", "lt", ...).
func ParseBinaryOp(name string) (BinaryOp, error) {
	for op, n := range binaryNames {
		if n == name {
			return BinaryOp(op), nil
		}
	}
	if op, ok := binaryAliases[name]; ok {
		return op, nil
	}
	if op, ok := parseUfuncBinary(name); ok {
		return op, nil
	}
	return 0, fmt.Errorf("nd: unknown binary operation %q", name)
}

// IsComparison reports whether op is Equal ... GreaterEqual.
func (op BinaryOp) IsComparison() bool { return op >= Equal && op <= GreaterEqual }

// IsLogical reports whether op is LogicalAnd, LogicalOr or LogicalXor.
func (op BinaryOp) IsLogical() bool { return op >= LogicalAnd && op <= LogicalXor }

// UnaryOp is a numpy unary ufunc.
type UnaryOp uint8

// The unary operations. String gives numpy's ufunc name.
const (
	Neg        UnaryOp = iota // negative: unsigned integers wrap; an error on bools
	Abs                       // absolute: complex gives its real dtype
	Sqrt                      // sqrt: integers and bools give floats
	Exp                       // exp
	Log                       // log
	Sin                       // sin
	Cos                       // cos
	Tan                       // tan
	LogicalNot                // logical_not: non-zero is true
	Square                    // square: bools give int8
	numUnaryOps
)

var unaryNames = [numUnaryOps]string{
	"negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tan", "logical_not", "square",
}

// String returns numpy's ufunc name: "negative", "absolute", "sqrt", ...
func (op UnaryOp) String() string {
	if op >= numUnaryOps {
		if n, ok := ufuncUnaryName(op); ok {
			return n
		}
		return fmt.Sprintf("UnaryOp(%d)", uint8(op))
	}
	return unaryNames[op]
}

// ParseUnaryOp returns the operation named by a numpy ufunc name (String's
// output) or an alias ("neg", "abs", "not").
func ParseUnaryOp(name string) (UnaryOp, error) {
	for op, n := range unaryNames {
		if n == name {
			return UnaryOp(op), nil
		}
	}
	if op, ok := parseUfuncUnary(name); ok {
		return op, nil
	}
	switch name {
	case "neg":
		return Neg, nil
	case "abs":
		return Abs, nil
	case "not", "invert_bool":
		return LogicalNot, nil
	}
	return 0, fmt.Errorf("nd: unknown unary operation %q", name)
}

// TypeError reports an operation numpy does not define for the operands'
// dtypes (numpy raises TypeError): floor_divide on complex numbers,
// subtract on bools, arctan2 on complex numbers, ...
type TypeError struct {
	Op     string
	DTypes []DType
	Reason string
}

func (e *TypeError) Error() string {
	s := "nd: " + e.Op + ":"
	for i, d := range e.DTypes {
		if i > 0 {
			s += ","
		}
		s += " " + d.String()
	}
	return s + ": " + e.Reason
}

// ErrNegativeIntPower is returned (wrapped, naming the op) by Pow on
// integers when an exponent is negative, as numpy raises ValueError.
var ErrNegativeIntPower = errors.New("integers to negative integer powers are not allowed")

// binaryTypes returns the dtype the loop of op computes in and the dtype
// it writes, for operands of (effective) dtypes a and b.
func binaryTypes(op BinaryOp, a, b DType) (ct, ot DType, err error) {
	if op >= ufuncBinaryBase {
		return ufuncBinaryTypes(op, a, b)
	}
	if op >= numBinaryOps {
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
	case Add, Mul, Minimum, Maximum:
		return r, r, nil
	case Sub:
		if r == Bool {
			return bad("numpy boolean subtract is not supported; use LogicalXor")
		}
		return r, r, nil
	case Div:
		if r.IsBool() || r.IsInteger() {
			return Float64, Float64, nil
		}
		return r, r, nil
	case FloorDiv, Mod:
		if r.IsComplex() {
			return bad("not supported for complex numbers")
		}
		if r == Bool {
			return Int8, Int8, nil
		}
		return r, r, nil
	case Pow:
		if r == Bool {
			return Int8, Int8, nil
		}
		return r, r, nil
	case Arctan2:
		if r.IsComplex() {
			return bad("not supported for complex numbers")
		}
		// numpy picks the first float loop both operands cast to safely,
		// so int8 and uint16 give float32 although they promote to int32.
		f := promote2(floatFor(a), floatFor(b))
		return f, f, nil
	case LogicalAnd, LogicalOr, LogicalXor:
		return Bool, Bool, nil
	}
	// Comparisons.
	if r == Bool {
		r = Uint8
	}
	return r, Bool, nil
}

// unaryTypes is binaryTypes for unary operations.
func unaryTypes(op UnaryOp, a DType) (ct, ot DType, err error) {
	if op >= ufuncUnaryBase {
		return ufuncUnaryTypes(op, a)
	}
	if op >= numUnaryOps {
		return Invalid, Invalid, fmt.Errorf("nd: invalid UnaryOp %d", uint8(op))
	}
	if !a.Valid() {
		return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: "invalid dtype"}
	}
	switch op {
	case Neg:
		if a == Bool {
			return Invalid, Invalid, &TypeError{Op: op.String(), DTypes: []DType{a}, Reason: "numpy boolean negative is not supported; use LogicalNot"}
		}
		return a, a, nil
	case Abs:
		switch a {
		case Complex64:
			return a, Float32, nil
		case Complex128:
			return a, Float64, nil
		}
		return a, a, nil
	case LogicalNot:
		return Bool, Bool, nil
	case Square:
		if a == Bool {
			return Int8, Int8, nil
		}
		return a, a, nil
	}
	f := floatFor(a)
	return f, f, nil
}

// BinaryResultType returns the dtype op gives for operands of dtypes a and
// b (n-d arrays; see BinaryResultTypeOf for 0-d operands), or a *TypeError
// when numpy does not define op for them.
func BinaryResultType(op BinaryOp, a, b DType) (DType, error) {
	_, ot, err := binaryTypes(op, a, b)
	return ot, err
}

// BinaryResultTypeOf returns the dtype Binary(op, a, b) gives, with numpy
// 1.x's value-based casting for a 0-d operand beside an n-d one (int8 array
// + 1 is int8). Lazy callers that hold a Go scalar as a 0-d array use it to
// know a result's dtype before computing it.
func BinaryResultTypeOf(op BinaryOp, a, b *Array) (DType, error) {
	if a == nil || b == nil {
		return Invalid, fmt.Errorf("nd: %s: nil array", op)
	}
	da, db := binaryEffective(op, a, b)
	_, ot, err := binaryTypes(op, da, db)
	return ot, err
}

// UnaryResultType returns the dtype op gives for an operand of dtype a, or
// a *TypeError when numpy does not define op for it.
func UnaryResultType(op UnaryOp, a DType) (DType, error) {
	_, ot, err := unaryTypes(op, a)
	return ot, err
}

// Binary returns op applied elementwise to a and b broadcast together, with
// numpy's dtype rules (see BinaryResultTypeOf). Errors: *ShapeError when the
// shapes do not broadcast, *TypeError when op is not defined on the dtypes,
// ErrNegativeIntPower (wrapped).
func Binary(op BinaryOp, a, b *Array) (*Array, error) {
	if err := checkArrays(op.String(), a, b); err != nil {
		return nil, err
	}
	if a == nil || b == nil {
		return nil, fmt.Errorf("nd: %s: nil array", op)
	}
	da, db := binaryEffective(op, a, b)
	ct, ot, err := binaryTypes(op, da, db)
	if err != nil {
		return nil, err
	}
	shape, err := BroadcastShapes(op.String(), a.shape, b.shape)
	if err != nil {
		return nil, err
	}
	if _, err := SizeOf(shape); err != nil {
		return nil, err
	}
	dst := alloc(ot, shape)
	if err := binaryInto(op, ct, dst, a, b); err != nil {
		return nil, err
	}
	return dst, nil
}

// BinaryInto is Binary writing into dst, which must have the broadcast
// shape of a and b; dst may have any strides. dst may be a or b itself
// (same data, offset and strides), as fused evaluation reuses a buffer, but
// must not otherwise overlap them. When dst's dtype is not the one
// BinaryResultTypeOf gives, the result is computed in that dtype and cast
// into dst where numpy's casting='same_kind' allows it (its default for
// an ufunc's out=, so float32 += float64 works and int32 += float64 is a
// *TypeError; CanCastSameKind); that path allocates the intermediate.
func BinaryInto(op BinaryOp, dst, a, b *Array) error {
	if dst == nil || a == nil || b == nil {
		return fmt.Errorf("nd: %s: nil array", op)
	}
	da, db := binaryEffective(op, a, b)
	ct, ot, err := binaryTypes(op, da, db)
	if err != nil {
		return err
	}
	shape := a.shape // operands of one shape need no broadcast
	var shBuf [walkDims]int
	if !slices.Equal(a.shape, b.shape) {
		var ok bool
		if shape, ok = BroadcastShapesInto(shBuf[:0], a.shape, b.shape); !ok {
			_, err := BroadcastShapes(op.String(), a.shape, b.shape)
			return err
		}
	}
	if !slices.Equal(shape, dst.shape) {
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape, a.shape, b.shape}, Reason: "dst does not have the broadcast shape " + FormatShape(shape)}
	}
	if dst.dtype != ot {
		if !CanCastSameKind(ot, dst.dtype) {
			return &TypeError{Op: op.String(), DTypes: []DType{dst.dtype, a.dtype, b.dtype}, Reason: "cannot cast the result " + ot.String() + " to dst's " + dst.dtype.String() + " with casting='same_kind'"}
		}
		tmp := alloc(ot, shape)
		if err := binaryInto(op, ct, tmp, a, b); err != nil {
			return err
		}
		return Assign(dst, tmp)
	}
	return binaryInto(op, ct, dst, a, b)
}

// Unary returns op applied elementwise to a, with numpy's dtype rules (see
// UnaryResultType).
func Unary(op UnaryOp, a *Array) (*Array, error) {
	if err := checkArrays(op.String(), a); err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("nd: %s: nil array", op)
	}
	ct, ot, err := unaryTypes(op, a.dtype)
	if err != nil {
		return nil, err
	}
	dst := alloc(ot, a.shape)
	unaryInto(op, ct, dst, a)
	return dst, nil
}

// UnaryInto is Unary writing into dst, which must have a's shape and the
// dtype UnaryResultType gives; dst may be a itself.
func UnaryInto(op UnaryOp, dst, a *Array) error {
	if dst == nil || a == nil {
		return fmt.Errorf("nd: %s: nil array", op)
	}
	ct, ot, err := unaryTypes(op, a.dtype)
	if err != nil {
		return err
	}
	if !slices.Equal(a.shape, dst.shape) {
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape, a.shape}, Reason: "dst does not have the operand's shape"}
	}
	if dst.dtype != ot {
		return &TypeError{Op: op.String(), DTypes: []DType{dst.dtype, a.dtype}, Reason: "dst must be " + ot.String()}
	}
	unaryInto(op, ct, dst, a)
	return nil
}

// Where returns the elements of a where cond is true (non-zero) and those
// of b elsewhere, the three broadcast together; the dtype is
// ResultTypeOf(a, b), as np.where gives.
func Where(cond, a, b *Array) (*Array, error) {
	if err := checkArrays("where", cond, a, b); err != nil {
		return nil, err
	}
	if cond == nil || a == nil || b == nil {
		return nil, fmt.Errorf("nd: where: nil array")
	}
	ot := ResultTypeOf(a, b)
	shape, err := BroadcastShapes("where", cond.shape, a.shape, b.shape)
	if err != nil {
		return nil, err
	}
	if _, err := SizeOf(shape); err != nil {
		return nil, err
	}
	dst := alloc(ot, shape)
	c := castCompact(cond, Bool)
	a = castCompact(a, ot)
	b = castCompact(b, ot)
	cv, _ := c.BroadcastTo(shape...)
	av, _ := a.BroadcastTo(shape...)
	bv, _ := b.BroadcastTo(shape...)
	whereDispatch(dst, cv, av, bv)
	return dst, nil
}

// castCompact returns a converted to d. Broadcast axes (stride 0) are
// converted once and broadcast again, so that a constant array stays one
// element however large its shape.
func castCompact(a *Array, d DType) *Array {
	if a.dtype == d {
		return a
	}
	shape := slices.Clone(a.shape)
	bcast := false
	for i, s := range a.strides {
		if s == 0 && shape[i] > 1 {
			shape[i] = 1
			bcast = true
		}
	}
	if !bcast {
		c, _ := a.AsType(d)
		return c
	}
	c, _ := a.view(shape, a.strides, a.offset).AsType(d)
	c, _ = c.BroadcastTo(a.shape...)
	return c
}

func binaryInto(op BinaryOp, ct DType, dst, a, b *Array) error {
	a = castCompact(a, ct)
	b = castCompact(b, ct)
	if op == Pow && ct.Kind() == 'i' && anyNegative(b) {
		return fmt.Errorf("nd: %s: %w", op, ErrNegativeIntPower)
	}
	// The broadcast views are headers on the stack (for up to walkDims
	// axes), not BroadcastTo's new arrays.
	var ast, bst [walkDims]int
	ah, err := broadcastView(ast[:0], a, dst.shape)
	if err != nil {
		return err
	}
	bh, err := broadcastView(bst[:0], b, dst.shape)
	if err != nil {
		return err
	}
	av, bv := a, b
	if !slices.Equal(a.shape, dst.shape) {
		av = &ah
	}
	if !slices.Equal(b.shape, dst.shape) {
		bv = &bh
	}
	if op >= ufuncBinaryBase {
		ufuncBinaryDispatch(op, dst, av, bv)
		return nil
	}
	binaryDispatch(op, dst, av, bv)
	return nil
}

// BroadcastShapesInto is BroadcastShapes of two shapes written into
// dst's storage (no allocation when it is large enough); ok is false when
// they do not broadcast together (BroadcastShapes says why).
func BroadcastShapesInto(dst, a, b []int) (shape []int, ok bool) {
	n := max(len(a), len(b))
	dst = dst[:0]
	for i := range n {
		da, db := 1, 1
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			dst = append(dst, da)
		case da == 1:
			dst = append(dst, db)
		default:
			return dst, false
		}
	}
	return dst, true
}

// broadcastView returns the view of a broadcast to shape, with its strides
// in st's storage and shape shared with the caller's (not copied); the
// zero Array when a has that shape already (no view needed).
func broadcastView(st []int, a *Array, shape []int) (Array, error) {
	if slices.Equal(a.shape, shape) {
		return Array{}, nil
	}
	if len(shape) < len(a.shape) {
		return Array{}, &ShapeError{Op: "BroadcastTo", Shapes: [][]int{a.shape, shape}, Reason: "cannot broadcast to fewer dimensions"}
	}
	lead := len(shape) - len(a.shape)
	st = st[:0]
	for i := range shape {
		s := 0
		if i >= lead {
			switch d := a.shape[i-lead]; {
			case d == shape[i]:
				s = a.strides[i-lead]
			case d != 1:
				return Array{}, &ShapeError{Op: "BroadcastTo", Shapes: [][]int{a.shape, shape}, Reason: "operands could not be broadcast together"}
			}
		}
		st = append(st, s)
	}
	return Array{dtype: a.dtype, shape: shape, strides: st, offset: a.offset, data: a.data}, nil
}

func unaryInto(op UnaryOp, ct DType, dst, a *Array) {
	a = castCompact(a, ct)
	if op >= ufuncUnaryBase {
		ufuncUnaryDispatch(op, dst, a)
		return
	}
	unaryDispatch(op, dst, a)
}
