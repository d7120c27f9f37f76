package chunkarray

import (
	"slices"

	"github.com/tessera-go/tessera/graph"
)

// Blockwise fusion, collection side: which Arrays fuse into their
// consumer, the expression (elemP) a fused task evaluates, and the tasks
// that evaluate it. The evaluator is in fuse_eval.go. Both dispatches of
// fusion live here, once each: inputKind says what an Array becomes
// inside an expression, fusedTask says which Arrays' blocks are fused
// tasks (an elementwise Array, or the chunk stage of a reduction whose
// input fuses into it); the collector (compute.go) asks fusedTask for a
// task's dependencies and for its emission alike.

// inputKind is what x becomes inside a consumer's fused expression: its
// operation's node kind (kBin, kUn, kWhere, kCast) when x is elementwise,
// whose operands are then walked in turn; kFull for a constant; kRand for
// a random block generated in place; kZarr or kNPY for a block read in
// place. kIn means x can only be a block argument: its own task.
func inputKind(x *Array) uint8 {
	switch l := x.lay.(type) {
	case *elemLayer:
		return l.kind
	case *randomLayer:
		return kRand
	case *sourceLayer:
		// A file's block is read inside the consumer's task (a zarr
		// chunk into a reused buffer) instead of into a block of its own.
		switch l.op.(type) {
		case *op[zarrReadP]:
			return kZarr
		case *op[npyReadP]:
			return kNPY
		}
		return kIn
	}
	if _, ok := constOf(x); ok {
		return kFull
	}
	return kIn
}

// fusable reports whether x may be evaluated inside its consumer's fused
// expression instead of being a task of its own: fusion is on, x is not
// asked for, has one consumer, and can be a node of an expression.
func (c *collector) fusable(x *Array) bool {
	return c.fuse && !c.root[x] && c.users[x] == 1 && inputKind(x) != kIn
}

// constOf returns the value of x when every element of x is that value:
// a constant array (Ones, Full) or a selection or transposition of one.
// Such an x fuses into its consumer as a constant and is never a task.
func constOf(x *Array) (scalar, bool) {
	for {
		switch l := x.lay.(type) {
		case *fullLayer:
			return l.op.p.V, true
		case *getitemLayer:
			x = l.in
		case *transposeLayer:
			x = l.in
		default:
			return scalar{}, false
		}
	}
}

// fusedTask reports whether a's blocks are fused tasks, and returns the
// Array whose expression they evaluate (expr) with, for the chunk stage
// of a reduction, its layer (red; nil for an elementwise a). A reduction's
// chunk task then evaluates its input's expression tile by tile and
// reduces the tiles as they come: the input block is never materialised.
// Arg reductions and device reductions keep their own chunk tasks.
func (c *collector) fusedTask(a *Array) (expr *Array, red *reduceLayer, ok bool) {
	switch l := a.lay.(type) {
	case *elemLayer:
		return a, nil, true
	case *reduceLayer:
		p := l.op.p
		if p.Stage == stChunk && p.Kind != pkArg && p.Device == "" && c.fusable(l.in) {
			return l.in, l, true
		}
	}
	return nil, nil, false
}

// emitFused writes one task per block of a: expr's fused expression
// applied to the leaves' blocks, mapped by broadcasting, and reduced when
// red is not nil. a and expr have the same block grid, but for the
// empty blocks a reduction skips (reduceLayer.src).
func (c *collector) emitFused(a, expr *Array, red *reduceLayer) error {
	f := c.fusedOf(expr)
	var o graph.Op = f.op
	if red != nil {
		o = newOp(opReduceFused, reduceFusedP{E: f.op.p, R: red.op.p})
	}
	var err error
	forBlocks(a.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		err = c.g.Set(a.Key(idx...), graph.Task(o, c.blockArgs(f, expr, red.src(idx))...))
	})
	return err
}

// fused is the expression an Array computes, with the Arrays whose
// blocks it reads as arguments (leaves), the random Arrays it generates
// in place (rands) and the file Arrays it reads in place (files).
type fused struct {
	op     *op[elemP]
	leaves []*Array
	rands  []*Array
	files  []*Array
}

// exprBuilder builds one fused expression: nodes in evaluation order,
// operands before their users, each Array visited once.
type exprBuilder struct {
	c                    *collector
	nodes                []enode
	leaves, rands, files []*Array
	memo                 map[*Array]int32
}

func (b *exprBuilder) add(x *Array, n enode) int32 {
	b.nodes = append(b.nodes, n)
	i := int32(len(b.nodes) - 1)
	if x != nil {
		b.memo[x] = i
	}
	return i
}

// build adds the nodes of x and returns the index of x's node; top is the
// Array whose expression is built, which is expanded even though it is
// not fusable (it has its own task: this one).
func (b *exprBuilder) build(x *Array, top bool) int32 {
	if i, ok := b.memo[x]; ok {
		return i
	}
	k := kIn
	if top || b.c.fusable(x) {
		k = int(inputKind(x))
	}
	switch k {
	case kBin, kUn, kWhere, kCast:
		l := x.lay.(*elemLayer)
		var args [3]int32
		for j, o := range l.ops {
			if o.arr == nil {
				args[j] = b.add(nil, enode{K: kConst, S: o.sc})
			} else {
				args[j] = b.build(o.arr, false)
			}
		}
		return b.add(x, enode{K: l.kind, Op: l.op, A: args[0], B: args[1], C: args[2], D: l.d})
	case kFull:
		v, _ := constOf(x)
		return b.add(x, enode{K: kFull, S: v})
	case kRand:
		rp := x.lay.(*randomLayer).op.p
		b.rands = append(b.rands, x)
		return b.add(x, enode{K: kRand, A: int32(len(b.rands) - 1), R: &rp})
	case kZarr:
		zp := x.lay.(*sourceLayer).op.(*op[zarrReadP]).p
		b.files = append(b.files, x)
		return b.add(x, enode{K: kZarr, A: int32(len(b.files) - 1), F: zp.Path, N: x.name, h: zp.h})
	case kNPY:
		np := x.lay.(*sourceLayer).op.(*op[npyReadP]).p
		b.files = append(b.files, x)
		return b.add(x, enode{K: kNPY, A: int32(len(b.files) - 1), F: np.Path, N: x.name, P: &np})
	}
	b.leaves = append(b.leaves, x)
	return b.add(x, enode{K: kIn, A: int32(len(b.leaves) - 1)})
}

// fusedOf builds (once) the expression of a (an elementwise Array, or the
// fusable input of a reduction), pulling in every operand that c.fusable
// allows.
func (c *collector) fusedOf(a *Array) *fused {
	if f, ok := c.exprs[a]; ok {
		return f
	}
	b := &exprBuilder{c: c, memo: map[*Array]int32{}}
	b.build(a, true)
	f := &fused{op: newOp(opElemwise, elemP{Nodes: b.nodes, D: a.dtype}), leaves: b.leaves, rands: b.rands, files: b.files}
	c.exprs[a] = f
	return f
}

// blockArgs returns the arguments of the fused task of block idx of x:
// the block shape, the leaves' blocks mapped by broadcasting, then per
// random node the start and shape of its block, then per file node one
// list of ints: a zarr chunk's index, or an npy block's index, start and
// shape one after the other (the index names the read's key in errors).
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
		li := src(z)
		if _, ok := z.lay.(*sourceLayer).op.(*op[npyReadP]); ok {
			li = slices.Concat(li, z.blockStart(li), z.blockShape(li))
		}
		args = append(args, graph.Lit(li))
	}
	return args
}
