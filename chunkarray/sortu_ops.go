package chunkarray

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The block ops of sorting, counting and unknown chunk sizes: one
// registered op, chunkarray.sortu, whose Kind picks what a task does, and
// one layer, sortuLayer, whose tasks read the blocks its args function
// names.

const opSortu = "chunkarray.sortu"

func init() { register[sortuP](opSortu) }

// kinds of sortu tasks
const (
	kShapeOf     = iota // block -> its shape ([]int)
	kFlatNZ             // 1-d block, [start] -> int64 positions of its nonzero elements
	kUnravel            // 1-d int64 block -> (k, len(Shape)) coordinates
	kMaskSel            // block, bool block of its shape -> 1-d selection
	kSort               // block -> sorted along Axis (Arg: argsort)
	kUniqueChunk        // 1-d block, [start] -> []any{values, counts, positions}
	kUniqueAgg          // list of partials -> []any{values, counts, positions} (merged)
	kPick               // []any -> its element Part (counts and positions int64)
	kInverse            // 1-d block, unique values -> int64 positions in them
	kBincount           // 1-d int block[, weights block] -> counts
	kSumPad             // list of 1-d counts -> their sum, padded to at least N
	kHist               // list of D 1-d blocks[, weights] -> flat counts of the D-d grid
	kDensity            // counts -> counts / bin volume / total
	kDigitize           // block, bins -> int64 bin indices
	kSearch             // block, list of the sorted array's blocks -> int64 positions
	kIsIn               // block, list of the test blocks -> bool
	kMinMax             // block -> float64 [min, max, count] (NaN min for a NaN)
	kRange              // list of kMinMax partials -> the equal bins' edges (histogram without a range)
)

// sortuP is a sortu task's parameters; each kind reads the fields it
// needs.
type sortuP struct {
	Kind  int      `json:"kind"`
	Axis  int      `json:"axis,omitempty"`
	Arg   bool     `json:"arg,omitempty"`   // argsort; digitize right; searchsorted right; isin invert; unique positions
	Part  int      `json:"part,omitempty"`  // kPick
	N     int      `json:"n,omitempty"`     // kSumPad minimum length
	Shape []int    `json:"shape,omitempty"` // kUnravel's array shape
	D     nd.DType `json:"dtype,omitempty"` // the result's, or the common dtype compared in
	// Histograms: per dimension, the bin count, and either the range
	// (Uniform) or the explicit edges, as float64 bits (JSON has no NaN
	// or infinity).
	Bins    []int      `json:"bins,omitempty"`
	Uniform bool       `json:"uniform,omitempty"`
	F32     bool       `json:"f32,omitempty"`
	Edges   [][]uint64 `json:"edges,omitempty"`
	Weights bool       `json:"weights,omitempty"`
	DD      bool       `json:"dd,omitempty"` // histogramdd's rules (searchsorted bins, float64 result)
	// Auto: a range was found in the data; the edges of every dimension
	// are the task's last arguments (kRange blocks, or literal edges for
	// the dimensions that had theirs), not Edges.
	Auto bool `json:"auto,omitempty"`
}

func (p sortuP) Label() string {
	return [...]string{"chunk-shape", "flatnonzero", "unravel-index", "getitem-mask", "sort", "unique-chunk",
		"unique-agg", "getitem", "unique-inverse", "bincount", "bincount-sum", "histogram", "histogram-density",
		"digitize", "searchsorted", "isin", "histogram-minmax", "histogram-range"}[p.Kind]
}

// sortuLayer's block idx runs op on the arguments args(a, idx) gives.
type sortuLayer struct {
	ins  []*Array
	op   *op[sortuP]
	args func(a *Array, idx []int) []graph.Arg
}

func (l *sortuLayer) inputs() []*Array { return l.ins }

func (l *sortuLayer) block(a *Array, idx []int) graph.Node {
	return graph.Task(l.op, l.args(a, idx)...)
}

// allBlocks is a list argument of every block of x, in C order.
func allBlocks(x *Array) graph.Arg {
	refs := make([]graph.Arg, 0, x.NumTasks())
	forBlocks(x.NumBlocks(), func(idx []int) { refs = append(refs, graph.Ref(x.Key(idx...))) })
	return graph.List(refs...)
}

// sameBlock is an args function reading block idx of each input, then
// the literals lits.
func sameBlock(ins []*Array, lits ...any) func(*Array, []int) []graph.Arg {
	return func(_ *Array, idx []int) []graph.Arg {
		out := make([]graph.Arg, 0, len(ins)+len(lits))
		for _, in := range ins {
			out = append(out, graph.Ref(in.Key(idx...)))
		}
		for _, l := range lits {
			out = append(out, graph.Lit(l))
		}
		return out
	}
}

func (p sortuP) run(_ context.Context, args []any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: no arguments", opSortu)
	}
	switch p.Kind {
	case kShapeOf:
		b, err := argArray(args[0], opSortu)
		if err != nil {
			return nil, err
		}
		return slices.Clone(b.Shape()), nil
	case kUniqueAgg, kSumPad:
		list, ok := args[0].([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("%s: argument is %T", opSortu, args[0])
		}
		if p.Kind == kUniqueAgg {
			return p.uniqueAgg(list)
		}
		return p.sumPad(list)
	case kPick:
		t, ok := args[0].([]any)
		if !ok || p.Part < 0 || p.Part >= len(t) {
			return nil, fmt.Errorf("%s: pick %d of %T", opSortu, p.Part, args[0])
		}
		return argArray(t[p.Part], opSortu)
	case kHist:
		return p.hist(args)
	case kRange:
		list, ok := args[0].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: argument is %T", opSortu, args[0])
		}
		return p.autoRange(list)
	}
	b, err := argArray(args[0], opSortu)
	if err != nil {
		return nil, err
	}
	switch p.Kind {
	case kFlatNZ:
		return p.flatNonzero(b, args)
	case kUnravel:
		return p.unravel(b)
	case kMaskSel:
		return p.maskSel(b, args)
	case kSort:
		return p.sort(b)
	case kUniqueChunk:
		return p.uniqueChunk(b, args)
	case kInverse, kDigitize:
		return p.search(b, args[1:], p.Kind == kDigitize)
	case kSearch:
		list, ok := args[1].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: argument is %T", opSortu, args[1])
		}
		return p.search(b, list, false)
	case kBincount:
		return p.bincount(b, args)
	case kDensity:
		return p.density(b, args)
	case kMinMax:
		return minMax(b)
	case kIsIn:
		list, ok := args[1].([]any)
		if !ok {
			return nil, fmt.Errorf("%s: argument is %T", opSortu, args[1])
		}
		return p.isIn(b, list)
	}
	return nil, fmt.Errorf("%s: bad kind %d", opSortu, p.Kind)
}

// fromSliceShaped is nd.FromSlice with the given shape, 0-d included
// (FromSlice with no shape makes a 1-d array).
func fromSliceShaped[T nd.Elem](data []T, shape []int) (*nd.Array, error) {
	if len(shape) == 0 {
		a, err := nd.FromSlice(data, len(data))
		if err != nil {
			return nil, err
		}
		return a.Reshape()
	}
	return nd.FromSlice(data, shape...)
}

// truthy returns b != 0 as bools in C order.
func truthy(b *nd.Array) ([]bool, error) {
	t, err := b.AsType(nd.Bool)
	if err != nil {
		return nil, err
	}
	return vals[bool](t)
}

func (p sortuP) flatNonzero(b *nd.Array, args []any) (any, error) {
	st, err := argInts(args, 1, opSortu)
	if err != nil || len(st) != 1 {
		return nil, fmt.Errorf("%s: flatnonzero: bad start %v", opSortu, args[1:])
	}
	m, err := truthy(b)
	if err != nil {
		return nil, err
	}
	out := []int64{}
	for i, t := range m {
		if t {
			out = append(out, int64(st[0]+i))
		}
	}
	return nd.FromSlice(out, len(out))
}

func (p sortuP) unravel(b *nd.Array) (any, error) {
	v, err := vals[int64](b)
	if err != nil {
		return nil, err
	}
	n := len(p.Shape)
	out := make([]int64, len(v)*n)
	for i, f := range v {
		for ax := n - 1; ax >= 0; ax-- {
			out[i*n+ax] = f % int64(p.Shape[ax])
			f /= int64(p.Shape[ax])
		}
	}
	return nd.FromSlice(out, len(v), n)
}

// maskSel selects b's elements where the mask block args[1] is true:
// numpy's b[m] for a mask of b's leading axes.
func (p sortuP) maskSel(b *nd.Array, args []any) (any, error) {
	mb, err := argArray(args[1], opSortu)
	if err != nil {
		return nil, err
	}
	m, err := vals[bool](mb)
	if err != nil {
		return nil, err
	}
	k := mb.NDim()
	if k > b.NDim() || !slices.Equal(b.Shape()[:k], mb.Shape()) {
		return nil, fmt.Errorf("%s: mask block of shape %v for a block of shape %v", opSortu, mb.Shape(), b.Shape())
	}
	rest := b.Shape()[k:]
	lead := mb.Size()
	flat, err := b.Contiguous().Reshape(append([]int{lead}, rest...)...)
	if err != nil {
		return nil, err
	}
	return takeAxis(flat, 0, maskIndices(m))
}

// sort sorts (argsorts) b along p.Axis, stably.
func (p sortuP) sort(b *nd.Array) (any, error) {
	n := b.NDim()
	perm := make([]int, 0, n)
	for ax := range n {
		if ax != p.Axis {
			perm = append(perm, ax)
		}
	}
	perm = append(perm, p.Axis)
	t, err := b.Transpose(perm...)
	if err != nil {
		return nil, err
	}
	cd := canonDType(b.DType())
	v, err := canonValues(t, cd)
	if err != nil {
		return nil, err
	}
	lane := b.Shape()[p.Axis]
	var idx []int64
	if p.Arg {
		idx = make([]int64, t.Size())
	}
	switch x := v.(type) {
	case []int64:
		sortLanes(x, lane, ordI64, idx)
	case []uint64:
		sortLanes(x, lane, ordU64, idx)
	case []float64:
		sortLanes(x, lane, ordF64, idx)
	case []complex128:
		sortLanes(x, lane, ordC, idx)
	}
	var out *nd.Array
	if p.Arg {
		out, err = nd.FromSlice(idx, t.Shape()...)
	} else {
		out, err = fromCanon(v, b.DType(), t.Shape()...)
	}
	if err != nil {
		return nil, err
	}
	inv := make([]int, n)
	for i, ax := range perm {
		inv[ax] = i
	}
	if out, err = out.Transpose(inv...); err != nil {
		return nil, err
	}
	return out.Contiguous(), nil
}

// uniqueChunk is the chunk stage of Unique: the block's unique values,
// their counts and first positions (the block starts at args[1][0]).
func (p sortuP) uniqueChunk(b *nd.Array, args []any) (any, error) {
	st, err := argInts(args, 1, opSortu)
	if err != nil || len(st) != 1 {
		return nil, fmt.Errorf("%s: unique: bad start %v", opSortu, args[1:])
	}
	v, err := canonValues(b, canonDType(b.DType()))
	if err != nil {
		return nil, err
	}
	n := b.Size()
	if !p.Arg {
		// No positions asked for (Unique without Index): sort the values
		// and count the runs.
		var uv any
		var uc []int64
		switch x := v.(type) {
		case []int64:
			uv, uc = uniqueRuns(x, ordI64)
		case []uint64:
			uv, uc = uniqueRuns(x, ordU64)
		case []float64:
			uv, uc = uniqueRuns(x, ordF64)
		case []complex128:
			uv, uc = uniqueRuns(x, ordC)
		}
		return partial(uv, uc, make([]int64, len(uc)), b.DType())
	}
	cnt, pos := make([]int64, n), make([]int64, n)
	for i := range cnt {
		cnt[i], pos[i] = 1, int64(st[0]+i)
	}
	return uniqueParts(v, cnt, pos, b.DType())
}

// uniqueParts groups canonical values v with counts and positions and
// returns the partial []any{values (dtype d), counts, positions}.
func uniqueParts(v any, cnt, pos []int64, d nd.DType) (any, error) {
	var uv any
	var uc, up []int64
	switch x := v.(type) {
	case []int64:
		uv, uc, up = uniqueOf(x, cnt, pos, ordI64)
	case []uint64:
		uv, uc, up = uniqueOf(x, cnt, pos, ordU64)
	case []float64:
		uv, uc, up = uniqueOf(x, cnt, pos, ordF64)
	case []complex128:
		uv, uc, up = uniqueOf(x, cnt, pos, ordC)
	}
	return partial(uv, uc, up, d)
}

// partial is the unique partial []any{values (dtype d), counts,
// positions} of canonical values uv.
func partial(uv any, uc, up []int64, d nd.DType) (any, error) {
	k := len(uc)
	vals, err := fromCanon(emptyIfNil(uv), d, k)
	if err != nil {
		return nil, err
	}
	ca, err := nd.FromSlice(append([]int64{}, uc...), k)
	if err != nil {
		return nil, err
	}
	pa, err := nd.FromSlice(append([]int64{}, up...), k)
	if err != nil {
		return nil, err
	}
	return []any{vals, ca, pa}, nil
}

// emptyIfNil makes a nil canonical slice an empty one of its type.
func emptyIfNil(v any) any {
	switch x := v.(type) {
	case []int64:
		if x == nil {
			return []int64{}
		}
	case []uint64:
		if x == nil {
			return []uint64{}
		}
	case []float64:
		if x == nil {
			return []float64{}
		}
	case []complex128:
		if x == nil {
			return []complex128{}
		}
	}
	return v
}

// uniqueAgg merges unique partials.
func (p sortuP) uniqueAgg(list []any) (any, error) {
	var vs, cs, ps []*nd.Array
	for _, x := range list {
		t, ok := x.([]any)
		if !ok || len(t) != 3 {
			return nil, fmt.Errorf("%s: unique partial is %T", opSortu, x)
		}
		for i, dst := range []*[]*nd.Array{&vs, &cs, &ps} {
			a, err := argArray(t[i], opSortu)
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, a)
		}
	}
	v, err := concat1(vs, p.D)
	if err != nil {
		return nil, err
	}
	c, err := concat1(cs, nd.Int64)
	if err != nil {
		return nil, err
	}
	q, err := concat1(ps, nd.Int64)
	if err != nil {
		return nil, err
	}
	cv, err := canonValues(v, canonDType(p.D))
	if err != nil {
		return nil, err
	}
	cc, _ := vals[int64](c)
	cq, _ := vals[int64](q)
	return uniqueParts(cv, slices.Clone(cc), slices.Clone(cq), p.D)
}

// concat1 joins 1-d arrays of dtype d.
func concat1(as []*nd.Array, d nd.DType) (*nd.Array, error) {
	n := 0
	for _, a := range as {
		n += a.Size()
	}
	out, err := nd.Zeros(d, n)
	if err != nil {
		return nil, err
	}
	s := 0
	for _, a := range as {
		if a.Size() == 0 {
			continue
		}
		if a.DType() != d {
			if a, err = a.AsType(d); err != nil {
				return nil, err
			}
		}
		r, err := a.Reshape(a.Size())
		if err != nil {
			return nil, err
		}
		if err := copyRegion(out, []nd.Slice1{{Start: s, Stop: s + a.Size(), Step: 1}}, r); err != nil {
			return nil, err
		}
		s += a.Size()
	}
	return out, nil
}

// joinCanon joins the 1-d blocks (values of tasks) into one array a,
// cast to p.D, and returns it with its values and b's in the canonical
// comparison form of p.D (canonValues).
func (p sortuP) joinCanon(b *nd.Array, blocks []any) (a *nd.Array, av, bv any, err error) {
	as := make([]*nd.Array, len(blocks))
	for i, s := range blocks {
		if as[i], err = argArray(s, opSortu); err != nil {
			return nil, nil, nil, err
		}
	}
	if a, err = concat1(as, p.D); err != nil {
		return nil, nil, nil, err
	}
	cd := canonDType(p.D)
	if av, err = canonValues(a, cd); err != nil {
		return nil, nil, nil, err
	}
	x, err := b.AsType(p.D)
	if err != nil {
		return nil, nil, nil, err
	}
	if bv, err = canonValues(x, cd); err != nil {
		return nil, nil, nil, err
	}
	return a, av, bv, nil
}

// search places b's values in the sorted blocks sorted (joined), compared
// in dtype p.D: searchsorted (side right when p.Arg), or, for digitize,
// numpy.digitize's bin index against increasing or decreasing bins.
// kInverse is searchsorted left, a value found exactly.
func (p sortuP) search(b *nd.Array, sorted []any, digitize bool) (any, error) {
	a, av, xv, err := p.joinCanon(b, sorted)
	if err != nil {
		return nil, err
	}
	right := p.Arg
	out := make([]int64, b.Size())
	if digitize {
		// numpy.digitize: increasing bins are searched with side right
		// (left when right=True); decreasing ones reversed, and the
		// position counted from the end.
		dec := isDecreasing(av)
		if dec {
			av = reversed(av)
		}
		search(av, xv, !right, out)
		if dec {
			n := int64(a.Size())
			for i := range out {
				out[i] = n - out[i]
			}
		}
	} else {
		search(av, xv, right, out)
	}
	if p.Kind == kInverse && len(out) > 0 && a.Size() > 0 {
		// NaN: the last unique value (numpy's collapsed NaN).
		for i := range out {
			out[i] = min(out[i], int64(a.Size()-1))
		}
	}
	return fromSliceShaped(out, b.Shape())
}

// search dispatches searchSorted on canonical values.
func search(a, v any, right bool, out []int64) {
	switch x := a.(type) {
	case []int64:
		searchSorted(x, v.([]int64), right, ordI64, out)
	case []uint64:
		searchSorted(x, v.([]uint64), right, ordU64, out)
	case []float64:
		searchSorted(x, v.([]float64), right, ordF64, out)
	case []complex128:
		searchSorted(x, v.([]complex128), right, ordC, out)
	}
}

// isDecreasing reports whether canonical bins decrease (numpy.digitize's
// test: the last below the first).
func isDecreasing(a any) bool {
	switch x := a.(type) {
	case []int64:
		return len(x) > 1 && x[len(x)-1] < x[0]
	case []uint64:
		return len(x) > 1 && x[len(x)-1] < x[0]
	case []float64:
		return len(x) > 1 && x[len(x)-1] < x[0]
	}
	return false
}

func reversed(a any) any {
	switch x := a.(type) {
	case []int64:
		slices.Reverse(x)
	case []uint64:
		slices.Reverse(x)
	case []float64:
		slices.Reverse(x)
	case []complex128:
		slices.Reverse(x)
	}
	return a
}

// bincount counts the values of the int block b (weighted by the block
// args[1] when p.Weights).
func (p sortuP) bincount(b *nd.Array, args []any) (any, error) {
	x, err := b.AsType(nd.Int64)
	if err != nil {
		return nil, err
	}
	v, err := vals[int64](x)
	if err != nil {
		return nil, err
	}
	n := int64(0)
	for _, k := range v {
		if k < 0 {
			return nil, &Error{Op: "bincount", Reason: fmt.Sprintf("'list' argument must have no negative elements (found %d)", k)}
		}
		n = max(n, k+1)
	}
	if !p.Weights {
		out := make([]int64, n)
		for _, k := range v {
			out[k]++
		}
		return nd.FromSlice(out, int(n))
	}
	wb, err := argArray(args[1], opSortu)
	if err != nil {
		return nil, err
	}
	wf, err := wb.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	w, err := vals[float64](wf)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i, k := range v {
		out[k] += w[i]
	}
	return nd.FromSlice(out, int(n))
}

// sumPad adds 1-d counts of different lengths, the result at least p.N
// long.
func (p sortuP) sumPad(list []any) (any, error) {
	n := p.N
	as := make([]*nd.Array, len(list))
	for i, x := range list {
		var err error
		if as[i], err = argArray(x, opSortu); err != nil {
			return nil, err
		}
		n = max(n, as[i].Size())
	}
	acc, err := nd.Zeros(p.D, n)
	if err != nil {
		return nil, err
	}
	for _, a := range as {
		if a.Size() == 0 {
			continue
		}
		pad, err := nd.Zeros(p.D, n)
		if err != nil {
			return nil, err
		}
		if err := copyRegion(pad, []nd.Slice1{{Start: 0, Stop: a.Size(), Step: 1}}, a); err != nil {
			return nil, err
		}
		if acc, err = nd.Binary(nd.Add, acc, pad); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// hist counts the points of the D blocks in args[0] (a list; with
// p.Weights, the weights block is args[1]) into the grid of p's bins, in
// C order of the bin indices: int64 counts, float64 with weights (the
// weights' dtype is restored by the caller).
func (p sortuP) hist(args []any) (any, error) {
	list, ok := args[0].([]any)
	if !ok || len(list) != len(p.Bins) {
		return nil, fmt.Errorf("%s: histogram: argument is %T", opSortu, args[0])
	}
	cols := make([][]float64, len(list))
	for i, x := range list {
		b, err := argArray(x, opSortu)
		if err != nil {
			return nil, err
		}
		f, err := b.AsType(nd.Float64)
		if err != nil {
			return nil, err
		}
		if cols[i], err = vals[float64](f); err != nil {
			return nil, err
		}
	}
	var w []float64
	if p.Weights {
		wb, err := argArray(args[1], opSortu)
		if err != nil {
			return nil, err
		}
		wf, err := wb.AsType(nd.Float64)
		if err != nil {
			return nil, err
		}
		if w, err = vals[float64](wf); err != nil {
			return nil, err
		}
	}
	total := 1
	for _, n := range p.Bins {
		total *= n
	}
	edges, err := p.edgesOf(args)
	if err != nil {
		return nil, err
	}
	unis := make([]binsUniform, len(p.Bins))
	for d := range p.Bins {
		if p.Uniform && !p.DD {
			unis[d] = uniformBins(edges[d], p.F32, p.Auto)
		}
	}
	counts := make([]float64, total)
	npts := 0
	if len(cols) > 0 {
		npts = len(cols[0])
	}
	for i := 0; i < npts; i++ {
		flat := 0
		ok := true
		for d, col := range cols {
			var k int
			if p.Uniform && !p.DD {
				k = unis[d].index(col[i])
			} else {
				k = edgeIndex(edges[d], col[i])
			}
			if k < 0 {
				ok = false
				break
			}
			flat = flat*p.Bins[d] + k
		}
		if !ok {
			continue
		}
		if w != nil {
			counts[flat] += w[i]
		} else {
			counts[flat]++
		}
	}
	if w != nil {
		return nd.FromSlice(counts, total)
	}
	ic := make([]int64, total)
	for i, c := range counts {
		ic[i] = int64(c)
	}
	return nd.FromSlice(ic, total)
}

// density divides counts (the grid of p.Bins, flat) by each bin's volume
// and the total: numpy's density=True, in dtype p.D.
func (p sortuP) density(b *nd.Array, args []any) (any, error) {
	c, err := b.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	v, err := vals[float64](c)
	if err != nil {
		return nil, err
	}
	total := 0.0
	for _, x := range v {
		total += x
	}
	out := make([]float64, len(v))
	edges, err := p.edgesOf(args)
	if err != nil {
		return nil, err
	}
	widths := make([][]float64, len(edges))
	for d, e := range edges {
		widths[d] = make([]float64, len(e)-1)
		for i := range widths[d] {
			hi, lo := e[i+1], e[i]
			widths[d][i] = hi - lo
			if p.F32 {
				widths[d][i] = float64(float32(hi) - float32(lo))
			}
		}
	}
	for f := range out {
		// numpy divides by each axis's widths in turn, then by the total.
		x := v[f]
		r := f
		var ks [32]int
		for d := len(p.Bins) - 1; d >= 0; d-- {
			ks[d] = r % p.Bins[d]
			r /= p.Bins[d]
		}
		for d := range p.Bins {
			x /= widths[d][ks[d]]
		}
		out[f] = x / total
	}
	a, err := nd.FromSlice(out, len(out))
	if err != nil {
		return nil, err
	}
	return a.AsType(p.D)
}

// isIn tests b's values against the test blocks, compared in p.D.
func (p sortuP) isIn(b *nd.Array, tests []any) (any, error) {
	_, tv, xv, err := p.joinCanon(b, tests)
	if err != nil {
		return nil, err
	}
	out := make([]bool, b.Size())
	switch tt := tv.(type) {
	case []int64:
		slices.Sort(tt)
		isIn(tt, xv.([]int64), ordI64, p.Arg, out)
	case []uint64:
		slices.Sort(tt)
		isIn(tt, xv.([]uint64), ordU64, p.Arg, out)
	case []float64:
		slices.SortFunc(tt, cmpOf(ordF64))
		isIn(tt, xv.([]float64), ordF64, p.Arg, out)
	case []complex128:
		slices.SortFunc(tt, cmpOf(ordC))
		isIn(tt, xv.([]complex128), ordC, p.Arg, out)
	}
	return fromSliceShaped(out, b.Shape())
}

// cmpOf is o as a three-way comparison.
func cmpOf[T any](o order[T]) func(a, b T) int {
	return func(a, b T) int {
		switch {
		case o.less(a, b):
			return -1
		case o.less(b, a):
			return 1
		}
		return 0
	}
}

// edgesOf returns the bin edges per dimension: p.Edges, or with p.Auto
// the kRange block that is the task's last argument (one dimension).
func (p sortuP) edgesOf(args []any) ([][]float64, error) {
	if p.Auto {
		D := len(p.Bins)
		if len(args) < D {
			return nil, fmt.Errorf("%s: histogram: %d arguments for %d edge arrays", opSortu, len(args), D)
		}
		out := make([][]float64, D)
		for d, a := range args[len(args)-D:] {
			b, err := argArray(a, opSortu)
			if err != nil {
				return nil, err
			}
			f, err := b.AsType(nd.Float64)
			if err != nil {
				return nil, err
			}
			e, err := vals[float64](f)
			if err != nil || len(e) != p.Bins[d]+1 {
				return nil, fmt.Errorf("%s: histogram: edges %v (%v) for %d bins", opSortu, b.Shape(), err, p.Bins[d])
			}
			out[d] = e
		}
		return out, nil
	}
	if len(p.Edges) != len(p.Bins) {
		return nil, fmt.Errorf("%s: histogram: %d edge lists for %d dimensions", opSortu, len(p.Edges), len(p.Bins))
	}
	out := make([][]float64, len(p.Edges))
	for d, bits := range p.Edges {
		out[d] = make([]float64, len(bits))
		for i, u := range bits {
			out[d][i] = math.Float64frombits(u)
		}
	}
	return out, nil
}

// minMax is the chunk stage of histogram's range: the block's least and
// greatest values as float64 and its size; a NaN makes the least NaN
// (numpy's min propagates it).
func minMax(b *nd.Array) (any, error) {
	f, err := b.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	v, err := vals[float64](f)
	if err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		switch {
		case x != x:
			lo = x
		case lo != lo:
		default:
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return nd.FromSlice([]float64{lo, hi, float64(len(v))}, 3)
}

// autoRange merges minMax partials into numpy.histogram's equal bins
// for a range found in the data: [0, 1] for no data, the range widened
// by 0.5 each way when it is one value (in float32 for float32 data),
// an *Error when it is not finite; the edges in dtype p.D.
func (p sortuP) autoRange(list []any) (any, error) {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0.0
	for _, x := range list {
		b, err := argArray(x, opSortu)
		if err != nil {
			return nil, err
		}
		v, err := vals[float64](b)
		if err != nil || len(v) != 3 {
			return nil, fmt.Errorf("%s: histogram range partial %v", opSortu, b.Shape())
		}
		if v[2] == 0 {
			continue
		}
		n += v[2]
		if v[0] != v[0] || lo != lo {
			lo = math.NaN()
			continue
		}
		lo, hi = min(lo, v[0]), max(hi, v[1])
	}
	if n == 0 {
		lo, hi = 0, 1
	}
	if lo != lo {
		hi = math.NaN()
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo != lo || hi != hi {
		return nil, &Error{Op: "histogram", Reason: fmt.Sprintf("autodetected range of [%v, %v] is not finite", lo, hi)}
	}
	if lo == hi {
		if p.F32 {
			lo, hi = float64(float32(lo)-0.5), float64(float32(hi)+0.5)
		} else {
			lo, hi = lo-0.5, hi+0.5
		}
	}
	// histogramdd's edges are float64 whatever the data (F32 only
	// decided the ±0.5 above); histogram's are in the bin dtype.
	e := linspaceEdges(lo, hi, p.Bins[0], p.F32 && !p.DD)
	a, err := nd.FromSlice(e, len(e))
	if err != nil {
		return nil, err
	}
	return a.AsType(p.D)
}
