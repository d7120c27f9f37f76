package chunkarray

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// User functions over whole axes: ApplyGufunc (dask.array.apply_gufunc)
// and ApplyAlongAxis (dask.array.apply_along_axis), and ToDelayed, an
// array's blocks as delayed values. The functions are registered block
// functions (RegisterBlockFunc), named in the tasks, so that the graphs
// run on a scheduler in another process as MapBlocks' do.

// Signature is a parsed generalized-ufunc signature: the core dimension
// names of each input and of the output.
type Signature struct {
	In  [][]string
	Out []string
}

// ParseSignature parses a numpy generalized-ufunc signature such as
// "(i,j),(j,k)->(i,k)" or "(i),(i)->()". Only one output is supported
// here, and no "?" or fixed-size dimensions.
func ParseSignature(sig string) (Signature, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: "apply_gufunc", Reason: fmt.Sprintf("signature %q: ", sig) + fmt.Sprintf(format, args...)}
	}
	s := strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, sig)
	ins, out, ok := strings.Cut(s, "->")
	if !ok {
		return Signature{}, bad("no \"->\"")
	}
	groups := func(part string) ([][]string, error) {
		var gs [][]string
		for part != "" {
			if part[0] != '(' {
				return nil, bad("want \"(\" at %q", part)
			}
			end := strings.IndexByte(part, ')')
			if end < 0 {
				return nil, bad("unclosed \"(\"")
			}
			var dims []string
			if body := part[1:end]; body != "" {
				for _, d := range strings.Split(body, ",") {
					if d == "" || !validDimName(d) {
						return nil, bad("bad dimension name %q", d)
					}
					if slices.Contains(dims, d) {
						return nil, bad("dimension %q twice in one argument", d)
					}
					dims = append(dims, d)
				}
			}
			gs = append(gs, dims)
			part = part[end+1:]
			if part != "" {
				if part[0] != ',' {
					return nil, bad("want \",\" at %q", part)
				}
				part = part[1:]
				if part == "" {
					return nil, bad("trailing \",\"")
				}
			}
		}
		return gs, nil
	}
	in, err := groups(ins)
	if err != nil {
		return Signature{}, err
	}
	o, err := groups(out)
	if err != nil {
		return Signature{}, err
	}
	if len(o) != 1 {
		return Signature{}, bad("%d outputs: only one output is supported", len(o))
	}
	return Signature{In: in, Out: o[0]}, nil
}

func validDimName(d string) bool {
	for i, r := range d {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// GufuncOpts are apply_gufunc's options.
type GufuncOpts struct {
	// DType of the output; nd.Invalid: the first input's.
	DType nd.DType
	// OutputSizes gives the length of each output core dimension that no
	// input has (dask's output_sizes).
	OutputSizes map[string]int
	// AllowRechunk rechunks core dimensions that have several chunks to
	// one; without it they are an error, as in Dask.
	AllowRechunk bool
	// Vectorize calls the function once per position of the loop
	// dimensions, with each input's core array there (numpy.vectorize
	// with signature=, dask's vectorize=True), instead of once per block:
	// it then returns the output's core array, and BlockInfo.Index is the
	// position.
	Vectorize bool
}

// ApplyGufunc applies the registered block function fn, a generalized
// ufunc of signature sig, to args, as dask.array.apply_gufunc with
// vectorize=False: each input's trailing axes are its core dimensions,
// the leading ones loop dimensions, broadcast together as numpy (aligned
// on the right) and chunked as an elementwise operation's. Core
// dimensions must be one chunk (see GufuncOpts.AllowRechunk). fn is
// called once per block of the loop dimensions with the inputs' blocks,
// loop axes first, and must return the output block: the block's loop
// shape (broadcast) followed by the output core dimensions; with
// o.Vectorize it is called once per loop position instead (see
// GufuncOpts). Only one output is supported.
func ApplyGufunc(fn, sig string, o GufuncOpts, args ...*Array) *Array {
	const name = "apply_gufunc"
	s, err := ParseSignature(sig)
	if err != nil {
		return errArray(err)
	}
	if len(s.In) != len(args) {
		return errorf(name, nil, "%s: signature %q has %d inputs, got %d arrays", fn, sig, len(s.In), len(args))
	}
	shapes := make([][]int, len(args))
	for i, a := range args {
		if err := a.Err(); err != nil {
			return errArray(err)
		}
		shapes[i] = a.shape
	}
	size := map[string]int{}
	loop := 0
	var names []string // core dimension names, first appearance order
	for i, a := range args {
		core := s.In[i]
		if a.NDim() < len(core) {
			return errorf(name, shapes, "%s: input %d has %d axes, fewer than its core dimensions %v", fn, i, a.NDim(), core)
		}
		loop = max(loop, a.NDim()-len(core))
		for j, d := range core {
			n := a.shape[a.NDim()-len(core)+j]
			if m, ok := size[d]; ok && m != n {
				return errorf(name, shapes, "%s: core dimension %q has lengths %d and %d", fn, d, m, n)
			}
			if _, ok := size[d]; !ok {
				names = append(names, d)
			}
			size[d] = n
		}
	}
	for _, d := range s.Out {
		if _, ok := size[d]; !ok {
			n, ok := o.OutputSizes[d]
			if !ok || n < 0 {
				return errorf(name, shapes, "%s: output core dimension %q is in no input: give its length in OutputSizes", fn, d)
			}
			names = append(names, d)
		}
	}
	if loop+len(names) > len(blockLetters) {
		return errorf(name, shapes, "%s: %d dimensions", fn, loop+len(names))
	}
	letter := map[string]byte{}
	for i, d := range names {
		letter[d] = blockLetters[loop+i]
	}
	bargs := make([]BlockArg, len(args))
	for i, a := range args {
		core := s.In[i]
		nl := a.NDim() - len(core)
		ind := []byte(blockLetters[loop-nl : loop])
		ch := make([]any, a.NDim())
		rechunk := false
		for j := range ch {
			ch[j] = a.chunks[j]
			if j >= nl && len(a.chunks[j]) > 1 {
				if !o.AllowRechunk {
					return errorf(name, shapes, "%s: core dimension %q of input %d has %d chunks: rechunk it to one or set AllowRechunk", fn, core[j-nl], i, len(a.chunks[j]))
				}
				ch[j], rechunk = -1, true
			}
		}
		if rechunk {
			a = a.Rechunk(ch)
		}
		for _, d := range core {
			ind = append(ind, letter[d])
		}
		bargs[i] = In(a, string(ind))
	}
	out := []byte(blockLetters[:loop])
	bo := BlockOpts{DType: o.DType, Chunks: make([][]int, loop+len(s.Out))}
	outCore := make([]int, len(s.Out))
	for k, d := range s.Out {
		out = append(out, letter[d])
		outCore[k] = size[d]
		if n, ok := o.OutputSizes[d]; ok && !gufuncInputDim(s, d) {
			bo.Chunks[loop+k] = []int{n}
			outCore[k] = n
		}
	}
	r := Blockwise(fn, string(out), bo, bargs...)
	if r.err != nil || !o.Vectorize {
		return r
	}
	bl := r.lay.(*blockwiseLayer)
	core := make([]int, len(s.In))
	for i, c := range s.In {
		core[i] = len(c)
	}
	p := gufuncVecP{Fn: fn, Loop: loop, Core: core, OutCore: outCore, D: r.dtype, Shape: r.shape}
	l := &blockwiseLayer{fn: fn, ins: bl.ins, maps: bl.maps, op: newOp(opGufuncVec, p)}
	return newArray(fn, r.shape, r.chunks, r.dtype, l, r.name, "vectorize")
}

const opGufuncVec = "chunkarray.apply_gufunc"

func init() { register[gufuncVecP](opGufuncVec) }

// gufuncVecP calls a registered function once per loop position of an
// output block (ApplyGufunc with Vectorize). Args: the block geometry
// (blockGeo), the input blocks.
type gufuncVecP struct {
	Fn      string   `json:"fn"`
	Loop    int      `json:"loop"`     // the output's loop axes
	Core    []int    `json:"core"`     // each input's core axes
	OutCore []int    `json:"out_core"` // the output's core shape
	D       nd.DType `json:"dtype"`
	Shape   []int    `json:"shape"` // the output's
}

func (p gufuncVecP) Label() string { return p.Fn }

func (p gufuncVecP) requires() []string { return []string{requireBlockFunc + p.Fn} }

func (p gufuncVecP) run(_ context.Context, args []any) (any, error) {
	f, ok := lookupBlockFunc(p.Fn)
	if !ok {
		return nil, fmt.Errorf("%s: block function %q is not registered in this process", opGufuncVec, p.Fn)
	}
	geo, err := argInts(args, 0, opGufuncVec)
	if err != nil {
		return nil, err
	}
	if len(args)-1 != len(p.Core) || len(geo) != 3*(p.Loop+len(p.OutCore)) {
		return nil, fmt.Errorf("%s: %d inputs and geometry %v for %d loop and %d core axes", opGufuncVec, len(args)-1, geo, p.Loop, len(p.OutCore))
	}
	blocks := make([]*nd.Array, len(args)-1)
	for i, v := range args[1:] {
		if blocks[i], err = argArray(v, opGufuncVec); err != nil {
			return nil, err
		}
		if blocks[i].NDim() < p.Core[i] || blocks[i].NDim()-p.Core[i] > p.Loop {
			return nil, fmt.Errorf("%s: input %d block of shape %v for %d core axes", opGufuncVec, i, blocks[i].Shape(), p.Core[i])
		}
	}
	info := infoOf(geo, p.Shape)
	oshape := make([]int, len(info.Location))
	for i, l := range info.Location {
		oshape[i] = l[1] - l[0]
	}
	out, err := nd.Zeros(p.D, oshape...)
	if err != nil {
		return nil, err
	}
	views := make([]*nd.Array, len(blocks))
	global := make([]int, p.Loop)
	var failed error
	forBlocks(oshape[:p.Loop], func(idx []int) {
		if failed != nil {
			return
		}
		for k := range global {
			global[k] = info.Location[k][0] + idx[k]
		}
		for i, b := range blocks {
			v := b
			nl := b.NDim() - p.Core[i]
			for j := nl - 1; j >= 0 && failed == nil; j-- {
				pos := idx[p.Loop-nl+j]
				if b.Shape()[j] == 1 {
					pos = 0 // broadcast
				}
				v, failed = v.Index(j, pos)
			}
			views[i] = v
		}
		if failed != nil {
			return
		}
		res, err := f(BlockInfo{Index: slices.Clone(global), Shape: p.Shape}, views...)
		if err != nil {
			failed = fmt.Errorf("%s: position %v: %w", p.Fn, global, err)
			return
		}
		if res == nil || !slices.Equal(res.Shape(), p.OutCore) || res.DType() != p.D {
			got := "nil"
			if res != nil {
				got = fmt.Sprintf("shape %v of %s", res.Shape(), res.DType())
			}
			failed = &Error{Op: "apply_gufunc", Reason: fmt.Sprintf("%s: position %v: promised shape %v of %s, function returned %s", p.Fn, global, p.OutCore, p.D, got)}
			return
		}
		dst := out
		for k := p.Loop - 1; k >= 0 && failed == nil; k-- {
			dst, failed = dst.Index(k, idx[k])
		}
		if failed == nil {
			failed = nd.Assign(dst, res)
		}
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

func gufuncInputDim(s Signature, d string) bool {
	for _, in := range s.In {
		if slices.Contains(in, d) {
			return true
		}
	}
	return false
}

// AlongOpts describe ApplyAlongAxis' function's result: its dtype and
// shape (Shape []int{} for a scalar, nil to find out). When either is
// unknown the function is called once while the array is built, on ones
// of the axis's length.
type AlongOpts struct {
	DType nd.DType
	Shape []int
}

// ApplyAlongAxis applies the registered block function fn to every 1-d
// slice of a along axis, as numpy.apply_along_axis and
// dask.array.apply_along_axis: the axis is rechunked to one chunk, and
// within each block fn is called on each slice with BlockInfo.Index the
// slice's position (its index on every other axis) and BlockInfo.Shape
// the output's shape. fn returns an array of the same dtype and shape for
// every slice; the result's axis is replaced by that shape. Dask calls
// the function on a one-element array to learn its result; here the
// probe has the axis's length.
func ApplyAlongAxis(fn string, axis int, a *Array, o AlongOpts) *Array {
	const name = "apply_along_axis"
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	f, ok := lookupBlockFunc(fn)
	if !ok {
		return errorf(name, nil, "block function %q is not registered (RegisterBlockFunc)", fn)
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	d, fshape := o.DType, o.Shape
	if d == nd.Invalid || fshape == nil {
		probe, err := nd.Full(a.dtype, 1, a.shape[ax])
		if err == nil {
			probe, err = callProbe(f, probe)
		}
		if err != nil {
			return errArray(&Error{Op: name, Reason: fmt.Sprintf("%s: probing the function: %v", fn, err), Err: err})
		}
		if d == nd.Invalid {
			d = probe.DType()
		}
		if fshape == nil {
			fshape = slices.Clone(probe.Shape())
		}
	}
	ch := make([]any, a.NDim())
	for i := range ch {
		ch[i] = a.chunks[i]
	}
	ch[ax] = -1
	x := a.Rechunk(ch)
	if x.err != nil {
		return x
	}
	shape := slices.Concat(a.shape[:ax], fshape, a.shape[ax+1:])
	chunks := slices.Concat(x.chunks[:ax], make([][]int, len(fshape)), x.chunks[ax+1:])
	for i, s := range fshape {
		chunks[ax+i] = []int{s}
	}
	p := alongP{Fn: fn, Axis: ax, D: d, FShape: fshape, Shape: shape}
	l := &alongLayer{in: x, axis: ax, k: len(fshape), op: newOp(opAlong, p)}
	return newArray(name, shape, chunks, d, l, x.name, fn, ax, int(d), fshape)
}

// callProbe calls f on probe, turning a panic into an error.
func callProbe(f BlockFunc, probe *nd.Array) (out *nd.Array, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	out, err = f(BlockInfo{Index: []int{}, Shape: probe.Shape()}, probe)
	if err == nil && out == nil {
		err = fmt.Errorf("function returned nil")
	}
	return out, err
}

// alongLayer: output block idx from input block idx (the axis whole),
// with the block's start for BlockInfo.
type alongLayer struct {
	in      *Array
	axis, k int // the axis, replaced in the output by k axes of one block
	op      graph.Op
}

func (l *alongLayer) inputs() []*Array { return []*Array{l.in} }

func (l *alongLayer) block(_ *Array, idx []int) graph.Node {
	src := slices.Concat(idx[:l.axis], []int{0}, idx[l.axis+l.k:])
	return graph.Task(l.op, graph.Ref(l.in.Key(src...)), graph.Lit(l.in.blockStart(src)))
}

const opAlong = "chunkarray.apply_along_axis"

func init() { register[alongP](opAlong) }

// alongP calls a registered function on every 1-d slice of a block along
// Axis. Args: the block, its start in the input.
type alongP struct {
	Fn     string   `json:"fn"`
	Axis   int      `json:"axis"`
	D      nd.DType `json:"dtype"`
	FShape []int    `json:"fshape"`
	Shape  []int    `json:"shape"`
}

func (p alongP) Label() string { return "apply_along_axis-" + p.Fn }

func (p alongP) requires() []string { return []string{requireBlockFunc + p.Fn} }

func (p alongP) run(_ context.Context, args []any) (any, error) {
	f, ok := lookupBlockFunc(p.Fn)
	if !ok {
		return nil, fmt.Errorf("%s: block function %q is not registered in this process", opAlong, p.Fn)
	}
	b, err := argArray(args[0], opAlong)
	if err != nil {
		return nil, err
	}
	start, err := argInts(args, 1, opAlong)
	if err != nil {
		return nil, err
	}
	n := b.NDim()
	if p.Axis < 0 || p.Axis >= n || len(start) != n {
		return nil, fmt.Errorf("%s: axis %d for a block of shape %v", opAlong, p.Axis, b.Shape())
	}
	other := slices.Concat(b.Shape()[:p.Axis], b.Shape()[p.Axis+1:])
	oshape := slices.Concat(b.Shape()[:p.Axis], p.FShape, b.Shape()[p.Axis+1:])
	out, err := nd.Zeros(p.D, oshape...)
	if err != nil {
		return nil, err
	}
	k := len(p.FShape)
	pos := make([]int, len(other))
	global := make([]int, len(other))
	var failed error
	forBlocks(other, func(idx []int) {
		if failed != nil {
			return
		}
		copy(pos, idx)
		for i := range pos {
			s := start[i]
			if i >= p.Axis {
				s = start[i+1]
			}
			global[i] = s + pos[i]
		}
		failed = p.apply(f, b, out, pos, global, k)
	})
	if failed != nil {
		return nil, failed
	}
	return out, nil
}

// apply calls f on the slice of b at pos (its index on the other axes)
// and writes the result into out.
func (p alongP) apply(f BlockFunc, b, out *nd.Array, pos, global []int, k int) error {
	line, dst := b, out
	var err error
	for i := len(pos) - 1; i >= 0; i-- {
		ia, io := i, i // the axis of b and of out that pos[i] indexes
		if i >= p.Axis {
			ia, io = i+1, i+k
		}
		if line, err = line.Index(ia, pos[i]); err != nil {
			return err
		}
		if dst, err = dst.Index(io, pos[i]); err != nil {
			return err
		}
	}
	res, err := f(BlockInfo{Index: slices.Clone(global), Shape: p.Shape}, line)
	if err != nil {
		return fmt.Errorf("%s: slice %v: %w", p.Fn, global, err)
	}
	if res == nil || !slices.Equal(res.Shape(), p.FShape) || res.DType() != p.D {
		got := "nil"
		if res != nil {
			got = fmt.Sprintf("shape %v of %s", res.Shape(), res.DType())
		}
		return &Error{Op: "apply_along_axis", Reason: fmt.Sprintf("%s: slice %v: promised shape %v of %s, function returned %s", p.Fn, global, p.FShape, p.D, got)}
	}
	return nd.Assign(dst, res)
}

// ToDelayed returns a's blocks as delayed values, in C order of their
// block indices (a.NumBlocks() gives the grid), as
// dask.array.Array.to_delayed: each is the block's key in a's graph
// (fused unless WithOptimize(false)), which every value shares.
// FromDelayed is the inverse for one block.
func (a *Array) ToDelayed(opts ...Option) ([]delayed.Delayed[*nd.Array], error) {
	if err := a.Err(); err != nil {
		return nil, err
	}
	g, err := a.Graph(opts...)
	if err != nil {
		return nil, err
	}
	keys := a.Keys()
	out := make([]delayed.Delayed[*nd.Array], len(keys))
	for i, k := range keys {
		out[i] = delayed.FromGraph[*nd.Array](g, k)
	}
	return out, nil
}
