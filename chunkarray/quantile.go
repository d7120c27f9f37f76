package chunkarray

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/nd"
)

// Median, NanMedian, Percentile and Quantile.
//
// Medians are exact and need the reduced axes whole in each block, as
// Dask's: Median rechunks them to one chunk (the other axes keep their
// chunks; Dask rechunks those "auto") and takes each block's median. An
// axis of nil (numpy's axis=None) is an error, as Dask's
// NotImplementedError: the median of a whole array is not a tree
// reduction.
//
// Percentile is Dask's: of a 1-d array only, exact when the array is one
// chunk, and otherwise approximate (method "linear" only). Each chunk
// gives a sketch of its distribution, its values at the levels j/M for
// j = 0…M (sketchPoints M = 100; all its sorted values when it has at most
// M+1), with its length; the sketches go up a tree (concatenated, not
// compressed) and the aggregate merges them into a piecewise-linear
// estimate of the whole array's distribution function,
//
//	F(v) = Σ n_i F_i(v) / N,
//
// F_i the linear interpolation of chunk i's sketch (numpy's "linear"
// quantile function inverted), and inverts it at q. Each F_i is within
// 1/M of chunk i's own linear quantile function in rank, so the estimate
// x̂ of the q-quantile satisfies, for the fraction r(x) of elements below
// x, r(x̂) ≥ q - 1/M - 1/n_min and r⁺(x̂) ≤ q + 1/M + 1/n_min (r⁺: at or
// below; n_min the shortest chunk's length): the bound percentile_test.go
// checks. Dask's merge_percentiles evaluates each chunk only at the asked
// q (and 0 and 100), whose error depends on q's spacing; the sketch's
// does not.

// sketchPoints is the number of intervals of a chunk's sketch.
const sketchPoints = 100

func init() {
	registerTree("chunkarray.median", treeFuncs{
		chunk: func(x *nd.Array, _ []int, p *treeP) ([]*nd.Array, error) {
			r, err := quantileBlock(x, p.Axes, []float64{0.5}, "median", p.Method == "nan")
			return []*nd.Array{r}, err
		},
		combine:   passFields,
		aggregate: passResult,
	})
	registerTree("chunkarray.percentile", treeFuncs{
		chunk: func(x *nd.Array, _ []int, p *treeP) ([]*nd.Array, error) {
			r, err := quantileBlock(x, p.Axes, p.Q, p.Method, p.SkipNaN)
			return []*nd.Array{r}, err
		},
		combine:   passFields,
		aggregate: passResult,
	})
	registerTree("chunkarray.percentile-sketch", treeFuncs{
		chunk: func(x *nd.Array, _ []int, p *treeP) ([]*nd.Array, error) {
			return sketchChunk(x, p.SkipNaN)
		},
		combine: passFields,
		aggregate: func(parts []*nd.Array, p *treeP) (*nd.Array, error) {
			return mergeSketches(parts, p.Q)
		},
	})
}

// passFields is the combine of a reduction whose partials are only
// concatenated.
func passFields(parts []*nd.Array, _ *treeP) ([]*nd.Array, error) { return parts, nil }

// passResult is the aggregate of a reduction whose one partial is the
// keepdims result.
func passResult(parts []*nd.Array, p *treeP) (*nd.Array, error) {
	return dropReduced(parts[0], p.Axes, p.Keepdims)
}

// medianDType is numpy's: float32 stays, everything else is float64.
func medianDType(d nd.DType) nd.DType {
	if d == nd.Float32 {
		return nd.Float32
	}
	return nd.Float64
}

// Median is numpy.median and dask.array.median along axes (at least
// one): the reduced axes are rechunked to one chunk and each block's
// median taken. A lane holding a NaN gives NaN; an empty one NaN. Integer
// and float dtypes (complex and bool are errors); int64 values beyond
// 2^53 lose precision (the kernel sorts in the input's dtype and
// interpolates in float64).
func (a *Array) Median(axes []int, keepdims bool) *Array {
	return a.median("median", axes, keepdims, "")
}

// NanMedian is numpy.nanmedian and dask.array.nanmedian: Median ignoring
// NaNs; an all-NaN lane gives NaN (numpy warns).
func (a *Array) NanMedian(axes []int, keepdims bool) *Array {
	return a.median("nanmedian", axes, keepdims, "nan")
}

func (a *Array) median(name string, axes []int, keepdims bool, method string) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if len(axes) == 0 {
		return errorf(name, [][]int{a.shape}, "needs an axis: the median of the whole array is not computed in parallel (as Dask's NotImplementedError)")
	}
	if err := orderedDType(name, a); err != nil {
		return errArray(err)
	}
	ax, err := a.reduceAxes(name, axes)
	if err != nil {
		return errArray(err)
	}
	x := a.wholeAxes(ax)
	return x.tree(treeP{Fn: "chunkarray.median", Op: name, Out: medianDType(a.dtype), Method: method}, ax, ReductionOpts{Keepdims: keepdims})
}

// wholeAxes rechunks the axes to one chunk each.
func (a *Array) wholeAxes(axes []int) *Array {
	m := map[int]any{}
	for _, ax := range axes {
		if len(a.chunks[ax]) > 1 {
			m[ax] = -1
		}
	}
	if len(m) == 0 {
		return a
	}
	return a.Rechunk(m)
}

func orderedDType(name string, a *Array) error {
	if a.dtype.IsComplex() || a.dtype.IsBool() {
		return &Error{Op: name, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("dtype %s is not supported (integers and floats)", a.dtype)}
	}
	return nil
}

// PercentileOpts tune Percentile and Quantile.
type PercentileOpts struct {
	// Method is numpy's method (interpolation): "linear" (the default),
	// "lower", "higher", "midpoint" or "nearest". Across chunks only
	// "linear" is supported.
	Method string
	// SplitEvery is the fan-in of the sketches' tree (0: 4).
	SplitEvery int
	// Axis, when not nil, is numpy's axis (one): the array may have any
	// number of axes, the axis is rechunked to one chunk and the result is
	// exact, with the q axis first (numpy's shape). Nil is Dask's 1-d
	// percentile.
	Axis *int
}

// Percentile is dask.array.percentile: the q-th percentiles (0 ≤ q ≤
// 100) of a 1-d array, shape (len(q),), with numpy's dtype (float64, or
// the input's for "lower", "higher" and "nearest"). Exact when the array
// is one chunk (numpy.percentile); across chunks approximate with the
// error bound of the file's comment. A NaN in the array gives NaN.
func (a *Array) Percentile(q []float64, o PercentileOpts) *Array {
	return a.percentile("percentile", q, 100, o, false)
}

// Quantile is Percentile with q in [0, 1] (numpy.quantile).
func (a *Array) Quantile(q []float64, o PercentileOpts) *Array {
	return a.percentile("quantile", q, 1, o, false)
}

// NanPercentile is numpy.nanpercentile: Percentile ignoring NaNs (NaN
// for an all-NaN lane), exact or approximate as Percentile.
func (a *Array) NanPercentile(q []float64, o PercentileOpts) *Array {
	return a.percentile("nanpercentile", q, 100, o, true)
}

// NanQuantile is numpy.nanquantile: NanPercentile with q in [0, 1].
func (a *Array) NanQuantile(q []float64, o PercentileOpts) *Array {
	return a.percentile("nanquantile", q, 1, o, true)
}

func (a *Array) percentile(name string, q []float64, scale float64, o PercentileOpts, skipNaN bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() != 1 && o.Axis == nil {
		return errorf(name, [][]int{a.shape}, "only 1-d arrays without an axis (as Dask's NotImplementedError)")
	}
	if err := orderedDType(name, a); err != nil {
		return errArray(err)
	}
	if len(q) == 0 {
		return errorf(name, [][]int{a.shape}, "no q")
	}
	qs := make([]float64, len(q))
	for i, v := range q {
		if !(v >= 0 && v <= scale) {
			return errorf(name, [][]int{a.shape}, "q %v is outside [0, %v] (numpy's ValueError)", v, scale)
		}
		qs[i] = v / scale
	}
	method := o.Method
	if method == "" {
		method = "linear"
	}
	if !slices.Contains(quantileMethods, method) {
		return errorf(name, [][]int{a.shape}, "unknown method %q (one of %v)", method, quantileMethods)
	}
	out := nd.Float64
	if method != "linear" && method != "midpoint" {
		out = a.dtype
	}
	ro := ReductionOpts{Keepdims: true, OutputSize: len(qs), SplitEvery: o.SplitEvery}
	if o.Axis != nil {
		ax, err := normAxis(name, a, *o.Axis)
		if err != nil {
			return errArray(err)
		}
		if a.shape[ax] == 0 {
			return errorf(name, [][]int{a.shape}, "empty axis %d (numpy's IndexError)", ax)
		}
		r := a.wholeAxes([]int{ax}).tree(treeP{Fn: "chunkarray.percentile", Op: name, Out: out, Q: qs, Method: method, SkipNaN: skipNaN}, []int{ax}, ro)
		perm := []int{ax}
		for i := range a.NDim() {
			if i != ax {
				perm = append(perm, i)
			}
		}
		return r.Transpose(perm...)
	}
	if a.shape[0] == 0 {
		return errorf(name, [][]int{a.shape}, "empty array (numpy's IndexError)")
	}
	nonEmpty := 0
	for _, c := range a.chunks[0] {
		if c > 0 {
			nonEmpty++
		}
	}
	if nonEmpty <= 1 {
		return a.tree(treeP{Fn: "chunkarray.percentile", Op: name, Out: out, Q: qs, Method: method, SkipNaN: skipNaN}, []int{0}, ro)
	}
	if method != "linear" {
		return errorf(name, [][]int{a.shape}, "method %q across %d chunks: only \"linear\" is approximated (rechunk to one chunk for an exact result)", method, nonEmpty)
	}
	return a.tree(treeP{Fn: "chunkarray.percentile-sketch", Op: name, Out: out, Q: qs, SkipNaN: skipNaN}, []int{0}, ro)
}

// sketchChunk is a 1-d block's sketch: fields values, levels (in [0, 1],
// from 0 in each sketch but a one-element one's, which is 1) and the
// block's length per point; values are NaN when the block holds a NaN,
// unless skipNaN, when NaNs are left out (an all-NaN block has an empty
// sketch).
func sketchChunk(x *nd.Array, skipNaN bool) ([]*nd.Array, error) {
	f, err := x.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	v, err := nd.Values[float64](f.Contiguous())
	if err != nil {
		return nil, err
	}
	s, hasNaN := sortLane(nil, v)
	hasNaN = hasNaN && !skipNaN
	n := len(s)
	var vals, levels []float64
	switch {
	case n == 0:
	case n == 1:
		vals, levels = []float64{s[0]}, []float64{1}
	case n-1 <= sketchPoints:
		vals = s
		for k := range n {
			levels = append(levels, float64(k)/float64(n-1))
		}
	default:
		for j := 0; j <= sketchPoints; j++ {
			p := float64(j) / sketchPoints
			vals = append(vals, quantileSorted(s, p, "linear"))
			levels = append(levels, p)
		}
	}
	if hasNaN {
		for i := range vals {
			vals[i] = math.NaN()
		}
		if len(vals) == 0 {
			vals, levels = []float64{math.NaN()}, []float64{1}
		}
	}
	weights := make([]float64, len(vals))
	for i := range weights {
		weights[i] = float64(max(n, 1))
	}
	out := make([]*nd.Array, 3)
	for i, d := range [][]float64{vals, levels, weights} {
		if out[i], err = nd.FromSlice(d, len(d)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pctSketch is one chunk's piecewise-linear distribution function.
type pctSketch struct {
	vals, levels []float64
	n            float64
}

// at is the sketch's F_i(v): the level interpolated at v (0 below its
// first value, 1 from its last), right-continuous at ties.
func (s pctSketch) at(v float64) float64 {
	k := sort.SearchFloat64s(s.vals, v) // first value >= v
	for k < len(s.vals) && s.vals[k] == v {
		k++
	}
	// vals[k-1] <= v < vals[k]
	switch {
	case k == 0:
		return 0
	case k == len(s.vals):
		return 1
	}
	lo, hi := s.vals[k-1], s.vals[k]
	return s.levels[k-1] + (v-lo)/(hi-lo)*(s.levels[k]-s.levels[k-1])
}

// mergeSketches splits the concatenated sketches and inverts their
// merged distribution function at qs.
func mergeSketches(parts []*nd.Array, qs []float64) (*nd.Array, error) {
	var cols [3][]float64
	for i := range cols {
		v, err := nd.Values[float64](parts[i].Contiguous())
		if err != nil {
			return nil, err
		}
		cols[i] = v
	}
	vals, levels, weights := cols[0], cols[1], cols[2]
	var sks []pctSketch
	total := 0.0
	for i := 0; i < len(vals); {
		j := i + 1
		for j < len(vals) && levels[j] > levels[j-1] {
			j++
		}
		sks = append(sks, pctSketch{vals[i:j], levels[i:j], weights[i]})
		total += weights[i]
		i = j
	}
	out := make([]float64, len(qs))
	if len(vals) == 0 || slices.ContainsFunc(vals, math.IsNaN) { // all NaN (nanpercentile), or a NaN
		for i := range out {
			out[i] = math.NaN()
		}
		return nd.FromSlice(out, len(out))
	}
	u := slices.Clone(vals)
	slices.Sort(u)
	u = slices.Compact(u)
	F := make([]float64, len(u))
	for i, v := range u {
		for _, s := range sks {
			F[i] += s.n * s.at(v)
		}
		F[i] /= total
	}
	for i, q := range qs {
		k := sort.SearchFloat64s(F, q) // first F >= q
		switch {
		case k == 0:
			out[i] = u[0]
		case k >= len(u):
			out[i] = u[len(u)-1]
		default:
			t := (q - F[k-1]) / (F[k] - F[k-1])
			out[i] = quantLerp(u[k-1], u[k], t)
		}
	}
	return nd.FromSlice(out, len(out))
}
