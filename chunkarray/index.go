package chunkarray

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Sel selects along one axis in Index: All (the whole axis), At(i) (one
// position, the axis is dropped), Range(start, stop) and RangeStep(start,
// stop, step) (Python slices; negative values count from the end, a
// negative step walks backwards), NewAxis (a new axis of length 1),
// Ellipsis (as many All as the other selections leave), Ints (numpy's
// integer-array index: positions in any order, repeats allowed) and Bools
// (numpy's boolean index: a mask as long as the axis). At most one Ints or
// Bools appears in one Index call. Its axis goes where numpy puts the
// broadcast axes of advanced indices, counting every At as an advanced
// index beside it (numpy does): in place when the advanced indices are
// adjacent in the call (x[:, 0, [1, 2]] has shape (7, 2) for x of shape
// (7, 9, 5)), first when anything (All, a range, NewAxis or Ellipsis, even
// one that stands for no axis) separates them (x[0, :, [1, 2]] has shape
// (2, 9)).
type Sel struct {
	kind              int
	start, stop, step int
	noStart, noStop   bool
	ints              []int
	bools             []bool
	mask              *Array // selMask (sortu.go)
}

const (
	selAll = iota
	selAt
	selRange
	selNew
	selEllipsis
	selInts
	selBools
	selMask
)

// All selects a whole axis (numpy's ":").
func All() Sel { return Sel{kind: selAll} }

// At selects position i and drops the axis.
func At(i int) Sel { return Sel{kind: selAt, start: i} }

// Range selects start:stop.
func Range(start, stop int) Sel { return Sel{kind: selRange, start: start, stop: stop, step: 1} }

// RangeStep selects start:stop:step. A zero step is an error of Index.
func RangeStep(start, stop, step int) Sel {
	return Sel{kind: selRange, start: start, stop: stop, step: step}
}

// Step selects ::step: the whole axis, backwards for a negative step
// (numpy's x[::-1]).
func Step(step int) Sel { return Sel{kind: selRange, step: step, noStart: true, noStop: true} }

// From selects start::step (start to the end that step points at).
func From(start, step int) Sel { return Sel{kind: selRange, start: start, step: step, noStop: true} }

// NewAxis inserts an axis of length 1 (numpy's None).
func NewAxis() Sel { return Sel{kind: selNew} }

// Ellipsis stands for All on every axis not otherwise selected (numpy's
// "..."); at most one per Index.
func Ellipsis() Sel { return Sel{kind: selEllipsis} }

// Ints selects the positions idx along an axis (negative ones count from
// the end), in the given order, repeats included.
func Ints(idx ...int) Sel { return Sel{kind: selInts, ints: idx} }

// Bools selects the positions where mask is true; mask must be as long as
// the axis.
func Bools(mask ...bool) Sel { return Sel{kind: selBools, bools: mask} }

// IndexError reports a position outside an axis.
type IndexError struct {
	Op    string
	Axis  int
	Index int
	Len   int
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("chunkarray: %s: index %d is out of bounds for axis %d with size %d", e.Op, e.Index, e.Axis, e.Len)
}

// axSel is what one output chunk takes along one input axis: n elements
// of input block in, starting at lo with stride step, or, when idx is not
// nil, the local positions idx.
type axSel struct {
	in, lo, step, n int
	idx             []int
}

// Index selects with numpy's indexing: one Sel per axis (missing trailing
// ones are All), plus NewAxis and Ellipsis entries. The output's chunks
// follow Dask: a slice keeps the pieces of the chunks it cuts (in reverse
// order for a negative step, empty pieces dropped); an integer index
// makes one chunk per run of consecutive positions that fall in the same
// input chunk, in the order given.
func (a *Array) Index(sels ...Sel) *Array {
	const name = "getitem"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if slices.ContainsFunc(sels, func(s Sel) bool { return s.kind == selMask }) {
		return a.maskIndex(sels)
	}
	nin, nell, nadv := 0, 0, 0
	for _, s := range sels {
		switch s.kind {
		case selNew:
		case selEllipsis:
			nell++
		case selInts, selBools:
			nadv++
			nin++
		default:
			nin++
		}
	}
	if nell > 1 {
		return errorf(name, [][]int{a.shape}, "an index can only have a single ellipsis")
	}
	if nadv > 1 {
		return errorf(name, [][]int{a.shape}, "only one integer or boolean array index per Index is supported")
	}
	if nin > a.NDim() {
		return errorf(name, [][]int{a.shape}, "too many indices (%d) for %d axes", nin, a.NDim())
	}
	// Expand the ellipsis (or append trailing Alls).
	var full []Sel
	if nell == 1 {
		for _, s := range sels {
			if s.kind == selEllipsis {
				for k := nin; k < a.NDim(); k++ {
					full = append(full, All())
				}
				continue
			}
			full = append(full, s)
		}
	} else {
		full = slices.Clone(sels)
		for k := nin; k < a.NDim(); k++ {
			full = append(full, All())
		}
	}
	var shape []int
	var chunks [][]int
	l := &getitemLayer{in: a, front: -1}
	var toks []any
	ax := 0
	advAt := -1 // the output axis of the Ints or Bools (before moving it)
	for _, s := range full {
		toks = append(toks, s.kind, s.start, s.stop, s.step, s.noStart, s.noStop, s.ints, s.bools)
		if s.kind == selNew {
			l.newAx = append(l.newAx, len(shape))
			shape = append(shape, 1)
			chunks = append(chunks, []int{1})
			continue
		}
		n := a.shape[ax]
		var plan []axSel
		switch {
		case n == Unknown && s.kind == selAll:
			// Each chunk whole, its length unknown (getitemP takes the
			// block's).
			for b, c := range a.chunks[ax] {
				plan = append(plan, axSel{in: b, lo: 0, step: 1, n: c})
			}
			s.kind = -1 // planned
		case n == Unknown:
			return errArray(unknownError(name, a.shape, ax))
		}
		switch s.kind {
		case selAt:
			i := s.start
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return errArray(&IndexError{Op: name, Axis: ax, Index: s.start, Len: n})
			}
			b, lo := locate(a.chunks[ax], i)
			plan = []axSel{{in: b, lo: lo, step: 1, n: 1}}
		case selAll:
			plan = slicePlan(a.chunks[ax], nd.Slice1{Start: 0, Stop: n, Step: 1})
		case selRange:
			var st, sp *int
			if !s.noStart {
				st = &s.start
			}
			if !s.noStop {
				sp = &s.stop
			}
			sl, err := nd.NormalizeSlice(st, sp, s.step, n)
			if err != nil {
				return errorf(name, [][]int{a.shape}, "axis %d: %v", ax, err)
			}
			plan = slicePlan(a.chunks[ax], sl)
		case selInts, selBools:
			idx := s.ints
			if s.kind == selBools {
				if len(s.bools) != n {
					return errorf(name, [][]int{a.shape}, "boolean index of length %d does not match axis %d of length %d", len(s.bools), ax, n)
				}
				idx = maskIndices(s.bools)
			}
			var err error
			if plan, err = takePlan(name, a.chunks[ax], ax, idx, maxTakeRun(a, ax)); err != nil {
				return errArray(err)
			}
		}
		l.plan = append(l.plan, plan)
		if s.kind == selAt {
			l.outAx = append(l.outAx, -1)
		} else {
			if s.kind == selInts || s.kind == selBools {
				advAt, l.front = len(shape), ax
			}
			l.outAx = append(l.outAx, len(shape))
			c := make([]int, len(plan))
			for i, p := range plan {
				c[i] = p.n
			}
			shape = append(shape, axisLen(c))
			chunks = append(chunks, c)
		}
		ax++
	}
	if nadv == 1 && !advancedAdjacent(sels) {
		l.moveFront(advAt)
		n, c := shape[advAt], chunks[advAt]
		shape = slices.Insert(slices.Delete(shape, advAt, advAt+1), 0, n)
		chunks = slices.Insert(slices.Delete(chunks, advAt, advAt+1), 0, c)
	} else {
		l.front = -1
	}
	if shape == nil {
		shape, chunks = []int{}, [][]int{}
	}
	return newArray(name, shape, chunks, a.dtype, l, append([]any{a.name}, toks...)...)
}

// advancedAdjacent reports whether the advanced indices of sels (the Ints
// or Bools and every At beside it) sit next to each other: numpy then
// keeps their broadcast axes in place, and otherwise puts them first.
// Anything else between them separates them, an Ellipsis that stands for
// no axis included (numpy 1.24: x[:, [0, 1], ..., 1] of a 3-d x has shape
// (2, 7)).
func advancedAdjacent(sels []Sel) bool {
	first, last, n := -1, -1, 0
	for i, s := range sels {
		switch s.kind {
		case selAt, selInts, selBools:
			if first < 0 {
				first = i
			}
			last = i
			n++
		}
	}
	return last-first+1 == n
}

// moveFront records that the output axis at (the Ints or Bools one) comes
// first: the output axes before it shift by one.
func (l *getitemLayer) moveFront(at int) {
	for i, o := range l.outAx {
		switch {
		case o == at:
			l.outAx[i] = 0
		case o >= 0 && o < at:
			l.outAx[i] = o + 1
		}
	}
	for i, o := range l.newAx {
		if o < at {
			l.newAx[i] = o + 1
		}
	}
}

// locate returns the block holding position i of an axis chunked as c,
// and i's position in it.
func locate(c []int, i int) (block, local int) {
	st := 0
	for b, x := range c {
		if i < st+x {
			return b, i - st
		}
		st += x
	}
	return len(c) - 1, i - (st - c[len(c)-1])
}

// slicePlan cuts the normalised slice sl of an axis chunked as c into one
// piece per input chunk it touches, in output order.
func slicePlan(c []int, sl nd.Slice1) []axSel {
	L := sl.Len()
	var out []axSel
	if L == 0 {
		return []axSel{{in: 0, lo: 0, step: 1, n: 0}}
	}
	st := starts(c)
	// k-th output element is at sl.Start + k*sl.Step.
	visit := func(b int) {
		lo, hi := st[b], st[b]+c[b] // block covers [lo, hi)
		var k0, k1 int              // output positions [k0, k1) in block b
		if sl.Step > 0 {
			k0 = ceilDiv(lo-sl.Start, sl.Step)
			k1 = ceilDiv(hi-sl.Start, sl.Step)
		} else {
			// Negating math.MinInt overflows, so divide by the step's
			// magnitude as an unsigned number. Output k sits at
			// Start - k*|step|: the block holds k in
			// [ceil((Start-(hi-1))/|step|), floor((Start-lo)/|step|)].
			s := uint(-(sl.Step + 1)) + 1
			if sl.Start < lo {
				return // the slice starts below this block
			}
			if sl.Start > hi-1 {
				d := uint(sl.Start - (hi - 1))
				k0 = int(d / s)
				if d%s != 0 {
					k0++
				}
			}
			k1 = int(uint(sl.Start-lo)/s) + 1
		}
		k0, k1 = max(k0, 0), min(k1, L)
		if k1 > k0 {
			out = append(out, axSel{in: b, lo: sl.Start + k0*sl.Step - lo, step: sl.Step, n: k1 - k0})
		}
	}
	if sl.Step > 0 {
		for b := range c {
			visit(b)
		}
	} else {
		for b := len(c) - 1; b >= 0; b-- {
			visit(b)
		}
	}
	return out
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func maskIndices(mask []bool) []int {
	var idx []int
	for i, m := range mask {
		if m {
			idx = append(idx, i)
		}
	}
	return idx
}

// maxTakeRun is the longest run of taken positions put in one output
// chunk: Dask's array.slicing.split-large-chunks rule, so that a chunk of
// a gathered axis stays within DefaultChunkBytes.
func maxTakeRun(a *Array, axis int) int {
	other := a.dtype.Size()
	for i, s := range a.shape {
		if i != axis {
			other *= max(s, 1)
		}
	}
	return max(1, (DefaultChunkBytes+other-1)/other)
}

// takePlan groups the positions idx of an axis chunked as c into output
// chunks: one per run of consecutive positions in the same input chunk
// (Dask's slicing_plan), runs longer than maxRun split.
func takePlan(op string, c []int, axis int, idx []int, maxRun int) ([]axSel, error) {
	n := sum(c)
	if len(idx) == 0 {
		return []axSel{{in: 0, lo: 0, step: 1, n: 0, idx: []int{}}}, nil
	}
	ends := make([]int, len(c))
	e := 0
	for i, x := range c {
		e += x
		ends[i] = e
	}
	st := starts(c)
	var out []axSel
	for i, v := range idx {
		p := v
		if p < 0 {
			p += n
		}
		if p < 0 || p >= n {
			return nil, &IndexError{Op: op, Axis: axis, Index: v, Len: n}
		}
		b := sort.SearchInts(ends, p+1)
		if i > 0 {
			last := &out[len(out)-1]
			if last.in == b && last.n < maxRun {
				last.idx = append(last.idx, p-st[b])
				last.n++
				continue
			}
		}
		out = append(out, axSel{in: b, n: 1, step: 1, idx: []int{p - st[b]}})
	}
	return out, nil
}

// Take selects positions idx along axis (numpy.take with an axis; Dask's
// chunking rules, see Index). A position out of range is an *IndexError
// even when the array is empty (numpy 1.24's take checks positions only
// while copying, so it takes any position of an empty array).
func (a *Array) Take(axis int, idx []int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis("take", a, axis)
	if err != nil {
		return errArray(err)
	}
	sels := make([]Sel, ax+1)
	for i := range sels {
		sels[i] = All()
	}
	sels[ax] = Ints(idx...)
	return a.Index(sels...)
}

// TakeFlat selects positions idx of the flattened array (numpy.take with
// axis=None): a 1-d result, positions counted in C order, negative ones
// from the end.
func (a *Array) TakeFlat(idx []int) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := needKnown("take", a); err != nil { // unknown.go
		return errArray(err)
	}
	return a.Reshape(-1).Take(0, idx)
}

// CompressFlat selects the positions of the flattened array where cond is
// true (numpy.compress with axis=None); cond is as Compress's.
func (a *Array) CompressFlat(cond any) *Array {
	const name = "compress"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, a); err != nil { // unknown.go
		return errArray(err)
	}
	idx, err := compressIndices(name, a.shape, cond, 0, a.Size())
	if err != nil {
		return errArray(err)
	}
	return a.Reshape(-1).Take(0, idx)
}

// Compress selects the positions of axis where cond is true, as
// numpy.compress: cond is a []bool or a 1-d bool *nd.Array (a computed
// mask); it may be shorter than the axis (the rest is dropped), and
// longer when its extra entries are all false; a true one beyond the
// axis is an *IndexError, even when the array is empty (numpy 1.24
// ignores it there, as Take's positions).
func (a *Array) Compress(cond any, axis int) *Array {
	const name = "compress"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	if a.shape[ax] == Unknown { // unknown.go
		return errArray(unknownError(name, a.shape, ax))
	}
	idx, err := compressIndices(name, a.shape, cond, ax, a.shape[ax])
	if err != nil {
		return errArray(err)
	}
	return a.Take(ax, idx)
}

// compressIndices returns the positions where cond (Compress's) is true
// along an axis of length n (axis and shape name it in errors).
func compressIndices(name string, shape []int, cond any, axis, n int) ([]int, error) {
	var mask []bool
	switch c := cond.(type) {
	case []bool:
		mask = c
	case *nd.Array:
		if c == nil || c.NDim() != 1 || c.DType() != nd.Bool {
			return nil, &Error{Op: name, Shapes: [][]int{shape}, Reason: "condition must be a 1-d bool array"}
		}
		var err error
		if mask, err = nd.Values[bool](c); err != nil {
			return nil, &Error{Op: name, Err: err}
		}
	default:
		return nil, &Error{Op: name, Shapes: [][]int{shape}, Reason: fmt.Sprintf("condition of type %T: want []bool or *nd.Array", cond)}
	}
	if len(mask) > n {
		if i := slices.Index(mask[n:], true); i >= 0 {
			return nil, &IndexError{Op: name, Axis: axis, Index: n + i, Len: n}
		}
		mask = mask[:n]
	}
	return maskIndices(mask), nil
}

func normAxis(op string, a *Array, axis int) (int, error) {
	n := a.NDim()
	if axis < -n || axis >= n {
		return 0, &Error{Op: op, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("axis %d is out of bounds for %d axes", axis, n)}
	}
	if axis < 0 {
		axis += n
	}
	return axis, nil
}

type getitemLayer struct {
	in    *Array
	outAx []int // per input axis, the output axis (-1: dropped by At)
	plan  [][]axSel
	newAx []int // output axes made by NewAxis
	front int   // the input axis whose (advanced) output axis is first, or -1
}

func (l *getitemLayer) inputs() []*Array { return []*Array{l.in} }

func (l *getitemLayer) block(a *Array, idx []int) graph.Node {
	n := l.in.NDim()
	src := make([]int, n)
	geo := make([]int, 0, 4*n)
	for ax := 0; ax < n; ax++ {
		j := 0
		if o := l.outAx[ax]; o >= 0 {
			j = idx[o]
		}
		p := l.plan[ax][j]
		src[ax] = p.in
		if p.idx != nil {
			geo = append(geo, -1, len(p.idx))
			geo = append(geo, p.idx...)
		} else {
			geo = append(geo, p.lo, p.step, p.n)
		}
	}
	args := []graph.Arg{graph.Ref(l.in.Key(src...)), graph.Lit(geo), graph.Lit(a.blockShape(idx))}
	if l.front >= 0 {
		args = append(args, graph.Lit([]int{l.front}))
	}
	return graph.Task(getitemOp, args...)
}

var getitemOp = newOp(opGetitem, getitemP{})

// getitemP selects from a block. Args: the block; per axis either (lo,
// step, n) for a strided range or (-1, k, k positions) for a gather; the
// output block shape; optionally [ax], the input axis that comes first in
// the output (numpy's rule for separated advanced indices, see Sel).
type getitemP struct{}

func (getitemP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opGetitem)
	if err != nil {
		return nil, err
	}
	geo, err := argInts(args, 1, opGetitem)
	if err != nil {
		return nil, err
	}
	shape, err := argInts(args, 2, opGetitem)
	if err != nil {
		return nil, err
	}
	bad := func() (any, error) {
		return nil, fmt.Errorf("%s: bad geometry %v for a block of shape %v", opGetitem, geo, b.Shape())
	}
	sl := make([]nd.Slice1, b.NDim())
	type gather struct {
		ax  int
		idx []int
	}
	var gs []gather
	var unk []int // the block's lengths along its whole, unknown-length axes
	g := geo
	for ax := range sl {
		if len(g) < 2 {
			return bad()
		}
		if g[0] == -1 {
			k := g[1]
			if k < 0 || len(g) < 2+k {
				return bad()
			}
			gs = append(gs, gather{ax, g[2 : 2+k]})
			sl[ax] = nd.Slice1{Start: 0, Stop: b.Shape()[ax], Step: 1}
			g = g[2+k:]
			continue
		}
		if len(g) < 3 || g[1] == 0 {
			return bad()
		}
		lo, step, n := g[0], g[1], g[2]
		sl[ax] = nd.Slice1{Start: lo, Stop: lo + step*n, Step: step}
		switch n {
		case Unknown:
			sl[ax] = nd.Slice1{Start: 0, Stop: b.Shape()[ax], Step: 1}
			unk = append(unk, b.Shape()[ax])
		case 0:
			sl[ax] = nd.Slice1{Start: 0, Stop: 0, Step: 1}
		case 1:
			// One element: a huge step would overflow lo + step*n.
			sl[ax] = nd.Slice1{Start: lo, Stop: lo + 1, Step: 1}
		}
		g = g[3:]
	}
	v, err := b.Slice(sl...)
	if err != nil {
		return nil, err
	}
	for _, x := range gs {
		if v, err = takeAxis(v, x.ax, x.idx); err != nil {
			return nil, err
		}
	}
	if len(args) > 3 {
		front, err := argInts(args, 3, opGetitem)
		if err != nil {
			return nil, err
		}
		if len(front) != 1 || front[0] < 0 || front[0] >= v.NDim() {
			return bad()
		}
		perm := []int{front[0]}
		for ax := range v.NDim() {
			if ax != front[0] {
				perm = append(perm, ax)
			}
		}
		if v, err = v.Transpose(perm...); err != nil {
			return nil, err
		}
	}
	if unk != nil {
		// The output's unknown axes are the whole ones, in order.
		shape = slices.Clone(shape)
		for i, s := range shape {
			if s == Unknown && len(unk) > 0 {
				shape[i], unk = unk[0], unk[1:]
			}
		}
	}
	if slices.Equal(v.Shape(), shape) {
		return v, nil
	}
	return reshapeView(v, shape)
}

// takeAxis gathers positions idx of axis from v into a new C-contiguous
// array.
func takeAxis(v *nd.Array, axis int, idx []int) (*nd.Array, error) {
	sh := slices.Clone(v.Shape())
	n := sh[axis]
	for _, i := range idx {
		if i < 0 || i >= n {
			return nil, &IndexError{Op: "take", Axis: axis, Index: i, Len: n}
		}
	}
	sh[axis] = len(idx)
	out, err := nd.Zeros(v.DType(), sh...)
	if err != nil {
		return nil, err
	}
	if out.Size() == 0 {
		return out, nil
	}
	src := v.Contiguous()
	outer, inner := 1, 1
	for i, s := range sh {
		if i < axis {
			outer *= s
		} else if i > axis {
			inner *= s
		}
	}
	so := src.Offset()
	switch d := out.Data().(type) {
	case []bool:
		gatherT(d, src.Data().([]bool)[so:], outer, n, inner, idx)
	case []int8:
		gatherT(d, src.Data().([]int8)[so:], outer, n, inner, idx)
	case []int16:
		gatherT(d, src.Data().([]int16)[so:], outer, n, inner, idx)
	case []int32:
		gatherT(d, src.Data().([]int32)[so:], outer, n, inner, idx)
	case []int64:
		gatherT(d, src.Data().([]int64)[so:], outer, n, inner, idx)
	case []uint8:
		gatherT(d, src.Data().([]uint8)[so:], outer, n, inner, idx)
	case []uint16:
		gatherT(d, src.Data().([]uint16)[so:], outer, n, inner, idx)
	case []uint32:
		gatherT(d, src.Data().([]uint32)[so:], outer, n, inner, idx)
	case []uint64:
		gatherT(d, src.Data().([]uint64)[so:], outer, n, inner, idx)
	case []float32:
		gatherT(d, src.Data().([]float32)[so:], outer, n, inner, idx)
	case []float64:
		gatherT(d, src.Data().([]float64)[so:], outer, n, inner, idx)
	case []complex64:
		gatherT(d, src.Data().([]complex64)[so:], outer, n, inner, idx)
	case []complex128:
		gatherT(d, src.Data().([]complex128)[so:], outer, n, inner, idx)
	default:
		return nil, fmt.Errorf("chunkarray: take: dtype %s", v.DType())
	}
	return out, nil
}

// gatherT copies rows idx of each (n, inner) slab of src into dst.
func gatherT[T any](dst, src []T, outer, n, inner int, idx []int) {
	k := len(idx)
	for o := 0; o < outer; o++ {
		s := src[o*n*inner : (o+1)*n*inner]
		d := dst[o*k*inner : (o+1)*k*inner]
		if inner == 1 {
			for j, i := range idx {
				d[j] = s[i]
			}
			continue
		}
		for j, i := range idx {
			copy(d[j*inner:(j+1)*inner], s[i*inner:(i+1)*inner])
		}
	}
}

// reshapeView reshapes v to shape when only axes of length 1 are dropped
// or added: a view with zero strides for the new axes, no copy.
func reshapeView(v *nd.Array, shape []int) (*nd.Array, error) {
	var keep []int // v's axes of length != 1
	for i, s := range v.Shape() {
		if s != 1 {
			keep = append(keep, i)
		}
	}
	j := 0
	ok := true
	for _, s := range shape {
		if s != 1 {
			if j >= len(keep) || v.Shape()[keep[j]] != s {
				ok = false
				break
			}
			j++
		}
	}
	if !ok || j != len(keep) {
		return v.Reshape(shape...)
	}
	// Drop every length-1 axis with Index, then add the new ones by
	// broadcasting from a reshaped contiguous copy if needed.
	for i := v.NDim() - 1; i >= 0; i-- {
		if v.Shape()[i] == 1 {
			var err error
			if v, err = v.Index(i, 0); err != nil {
				return nil, err
			}
		}
	}
	return v.Reshape(shape...)
}

// Transpose permutes the axes (none given: reverses them), as numpy.
func (a *Array) Transpose(axes ...int) *Array {
	const name = "transpose"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	n := a.NDim()
	if len(axes) == 0 {
		axes = make([]int, n)
		for i := range axes {
			axes[i] = n - 1 - i
		}
	}
	norm, err := nd.NormalizeAxes(name, axes, n)
	if err != nil || len(norm) != n {
		return errorf(name, [][]int{a.shape}, "axes %v are not a permutation of %d axes", axes, n)
	}
	seen := make([]bool, n)
	for _, x := range norm {
		if seen[x] {
			return errorf(name, [][]int{a.shape}, "axes %v repeat an axis", axes)
		}
		seen[x] = true
	}
	shape := make([]int, n)
	chunks := make([][]int, n)
	for i, x := range norm {
		shape[i], chunks[i] = a.shape[x], a.chunks[x]
	}
	return newArray(name, shape, chunks, a.dtype, &transposeLayer{in: a, op: newOp(opTranspose, transposeP{Axes: norm})}, a.name, norm)
}

// T is Transpose with the axes reversed.
func (a *Array) T() *Array { return a.Transpose() }

const opTranspose = "chunkarray.transpose"

func init() { register[transposeP](opTranspose) }

type transposeP struct {
	Axes []int `json:"axes"`
}

func (p transposeP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opTranspose)
	if err != nil {
		return nil, err
	}
	return b.Transpose(p.Axes...)
}

type transposeLayer struct {
	in *Array
	op *op[transposeP]
}

func (l *transposeLayer) inputs() []*Array { return []*Array{l.in} }

func (l *transposeLayer) block(_ *Array, idx []int) graph.Node {
	src := make([]int, len(idx))
	for i, x := range l.op.p.Axes {
		src[x] = idx[i]
	}
	return graph.Task(l.op, graph.Ref(l.in.Key(src...)))
}
