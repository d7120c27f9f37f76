package chunkarray

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// More of numpy's shape and selection functions composed from the others:
// Select (nested Where, fused), ApplyOverAxes, EDiff1D.

// Select returns, element by element, the choice of the first condition
// that is true, and def where none is, as numpy.select (dask.array.select
// has no chunked form of its own: a chain of Where, which fuses into one
// task per block). conds must be bool arrays; conds, choices and def are
// broadcast together, and the dtype is numpy's result_type of the choices
// and def (a Go scalar def with numpy's value-based casting).
func Select(conds []*Array, choices []any, def any) *Array {
	const name = "select"
	if len(conds) != len(choices) {
		return errorf(name, nil, "list of cases must be same length as list of conditions")
	}
	if len(conds) == 0 {
		return errorf(name, nil, "select with an empty condition list is not possible")
	}
	for i, c := range conds {
		if err := c.Err(); err != nil {
			return errArray(err)
		}
		if c.dtype != nd.Bool {
			return errorf(name, [][]int{c.shape}, "invalid entry %d in condlist: should be boolean ndarray", i)
		}
	}
	if def == nil {
		def = 0
	}
	// numpy's result_type of every choice and the default, each then cast
	// to it, so that the chain of Where has that dtype.
	vals := append(append([]any{}, choices...), def)
	ops := make([]operand, len(vals))
	probes := make([]*nd.Array, len(vals))
	for i, v := range vals {
		o, err := toOperand(name, v)
		if err != nil {
			return errArray(err)
		}
		if probes[i], err = o.probe(); err != nil {
			return errArray(&Error{Op: name, Err: err})
		}
		ops[i] = o
	}
	d := nd.ResultTypeOf(probes...)
	cast := make([]any, len(ops))
	for i, o := range ops {
		if o.arr != nil {
			cast[i] = o.arr.AsType(d)
			continue
		}
		s, err := probes[i].AsType(d)
		if err != nil {
			return errArray(&Error{Op: name, Err: err})
		}
		cast[i] = s
	}
	out := cast[len(cast)-1]
	for i := len(conds) - 1; i >= 0; i-- {
		out = Where(conds[i], cast[i], out)
	}
	return out.(*Array)
}

// ApplyOverAxes applies f(x, axis) for each axis in turn, as
// numpy.apply_over_axes: f returns an array of x's number of axes or of
// one fewer, which then gets the axis back with length 1. f builds
// chunkarray operations (x.Sum(axis), …): it runs once per axis while the
// result is built, not per block.
func ApplyOverAxes(f func(x *Array, axis int) *Array, a *Array, axes ...int) *Array {
	const name = "apply_over_axes"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	val := a
	for _, axis := range axes {
		ax, err := normAxis(name, a, axis)
		if err != nil {
			return errArray(err)
		}
		res := f(val, ax)
		if err := res.Err(); err != nil {
			return errArray(err)
		}
		if res.NDim() == val.NDim()-1 {
			res = res.ExpandDims(ax)
		}
		if res.NDim() != val.NDim() {
			return errorf(name, [][]int{val.shape, res.shape}, "function is not returning an array of the correct shape")
		}
		val = res
	}
	return val
}

// EDiff1D returns the differences between consecutive elements of the
// flattened a, with toBegin and toEnd (nil, an *Array, *nd.Array or Go
// scalar, flattened) before and after, as numpy.ediff1d: the result has
// a's dtype, and toBegin and toEnd must cast to it under numpy's
// same_kind rule (a float beside an integer array is an error).
// dask.array.ediff1d promotes instead.
func EDiff1D(a *Array, toEnd, toBegin any) *Array {
	const name = "ediff1d"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	x := a.Ravel()
	n := x.shape[0]
	parts := []*Array{Sub(x.sliceAxis(0, min(1, n), n), x.sliceAxis(0, 0, max(n-1, 0)))}
	if parts[0].err != nil {
		return parts[0]
	}
	edge := func(v any, which string) *Array {
		e := operandArray(name, v)
		if e.err != nil {
			return e
		}
		from := e.dtype
		if _, ok := v.(*Array); !ok && e.NDim() == 0 && from.Kind() == 'i' {
			// a Go scalar counts by its value (numpy's can_cast of a 0-d
			// array): a non-negative integer is unsigned
			if s, err := nd.ScalarOf(v); err == nil {
				if x, err := s.AsType(nd.Int64); err == nil {
					if iv, _ := x.At(); iv.(int64) >= 0 {
						from = nd.Uint8
					}
				}
			}
		}
		if !sameKind(from, a.dtype) {
			return errorf(name, nil, "dtype of `%s` must be compatible with input `ary` under the `same_kind` rule", which)
		}
		return e.Ravel().AsType(a.dtype)
	}
	if toBegin != nil {
		parts = append([]*Array{edge(toBegin, "to_begin")}, parts...)
	}
	if toEnd != nil {
		parts = append(parts, edge(toEnd, "to_end"))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return Concatenate(parts, 0)
}

// sameKind reports whether numpy casts from to to under casting=
// "same_kind": within a kind, or to a higher one (bool < unsigned <
// signed < float < complex; unsigned to signed is allowed, signed to
// unsigned is not).
func sameKind(from, to nd.DType) bool {
	rank := func(d nd.DType) int {
		switch d.Kind() {
		case 'b':
			return 0
		case 'u':
			return 1
		case 'i':
			return 2
		case 'f':
			return 3
		case 'c':
			return 4
		}
		panic(fmt.Sprintf("chunkarray: dtype %s has no kind", d))
	}
	return rank(from) <= rank(to)
}

// Piecewise evaluates pieces of x where conds hold, as numpy.piecewise:
// funcs[i] (a func(*Array) *Array, or a Go scalar) gives the values where
// conds[i] is true, a later condition overriding an earlier one; one
// function more than conditions gives the values where none holds (else
// 0). The result has x's dtype. Each function is called once, on the
// whole of x, and must be elementwise (numpy calls it on x[cond] alone;
// dask.array.piecewise on each block): it builds chunkarray operations.
func Piecewise(x *Array, conds []*Array, funcs []any) *Array {
	const name = "piecewise"
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	n := len(conds)
	if len(funcs) != n && len(funcs) != n+1 {
		return errorf(name, [][]int{x.shape}, "with %d condition(s), either %d or %d functions are expected", n, n, n+1)
	}
	value := func(f any) any {
		if fn, ok := f.(func(*Array) *Array); ok {
			return fn(x)
		}
		return f
	}
	zero, err := nd.Zeros(x.dtype)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	castTo := func(v any) any {
		switch y := v.(type) {
		case *Array:
			return y.AsType(x.dtype)
		case *nd.Array:
			return FromNDArray(y, -1).AsType(x.dtype)
		}
		s, err := nd.ScalarOf(v)
		if err != nil {
			return errorf(name, nil, "function or value of type %T: want func(*Array) *Array or a Go scalar", v)
		}
		c, err := s.AsType(x.dtype)
		if err != nil {
			return errArray(&Error{Op: name, Err: err})
		}
		return c
	}
	var out any = zero
	if len(funcs) == n+1 {
		var any0 *Array
		for _, c := range conds {
			if err := c.Err(); err != nil {
				return errArray(err)
			}
			if any0 == nil {
				any0 = c
			} else {
				any0 = LogicalOr(any0, c)
			}
		}
		other := castTo(value(funcs[n]))
		if any0 == nil {
			out = other
		} else {
			out = Where(any0, zero, other)
		}
	}
	for i, c := range conds {
		if err := c.Err(); err != nil {
			return errArray(err)
		}
		if c.dtype != nd.Bool || !slices.Equal(c.shape, x.shape) {
			return errorf(name, [][]int{x.shape, c.shape}, "condition %d of dtype %s: want a bool array of x's shape", i, c.dtype)
		}
		out = Where(c, castTo(value(funcs[i])), out)
	}
	switch o := out.(type) {
	case *Array:
		if o.err == nil && !slices.Equal(o.shape, x.shape) {
			return o.BroadcastTo(x.shape, x.chunks) // a function's 0-d value
		}
		return o
	default:
		return FullLike(x, o, nd.Invalid)
	}
}

// FromFunction builds an array of shape whose element at (i, j, …) is
// f's, as numpy.fromfunction: f is called once with one coordinate
// array per axis (dtype dt, each varying along its axis, chunked as
// chunks) and builds the result from them with chunkarray operations
// (dask.array.fromfunction calls it per block instead).
func FromFunction(f func(coords ...*Array) *Array, shape []int, dt nd.DType, chunks any) *Array {
	const name = "fromfunction"
	ch, err := NormalizeChunks(name, chunks, shape, dt)
	if err != nil {
		return errArray(err)
	}
	coords := make([]*Array, len(shape))
	for i, d := range shape {
		sh := ones(len(shape))
		sh[i] = d
		r := Arange(0, float64(d), 1, dt, [][]int{ch[i]}).Reshape(sh...)
		coords[i] = broadcastChunked(r, shape, ch)
		if err := coords[i].Err(); err != nil {
			return errArray(err)
		}
	}
	out := f(coords...)
	if out == nil {
		return errorf(name, [][]int{shape}, "function returned nil")
	}
	return out
}

// UnifyChunks rechunks arrays so that the axes sharing an index letter
// (dask's index notation, as Blockwise's) share their chunks: the union
// of the boundaries of those axes, axes of length 1 aside (they
// broadcast), as dask.array.core.unify_chunks. It returns the chunks per
// letter and the rechunked arrays, in order. Axes of one letter must have
// one length (or 1).
func UnifyChunks(args ...BlockArg) (map[rune][]int, []*Array, error) {
	const name = "unify_chunks"
	length := map[rune]int{}
	cs := map[rune][][]int{}
	for _, a := range args {
		if err := a.X.Err(); err != nil {
			return nil, nil, err
		}
		if len([]rune(a.Ind)) != a.X.NDim() {
			return nil, nil, &Error{Op: name, Shapes: [][]int{a.X.shape}, Reason: fmt.Sprintf("index %q for an array of %d axes", a.Ind, a.X.NDim())}
		}
		for j, r := range []rune(a.Ind) {
			s := a.X.shape[j]
			if s == 1 {
				continue
			}
			if l, ok := length[r]; ok && l != s {
				return nil, nil, &Error{Op: name, Reason: fmt.Sprintf("index %q has lengths %d and %d", r, l, s)}
			}
			length[r] = s
			cs[r] = append(cs[r], a.X.chunks[j])
		}
	}
	out := map[rune][]int{}
	for r, c := range cs {
		out[r] = unionChunks(c)
	}
	arrays := make([]*Array, len(args))
	for i, a := range args {
		want := make([][]int, a.X.NDim())
		for j, r := range []rune(a.Ind) {
			if c, ok := out[r]; ok && a.X.shape[j] != 1 {
				want[j] = c
			} else {
				want[j] = a.X.chunks[j]
				if _, ok := out[r]; !ok {
					out[r] = a.X.chunks[j]
				}
			}
		}
		arrays[i] = a.X.Rechunk(want)
		if err := arrays[i].Err(); err != nil {
			return nil, nil, err
		}
	}
	return out, arrays, nil
}
