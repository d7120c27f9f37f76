package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Expression node kinds of a fused elementwise task.
const (
	kIn    = iota + 1 // a block argument: A is its position among the inputs
	kConst            // a 0-d scalar S (numpy's value-based casting applies)
	kFull             // a constant array (Ones, Full) broadcast to the tile: S
	kBin              // Op(A, B)
	kUn               // Op(A)
	kWhere            // where(A, B, C)
	kCast             // A as dtype D
	kRand             // random block A, generated in place (params R)
	kZarr             // zarr chunk A of the store at F, read in place
)

// enode is one node of a fused expression; operands refer to earlier
// nodes. The last node is the result.
type enode struct {
	K  uint8    `json:"k"`
	Op uint8    `json:"op,omitempty"`
	A  int32    `json:"a,omitempty"`
	B  int32    `json:"b,omitempty"`
	C  int32    `json:"c,omitempty"`
	S  scalar   `json:"s"`
	D  nd.DType `json:"d,omitempty"`
	R  *randomP `json:"r,omitempty"`
	F  string   `json:"f,omitempty"`
	h  *zarrHandle
}

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

// fused is the expression an Array computes, with the Arrays whose
// blocks it reads (leaves) and the random Arrays it generates in place
// (rands).
type fused struct {
	op     *op[elemP]
	leaves []*Array
	rands  []*Array
	files  []*Array
}

// fusedOf builds (once) the expression of a (an elementwise, constant or
// random Array), pulling in every operand that c.fusable allows.
func (c *collector) fusedOf(a *Array) *fused {
	if f, ok := c.exprs[a]; ok {
		return f
	}
	var nodes []enode
	var leaves, rands, files []*Array
	memo := map[*Array]int32{}
	var build func(x *Array, top bool) int32
	add := func(n enode) int32 { nodes = append(nodes, n); return int32(len(nodes) - 1) }
	build = func(x *Array, top bool) int32 {
		if i, ok := memo[x]; ok {
			return i
		}
		var i int32
		switch l := x.lay.(type) {
		case *elemLayer:
			if !top && !c.fusable(x) {
				break
			}
			var args [3]int32
			for j, o := range l.ops {
				if o.arr == nil {
					args[j] = add(enode{K: kConst, S: o.sc})
				} else {
					args[j] = build(o.arr, false)
				}
			}
			i = add(enode{K: l.kind, Op: l.op, A: args[0], B: args[1], C: args[2], D: l.d})
			memo[x] = i
			return i
		case *fullLayer, *getitemLayer, *transposeLayer:
			if v, ok := constOf(x); ok && (top || c.fusable(x)) {
				i = add(enode{K: kFull, S: v})
				memo[x] = i
				return i
			}
		case *sourceLayer:
			if zp, ok := l.op.(*op[zarrReadP]); ok && (top || c.fusable(x)) {
				files = append(files, x)
				i = add(enode{K: kZarr, A: int32(len(files) - 1), F: zp.p.Path, h: zp.p.h})
				memo[x] = i
				return i
			}
		case *randomLayer:
			if top || c.fusable(x) {
				rp := l.op.p
				rands = append(rands, x)
				i = add(enode{K: kRand, A: int32(len(rands) - 1), R: &rp})
				memo[x] = i
				return i
			}
		}
		leaves = append(leaves, x)
		i = add(enode{K: kIn, A: int32(len(leaves) - 1)})
		memo[x] = i
		return i
	}
	build(a, true)
	f := &fused{op: newOp(opElemwise, elemP{Nodes: nodes, D: a.dtype}), leaves: leaves, rands: rands, files: files}
	c.exprs[a] = f
	return f
}

// blockArgs returns the arguments of the fused task of block idx of x:
// the block shape, the leaves' blocks mapped by broadcasting, then per
// random node the start and shape of its block, then per zarr node the
// index of its chunk.
func (c *collector) blockArgs(f *fused, x *Array, idx []int) []graph.Arg {
	n := len(x.shape)
	args := make([]graph.Arg, 1, 1+len(f.leaves)+2*len(f.rands)+len(f.files))
	args[0] = graph.Lit(x.blockShape(idx))
	src := func(l *Array) []int {
		m := l.NDim()
		li := make([]int, m)
		for j := range li {
			if len(l.chunks[j]) == 1 {
				li[j] = 0
			} else {
				li[j] = idx[j+n-m]
			}
		}
		return li
	}
	for _, l := range f.leaves {
		args = append(args, graph.Ref(l.Key(src(l)...)))
	}
	for _, r := range f.rands {
		li := src(r)
		args = append(args, graph.Lit(r.blockStart(li)), graph.Lit(r.blockShape(li)))
	}
	for _, z := range f.files {
		args = append(args, graph.Lit(src(z)))
	}
	return args
}

// emitElem writes one task per block of a: the fused expression applied
// to the leaves' blocks, mapped by broadcasting.
func (c *collector) emitElem(a *Array) error {
	f := c.fusedOf(a)
	var err error
	forBlocks(a.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		err = c.g.Set(a.Key(idx...), graph.Task(f.op, c.blockArgs(f, a, idx)...))
	})
	return err
}

// tileElems is the number of elements a fused expression evaluates at a
// time: small enough that its buffers stay in cache, large enough that
// the per-tile bookkeeping is noise.
const tileElems = 1 << 14

// elemP evaluates a fused expression. Args: see collector.blockArgs.
type elemP struct {
	Nodes []enode  `json:"nodes"`
	D     nd.DType `json:"dtype"`
}

func (p elemP) run(_ context.Context, args []any) (any, error) {
	ev, shape, err := newEvaluator(&p, args, opElemwise)
	if err != nil {
		return nil, err
	}
	defer ev.release()
	return ev.block(shape, false)
}

// block evaluates the whole block of the given shape: into new memory,
// or with pooled into a buffer from the pool that ev.release gives back
// (for a consumer inside the same task). Constant blocks come out
// zero-stride.
func (ev *evaluator) block(shape []int, pooled bool) (*nd.Array, error) {
	p := ev.p
	if size(shape) == 0 {
		return nd.Zeros(p.D, shape...)
	}
	if ev.constant() {
		// Every input is constant over the block: evaluate the expression
		// once on one element and return a zero-stride block, as the
		// inputs were, instead of materialising it.
		r, err := ev.eval(wholeRegion(shape), nil)
		if err != nil {
			return nil, err
		}
		if r.DType() != p.D {
			if r, err = r.AsType(p.D); err != nil {
				return nil, err
			}
		}
		return r, nil
	}
	var out *nd.Array
	var err error
	if pooled {
		var buf *nd.Array
		if buf, err = getBuf(p.D, size(shape)); err != nil {
			return nil, err
		}
		ev.pooled = append(ev.pooled, buf)
		if out, err = buf.Slice(nd.Slice1{Start: 0, Stop: size(shape), Step: 1}); err == nil {
			out, err = out.Reshape(shape...)
		}
	} else {
		out, err = nd.Zeros(p.D, shape...)
	}
	if err != nil {
		return nil, err
	}
	if err := ev.tiles(out); err != nil {
		return nil, err
	}
	return out, nil
}

// tiles evaluates the expression into out (the block's shape and dtype)
// tile by tile.
func (ev *evaluator) tiles(out *nd.Array) error {
	return forTiles(out.Shape(), func(sl []nd.Slice1) error {
		dst, err := out.Slice(sl...)
		if err != nil {
			return err
		}
		r, err := ev.eval(sl, dst)
		if err != nil || r == dst {
			return err
		}
		return nd.Assign(dst, r)
	})
}

func size(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func wholeRegion(shape []int) []nd.Slice1 {
	sl := make([]nd.Slice1, len(shape))
	for ax := range sl {
		sl[ax] = nd.Slice1{Start: 0, Stop: shape[ax], Step: 1}
	}
	return sl
}

// forTiles calls fn with the tiles of a block of shape in C order: whole
// trailing axes whose product fits tileElems, and a range of the next
// axis; earlier axes one index at a time. A tile is then contiguous in a
// C-ordered block. sl is reused between calls.
func forTiles(shape []int, fn func(sl []nd.Slice1) error) error {
	nax := len(shape)
	inner, k := 1, nax-1
	for k >= 0 && inner*shape[k] <= tileElems {
		inner *= shape[k]
		k--
	}
	sl := wholeRegion(shape)
	if k < 0 {
		return fn(sl)
	}
	rows := max(1, tileElems/inner)
	idx := make([]int, k)
	for {
		for ax := 0; ax < k; ax++ {
			sl[ax] = nd.Slice1{Start: idx[ax], Stop: idx[ax] + 1, Step: 1}
		}
		for s := 0; s < shape[k]; s += rows {
			sl[k] = nd.Slice1{Start: s, Stop: min(s+rows, shape[k]), Step: 1}
			if err := fn(sl); err != nil {
				return err
			}
		}
		ax := k - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < shape[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return nil
		}
	}
}

// randBlock is the block of a random node that a fused task generates:
// its start in the whole array and its shape.
type randBlock struct{ start, shape []int }

type evaluator struct {
	p      *elemP
	shape  []int // the output block's
	ins    []*nd.Array
	rands  []randBlock
	files  []*nd.Array // per zarr node, its chunk (in pooled memory)
	vals   []*nd.Array
	bufs   []*nd.Array // per node, 1-d, reused from tile to tile (pooled)
	consts []*nd.Array // per kConst node, its 0-d value
	pooled []*nd.Array // buffers to give back to the pool
}

// release gives the evaluator's pooled buffers back; nothing the
// evaluator returned may be used afterwards unless it was copied.
func (ev *evaluator) release() {
	for _, b := range ev.pooled {
		putBuf(b)
	}
	ev.pooled = nil
	clear(ev.bufs)
	clear(ev.files)
}

// newEvaluator decodes the arguments of a fused task.
func newEvaluator(p *elemP, args []any, opName string) (*evaluator, []int, error) {
	shape, err := argInts(args, 0, opName)
	if err != nil {
		return nil, nil, err
	}
	nin, nrand, nfile := 0, 0, 0
	for _, n := range p.Nodes {
		switch n.K {
		case kIn:
			nin++
		case kRand:
			nrand++
		case kZarr:
			nfile++
		}
	}
	if len(args) != 1+nin+2*nrand+nfile {
		return nil, nil, fmt.Errorf("%s: %d arguments for %d inputs, %d random blocks and %d zarr chunks", opName, len(args), nin, nrand, nfile)
	}
	ev := &evaluator{p: p, shape: shape, ins: make([]*nd.Array, nin), rands: make([]randBlock, nrand), files: make([]*nd.Array, nfile),
		vals: make([]*nd.Array, len(p.Nodes)), bufs: make([]*nd.Array, len(p.Nodes)), consts: make([]*nd.Array, len(p.Nodes))}
	for i := range ev.ins {
		if ev.ins[i], err = argArray(args[1+i], opName); err != nil {
			return nil, nil, err
		}
	}
	for i := range ev.rands {
		st, err1 := argInts(args, 1+nin+2*i, opName)
		sh, err2 := argInts(args, 2+nin+2*i, opName)
		if err := errors.Join(err1, err2); err != nil {
			return nil, nil, err
		}
		ev.rands[i] = randBlock{st, sh}
	}
	for i, n := range p.Nodes {
		switch n.K {
		case kConst:
			if ev.consts[i], err = n.S.array(); err != nil {
				return nil, nil, err
			}
		case kRand:
			if n.R == nil || int(n.A) >= nrand || len(ev.rands[n.A].start) != len(n.R.Shape) || len(ev.rands[n.A].shape) != len(n.R.Shape) {
				return nil, nil, fmt.Errorf("%s: bad random node %d", opName, i)
			}
		case kIn:
			if int(n.A) >= nin {
				return nil, nil, fmt.Errorf("%s: bad input node %d", opName, i)
			}
		case kZarr:
			if int(n.A) >= nfile || ev.files[n.A] != nil {
				ev.release()
				return nil, nil, fmt.Errorf("%s: bad zarr node %d", opName, i)
			}
			idx, err := argInts(args, 1+nin+2*nrand+int(n.A), opName)
			if err == nil {
				ev.files[n.A], err = ev.readChunk(n, idx)
			}
			if err != nil {
				ev.release()
				return nil, nil, err
			}
		}
	}
	return ev, shape, nil
}

// readChunk reads chunk idx of zarr node n into a pooled buffer.
func (ev *evaluator) readChunk(n enode, idx []int) (*nd.Array, error) {
	z, err := n.h.open(n.F)
	if err != nil {
		return nil, err
	}
	buf, err := getBuf(z.DType(), z.StoredChunkSize())
	if err != nil {
		return nil, err
	}
	ev.pooled = append(ev.pooled, buf)
	return z.ReadChunkInto(idx, buf)
}

// constant reports whether every input of the expression is constant
// over the block.
func (ev *evaluator) constant() bool {
	if len(ev.rands) > 0 {
		return false
	}
	for _, in := range ev.files {
		if !isConst(in) {
			return false
		}
	}
	for _, in := range ev.ins {
		if !isConst(in) {
			return false
		}
	}
	return true
}

// isConst reports whether every element of a is the same one: every axis
// has stride 0 or length 1 (a zero-stride block, a 0-d scalar).
func isConst(a *nd.Array) bool {
	sh := a.Shape()
	for i, s := range a.Strides() {
		if s != 0 && sh[i] != 1 {
			return false
		}
	}
	return a.Size() > 0
}

// first returns the one-element view of a at its origin, keeping a's
// number of axes (so that numpy's value-based casting sees an array as an
// array and a 0-d scalar as a scalar).
func first(a *nd.Array) (*nd.Array, error) {
	sl := make([]nd.Slice1, a.NDim())
	for i := range sl {
		sl[i] = nd.Slice1{Start: 0, Stop: 1, Step: 1}
	}
	return a.Slice(sl...)
}

// buffer returns a view of node i's buffer with shape and dtype d.
func (ev *evaluator) buffer(i int, d nd.DType, shape []int) (*nd.Array, error) {
	n := 1
	for _, s := range shape {
		n *= s
	}
	b := ev.bufs[i]
	if b == nil || b.DType() != d || b.Size() < n {
		var err error
		if b, err = getBuf(d, max(n, tileElems)); err != nil {
			return nil, err
		}
		ev.pooled = append(ev.pooled, b)
		ev.bufs[i] = b
	}
	v, err := b.Slice(nd.Slice1{Start: 0, Stop: n, Step: 1})
	if err != nil {
		return nil, err
	}
	return v.Reshape(shape...)
}

// eval evaluates the expression on region sl of the output block and
// returns it with the region's shape. The last node writes into dst when
// dst is not nil and has its dtype and shape; then dst is returned. A node
// whose operands are all constant is computed on one element and
// broadcast: constant inputs stay zero-stride through the expression.
func (ev *evaluator) eval(sl []nd.Slice1, dst *nd.Array) (*nd.Array, error) {
	tshape := make([]int, len(sl))
	for i, s := range sl {
		tshape[i] = s.Stop - s.Start
	}
	last := len(ev.p.Nodes) - 1
	var err error
	for i, n := range ev.p.Nodes {
		var v *nd.Array
		switch n.K {
		case kConst:
			v = ev.consts[i]
		case kIn:
			v, err = leafView(ev.ins[n.A], sl, ev.shape)
		case kZarr:
			v, err = leafView(ev.files[n.A], sl, ev.shape)
		case kRand:
			v, err = ev.random(i, n, sl)
		case kFull:
			v, err = nd.Full(n.S.D, n.S.value(), tshape...)
		case kBin:
			a, b := ev.vals[n.A], ev.vals[n.B]
			var d nd.DType
			var sh []int
			if d, err = nd.BinaryResultTypeOf(nd.BinaryOp(n.Op), a, b); err != nil {
				break
			}
			if sh, err = nd.BroadcastShapes(nd.BinaryOp(n.Op).String(), a.Shape(), b.Shape()); err != nil {
				break
			}
			if isConst(a) && isConst(b) {
				v, err = constBinary(nd.BinaryOp(n.Op), d, a, b, sh)
				break
			}
			if i == last && dst != nil && d == dst.DType() && slices.Equal(sh, tshape) {
				v = dst
			} else if v, err = ev.buffer(i, d, sh); err != nil {
				break
			}
			err = nd.BinaryInto(nd.BinaryOp(n.Op), v, a, b)
		case kUn:
			a := ev.vals[n.A]
			var d nd.DType
			if d, err = nd.UnaryResultType(nd.UnaryOp(n.Op), a.DType()); err != nil {
				break
			}
			if isConst(a) {
				v, err = constUnary(nd.UnaryOp(n.Op), d, a)
				break
			}
			if i == last && dst != nil && d == dst.DType() && slices.Equal(a.Shape(), tshape) {
				v = dst
			} else if v, err = ev.buffer(i, d, a.Shape()); err != nil {
				break
			}
			err = nd.UnaryInto(nd.UnaryOp(n.Op), v, a)
		case kWhere:
			c, a, b := ev.vals[n.A], ev.vals[n.B], ev.vals[n.C]
			if isConst(c) && isConst(a) && isConst(b) {
				v, err = constWhere(c, a, b)
				break
			}
			v, err = nd.Where(c, a, b)
		case kCast:
			a := ev.vals[n.A]
			if isConst(a) {
				var one *nd.Array
				if one, err = first(a); err == nil {
					if one, err = one.AsType(n.D); err == nil {
						v, err = one.BroadcastTo(a.Shape()...)
					}
				}
				break
			}
			if i == last && dst != nil && n.D == dst.DType() && slices.Equal(a.Shape(), tshape) {
				v = dst
			} else if v, err = ev.buffer(i, n.D, a.Shape()); err != nil {
				break
			}
			err = nd.AsTypeInto(v, a)
		default:
			err = fmt.Errorf("%s: bad node kind %d", opElemwise, n.K)
		}
		if err != nil {
			return nil, err
		}
		ev.vals[i] = v
	}
	r := ev.vals[last]
	if r != dst && !slices.Equal(r.Shape(), tshape) {
		return r.BroadcastTo(tshape...)
	}
	return r, nil
}

func constBinary(op nd.BinaryOp, d nd.DType, a, b *nd.Array, sh []int) (*nd.Array, error) {
	a1, err1 := first(a)
	b1, err2 := first(b)
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	ones := make([]int, len(sh))
	for i := range ones {
		ones[i] = 1
	}
	r, err := nd.Zeros(d, ones...)
	if err != nil {
		return nil, err
	}
	if err := nd.BinaryInto(op, r, a1, b1); err != nil {
		return nil, err
	}
	return r.BroadcastTo(sh...)
}

func constUnary(op nd.UnaryOp, d nd.DType, a *nd.Array) (*nd.Array, error) {
	a1, err := first(a)
	if err != nil {
		return nil, err
	}
	r, err := nd.Zeros(d, a1.Shape()...)
	if err != nil {
		return nil, err
	}
	if err := nd.UnaryInto(op, r, a1); err != nil {
		return nil, err
	}
	return r.BroadcastTo(a.Shape()...)
}

func constWhere(c, a, b *nd.Array) (*nd.Array, error) {
	sh, err := nd.BroadcastShapes("where", c.Shape(), a.Shape(), b.Shape())
	if err != nil {
		return nil, err
	}
	c1, err1 := first(c)
	a1, err2 := first(a)
	b1, err3 := first(b)
	if err := errors.Join(err1, err2, err3); err != nil {
		return nil, err
	}
	r, err := nd.Where(c1, a1, b1)
	if err != nil {
		return nil, err
	}
	return r.BroadcastTo(sh...)
}

// random generates the part of random node i's block that region sl of
// the output block reads (broadcast axes collapsed, as leafView does).
func (ev *evaluator) random(i int, n enode, sl []nd.Slice1) (*nd.Array, error) {
	rb := ev.rands[n.A]
	m, nout := len(rb.shape), len(ev.shape)
	if m > nout {
		return nil, fmt.Errorf("%s: random block of %d axes in a block of %d", opElemwise, m, nout)
	}
	rs := make([]int, m)
	st := make([]int, m)
	for j := range rs {
		ax := j + nout - m
		if rb.shape[j] == 1 && ev.shape[ax] != 1 {
			rs[j], st[j] = 1, rb.start[j]
		} else {
			rs[j], st[j] = sl[ax].Stop-sl[ax].Start, rb.start[j]+sl[ax].Start
		}
	}
	v, err := ev.buffer(i, n.R.dtype(), rs)
	if err != nil {
		return nil, err
	}
	if err := n.R.fill(v.Data(), v.Offset(), st, rs); err != nil {
		return nil, err
	}
	return v, nil
}

// leafView returns the part of input block b that region sl of an output
// block of shape oshape reads: b's axes align to the right, and an axis of
// length 1 where the output is longer is broadcast.
func leafView(b *nd.Array, sl []nd.Slice1, oshape []int) (*nd.Array, error) {
	m, n := b.NDim(), len(oshape)
	if m == 0 {
		return b, nil
	}
	bs := make([]nd.Slice1, m)
	for j := range bs {
		ax := j + n - m
		if b.Shape()[j] == 1 && oshape[ax] != 1 {
			bs[j] = nd.Slice1{Start: 0, Stop: 1, Step: 1}
		} else {
			bs[j] = sl[ax]
		}
	}
	return b.Slice(bs...)
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
	shape, err := nd.BroadcastShapes(opName, shapes...)
	if err != nil {
		return errArray(&Error{Op: opName, Shapes: shapes, Reason: "could not be broadcast"})
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

// unify returns the chunks of the broadcast result: along each axis, the
// union of the chunk boundaries of the operands that are not broadcast
// there (dask's unify_chunks).
func unify(opName string, shape []int, ops []operand) ([][]int, error) {
	n := len(shape)
	out := make([][]int, n)
	for ax := 0; ax < n; ax++ {
		var cs [][]int
		for _, o := range ops {
			a := o.arr
			if a == nil {
				continue
			}
			j := ax - (n - a.NDim())
			if j < 0 || (a.shape[j] == 1 && shape[ax] != 1) {
				continue
			}
			cs = append(cs, a.chunks[j])
		}
		switch {
		case len(cs) == 0:
			out[ax] = []int{shape[ax]}
		default:
			out[ax] = unionChunks(cs)
		}
	}
	return out, nil
}

// unionChunks merges the boundaries of several chunkings of one axis.
func unionChunks(cs [][]int) []int {
	same := true
	for _, c := range cs[1:] {
		if !slices.Equal(c, cs[0]) {
			same = false
			break
		}
	}
	if same {
		return cs[0]
	}
	var bounds []int
	for _, c := range cs {
		s := 0
		for _, x := range c {
			s += x
			bounds = append(bounds, s)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	out := make([]int, 0, len(bounds))
	prev := 0
	for _, b := range bounds {
		if b > prev {
			out = append(out, b-prev)
		}
		prev = b
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
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
