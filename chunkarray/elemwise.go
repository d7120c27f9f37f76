package chunkarray

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The elementwise API (Binary, Unary, Where, AsType and their named
// forms) and its layer. The layer does not write its own tasks: the
// collector writes them (fuse_collect.go), one elemP task per block that
// fuse_eval.go evaluates, with the fusable operands inside when fusion is
// on and a one-operation expression when it is off.

// operand of an elementwise layer: an Array or a 0-d scalar.
type operand struct {
	arr *Array
	sc  scalar
}

// elemLayer is one elementwise operation on its operands, whose chunks are
// already unified with the result's (broadcast axes aside).
type elemLayer struct {
	kind uint8 // kBin, kUn, kWhere, kCast
	op   uint8
	d    nd.DType // for kCast
	ops  []operand
	ins  []*Array
}

func (l *elemLayer) inputs() []*Array { return l.ins }

func (l *elemLayer) block(*Array, []int) graph.Node {
	panic("chunkarray: elemLayer blocks are emitted by the collector")
}

// toOperand turns a user operand into an Array or a scalar.
func toOperand(opName string, v any) (operand, error) {
	switch x := v.(type) {
	case *Array:
		if x == nil {
			return operand{}, &Error{Op: opName, Reason: "nil Array"}
		}
		if x.err != nil {
			return operand{}, x.err
		}
		return operand{arr: x}, nil
	case *nd.Array:
		if x == nil {
			return operand{}, &Error{Op: opName, Reason: "nil nd.Array"}
		}
		if x.NDim() == 0 {
			s, err := scalarFromND(x)
			return operand{sc: s}, err
		}
		a := FromNDArray(x, "auto")
		return operand{arr: a}, a.err
	}
	s0, err := nd.ScalarOf(v)
	if err != nil {
		return operand{}, &Error{Op: opName, Reason: fmt.Sprintf("operand of type %T: want *chunkarray.Array, *nd.Array or a Go scalar", v)}
	}
	s, err := scalarFromND(s0)
	return operand{sc: s}, err
}

func scalarFromND(x *nd.Array) (scalar, error) {
	v, err := x.At()
	if err != nil {
		return scalar{}, err
	}
	return scalarOf(v, x.DType())
}

// probe returns a stand-in nd.Array for dtype inference: a one-element
// array of an Array operand's dtype (never 0-d, so that numpy's
// value-based casting sees it as an array), or the scalar itself.
func (o operand) probe() (*nd.Array, error) {
	if o.arr != nil {
		return nd.Zeros(o.arr.dtype, 1)
	}
	return o.sc.array()
}

func (o operand) shape() []int {
	if o.arr != nil {
		return o.arr.shape
	}
	return []int{}
}

func (o operand) token() any {
	if o.arr != nil {
		return o.arr.name
	}
	return []any{"scalar", int(o.sc.D), o.sc.Lo, o.sc.Hi}
}

// elemwise builds the Array of an elementwise operation.
func elemwise(opName string, kind, opc uint8, castTo nd.DType, vs ...any) *Array {
	ops := make([]operand, len(vs))
	var shapes [][]int
	for i, v := range vs {
		o, err := toOperand(opName, v)
		if err != nil {
			return errArray(err)
		}
		ops[i] = o
		shapes = append(shapes, o.shape())
	}
	shape, unk, err := broadcastUnknown(opName, ops) // unknown.go
	if unk && err != nil {
		return errArray(err)
	}
	if !unk {
		shape, err = nd.BroadcastShapes(opName, shapes...)
	}
	if err != nil {
		return errArray(&Error{Op: opName, Shapes: shapes, Reason: "could not be broadcast", Err: err})
	}
	probes := make([]*nd.Array, len(ops))
	for i, o := range ops {
		if probes[i], err = o.probe(); err != nil {
			return errArray(&Error{Op: opName, Err: err})
		}
	}
	var d nd.DType
	switch kind {
	case kBin:
		d, err = nd.BinaryResultTypeOf(nd.BinaryOp(opc), probes[0], probes[1])
	case kUn:
		d, err = nd.UnaryResultType(nd.UnaryOp(opc), probes[0].DType())
	case kWhere:
		d = nd.ResultTypeOf(probes[1], probes[2])
	case kCast:
		d = castTo
		if !d.Valid() {
			err = fmt.Errorf("invalid dtype %d", castTo)
		}
	}
	if err != nil {
		dts := make([]string, len(probes))
		for i, p := range probes {
			dts[i] = p.DType().String()
		}
		return errArray(&Error{Op: opName, Reason: fmt.Sprintf("dtypes %v: %v", dts, err), Err: err})
	}
	chunks, err := unify(opName, shape, ops)
	if err != nil {
		return errArray(err)
	}
	l := &elemLayer{kind: kind, op: opc, d: castTo, ops: ops}
	toks := []any{opName, int(kind), int(opc), int(castTo)}
	for i := range l.ops {
		if a := l.ops[i].arr; a != nil {
			l.ops[i].arr = rechunkTo(a, chunks, len(shape))
			if l.ops[i].arr.err != nil {
				return errArray(l.ops[i].arr.err)
			}
			if !slices.Contains(l.ins, l.ops[i].arr) {
				l.ins = append(l.ins, l.ops[i].arr)
			}
		}
		toks = append(toks, l.ops[i].token())
	}
	return newArray(opName, shape, chunks, d, l, toks...)
}

// Binary applies op elementwise to a and b (each an *Array, an *nd.Array
// or a Go scalar), broadcasting as numpy.
func Binary(op nd.BinaryOp, a, b any) *Array { return elemwise(op.String(), kBin, uint8(op), 0, a, b) }

// Unary applies op elementwise to a.
func Unary(op nd.UnaryOp, a any) *Array { return elemwise(op.String(), kUn, uint8(op), 0, a) }

// Where picks a where cond is true and b elsewhere, the three broadcast
// together, as numpy.where.
func Where(cond, a, b any) *Array { return elemwise("where", kWhere, 0, 0, cond, a, b) }

// AsType converts a to dtype d (numpy's unsafe casting).
func (a *Array) AsType(d nd.DType) *Array {
	if a.err == nil && a.dtype == d {
		return a
	}
	if r := randomAsType(a, d); r != nil {
		return r
	}
	return elemwise("astype", kCast, 0, d, a)
}

// The binary operations as functions, for scalars on the left.

func Add(a, b any) *Array          { return Binary(nd.Add, a, b) }
func Sub(a, b any) *Array          { return Binary(nd.Sub, a, b) }
func Mul(a, b any) *Array          { return Binary(nd.Mul, a, b) }
func Div(a, b any) *Array          { return Binary(nd.Div, a, b) }
func FloorDiv(a, b any) *Array     { return Binary(nd.FloorDiv, a, b) }
func Mod(a, b any) *Array          { return Binary(nd.Mod, a, b) }
func Pow(a, b any) *Array          { return Binary(nd.Pow, a, b) }
func Minimum(a, b any) *Array      { return Binary(nd.Minimum, a, b) }
func Maximum(a, b any) *Array      { return Binary(nd.Maximum, a, b) }
func Arctan2(a, b any) *Array      { return Binary(nd.Arctan2, a, b) }
func Equal(a, b any) *Array        { return Binary(nd.Equal, a, b) }
func NotEqual(a, b any) *Array     { return Binary(nd.NotEqual, a, b) }
func Less(a, b any) *Array         { return Binary(nd.Less, a, b) }
func LessEqual(a, b any) *Array    { return Binary(nd.LessEqual, a, b) }
func Greater(a, b any) *Array      { return Binary(nd.Greater, a, b) }
func GreaterEqual(a, b any) *Array { return Binary(nd.GreaterEqual, a, b) }
func LogicalAnd(a, b any) *Array   { return Binary(nd.LogicalAnd, a, b) }
func LogicalOr(a, b any) *Array    { return Binary(nd.LogicalOr, a, b) }
func LogicalXor(a, b any) *Array   { return Binary(nd.LogicalXor, a, b) }

// The unary operations as functions.

func Neg(a any) *Array        { return Unary(nd.Neg, a) }
func Abs(a any) *Array        { return Unary(nd.Abs, a) }
func Sqrt(a any) *Array       { return Unary(nd.Sqrt, a) }
func Exp(a any) *Array        { return Unary(nd.Exp, a) }
func Log(a any) *Array        { return Unary(nd.Log, a) }
func Sin(a any) *Array        { return Unary(nd.Sin, a) }
func Cos(a any) *Array        { return Unary(nd.Cos, a) }
func Tan(a any) *Array        { return Unary(nd.Tan, a) }
func LogicalNot(a any) *Array { return Unary(nd.LogicalNot, a) }
func Square(a any) *Array     { return Unary(nd.Square, a) }

// The same as methods, for chains: x.Add(1).Mul(2).

func (a *Array) Add(b any) *Array          { return Binary(nd.Add, a, b) }
func (a *Array) Sub(b any) *Array          { return Binary(nd.Sub, a, b) }
func (a *Array) Mul(b any) *Array          { return Binary(nd.Mul, a, b) }
func (a *Array) Div(b any) *Array          { return Binary(nd.Div, a, b) }
func (a *Array) FloorDiv(b any) *Array     { return Binary(nd.FloorDiv, a, b) }
func (a *Array) Mod(b any) *Array          { return Binary(nd.Mod, a, b) }
func (a *Array) Pow(b any) *Array          { return Binary(nd.Pow, a, b) }
func (a *Array) Minimum(b any) *Array      { return Binary(nd.Minimum, a, b) }
func (a *Array) Maximum(b any) *Array      { return Binary(nd.Maximum, a, b) }
func (a *Array) Arctan2(b any) *Array      { return Binary(nd.Arctan2, a, b) }
func (a *Array) Equal(b any) *Array        { return Binary(nd.Equal, a, b) }
func (a *Array) NotEqual(b any) *Array     { return Binary(nd.NotEqual, a, b) }
func (a *Array) Less(b any) *Array         { return Binary(nd.Less, a, b) }
func (a *Array) LessEqual(b any) *Array    { return Binary(nd.LessEqual, a, b) }
func (a *Array) Greater(b any) *Array      { return Binary(nd.Greater, a, b) }
func (a *Array) GreaterEqual(b any) *Array { return Binary(nd.GreaterEqual, a, b) }
func (a *Array) LogicalAnd(b any) *Array   { return Binary(nd.LogicalAnd, a, b) }
func (a *Array) LogicalOr(b any) *Array    { return Binary(nd.LogicalOr, a, b) }
func (a *Array) LogicalXor(b any) *Array   { return Binary(nd.LogicalXor, a, b) }
func (a *Array) Neg() *Array               { return Unary(nd.Neg, a) }
func (a *Array) Abs() *Array               { return Unary(nd.Abs, a) }
func (a *Array) Sqrt() *Array              { return Unary(nd.Sqrt, a) }
func (a *Array) Exp() *Array               { return Unary(nd.Exp, a) }
func (a *Array) Log() *Array               { return Unary(nd.Log, a) }
func (a *Array) Sin() *Array               { return Unary(nd.Sin, a) }
func (a *Array) Cos() *Array               { return Unary(nd.Cos, a) }
func (a *Array) Tan() *Array               { return Unary(nd.Tan, a) }
func (a *Array) LogicalNot() *Array        { return Unary(nd.LogicalNot, a) }
func (a *Array) Square() *Array            { return Unary(nd.Square, a) }
