package chunkarray

import (
	"context"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Products of chunked arrays (Tensordot, Dot, Matmul) follow dask's
// plan: the contracted axes of both operands are rechunked to the union
// of their chunk boundaries, every pair of blocks that meet in an output
// block is multiplied in its own task (nd.Tensordot or nd.Matmul: gonum
// BLAS for floats and complex), and the partial products of one output
// block are summed by a reduction tree (Reduce with SplitEvery 4), so no
// task holds more than a few partial products. The partials carry a
// trailing axis of length 1 that indexes the contracted block: that axis
// is what the sum tree reduces. Integer products accumulate in int64 in
// the tree and are cast back, which wraps exactly as numpy's int8 or
// int16 loops do; bool products are "any of the ands", as numpy.

// contracted axis sources in contractLayer maps
const (
	srcOut  = iota // an output axis
	srcK           // a contracted axis pair
	srcZero        // a broadcast axis: block 0
)

type axSrc struct{ kind, i int }

type contractLayer struct {
	a, b       *Array
	amap, bmap []axSrc
	kNB        []int // blocks per contracted pair
	nout       int
	op         *op[contractP]
}

func (l *contractLayer) inputs() []*Array { return []*Array{l.a, l.b} }

func (l *contractLayer) block(_ *Array, idx []int) graph.Node {
	kidx := make([]int, len(l.kNB))
	if l.op.p.Trailing {
		f := idx[l.nout]
		for i := len(l.kNB) - 1; i >= 0; i-- {
			kidx[i] = f % l.kNB[i]
			f /= l.kNB[i]
		}
	}
	pick := func(m []axSrc) []int {
		out := make([]int, len(m))
		for i, s := range m {
			switch s.kind {
			case srcOut:
				out[i] = idx[s.i]
			case srcK:
				out[i] = kidx[s.i]
			}
		}
		return out
	}
	return graph.Task(l.op, graph.Ref(l.a.Key(pick(l.amap)...)), graph.Ref(l.b.Key(pick(l.bmap)...)))
}

const opContract = "chunkarray.contract"

func init() { register[contractP](opContract) }

// contractP multiplies two blocks. Args: the a block, the b block.
type contractP struct {
	Matmul   bool  `json:"matmul,omitempty"`
	AxesA    []int `json:"axes_a,omitempty"`
	AxesB    []int `json:"axes_b,omitempty"`
	Trailing bool  `json:"trailing,omitempty"` // add an axis of length 1
}

func (p contractP) run(_ context.Context, args []any) (any, error) {
	a, err := argArray(args[0], opContract)
	if err != nil {
		return nil, err
	}
	b, err := argArray(args[1], opContract)
	if err != nil {
		return nil, err
	}
	var out *nd.Array
	if p.Matmul {
		out, err = nd.Matmul(a, b)
	} else {
		out, err = nd.Tensordot(a, b, p.AxesA, p.AxesB)
	}
	if err != nil || !p.Trailing {
		return out, err
	}
	return out.Reshape(append(slices.Clone(out.Shape()), 1)...)
}

// contract builds the partial-product layer and its sum tree. shape and
// chunks are the output's; kNB the number of blocks of each contracted
// pair.
func contract(name string, a, b *Array, amap, bmap []axSrc, kNB []int, shape []int, chunks [][]int, d nd.DType, p contractP, toks ...any) *Array {
	nk := prod(kNB)
	p.Trailing = nk > 1
	l := &contractLayer{a: a, b: b, amap: amap, bmap: bmap, kNB: kNB, nout: len(shape), op: newOp(opContract, p)}
	toks = append([]any{a.name, b.name, p.Matmul, p.AxesA, p.AxesB}, toks...)
	if !p.Trailing {
		return newArray(name, shape, chunks, d, l, toks...)
	}
	psh := append(slices.Clone(shape), nk)
	pch := append(slices.Clone(chunks), ones(nk))
	part := newArray(name+"-partial", psh, pch, d, l, toks...)
	s := part.Reduce(nd.Sum, []int{len(shape)}, ReduceOpts{SplitEvery: 4})
	if s.err == nil && s.dtype != d {
		s = s.AsType(d)
	}
	return s
}

// Tensordot sums the products of a and b over axesA of a paired with
// axesB of b, as numpy.tensordot with explicit axis lists: the result
// has a's other axes, then b's.
func Tensordot(a, b *Array, axesA, axesB []int) *Array {
	return tensordot("tensordot", a, b, axesA, axesB)
}

func tensordot(name string, a, b *Array, axesA, axesB []int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	shapes := [][]int{a.shape, b.shape}
	if len(axesA) != len(axesB) {
		return errorf(name, shapes, "%d axes of a paired with %d axes of b", len(axesA), len(axesB))
	}
	axA, err := nd.NormalizeAxes(name, axesA, a.NDim())
	if err != nil {
		return errorf(name, shapes, "%v", err)
	}
	axB, err := nd.NormalizeAxes(name, axesB, b.NDim())
	if err != nil {
		return errorf(name, shapes, "%v", err)
	}
	if len(axA) != len(axesA) || len(axB) != len(axesB) {
		return errorf(name, shapes, "repeated axes %v, %v", axesA, axesB)
	}
	d := nd.ResultType(a.dtype, b.dtype)
	if d == nd.Invalid {
		return errorf(name, shapes, "dtypes %s and %s have no common type", a.dtype, b.dtype)
	}
	wantA, wantB := slices.Clone(a.chunks), slices.Clone(b.chunks)
	kNB := make([]int, len(axA))
	amap := make([]axSrc, a.NDim())
	bmap := make([]axSrc, b.NDim())
	for i := range axA {
		if err := sameUnknown(name, a, b, axA[i], axB[i]); err != nil {
			return errArray(err)
		}
		if a.shape[axA[i]] != b.shape[axB[i]] {
			return errorf(name, shapes, "shape mismatch for sum: axis %d of a (%d) and axis %d of b (%d)", axA[i], a.shape[axA[i]], axB[i], b.shape[axB[i]])
		}
		u := unionChunks([][]int{a.chunks[axA[i]], b.chunks[axB[i]]})
		wantA[axA[i]], wantB[axB[i]] = u, u
		kNB[i] = len(u)
		amap[axA[i]] = axSrc{srcK, i}
		bmap[axB[i]] = axSrc{srcK, i}
	}
	var shape []int
	var chunks [][]int
	for i := range a.NDim() {
		if !slices.Contains(axA, i) {
			amap[i] = axSrc{srcOut, len(shape)}
			shape = append(shape, a.shape[i])
			chunks = append(chunks, a.chunks[i])
		}
	}
	for i := range b.NDim() {
		if !slices.Contains(axB, i) {
			bmap[i] = axSrc{srcOut, len(shape)}
			shape = append(shape, b.shape[i])
			chunks = append(chunks, b.chunks[i])
		}
	}
	if shape == nil {
		shape, chunks = []int{}, [][]int{}
	}
	a, b = a.Rechunk(wantA), b.Rechunk(wantB)
	return contract(name, a, b, amap, bmap, kNB, shape, chunks, d, contractP{AxesA: axA, AxesB: axB})
}

// Dot is numpy.dot: the sum over a's last axis and b's second-to-last
// (its only one when b is 1-d); a 0-d operand multiplies elementwise.
func Dot(a, b *Array) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	switch {
	case a.NDim() == 0 || b.NDim() == 0:
		return Mul(a, b)
	case b.NDim() == 1:
		return tensordot("dot", a, b, []int{a.NDim() - 1}, []int{0})
	}
	return tensordot("dot", a, b, []int{a.NDim() - 1}, []int{b.NDim() - 2})
}

// Matmul is numpy.matmul (the @ operator): matrix products over the last
// two axes, leading (batch) axes broadcast; a 1-d a is a row vector and a
// 1-d b a column vector, the added axis removed from the result.
func Matmul(a, b *Array) *Array {
	const name = "matmul"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	shapes := [][]int{a.shape, b.shape}
	if a.NDim() == 0 || b.NDim() == 0 {
		return errorf(name, shapes, "operand does not have enough dimensions")
	}
	av, bv := a, b
	if a.NDim() == 1 {
		av = a.ExpandDims(0)
	}
	if b.NDim() == 1 {
		bv = b.ExpandDims(-1)
	}
	na, nb := av.NDim(), bv.NDim()
	for _, x := range []*Array{av, bv} {
		for ax, s := range x.shape[:x.NDim()-2] {
			if s == Unknown { // unknown.go: batch axes broadcast by size
				return errArray(unknownError(name, x.shape, ax))
			}
		}
	}
	if err := sameUnknown(name, av, bv, na-1, nb-2); err != nil {
		return errArray(err)
	}
	if av.shape[na-1] != bv.shape[nb-2] {
		return errorf(name, shapes, "mismatch in core dimension (size %d is different from %d)", av.shape[na-1], bv.shape[nb-2])
	}
	batch, err := nd.BroadcastShapes(name, av.shape[:na-2], bv.shape[:nb-2])
	if err != nil {
		return errorf(name, shapes, "batch dimensions could not be broadcast together")
	}
	d := nd.ResultType(a.dtype, b.dtype)
	if d == nd.Invalid {
		return errorf(name, shapes, "dtypes %s and %s have no common type", a.dtype, b.dtype)
	}
	nbt := len(batch)
	shape := append(slices.Clone(batch), av.shape[na-2], bv.shape[nb-1])
	chunks := make([][]int, nbt+2)
	wantA, wantB := slices.Clone(av.chunks), slices.Clone(bv.chunks)
	amap := make([]axSrc, na)
	bmap := make([]axSrc, nb)
	for ax := range nbt {
		var cs [][]int
		for _, x := range []*Array{av, bv} {
			j := ax - (nbt - (x.NDim() - 2))
			if j >= 0 && !(x.shape[j] == 1 && batch[ax] != 1) {
				cs = append(cs, x.chunks[j])
			}
		}
		chunks[ax] = []int{batch[ax]}
		if len(cs) > 0 {
			chunks[ax] = unionChunks(cs)
		}
		for k, x := range []*Array{av, bv} {
			j := ax - (nbt - (x.NDim() - 2))
			if j < 0 {
				continue
			}
			m, want := amap, wantA
			if k == 1 {
				m, want = bmap, wantB
			}
			if x.shape[j] == 1 && batch[ax] != 1 {
				m[j] = axSrc{srcZero, 0}
				want[j] = []int{1} // block 0 is then the element, not an empty chunk
				continue
			}
			m[j] = axSrc{srcOut, ax}
			want[j] = chunks[ax]
		}
	}
	u := unionChunks([][]int{av.chunks[na-1], bv.chunks[nb-2]})
	wantA[na-1], wantB[nb-2] = u, u
	chunks[nbt], chunks[nbt+1] = av.chunks[na-2], bv.chunks[nb-1]
	amap[na-2], amap[na-1] = axSrc{srcOut, nbt}, axSrc{srcK, 0}
	bmap[nb-2], bmap[nb-1] = axSrc{srcK, 0}, axSrc{srcOut, nbt + 1}
	av, bv = av.Rechunk(wantA), bv.Rechunk(wantB)
	out := contract(name, av, bv, amap, bmap, []int{len(u)}, shape, chunks, d, contractP{Matmul: true})
	switch {
	case a.NDim() == 1 && b.NDim() == 1:
		return out.Squeeze(-1, -2)
	case a.NDim() == 1:
		return out.Squeeze(-2)
	case b.NDim() == 1:
		return out.Squeeze(-1)
	}
	return out
}

// sameUnknown checks a contracted pair of axes when either has Unknown
// chunks (unknown.go): their blocks meet one to one only when both
// chunkings are the same list; otherwise unknownError. A length that
// turns out to differ fails when the blocks are multiplied.
func sameUnknown(name string, a, b *Array, axA, axB int) error {
	ua, ub := a.shape[axA] == Unknown, b.shape[axB] == Unknown
	switch {
	case !ua && !ub:
		return nil
	case ua && ub && slices.Equal(a.chunks[axA], b.chunks[axB]):
		return nil
	case ua:
		return unknownError(name, a.shape, axA)
	}
	return unknownError(name, b.shape, axB)
}
