package chunkarray

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Cumulative sums and products along an axis across blocks, as Dask's
// cumreduction: each block's total along the axis (Sum or Prod, keepdims),
// then the exclusive prefix of the totals before each block (its carry),
// then each output block is the block's own cumulative op combined with
// its carry. The carries are computed one of two ways:
//
//	sequential (Dask's default): C[1] = T[0], C[j] = C[j-1] ⊕ T[j-1]:
//	  nb-1 tasks in a chain of depth nb-1.
//	blelloch: Blelloch's work-efficient exclusive scan. Up-sweep, a
//	  binary tree of partial totals S[l][i] = S[l-1][2i] ⊕ S[l-1][2i+1];
//	  down-sweep from the root's identity, D[l-1][2i] = D[l][i] and
//	  D[l-1][2i+1] = D[l][i] ⊕ S[l-1][2i]: under 2·nb tasks in depth
//	  2·log2(nb), so that on many workers the carries do not wait for a
//	  chain. A node that would combine with the identity is an alias of
//	  its other operand, so neither method makes a task that adds zero.
//
//	    T0  T1  T2  T3        up:   S1[0]=T0⊕T1  S1[1]=T2⊕T3
//	     \  /    \  /               S2[0]=S1[0]⊕S1[1] (unused: the root)
//	    S1[0]   S1[1]         down: D1[1] = S1[0]
//	                                D0[1] = T0, D0[3] = S1[0]⊕T2, D0[2] = S1[0]
//
// Floating sums therefore add in another order than numpy's running sum
// (within rounding); integers wrap as numpy's.

// CumOpts are the options of Cumsum, Cumprod, NanCumsum and NanCumprod.
type CumOpts struct {
	// Method is "sequential" (the default) or "blelloch" (dask's method=).
	Method string
	// DType is numpy's dtype=: the dtype the input is cast to and the
	// result has. The zero value is numpy's default: Sum's result dtype
	// (int64 for bool and smaller signed integers, uint64 for unsigned).
	DType nd.DType
}

// Cumsum is numpy.cumsum and dask.array.cumsum along axis, or along the
// flattened array (C order) when flat (numpy's axis=None).
func (a *Array) Cumsum(axis int, flat bool, o CumOpts) *Array {
	return a.cumulative("cumsum", nd.Sum, false, axis, flat, o)
}

// Cumprod is numpy.cumprod (see Cumsum).
func (a *Array) Cumprod(axis int, flat bool, o CumOpts) *Array {
	return a.cumulative("cumprod", nd.Prod, false, axis, flat, o)
}

// NanCumsum is numpy.nancumsum: Cumsum with NaN counted as 0.
func (a *Array) NanCumsum(axis int, flat bool, o CumOpts) *Array {
	return a.cumulative("nancumsum", nd.Sum, true, axis, flat, o)
}

// NanCumprod is numpy.nancumprod: Cumprod with NaN counted as 1.
func (a *Array) NanCumprod(axis int, flat bool, o CumOpts) *Array {
	return a.cumulative("nancumprod", nd.Prod, true, axis, flat, o)
}

func (a *Array) cumulative(name string, op nd.ReduceOp, nan bool, axis int, flat bool, o CumOpts) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	method := o.Method
	switch method {
	case "":
		method = "sequential"
	case "sequential", "blelloch":
	default:
		return errorf(name, [][]int{a.shape}, "unknown method %q (sequential or blelloch)", method)
	}
	rd := nd.ReduceResultType(op, a.dtype)
	if o.DType != nd.Invalid {
		if !o.DType.Valid() {
			return errorf(name, [][]int{a.shape}, "invalid dtype %d", int(o.DType))
		}
		rd = o.DType
	}
	y := a
	if nan {
		id := 0
		if op == nd.Prod {
			id = 1
		}
		y = y.nanFill(id)
	}
	if flat {
		if y.NDim() != 1 { // a 1-d array is its own flattening, known or not
			y = y.Reshape(-1)
		}
		if err := y.Err(); err != nil { // unknown chunks (Reshape's error)
			return errArray(err)
		}
		axis = 0
	}
	ax, err := normAxis(name, y, axis)
	if err != nil {
		return errArray(err)
	}
	y = y.AsType(rd)
	if err := y.Err(); err != nil {
		return errArray(err)
	}
	l := &cumLayer{in: y, axis: ax, method: method, name: name,
		op: cumP{Op: op, Axis: ax, D: rd}}
	return newArray(name, y.shape, y.chunks, rd, l, y.name, ax, method, int(op))
}

const opCum = "chunkarray.cumulative"

func init() { register[cumP](opCum) }

// stages of a cumulative
const (
	cumTotal   = iota // a block's total along the axis (keepdims)
	cumCombine        // two totals combined
	cumLocal          // a block's own cumulative op
	cumApply          // a carry combined with a block's own cumulative op
)

// cumP is one task of a cumulative. Args: the block (cumTotal, cumLocal),
// two totals (cumCombine), the carry and the block (cumApply).
type cumP struct {
	Stage int         `json:"stage"`
	Op    nd.ReduceOp `json:"op"`
	Axis  int         `json:"axis"`
	D     nd.DType    `json:"dtype"`
}

func (p cumP) Label() string {
	name := "cumsum"
	if p.Op == nd.Prod {
		name = "cumprod"
	}
	switch p.Stage {
	case cumTotal:
		return name + "-total"
	case cumCombine:
		return name + "-carry"
	}
	return name
}

func (p cumP) bin() nd.BinaryOp {
	if p.Op == nd.Prod {
		return nd.Mul
	}
	return nd.Add
}

func (p cumP) run(_ context.Context, args []any) (any, error) {
	arrs := make([]*nd.Array, len(args))
	for i, v := range args {
		a, err := argArray(v, opCum)
		if err != nil {
			return nil, err
		}
		arrs[i] = a
	}
	var r *nd.Array
	var err error
	switch p.Stage {
	case cumTotal:
		r, err = nd.Reduce(p.Op, arrs[0], []int{p.Axis}, true)
	case cumCombine:
		r, err = nd.Binary(p.bin(), arrs[0], arrs[1])
	case cumLocal:
		r, err = cumLocalBlock(arrs[0], p.Axis, p.Op == nd.Prod)
	case cumApply:
		// the carry added into the block's own (fresh) cumulative in place
		if r, err = cumLocalBlock(arrs[1], p.Axis, p.Op == nd.Prod); err == nil {
			err = nd.BinaryInto(p.bin(), r, arrs[0], r)
		}
	default:
		return nil, fmt.Errorf("%s: bad stage %d", opCum, p.Stage)
	}
	if err != nil {
		return nil, err
	}
	if r.DType() != p.D {
		return r.AsType(p.D)
	}
	return r, nil
}

// cumLayer emits a cumulative's tasks: the output blocks and, under keys
// of its own name, the totals and carries.
type cumLayer struct {
	in     *Array
	axis   int
	method string
	name   string
	op     cumP
}

func (l *cumLayer) inputs() []*Array { return []*Array{l.in} }

func (l *cumLayer) block(*Array, []int) graph.Node { return graph.Node{} } // emit writes them

func (l *cumLayer) task(stage int, args ...graph.Arg) graph.Node {
	p := l.op
	p.Stage = stage
	return graph.Task(newOp(opCum, p), args...)
}

// emit writes, for each line of blocks along the axis, the carries, the
// totals they need and the output blocks.
func (l *cumLayer) emit(c *collector, a *Array) error {
	nb := a.NumBlocks()
	n := nb[l.axis]
	other := append([]int(nil), nb...)
	other[l.axis] = 1
	var err error
	forBlocks(other, func(base []int) {
		if err != nil {
			return
		}
		e := &cumLine{l: l, a: a, c: c, base: base, ops: map[graph.Key][2]graph.Key{}, made: map[graph.Key]bool{}}
		var carry []graph.Key // carry[j]: the exclusive prefix before block j ("" for j = 0)
		if l.method == "blelloch" {
			carry = e.blelloch(n)
		} else {
			carry = make([]graph.Key, n)
			for j := 1; j < n; j++ {
				if j == 1 {
					carry[j] = e.total(0)
					continue
				}
				carry[j] = e.key("carry", 0, j)
				e.ops[carry[j]] = [2]graph.Key{carry[j-1], e.total(j - 1)}
			}
		}
		for j := range n {
			in := graph.Ref(l.in.Key(e.at(j)...))
			if carry[j] == "" {
				e.set(a.Key(e.at(j)...), l.task(cumLocal, in))
			} else {
				e.need(carry[j])
				e.set(a.Key(e.at(j)...), l.task(cumApply, graph.Ref(carry[j]), in))
			}
		}
		err = e.err
	})
	return err
}

// cumLine emits the tasks of one line of blocks along the axis: a task
// is planned (ops: a combine's operands; totals are recognised by
// totalOf) and set only when an output block needs it.
type cumLine struct {
	l    *cumLayer
	a    *Array
	c    *collector
	base []int
	ops  map[graph.Key][2]graph.Key
	made map[graph.Key]bool
	err  error
}

func (e *cumLine) at(j int) []int {
	idx := append([]int(nil), e.base...)
	idx[e.l.axis] = j
	return idx
}

func (e *cumLine) key(kind string, lv, j int) graph.Key {
	return graph.BlockKey(fmt.Sprintf("%s-%s%d", e.a.name, kind, lv), e.at(j)...)
}

func (e *cumLine) total(j int) graph.Key {
	k := e.key("total", 0, j)
	if !e.made[k] {
		if _, ok := e.ops[k]; !ok {
			e.ops[k] = [2]graph.Key{e.l.in.Key(e.at(j)...), ""}
		}
	}
	return k
}

func (e *cumLine) set(k graph.Key, n graph.Node) {
	if e.err == nil {
		e.err = e.c.g.Set(k, n)
	}
}

// need sets the planned task k and those it needs.
func (e *cumLine) need(k graph.Key) {
	if e.made[k] {
		return
	}
	op, ok := e.ops[k]
	if !ok {
		return // an input block
	}
	e.made[k] = true
	if op[1] == "" { // a total
		e.set(k, e.l.task(cumTotal, graph.Ref(op[0])))
		return
	}
	e.need(op[0])
	e.need(op[1])
	e.set(k, e.l.task(cumCombine, graph.Ref(op[0]), graph.Ref(op[1])))
}

// blelloch plans the exclusive prefixes of the totals of a line of n
// blocks by Blelloch's up-sweep and down-sweep.
func (e *cumLine) blelloch(n int) []graph.Key {
	// up[lv][i]: the key of S[lv][i] (its child's when it has one child)
	up := [][]graph.Key{make([]graph.Key, n)}
	for i := range n {
		up[0][i] = e.total(i)
	}
	for len(up[len(up)-1]) > 1 {
		prev := up[len(up)-1]
		lv := len(up)
		cur := make([]graph.Key, (len(prev)+1)/2)
		for i := range cur {
			if 2*i+1 >= len(prev) {
				cur[i] = prev[2*i]
				continue
			}
			cur[i] = e.key("up", lv, i)
			e.ops[cur[i]] = [2]graph.Key{prev[2*i], prev[2*i+1]}
		}
		up = append(up, cur)
	}
	// down-sweep from the root's identity ("")
	down := []graph.Key{""}
	for lv := len(up) - 1; lv > 0; lv-- {
		below := up[lv-1]
		next := make([]graph.Key, len(below))
		for i, d := range down {
			if 2*i < len(below) {
				next[2*i] = d
			}
			if 2*i+1 < len(below) {
				if d == "" {
					next[2*i+1] = below[2*i]
				} else {
					next[2*i+1] = e.key("down", lv-1, 2*i+1)
					e.ops[next[2*i+1]] = [2]graph.Key{d, below[2*i]}
				}
			}
		}
		down = next
	}
	return down
}

// cumLocalBlock is the cumulative sum (or product) of b along axis, in
// b's dtype, as numpy's running accumulation.
func cumLocalBlock(b *nd.Array, axis int, prod bool) (*nd.Array, error) {
	c := b.Copy()
	sh := c.Shape()
	outer, inner := 1, 1
	for i, s := range sh {
		if i < axis {
			outer *= s
		} else if i > axis {
			inner *= s
		}
	}
	n := sh[axis]
	var err error
	switch v := c.Data().(type) {
	case []int8:
		cumRun(v, outer, n, inner, prod)
	case []int16:
		cumRun(v, outer, n, inner, prod)
	case []int32:
		cumRun(v, outer, n, inner, prod)
	case []int64:
		cumRun(v, outer, n, inner, prod)
	case []uint8:
		cumRun(v, outer, n, inner, prod)
	case []uint16:
		cumRun(v, outer, n, inner, prod)
	case []uint32:
		cumRun(v, outer, n, inner, prod)
	case []uint64:
		cumRun(v, outer, n, inner, prod)
	case []float32:
		cumRun(v, outer, n, inner, prod)
	case []float64:
		cumRun(v, outer, n, inner, prod)
	case []complex64:
		cumRun(v, outer, n, inner, prod)
	case []complex128:
		cumRun(v, outer, n, inner, prod)
	default:
		err = fmt.Errorf("%s: dtype %s has no cumulative kernel", opCum, b.DType())
	}
	return c, err
}

// cumRun accumulates v, laid out (outer, n, inner) in C order, along n.
func cumRun[T nd.Number](v []T, outer, n, inner int, prod bool) {
	for o := range outer {
		base := o * n * inner
		for k := 1; k < n; k++ {
			cur := v[base+k*inner : base+(k+1)*inner]
			prev := v[base+(k-1)*inner : base+k*inner]
			if prod {
				for i := range cur {
					cur[i] *= prev[i]
				}
			} else {
				for i := range cur {
					cur[i] += prev[i]
				}
			}
		}
	}
}
