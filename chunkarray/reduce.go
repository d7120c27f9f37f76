package chunkarray

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// ReduceOpts tune a reduction.
type ReduceOpts struct {
	Keepdims bool
	// SplitEvery is the fan-in of a tree level over all reduced axes
	// together (dask's split_every); 0 means 4. Each reduced axis gets
	// max(2, SplitEvery^(1/k)) for k reduced axes.
	SplitEvery int
	Ddof       int // for Var and Std
	// Device runs the chunk stage on a device: "" or DeviceCPU (the
	// default), or DeviceCUDA for Sum, Max and Min of float32/float64
	// arrays (device.go: what is supported, the GPU=1 resource, errors).
	Device string
	// DType is numpy's dtype= argument of Sum, Prod, Mean, Var and Std
	// (nd.Invalid, the zero value: the default): the dtype the reduction
	// computes in and returns. Sum and Prod cast the input to it and wrap
	// as numpy does (int8 sums stay int8). Mean, Var and Std with a float
	// or complex dtype cast the input to it; with an integer or bool one
	// they follow numpy's integer arithmetic: the mean is the sum in the
	// dtype divided by the count and truncated, the variance sums the
	// squared deviations from that truncated mean in the dtype (so var of
	// [1.5, 2.5, 4.0] with int64 is 1), and Std then is an error unless
	// the result is 0-d (every axis reduced without Keepdims, or a 0-d
	// input), where numpy's sqrt casts a scalar (for an array it refuses
	// the float result). Min, Max, Any,
	// All and the arg reductions take no dtype (an error, as numpy's
	// TypeError).
	DType nd.DType
}

// stages of a reduction tree
const (
	stChunk = iota
	stCombine
	stAgg
)

// partial kinds
const (
	pkPlain   = iota // *nd.Array partials combined elementwise
	pkMoments        // []any{count, mean, m2}
	pkArg            // []any{vals, idx}
)

// reduceP is one stage of a reduction tree. Args: the input blocks (a
// list for combine and aggregate; one block and, for arg reductions, the
// block's origin for chunk).
type reduceP struct {
	Stage    int         `json:"stage"`
	Kind     int         `json:"kind"`
	Op       nd.ReduceOp `json:"op"`
	ArgOp    nd.ArgOp    `json:"argop"`
	Axes     []int       `json:"axes"`
	Keepdims bool        `json:"keepdims"`
	Ddof     int         `json:"ddof"`
	D        nd.DType    `json:"dtype"` // the input's
	Flat     bool        `json:"flat"`
	Shape    []int       `json:"shape"`            // the input's, for flat arg reductions
	Device   string      `json:"device,omitempty"` // chunk stage only (device.go)
	Out      nd.DType    `json:"out,omitempty"`    // the result's dtype when not ReduceResultType's (ReduceOpts.DType)
}

var combineOps = map[nd.ReduceOp]nd.BinaryOp{
	nd.Sum: nd.Add, nd.Prod: nd.Mul, nd.Min: nd.Minimum, nd.Max: nd.Maximum,
	nd.Any: nd.LogicalOr, nd.All: nd.LogicalAnd,
}

func (p reduceP) run(_ context.Context, args []any) (any, error) {
	if p.Stage == stChunk {
		return p.chunk(args)
	}
	list, ok := args[0].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: argument is %T", opReduce, args[0])
	}
	if list = dropEmptyPartials(list); len(list) == 0 {
		// Every block was empty (unknown chunk sizes, unknown.go).
		if p.Stage == stAgg {
			name := p.Op.String()
			if p.Kind == pkArg {
				name = p.ArgOp.String()
			}
			return nil, &Error{Op: name, Reason: "zero-size array to reduction operation, which has no identity"}
		}
		return nil, nil
	}
	switch p.Kind {
	case pkPlain:
		return p.combinePlain(list)
	case pkMoments:
		return p.combineMoments(list)
	case pkArg:
		return p.combineArg(list)
	}
	return nil, fmt.Errorf("%s: bad kind %d", opReduce, p.Kind)
}

// chunk is the chunk stage: one block (args[0]) to its partial.
func (p reduceP) chunk(args []any) (any, error) {
	b, err := argArray(args[0], opReduce)
	if err != nil {
		return nil, err
	}
	if emptyPartial(p, b.Shape()) {
		return nil, nil
	}
	switch p.Kind {
	case pkPlain:
		if p.Device == DeviceCUDA {
			return deviceReduce(p, b)
		}
		return nd.Reduce(p.Op, b, p.Axes, true)
	case pkMoments:
		c, m, m2, err := nd.Moments(b, p.Axes)
		if err != nil {
			return nil, err
		}
		return []any{c, m, m2}, nil
	case pkArg:
		origin, err := argInts(args, 1, opReduce)
		if err != nil {
			return nil, err
		}
		var v, i *nd.Array
		if p.Flat {
			v, i, err = nd.ArgChunkFlat(p.ArgOp, b, origin, p.Shape)
		} else {
			v, i, err = nd.ArgChunk(p.ArgOp, b, p.Axes[0], origin[p.Axes[0]])
		}
		if err != nil {
			return nil, err
		}
		return []any{v, i}, nil
	}
	return nil, fmt.Errorf("%s: bad kind %d", opReduce, p.Kind)
}

// combinePlain combines plain partials elementwise (combine and
// aggregate stages).
func (p reduceP) combinePlain(list []any) (any, error) {
	acc, err := argArray(list[0], opReduce)
	if err != nil {
		return nil, err
	}
	bop := combineOps[p.Op]
	for _, v := range list[1:] {
		b, err := argArray(v, opReduce)
		if err != nil {
			return nil, err
		}
		if acc, err = nd.Binary(bop, acc, b); err != nil {
			return nil, err
		}
	}
	if p.Stage == stAgg {
		want := nd.ReduceResultType(p.Op, p.D)
		if p.Out != nd.Invalid {
			want = p.Out
		}
		if acc.DType() != want {
			if acc, err = acc.AsType(want); err != nil {
				return nil, err
			}
		}
		if !p.Keepdims {
			return dropAxes(acc, p.Axes)
		}
	}
	return acc, nil
}

// combineMoments merges (count, mean, m2) partials.
func (p reduceP) combineMoments(list []any) (any, error) {
	cs, ms, m2s := make([]*nd.Array, len(list)), make([]*nd.Array, len(list)), make([]*nd.Array, len(list))
	for i, v := range list {
		t, ok := v.([]any)
		if !ok || len(t) != 3 {
			return nil, fmt.Errorf("%s: moments partial is %T", opReduce, v)
		}
		cs[i], _ = t[0].(*nd.Array)
		ms[i], _ = t[1].(*nd.Array)
		m2s[i], _ = t[2].(*nd.Array)
	}
	c, m, m2, err := nd.CombineMoments(cs, ms, m2s)
	if err != nil {
		return nil, err
	}
	if p.Stage == stAgg {
		return nd.MomentsResult(p.Op, p.D, c, m, m2, p.Ddof, p.Axes, p.Keepdims)
	}
	return []any{c, m, m2}, nil
}

// combineArg merges (values, indices) partials of arg reductions.
func (p reduceP) combineArg(list []any) (any, error) {
	vs, is := make([]*nd.Array, len(list)), make([]*nd.Array, len(list))
	for i, v := range list {
		t, ok := v.([]any)
		if !ok || len(t) != 2 {
			return nil, fmt.Errorf("%s: arg partial is %T", opReduce, v)
		}
		vs[i], _ = t[0].(*nd.Array)
		is[i], _ = t[1].(*nd.Array)
	}
	ax := 0
	if !p.Flat {
		ax = p.Axes[0]
	}
	v, i, err := nd.ArgCombine(p.ArgOp, vs, is, ax)
	if err != nil {
		return nil, err
	}
	if p.Stage == stAgg {
		if p.Flat {
			if p.Keepdims {
				return i.Reshape(ones(len(p.Shape))...)
			}
			return i.Reshape()
		}
		if !p.Keepdims {
			return dropAxes(i, p.Axes)
		}
		return i, nil
	}
	return []any{v, i}, nil
}

// dropAxes reshapes a keepdims result to drop the (length-1) axes.
func dropAxes(a *nd.Array, axes []int) (*nd.Array, error) {
	var sh []int
	for i, s := range a.Shape() {
		if !slices.Contains(axes, i) {
			sh = append(sh, s)
		}
	}
	return a.Reshape(sh...)
}

// reduceLayer is one stage: block idx of the output reads the input
// blocks groups[ax][idx[ax]] (a range) along every axis.
type reduceLayer struct {
	in     *Array
	op     *op[reduceP]
	groups [][][2]int
	origin bool // pass the block origin (arg chunk stage)
	// keep, for the chunk stage, lists per input axis the input blocks
	// it reads (nil: all): a reduced axis's empty chunks are skipped.
	keep [][]int
}

// src returns the input block that chunk-stage block idx reads (idx
// itself when no block is skipped; a nil l reads idx).
func (l *reduceLayer) src(idx []int) []int {
	if l == nil || l.keep == nil {
		return idx
	}
	out := make([]int, len(idx))
	for ax, j := range idx {
		out[ax] = j
		if k := l.keep[ax]; k != nil {
			out[ax] = k[j]
		}
	}
	return out
}

// treeFan returns a tree reduction's split (SplitEvery, default 4), its
// fan-in per reduced axis (the split spread over the axes) and the mask
// of the reduced axes of an array of ndim axes.
func treeFan(splitEvery int, axes []int, ndim int) (split, fan int, red []bool) {
	split = splitEvery
	if split <= 0 {
		split = 4
	}
	fan = max(2, int(math.Pow(float64(split), 1/float64(max(1, len(axes))))+1e-9))
	red = make([]bool, ndim)
	for _, ax := range axes {
		red[ax] = true
	}
	return split, fan, red
}

// chunkStageGrid is the grid of a tree reduction's chunk stage over a:
// a's blocks less the empty ones skipEmpty drops along the reduced axes,
// each reduced axis one element per block (chunks and shape).
func chunkStageGrid(a *Array, red []bool) (keep, chunks [][]int, shape []int) {
	keep = skipEmpty(a, red)
	chunks = make([][]int, a.NDim())
	shape = make([]int, a.NDim())
	for i := range chunks {
		if red[i] {
			nb := len(a.chunks[i])
			if keep != nil && keep[i] != nil {
				nb = len(keep[i])
			}
			chunks[i], shape[i] = ones(nb), nb
		} else {
			chunks[i], shape[i] = a.chunks[i], a.shape[i]
		}
	}
	return keep, chunks, shape
}

// skipEmpty returns, per axis of a, the blocks a reduction over the axes
// red reads: along a reduced axis that is not empty as a whole, the
// blocks of its non-empty chunks (nil: every block). An empty block
// contributes nothing to a reduction, and Min, Max and the arg
// reductions have no partial to give for one; only a reduction over an
// empty axis is numpy's error. It returns nil when no block is skipped.
func skipEmpty(a *Array, red []bool) [][]int {
	var keep [][]int
	for ax, c := range a.chunks {
		if !red[ax] || a.shape[ax] == 0 || !slices.Contains(c, 0) {
			continue
		}
		if keep == nil {
			keep = make([][]int, len(a.chunks))
		}
		keep[ax] = []int{}
		for j, n := range c {
			if n != 0 { // Unknown (unknown.go) may hold elements
				keep[ax] = append(keep[ax], j)
			}
		}
	}
	return keep
}

func (l *reduceLayer) inputs() []*Array { return []*Array{l.in} }

func (l *reduceLayer) block(a *Array, idx []int) graph.Node {
	if l.op.p.Stage == stChunk {
		src := l.src(idx)
		args := []graph.Arg{graph.Ref(l.in.Key(src...))}
		if l.origin {
			args = append(args, graph.Lit(l.in.blockStart(src)))
		}
		n := graph.Task(l.op, args...)
		if l.op.p.Device == DeviceCUDA {
			n.Resources = map[string]float64{gpuResource: 1}
		}
		return n
	}
	n := len(idx)
	cnt := make([]int, n)
	lo := make([]int, n)
	for ax, j := range idx {
		g := l.groups[ax][j]
		lo[ax], cnt[ax] = g[0], g[1]-g[0]
	}
	var refs []graph.Arg
	src := make([]int, n)
	forBlocks(cnt, func(k []int) {
		for ax := range k {
			src[ax] = lo[ax] + k[ax]
		}
		refs = append(refs, graph.Ref(l.in.Key(src...)))
	})
	return graph.Task(l.op, graph.List(refs...))
}

// Reduce reduces a over axes (nil: all) with op as a tree.
func (a *Array) Reduce(op nd.ReduceOp, axes []int, o ReduceOpts) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if o.DType != nd.Invalid {
		return a.reduceAs(op, axes, o)
	}
	kind := pkPlain
	switch op {
	case nd.Mean, nd.Var, nd.Std:
		kind = pkMoments
	}
	return a.reduce(op.String(), reduceP{Kind: kind, Op: op, Ddof: o.Ddof}, axes, o, nd.ReduceResultType(op, a.dtype))
}

// reduceAxes returns a reduction's axes, normalized (nil: every axis),
// or the error naming the op.
func (a *Array) reduceAxes(name string, axes []int) ([]int, error) {
	if axes == nil {
		axes = make([]int, a.NDim())
		for i := range axes {
			axes[i] = i
		}
	}
	ax, err := nd.NormalizeAxes(name, axes, a.NDim())
	if err != nil {
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err}
	}
	return ax, nil
}

func (a *Array) reduce(name string, p reduceP, axes []int, o ReduceOpts, outD nd.DType) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return errArray(err)
	}
	slices.Sort(ax)
	if p.Kind == pkArg && !p.Flat && len(ax) != 1 {
		return errorf(name, [][]int{a.shape}, "needs exactly one axis, got %v", axes)
	}
	if p.Kind == pkArg {
		// The chunk stage needs block origins (unknown.go).
		for _, x := range ax {
			if a.shape[x] == Unknown {
				return errArray(unknownError(name, a.shape, x))
			}
		}
	}
	if p.Kind == pkPlain && (p.Op == nd.Min || p.Op == nd.Max) || p.Kind == pkArg {
		for _, x := range ax {
			if a.shape[x] == 0 {
				return errorf(name, [][]int{a.shape}, "zero-size axis %d has no identity", x)
			}
		}
	}
	if err := checkDevice(o.Device, p.Op, p.Kind, a.dtype, ax, a.NDim()); err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	p.Axes, p.Keepdims, p.D = ax, o.Keepdims, a.dtype
	if p.Flat {
		p.Shape = a.shape
	}
	split, f, red := treeFan(o.SplitEvery, ax, a.NDim())
	tok := []any{a.name, ax, o.Keepdims, o.Ddof, split, p.Kind, int(p.Op), int(p.ArgOp), p.Flat}
	if o.Device == DeviceCUDA {
		tok = append(tok, o.Device)
	}
	if p.Out != nd.Invalid {
		tok = append(tok, "out", int(p.Out))
	}
	keep, ch, sh := chunkStageGrid(a, red)
	cp := p
	cp.Stage = stChunk
	if o.Device == DeviceCUDA {
		cp.Device = DeviceCUDA
	}
	cur := newArray(name+"-chunk", sh, ch, a.dtype, &reduceLayer{in: a, op: newOp(opReduce, cp), origin: p.Kind == pkArg, keep: keep}, tok...)
	for level := 0; ; level++ {
		done := true
		for _, x := range ax {
			if len(cur.chunks[x]) > f {
				done = false
			}
		}
		groups := make([][][2]int, cur.NDim())
		ch := make([][]int, cur.NDim())
		sh := make([]int, cur.NDim())
		for i := range groups {
			nb := len(cur.chunks[i])
			switch {
			case !red[i]:
				groups[i] = make([][2]int, nb)
				for j := range groups[i] {
					groups[i][j] = [2]int{j, j + 1}
				}
				ch[i], sh[i] = cur.chunks[i], cur.shape[i]
			case done:
				groups[i] = [][2]int{{0, nb}}
				ch[i], sh[i] = []int{1}, 1
			default:
				for j := 0; j < nb; j += f {
					groups[i] = append(groups[i], [2]int{j, min(j+f, nb)})
				}
				ch[i], sh[i] = ones(len(groups[i])), len(groups[i])
			}
		}
		sp := p
		if !done {
			sp.Stage = stCombine
			cur = newArray(name+"-partial", sh, ch, a.dtype, &reduceLayer{in: cur, op: newOp(opReduce, sp), groups: groups}, append(tok, level)...)
			continue
		}
		sp.Stage = stAgg
		fch, fsh := ch, sh
		if p.Flat && !o.Keepdims {
			fch, fsh = [][]int{}, []int{}
		} else if !o.Keepdims {
			fch, fsh = nil, nil
			for i := range ch {
				if !red[i] {
					fch = append(fch, ch[i])
					fsh = append(fsh, sh[i])
				}
			}
			if fsh == nil {
				fch, fsh = [][]int{}, []int{}
			}
		}
		return newArray(name, fsh, fch, outD, &aggLayer{reduceLayer{in: cur, op: newOp(opReduce, sp), groups: groups}, red, p.Flat}, append(tok, "agg")...)
	}
}

// reduceAs is Reduce with o.DType set (see ReduceOpts.DType).
func (a *Array) reduceAs(op nd.ReduceOp, axes []int, o ReduceOpts) *Array {
	name, d := op.String(), o.DType
	if !d.Valid() {
		return errorf(name, [][]int{a.shape}, "invalid dtype %d", int(d))
	}
	plain := o
	plain.DType = nd.Invalid
	inexact := d.IsFloat() || d.IsComplex()
	switch {
	case op == nd.Sum || op == nd.Prod:
		x := a.AsType(d)
		if err := x.Err(); err != nil {
			return errArray(err)
		}
		return x.reduce(name, reduceP{Kind: pkPlain, Op: op, Out: d}, axes, plain, d)
	case op == nd.Mean && inexact, (op == nd.Var || op == nd.Std) && inexact && (!a.dtype.IsComplex() || d.IsComplex()):
		// The input cast to d, reduced as usual (the moments in float64,
		// then rounded to d); a complex d takes the real variance back to
		// complex, as numpy's complex sum of |x - mean|² is.
		return a.AsType(d).Reduce(op, axes, plain).AsType(d)
	case op == nd.Mean || op == nd.Var || op == nd.Std:
		return a.momentsAs(op, axes, o)
	}
	return errorf(name, [][]int{a.shape}, "takes no dtype (numpy's %s has no dtype argument)", name)
}

// momentsAs computes Mean, Var or Std with o.DType as numpy's _mean and
// _var do when that dtype is not the float the moments give: the mean is
// sum(a, dtype)/count cast to dtype; the variance the sum, in dtype, of
// the squared deviations of a from that mean (|x - mean|² for complex),
// divided by count - ddof and cast to dtype; the standard deviation its
// square root cast to dtype, for a 0-d result only (numpy refuses to
// write sqrt's float result into an integer array).
func (a *Array) momentsAs(op nd.ReduceOp, axes []int, o ReduceOpts) *Array {
	name, d := op.String(), o.DType
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return errArray(err)
	}
	if op == nd.Std && !d.IsFloat() && !d.IsComplex() && a.NDim() > 0 && (o.Keepdims || len(ax) < a.NDim()) { // the result has axes
		return errorf(name, [][]int{a.shape}, "dtype %s: cannot cast sqrt's float result to %s (numpy's UFuncTypeError; only a 0-d result is cast)", d, d)
	}
	n := 1
	for _, x := range ax {
		if a.shape[x] == Unknown {
			return errArray(unknownError(name, a.shape, x))
		}
		n *= a.shape[x]
	}
	sumIn := ReduceOpts{SplitEvery: o.SplitEvery, DType: d, Keepdims: true}
	mean := a.Reduce(nd.Sum, ax, sumIn).Div(n).AsType(d)
	if op == nd.Mean {
		if !o.Keepdims {
			mean = mean.Squeeze(ax...)
		}
		return mean
	}
	x := a.Sub(mean)
	sq := x.Mul(x)
	if x.DType().IsComplex() {
		sq = x.Abs().Square()
	}
	sumIn.Keepdims = o.Keepdims
	r := sq.Reduce(nd.Sum, ax, sumIn).Div(max(n-o.Ddof, 0)).AsType(d)
	if op == nd.Std {
		r = r.Sqrt().AsType(d)
	}
	return r
}

// aggLayer is the last stage; its block index lacks the dropped axes.
type aggLayer struct {
	reduceLayer
	red  []bool
	flat bool
}

func (l *aggLayer) block(a *Array, idx []int) graph.Node {
	full := make([]int, len(l.red))
	switch {
	case l.flat:
	case len(idx) == len(l.red):
		copy(full, idx)
	default:
		j := 0
		for i := range full {
			if !l.red[i] {
				full[i] = idx[j]
				j++
			}
		}
	}
	return l.reduceLayer.block(a, full)
}

func ones(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 1
	}
	return out
}

// Sum, Prod, Min, Max, Mean, Var, Std, Any and All reduce over axes (none:
// all) without keepdims; use Reduce for keepdims, ddof and split_every.

func (a *Array) Sum(axes ...int) *Array  { return a.Reduce(nd.Sum, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Prod(axes ...int) *Array { return a.Reduce(nd.Prod, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Min(axes ...int) *Array  { return a.Reduce(nd.Min, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Max(axes ...int) *Array  { return a.Reduce(nd.Max, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Mean(axes ...int) *Array { return a.Reduce(nd.Mean, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Var(axes ...int) *Array  { return a.Reduce(nd.Var, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Std(axes ...int) *Array  { return a.Reduce(nd.Std, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) Any(axes ...int) *Array  { return a.Reduce(nd.Any, nilIfEmpty(axes), ReduceOpts{}) }
func (a *Array) All(axes ...int) *Array  { return a.Reduce(nd.All, nilIfEmpty(axes), ReduceOpts{}) }

func nilIfEmpty(axes []int) []int {
	if len(axes) == 0 {
		return nil
	}
	return axes
}

// ArgMin returns the indices of the minima along axis, or of the flattened
// array when flat (then axis is ignored and the result is 0-d). The first
// NaN wins, as in numpy. ArgReduce takes keepdims.
func (a *Array) ArgMin(axis int, flat bool) *Array { return a.argReduce(nd.ArgMin, axis, flat) }

// ArgMax is ArgMin for maxima.
func (a *Array) ArgMax(axis int, flat bool) *Array { return a.argReduce(nd.ArgMax, axis, flat) }

func (a *Array) argReduce(op nd.ArgOp, axis int, flat bool) *Array {
	return a.ArgReduce(op, axis, flat, ReduceOpts{})
}

// ArgReduce is ArgMin or ArgMax (op) with options, numpy's argmin and
// argmax with keepdims: along axis, or over the flattened array when flat
// (axis ignored). o.Keepdims keeps the reduced axis with length 1, and
// with flat every axis (numpy's shape (1, 1, …) for axis=None);
// o.SplitEvery is Reduce's. Ddof, DType and Device do not apply to arg
// reductions: setting them is an error.
func (a *Array) ArgReduce(op nd.ArgOp, axis int, flat bool, o ReduceOpts) *Array {
	name := op.String()
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if op != nd.ArgMin && op != nd.ArgMax {
		return errorf("argreduce", [][]int{a.shape}, "op %d is not ArgMin or ArgMax", int(op))
	}
	if o.Ddof != 0 || o.DType != nd.Invalid || (o.Device != "" && o.Device != DeviceCPU) {
		return errorf(name, [][]int{a.shape}, "takes no ddof, dtype or device")
	}
	var axes []int
	if !flat {
		axes = []int{axis}
	}
	return a.reduce(name, reduceP{Kind: pkArg, ArgOp: op, Flat: flat}, axes, o, nd.Int64)
}

// emptyPartial reports whether the chunk stage of p on a block of shape
// has no partial to give: Min, Max and the arg reductions over a reduced
// axis of length 0. Build time skips the known empty blocks (skipEmpty);
// a block of unknown length (unknown.go) turns out empty only when it
// runs, and then gives nil, which the later stages drop.
func emptyPartial(p reduceP, shape []int) bool {
	if !(p.Kind == pkArg || p.Kind == pkPlain && (p.Op == nd.Min || p.Op == nd.Max)) {
		return false
	}
	if p.Flat {
		return size(shape) == 0
	}
	for _, ax := range p.Axes {
		if ax >= 0 && ax < len(shape) && shape[ax] == 0 {
			return true
		}
	}
	return false
}

// dropEmptyPartials returns list without emptyPartial's nils.
func dropEmptyPartials(list []any) []any {
	empty := func(v any) bool {
		if v == nil {
			return true
		}
		a, ok := v.(*nd.Array)
		return ok && a == nil
	}
	if !slices.ContainsFunc(list, empty) {
		return list
	}
	out := make([]any, 0, len(list))
	for _, v := range list {
		if !empty(v) {
			out = append(out, v)
		}
	}
	return out
}
