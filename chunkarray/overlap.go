package chunkarray

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Boundary says what MapOverlap puts in the ghost cells beyond the
// array's edges.
type Boundary struct {
	kind int
	v    any
}

const (
	bndNone = iota
	bndPeriodic
	bndReflect
	bndNearest
	bndConstant
)

var (
	// BoundaryNone adds no ghost cells at the array's edges: edge blocks
	// are passed smaller.
	BoundaryNone = Boundary{kind: bndNone}
	// BoundaryPeriodic wraps around: the cells before the first come
	// from the end of the axis.
	BoundaryPeriodic = Boundary{kind: bndPeriodic}
	// BoundaryReflect mirrors the axis, edge cell included (dask's
	// "reflect", numpy.pad's "symmetric"): ..., x1, x0 | x0, x1, ...
	BoundaryReflect = Boundary{kind: bndReflect}
	// BoundaryNearest repeats the edge cell.
	BoundaryNearest = Boundary{kind: bndNearest}
)

// BoundaryConstant fills the ghost cells beyond the edges with v.
func BoundaryConstant(v any) Boundary { return Boundary{kind: bndConstant, v: v} }

// ParseBoundary returns the boundary named as in dask: "none",
// "periodic", "reflect" or "nearest".
func ParseBoundary(s string) (Boundary, error) {
	switch s {
	case "none":
		return BoundaryNone, nil
	case "periodic":
		return BoundaryPeriodic, nil
	case "reflect":
		return BoundaryReflect, nil
	case "nearest":
		return BoundaryNearest, nil
	}
	return Boundary{}, fmt.Errorf("chunkarray: boundary %q: want none, periodic, reflect or nearest (or BoundaryConstant)", s)
}

// run is one stretch of a ghosted block along one axis: n cells taken
// from input block in starting at lo with step ±1, or, with in == -1,
// the constant.
type run struct{ in, lo, step, n int }

// MapOverlap applies the registered function fn to every block of x
// widened by depth[ax] cells on both sides of each axis (dask's
// map_overlap): the ghost cells come from the neighbouring blocks, and at
// the array's edges from the boundary rule; the function's result, as
// large as its input, is trimmed back to the block. Unlike dask, which
// builds an overlapped array (getitem and concatenate tasks) and then a
// trim layer, each output block here is one task that gathers its pieces
// from the input blocks it needs, calls fn and trims. depth may exceed
// the chunk length (several neighbours are read); for periodic and
// reflect it may not exceed the axis length.
func MapOverlap(fn string, x *Array, depth []int, b Boundary, o BlockOpts) *Array {
	const name = "map_overlap"
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, x); err != nil { // unknown.go
		return errArray(err)
	}
	if _, ok := lookupBlockFunc(fn); !ok {
		return errorf(name, nil, "block function %q is not registered (RegisterBlockFunc)", fn)
	}
	shapes := [][]int{x.shape}
	if len(depth) != x.NDim() {
		return errorf(name, shapes, "%s: depth %v for %d axes", fn, depth, x.NDim())
	}
	for ax, d := range depth {
		if d < 0 {
			return errorf(name, shapes, "%s: negative depth %d on axis %d", fn, d, ax)
		}
		if (b.kind == bndPeriodic || b.kind == bndReflect) && d > x.shape[ax] {
			return errorf(name, shapes, "%s: depth %d exceeds axis %d of length %d", fn, d, ax, x.shape[ax])
		}
	}
	var fill scalar
	if b.kind == bndConstant {
		var err error
		if fill, err = scalarOf(b.v, x.dtype); err != nil {
			return errorf(name, shapes, "%s: constant %v: %v", fn, b.v, err)
		}
	}
	d := x.dtype
	if o.DType != nd.Invalid {
		d = o.DType
	}
	if o.Chunks != nil {
		return errorf(name, shapes, "%s: output chunks are those of the input", fn)
	}
	// Per axis and block: the runs that make the ghosted block, and how
	// many ghost cells precede and follow the block.
	plans := make([][][]run, x.NDim())
	pads := make([][][2]int, x.NDim())
	for ax := range x.NDim() {
		st := starts(x.chunks[ax])
		n := x.shape[ax]
		for bi, c := range x.chunks[ax] {
			lo, hi := st[bi]-depth[ax], st[bi]+c+depth[ax]
			if b.kind == bndNone {
				lo, hi = max(lo, 0), min(hi, n)
			}
			if c == 0 {
				lo, hi = st[bi], st[bi]
			}
			pads[ax] = append(pads[ax], [2]int{st[bi] - lo, hi - st[bi] - c})
			plans[ax] = append(plans[ax], ghostRuns(x.chunks[ax], n, lo, hi, b.kind))
		}
	}
	p := overlapP{Fn: fn, D: d, Shape: x.shape, Fill: fill, HasFill: b.kind == bndConstant}
	l := &overlapLayer{in: x, plans: plans, pads: pads, op: newOp(opOverlap, p)}
	return newArray(fn+"-overlap", x.shape, x.chunks, d, l, fn, x.name, depth, b.kind, fill.Lo, fill.Hi, int(d))
}

// ghostRuns lists where the cells [lo, hi) of an axis chunked as c come
// from, under the boundary rule.
func ghostRuns(c []int, n, lo, hi, kind int) []run {
	var out []run
	for p := lo; p < hi; p++ {
		q := p
		if p < 0 || p >= n {
			switch kind {
			case bndPeriodic:
				q = ((p % n) + n) % n
			case bndReflect:
				if p < 0 {
					q = -p - 1
				} else {
					q = 2*n - p - 1
				}
			case bndNearest:
				q = min(max(p, 0), n-1)
			default:
				q = -1
			}
		}
		if q < 0 {
			if k := len(out) - 1; k >= 0 && out[k].in == -1 {
				out[k].n++
			} else {
				out = append(out, run{in: -1, n: 1})
			}
			continue
		}
		bi, local := locate(c, q)
		if k := len(out) - 1; k >= 0 && out[k].in == bi {
			r := &out[k]
			next := r.lo + r.step*r.n
			if r.n == 1 && (local == r.lo+1 || local == r.lo-1) {
				r.step = local - r.lo
				r.n++
				continue
			}
			if local == next {
				r.n++
				continue
			}
		}
		out = append(out, run{in: bi, lo: local, step: 1, n: 1})
	}
	return out
}

type overlapLayer struct {
	in    *Array
	plans [][][]run
	pads  [][][2]int
	op    *op[overlapP]
}

func (l *overlapLayer) inputs() []*Array { return []*Array{l.in} }

func (l *overlapLayer) block(a *Array, idx []int) graph.Node {
	n := len(idx)
	rs := make([][]run, n)
	cnt := make([]int, n)
	for ax, j := range idx {
		rs[ax] = l.plans[ax][j]
		cnt[ax] = len(rs[ax])
	}
	// geometry: per axis the ghosted length and the pads, then per
	// piece and axis (lo, step, n, out offset)
	st := a.blockStart(idx)
	var geo []int
	for ax, j := range idx {
		p := l.pads[ax][j]
		geo = append(geo, j, st[ax]-p[0], st[ax]+a.chunks[ax][j]+p[1], p[0], p[1])
	}
	var refs []graph.Arg
	src := make([]int, n)
	forBlocks(cnt, func(k []int) {
		for ax, x := range k {
			if rs[ax][x].in < 0 {
				return // a constant piece: the fill covers it
			}
		}
		for ax, x := range k {
			src[ax] = rs[ax][x].in
		}
		refs = append(refs, graph.Ref(l.in.Key(src...)))
		for ax, x := range k {
			off := 0
			for _, q := range rs[ax][:x] {
				off += q.n
			}
			r := rs[ax][x]
			geo = append(geo, r.lo, r.step, r.n, off)
		}
	})
	return graph.Task(l.op, graph.Lit(geo), graph.List(refs...))
}

const opOverlap = "chunkarray.overlap"

func init() { register[overlapP](opOverlap) }

// overlapP assembles a ghosted block, calls the function and trims.
// Args: the geometry (per axis: block index, ghosted start and stop,
// pads before and after; then per piece and axis: lo, step, n, offset),
// the input blocks.
type overlapP struct {
	Fn      string   `json:"fn"`
	D       nd.DType `json:"dtype"`
	Shape   []int    `json:"shape"`
	Fill    scalar   `json:"fill"`
	HasFill bool     `json:"has_fill,omitempty"`
}

func (p overlapP) requires() []string { return []string{requireBlockFunc + p.Fn} }

func (p overlapP) run(_ context.Context, args []any) (any, error) {
	fn, ok := lookupBlockFunc(p.Fn)
	if !ok {
		return nil, fmt.Errorf("%s: block function %q is not registered in this process", opOverlap, p.Fn)
	}
	geo, err := argInts(args, 0, opOverlap)
	if err != nil {
		return nil, err
	}
	list, _ := args[1].([]any)
	n := len(p.Shape)
	if len(geo) != 5*n+4*n*len(list) {
		return nil, fmt.Errorf("%s: %d geometry entries for %d pieces of %d axes", opOverlap, len(geo), len(list), n)
	}
	info := BlockInfo{Index: make([]int, n), Location: make([][2]int, n), Shape: p.Shape}
	gshape := make([]int, n)
	trim := make([]nd.Slice1, n)
	for ax := range n {
		g := geo[5*ax:]
		info.Index[ax] = g[0]
		info.Location[ax] = [2]int{g[1], g[2]}
		gshape[ax] = g[2] - g[1]
		trim[ax] = nd.Slice1{Start: g[3], Stop: gshape[ax] - g[4], Step: 1}
	}
	var dt nd.DType
	if len(list) > 0 {
		b, err := argArray(list[0], opOverlap)
		if err != nil {
			return nil, err
		}
		dt = b.DType()
	} else {
		dt = p.Fill.D
	}
	ghost, err := nd.Zeros(dt, gshape...)
	if err != nil {
		return nil, err
	}
	if p.HasFill {
		f, err := nd.Full(dt, p.Fill.value(), gshape...)
		if err != nil {
			return nil, err
		}
		if err := nd.Assign(ghost, f); err != nil {
			return nil, err
		}
	}
	src := make([]nd.Slice1, n)
	dst := make([]nd.Slice1, n)
	pg := geo[5*n:]
	for i, v := range list {
		b, err := argArray(v, opOverlap)
		if err != nil {
			return nil, err
		}
		g := pg[4*n*i:]
		for ax := range n {
			lo, step, m, off := g[4*ax], g[4*ax+1], g[4*ax+2], g[4*ax+3]
			src[ax] = nd.Slice1{Start: lo, Stop: lo + step*m, Step: step}
			dst[ax] = nd.Slice1{Start: off, Stop: off + m, Step: 1}
		}
		part, err := b.Slice(src...)
		if err != nil {
			return nil, err
		}
		if err := copyRegion(ghost, dst, part); err != nil {
			return nil, err
		}
	}
	out, err := fn(info, ghost)
	if err != nil {
		return nil, fmt.Errorf("%s: block %v: %w", p.Fn, info.Index, err)
	}
	if out, err = checkBlock(p.Fn, info, out, p.D); err != nil {
		return nil, err
	}
	return out.Slice(trim...)
}
