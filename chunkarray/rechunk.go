package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// rechunkTo returns a with the chunks of out (an ndim-axis chunking that
// a's axes align to on the right) on every axis where a is not broadcast,
// and one chunk on every axis where it is: a broadcast axis chunked
// (1, 0) or (0, 1) would send every output block to an input block index
// the axis may not have, or to its empty block.
func rechunkTo(a *Array, out [][]int, ndim int) *Array {
	want := slices.Clone(a.chunks)
	changed := false
	for j := range want {
		ax := j + ndim - a.NDim()
		if a.shape[j] == 1 && sum(out[ax]) != 1 {
			if len(want[j]) > 1 {
				want[j] = []int{1}
				changed = true
			}
			continue
		}
		if !slices.Equal(want[j], out[ax]) {
			want[j] = out[ax]
			changed = true
		}
	}
	if !changed {
		return a
	}
	return a.Rechunk(want)
}

// keepUnset returns a per-axis chunk spec for Rechunk with the axes it
// leaves out (a map's missing keys, nil entries) set to a's current
// chunks; other specs come back as they are.
func keepUnset(spec any, a *Array) (any, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: "rechunk", Shapes: [][]int{a.shape}, Reason: "chunks " + fmt.Sprintf(format, args...)}
	}
	switch s := spec.(type) {
	case map[int]any, map[int]int:
		return axisMap(s, a.NDim(), a.chunks, bad)
	case []any:
		if len(s) != a.NDim() {
			return spec, nil // NormalizeChunks says what is wrong
		}
		per := slices.Clone(s)
		for i, v := range per {
			if v == nil {
				per[i] = a.chunks[i]
			}
		}
		return per, nil
	}
	return spec, nil
}

func sum(c []int) int {
	s := 0
	for _, x := range c {
		s += x
	}
	return s
}

// piece is the part of an input chunk that lands in an output chunk.
type piece struct{ in, lo, hi int }

// Rechunk returns a with new chunks (any spec NormalizeChunks takes). In
// a per-axis spec ([]any, or a map from axis to entry as Dask's
// {0: -1, 1: 100, 2: "auto"}), an axis left out of a map or given nil
// keeps its current chunks.
//
// The plan bounds what any task holds: with B = 2 × the larger of the
// largest input and the largest output chunk (bytes), no rechunk task
// takes more than B bytes of inputs. Directly, an output block is
// assembled from the whole input blocks it overlaps; when that would hold
// more than B (say (n, 1)-chunked columns into (1, n)-chunked rows: every
// row would hold every column), the rechunk goes through the union of
// both chunkings instead: a task per overlap cuts one piece from one
// input block, and each output block joins its pieces, holding only its
// own bytes. When the overlaps are many more than the blocks, an
// intermediate chunking (per axis the coarser of the two, then halved on
// the largest axes until a block fits the larger chunk size) goes
// between, as Dask's rechunk planner does, so that the task count stays
// near-linear in the blocks.
func (a *Array) Rechunk(chunks any) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if !a.Known() {
		return a.rechunkUnknown(chunks)
	}
	spec, err := keepUnset(chunks, a)
	if err != nil {
		return errArray(err)
	}
	ch, err := NormalizeChunks("rechunk", spec, a.shape, a.dtype)
	if err != nil {
		return errArray(err)
	}
	if slices.EqualFunc(ch, a.chunks, slices.Equal) {
		return a
	}
	return a.rechunkPlanned(ch, true)
}

// RechunkBound returns the bound B of Rechunk's doc for going from chunks
// in to chunks out with elements of size itemsize.
func RechunkBound(in, out [][]int, itemsize int) int {
	return 2 * max(maxBlockElems(in), maxBlockElems(out)) * itemsize
}

func maxBlockElems(c [][]int) int {
	n := 1
	for _, x := range c {
		m := 0
		for _, v := range x {
			m = max(m, v)
		}
		n *= m
	}
	return n
}

// overlaps counts the (input block, output block) pairs that share
// elements.
func overlaps(in, out [][]int) int {
	n := 1
	for ax := range in {
		k := 0
		for _, p := range axisPlan(in[ax], out[ax]) {
			k += len(p)
		}
		n *= k
	}
	return n
}

func numBlocks(c [][]int) int {
	n := 1
	for _, x := range c {
		n *= len(x)
	}
	return n
}

func (a *Array) rechunkPlanned(ch [][]int, mid bool) *Array {
	if slices.EqualFunc(ch, a.chunks, slices.Equal) {
		return a
	}
	bound := RechunkBound(a.chunks, ch, a.dtype.Size())
	if mid {
		if m := midChunks(a.chunks, ch); m != nil {
			direct := overlaps(a.chunks, ch)
			via := overlaps(a.chunks, m) + overlaps(m, ch)
			if direct > 8*(numBlocks(a.chunks)+numBlocks(ch)) && 2*via < direct {
				return a.rechunkPlanned(m, false).rechunkPlanned(ch, false)
			}
		}
	}
	plan := make([][][]piece, len(ch))
	held := a.dtype.Size() // largest sum of whole input blocks per output block
	for ax := range ch {
		if axisLen(ch[ax]) == Unknown {
			// Kept as it is (rechunkUnknown): chunk j is block j whole.
			for j, c := range ch[ax] {
				plan[ax] = append(plan[ax], []piece{{in: j, lo: 0, hi: c}})
			}
			held = 0 // no bound to check without the sizes
			continue
		}
		plan[ax] = axisPlan(a.chunks[ax], ch[ax])
		m := 0
		for _, ps := range plan[ax] {
			s := 0
			for _, p := range ps {
				s += a.chunks[ax][p.in]
			}
			m = max(m, s)
		}
		held *= m
	}
	if held > bound {
		u := make([][]int, len(ch))
		for ax := range ch {
			u[ax] = unionChunks([][]int{a.chunks[ax], ch[ax]})
		}
		if !slices.EqualFunc(u, a.chunks, slices.Equal) && !slices.EqualFunc(u, ch, slices.Equal) {
			return a.rechunkPlanned(u, false).rechunkPlanned(ch, false)
		}
	}
	return newArray("rechunk", a.shape, ch, a.dtype, &rechunkLayer{in: a, plan: plan}, a.name, chunksToken(ch))
}

// midChunks returns an intermediate chunking between in and out: per
// axis the coarser chunk length, halved on the axis with the longest
// chunks until a block is no larger than the larger of in's and out's
// blocks; nil when that is in or out itself.
func midChunks(in, out [][]int) [][]int {
	n := len(in)
	size := make([]int, n)
	lo := make([]int, n)
	shape := make([]int, n)
	for ax := range n {
		shape[ax] = sum(in[ax])
		mi, mo := maxOf(in[ax]), maxOf(out[ax])
		size[ax], lo[ax] = max(mi, mo, 1), max(min(mi, mo), 1)
	}
	limit := max(maxBlockElems(in), maxBlockElems(out))
	for prod(size) > limit {
		best := -1
		for ax := range n {
			if size[ax] > lo[ax] && (best < 0 || size[ax] > size[best]) {
				best = ax
			}
		}
		if best < 0 {
			break
		}
		size[best] = max(lo[best], (size[best]+1)/2)
	}
	m := make([][]int, n)
	for ax := range n {
		m[ax] = splitAxis(shape[ax], size[ax])
	}
	if slices.EqualFunc(m, in, slices.Equal) || slices.EqualFunc(m, out, slices.Equal) {
		return nil
	}
	return m
}

func maxOf(c []int) int {
	m := 0
	for _, x := range c {
		m = max(m, x)
	}
	return m
}

// axisPlan lists for each output chunk the input pieces it takes.
func axisPlan(in, out []int) [][]piece {
	res := make([][]piece, len(out))
	is := starts(in)
	o := 0
	b := 0
	for j, n := range out {
		lo, hi := o, o+n
		for b < len(in) && is[b]+in[b] <= lo && in[b] > 0 {
			b++
		}
		for k := b; k < len(in) && is[k] < hi; k++ {
			s, e := max(lo, is[k]), min(hi, is[k]+in[k])
			if e > s {
				res[j] = append(res[j], piece{in: k, lo: s - is[k], hi: e - is[k]})
			}
		}
		if n == 0 {
			res[j] = []piece{{in: min(b, len(in)-1)}}
		}
		o = hi
	}
	return res
}

type rechunkLayer struct {
	in   *Array
	plan [][][]piece
}

func (l *rechunkLayer) inputs() []*Array { return []*Array{l.in} }

func (l *rechunkLayer) block(a *Array, idx []int) graph.Node {
	n := len(idx)
	ps := make([][]piece, n)
	whole := true
	for ax, j := range idx {
		ps[ax] = l.plan[ax][j]
		p := ps[ax]
		if len(p) != 1 || p[0].lo != 0 || p[0].hi != l.in.chunks[ax][p[0].in] {
			whole = false
		}
	}
	if whole {
		src := make([]int, n)
		for ax := range src {
			src[ax] = ps[ax][0].in
		}
		return graph.Alias(l.in.Key(src...))
	}
	var refs []graph.Arg
	var geo []int // per piece, per axis: lo, hi, out offset
	cnt := make([]int, n)
	for ax := range cnt {
		cnt[ax] = len(ps[ax])
	}
	src := make([]int, n)
	forBlocks(cnt, func(k []int) {
		for ax, x := range k {
			src[ax] = ps[ax][x].in
		}
		refs = append(refs, graph.Ref(l.in.Key(src...)))
		for ax, x := range k {
			off := 0
			for _, q := range ps[ax][:x] {
				off += q.hi - q.lo
			}
			geo = append(geo, ps[ax][x].lo, ps[ax][x].hi, off)
		}
	})
	op := rechunkOp
	if len(refs) == 1 {
		op = rechunkSplitOp
	}
	return graph.Task(op, graph.Lit(a.blockShape(idx)), graph.List(refs...), graph.Lit(geo))
}

var (
	rechunkOp      = newOp(opRechunk, rechunkP{})
	rechunkSplitOp = newOp(opRechunk, rechunkP{Split: true})
)

// rechunkP assembles an output block from pieces of input blocks. Args:
// the block shape, the input blocks, and per piece and axis (lo, hi,
// offset in the output). Split only labels the task (one piece of one
// input block: Dask's rechunk-split; several: rechunk-merge).
type rechunkP struct {
	Split bool `json:"split,omitempty"`
}

func (rechunkP) run(_ context.Context, args []any) (any, error) {
	shape, err := argInts(args, 0, opRechunk)
	if err != nil {
		return nil, err
	}
	list, ok := args[1].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: argument 1 is %T", opRechunk, args[1])
	}
	geo, err := argInts(args, 2, opRechunk)
	if err != nil {
		return nil, err
	}
	n := len(shape)
	if len(geo) != 3*n*len(list) {
		return nil, fmt.Errorf("%s: %d geometry entries for %d pieces of %d axes", opRechunk, len(geo), len(list), n)
	}
	var out *nd.Array
	src := make([]nd.Slice1, n)
	dst := make([]nd.Slice1, n)
	for i, v := range list {
		b, err := argArray(v, opRechunk)
		if err != nil {
			return nil, err
		}
		if out == nil {
			if slices.Contains(shape, Unknown) && b.NDim() == n {
				// An axis of unknown chunks kept as it is (unknown.go):
				// one whole piece along it, of the block's length.
				shape = slices.Clone(shape)
				for ax, s := range shape {
					if s == Unknown {
						shape[ax] = b.Shape()[ax]
					}
				}
			}
			if out, err = nd.Zeros(b.DType(), shape...); err != nil {
				return nil, err
			}
		}
		g := geo[3*n*i:]
		for ax := 0; ax < n; ax++ {
			lo, hi, off := g[3*ax], g[3*ax+1], g[3*ax+2]
			if hi == Unknown && ax < b.NDim() {
				hi = b.Shape()[ax]
			}
			src[ax] = nd.Slice1{Start: lo, Stop: hi, Step: 1}
			dst[ax] = nd.Slice1{Start: off, Stop: off + hi - lo, Step: 1}
		}
		part, err := b.Slice(src...)
		if err != nil {
			return nil, err
		}
		if err := copyRegion(out, dst, part); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rechunkUnknown is Rechunk of an array with Unknown chunks (unknown.go):
// the axes whose chunks are unknown must keep them (a map or []any spec
// that leaves them out or nil, or gives them their current chunks);
// the known axes are rechunked as usual. Anything else is unknownError.
func (a *Array) rechunkUnknown(chunks any) *Array {
	const name = "rechunk"
	spec, err := keepUnset(chunks, a)
	if err != nil {
		return errArray(err)
	}
	var per []any
	switch s := spec.(type) {
	case []any:
		per = s
	case [][]int:
		for _, c := range s {
			per = append(per, c)
		}
	}
	if len(per) != a.NDim() {
		return errArray(unknownError(name, a.shape, a.unknownAxis()))
	}
	var subSpec []any
	var subShape, known []int
	for ax, c := range a.chunks {
		if axisLen(c) != Unknown {
			subSpec, subShape, known = append(subSpec, per[ax]), append(subShape, a.shape[ax]), append(known, ax)
			continue
		}
		if want, ok := per[ax].([]int); !ok || !slices.Equal(want, c) {
			return errArray(unknownError(name, a.shape, ax))
		}
	}
	sub, err := NormalizeChunks(name, subSpec, subShape, a.dtype)
	if err != nil {
		return errArray(err)
	}
	ch := slices.Clone(a.chunks)
	for i, ax := range known {
		ch[ax] = sub[i]
	}
	return a.rechunkPlanned(ch, false)
}
