package chunkarray

import (
	"github.com/tessera-go/tessera/graph"
)

// fusable reports whether x may be evaluated inside its consumer's fused
// expression instead of being a task of its own.
func (c *collector) fusable(x *Array) bool {
	if !c.fuse || c.root[x] || c.users[x] != 1 {
		return false
	}
	switch l := x.lay.(type) {
	case *elemLayer, *fullLayer, *randomLayer:
		return true
	case *sourceLayer:
		// A zarr chunk is read inside the consumer's task, into a
		// reused buffer, instead of into a new block of its own.
		_, ok := l.op.(*op[zarrReadP])
		return ok
	}
	_, ok := constOf(x)
	return ok
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

// fusedReduce returns the reduction layer of a when a is the chunk stage
// of a reduction whose input is fused into it: each block's task then
// evaluates the input's expression tile by tile and reduces the tiles as
// they come, and the input block is never materialised.
func (c *collector) fusedReduce(a *Array) *reduceLayer {
	l, ok := a.lay.(*reduceLayer)
	if !ok || l.op.p.Stage != stChunk || l.op.p.Kind == pkArg || l.op.p.Device != "" || !c.fusable(l.in) {
		return nil
	}
	return l
}

// deps returns the Arrays whose tasks a's tasks refer to.
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

// emitReduceFused writes the chunk-stage tasks of a, whose input l.in is
// fused into them.
func (c *collector) emitReduceFused(a *Array, l *reduceLayer) error {
	f := c.fusedOf(l.in)
	o := newOp(opReduceFused, reduceFusedP{E: f.op.p, R: l.op.p})
	var err error
	forBlocks(a.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		err = c.g.Set(a.Key(idx...), graph.Task(o, c.blockArgs(f, l.in, idx)...))
	})
	return err
}
