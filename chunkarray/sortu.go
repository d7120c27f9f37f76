package chunkarray

import (
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Sorting and counting (dask.array's unique, bincount, histogram,
// histogram2d, histogramdd, digitize, searchsorted, isin; numpy's sort
// and argsort) and the operations whose result length depends on the
// data (nonzero, argwhere, flatnonzero, boolean indexing by a lazy
// mask), whose chunks are Unknown until computed (unknown.go). The
// kernels compare values in numpy's order (sortu_kernels.go); the block
// ops are sortu_ops.go's.

// newSortu builds an Array whose blocks are sortu tasks of p.
func newSortu(prefix string, shape []int, chunks [][]int, d nd.DType, p sortuP, ins []*Array, args func(*Array, []int) []graph.Arg, toks ...any) *Array {
	l := &sortuLayer{ins: ins, op: newOp(opSortu, p), args: args}
	parts := []any{p.Kind, p.Axis, p.Arg, p.Part, p.N, p.Shape, int(p.D), p.Bins, p.Uniform, p.F32, p.Edges, p.Weights, p.DD, p.Auto}
	for _, in := range ins {
		parts = append(parts, in.name)
	}
	return newArray(prefix, shape, chunks, d, l, append(parts, toks...)...)
}

// unknownChunks is n Unknown chunk lengths.
func unknownChunks(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = Unknown
	}
	return c
}

// Sort returns a sorted along axis (negative counts from the end), as
// numpy.sort(a, axis, kind="stable"): NaN last, complex by real then
// imaginary part. The axis must be one chunk, else an error says to
// Rechunk it: each block is sorted on its own. dask.array has no sort
// (dask/dask#4368, where this single-chunk version is the one proposed;
// a sort across chunks needs a shuffle); array-api-compat's sort for
// Dask rechunks the axis to one chunk silently, which this leaves to the
// caller.
func (a *Array) Sort(axis int) *Array { return a.sort("sort", axis, false) }

// ArgSort returns the indices that sort a along axis, as
// numpy.argsort(a, axis, kind="stable"): ties keep their order (numpy's
// default quicksort may order ties otherwise). The axis must be one
// chunk, as for Sort.
func (a *Array) ArgSort(axis int) *Array { return a.sort("argsort", axis, true) }

func (a *Array) sort(name string, axis int, arg bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	if nb := len(a.chunks[ax]); nb != 1 {
		return errorf(name, [][]int{a.shape}, "axis %d has %d chunks: sorting needs the axis in one chunk (Rechunk(map[int]any{%d: -1}) first)", ax, nb, ax)
	}
	d := a.dtype
	if arg {
		d = nd.Int64
	}
	return newSortu(name, a.shape, a.chunks, d, sortuP{Kind: kSort, Axis: ax, Arg: arg}, []*Array{a}, sameBlock([]*Array{a}))
}

// UniqueOpts are numpy.unique's return_index, return_inverse and
// return_counts.
type UniqueOpts struct {
	Index, Inverse, Counts bool
}

// UniqueResult is what Unique returns: the sorted unique values, and as
// asked for, the first position of each in the flattened input, the
// position in Values of each input element (flattened, as numpy 1.24's
// return_inverse), and the count of each. Values, Index and Counts have
// one chunk of Unknown length; Inverse has the flattened input's chunks.
type UniqueResult struct {
	Values, Index, Inverse, Counts *Array
}

// Unique returns the sorted unique values of a (flattened), as
// numpy.unique and dask.array.unique: each block's unique values, counts
// and first positions, then one task merging them. NaNs count as one
// value (numpy 1.24's equal_nan=True). The result's length is Unknown
// until computed. Values and Counts read a's blocks as they are, of any
// shape; Index and Inverse flatten a first (Reshape), and Index needs
// a's chunk sizes (an error otherwise).
func (a *Array) Unique(o UniqueOpts) UniqueResult {
	const name = "unique"
	fail := func(err error) UniqueResult {
		e := errArray(err)
		return UniqueResult{Values: e, Index: e, Inverse: e, Counts: e}
	}
	if err := a.Err(); err != nil {
		return fail(err)
	}
	x := a
	if a.NDim() != 1 && (o.Index || o.Inverse) {
		// Positions and the inverse are in the flattened array's order;
		// values and counts are not, and take a's blocks as they are.
		if err := needKnown(name, a); err != nil {
			return fail(err)
		}
		x = a.Reshape(-1)
		if err := x.Err(); err != nil {
			return fail(err)
		}
	}
	if o.Index {
		if err := needKnown(name, x); err != nil {
			return fail(err)
		}
	}
	var st []int
	if o.Index {
		st = starts(x.chunks[0])
	}
	chunk := newSortu(name+"-chunk", x.shape, x.chunks, x.dtype, sortuP{Kind: kUniqueChunk, Arg: o.Index}, []*Array{x},
		func(_ *Array, idx []int) []graph.Arg {
			s := 0
			if o.Index {
				s = st[idx[0]]
			}
			return []graph.Arg{graph.Ref(x.Key(idx...)), graph.Lit([]int{s})}
		})
	agg := newSortu(name+"-agg", []int{Unknown}, [][]int{{Unknown}}, x.dtype, sortuP{Kind: kUniqueAgg, D: x.dtype}, []*Array{chunk},
		func(*Array, []int) []graph.Arg { return []graph.Arg{allBlocks(chunk)} })
	pick := func(part int, d nd.DType, prefix string) *Array {
		return newSortu(prefix, []int{Unknown}, [][]int{{Unknown}}, d, sortuP{Kind: kPick, Part: part}, []*Array{agg}, sameBlock([]*Array{agg}))
	}
	r := UniqueResult{Values: pick(0, x.dtype, name)}
	if o.Counts {
		r.Counts = pick(1, nd.Int64, name+"-counts")
	}
	if o.Index {
		r.Index = pick(2, nd.Int64, name+"-index")
	}
	if o.Inverse {
		v := r.Values
		r.Inverse = newSortu(name+"-inverse", x.shape, x.chunks, nd.Int64, sortuP{Kind: kInverse, D: x.dtype}, []*Array{x, v},
			func(_ *Array, idx []int) []graph.Arg {
				return []graph.Arg{graph.Ref(x.Key(idx...)), graph.Ref(v.Key(0))}
			})
	}
	return r
}

// sameChunks returns b with a's chunks: rechunked when both are known,
// as is when they already agree, and otherwise unknownError.
func sameChunks(name string, a, b *Array) *Array {
	if slices.EqualFunc(a.chunks, b.chunks, slices.Equal) {
		return b
	}
	if err := needKnown(name, a); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, b); err != nil {
		return errArray(err)
	}
	return b.Rechunk(a.chunks)
}

// Bincount counts the occurrences of each value of the 1-d non-negative
// integer array x, as numpy.bincount and dask.array.bincount: int64
// counts, or with weights (an Array of x's shape; nil for none) the sum
// of each value's weights in float64; the result is at least minlength
// long. Each block is counted, then the counts summed in one task. The
// result's length is Unknown until computed (Dask claims minlength when
// it is given, which is wrong when a value reaches beyond it); a
// negative value fails the computation, as numpy's ValueError.
func Bincount(x, weights *Array, minlength int) *Array {
	const name = "bincount"
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	if x.NDim() != 1 {
		return errorf(name, [][]int{x.shape}, "object too deep for desired array: want a 1-d array")
	}
	if d := x.dtype; !(d.IsBool() || (d.IsInteger() && d != nd.Uint64)) {
		return errorf(name, [][]int{x.shape}, "cannot cast array data from dtype %s to int64 according to the rule 'safe'", d)
	}
	if minlength < 0 {
		return errorf(name, [][]int{x.shape}, "minlength must be non-negative")
	}
	p := sortuP{Kind: kBincount}
	ins := []*Array{x}
	d := nd.Int64
	if weights != nil {
		if err := weights.Err(); err != nil {
			return errArray(err)
		}
		if weights.NDim() != 1 || (x.Known() && weights.Known() && weights.shape[0] != x.shape[0]) {
			return errorf(name, [][]int{x.shape, weights.shape}, "the weights and list don't have the same length")
		}
		if weights.dtype.IsComplex() {
			return errorf(name, [][]int{weights.shape}, "cannot cast weights from %s to float64 according to the rule 'safe'", weights.dtype)
		}
		w := sameChunks(name, x, weights)
		if err := w.Err(); err != nil {
			return errArray(err)
		}
		ins = append(ins, w)
		p.Weights, d = true, nd.Float64
	}
	chunk := newSortu(name+"-chunk", x.shape, x.chunks, d, p, ins, sameBlock(ins))
	return newSortu(name, []int{Unknown}, [][]int{{Unknown}}, d, sortuP{Kind: kSumPad, N: minlength, D: d}, []*Array{chunk},
		func(*Array, []int) []graph.Arg { return []graph.Arg{allBlocks(chunk)} }, minlength)
}

// HistOpts are numpy.histogram's bins, range, weights and density:
// either Bins (the number of equal bins) with or without Range, or Edges
// (the bin edges, increasing). Without Range the range is the data's
// least and greatest values, found by a reduction before the counting
// (Dask asks for a range instead).
type HistOpts struct {
	Bins    int
	Range   []float64 // [lo, hi] for Bins
	Edges   []float64
	Weights *Array // of the input's shape; nil for none
	Density bool
}

// Histogram returns the histogram of a's elements and its bin edges, as
// numpy.histogram and dask.array.histogram: bins are half-open [e_i,
// e_i+1) but the last, which holds its upper edge; values outside, and
// NaN, are not counted. Equal bins follow numpy's arithmetic (in float32
// for a float32 input, whose edges are then float32). The counts are
// int64, or of the weights' dtype; with Density, count / bin width /
// total. Each block is counted, then the counts summed. Without a Range
// the edges are computed from the data's least and greatest values
// (numpy's rule: [0, 1] for no data, an error for NaN or infinity), one
// reduction before the counting. Dask requires the range; numpy does
// not.
func Histogram(a *Array, o HistOpts) (hist, edges *Array) {
	const name = "histogram"
	fail := func(e *Array) (*Array, *Array) { return e, e }
	if err := a.Err(); err != nil {
		return fail(errArray(err))
	}
	if a.dtype.IsComplex() {
		return fail(errorf(name, [][]int{a.shape}, "complex input is not supported"))
	}
	spec, err := binSpec(name, 0, o.Bins, o.Range, o.Edges, false)
	if err != nil {
		return fail(errArray(err))
	}
	f32 := spec.uniform && a.dtype == nd.Float32
	ed := nd.Float64
	if f32 {
		ed = nd.Float32
	}
	cols, w, err := histInputs(name, []*Array{a}, o.Weights)
	if err != nil {
		return fail(errArray(err))
	}
	ntype := nd.Int64
	if w != nil {
		ntype = w.dtype
	}
	p := sortuP{Kind: kHist, Bins: []int{spec.n}, Uniform: spec.uniform, F32: f32, Weights: w != nil, Auto: spec.auto}
	var extra []*Array // the edges, when found in the data
	switch {
	case spec.auto:
		x := cols[0]
		mm := newSortu(name+"-minmax", x.shape, x.chunks, nd.Float64, sortuP{Kind: kMinMax}, []*Array{x}, sameBlock([]*Array{x}))
		edges = newSortu(name+"-range", []int{spec.n + 1}, [][]int{{spec.n + 1}}, ed, sortuP{Kind: kRange, Bins: p.Bins, F32: f32, D: ed},
			[]*Array{mm}, func(*Array, []int) []graph.Arg { return []graph.Arg{allBlocks(mm)} })
		extra = []*Array{edges}
	default:
		e := spec.edges
		if spec.uniform {
			e = linspaceEdges(spec.lo, spec.hi, spec.n, f32)
		}
		p.Edges = [][]uint64{bitsOf(e)}
		ea, _ := nd.FromSlice(slices.Clone(e), len(e))
		ea, _ = ea.AsType(ed)
		edges = FromNDArray(ea, -1)
	}
	hist = histGraph(name, cols, w, p, ntype, extra...)
	if o.Density {
		p.Kind, p.D = kDensity, nd.Float64
		if dt, err := nd.BinaryResultType(nd.Div, ntype, ed); err == nil {
			p.D = dt
		}
		counts := hist
		ins := append([]*Array{counts}, extra...)
		hist = newSortu(name+"-density", counts.shape, counts.chunks, p.D, p, ins, func(_ *Array, idx []int) []graph.Arg {
			args := []graph.Arg{graph.Ref(counts.Key(idx...))}
			for _, e := range extra {
				args = append(args, graph.Ref(e.Key(0)))
			}
			return args
		})
	}
	return hist, edges
}

// Histogram2D is numpy.histogram2d (dask.array.histogram2d): the
// histogram of the points (x, y), bins per axis as HistogramDD's.
func Histogram2D(x, y *Array, o HistDDOpts) (hist, xedges, yedges *Array) {
	h, e := HistogramDD([]*Array{x, y}, o)
	if len(e) != 2 {
		return h, h, h
	}
	return h, e[0], e[1]
}

// HistDDOpts are numpy.histogramdd's bins, range, weights and density:
// per dimension either a bin count (Bins[d] > 0) with its range
// (Ranges[d], [lo, hi]; nil, or Ranges nil, to find it in the data as
// numpy does) or explicit increasing edges (Edges[d]).
type HistDDOpts struct {
	Bins    []int
	Ranges  [][]float64
	Edges   [][]float64
	Weights *Array
	Density bool
}

// HistogramDD is numpy.histogramdd (dask.array.histogramdd) of the
// points whose coordinates are the 1-d arrays sample (numpy's sequence
// of D arrays; for an (N, D) array x pass its columns): a D-d float64
// histogram (numpy casts it to float) and the D float64 edge arrays.
// Bins as numpy's searchsorted: [e_i, e_i+1), the last one closed;
// points outside, or with a NaN coordinate, are not counted.
func HistogramDD(sample []*Array, o HistDDOpts) (hist *Array, edges []*Array) {
	const name = "histogramdd"
	fail := func(e *Array) (*Array, []*Array) { return e, nil }
	D := len(sample)
	if D == 0 || D > 32 {
		return fail(errorf(name, nil, "want 1 to 32 coordinate arrays, got %d", D))
	}
	for _, s := range sample {
		if err := s.Err(); err != nil {
			return fail(errArray(err))
		}
		if s.NDim() != 1 {
			return fail(errorf(name, [][]int{s.shape}, "each coordinate must be a 1-d array"))
		}
		if s.dtype.IsComplex() {
			return fail(errorf(name, [][]int{s.shape}, "complex input is not supported"))
		}
	}
	if (o.Bins != nil && len(o.Bins) != D) || (o.Edges != nil && len(o.Edges) != D) || (o.Ranges != nil && len(o.Ranges) != D) {
		return fail(errorf(name, nil, "the dimension of bins must be equal to the dimension of the sample x"))
	}
	p := sortuP{Kind: kHist, DD: true}
	for d := range D {
		if err := sample[d].Err(); err != nil {
			return fail(errArray(err))
		}
		var n int
		var r, e []float64
		if o.Bins != nil {
			n = o.Bins[d]
		}
		if o.Ranges != nil {
			r = o.Ranges[d]
		}
		if o.Edges != nil {
			e = o.Edges[d]
		}
		spec, err := binSpec(name, d, n, r, e, true)
		if err != nil {
			return fail(errArray(err))
		}
		if spec.auto {
			// The range found in this coordinate (numpy's rule).
			x := sample[d]
			mm := newSortu(name+"-minmax", x.shape, x.chunks, nd.Float64, sortuP{Kind: kMinMax}, []*Array{x}, sameBlock([]*Array{x}))
			ea := newSortu(name+"-range", []int{spec.n + 1}, [][]int{{spec.n + 1}}, nd.Float64,
				sortuP{Kind: kRange, Bins: []int{spec.n}, F32: x.dtype == nd.Float32, DD: true, D: nd.Float64},
				[]*Array{mm}, func(*Array, []int) []graph.Arg { return []graph.Arg{allBlocks(mm)} })
			p.Bins, p.Auto = append(p.Bins, spec.n), true
			edges = append(edges, ea)
			continue
		}
		if spec.uniform {
			e = linspaceEdges(spec.lo, spec.hi, spec.n, false)
		}
		p.Bins = append(p.Bins, len(e)-1)
		p.Edges = append(p.Edges, bitsOf(e))
		ea, _ := nd.FromSlice(slices.Clone(e), len(e))
		edges = append(edges, FromNDArray(ea, -1))
	}
	var extra []*Array // every dimension's edges, when some are found in the data
	if p.Auto {
		extra, p.Edges = edges, nil
	}
	cols, w, err := histInputs(name, sample, o.Weights)
	if err != nil {
		return fail(errArray(err))
	}
	p.Weights = w != nil
	flat := histGraph(name, cols, w, p, nd.Float64, extra...)
	if o.Density {
		q := p
		q.Kind, q.D = kDensity, nd.Float64
		counts := flat
		ins := append([]*Array{counts}, extra...)
		flat = newSortu(name+"-density", counts.shape, counts.chunks, nd.Float64, q, ins, func(_ *Array, idx []int) []graph.Arg {
			args := []graph.Arg{graph.Ref(counts.Key(idx...))}
			for _, e := range extra {
				args = append(args, graph.Ref(e.Key(0)))
			}
			return args
		})
	} else {
		flat = flat.AsType(nd.Float64)
	}
	return flat.Reshape(p.Bins...), edges
}

// histInputs checks the coordinate arrays (HistogramDD's are 1-d;
// Histogram's one array any shape: counting does not care about order,
// so its blocks are read as they are, without a Reshape) and gives the
// others and the weights the first one's chunks.
func histInputs(name string, cols []*Array, weights *Array) ([]*Array, *Array, error) {
	out := make([]*Array, len(cols))
	for i, c := range cols {
		if i > 0 {
			if c.Known() && out[0].Known() && c.shape[0] != out[0].shape[0] {
				return nil, nil, &Error{Op: name, Shapes: [][]int{out[0].shape, c.shape}, Reason: "all coordinate arrays must have the same length"}
			}
			c = sameChunks(name, out[0], c)
		}
		if err := c.Err(); err != nil {
			return nil, nil, err
		}
		out[i] = c
	}
	if weights == nil {
		return out, nil, nil
	}
	if err := weights.Err(); err != nil {
		return nil, nil, err
	}
	if weights.dtype.IsComplex() {
		return nil, nil, &Error{Op: name, Shapes: [][]int{weights.shape}, Reason: "complex weights are not supported"}
	}
	if weights.NDim() != out[0].NDim() {
		return nil, nil, &Error{Op: name, Shapes: [][]int{cols[0].shape, weights.shape}, Reason: "weights should have the same shape as a"}
	}
	for ax, s := range weights.shape {
		if s != out[0].shape[ax] && s != Unknown && out[0].shape[ax] != Unknown {
			return nil, nil, &Error{Op: name, Shapes: [][]int{cols[0].shape, weights.shape}, Reason: "weights should have the same shape as a"}
		}
	}
	w := sameChunks(name, out[0], weights)
	return out, w, w.Err()
}

// histGraph counts each block of the columns into the flat grid of p's
// bins, then sums the blocks' counts into one block of dtype d.
func histGraph(name string, cols []*Array, w *Array, p sortuP, d nd.DType, extra ...*Array) *Array {
	total := 1
	for _, n := range p.Bins {
		total *= n
	}
	ins := slices.Clone(cols)
	if w != nil {
		ins = append(ins, w)
	}
	ins = append(ins, extra...)
	cd := nd.Int64
	if w != nil {
		cd = nd.Float64
	}
	x := cols[0]
	chunk := newSortu(name+"-chunk", x.shape, x.chunks, cd, p, ins, func(_ *Array, idx []int) []graph.Arg {
		refs := make([]graph.Arg, len(cols))
		for i, c := range cols {
			refs[i] = graph.Ref(c.Key(idx...))
		}
		args := []graph.Arg{graph.List(refs...)}
		if w != nil {
			args = append(args, graph.Ref(w.Key(idx...)))
		}
		for _, e := range extra {
			args = append(args, graph.Ref(e.Key(0)))
		}
		return args
	})
	sum := newSortu(name+"-sum", []int{total}, [][]int{{total}}, cd, sortuP{Kind: kSumPad, N: total, D: cd}, []*Array{chunk},
		func(*Array, []int) []graph.Arg { return []graph.Arg{allBlocks(chunk)} })
	return sum.AsType(d)
}

// binSpec is one dimension's bins: equal ones (n, lo, hi) or explicit
// edges.
type binSpecT struct {
	uniform bool
	auto    bool // the range is found in the data
	n       int
	lo, hi  float64
	edges   []float64
}

func binSpec(name string, dim, n int, rng, edges []float64, dd bool) (binSpecT, error) {
	bad := func(format string, args ...any) (binSpecT, error) {
		return binSpecT{}, &Error{Op: name, Reason: fmt.Sprintf(format, args...)}
	}
	if edges != nil {
		if n != 0 || rng != nil {
			return bad("give either a bin count with its range or the edges, not both")
		}
		if len(edges) < 2 {
			return bad("`bins` must have at least two edges, got %d", len(edges))
		}
		for i := 1; i < len(edges); i++ {
			if !(edges[i-1] <= edges[i]) {
				if dd {
					return bad("`bins[%d]` must be monotonically increasing, when an array", dim)
				}
				return bad("`bins` must increase monotonically, when an array")
			}
		}
		return binSpecT{edges: slices.Clone(edges), n: len(edges) - 1}, nil
	}
	if n < 1 {
		if dd {
			return bad("`bins[%d]` must be positive, when an integer", dim)
		}
		return bad("`bins` must be positive, when an integer")
	}
	if rng == nil {
		return binSpecT{uniform: true, auto: true, n: n}, nil
	}
	if len(rng) != 2 {
		return bad("range must be [lo, hi], got %v", rng)
	}
	lo, hi := rng[0], rng[1]
	if lo > hi {
		return bad("max must be larger than min in range parameter.")
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo != lo || hi != hi {
		return bad("supplied range of [%v, %v] is not finite", lo, hi)
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	return binSpecT{uniform: true, n: n, lo: lo, hi: hi}, nil
}

func bitsOf(e []float64) []uint64 {
	out := make([]uint64, len(e))
	for i, x := range e {
		out[i] = math.Float64bits(x)
	}
	return out
}

// Digitize returns the index of the bin each element of x falls in, as
// numpy.digitize and dask.array.digitize: bins is a 1-d increasing or
// decreasing *nd.Array; with right false, bins[i-1] <= x < bins[i] gives
// i (increasing bins), with right true bins[i-1] < x <= bins[i]. int64,
// x's chunks.
func Digitize(x *Array, bins *nd.Array, right bool) *Array {
	const name = "digitize"
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	if bins == nil || bins.NDim() != 1 {
		return errorf(name, [][]int{x.shape}, "bins must be a 1-d array")
	}
	if x.dtype.IsComplex() || bins.DType().IsComplex() {
		return errorf(name, [][]int{x.shape}, "x may not be complex")
	}
	d := nd.ResultType(x.dtype, bins.DType())
	bv, err := canonValues(bins, canonDType(d))
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	if !monotonic(bv) {
		return errorf(name, [][]int{bins.Shape()}, "bins must be monotonically increasing or decreasing")
	}
	b := FromNDArray(bins, -1)
	return newSortu(name, x.shape, x.chunks, nd.Int64, sortuP{Kind: kDigitize, Arg: right, D: d}, []*Array{x, b},
		func(_ *Array, idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(x.Key(idx...)), graph.Ref(b.Key(0))}
		})
}

// monotonic reports whether canonical values never decrease or never
// increase (numpy.digitize's check; NaN fails both).
func monotonic(v any) bool {
	switch x := v.(type) {
	case []int64:
		return slices.IsSorted(x) || slices.IsSortedFunc(x, func(a, b int64) int { return cmpInt(b, a) })
	case []uint64:
		return slices.IsSorted(x) || slices.IsSortedFunc(x, func(a, b uint64) int { return cmpInt(b, a) })
	case []float64:
		inc, dec := true, true
		for i := 1; i < len(x); i++ {
			inc = inc && x[i-1] <= x[i]
			dec = dec && x[i-1] >= x[i]
		}
		return inc || dec
	}
	return false
}

func cmpInt[T int64 | uint64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SearchSorted returns where each element of v would be inserted into
// the sorted 1-d a to keep it sorted, as numpy.searchsorted and
// dask.array.searchsorted: the first such position (right false), or the
// last (right true), in numpy's order (NaN last). int64, v's chunks;
// every block of v reads all of a.
func SearchSorted(a, v *Array, right bool) *Array {
	const name = "searchsorted"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := v.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() != 1 {
		return errorf(name, [][]int{a.shape}, "a must be a 1-d array")
	}
	d := nd.ResultType(a.dtype, v.dtype)
	return newSortu(name, v.shape, v.chunks, nd.Int64, sortuP{Kind: kSearch, Arg: right, D: d}, []*Array{v, a},
		func(_ *Array, idx []int) []graph.Arg { return []graph.Arg{graph.Ref(v.Key(idx...)), allBlocks(a)} })
}

// IsIn reports for each element of element whether it is in test (an
// *Array or an *nd.Array of any shape), as numpy.isin and
// dask.array.isin, or whether it is not with invert: values compare
// equal in their common dtype (NaN is in nothing). bool, element's
// chunks; every block reads all of test.
func IsIn(element *Array, test any, invert bool) *Array {
	const name = "isin"
	if err := element.Err(); err != nil {
		return errArray(err)
	}
	var t *Array
	switch x := test.(type) {
	case *Array:
		t = x
	case *nd.Array:
		if x == nil {
			return errorf(name, nil, "nil nd.Array")
		}
		if x.NDim() == 0 {
			r, err := x.Reshape(1)
			if err != nil {
				return errArray(&Error{Op: name, Err: err})
			}
			x = r
		}
		t = FromNDArray(x, -1)
	default:
		return errorf(name, nil, "test elements of type %T: want *chunkarray.Array or *nd.Array", test)
	}
	if err := t.Err(); err != nil {
		return errArray(err)
	}
	d := nd.ResultType(element.dtype, t.dtype)
	return newSortu(name, element.shape, element.chunks, nd.Bool, sortuP{Kind: kIsIn, Arg: invert, D: d}, []*Array{element, t},
		func(_ *Array, idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(element.Key(idx...)), allBlocks(t)}
		})
}

// Flatnonzero returns the positions of the nonzero elements of a
// flattened, as numpy.flatnonzero and dask.array.flatnonzero: int64, one
// chunk of Unknown length per block of a.Reshape(-1). a's chunk sizes
// must be known.
func Flatnonzero(a *Array) *Array {
	const name = "flatnonzero"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, a); err != nil {
		return errArray(err)
	}
	x := a.Reshape(-1)
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	st := starts(x.chunks[0])
	nb := len(x.chunks[0])
	return newSortu(name, []int{Unknown}, [][]int{unknownChunks(nb)}, nd.Int64, sortuP{Kind: kFlatNZ}, []*Array{x},
		func(_ *Array, idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(x.Key(idx...)), graph.Lit([]int{st[idx[0]]})}
		})
}

// Argwhere returns the coordinates of the nonzero elements of a, one row
// each in C order, as numpy.argwhere and dask.array.argwhere: int64 of
// shape (Unknown, a.NDim()).
func Argwhere(a *Array) *Array {
	const name = "argwhere"
	f := Flatnonzero(a)
	if err := f.Err(); err != nil {
		return errArray(err)
	}
	n := a.NDim()
	return newSortu(name, []int{Unknown, n}, [][]int{f.chunks[0], {n}}, nd.Int64, sortuP{Kind: kUnravel, Shape: slices.Clone(a.shape)}, []*Array{f},
		func(_ *Array, idx []int) []graph.Arg { return []graph.Arg{graph.Ref(f.Key(idx[0]))} })
}

// Nonzero returns the indices of the nonzero elements of a, one int64
// array per axis (a 0-d a counts as 1-d), as numpy.nonzero and
// dask.array.nonzero; each has Unknown length.
func Nonzero(a *Array) []*Array {
	if err := a.Err(); err != nil {
		return []*Array{errArray(err)}
	}
	if a.NDim() <= 1 {
		return []*Array{Flatnonzero(a)}
	}
	w := Argwhere(a)
	out := make([]*Array, a.NDim())
	for i := range out {
		out[i] = w.Index(All(), At(i))
	}
	return out
}

// Nonzero is Nonzero(a), as dask.array.Array.nonzero.
func (a *Array) Nonzero() []*Array { return Nonzero(a) }

// WhereIndices is numpy.where(cond) with one argument (dask.array.where
// with one argument): Nonzero(cond).
func WhereIndices(cond *Array) []*Array { return Nonzero(cond) }

// Mask selects with a lazy boolean array in Index, as numpy's x[m] and
// Dask's x[m] for a Dask mask: m has the shape of x's leading m.NDim()
// axes (x's whole shape, or one axis), and the result has one axis of
// Unknown length in their place, the selected elements in C order. A
// mask of several axes flattens them first (Reshape, which needs known
// sizes). Mask is the only Sel of its Index call.
func Mask(m *Array) Sel { return Sel{kind: selMask, mask: m} }

// maskIndex is Index with a Mask.
func (a *Array) maskIndex(sels []Sel) *Array {
	const name = "getitem"
	if len(sels) != 1 {
		return errorf(name, [][]int{a.shape}, "a Mask must be the only selection of its Index")
	}
	m := sels[0].mask
	if err := m.Err(); err != nil {
		return errArray(err)
	}
	if m.dtype != nd.Bool {
		return errorf(name, [][]int{a.shape, m.shape}, "a Mask must be a bool array, not %s", m.dtype)
	}
	k := m.NDim()
	if k == 0 || k > a.NDim() {
		return errorf(name, [][]int{a.shape, m.shape}, "a Mask must have 1 to %d axes", a.NDim())
	}
	for i := range k {
		if m.shape[i] != a.shape[i] && m.shape[i] != Unknown && a.shape[i] != Unknown {
			return errorf(name, [][]int{a.shape, m.shape}, "boolean index did not match indexed array along dimension %d; dimension is %d but corresponding boolean dimension is %d", i, a.shape[i], m.shape[i])
		}
	}
	x := a
	if k > 1 {
		if err := needKnown(name, a); err != nil {
			return errArray(err)
		}
		if err := needKnown(name, m); err != nil {
			return errArray(err)
		}
		lead := 1
		for i := range k {
			lead *= a.shape[i]
		}
		x = a.Reshape(append([]int{lead}, a.shape[k:]...)...)
		m = m.Reshape(-1)
		if err := errorsOf(x, m); err != nil {
			return errArray(err)
		}
	}
	// m takes x's chunks along the axis.
	if !slices.Equal(m.chunks[0], x.chunks[0]) {
		if err := needKnown(name, m); err != nil {
			return errArray(err)
		}
		if err := needKnown(name, x); err != nil {
			return errArray(err)
		}
		m = m.Rechunk([][]int{x.chunks[0]})
		if err := m.Err(); err != nil {
			return errArray(err)
		}
	}
	shape := slices.Clone(x.shape)
	shape[0] = Unknown
	chunks := slices.Clone(x.chunks)
	chunks[0] = unknownChunks(len(x.chunks[0]))
	return newSortu(name, shape, chunks, a.dtype, sortuP{Kind: kMaskSel}, []*Array{x, m},
		func(_ *Array, idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(x.Key(idx...)), graph.Ref(m.Key(idx[0]))}
		})
}

// errorsOf returns the first error of the arrays.
func errorsOf(xs ...*Array) error {
	for _, x := range xs {
		if err := x.Err(); err != nil {
			return err
		}
	}
	return nil
}
