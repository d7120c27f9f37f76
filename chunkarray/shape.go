package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/chunkarray/nd"
	"github.com/tessera-go/tessera/graph"
)

// Reshape returns a with a new shape holding the same elements in C order;
// one dimension may be -1 (inferred). It follows dask.array.reshape: axes
// may only be merged or split whole ((6, 5, 4) to (30, 4) or (3, 2, 5, 4),
// not to (4, 5, 6)). The input is first rechunked so that every input
// block maps to exactly one output block (merged trailing axes taken
// whole, the leading one cut finer; a split axis's chunks rounded to
// multiples of the trailing output axes), then each block is reshaped on
// its own. An array of one block is reshaped in one task.
func (a *Array) Reshape(shape ...int) *Array {
	const name = "reshape"
	if a.err != nil {
		return a
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
// and output blocks correspond one to one in C order of block index. It
// implements the rules of Dask's reshape_rechunk.
func reshapeRechunk(in, out []int, inChunks [][]int) ([][]int, [][]int, error) {
	ri := make([][]int, len(in))
	ro := make([][]int, len(out))
	ii, oi := len(in)-1, len(out)-1
	errUneven := fmt.Errorf("only merging or splitting whole axes is supported")
	for ii >= 0 || oi >= 0 {
		switch {
		case ii >= 0 && oi >= 0 && in[ii] == out[oi]:
			ri[ii], ro[oi] = inChunks[ii], inChunks[ii]
			ii--
			oi--
		case ii >= 0 && in[ii] == 1:
			ri[ii] = []int{1}
			ii--
		case oi >= 0 && out[oi] == 1:
			ro[oi] = []int{1}
			oi--
		case ii < 0 || oi < 0:
			return nil, nil, errUneven
		case in[ii] < out[oi]: // merge in[left..ii] into out[oi]
			left := ii - 1
			for left >= 0 && prod(in[left:ii+1]) < out[oi] {
				left--
			}
			if left < 0 || prod(in[left:ii+1]) != out[oi] {
				return nil, nil, errUneven
			}
			// When every axis before ii is chunked by one, blocks only
			// move: no rechunking.
			byOne := true
			for i := 0; i < ii; i++ {
				if len(inChunks[i]) != in[i] {
					byOne = false
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
			} else {
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
			oi--
			ii = left - 1
		default: // split in[ii] into out[left..oi]
			left := oi - 1
			for left >= 0 && prod(out[left:oi+1]) < in[ii] {
				left--
			}
			if left < 0 || prod(out[left:oi+1]) != in[ii] {
				return nil, nil, errUneven
			}
			cs := prod(out[left+1 : oi+1])
			ri[ii] = contractChunks(inChunks[ii], cs)
			for i := left + 1; i <= oi; i++ {
				ro[i] = []int{out[i]}
			}
			ro[left] = make([]int, len(ri[ii]))
			for k, c := range ri[ii] {
				ro[left][k] = c / cs
			}
			oi = left - 1
			ii--
		}
	}
	return ri, ro, nil
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
	return graph.Task(reshapeOp, graph.Ref(l.in.Key(src...)), graph.Lit(a.blockShape(idx)))
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
	return reshapeView(b, shape)
}

// Squeeze removes the given axes, which must have length 1 (none given:
// every axis of length 1), as numpy.squeeze.
func (a *Array) Squeeze(axes ...int) *Array {
	const name = "squeeze"
	if a.err != nil {
		return a
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
			if a.shape[x] != 1 {
				return errorf(name, [][]int{a.shape}, "cannot select axis %d, whose length is %d, not 1", x, a.shape[x])
			}
			drop[x] = true
		}
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
	return newArray(name, shape, chunks, a.dtype, &reshapeLayer{in: a}, a.name, shape)
}

// ExpandDims inserts an axis of length 1 at position axis of the result
// (negative counts from the end), as numpy.expand_dims.
func (a *Array) ExpandDims(axis int) *Array {
	const name = "expand_dims"
	if a.err != nil {
		return a
	}
	n := a.NDim() + 1
	if axis < -n || axis >= n {
		return errorf(name, [][]int{a.shape}, "axis %d is out of bounds for %d axes", axis, n)
	}
	if axis < 0 {
		axis += n
	}
	shape := slices.Insert(slices.Clone(a.shape), axis, 1)
	chunks := slices.Insert(slices.Clone(a.chunks), axis, []int{1})
	return newArray(name, shape, chunks, a.dtype, &reshapeLayer{in: a}, a.name, shape)
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
		shape[axis] += x.shape[axis]
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
			if x > 0 {
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
