package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Index arithmetic and choosing by index: UnravelIndex, RavelMultiIndex
// and Choose. Their inputs are broadcast together (BroadcastArrays:
// unified chunks) and each output block is computed from the aligned
// input blocks (zipLayer); an index out of range fails the computation
// with a typed error, as numpy's mode="raise" fails the call.

// zipLayer: output block idx from block idx of every input (all of the
// output's shape and chunks).
type zipLayer struct {
	ins []*Array
	op  graph.Op
}

func (l *zipLayer) inputs() []*Array { return l.ins }

func (l *zipLayer) block(_ *Array, idx []int) graph.Node {
	args := make([]graph.Arg, len(l.ins))
	for i, x := range l.ins {
		args[i] = graph.Ref(x.Key(idx...))
	}
	return graph.Task(l.op, args...)
}

const (
	opUnravel = "chunkarray.unravel_index"
	opRavel   = "chunkarray.ravel_multi_index"
	opChoose  = "chunkarray.choose"
)

func init() {
	register[unravelP](opUnravel)
	register[ravelP](opRavel)
	register[chooseP](opChoose)
}

func isInteger(d nd.DType) bool { return d.Kind() == 'i' || d.Kind() == 'u' }

// UnravelIndex converts flat indices into an array of shape dims into
// one coordinate array per axis, as numpy.unravel_index (C order): int64
// arrays of indices' shape. indices must be integers; an index outside
// [0, prod(dims)) fails the computation.
func UnravelIndex(indices *Array, dims []int) ([]*Array, error) {
	const name = "unravel_index"
	if err := indices.Err(); err != nil {
		return nil, err
	}
	if !isInteger(indices.dtype) {
		return nil, &Error{Op: name, Shapes: [][]int{indices.shape}, Reason: fmt.Sprintf("only int indices permitted, not %s", indices.dtype)}
	}
	size, err := nd.SizeOf(dims)
	if err != nil {
		return nil, &Error{Op: name, Shapes: [][]int{dims}, Reason: err.Error(), Err: err}
	}
	out := make([]*Array, len(dims))
	for i := range dims {
		p := unravelP{Dims: slices.Clone(dims), Axis: i, Size: size}
		out[i] = newArray(name, indices.shape, indices.chunks, nd.Int64, &zipLayer{ins: []*Array{indices}, op: newOp(opUnravel, p)}, indices.name, dims, i)
	}
	return out, nil
}

// unravelP computes coordinate Axis of every flat index of a block.
type unravelP struct {
	Dims []int `json:"dims"`
	Axis int   `json:"axis"`
	Size int   `json:"size"`
}

func (p unravelP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opUnravel)
	if err != nil {
		return nil, err
	}
	if p.Axis < 0 || p.Axis >= len(p.Dims) {
		return nil, fmt.Errorf("%s: axis %d of %v", opUnravel, p.Axis, p.Dims)
	}
	v, err := int64Values(b)
	if err != nil {
		return nil, err
	}
	inner := 1
	for _, d := range p.Dims[p.Axis+1:] {
		inner *= d
	}
	out := make([]int64, len(v))
	for i, x := range v {
		if x < 0 || x >= int64(p.Size) {
			return nil, &Error{Op: "unravel_index", Reason: fmt.Sprintf("index %d is out of bounds for array with size %d", x, p.Size)}
		}
		out[i] = (x / int64(inner)) % int64(p.Dims[p.Axis])
	}
	return nd.FromSlice(out, b.Shape()...)
}

// int64Values returns an integer block's elements as int64 in C order
// (uint64 beyond MaxInt64 wraps to negative, which every caller refuses).
func int64Values(b *nd.Array) ([]int64, error) {
	c, err := b.AsType(nd.Int64)
	if err != nil {
		return nil, err
	}
	return nd.Values[int64](c)
}

// RavelMultiIndex converts coordinate arrays (one per axis of dims,
// broadcast together) into flat indices of an array of shape dims, as
// numpy.ravel_multi_index (C order, mode="raise"): an int64 array. A
// coordinate outside its axis fails the computation.
func RavelMultiIndex(multi []*Array, dims []int) *Array {
	const name = "ravel_multi_index"
	if len(multi) != len(dims) {
		return errorf(name, nil, "parameter multi_index must be a sequence of length %d", len(dims))
	}
	for _, x := range multi {
		if err := x.Err(); err != nil {
			return errArray(err)
		}
		if !isInteger(x.dtype) {
			return errorf(name, [][]int{x.shape}, "only int indices permitted, not %s", x.dtype)
		}
	}
	if _, err := nd.SizeOf(dims); err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{dims}, Reason: err.Error(), Err: err})
	}
	ins, err := BroadcastArrays(multi...)
	if err != nil {
		return errArray(err)
	}
	toks := []any{dims}
	for _, x := range ins {
		toks = append(toks, x.name)
	}
	l := &zipLayer{ins: ins, op: newOp(opRavel, ravelP{Dims: slices.Clone(dims)})}
	return newArray(name, ins[0].shape, ins[0].chunks, nd.Int64, l, toks...)
}

// ravelP computes the flat index of the coordinates in its blocks.
type ravelP struct {
	Dims []int `json:"dims"`
}

func (p ravelP) run(_ context.Context, args []any) (any, error) {
	if len(args) != len(p.Dims) {
		return nil, fmt.Errorf("%s: %d blocks for %d axes", opRavel, len(args), len(p.Dims))
	}
	var out []int64
	var shape []int
	for ax, a := range args {
		b, err := argArray(a, opRavel)
		if err != nil {
			return nil, err
		}
		v, err := int64Values(b)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out, shape = make([]int64, len(v)), b.Shape()
		}
		if len(v) != len(out) {
			return nil, fmt.Errorf("%s: blocks of shapes %v and %v", opRavel, shape, b.Shape())
		}
		for i, x := range v {
			if x < 0 || x >= int64(p.Dims[ax]) {
				return nil, &Error{Op: "ravel_multi_index", Reason: "invalid entry in coordinates array"}
			}
			out[i] = out[i]*int64(p.Dims[ax]) + x
		}
	}
	if out == nil { // no axes: a 0-d index 0
		return nd.FromSlice([]int64{0})
	}
	return nd.FromSlice(out, shape...)
}

// Choose builds an array from the index array a and choices (each an
// *Array, *nd.Array or Go scalar), all broadcast together, as
// numpy.choose (mode="raise"): element i is choices[a[i]][i]. The dtype
// is numpy's result type of the choices; an index outside
// [0, len(choices)) fails the computation.
func Choose(a *Array, choices []any) *Array {
	const name = "choose"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !isInteger(a.dtype) {
		return errorf(name, [][]int{a.shape}, "Cannot cast array data from dtype('%s') to dtype('int64') according to the rule 'safe'", a.dtype)
	}
	if len(choices) == 0 {
		return errorf(name, [][]int{a.shape}, "0-length sequence")
	}
	probes := make([]*nd.Array, len(choices))
	arrs := make([]*Array, len(choices))
	for i, v := range choices {
		o, err := toOperand(name, v)
		if err != nil {
			return errArray(err)
		}
		if o.arr != nil {
			arrs[i] = o.arr
			probes[i], _ = nd.Zeros(o.arr.dtype, 1)
			continue
		}
		s, err := o.sc.array()
		if err != nil {
			return errArray(&Error{Op: name, Err: err})
		}
		probes[i] = s
		arrs[i] = Full([]int{}, o.sc.value(), o.sc.D, -1) // named from its value
	}
	d := nd.ResultTypeOf(probes...)
	for i := range arrs {
		arrs[i] = arrs[i].AsType(d)
	}
	ins, err := BroadcastArrays(append([]*Array{a}, arrs...)...)
	if err != nil {
		return errArray(err)
	}
	toks := []any{int(d)}
	for _, x := range ins {
		toks = append(toks, x.name)
	}
	l := &zipLayer{ins: ins, op: newOp(opChoose, chooseP{})}
	return newArray(name, ins[0].shape, ins[0].chunks, d, l, toks...)
}

// chooseP picks, element by element, from the choice blocks by the index
// block (the first argument).
type chooseP struct{}

func (chooseP) run(_ context.Context, args []any) (any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("%s: %d arguments", opChoose, len(args))
	}
	idx, err := argArray(args[0], opChoose)
	if err != nil {
		return nil, err
	}
	iv, err := int64Values(idx)
	if err != nil {
		return nil, err
	}
	n := int64(len(args) - 1)
	for _, x := range iv {
		if x < 0 || x >= n {
			return nil, &Error{Op: "choose", Reason: "invalid entry in choice array"}
		}
	}
	first, err := argArray(args[1], opChoose)
	if err != nil {
		return nil, err
	}
	out := first.Copy()
	for k := 2; k < len(args); k++ {
		c, err := argArray(args[k], opChoose)
		if err != nil {
			return nil, err
		}
		sel, err := nd.Binary(nd.Equal, idx, nd.Scalar(int64(k-1)))
		if err != nil {
			return nil, err
		}
		if out, err = nd.Where(sel, c, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}
