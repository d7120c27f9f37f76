package chunkarray

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The block ops of the shape functions that compute within a block:
// repeat, coarsen and conj map each block to the output block of the same
// index (blockMapLayer); diagonal maps each piece of the diagonal to the block
// it crosses (diagonalLayer).

// blockMapLayer: output block idx is op applied to input block idx (the same
// block grid; the block shapes may differ).
type blockMapLayer struct {
	in *Array
	op graph.Op
}

func (l *blockMapLayer) inputs() []*Array { return []*Array{l.in} }

func (l *blockMapLayer) block(_ *Array, idx []int) graph.Node {
	return graph.Task(l.op, graph.Ref(l.in.Key(idx...)))
}

const (
	opRepeat   = "chunkarray.repeat"
	opCoarsen  = "chunkarray.coarsen"
	opConj     = "chunkarray.conj"
	opDiagonal = "chunkarray.diagonal"
	opRound    = "chunkarray.round_half_even"
)

func init() {
	register[repeatP](opRepeat)
	register[coarsenP](opCoarsen)
	register[conjP](opConj)
	register[diagonalP](opDiagonal)
	register[roundP](opRound)
}

// roundP rounds a float block to integers, halves to even.
type roundP struct{}

var roundOp = newOp(opRound, roundP{})

func (roundP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opRound)
	if err != nil {
		return nil, err
	}
	out := b.Copy()
	switch d := out.Data().(type) {
	case []float32:
		for i, v := range d {
			d[i] = float32(math.RoundToEven(float64(v)))
		}
	case []float64:
		for i, v := range d {
			d[i] = math.RoundToEven(v)
		}
	default:
		return nil, fmt.Errorf("%s: dtype %s", opRound, b.DType())
	}
	return out, nil
}

// repeatP repeats every element of a block N times along Axis.
type repeatP struct {
	Axis int `json:"axis"`
	N    int `json:"n"`
}

func (p repeatP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opRepeat)
	if err != nil {
		return nil, err
	}
	if p.Axis < 0 || p.Axis >= b.NDim() || p.N < 0 {
		return nil, fmt.Errorf("%s: axis %d, count %d for a block of shape %v", opRepeat, p.Axis, p.N, b.Shape())
	}
	n := b.Shape()[p.Axis]
	idx := make([]int, n*p.N)
	for i := range idx {
		idx[i] = i / p.N
	}
	return takeAxis(b, p.Axis, idx)
}

// coarsenP reduces a block with Op over windows of Factors (per axis):
// the block, whose lengths are multiples of the factors, is reshaped to
// (n0/f0, f0, n1/f1, f1, …) and reduced over the odd axes.
type coarsenP struct {
	Op      nd.ReduceOp `json:"op"`
	Factors []int       `json:"factors"`
}

func (p coarsenP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opCoarsen)
	if err != nil {
		return nil, err
	}
	if len(p.Factors) != b.NDim() {
		return nil, fmt.Errorf("%s: %d factors for a block of shape %v", opCoarsen, len(p.Factors), b.Shape())
	}
	sh := make([]int, 0, 2*b.NDim())
	axes := make([]int, b.NDim())
	for i, s := range b.Shape() {
		f := p.Factors[i]
		if f <= 0 || s%f != 0 {
			return nil, fmt.Errorf("%s: block of shape %v is not a multiple of the factors %v", opCoarsen, b.Shape(), p.Factors)
		}
		sh = append(sh, s/f, f)
		axes[i] = 2*i + 1
	}
	r, err := b.Contiguous().Reshape(sh...)
	if err != nil {
		return nil, err
	}
	return nd.Reduce(p.Op, r, axes, false)
}

// conjP conjugates a complex block.
type conjP struct{}

var conjOp = newOp(opConj, conjP{})

func (conjP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opConj)
	if err != nil {
		return nil, err
	}
	out := b.Copy()
	switch d := out.Data().(type) {
	case []complex64:
		for i, v := range d {
			d[i] = complex(real(v), -imag(v))
		}
	case []complex128:
		for i, v := range d {
			d[i] = complex(real(v), -imag(v))
		}
	}
	return out, nil
}

// diagonalLayer: output block (loop…, p) is piece p of the diagonal, from
// the input block at the loop indices with the piece's blocks on the two
// axes.
type diagonalLayer struct {
	in     *Array
	a1, a2 int
	pieces []diagPiece
	op     graph.Op
}

func (l *diagonalLayer) inputs() []*Array { return []*Array{l.in} }

func (l *diagonalLayer) block(_ *Array, idx []int) graph.Node {
	p := l.pieces[idx[len(idx)-1]]
	src := make([]int, l.in.NDim())
	k := 0
	for i := range src {
		switch i {
		case l.a1:
			src[i] = p.b1
		case l.a2:
			src[i] = p.b2
		default:
			src[i] = idx[k]
			k++
		}
	}
	return graph.Task(l.op, graph.Ref(l.in.Key(src...)), graph.Lit([]int{p.lo1, p.lo2, p.n}))
}

// diagonalP takes the diagonal of a block. Args: the block, and its first
// element's offsets on the two axes and the length.
type diagonalP struct {
	Axis1 int `json:"axis1"`
	Axis2 int `json:"axis2"`
}

func (p diagonalP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opDiagonal)
	if err != nil {
		return nil, err
	}
	geo, err := argInts(args, 1, opDiagonal)
	if err != nil {
		return nil, err
	}
	n := b.NDim()
	if len(geo) != 3 || p.Axis1 < 0 || p.Axis1 >= n || p.Axis2 < 0 || p.Axis2 >= n || p.Axis1 == p.Axis2 {
		return nil, fmt.Errorf("%s: axes %d, %d and piece %v for a block of shape %v", opDiagonal, p.Axis1, p.Axis2, geo, b.Shape())
	}
	lo1, lo2, length := geo[0], geo[1], geo[2]
	sh, st := b.Shape(), b.Strides()
	if lo1 < 0 || lo2 < 0 || length < 0 || (length > 0 && (lo1+length > sh[p.Axis1] || lo2+length > sh[p.Axis2])) {
		return nil, fmt.Errorf("%s: piece %v outside a block of shape %v", opDiagonal, geo, sh)
	}
	var oshape, ostr []int // the other axes, in order
	for i := range n {
		if i != p.Axis1 && i != p.Axis2 {
			oshape = append(oshape, sh[i])
			ostr = append(ostr, st[i])
		}
	}
	out, err := nd.Zeros(b.DType(), append(slices.Clone(oshape), length)...)
	if err != nil {
		return nil, err
	}
	if out.Size() == 0 {
		return out, nil
	}
	g := diagGeo{
		oshape: oshape, ostr: ostr, length: length,
		base: b.Offset() + lo1*st[p.Axis1] + lo2*st[p.Axis2], step: st[p.Axis1] + st[p.Axis2],
	}
	switch d := out.Data().(type) {
	case []bool:
		gatherDiag(d, b.Data().([]bool), g)
	case []int8:
		gatherDiag(d, b.Data().([]int8), g)
	case []int16:
		gatherDiag(d, b.Data().([]int16), g)
	case []int32:
		gatherDiag(d, b.Data().([]int32), g)
	case []int64:
		gatherDiag(d, b.Data().([]int64), g)
	case []uint8:
		gatherDiag(d, b.Data().([]uint8), g)
	case []uint16:
		gatherDiag(d, b.Data().([]uint16), g)
	case []uint32:
		gatherDiag(d, b.Data().([]uint32), g)
	case []uint64:
		gatherDiag(d, b.Data().([]uint64), g)
	case []float32:
		gatherDiag(d, b.Data().([]float32), g)
	case []float64:
		gatherDiag(d, b.Data().([]float64), g)
	case []complex64:
		gatherDiag(d, b.Data().([]complex64), g)
	case []complex128:
		gatherDiag(d, b.Data().([]complex128), g)
	default:
		return nil, fmt.Errorf("%s: dtype %s", opDiagonal, b.DType())
	}
	return out, nil
}

// diagGeo is where a diagonal lies in a block's backing: the other axes'
// lengths and strides, the offset of the first diagonal element at
// their origin, the stride from one diagonal element to the next.
type diagGeo struct {
	oshape, ostr []int
	base, step   int
	length       int
}

// gatherDiag writes the diagonal of every position of the other axes, in
// C order, into dst: no allocation per element.
func gatherDiag[T any](dst, src []T, g diagGeo) {
	i := 0
	nd.ForEachOffset(g.oshape, g.ostr, g.base, func(off, n, step int) {
		for k := range n {
			o := off + k*step
			for t := range g.length {
				dst[i] = src[o+t*g.step]
				i++
			}
		}
	})
}
