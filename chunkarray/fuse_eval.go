package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr"
)

// Blockwise fusion, evaluation side: elemP (a fused elementwise task)
// and reduceFusedP (a reduction's chunk stage fused with its input) both
// decode their arguments into one evaluator, which evaluates the
// expression tile by tile. The expressions are built in fuse_collect.go.

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
	kNPY              // block A of the .npy file at F, read in place (params P)
)

// enode is one node of a fused expression; operands refer to earlier
// nodes. The last node is the result. N is the name of the Array a file
// node reads, so that a failed read names its block's key.
type enode struct {
	K  uint8     `json:"k"`
	Op uint8     `json:"op,omitempty"`
	A  int32     `json:"a,omitempty"`
	B  int32     `json:"b,omitempty"`
	C  int32     `json:"c,omitempty"`
	S  scalar    `json:"s"`
	D  nd.DType  `json:"d,omitempty"`
	R  *randomP  `json:"r,omitempty"`
	F  string    `json:"f,omitempty"`
	N  string    `json:"n,omitempty"`
	P  *npyReadP `json:"npy,omitempty"`
	h  *zarrHandle
}

// FusedInputError is the error of a read that blockwise fusion moved into
// its consumer's task: with fusion on, FromZarr(p).Sum() reads each chunk
// inside the sum's chunk task, so the scheduler's *sched.TaskError names
// that task; this error, its cause, names the read itself, by its op and
// the key its block has without fusion (what WithOptimize(false) would
// report), and wraps the reader's error (a *zarr.Error or *npy.Error
// naming the file), so errors.Is(err, fs.ErrNotExist) and errors.As see
// through it.
type FusedInputError struct {
	Op  string    // the read's op, e.g. "chunkarray.npy-read"
	Key graph.Key // the key of the block read, e.g. from-npy-<token>[0,1]
	Err error
}

func (e *FusedInputError) Error() string {
	return fmt.Sprintf("fused input %q (%s): %v", string(e.Key), e.Op, e.Err)
}

func (e *FusedInputError) Unwrap() error { return e.Err }

// tileElems is the number of elements a fused expression evaluates at a
// time: small enough that its buffers stay in cache, large enough that
// the per-tile bookkeeping is noise.
const tileElems = 1 << 14

// elemP evaluates a fused expression. Args: see collector.blockArgs.
type elemP struct {
	Nodes []enode  `json:"nodes"`
	D     nd.DType `json:"dtype"`
}

func (p elemP) run(ctx context.Context, args []any) (any, error) {
	ev, shape, err := newEvaluator(ctx, &p, args, opElemwise, false)
	if err != nil {
		return nil, err
	}
	defer ev.release()
	return ev.block(shape, false)
}

// block evaluates the whole block of the given shape: into new memory,
// or with pooled into a buffer from the run's free list that ev.release
// gives back (for a consumer inside the same task). Constant blocks come
// out zero-stride.
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
		out, err = ev.tb.get(p.D, shape...)
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
	dst := &ev.outHdr
	return forTiles(out.Shape(), func(sl []nd.Slice1) error {
		if err := dst.SetSlice(out, sl...); err != nil {
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
	p     *elemP
	shape []int // the output block's
	ins   []*nd.Array
	rands []randBlock
	files []*nd.Array // per file node, its block (a zarr chunk in free-list memory)
	// pending are the zarr reads a fused sum defers (newEvaluator's
	// deferZarr): reduce streams the chunk through a cache-sized piece
	// where it can (streamSum), and reads them (readPending) otherwise.
	pending []pendingRead
	vals    []*nd.Array
	bufs    []*nd.Array // per node, 1-d, reused from tile to tile (from tb)
	consts  []*nd.Array // per kConst node, its 0-d value
	tb      taskBufs    // the buffers taken from the run's free list
	zs      zarr.Scratch

	// Reused from tile to tile, so that a tile costs no allocation: per
	// node the header of its value's view, constant-shaped values (Full
	// nodes) by shape, the tile's shape, the output tile's header, and
	// a reduction's per-tile partial and its view of the accumulator.
	hdrs    []nd.Array
	shapes  [][]int // per node, its broadcast shape
	fulls   []*nd.Array
	tshape  []int
	outHdr  nd.Array
	part    *nd.Array // flat, the partial's memory
	partHdr nd.Array
	accHdr  nd.Array
}

// release gives the evaluator's buffers back to the free list; nothing
// the evaluator returned may be used afterwards unless it was copied.
func (ev *evaluator) release() {
	ev.tb.release()
	clear(ev.bufs)
	clear(ev.files)
	ev.pending = nil
}

// pendingRead is a zarr block read that decode deferred: file node n
// (ev.files[n.A]) with its block argument ints.
type pendingRead struct {
	n    enode
	ints []int
}

// readPending reads the deferred blocks.
func (ev *evaluator) readPending() error {
	for _, pr := range ev.pending {
		b, err := ev.read(pr.n, pr.ints)
		if err != nil {
			return err
		}
		ev.files[pr.n.A] = b
	}
	ev.pending = nil
	return nil
}

// newEvaluator decodes the arguments of a fused task (collector.blockArgs)
// and reads its file nodes' blocks; its buffers come from the free list
// of ctx (package freelist). opName names the task's op in errors; a
// failed read is a *FusedInputError naming the read.
func newEvaluator(ctx context.Context, p *elemP, args []any, opName string, deferZarr bool) (*evaluator, []int, error) {
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
		case kZarr, kNPY:
			nfile++
		}
	}
	if len(args) != 1+nin+2*nrand+nfile {
		return nil, nil, fmt.Errorf("%s: %d arguments for %d inputs, %d random blocks and %d file blocks", opName, len(args), nin, nrand, nfile)
	}
	ev := &evaluator{p: p, shape: shape, ins: make([]*nd.Array, nin), rands: make([]randBlock, nrand), files: make([]*nd.Array, nfile),
		vals: make([]*nd.Array, len(p.Nodes)), bufs: make([]*nd.Array, len(p.Nodes)), consts: make([]*nd.Array, len(p.Nodes)),
		hdrs: make([]nd.Array, len(p.Nodes)), fulls: make([]*nd.Array, len(p.Nodes)), shapes: make([][]int, len(p.Nodes)),
		tb: taskBufs{fl: freelist.FromContext(ctx)}}
	if err := ev.decode(args, opName, deferZarr); err != nil {
		ev.release()
		return nil, nil, err
	}
	// Unknown lengths (unknown.go) are the input blocks'.
	if shape, err = resolveUnknown(opName, shape, ev.ins); err != nil {
		ev.release()
		return nil, nil, err
	}
	ev.shape = shape
	return ev, shape, nil
}

// decode fills the evaluator's inputs from args, node by node: block
// arguments, random blocks' starts and shapes, constants, and the blocks
// of file nodes, read now.
func (ev *evaluator) decode(args []any, opName string, deferZarr bool) error {
	nin, nrand := len(ev.ins), len(ev.rands)
	var err error
	for i := range ev.ins {
		if ev.ins[i], err = argArray(args[1+i], opName); err != nil {
			return err
		}
	}
	for i := range ev.rands {
		st, err1 := argInts(args, 1+nin+2*i, opName)
		sh, err2 := argInts(args, 2+nin+2*i, opName)
		if err := errors.Join(err1, err2); err != nil {
			return err
		}
		ev.rands[i] = randBlock{st, sh}
	}
	for i, n := range ev.p.Nodes {
		switch n.K {
		case kConst:
			if ev.consts[i], err = n.S.array(); err != nil {
				return err
			}
		case kRand:
			if n.R == nil || int(n.A) >= nrand || len(ev.rands[n.A].start) != len(n.R.Shape) || len(ev.rands[n.A].shape) != len(n.R.Shape) {
				return fmt.Errorf("%s: bad random node %d", opName, i)
			}
		case kIn:
			if int(n.A) >= nin {
				return fmt.Errorf("%s: bad input node %d", opName, i)
			}
		case kZarr, kNPY:
			if int(n.A) >= len(ev.files) || ev.files[n.A] != nil || n.K == kNPY && n.P == nil {
				return fmt.Errorf("%s: bad file node %d", opName, i)
			}
			ints, err := argInts(args, 1+nin+2*nrand+int(n.A), opName)
			if err != nil {
				return err
			}
			if deferZarr && n.K == kZarr {
				ev.pending = append(ev.pending, pendingRead{n, ints})
				continue
			}
			if ev.files[n.A], err = ev.read(n, ints); err != nil {
				return err
			}
		}
	}
	return nil
}

// read reads the block of file node n; ints are its argument (see
// collector.blockArgs). Its error is a *FusedInputError naming the
// block's key, which the node's ints give.
func (ev *evaluator) read(n enode, ints []int) (*nd.Array, error) {
	opName, idx := opZarrRead, ints
	var b *nd.Array
	var err error
	if n.K == kNPY {
		opName = opNPYRead
		m := len(ints) / 3
		if len(ints) != 3*m {
			return nil, fmt.Errorf("%s: npy block argument of %d ints", opNPYRead, len(ints))
		}
		idx = ints[:m]
		b, err = n.P.read(ints[m:2*m], ints[2*m:])
	} else {
		b, err = ev.readChunk(n, idx)
	}
	if err != nil {
		return nil, &FusedInputError{Op: opName, Key: graph.BlockKey(n.N, idx...), Err: err}
	}
	return b, nil
}

// readChunk reads chunk idx of zarr node n into a buffer from the free
// list. A constant chunk (one element, or a missing chunk's fill) is
// kept out of that buffer, since a constant block may be returned as the
// task's value.
func (ev *evaluator) readChunk(n enode, idx []int) (*nd.Array, error) {
	z, err := n.h.open(n.F)
	if err != nil {
		return nil, err
	}
	buf, err := ev.tb.get(z.DType(), z.StoredChunkSize())
	if err != nil {
		return nil, err
	}
	ev.zs.Buffers = ev.tb.fl
	c, err := z.ReadChunkWith(idx, buf, &ev.zs)
	if err != nil || !isConst(c) {
		return c, err
	}
	one, err := first(c)
	if err != nil {
		return nil, err
	}
	return one.Copy().BroadcastTo(c.Shape()...)
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
		if b, err = ev.tb.get(d, max(n, tileElems)); err != nil {
			return nil, err
		}
		ev.bufs[i] = b
	}
	v := &ev.hdrs[i]
	if err := v.SetSlice(b, nd.Slice1{Start: 0, Stop: n, Step: 1}); err != nil {
		return nil, err
	}
	if err := v.SetReshape(v, shape...); err != nil {
		return nil, err
	}
	return v, nil
}

// eval evaluates the expression on region sl of the output block and
// returns it with the region's shape. The last node writes into dst when
// dst is not nil and has its dtype and shape; then dst is returned. A node
// whose operands are all constant is computed on one element and
// broadcast: constant inputs stay zero-stride through the expression.
func (ev *evaluator) eval(sl []nd.Slice1, dst *nd.Array) (*nd.Array, error) {
	ev.tshape = ev.tshape[:0]
	for _, s := range sl {
		ev.tshape = append(ev.tshape, s.Stop-s.Start)
	}
	tshape := ev.tshape
	last := len(ev.p.Nodes) - 1
	for i, n := range ev.p.Nodes {
		var out *nd.Array
		if i == last && dst != nil && slices.Equal(dst.Shape(), tshape) {
			out = dst
		}
		v, err := ev.node(i, n, sl, tshape, out)
		if err != nil {
			return nil, err
		}
		if v.NDim() == 0 && n.K != kConst {
			// Only a Go scalar (kConst) is typed by its value. Any
			// other 0-d value (the block of a 0-d Array, a node of a 0-d
			// tile) is typed by its dtype, as its Array was when built
			// (see the package doc): as (1,), numpy's value-based
			// casting does not take it for a scalar.
			if v, err = v.Reshape(1); err != nil {
				return nil, err
			}
		}
		ev.vals[i] = v
	}
	r := ev.vals[last]
	if len(tshape) == 0 && r.NDim() == 1 {
		return r.Reshape()
	}
	if r != dst && !slices.Equal(r.Shape(), tshape) {
		return r.BroadcastTo(tshape...)
	}
	return r, nil
}

// node evaluates node i on region sl (of shape tshape) from the values of
// earlier nodes; out, when not nil, is where the result may go.
func (ev *evaluator) node(i int, n enode, sl []nd.Slice1, tshape []int, out *nd.Array) (*nd.Array, error) {
	switch n.K {
	case kConst:
		return ev.consts[i], nil
	case kIn:
		return leafViewInto(&ev.hdrs[i], ev.ins[n.A], sl, ev.shape)
	case kZarr, kNPY:
		return leafViewInto(&ev.hdrs[i], ev.files[n.A], sl, ev.shape)
	case kRand:
		return ev.random(i, n, sl, out)
	case kFull:
		// A zero-stride constant: made again only when the tile's shape
		// changes (the last tiles of a block).
		if f := ev.fulls[i]; f != nil && slices.Equal(f.Shape(), tshape) {
			return f, nil
		}
		f, err := nd.Full(n.S.D, n.S.value(), tshape...)
		ev.fulls[i] = f
		return f, err
	case kBin:
		return ev.binary(i, n, out)
	case kUn:
		return ev.unary(i, n, out)
	case kWhere:
		c, a, b := ev.vals[n.A], ev.vals[n.B], ev.vals[n.C]
		if isConst(c) && isConst(a) && isConst(b) {
			return constWhere(c, a, b)
		}
		return nd.Where(c, a, b)
	case kCast:
		return ev.cast(i, n, out)
	}
	return nil, fmt.Errorf("%s: bad node kind %d", opElemwise, n.K)
}

// dest returns where node i writes a result of dtype d and shape sh: out
// when it fits, else node i's tile buffer.
func (ev *evaluator) dest(i int, out *nd.Array, d nd.DType, sh []int) (*nd.Array, error) {
	if out != nil && out.DType() == d && slices.Equal(out.Shape(), sh) {
		return out, nil
	}
	return ev.buffer(i, d, sh)
}

func (ev *evaluator) binary(i int, n enode, out *nd.Array) (*nd.Array, error) {
	op := nd.BinaryOp(n.Op)
	a, b := ev.vals[n.A], ev.vals[n.B]
	d, err := nd.BinaryResultTypeOf(op, a, b)
	if err != nil {
		return nil, err
	}
	sh := a.Shape()
	if !slices.Equal(sh, b.Shape()) {
		var ok bool
		if ev.shapes[i], ok = nd.BroadcastShapesInto(ev.shapes[i], a.Shape(), b.Shape()); !ok {
			_, err := nd.BroadcastShapes(op.String(), a.Shape(), b.Shape())
			return nil, err
		}
		sh = ev.shapes[i]
	}
	if isConst(a) && isConst(b) {
		return constBinary(op, d, a, b, sh)
	}
	v, err := ev.dest(i, out, d, sh)
	if err != nil {
		return nil, err
	}
	return v, nd.BinaryInto(op, v, a, b)
}

func (ev *evaluator) unary(i int, n enode, out *nd.Array) (*nd.Array, error) {
	op := nd.UnaryOp(n.Op)
	a := ev.vals[n.A]
	d, err := nd.UnaryResultType(op, a.DType())
	if err != nil {
		return nil, err
	}
	if isConst(a) {
		return constUnary(op, d, a)
	}
	v, err := ev.dest(i, out, d, a.Shape())
	if err != nil {
		return nil, err
	}
	return v, nd.UnaryInto(op, v, a)
}

func (ev *evaluator) cast(i int, n enode, out *nd.Array) (*nd.Array, error) {
	a := ev.vals[n.A]
	if isConst(a) {
		one, err := first(a)
		if err != nil {
			return nil, err
		}
		if one, err = one.AsType(n.D); err != nil {
			return nil, err
		}
		return one.BroadcastTo(a.Shape()...)
	}
	v, err := ev.dest(i, out, n.D, a.Shape())
	if err != nil {
		return nil, err
	}
	return v, nd.AsTypeInto(v, a)
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
// the output block reads (broadcast axes collapsed, as leafView does):
// straight into out when the node is the expression's result and out
// (C-contiguous) is that part's shape and dtype, else into the node's
// buffer.
func (ev *evaluator) random(i int, n enode, sl []nd.Slice1, out *nd.Array) (*nd.Array, error) {
	rb := ev.rands[n.A]
	m, nout := len(rb.shape), len(ev.shape)
	if m > nout {
		return nil, fmt.Errorf("%s: random block of %d axes in a block of %d", opElemwise, m, nout)
	}
	var rbuf, sbuf [16]int
	rs, st := rbuf[:0], sbuf[:0]
	for range m {
		rs, st = append(rs, 0), append(st, 0)
	}
	for j := range rs {
		ax := j + nout - m
		if rb.shape[j] == 1 && ev.shape[ax] != 1 {
			rs[j], st[j] = 1, rb.start[j]
		} else {
			rs[j], st[j] = sl[ax].Stop-sl[ax].Start, rb.start[j]+sl[ax].Start
		}
	}
	if out != nil && out.DType() == n.R.dtype() && slices.Equal(out.Shape(), rs) && out.IsCContiguous() {
		if err := n.R.fill(out.Data(), out.Offset(), st, rs); err != nil {
			return nil, err
		}
		return out, nil
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

// reduceFusedP is the chunk stage of a reduction fused with the
// expression that makes its input: Args as elemP's (collector.blockArgs).
// The expression is evaluated tile by tile (constant blocks in one go)
// and each tile is reduced into the block's partial, so that the input
// block never exists as a whole: a sum over a random or elementwise array
// streams through cache-sized buffers. Float partials are summed per tile
// and then tile after tile, a different association from one pairwise
// sum over the block (the unfused graph's); within rounding of it.
type reduceFusedP struct {
	E elemP   `json:"e"`
	R reduceP `json:"r"`
}

func (p reduceFusedP) run(ctx context.Context, args []any) (any, error) {
	// A whole-block sum of a zarr chunk may stream the chunk (streamSum).
	ev, shape, err := newEvaluator(ctx, &p.E, args, opReduceFused, p.R.Kind == pkPlain && p.R.Op == nd.Sum)
	if err != nil {
		return nil, err
	}
	defer ev.release()
	switch p.R.Kind {
	case pkMoments:
		// Mean, Var and Std: the block is evaluated into a free-list buffer
		// (no block of its own, no task) and its moments taken there.
		b, err := ev.block(shape, true)
		if err != nil {
			return nil, err
		}
		c, m, m2, err := nd.Moments(b, p.R.Axes)
		if err != nil {
			return nil, err
		}
		return []any{c, m, m2}, nil
	case pkPlain:
		return ev.reduce(p.R, shape)
	}
	return nil, fmt.Errorf("%s: bad kind %d", opReduceFused, p.R.Kind)
}

// reduce evaluates and reduces the block of the given shape with r's op
// over r's axes, keeping dims: constant and empty blocks in one go, sums
// to one element by a kernel where one fits (kernels.go), and otherwise
// tile by tile into the partial.
func (ev *evaluator) reduce(rp reduceP, shape []int) (*nd.Array, error) {
	red := make([]bool, len(shape))
	for _, ax := range rp.Axes {
		if ax < 0 || ax >= len(shape) {
			return nil, fmt.Errorf("%s: axis %d of a block of %d axes", opReduceFused, ax, len(shape))
		}
		red[ax] = true
	}
	if emptyPartial(rp, shape) {
		return nil, nil
	}
	if len(ev.pending) > 0 {
		if r, ok, err := ev.streamSum(rp, shape); ok || err != nil {
			return r, err
		}
		if err := ev.readPending(); err != nil {
			return nil, err
		}
	}
	if size(shape) == 0 || ev.constant() {
		// An empty block is not evaluated: its zeros reduce to the
		// identity (evaluating it first, and dropping the result,
		// panicked on a (3, 0, 1) block of x*x).
		var r *nd.Array
		var err error
		if size(shape) == 0 {
			r, err = nd.Zeros(ev.p.D, shape...)
		} else {
			r, err = ev.eval(wholeRegion(shape), nil)
		}
		if err != nil {
			return nil, err
		}
		return nd.Reduce(rp.Op, r, rp.Axes, true)
	}
	accShape := make([]int, len(shape))
	for i, s := range shape {
		accShape[i] = s
		if red[i] {
			accShape[i] = 1
		}
	}
	if rp.Op == nd.Sum && size(accShape) == 1 {
		if r, ok, err := ev.fastSum(accShape); ok || err != nil {
			return r, err
		}
	}
	return ev.reduceTiles(rp, shape, red, accShape)
}

// reduceTiles reduces the block tile by tile into a partial of accShape
// (the block's shape with the axes red reduced to 1).
func (ev *evaluator) reduceTiles(rp reduceP, shape []int, red []bool, accShape []int) (*nd.Array, error) {
	var acc *nd.Array
	bop := combineOps[rp.Op]
	asl := make([]nd.Slice1, len(shape))
	err := forTiles(shape, func(sl []nd.Slice1) error {
		r, err := ev.eval(sl, nil)
		if err != nil {
			return err
		}
		part, err := ev.partial(rp, r)
		if err != nil {
			return err
		}
		if acc == nil {
			if acc, err = nd.Zeros(part.DType(), accShape...); err != nil {
				return err
			}
		}
		// Tiles come in C order and cover trailing axes whole, so a
		// tile is the first to reach its part of the partial exactly
		// when it starts at 0 along every reduced axis.
		firstTouch := true
		for ax, s := range sl {
			asl[ax] = s
			if red[ax] {
				asl[ax] = nd.Slice1{Start: 0, Stop: 1, Step: 1}
				if s.Start != 0 {
					firstTouch = false
				}
			}
		}
		view := &ev.accHdr
		if err := view.SetSlice(acc, asl...); err != nil {
			return err
		}
		if firstTouch {
			return nd.Assign(view, part)
		}
		return nd.BinaryInto(bop, view, view, part)
	})
	if err != nil {
		return nil, err
	}
	return acc, nil
}

// partial reduces a tile r with rp's op over rp's axes, keeping dims, into
// the evaluator's partial buffer (nd.ReduceInto: Reduce's values, bit for
// bit, without a new array per tile), valid until the next call.
func (ev *evaluator) partial(rp reduceP, r *nd.Array) (*nd.Array, error) {
	var kbuf [16]int
	keep := append(kbuf[:0], r.Shape()...)
	for _, ax := range rp.Axes {
		if ax < 0 || ax >= len(keep) {
			return nd.Reduce(rp.Op, r, rp.Axes, true) // its error
		}
		keep[ax] = 1
	}
	d := nd.ReduceResultType(rp.Op, r.DType())
	n := size(keep)
	if ev.part == nil || ev.part.DType() != d || ev.part.Size() < n {
		var err error
		if ev.part, err = ev.tb.get(d, max(n, 1)); err != nil {
			return nil, err
		}
	}
	v := &ev.partHdr
	if err := v.SetSlice(ev.part, nd.Slice1{Start: 0, Stop: n, Step: 1}); err != nil {
		return nil, err
	}
	if err := v.SetReshape(v, keep...); err != nil {
		return nil, err
	}
	if err := nd.ReduceInto(rp.Op, v, r, rp.Axes); err != nil {
		return nil, err
	}
	return v, nil
}

const opReduceFused = "chunkarray.reduce-fused"

func init() { register[reduceFusedP](opReduceFused) }
