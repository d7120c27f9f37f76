package chunkarray

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Issue 13's shape functions that move, join, split and broadcast: built
// from Index, Transpose, Reshape and Concatenate wherever those give
// Dask's graph (a slice or a concatenation moves blocks, it computes
// nothing), and from one layer of their own where they do not
// (broadcastLayer).

// axisSels returns ndim Sels, All but s on axis ax.
func axisSels(ndim, ax int, s Sel) []Sel {
	sels := make([]Sel, ndim)
	for i := range sels {
		sels[i] = All()
	}
	sels[ax] = s
	return sels
}

// sliceAxis returns a[start:stop] along axis ax (Python's slice rules:
// negative bounds count from the end, out-of-range ones clip).
func (a *Array) sliceAxis(ax, start, stop int) *Array {
	return a.Index(axisSels(a.NDim(), ax, Range(start, stop))...)
}

// operandArray turns a user operand (an *Array, an *nd.Array, or a Go scalar,
// which numpy's asanyarray makes a 0-d array of its default dtype) into
// an Array.
func operandArray(op string, v any) *Array {
	switch x := v.(type) {
	case *Array:
		if x == nil {
			return errorf(op, nil, "nil Array")
		}
		return x
	case *nd.Array:
		if x == nil {
			return errorf(op, nil, "nil nd.Array")
		}
		return FromNDArray(x, "auto")
	}
	s, err := nd.ScalarOf(v)
	if err != nil {
		return errorf(op, nil, "operand of type %T: want *chunkarray.Array, *nd.Array or a Go scalar", v)
	}
	// a constant: named from its value (the same scalar, the same keys)
	// and fused into its consumers as a constant
	return Full([]int{}, v, s.DType(), -1)
}

// MoveAxis moves axes src to positions dst, the others keeping their
// order, as numpy.moveaxis (dask.array.moveaxis).
func (a *Array) MoveAxis(src, dst []int) *Array {
	const name = "moveaxis"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if len(src) != len(dst) {
		return errorf(name, [][]int{a.shape}, "`source` and `destination` arguments must have the same number of elements")
	}
	s, err := nd.NormalizeAxes(name, src, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	d, err := nd.NormalizeAxes(name, dst, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	var order []int
	for i := range a.NDim() {
		if !slices.Contains(s, i) {
			order = append(order, i)
		}
	}
	type pair struct{ d, s int }
	ps := make([]pair, len(s))
	for i := range s {
		ps[i] = pair{d[i], s[i]}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].d < ps[j].d })
	for _, p := range ps {
		order = slices.Insert(order, p.d, p.s)
	}
	return a.Transpose(order...)
}

// SwapAxes interchanges two axes, as numpy.swapaxes.
func (a *Array) SwapAxes(axis1, axis2 int) *Array {
	const name = "swapaxes"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := nd.NormalizeAxes(name, []int{axis1}, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	bx, err := nd.NormalizeAxes(name, []int{axis2}, a.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	order := make([]int, a.NDim())
	for i := range order {
		order[i] = i
	}
	order[ax[0]], order[bx[0]] = order[bx[0]], order[ax[0]]
	return a.Transpose(order...)
}

// RollAxis moves axis to before position start, as numpy.rollaxis
// (start may be a.NDim(): to the end).
func (a *Array) RollAxis(axis, start int) *Array {
	const name = "rollaxis"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	n := a.NDim()
	ax, err := nd.NormalizeAxes(name, []int{axis}, n)
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	if start < -n || start > n {
		return errorf(name, [][]int{a.shape}, "'start' arg requires %d <= start < %d, but %d was passed in", -n, n+1, start)
	}
	if start < 0 {
		start += n
	}
	if ax[0] < start {
		start--
	}
	if ax[0] == start {
		return a
	}
	var order []int
	for i := range n {
		if i != ax[0] {
			order = append(order, i)
		}
	}
	order = slices.Insert(order, start, ax[0])
	return a.Transpose(order...)
}

// Ravel returns the elements in C order as a 1-d array, as numpy.ravel.
func (a *Array) Ravel() *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() == 1 {
		return a
	}
	return a.Reshape(-1)
}

// atLeast gives a at least n axes, numpy's atleast_1d/2d/3d: a 0-d array
// becomes (1,), (1, 1) or (1, 1, 1); a 1-d one (1, k) or (1, k, 1); a 2-d
// one (m, k, 1).
func (a *Array) atLeast(n int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	switch {
	case a.NDim() >= n:
		return a
	case a.NDim() == 0:
		return a.Reshape(ones(n)...)
	case n == 2:
		return a.ExpandDims(0)
	case n == 3 && a.NDim() == 1:
		return a.ExpandDims(0, 2)
	default: // 3 from 2
		return a.ExpandDims(2)
	}
}

// AtLeast1D returns a with at least one axis, as numpy.atleast_1d.
func (a *Array) AtLeast1D() *Array { return a.atLeast(1) }

// AtLeast2D returns a with at least two axes, as numpy.atleast_2d.
func (a *Array) AtLeast2D() *Array { return a.atLeast(2) }

// AtLeast3D returns a with at least three axes, as numpy.atleast_3d.
func (a *Array) AtLeast3D() *Array { return a.atLeast(3) }

func mapArrays(xs []*Array, f func(*Array) *Array) []*Array {
	out := make([]*Array, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// HStack joins arrays horizontally, as numpy.hstack: along axis 0 for
// 1-d arrays, 1 otherwise (0-d ones are made 1-d).
func HStack(arrays []*Array) *Array {
	xs := mapArrays(arrays, (*Array).AtLeast1D)
	if len(xs) > 0 && xs[0].Err() == nil && xs[0].NDim() == 1 {
		return Concatenate(xs, 0)
	}
	return Concatenate(xs, 1)
}

// VStack joins arrays vertically (axis 0) after AtLeast2D, as
// numpy.vstack.
func VStack(arrays []*Array) *Array { return Concatenate(mapArrays(arrays, (*Array).AtLeast2D), 0) }

// DStack joins arrays along the third axis after AtLeast3D, as
// numpy.dstack.
func DStack(arrays []*Array) *Array { return Concatenate(mapArrays(arrays, (*Array).AtLeast3D), 2) }

// Block assembles an array from nested lists of blocks, as numpy.block:
// nested is an *Array or a []any whose elements are nested lists of the
// same depth (every leaf an *Array). The innermost lists are joined along
// the last axis, the next ones along the one before, and so on; every
// leaf first gets leading axes of length 1 up to the result's number of
// axes, the greater of the nesting depth and the leaves' most axes.
func Block(nested any) *Array {
	const name = "block"
	depth, ndim, err := blockDepth(name, nested, nil)
	if err != nil {
		return errArray(err)
	}
	return blockJoin(nested, 0, depth, max(depth, ndim))
}

// blockDepth checks nested and returns its list depth and the most axes
// of its leaves; path locates the current list in errors.
func blockDepth(name string, nested any, path []int) (depth, ndim int, err error) {
	switch x := nested.(type) {
	case *Array:
		if err := x.Err(); err != nil {
			return 0, 0, err
		}
		return 0, x.NDim(), nil
	case []*Array:
		l := make([]any, len(x))
		for i, v := range x {
			l[i] = v
		}
		return blockDepth(name, l, path)
	case []any:
		if len(x) == 0 {
			return 0, 0, &Error{Op: name, Reason: fmt.Sprintf("list at arrays%v cannot be empty", path)}
		}
		first := -1
		for i, v := range x {
			d, n, err := blockDepth(name, v, append(slices.Clone(path), i))
			if err != nil {
				return 0, 0, err
			}
			if first >= 0 && d != first {
				return 0, 0, &Error{Op: name, Reason: fmt.Sprintf("list depths are mismatched: arrays%v has depth %d, arrays%v depth %d", path, first+1, append(slices.Clone(path), i), d+1)}
			}
			first = d
			ndim = max(ndim, n)
		}
		return first + 1, ndim, nil
	}
	return 0, 0, &Error{Op: name, Reason: fmt.Sprintf("element at arrays%v of type %T: want *Array or []any", path, nested)}
}

func blockJoin(nested any, level, depth, ndim int) *Array {
	if x, ok := nested.(*Array); ok {
		if x.NDim() < ndim {
			sh := append(ones(ndim-x.NDim()), x.shape...)
			return x.Reshape(sh...)
		}
		return x
	}
	var l []any
	switch x := nested.(type) {
	case []any:
		l = x
	case []*Array:
		for _, v := range x {
			l = append(l, v)
		}
	}
	parts := make([]*Array, len(l))
	for i, v := range l {
		parts[i] = blockJoin(v, level+1, depth, ndim)
	}
	return Concatenate(parts, -(depth - level))
}

// ArraySplit cuts a into n pieces along axis, as numpy.array_split: the
// first len%n pieces are one longer than the others.
func (a *Array) ArraySplit(n, axis int) ([]*Array, error) {
	const name = "array_split"
	if err := a.Err(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "number sections must be larger than 0."}
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return nil, err
	}
	total := a.shape[ax]
	each, extra := total/n, total%n
	out := make([]*Array, n)
	lo := 0
	for i := range out {
		hi := lo + each
		if i < extra {
			hi++
		}
		out[i] = a.sliceAxis(ax, lo, hi)
		lo = hi
	}
	return out, nil
}

// Split cuts a into n equal pieces along axis, as numpy.split with an
// integer: an error when the axis's length is not a multiple of n.
func (a *Array) Split(n, axis int) ([]*Array, error) {
	const name = "split"
	if err := a.Err(); err != nil {
		return nil, err
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return nil, err
	}
	if n > 0 && a.shape[ax]%n != 0 {
		return nil, &Error{Op: name, Shapes: [][]int{a.shape}, Reason: "array split does not result in an equal division"}
	}
	return a.ArraySplit(n, ax)
}

// SplitAt cuts a before each of the positions indices along axis, as
// numpy.split (and array_split) with a list: the pieces are
// a[:i0], a[i0:i1], …, a[ik:] with Python's slice rules (negative
// positions count from the end; out-of-range or decreasing ones give
// empty pieces).
func (a *Array) SplitAt(indices []int, axis int) ([]*Array, error) {
	const name = "split"
	if err := a.Err(); err != nil {
		return nil, err
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return nil, err
	}
	out := make([]*Array, 0, len(indices)+1)
	lo := 0
	for _, i := range indices {
		out = append(out, a.sliceAxis(ax, lo, i))
		lo = i
	}
	// the last piece runs to the end whatever lo's sign
	out = append(out, a.Index(axisSels(a.NDim(), ax, From(lo, 1))...))
	return out, nil
}

// Append joins values after a along axis, as numpy.append with an axis:
// values must have a's number of axes; the dtypes are promoted.
func (a *Array) Append(values any, axis int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	return Concatenate([]*Array{a, operandArray("append", values)}, axis)
}

// AppendFlat joins the flattened values after the flattened a, as
// numpy.append with axis=None.
func (a *Array) AppendFlat(values any) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	return Concatenate([]*Array{a.Ravel(), operandArray("append", values).Ravel()}, 0)
}

// Insert inserts values before position index (an int) or before each
// of the positions indices (a []int, positions in a) along axis, as
// numpy.insert with an axis. values are cast to a's dtype. With an int,
// values get a.NDim() axes (leading ones of length 1), their first axis
// moved to axis, and fill as many positions as they are long there; with
// a []int, values are broadcast to one position per index, the i-th
// going before indices[i] (equal positions keep their order). numpy's
// slice and boolean indices and axis=None are not supported.
func (a *Array) Insert(index any, values any, axis int) *Array {
	const name = "insert"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	v := operandArray(name, values)
	if err := v.Err(); err != nil {
		return errArray(err)
	}
	v = v.AsType(a.dtype)
	n := a.shape[ax]
	check := func(i int) (int, error) {
		if i < -n || i > n {
			return 0, &IndexError{Op: name, Axis: ax, Index: i, Len: n}
		}
		if i < 0 {
			i += n
		}
		return i, nil
	}
	var idx []int
	switch x := index.(type) {
	case int:
		i, err := check(x)
		if err != nil {
			return errArray(err)
		}
		if v.NDim() < a.NDim() {
			v = v.Reshape(append(ones(a.NDim()-v.NDim()), v.shape...)...)
		}
		v = v.MoveAxis([]int{0}, []int{ax})
		if v.err != nil {
			return v
		}
		want := slices.Clone(a.shape)
		want[ax] = v.shape[ax]
		v = v.BroadcastTo(want, nil)
		return Concatenate([]*Array{a.sliceAxis(ax, 0, i), v, a.sliceAxis(ax, i, n)}, ax)
	case []int:
		idx = x
	default:
		return errorf(name, [][]int{a.shape}, "index of type %T: want int or []int", index)
	}
	want := slices.Clone(a.shape)
	want[ax] = len(idx)
	v = v.BroadcastTo(want, nil)
	if v.err != nil {
		return v
	}
	type ins struct{ pos, i int }
	order := make([]ins, len(idx))
	for k, x := range idx {
		p, err := check(x)
		if err != nil {
			return errArray(err)
		}
		order[k] = ins{p, k}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].pos < order[j].pos })
	parts := make([]*Array, 0, 2*len(order)+1)
	lo := 0
	for _, o := range order {
		parts = append(parts, a.sliceAxis(ax, lo, o.pos), v.sliceAxis(ax, o.i, o.i+1))
		lo = o.pos
	}
	parts = append(parts, a.sliceAxis(ax, lo, n))
	return Concatenate(parts, ax)
}

// Delete removes position index (an int) or positions indices (a []int;
// negative ones count from the end, repeats allowed) along axis, as
// numpy.delete with an axis (a Take of the positions kept). numpy's slice
// and boolean indices and axis=None are not supported.
func (a *Array) Delete(index any, axis int) *Array {
	const name = "delete"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	var idx []int
	switch x := index.(type) {
	case int:
		idx = []int{x}
	case []int:
		idx = x
	default:
		return errorf(name, [][]int{a.shape}, "index of type %T: want int or []int", index)
	}
	n := a.shape[ax]
	drop := make([]bool, n)
	for _, i := range idx {
		if i < -n || i >= n {
			return errArray(&IndexError{Op: name, Axis: ax, Index: i, Len: n})
		}
		if i < 0 {
			i += n
		}
		drop[i] = true
	}
	var keep []int
	for i, d := range drop {
		if !d {
			keep = append(keep, i)
		}
	}
	if len(keep) == n {
		return a
	}
	return a.Take(ax, keep)
}

// Flip reverses the order of the elements along axes (none given: every
// axis), as numpy.flip.
func (a *Array) Flip(axes ...int) *Array {
	const name = "flip"
	if err := a.Err(); err != nil {
		return errArray(err)
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
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
	}
	sels := make([]Sel, a.NDim())
	for i := range sels {
		sels[i] = All()
	}
	for _, x := range norm {
		sels[x] = Step(-1)
	}
	return a.Index(sels...)
}

// FlipLR reverses axis 1, as numpy.fliplr (a needs two axes).
func (a *Array) FlipLR() *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() < 2 {
		return errorf("fliplr", [][]int{a.shape}, "Input must be >= 2-d.")
	}
	return a.Flip(1)
}

// FlipUD reverses axis 0, as numpy.flipud (a needs one axis).
func (a *Array) FlipUD() *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() < 1 {
		return errorf("flipud", [][]int{a.shape}, "Input must be >= 1-d.")
	}
	return a.Flip(0)
}

// Rot90 rotates a by 90 degrees k times in the plane of axes, from the
// first towards the second, as numpy.rot90.
func (a *Array) Rot90(k int, axes [2]int) *Array {
	const name = "rot90"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	n := a.NDim()
	if axes[0] == axes[1] || axes[0]-axes[1] == n || axes[1]-axes[0] == n {
		return errorf(name, [][]int{a.shape}, "Axes must be different.")
	}
	if axes[0] >= n || axes[0] < -n || axes[1] >= n || axes[1] < -n {
		return errorf(name, [][]int{a.shape}, "Axes=%v out of range for array of ndim=%d.", axes, n)
	}
	k = ((k % 4) + 4) % 4
	if k == 0 {
		return a
	}
	if k == 2 {
		return a.Flip(axes[0]).Flip(axes[1])
	}
	ax0, ax1 := (axes[0]+n)%n, (axes[1]+n)%n
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	order[ax0], order[ax1] = order[ax1], order[ax0]
	if k == 1 {
		return a.Flip(ax1).Transpose(order...)
	}
	return a.Transpose(order...).Flip(ax1)
}

// Roll shifts the elements along axes, those pushed beyond the end
// coming back at the start, as numpy.roll. shifts and axes are broadcast
// together (one of them may have one entry); shifts on one axis add up.
// With no axes the flattened array is rolled by the sum of shifts and
// reshaped back.
func (a *Array) Roll(shifts []int, axes ...int) *Array {
	const name = "roll"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if len(axes) == 0 {
		total := 0
		for _, s := range shifts {
			total += s
		}
		return a.Ravel().Roll([]int{total}, 0).Reshape(a.shape...)
	}
	m := max(len(shifts), len(axes))
	if (len(shifts) != m && len(shifts) != 1) || (len(axes) != m && len(axes) != 1) {
		return errorf(name, [][]int{a.shape}, "shifts %v and axes %v could not be broadcast together", shifts, axes)
	}
	per := make([]int, a.NDim())
	for i := range m {
		ax, err := normAxis(name, a, axes[min(i, len(axes)-1)])
		if err != nil {
			return errArray(err)
		}
		per[ax] += shifts[min(i, len(shifts)-1)]
	}
	x := a
	for ax, s := range per {
		n := a.shape[ax]
		if n == 0 {
			continue
		}
		s = ((s % n) + n) % n
		if s == 0 {
			continue
		}
		x = Concatenate([]*Array{x.sliceAxis(ax, n-s, n), x.sliceAxis(ax, 0, n-s)}, ax)
	}
	return x
}

// Tile repeats a reps[i] times along each axis, as numpy.tile: reps
// shorter than a's axes is padded with leading 1s, and a gets leading
// axes of length 1 when reps is longer.
func (a *Array) Tile(reps ...int) *Array {
	const name = "tile"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	blocks := a.NumTasks()
	for _, r := range reps {
		if r < 0 {
			return errorf(name, [][]int{a.shape}, "negative dimensions are not allowed")
		}
		if r > 0 && blocks > MaxBlocks/r {
			return errorf(name, [][]int{a.shape}, "reps %v: more than %d blocks", reps, MaxBlocks)
		}
		blocks *= max(r, 1)
	}
	x := a
	if len(reps) > a.NDim() {
		x = a.Reshape(append(ones(len(reps)-a.NDim()), a.shape...)...)
	}
	if len(reps) < x.NDim() {
		reps = append(ones(x.NDim()-len(reps)), reps...)
	}
	for ax, r := range reps {
		switch r {
		case 1:
		case 0:
			x = x.sliceAxis(ax, 0, 0)
		default:
			parts := make([]*Array, r)
			for i := range parts {
				parts[i] = x
			}
			x = Concatenate(parts, ax)
		}
	}
	return x
}

// BroadcastTo broadcasts a to shape, as numpy.broadcast_to (a view: each
// block is a zero-stride view of one input block). chunks gives the
// chunks of the result (any NormalizeChunks spec); nil keeps a's chunks
// on its axes that are not broadcast and makes the new and broadcast
// axes one chunk, as dask.array.broadcast_to.
func (a *Array) BroadcastTo(shape []int, chunks any) *Array {
	const name = "broadcast_to"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	shape = slices.Clone(shape)
	for _, s := range shape {
		if s < 0 {
			return errorf(name, [][]int{a.shape, shape}, "all elements of broadcast shape must be non-negative")
		}
	}
	lead := len(shape) - a.NDim()
	if lead < 0 {
		return errorf(name, [][]int{a.shape, shape}, "input operand has more dimensions than allowed by the axis remapping")
	}
	for i, s := range a.shape {
		if s != 1 && s != shape[lead+i] {
			return errorf(name, [][]int{a.shape, shape}, "operands could not be broadcast together")
		}
	}
	var out [][]int
	if chunks == nil {
		out = make([][]int, len(shape))
		for i, s := range shape {
			j := i - lead
			if j >= 0 && !(a.shape[j] == 1 && s != 1) {
				out[i] = a.chunks[j]
			} else {
				out[i] = []int{s}
			}
		}
	} else {
		var err error
		if out, err = NormalizeChunks(name, chunks, shape, a.dtype); err != nil {
			return errArray(err)
		}
	}
	return broadcastChunked(a, shape, out)
}

// broadcastChunked broadcasts a to shape chunked as out: a's axes that
// are not broadcast are rechunked to out's chunks, the broadcast ones to
// one chunk.
func broadcastChunked(a *Array, shape []int, out [][]int) *Array {
	const name = "broadcast_to"
	lead := len(shape) - a.NDim()
	want := make([][]int, a.NDim())
	bc := make([]bool, a.NDim())
	for j, s := range a.shape {
		if s == 1 && shape[lead+j] != 1 {
			want[j], bc[j] = []int{1}, true
		} else {
			want[j] = out[lead+j]
		}
	}
	x := a.Rechunk(want)
	if x.err != nil {
		return x
	}
	if slices.Equal(shape, x.shape) {
		return x
	}
	return newArray(name, shape, out, a.dtype, &broadcastLayer{in: x, lead: lead, bc: bc}, x.name, shape, chunksToken(out))
}

// BroadcastArrays broadcasts arrays against each other, as
// numpy.broadcast_arrays; their chunks are unified as an elementwise
// operation's.
func BroadcastArrays(arrays ...*Array) ([]*Array, error) {
	const name = "broadcast_arrays"
	shapes := make([][]int, len(arrays))
	ops := make([]operand, len(arrays))
	for i, x := range arrays {
		if err := x.Err(); err != nil {
			return nil, err
		}
		shapes[i] = x.shape
		ops[i] = operand{arr: x}
	}
	shape, err := nd.BroadcastShapes(name, shapes...)
	if err != nil {
		return nil, &Error{Op: name, Shapes: shapes, Reason: "could not be broadcast"}
	}
	chunks, err := unify(name, shape, ops)
	if err != nil {
		return nil, err
	}
	out := make([]*Array, len(arrays))
	for i, x := range arrays {
		out[i] = broadcastChunked(x, shape, chunks)
		if err := out[i].Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// broadcastLayer: output block idx is a zero-stride view of input block
// idx[lead:], with block 0 on the broadcast axes.
type broadcastLayer struct {
	in   *Array
	lead int
	bc   []bool
}

func (l *broadcastLayer) inputs() []*Array { return []*Array{l.in} }

func (l *broadcastLayer) block(a *Array, idx []int) graph.Node {
	src := slices.Clone(idx[l.lead:])
	for j, b := range l.bc {
		if b {
			src[j] = 0
		}
	}
	return graph.Task(broadcastOp, graph.Ref(l.in.Key(src...)), graph.Lit(a.blockShape(idx)))
}

const opBroadcast = "chunkarray.broadcast_to"

func init() { register[broadcastP](opBroadcast) }

var broadcastOp = newOp(opBroadcast, broadcastP{})

// broadcastP broadcasts a block. Args: the block, the output block shape.
type broadcastP struct{}

func (broadcastP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opBroadcast)
	if err != nil {
		return nil, err
	}
	shape, err := argInts(args, 1, opBroadcast)
	if err != nil {
		return nil, err
	}
	return b.BroadcastTo(shape...)
}
