package chunkarray

import (
	"context"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Einsum follows dask's plan for einsum (blockwise, then a sum): every
// subscript letter (label) gets one chunking, the union of the
// boundaries of every operand axis it names, and the operands are
// rechunked to it; each output block and each combination of blocks of
// the summed labels is one task (nd.EinsumSpecOf on the operands'
// blocks), whose result carries a trailing axis of length 1 indexing the
// combination; a Reduce (Sum, SplitEvery 4) over that axis adds the
// partial results, as Tensordot does (linalg.go). A label repeated
// within one operand ("ii") takes the diagonal blocks only. An operand
// axis of length 1 against a longer one broadcasts (its block 0).

type einsumLayer struct {
	ins  []*Array
	maps [][]axSrc // per operand axis: the label's output axis, a summed label, or block 0
	kNB  []int     // blocks per summed label
	nout int
	op   *op[einsumP]
}

func (l *einsumLayer) inputs() []*Array { return l.ins }

func (l *einsumLayer) block(_ *Array, idx []int) graph.Node {
	kidx := make([]int, len(l.kNB))
	if l.op.p.Trailing {
		f := idx[l.nout]
		for i := len(l.kNB) - 1; i >= 0; i-- {
			kidx[i] = f % l.kNB[i]
			f /= l.kNB[i]
		}
	}
	args := make([]graph.Arg, len(l.ins))
	for i, x := range l.ins {
		src := make([]int, x.NDim())
		for j, s := range l.maps[i] {
			switch s.kind {
			case srcOut:
				src[j] = idx[s.i]
			case srcK:
				src[j] = kidx[s.i]
			}
		}
		args[i] = graph.Ref(x.Key(src...))
	}
	return graph.Task(l.op, args...)
}

const opEinsum = "chunkarray.einsum"

func init() { register[einsumP](opEinsum) }

// einsumP evaluates a parsed spec on one block of every operand.
type einsumP struct {
	Spec     nd.EinsumSpec `json:"spec"`
	Trailing bool          `json:"trailing,omitempty"`
}

func (p einsumP) run(_ context.Context, args []any) (any, error) {
	blocks := make([]*nd.Array, len(args))
	for i, v := range args {
		b, err := argArray(v, opEinsum)
		if err != nil {
			return nil, err
		}
		blocks[i] = b
	}
	out, err := nd.EinsumSpecOf(&p.Spec, blocks...)
	if err != nil || !p.Trailing {
		return out, err
	}
	return out.Reshape(append(slices.Clone(out.Shape()), 1)...)
}

// Einsum is numpy.einsum / dask.array.einsum (optimize=False): the
// subscripts name each operand's axes ("ij,jk->ik"); an implicit output
// ("ij,jk") is the letters that appear once, alphabetically; "..."
// stands for the unnamed axes, which broadcast. A letter's axes must
// have one length in every operand (numpy also broadcasts a length of 1
// against the others; here that is an error). The result's dtype is the
// operands' ResultType (int8 products and sums wrap, as numpy's); its
// chunks along each output letter are the union of the operands'.
func Einsum(subscripts string, operands ...*Array) *Array {
	const name = "einsum"
	if len(operands) == 0 {
		return errorf(name, nil, "no operands")
	}
	shapes := make([][]int, len(operands))
	nds := make([]int, len(operands))
	dts := make([]nd.DType, len(operands))
	for i, x := range operands {
		if err := x.Err(); err != nil {
			return errArray(err)
		}
		shapes[i], nds[i], dts[i] = x.shape, x.NDim(), x.dtype
	}
	spec, err := nd.ParseEinsum(subscripts, nds)
	if err != nil {
		return errArray(&Error{Op: name, Shapes: shapes, Err: err})
	}
	sizes, err := spec.Sizes(shapes)
	if err != nil {
		return errArray(&Error{Op: name, Shapes: shapes, Err: err})
	}
	d := nd.ResultType(dts...)
	if d == nd.Invalid {
		return errorf(name, shapes, "operands have no common dtype")
	}
	// one chunking per label
	lch := make([][]int, spec.NLabels)
	for l := range spec.NLabels {
		var cs [][]int
		for i, x := range operands {
			for j, lj := range spec.In[i] {
				if lj == l && x.shape[j] == sizes[l] {
					cs = append(cs, x.chunks[j])
				}
			}
		}
		if len(cs) == 0 {
			lch[l] = []int{sizes[l]}
		} else {
			lch[l] = unionChunks(cs)
		}
	}
	pos := make([]axSrc, spec.NLabels)
	var kNB []int
	for l := range spec.NLabels {
		if k := slices.Index(spec.Out, l); k >= 0 {
			pos[l] = axSrc{srcOut, k}
		} else {
			pos[l] = axSrc{srcK, len(kNB)}
			kNB = append(kNB, len(lch[l]))
		}
	}
	ins := make([]*Array, len(operands))
	maps := make([][]axSrc, len(operands))
	toks := []any{spec.In, spec.Out}
	for i, x := range operands {
		want := make([][]int, x.NDim())
		maps[i] = make([]axSrc, x.NDim())
		for j, l := range spec.In[i] {
			if x.shape[j] == 1 && sizes[l] != 1 {
				want[j], maps[i][j] = []int{1}, axSrc{srcZero, 0}
				continue
			}
			want[j], maps[i][j] = lch[l], pos[l]
		}
		ins[i] = x.Rechunk(want)
		if err := ins[i].Err(); err != nil {
			return errArray(err)
		}
		toks = append(toks, ins[i].name)
	}
	shape := make([]int, len(spec.Out))
	chunks := make([][]int, len(spec.Out))
	for k, l := range spec.Out {
		shape[k], chunks[k] = sizes[l], lch[l]
	}
	nk := prod(kNB)
	p := einsumP{Spec: *spec, Trailing: nk > 1}
	l := &einsumLayer{ins: ins, maps: maps, kNB: kNB, nout: len(shape), op: newOp(opEinsum, p)}
	if !p.Trailing {
		return newArray(name, shape, chunks, d, l, toks...)
	}
	part := newArray(name+"-partial", append(slices.Clone(shape), nk), append(slices.Clone(chunks), ones(nk)), d, l, toks...)
	s := part.Reduce(nd.Sum, []int{len(shape)}, ReduceOpts{SplitEvery: 4})
	if s.err == nil && s.dtype != d {
		s = s.AsType(d)
	}
	return s
}
