package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Reshape returns a with a new shape holding the same elements in C order;
// one dimension may be -1 (inferred), as numpy.reshape. The input is
// first rechunked so that every input block maps to exactly one output
// block, then each block is reshaped on its own; an array of one block is
// reshaped in one task. Where axes are merged or split whole ((6, 5, 4)
// to (30, 4) or (3, 2, 5, 4)) the chunks follow dask.array.reshape:
// merged trailing axes taken whole, the leading one cut finer; a split
// axis's chunks rounded to multiples of the trailing output axes. Dask
// refuses the other reshapes ((7, 9) to (21, 3), (6, 4) to (4, 6)); here
// the axes concerned are rechunked to whole rows of both shapes (see
// reshapeRechunk), which costs a rechunk but gives numpy's answer.
func (a *Array) Reshape(shape ...int) *Array {
	const name = "reshape"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if err := needKnown(name, a); err != nil { // unknown.go
		return errArray(err)
	}
	shape = slices.Clone(shape)
	infer, known := -1, 1
	for i, d := range shape {
		switch {
		case d == -1 && infer < 0:
			infer = i
		case d == -1:
			return errorf(name, [][]int{a.shape, shape}, "can only specify one unknown dimension")
		case d < 0:
			return errorf(name, [][]int{a.shape, shape}, "negative dimension %d", d)
		default:
			known *= d
		}
	}
	if infer >= 0 {
		if known == 0 || a.Size()%known != 0 {
			return errorf(name, [][]int{a.shape, shape}, "cannot reshape array of size %d", a.Size())
		}
		shape[infer] = a.Size() / known
	}
	if known := prod(shape); known != a.Size() {
		return errorf(name, [][]int{a.shape, shape}, "total size of new array must be unchanged (%d != %d)", known, a.Size())
	}
	if slices.Equal(shape, a.shape) {
		return a
	}
	if a.Size() == 0 && a.NumTasks() > 1 {
		// No element to place: one empty block reshaped in one task.
		a = a.Rechunk(-1)
		if a.err != nil {
			return a
		}
	}
	if a.NumTasks() == 1 {
		ch := make([][]int, len(shape))
		for i, s := range shape {
			ch[i] = []int{s}
		}
		return newArray(name, shape, ch, a.dtype, &reshapeLayer{in: a}, a.name, shape)
	}
	inCh, outCh, err := reshapeRechunk(a.shape, shape, a.chunks)
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape, shape}, Reason: err.Error()})
	}
	x := a.Rechunk(inCh)
	if x.err != nil {
		return x
	}
	return newArray(name, shape, outCh, a.dtype, &reshapeLayer{in: x}, x.name, shape)
}

func prod(s []int) int {
	p := 1
	for _, x := range s {
		p *= x
	}
	return p
}

// reshapeRechunk walks both shapes from the last axis and returns the
// chunks the input must have and those the output gets, so that input
// and output blocks correspond one to one in C order of block index.
//
// Axes are taken in groups, the fewest trailing axes of each side whose
// sizes have the same product. A group that merges input axes into one
// output axis, or splits one input axis into several, follows Dask's
// reshape_rechunk. Dask refuses the other groups ((7, 9) to (21, 3): 9
// is neither a multiple nor a divisor of 3); numpy reshapes them, and so
// does this: the group's trailing input axes are taken whole, its leading
// input axis is cut into chunks of a multiple of m = Pout/gcd(Pin, Pout)
// rows (Pin, Pout: the products of the trailing axes of the input and of
// the output group), so that each input block holds whole rows of the
// output group; the output's leading axis gets c·Pin/Pout for an input
// chunk of c rows, its trailing axes are whole.
func reshapeRechunk(in, out []int, inChunks [][]int) ([][]int, [][]int, error) {
	ri := make([][]int, len(in))
	ro := make([][]int, len(out))
	ii, oi := len(in)-1, len(out)-1
	for ii >= 0 || oi >= 0 {
		switch {
		case ii >= 0 && oi >= 0 && in[ii] == out[oi]:
			ri[ii], ro[oi] = inChunks[ii], inChunks[ii]
			ii--
			oi--
			continue
		case ii >= 0 && in[ii] == 1:
			ri[ii] = []int{1}
			ii--
			continue
		case oi >= 0 && out[oi] == 1:
			ro[oi] = []int{1}
			oi--
			continue
		case ii < 0 || oi < 0:
			return nil, nil, fmt.Errorf("sizes differ")
		}
		// The group: in[li..ii] and out[lo..oi] with equal products.
		li, lo := ii, oi
		pi, po := in[ii], out[oi]
		for pi != po {
			if pi < po {
				li--
				if li < 0 {
					return nil, nil, fmt.Errorf("sizes differ")
				}
				pi *= in[li]
			} else {
				lo--
				if lo < 0 {
					return nil, nil, fmt.Errorf("sizes differ")
				}
				po *= out[lo]
			}
		}
		switch {
		case lo == oi: // merge in[li..ii] into out[oi]
			reshapeMerge(in, inChunks, li, ii, ri, ro, oi)
		case li == ii: // split in[ii] into out[lo..oi]
			cs := prod(out[lo+1 : oi+1])
			ri[ii] = contractChunks(inChunks[ii], cs)
			for i := lo + 1; i <= oi; i++ {
				ro[i] = []int{out[i]}
			}
			ro[lo] = make([]int, len(ri[ii]))
			for k, c := range ri[ii] {
				ro[lo][k] = c / cs
			}
		default:
			pin, pout := prod(in[li+1:ii+1]), prod(out[lo+1:oi+1])
			m := pout / gcd(pin, pout)
			red := 1
			for i := li + 1; i <= ii; i++ {
				ri[i] = []int{in[i]}
				red *= len(inChunks[i])
			}
			ri[li] = contractChunks(expandChunks(inChunks[li], red), m)
			ro[lo] = make([]int, len(ri[li]))
			for k, c := range ri[li] {
				ro[lo][k] = c * pin / pout
			}
			for i := lo + 1; i <= oi; i++ {
				ro[i] = []int{out[i]}
			}
		}
		ii, oi = li-1, lo-1
	}
	return ri, ro, nil
}

// reshapeMerge sets the chunks of a merge of in[left..ii] into out[oi].
func reshapeMerge(in []int, inChunks [][]int, left, ii int, ri, ro [][]int, oi int) {
	// When every axis before ii is chunked by one, blocks only move: no
	// rechunking. Every chunk must be 1 long: (1, 0, 2) has as many
	// chunks as elements but is not chunked by one.
	byOne := true
	for i := 0; i < ii; i++ {
		for _, c := range inChunks[i] {
			if c != 1 {
				byOne = false
			}
		}
	}
	if byOne {
		for i := 0; i <= ii; i++ {
			ri[i] = inChunks[i]
		}
		rep := 1
		for _, c := range inChunks[left:ii] {
			rep *= len(c)
		}
		var oc []int
		for r := 0; r < rep; r++ {
			oc = append(oc, inChunks[ii]...)
		}
		ro[oi] = oc
		return
	}
	red := 1
	for i := left + 1; i <= ii; i++ {
		ri[i] = []int{in[i]}
		red *= len(inChunks[i])
	}
	ri[left] = expandChunks(inChunks[left], red)
	p := prod(in[left+1 : ii+1])
	ro[oi] = make([]int, len(ri[left]))
	for k, c := range ri[left] {
		ro[oi][k] = c * p
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// expandChunks cuts every chunk into about factor pieces (at least 1
// long), so that merging axes whose other chunks were joined keeps about
// the same number of blocks.
func expandChunks(c []int, factor int) []int {
	if factor == 1 {
		return c
	}
	var out []int
	for _, x := range c {
		part := max(x/factor, 1)
		for x >= 2*part {
			out = append(out, part)
			x -= part
		}
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// contractChunks rounds chunks to multiples of factor, carrying the
// remainders forward.
func contractChunks(c []int, factor int) []int {
	var out []int
	rest := 0
	for _, x := range c {
		x += rest
		good := (x / factor) * factor
		rest = x - good
		if good > 0 {
			out = append(out, good)
		}
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}

// reshapeLayer: output block k (C order) is input block k reshaped; the
// two block grids have the same number of blocks.
type reshapeLayer struct {
	in *Array
}

func (l *reshapeLayer) inputs() []*Array { return []*Array{l.in} }

func (l *reshapeLayer) block(a *Array, idx []int) graph.Node {
	f := flatIndex(idx, a.NumBlocks())
	nb := l.in.NumBlocks()
	src := make([]int, len(nb))
	for i := len(nb) - 1; i >= 0; i-- {
		src[i] = f % nb[i]
		f /= nb[i]
	}
	shape := a.blockShape(idx)
	if !slices.Contains(shape, Unknown) {
		return graph.Task(reshapeOp, graph.Ref(l.in.Key(src...)), graph.Lit(shape))
	}
	// ExpandDims or Squeeze of unknown chunks: each unknown length is the
	// input block's along the input's unknown axis of the same rank (an
	// empty block leaves nothing for a -1 to be inferred from).
	var from []int
	for ax, n := range l.in.blockShape(src) {
		if n == Unknown {
			from = append(from, ax)
		}
	}
	return graph.Task(reshapeOp, graph.Ref(l.in.Key(src...)), graph.Lit(shape), graph.Lit(from))
}

const opReshape = "chunkarray.reshape"

func init() { register[reshapeP](opReshape) }

var reshapeOp = newOp(opReshape, reshapeP{})

// reshapeP reshapes a block. Args: the block, the new shape.
type reshapeP struct{}

func (reshapeP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opReshape)
	if err != nil {
		return nil, err
	}
	shape, err := argInts(args, 1, opReshape)
	if err != nil {
		return nil, err
	}
	if len(args) > 2 { // the input axes of the unknown lengths (block)
		from, err := argInts(args, 2, opReshape)
		if err != nil {
			return nil, err
		}
		shape = slices.Clone(shape)
		k := 0
		for i, n := range shape {
			if n == Unknown && k < len(from) && from[k] < b.NDim() {
				shape[i] = b.Shape()[from[k]]
				k++
			}
		}
	}
	return reshapeView(b, shape)
}

// Squeeze removes the given axes, which must have length 1 (none given:
// every axis of length 1), as numpy.squeeze.
func (a *Array) Squeeze(axes ...int) *Array {
	const name = "squeeze"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	drop := make([]bool, a.NDim())
	if len(axes) == 0 {
		for i, s := range a.shape {
			drop[i] = s == 1
		}
	} else {
		norm, err := nd.NormalizeAxes(name, axes, a.NDim())
		if err != nil {
			return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Reason: err.Error(), Err: err})
		}
		for _, x := range norm {
			if a.shape[x] == Unknown {
				return errArray(unknownError(name, a.shape, x))
			}
			if a.shape[x] != 1 {
				return errorf(name, [][]int{a.shape}, "cannot select axis %d, whose length is %d, not 1", x, a.shape[x])
			}
			drop[x] = true
		}
	}
	// A dropped axis chunked (1, 0) or (0, 1) goes to one chunk first:
	// output block k is input block k reshaped.
	one := slices.Clone(a.chunks)
	for i, c := range one {
		if drop[i] && len(c) > 1 {
			one[i] = []int{1}
		}
	}
	if a = a.Rechunk(one); a.err != nil {
		return a
	}
	shape, chunks := []int{}, [][]int{}
	for i, s := range a.shape {
		if !drop[i] {
			shape = append(shape, s)
			chunks = append(chunks, a.chunks[i])
		}
	}
	if len(shape) == a.NDim() {
		return a
	}
	// Named from every parameter: the input, the axes dropped and the
	// chunks. Two squeezes of one input to one shape must not share a
	// name, or one graph would bind their keys to two different tasks:
	// of a (1, 1) array chunked ((1, 0), (1)), Squeeze(0) is chunked
	// ((1)) and Squeeze(1) ((1, 0)).
	return newArray(name, shape, chunks, a.dtype, &reshapeLayer{in: a}, a.name, shape, drop, chunksToken(chunks))
}

// ExpandDims inserts axes of length 1 at the positions axes of the result
// (negative ones count from its end), as numpy.expand_dims with an int or
// a tuple: the result has a.NDim()+len(axes) axes. An axis out of range
// or given twice is an error; no axis returns a.
func (a *Array) ExpandDims(axes ...int) *Array {
	const name = "expand_dims"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if len(axes) == 0 {
		return a
	}
	n := a.NDim() + len(axes)
	norm := make([]int, len(axes))
	for i, axis := range axes {
		if axis < -n || axis >= n {
			return errorf(name, [][]int{a.shape}, "axis %d is out of bounds for %d axes", axis, n)
		}
		if axis < 0 {
			axis += n
		}
		norm[i] = axis
	}
	slices.Sort(norm)
	for i := 1; i < len(norm); i++ {
		if norm[i] == norm[i-1] {
			return errorf(name, [][]int{a.shape}, "repeated axis %d in %v", norm[i], axes)
		}
	}
	shape, chunks := slices.Clone(a.shape), slices.Clone(a.chunks)
	for _, ax := range norm { // ascending: each lands at its final place
		shape = slices.Insert(shape, ax, 1)
		chunks = slices.Insert(chunks, ax, []int{1})
	}
	// Named from the axes and the chunks too (see Squeeze).
	return newArray(name, shape, chunks, a.dtype, &reshapeLayer{in: a}, a.name, shape, norm, chunksToken(chunks))
}

// Concatenate joins arrays along an existing axis, as numpy.concatenate:
// their dtypes are promoted (nd.ResultType), their other axes must match
// and are rechunked to the union of their chunk boundaries; the chunks
// along axis are the inputs' chunks one after the other.
func Concatenate(arrays []*Array, axis int) *Array {
	const name = "concatenate"
	if len(arrays) == 0 {
		return errorf(name, nil, "need at least one array to concatenate")
	}
	shapes := make([][]int, len(arrays))
	dts := make([]nd.DType, len(arrays))
	for i, x := range arrays {
		if err := x.Err(); err != nil {
			return errArray(err)
		}
		shapes[i], dts[i] = x.shape, x.dtype
	}
	n := arrays[0].NDim()
	if n == 0 {
		return errorf(name, shapes, "zero-dimensional arrays cannot be concatenated")
	}
	if axis < -n || axis >= n {
		return errorf(name, shapes, "axis %d is out of bounds for %d axes", axis, n)
	}
	if axis < 0 {
		axis += n
	}
	for _, x := range arrays[1:] {
		if x.NDim() != n {
			return errorf(name, shapes, "all the input arrays must have the same number of dimensions")
		}
		for i := range n {
			if i != axis && (x.shape[i] == Unknown || arrays[0].shape[i] == Unknown) && !slices.Equal(x.chunks[i], arrays[0].chunks[i]) {
				return errArray(unknownError(name, x.shape, i)) // unknown.go
			}
			if i != axis && x.shape[i] != arrays[0].shape[i] {
				return errorf(name, shapes, "all the input array dimensions except for the concatenation axis must match exactly, but along dimension %d they differ", i)
			}
		}
	}
	d := nd.ResultType(dts...)
	want := make([][]int, n)
	for i := range n {
		if i == axis {
			continue
		}
		cs := make([][]int, len(arrays))
		for k, x := range arrays {
			cs[k] = x.chunks[i]
		}
		want[i] = unionChunks(cs)
	}
	ins := make([]*Array, len(arrays))
	l := &concatLayer{axis: axis}
	shape := slices.Clone(arrays[0].shape)
	shape[axis] = 0
	chunks := make([][]int, n)
	copy(chunks, want)
	toks := []any{axis, int(d)}
	for k, x := range arrays {
		if x.dtype != d {
			x = x.AsType(d)
		}
		w := slices.Clone(want)
		w[axis] = x.chunks[axis]
		x = x.Rechunk(w)
		if x.err != nil {
			return errArray(x.err)
		}
		ins[k] = x
		if shape[axis] == Unknown || x.shape[axis] == Unknown {
			shape[axis] = Unknown
		} else {
			shape[axis] += x.shape[axis]
		}
		for b := range x.chunks[axis] {
			l.src = append(l.src, [2]int{k, b})
		}
		chunks[axis] = append(chunks[axis], x.chunks[axis]...)
		toks = append(toks, x.name)
	}
	l.ins = ins
	// Empty inputs contribute their single empty chunk; drop those when
	// the result has others, as Dask does.
	if len(chunks[axis]) > 1 {
		var c []int
		var src [][2]int
		for i, x := range chunks[axis] {
			if x != 0 {
				c = append(c, x)
				src = append(src, l.src[i])
			}
		}
		if len(c) == 0 {
			c, src = []int{0}, l.src[:1]
		}
		chunks[axis], l.src = c, src
	}
	return newArray(name, shape, chunks, d, l, toks...)
}

type concatLayer struct {
	ins  []*Array
	axis int
	src  [][2]int // per output block along axis: input, its block
}

func (l *concatLayer) inputs() []*Array { return l.ins }

func (l *concatLayer) block(_ *Array, idx []int) graph.Node {
	s := l.src[idx[l.axis]]
	src := slices.Clone(idx)
	src[l.axis] = s[1]
	return graph.Alias(l.ins[s[0]].Key(src...))
}

// Stack joins arrays of the same shape along a new axis, as numpy.stack:
// each input is one chunk of length 1 along it.
func Stack(arrays []*Array, axis int) *Array {
	const name = "stack"
	if len(arrays) == 0 {
		return errorf(name, nil, "need at least one array to stack")
	}
	ex := make([]*Array, len(arrays))
	shapes := make([][]int, len(arrays))
	for i, x := range arrays {
		if err := x.Err(); err != nil {
			return errArray(err)
		}
		shapes[i] = x.shape
	}
	for _, x := range arrays[1:] {
		if !slices.Equal(x.shape, arrays[0].shape) {
			for _, y := range arrays { // sizes unknown: unknown.go's error
				if err := needKnown(name, y); err != nil {
					return errArray(err)
				}
			}
			return errorf(name, shapes, "all input arrays must have the same shape")
		}
	}
	n := arrays[0].NDim() + 1
	if axis < -n || axis >= n {
		return errorf(name, shapes, "axis %d is out of bounds for %d axes", axis, n)
	}
	for i, x := range arrays {
		ex[i] = x.ExpandDims(axis)
	}
	return Concatenate(ex, axis)
}
