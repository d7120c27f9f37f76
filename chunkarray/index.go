package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/chunkarray/nd"
	"github.com/tessera-go/tessera/graph"
)

// Sel selects along one axis in Index: All (the whole axis), At(i) (one
// position, the axis is dropped), Range(start, stop) (step 1, negative
// values count from the end) or NewAxis (a new axis of length 1).
type Sel struct {
	kind        int
	start, stop int
}

const (
	selAll = iota
	selAt
	selRange
	selNew
)

// All selects a whole axis (numpy's ":").
func All() Sel { return Sel{kind: selAll} }

// At selects position i and drops the axis.
func At(i int) Sel { return Sel{kind: selAt, start: i} }

// Range selects start:stop.
func Range(start, stop int) Sel { return Sel{kind: selRange, start: start, stop: stop} }

// NewAxis inserts an axis of length 1 (numpy's None).
func NewAxis() Sel { return Sel{kind: selNew} }

// Index selects with numpy's basic indexing: one Sel per axis (missing
// trailing ones are All), plus NewAxis entries.
func (a *Array) Index(sels ...Sel) *Array {
	const name = "getitem"
	if a.err != nil {
		return a
	}
	nin := 0
	for _, s := range sels {
		if s.kind != selNew {
			nin++
		}
	}
	if nin > a.NDim() {
		return errorf(name, [][]int{a.shape}, "too many indices (%d) for %d axes", nin, a.NDim())
	}
	for ; nin < a.NDim(); nin++ {
		sels = append(sels, All())
	}
	var shape []int
	var chunks [][]int
	// per input axis: the range kept and, per output chunk along it, the
	// input block and local range
	type axmap struct {
		out  int // output axis, -1 if dropped
		plan [][]piece
	}
	maps := make([]axmap, a.NDim())
	var toks []any
	ax := 0
	for _, s := range sels {
		toks = append(toks, s.kind, s.start, s.stop)
		if s.kind == selNew {
			shape = append(shape, 1)
			chunks = append(chunks, []int{1})
			continue
		}
		n := a.shape[ax]
		lo, hi := 0, n
		switch s.kind {
		case selAt:
			i := s.start
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return errorf(name, [][]int{a.shape}, "index %d out of range for axis %d", s.start, ax)
			}
			lo, hi = i, i+1
		case selRange:
			lo, hi = s.start, s.stop
			if lo < 0 {
				lo += n
			}
			if hi < 0 {
				hi += n
			}
			lo, hi = min(max(lo, 0), n), min(max(hi, 0), n)
			hi = max(hi, lo)
		}
		// pieces of input chunks within [lo, hi): one output chunk each
		var plan [][]piece
		var oc []int
		st := starts(a.chunks[ax])
		for b, c := range a.chunks[ax] {
			s0, e0 := max(lo, st[b]), min(hi, st[b]+c)
			if e0 > s0 {
				plan = append(plan, []piece{{in: b, lo: s0 - st[b], hi: e0 - st[b]}})
				oc = append(oc, e0-s0)
			}
		}
		if len(plan) == 0 {
			plan = [][]piece{{{in: 0}}}
			oc = []int{0}
		}
		m := axmap{out: -1, plan: plan}
		if s.kind != selAt {
			m.out = len(shape)
			shape = append(shape, hi-lo)
			chunks = append(chunks, oc)
		}
		maps[ax] = m
		ax++
	}
	l := &getitemLayer{in: a}
	for _, m := range maps {
		l.outAx = append(l.outAx, m.out)
		l.plan = append(l.plan, m.plan)
	}
	if shape == nil {
		shape, chunks = []int{}, [][]int{}
	}
	return newArray(name, shape, chunks, a.dtype, l, append([]any{a.name}, toks...)...)
}

type getitemLayer struct {
	in    *Array
	outAx []int // per input axis, the output axis (-1: dropped by At)
	plan  [][][]piece
}

func (l *getitemLayer) inputs() []*Array { return []*Array{l.in} }

func (l *getitemLayer) block(a *Array, idx []int) graph.Node {
	n := l.in.NDim()
	src := make([]int, n)
	geo := make([]int, 0, 2*n)
	for ax := 0; ax < n; ax++ {
		j := 0
		if o := l.outAx[ax]; o >= 0 {
			j = idx[o]
		}
		p := l.plan[ax][j][0]
		src[ax] = p.in
		geo = append(geo, p.lo, p.hi)
	}
	return graph.Task(getitemOp, graph.Ref(l.in.Key(src...)), graph.Lit(geo), graph.Lit(a.blockShape(idx)))
}

var getitemOp = newOp(opGetitem, getitemP{})

// getitemP slices a block. Args: the block, per axis (lo, hi), the output
// block shape.
type getitemP struct{}

func (getitemP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opGetitem)
	if err != nil {
		return nil, err
	}
	geo, err := argInts(args, 1, opGetitem)
	if err != nil {
		return nil, err
	}
	shape, err := argInts(args, 2, opGetitem)
	if err != nil {
		return nil, err
	}
	if len(geo) != 2*b.NDim() {
		return nil, fmt.Errorf("%s: %d bounds for %d axes", opGetitem, len(geo), b.NDim())
	}
	sl := make([]nd.Slice1, b.NDim())
	for i := range sl {
		sl[i] = nd.Slice1{Start: geo[2*i], Stop: geo[2*i+1], Step: 1}
	}
	v, err := b.Slice(sl...)
	if err != nil {
		return nil, err
	}
	if slices.Equal(v.Shape(), shape) {
		return v, nil
	}
	return reshapeView(v, shape)
}

// reshapeView reshapes v to shape when only axes of length 1 are dropped
// or added: a view with zero strides for the new axes, no copy.
func reshapeView(v *nd.Array, shape []int) (*nd.Array, error) {
	var keep []int // v's axes of length != 1
	for i, s := range v.Shape() {
		if s != 1 {
			keep = append(keep, i)
		}
	}
	j := 0
	ok := true
	for _, s := range shape {
		if s != 1 {
			if j >= len(keep) || v.Shape()[keep[j]] != s {
				ok = false
				break
			}
			j++
		}
	}
	if !ok || j != len(keep) {
		return v.Reshape(shape...)
	}
	// Drop every length-1 axis with Index, then add the new ones by
	// broadcasting from a reshaped contiguous copy if needed.
	for i := v.NDim() - 1; i >= 0; i-- {
		if v.Shape()[i] == 1 {
			var err error
			if v, err = v.Index(i, 0); err != nil {
				return nil, err
			}
		}
	}
	return v.Reshape(shape...)
}

// Transpose permutes the axes (none given: reverses them), as numpy.
func (a *Array) Transpose(axes ...int) *Array {
	const name = "transpose"
	if a.err != nil {
		return a
	}
	n := a.NDim()
	if len(axes) == 0 {
		axes = make([]int, n)
		for i := range axes {
			axes[i] = n - 1 - i
		}
	}
	norm, err := nd.NormalizeAxes(name, axes, n)
	if err != nil || len(norm) != n {
		return errorf(name, [][]int{a.shape}, "axes %v are not a permutation of %d axes", axes, n)
	}
	seen := make([]bool, n)
	for _, x := range norm {
		if seen[x] {
			return errorf(name, [][]int{a.shape}, "axes %v repeat an axis", axes)
		}
		seen[x] = true
	}
	shape := make([]int, n)
	chunks := make([][]int, n)
	for i, x := range norm {
		shape[i], chunks[i] = a.shape[x], a.chunks[x]
	}
	return newArray(name, shape, chunks, a.dtype, &transposeLayer{in: a, op: newOp(opTranspose, transposeP{Axes: norm})}, a.name, norm)
}

// T is Transpose with the axes reversed.
func (a *Array) T() *Array { return a.Transpose() }

const opTranspose = "chunkarray.transpose"

func init() { register[transposeP](opTranspose) }

type transposeP struct {
	Axes []int `json:"axes"`
}

func (p transposeP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opTranspose)
	if err != nil {
		return nil, err
	}
	return b.Transpose(p.Axes...)
}

type transposeLayer struct {
	in *Array
	op *op[transposeP]
}

func (l *transposeLayer) inputs() []*Array { return []*Array{l.in} }

func (l *transposeLayer) block(_ *Array, idx []int) graph.Node {
	src := make([]int, len(idx))
	for i, x := range l.op.p.Axes {
		src[x] = idx[i]
	}
	return graph.Task(l.op, graph.Ref(l.in.Key(src...)))
}
