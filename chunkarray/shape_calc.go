package chunkarray

import (
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// Issue 13's shape functions that compute: differences, padding, the
// triangles and diagonals, products of vectors, and the *_like and grid
// creators. Most are expressions of slices, concatenations and
// elementwise operations (which fuse); repeat, coarsen, diagonal and
// conj have block ops of their own (shape_blockops.go).

// DiffOpts are numpy.diff's prepend= and append=: values (an *Array, an
// *nd.Array or a Go scalar) joined before or after a along the axis
// first; a 0-d one is broadcast to one position.
type DiffOpts struct {
	Prepend, Append any
}

// Diff returns the n-th discrete difference along axis, as numpy.diff
// (dask.array.diff): x[1:] - x[:-1] (not-equal for bools) n times. n == 0
// returns a.
func (a *Array) Diff(n, axis int, opts ...DiffOpts) *Array {
	const name = "diff"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if n < 0 {
		return errorf(name, [][]int{a.shape}, "order must be non-negative but got %d", n)
	}
	if n == 0 {
		return a
	}
	if a.NDim() == 0 {
		return errorf(name, [][]int{a.shape}, "diff requires input that is at least one dimensional")
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	var o DiffOpts
	if len(opts) > 0 {
		o = opts[len(opts)-1]
	}
	parts := []*Array{a}
	edge := func(v any) *Array {
		x := operandArray(name, v)
		if x.err == nil && x.NDim() == 0 {
			sh := slices.Clone(a.shape)
			sh[ax] = 1
			x = x.BroadcastTo(sh, nil)
		}
		return x
	}
	if o.Prepend != nil {
		parts = slices.Insert(parts, 0, edge(o.Prepend))
	}
	if o.Append != nil {
		parts = append(parts, edge(o.Append))
	}
	x := a
	if len(parts) > 1 {
		x = Concatenate(parts, ax)
	}
	for range n {
		if x.err != nil {
			return x
		}
		m := x.shape[ax]
		if m == 0 {
			break // empty stays empty: no need to go on n times
		}
		hi, lo := x.sliceAxis(ax, min(1, m), m), x.sliceAxis(ax, 0, max(m-1, 0))
		if x.dtype == nd.Bool {
			x = NotEqual(hi, lo)
		} else {
			x = Sub(hi, lo)
		}
	}
	return x
}

// Gradient returns the gradient of a along axes (none: every axis), one
// array per axis, as numpy.gradient with edge_order=1: central
// differences (f[i+1] - f[i-1]) / (2h) inside, one-sided ones at the two
// ends. spacing is the sample distance h: none (1), one for every axis,
// or one per axis. Integer arrays are computed in float64; bool arrays
// are an error (numpy's subtract refuses them); every axis needs at
// least two elements. Coordinate arrays as spacing and edge_order=2 are
// not supported. Dask's gradient runs map_overlap; here the three parts
// are slices of a concatenated, block by block.
func (a *Array) Gradient(spacing []float64, axes ...int) ([]*Array, error) {
	const name = "gradient"
	if err := a.Err(); err != nil {
		return nil, err
	}
	ax := axes
	if len(axes) == 0 {
		ax = make([]int, a.NDim())
		for i := range ax {
			ax[i] = i
		}
	}
	norm, err := nd.NormalizeAxes(name, ax, a.NDim())
	if err != nil {
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err}
	}
	h := make([]float64, len(norm))
	switch len(spacing) {
	case 0:
		for i := range h {
			h[i] = 1
		}
	case 1:
		for i := range h {
			h[i] = spacing[0]
		}
	case len(norm):
		copy(h, spacing)
	default:
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "invalid number of arguments"}
	}
	x, otype := a, a.dtype
	switch {
	case a.dtype == nd.Bool:
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "numpy boolean subtract is not supported"}
	case a.dtype.Kind() == 'i' || a.dtype.Kind() == 'u':
		x, otype = a.AsType(nd.Float64), nd.Float64
	}
	out := make([]*Array, len(norm))
	for i, k := range norm {
		n := a.shape[k]
		if n < 2 {
			return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) elements are required."}
		}
		first := Div(Sub(x.sliceAxis(k, 1, 2), x.sliceAxis(k, 0, 1)), h[i])
		mid := Div(Sub(x.sliceAxis(k, 2, n), x.sliceAxis(k, 0, n-2)), 2*h[i])
		last := Div(Sub(x.sliceAxis(k, n-1, n), x.sliceAxis(k, n-2, n-1)), h[i])
		parts := []*Array{first, mid, last}
		if n == 2 {
			parts = []*Array{first, last}
		}
		for j, p := range parts {
			parts[j] = p.AsType(otype)
		}
		out[i] = Concatenate(parts, k)
		if err := out[i].Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Pad modes, numpy.pad's mode=.
const (
	PadConstant  = "constant"
	PadEdge      = "edge"
	PadReflect   = "reflect"
	PadSymmetric = "symmetric"
	PadWrap      = "wrap"
	PadEmpty     = "empty"   // here as PadConstant with 0
	PadMaximum   = "maximum" // the axis's maximum (stat_length=None)
	PadMinimum   = "minimum"
	PadMean      = "mean" // rounded half to even for integer arrays
)

// Pad pads a with widths[i] = {before, after} elements on axis i (one
// pair: the same on every axis), as numpy.pad: mode PadConstant fills
// with value (nil: 0; cast to a's dtype), PadEdge repeats the edge,
// PadReflect mirrors without repeating it, PadSymmetric mirrors
// repeating it, PadWrap continues from the other end; widths beyond the
// axis's length go on as numpy 1.24's do (padSources). Axes are
// padded in order, each using the padding of the ones before (corners).
// PadMaximum, PadMinimum and PadMean fill with that statistic of the
// whole axis (numpy's stat_length=None), PadEmpty with zeros. Only
// PadConstant and PadEmpty extend an empty axis. numpy's median and
// linear_ramp modes, stat_length and per-axis constants are refused.
// dask.array.pad builds the same graph: the pads are blocks of their own
// beside a's.
func (a *Array) Pad(widths [][2]int, mode string, value any) *Array {
	const name = "pad"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	w := widths
	if len(widths) == 1 && a.NDim() != 1 {
		w = make([][2]int, a.NDim())
		for i := range w {
			w[i] = widths[0]
		}
	}
	if len(w) != a.NDim() {
		return errorf(name, [][]int{a.shape}, "pad widths %v for %d axes", widths, a.NDim())
	}
	for _, p := range w {
		if p[0] < 0 || p[1] < 0 {
			return errorf(name, [][]int{a.shape}, "index can't contain negative values")
		}
	}
	switch mode {
	case PadConstant, PadEdge, PadReflect, PadSymmetric, PadWrap, PadMaximum, PadMinimum, PadMean:
	case PadEmpty:
		mode, value = PadConstant, 0
	default:
		return errorf(name, [][]int{a.shape}, "mode %q is not supported", mode)
	}
	if value == nil {
		value = 0
	}
	x := a
	for ax, p := range w {
		if p[0] == 0 && p[1] == 0 {
			continue
		}
		n := x.shape[ax]
		if p[0] > maxPad-n || p[1] > maxPad-n-p[0] {
			return errorf(name, [][]int{a.shape}, "pad widths %v make axis %d longer than %d", p, ax, maxPad)
		}
		if mode != PadConstant && n == 0 {
			return errorf(name, [][]int{a.shape}, "can't extend empty axis %d using modes other than 'constant' or 'empty'", ax)
		}
		var before, after *Array
		if mode == PadConstant {
			piece := func(k int) *Array {
				sh, ch := slices.Clone(x.shape), slices.Clone(x.chunks)
				sh[ax], ch[ax] = k, []int{k}
				return Full(sh, value, x.dtype, ch)
			}
			before, after = piece(p[0]), piece(p[1])
		} else if op, ok := padStats[mode]; ok {
			st := x.Reduce(op, []int{ax}, ReduceOpts{Keepdims: true})
			if op == nd.Mean && (x.dtype.Kind() == 'i' || x.dtype.Kind() == 'u') {
				st = st.roundHalfEven()
			}
			st = st.AsType(x.dtype)
			piece := func(k int) *Array {
				sh, ch := slices.Clone(x.shape), slices.Clone(x.chunks)
				sh[ax], ch[ax] = k, []int{k}
				return st.BroadcastTo(sh, ch)
			}
			before, after = piece(p[0]), piece(p[1])
		} else {
			src := padSources(mode, n, p[0], p[1])
			before, after = x.Take(ax, src[:p[0]]), x.Take(ax, src[p[0]+n:])
		}
		var parts []*Array
		if p[0] > 0 {
			parts = append(parts, before)
		}
		parts = append(parts, x)
		if p[1] > 0 {
			parts = append(parts, after)
		}
		x = Concatenate(parts, ax)
		if x.err != nil {
			return x
		}
	}
	return x
}

// padStats are the reductions of the statistic pad modes.
var padStats = map[string]nd.ReduceOp{PadMaximum: nd.Max, PadMinimum: nd.Min, PadMean: nd.Mean}

// roundHalfEven rounds a float array to integers, halves to even
// (numpy.round), block by block.
func (a *Array) roundHalfEven() *Array {
	return newArray("round", a.shape, a.chunks, a.dtype, &blockMapLayer{in: a, op: roundOp}, a.name)
}

// maxPad bounds a padded axis's length: the modes other than constant
// build an index of the padded positions.
const maxPad = 1 << 32

// padSources returns, for every position of an axis of length n (> 0)
// padded with left and right elements in mode (edge, reflect, symmetric
// or wrap), the position of the axis it copies. Reflect, symmetric and
// wrap follow numpy 1.24's pad, which fills a pad wider than the axis in
// rounds, each copying from what the rounds before filled: for reflect
// and symmetric that is the periodic mirror image, for wrap it is not
// periodic when both sides are padded (np.pad(arange(3), (1, 4), "wrap")
// ends 0, 1, 2, 0, 2: the second round on the right copies from the
// left pad).
func padSources(mode string, n, left, right int) []int {
	L := left + n + right
	p := make([]int, L)
	for i := range p {
		p[i] = min(max(i-left, 0), n-1) // edge; the others overwrite the pads
	}
	if mode == PadEdge || n == 1 {
		return p
	}
	cp := func(dst, src []int) { copy(dst, src) }
	lp, rp := left, right
	for lp > 0 || rp > 0 {
		if mode == PadWrap {
			period := L - rp - lp
			nl, nr := 0, 0
			if lp > 0 {
				m := min(period, lp)
				src := p[L-rp-m : L-rp]
				if lp > period {
					cp(p[lp-period:lp], src)
					nl = lp - period
				} else {
					cp(p[:lp], src)
				}
			}
			if rp > 0 {
				m := min(period, rp)
				src := p[lp : lp+m]
				if rp > period {
					cp(p[L-rp:L-rp+period], src)
					nr = rp - period
				} else {
					cp(p[L-rp:], src)
				}
			}
			lp, rp = nl, nr
			continue
		}
		e := 0 // symmetric repeats the edge, reflect does not
		if mode == PadSymmetric {
			e = 1
		}
		old := L - rp - lp - 1 + e
		if lp > 0 {
			cl := min(old, lp)
			stop := lp - e
			for k := range cl { // p[stop+cl], p[stop+cl-1], …, p[stop+1]
				p[lp-cl+k] = p[stop+cl-k]
			}
			lp -= cl
		}
		if rp > 0 {
			cl := min(old, rp)
			start := L - rp + e - 2
			for k := range cl {
				p[L-rp+k] = p[start-k]
			}
			rp -= cl
		}
	}
	return p
}

// Tri returns an n×m array with ones at and below diagonal k (k > 0
// above the main one) and zeros elsewhere, as numpy.tri and
// dask.array.tri (m < 0: m = n).
func Tri(n, m, k int, dt nd.DType, chunks any) *Array {
	const name = "tri"
	if m < 0 {
		m = n
	}
	if n < 0 {
		return errorf(name, [][]int{{n, m}}, "negative dimensions are not allowed")
	}
	ch, err := NormalizeChunks(name, chunks, []int{n, m}, dt)
	if err != nil {
		return errArray(err)
	}
	return triMask(n, m, k, ch).AsType(dt)
}

// triMask is Tri's boolean mask chunked as ch: (j <= i + k), from two
// aranges broadcast against each other.
func triMask(n, m, k int, ch [][]int) *Array {
	rows := Arange(0, float64(n), 1, nd.Int64, [][]int{ch[0]}).Index(All(), NewAxis())
	cols := Arange(0, float64(m), 1, nd.Int64, [][]int{ch[1]}).Index(NewAxis(), All())
	return GreaterEqual(rows.Add(k), cols)
}

// triangle keeps a's elements where keepLower (at and below diagonal k)
// or its complement, zero elsewhere, over the last two axes.
func (a *Array) triangle(name string, k int, lower bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() == 0 {
		return errorf(name, [][]int{a.shape}, "input must be at least 1-d")
	}
	var n, m int
	var ch [][]int
	if a.NDim() == 1 {
		n, m = a.shape[0], a.shape[0]
		ch = [][]int{a.chunks[0], a.chunks[0]}
	} else {
		d := a.NDim()
		n, m = a.shape[d-2], a.shape[d-1]
		ch = [][]int{a.chunks[d-2], a.chunks[d-1]}
	}
	zero, err := nd.Zeros(a.dtype)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	if lower {
		return Where(triMask(n, m, k, ch), a, zero)
	}
	return Where(triMask(n, m, k-1, ch), zero, a)
}

// Tril returns a with the elements above diagonal k of its last two axes
// set to zero, as numpy.tril (a 1-d a is taken as every row of an n×n
// array).
func (a *Array) Tril(k int) *Array { return a.triangle("tril", k, true) }

// Triu returns a with the elements below diagonal k of its last two axes
// set to zero, as numpy.triu.
func (a *Array) Triu(k int) *Array { return a.triangle("triu", k, false) }

// Diag returns, as numpy.diag, the diagonal k of a 2-d a (Diagonal), or
// for a 1-d a the square array with a on diagonal k and zeros elsewhere.
func (a *Array) Diag(k int) *Array {
	const name = "diag"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	switch a.NDim() {
	case 2:
		return a.Diagonal(k, 0, 1)
	case 1:
	default:
		return errorf(name, [][]int{a.shape}, "Input must be 1- or 2-d.")
	}
	abs := max(k, -k)
	n := a.shape[0] + abs
	v := a.Pad([][2]int{{abs, 0}}, PadConstant, 0)
	if k >= 0 {
		v = v.Index(NewAxis(), All()) // row j holds a[j-k] on the diagonal
	} else {
		v = v.Index(All(), NewAxis()) // row i holds a[i+k]
	}
	zero, err := nd.Zeros(a.dtype)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	c := v.chunks[0]
	if k >= 0 {
		c = v.chunks[1]
	}
	eye := Eye(n, n, k, nd.Bool, [][]int{c, c})
	return Where(eye, v, zero)
}

// Trace sums the diagonal offset of the plane (axis1, axis2), as
// numpy.trace (the sum's dtype rules: integers below int64 sum in int64).
func (a *Array) Trace(offset, axis1, axis2 int) *Array {
	return a.Diagonal(offset, axis1, axis2).Sum(-1)
}

// Outer returns the outer product of the flattened a and b, as
// numpy.outer: out[i, j] = a[i] * b[j].
func Outer(a, b *Array) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	return Mul(a.Ravel().Index(All(), NewAxis()), b.Ravel().Index(NewAxis(), All()))
}

// Inner returns the inner product over the last axes, as numpy.inner
// (a product when either is 0-d).
func Inner(a, b *Array) *Array {
	const name = "inner"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() == 0 || b.NDim() == 0 {
		return Mul(a, b)
	}
	if a.shape[a.NDim()-1] != b.shape[b.NDim()-1] {
		return errorf(name, [][]int{a.shape, b.shape}, "shapes not aligned: the last dimensions differ")
	}
	return Tensordot(a, b, []int{a.NDim() - 1}, []int{b.NDim() - 1})
}

// Vdot returns the dot product of the flattened a and b, a conjugated
// first, as numpy.vdot: a 0-d array.
func Vdot(a, b *Array) *Array {
	const name = "vdot"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	if a.Size() != b.Size() {
		return errorf(name, [][]int{a.shape, b.shape}, "vectors have different lengths")
	}
	return Dot(a.Ravel().conjugate(), b.Ravel())
}

// Kron returns the Kronecker product, as numpy.kron: the blocks
// a[i, j, …] * b, over max(a.NDim(), b.NDim()) axes (the shorter shape
// padded with leading 1s).
func Kron(a, b *Array) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() < b.NDim() {
		a = a.Reshape(append(ones(b.NDim()-a.NDim()), a.shape...)...)
	}
	if a.NDim() == 0 || b.NDim() == 0 {
		return Mul(a, b)
	}
	n := max(a.NDim(), b.NDim())
	as, bs := a.shape, b.shape
	if b.NDim() < n {
		b = b.Reshape(append(ones(n-b.NDim()), b.shape...)...)
		bs = b.shape
	}
	var ea, eb []int
	for i := range n {
		ea = append(ea, 2*i+1)
		eb = append(eb, 2*i)
	}
	r := Mul(a.ExpandDims(ea...), b.ExpandDims(eb...))
	out := make([]int, n)
	for i := range out {
		out[i] = as[i] * bs[i]
	}
	return r.Reshape(out...)
}

// likeDType is dt, or a's dtype when dt is nd.Invalid.
func likeDType(a *Array, dt nd.DType) nd.DType {
	if dt == nd.Invalid {
		return a.dtype
	}
	return dt
}

// ZerosLike returns zeros of a's shape and chunks, as
// numpy.zeros_like; dt nd.Invalid keeps a's dtype.
func ZerosLike(a *Array, dt nd.DType) *Array { return FullLike(a, 0, dt) }

// OnesLike returns ones of a's shape and chunks, as numpy.ones_like.
func OnesLike(a *Array, dt nd.DType) *Array { return FullLike(a, 1, dt) }

// EmptyLike returns an array of a's shape and chunks, as
// numpy.empty_like; its elements are zero here (numpy's are whatever the
// memory held).
func EmptyLike(a *Array, dt nd.DType) *Array { return FullLike(a, 0, dt) }

// FullLike returns an array of a's shape and chunks filled with v (cast
// to the dtype), as numpy.full_like.
func FullLike(a *Array, v any, dt nd.DType) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	return Full(a.shape, v, likeDType(a, dt), a.chunks)
}

// Indices returns the grid of indices of an array of shape dims, as
// numpy.indices: shape (len(dims), dims...), out[i] holding each
// element's index along axis i. chunks applies to dims; the first axis
// has one chunk per grid.
func Indices(dims []int, dt nd.DType, chunks any) *Array {
	const name = "indices"
	ch, err := NormalizeChunks(name, chunks, dims, dt)
	if err != nil {
		return errArray(err)
	}
	if len(dims) == 0 {
		return Zeros([]int{0}, dt, -1)
	}
	grids := make([]*Array, len(dims))
	for i, d := range dims {
		sh := ones(len(dims))
		sh[i] = d
		r := Arange(0, float64(d), 1, dt, [][]int{ch[i]}).Reshape(sh...)
		grids[i] = broadcastChunked(r, dims, ch)
	}
	return Stack(grids, 0)
}

// Meshgrid returns coordinate arrays from coordinate vectors (each
// flattened), as numpy.meshgrid (copy=True, sparse=False): with indexing
// "ij" out[i] has shape (n0, n1, …) and varies along axis i; with "xy"
// (numpy's default) the first two axes are swapped. Each axis keeps the
// chunks of its vector.
func Meshgrid(indexing string, xs ...*Array) ([]*Array, error) {
	const name = "meshgrid"
	if indexing != "xy" && indexing != "ij" {
		return nil, &Error{Op: name, Reason: "Valid values for `indexing` are 'xy' and 'ij'."}
	}
	flat := make([]*Array, len(xs))
	for i, x := range xs {
		if err := x.Err(); err != nil {
			return nil, err
		}
		flat[i] = x.Ravel()
	}
	pos := make([]int, len(xs)) // the output axis of each vector
	for i := range pos {
		pos[i] = i
	}
	if indexing == "xy" && len(xs) > 1 {
		pos[0], pos[1] = 1, 0
	}
	shape := make([]int, len(xs))
	chunks := make([][]int, len(xs))
	for i, x := range flat {
		shape[pos[i]], chunks[pos[i]] = x.shape[0], x.chunks[0]
	}
	out := make([]*Array, len(xs))
	for i, x := range flat {
		sh := ones(len(xs))
		sh[pos[i]] = x.shape[0]
		out[i] = broadcastChunked(x.Reshape(sh...), shape, chunks)
		if err := out[i].Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Coarsen reduces a over non-overlapping windows, factors[axis] elements
// long on each axis given (others 1), with op, as dask.array.coarsen: the
// result's axis is a's divided by the factor, each element op over its
// window (numpy's dtype rules for op: a sum of int8 is int64). With
// trimExcess the elements beyond the last whole window are dropped;
// without, a length that is not a multiple of its factor is an error.
// Chunks are first rounded to multiples of the factors (as Dask's
// aligned_coarsen_chunks), then each block is reduced on its own.
func (a *Array) Coarsen(op nd.ReduceOp, factors map[int]int, trimExcess bool) *Array {
	const name = "coarsen"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	f := ones(a.NDim())
	seen := make([]bool, a.NDim())
	for ax, k := range factors {
		x, err := normAxis(name, a, ax)
		if err != nil {
			return errArray(err)
		}
		if k <= 0 {
			return errorf(name, [][]int{a.shape}, "factor %d on axis %d: want a positive factor", k, ax)
		}
		if seen[x] {
			return errorf(name, [][]int{a.shape}, "axis %d is given twice", x)
		}
		f[x], seen[x] = k, true
	}
	x := a
	sels := make([]Sel, a.NDim())
	trim := false
	for i, s := range a.shape {
		sels[i] = All()
		if s%f[i] != 0 {
			if !trimExcess {
				return errorf(name, [][]int{a.shape}, "coarsening factors %v do not align with array shape %v", f, a.shape)
			}
			sels[i], trim = Range(0, s-s%f[i]), true
		}
	}
	if trim {
		x = x.Index(sels...)
	}
	want := make([][]int, x.NDim())
	out := make([][]int, x.NDim())
	for i, c := range x.chunks {
		want[i] = contractChunks(c, f[i])
		out[i] = make([]int, len(want[i]))
		for j, v := range want[i] {
			out[i][j] = v / f[i]
		}
	}
	x = x.Rechunk(want)
	if x.err != nil {
		return x
	}
	shape := make([]int, x.NDim())
	for i, s := range x.shape {
		shape[i] = s / f[i]
	}
	d := nd.ReduceResultType(op, x.dtype)
	p := coarsenP{Op: op, Factors: f}
	return newArray(name, shape, out, d, &blockMapLayer{in: x, op: newOp(opCoarsen, p)}, x.name, int(op), f)
}

// Repeat repeats each element repeats times along axis, as numpy.repeat
// with a scalar count (dask.array.repeat): each block is repeated on its
// own.
func (a *Array) Repeat(repeats, axis int) *Array {
	const name = "repeat"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	if repeats < 0 {
		return errorf(name, [][]int{a.shape}, "negative dimensions are not allowed")
	}
	if repeats == 1 {
		return a
	}
	if repeats > 0 && a.shape[ax] > 0 && (a.shape[ax] > math.MaxInt/repeats || a.Size()/a.shape[ax] > math.MaxInt/a.dtype.Size()/(a.shape[ax]*repeats)) {
		return errorf(name, [][]int{a.shape}, "%d repeats: the array's size in bytes overflows int", repeats)
	}
	shape, chunks := slices.Clone(a.shape), slices.Clone(a.chunks)
	shape[ax] *= repeats
	chunks[ax] = make([]int, len(a.chunks[ax]))
	for i, c := range a.chunks[ax] {
		chunks[ax][i] = c * repeats
	}
	p := repeatP{Axis: ax, N: repeats}
	return newArray(name, shape, chunks, a.dtype, &blockMapLayer{in: a, op: newOp(opRepeat, p)}, a.name, ax, repeats)
}

// RepeatFlat repeats each element of the flattened a, as numpy.repeat
// with axis=None.
func (a *Array) RepeatFlat(repeats int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	return a.Ravel().Repeat(repeats, 0)
}

// conjugate returns the complex conjugate (a itself for other dtypes), as
// numpy.conj (unexported: the ufunc set has its own).
func (a *Array) conjugate() *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.dtype != nd.Complex64 && a.dtype != nd.Complex128 {
		return a
	}
	return newArray("conj", a.shape, a.chunks, a.dtype, &blockMapLayer{in: a, op: conjOp}, a.name)
}

// Diagonal returns the diagonal offset of the plane (axis1, axis2), as
// numpy.diagonal: those axes are removed and the diagonal becomes the
// last axis. Each output block is the part of the diagonal that crosses
// one input block.
func (a *Array) Diagonal(offset, axis1, axis2 int) *Array {
	const name = "diagonal"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() < 2 {
		return errorf(name, [][]int{a.shape}, "diag requires an array of at least two dimensions")
	}
	ax, err := nd.NormalizeAxes(name, []int{axis1, axis2}, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("axis1 and axis2 cannot be the same or are out of bounds: %v", err), Err: err})
	}
	a1, a2 := ax[0], ax[1]
	n1, n2 := a.shape[a1], a.shape[a2]
	i0, j0 := max(0, -offset), max(0, offset)
	length := max(0, min(n1-i0, n2-j0))
	pieces := diagPieces(a.chunks[a1], a.chunks[a2], i0, j0, length)
	var shape []int
	var chunks [][]int
	for i := range a.NDim() {
		if i != a1 && i != a2 {
			shape = append(shape, a.shape[i])
			chunks = append(chunks, a.chunks[i])
		}
	}
	dc := make([]int, len(pieces))
	for i, p := range pieces {
		dc[i] = p.n
	}
	shape = append(shape, length)
	chunks = append(chunks, dc)
	l := &diagonalLayer{in: a, a1: a1, a2: a2, pieces: pieces, op: newOp(opDiagonal, diagonalP{Axis1: a1, Axis2: a2})}
	return newArray(name, shape, chunks, a.dtype, l, a.name, offset, a1, a2)
}

// diagPiece is the part of a diagonal inside one block: the block along
// each of the two axes, the offsets of its first element in it, its
// length.
type diagPiece struct{ b1, b2, lo1, lo2, n int }

// diagPieces cuts the diagonal starting at (i0, j0), length long, where
// it crosses a chunk boundary of either axis.
func diagPieces(c1, c2 []int, i0, j0, length int) []diagPiece {
	if length == 0 {
		return []diagPiece{{}}
	}
	var out []diagPiece
	t := 0
	for t < length {
		b1, lo1 := locate(c1, i0+t)
		b2, lo2 := locate(c2, j0+t)
		n := min(c1[b1]-lo1, c2[b2]-lo2, length-t)
		out = append(out, diagPiece{b1, b2, lo1, lo2, n})
		t += n
	}
	return out
}
