package chunkarray

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// BlockFunc computes one output block from the corresponding input blocks
// (MapBlocks, Blockwise, MapOverlap). It must not modify its inputs.
type BlockFunc func(info BlockInfo, blocks ...*nd.Array) (*nd.Array, error)

// BlockInfo tells a BlockFunc where its block is (dask's block_info).
type BlockInfo struct {
	// Index is the block's index in the output's block grid.
	Index []int
	// Location is, per axis, the [start, stop) of the block passed to
	// the function, in the array's coordinates. For MapOverlap it covers
	// the ghost cells, and may reach below 0 or beyond the shape at the
	// array's edges. Along an axis whose chunk sizes are unknown (see
	// Unknown) it is [Unknown, Unknown], and the function's block may
	// have any length there.
	Location [][2]int
	// Shape is the output array's shape.
	Shape []int
}

// blockFuncs is the registry of block functions, by name. Like
// graph.RegisterOp it is process-wide: a worker rebuilds a task from the
// function's name alone, so the function must be registered under the
// same name in every process (in an init function, as gob.Register).
var blockFuncs = struct {
	sync.RWMutex
	m map[string]BlockFunc
}{m: map[string]BlockFunc{}}

// RegisterBlockFunc records fn under name for MapBlocks, Blockwise and
// MapOverlap. Registering the same function again under its name is a
// no-op; another function under a taken name, or an empty name, is an
// error.
func RegisterBlockFunc(name string, fn BlockFunc) error {
	if name == "" || fn == nil {
		return fmt.Errorf("chunkarray: register block function %q: empty name or nil function", name)
	}
	blockFuncs.Lock()
	defer blockFuncs.Unlock()
	if old, ok := blockFuncs.m[name]; ok {
		if reflect.ValueOf(old).Pointer() == reflect.ValueOf(fn).Pointer() {
			return nil
		}
		return fmt.Errorf("chunkarray: register block function %q: name taken by another function", name)
	}
	blockFuncs.m[name] = fn
	graph.RegisterRequirement(requireBlockFunc + name)
	return nil
}

func lookupBlockFunc(name string) (BlockFunc, bool) {
	blockFuncs.RLock()
	defer blockFuncs.RUnlock()
	fn, ok := blockFuncs.m[name]
	return fn, ok
}

// BlockOpts describe the output of MapBlocks, Blockwise and MapOverlap.
type BlockOpts struct {
	// DType of the output; the zero value means the first input's.
	DType nd.DType
	// Chunks of the output, one list per axis with as many chunks as the
	// block grid has along it; nil means the inputs' (unified) chunks,
	// and so does a nil list for one axis.
	Chunks [][]int
	// DropAxis (MapBlocks only) lists the axes of the inputs' aligned
	// frame (the input with the most axes; negative from its end) that
	// the function removes, dask's drop_axis: every input is rechunked to
	// one chunk along them, so that the function sees them whole.
	DropAxis []int
	// NewAxis (MapBlocks only) lists the positions in the output of the
	// axes the function adds, dask's new_axis (after DropAxis). A new
	// axis has one chunk, of length 1 unless Chunks says otherwise.
	NewAxis []int
}

// BlockArg is one input of Blockwise: an array and the index letters of
// its axes.
type BlockArg struct {
	X   *Array
	Ind string
}

// In pairs x with the index letters of its axes for Blockwise.
func In(x *Array, ind string) BlockArg { return BlockArg{X: x, Ind: ind} }

// Blockwise applies the registered function fn to aligned blocks, with
// dask's index notation: Blockwise("f", "ij", o, In(x, "ij"), In(y, "j"))
// calls f on block (i, j) of x and block j of y for output block (i, j).
// Chunks along one letter are unified across inputs (union of the
// boundaries); an axis of length 1 meets every block of the others
// (broadcast). An output letter in no input is a new axis of one chunk,
// of length 1 unless o.Chunks gives it; an input letter missing from the
// output (a contraction) must have one chunk in every input, which the
// function receives whole (dask's concatenate=True, after a rechunk).
func Blockwise(fn string, outInd string, o BlockOpts, args ...BlockArg) *Array {
	const name = "blockwise"
	if len(args) == 0 {
		return errorf(name, nil, "%s: no inputs", fn)
	}
	if _, ok := lookupBlockFunc(fn); !ok {
		return errorf(name, nil, "block function %q is not registered (RegisterBlockFunc)", fn)
	}
	shapes := make([][]int, len(args))
	for i, a := range args {
		if err := a.X.Err(); err != nil {
			return errArray(err)
		}
		shapes[i] = a.X.shape
		if len(a.Ind) != a.X.NDim() {
			return errorf(name, shapes, "%s: index %q for an array of %d axes", fn, a.Ind, a.X.NDim())
		}
		for j, r := range a.Ind {
			if !strings.ContainsRune(outInd, r) && len(a.X.chunks[j]) != 1 {
				return errorf(name, shapes, "%s: index %q of an input is not in the output %q and has %d chunks: a contracted axis must be one chunk (rechunk it)", fn, r, outInd, len(a.X.chunks[j]))
			}
		}
	}
	n := len(outInd)
	shape := make([]int, n)
	chunks := make([][]int, n)
	for k, r := range []rune(outInd) {
		length := -2 // none yet (Unknown is -1)
		var cs [][]int
		for _, a := range args {
			j := strings.IndexRune(a.Ind, r)
			if j < 0 {
				continue
			}
			s := a.X.shape[j]
			if s == 1 {
				continue
			}
			if (s == Unknown || length == Unknown) && length != -2 && len(cs) > 0 && !slices.Equal(cs[0], a.X.chunks[j]) {
				// unknown.go: blocks meet one to one only with the same chunks
				return errArray(unknownError(name, a.X.shape, j))
			}
			if length >= 0 && s != length {
				return errorf(name, shapes, "%s: index %q has lengths %d and %d", fn, r, length, s)
			}
			length = s
			cs = append(cs, a.X.chunks[j])
		}
		if length == -2 { // every input has length 1 there (or none uses it)
			length = 1
			cs = [][]int{{1}}
			found := false
			for _, a := range args {
				if strings.ContainsRune(a.Ind, r) {
					found = true
				}
			}
			if !found { // a new axis: one chunk, its length from o.Chunks
				if o.Chunks != nil && k < len(o.Chunks) && o.Chunks[k] != nil {
					if len(o.Chunks[k]) != 1 {
						return errorf(name, shapes, "%s: new axis %d (index %q) must be one chunk, got chunks %v", fn, k, r, o.Chunks[k])
					}
					length, cs = o.Chunks[k][0], [][]int{o.Chunks[k]}
				}
			}
		}
		shape[k], chunks[k] = length, unionChunks(cs)
	}
	d := args[0].X.dtype
	if o.DType != nd.Invalid {
		d = o.DType
	}
	l := &blockwiseLayer{fn: fn}
	toks := []any{fn, outInd, int(d)}
	for _, a := range args {
		want := slices.Clone(a.X.chunks)
		var m []int
		for j, r := range a.Ind {
			k := strings.IndexRune(outInd, r)
			if k < 0 { // contracted: its one chunk
				m = append(m, -1)
				continue
			}
			if a.X.shape[j] == 1 && shape[k] != 1 {
				m = append(m, -1)
				want[j] = []int{1} // its one block, not an empty one beside it
				continue
			}
			m = append(m, k)
			want[j] = chunks[k]
		}
		x := a.X.Rechunk(want)
		if x.err != nil {
			return errArray(x.err)
		}
		l.ins = append(l.ins, x)
		l.maps = append(l.maps, m)
		toks = append(toks, x.name, a.Ind)
	}
	if o.Chunks != nil {
		if len(o.Chunks) != n {
			return errorf(name, shapes, "%s: %d output chunk lists for %d axes", fn, len(o.Chunks), n)
		}
		for k := range o.Chunks {
			if o.Chunks[k] != nil && len(o.Chunks[k]) != len(chunks[k]) {
				return errorf(name, shapes, "%s: output chunks %v on axis %d for a grid of %d blocks", fn, o.Chunks[k], k, len(chunks[k]))
			}
		}
		for k, c := range o.Chunks {
			if c == nil {
				continue
			}
			chunks[k] = slices.Clone(c)
			shape[k] = axisLen(c)
		}
	}
	toks = append(toks, chunksToken(chunks))
	l.op = newOp(opBlock, blockP{Fn: fn, D: d, Shape: shape})
	return newArray(fn, shape, chunks, d, l, toks...)
}

// MapBlocks applies the registered function fn to the corresponding
// blocks of arrays (dask's map_blocks): arrays are aligned on their last
// axes and their chunks unified as Blockwise does; the output has the
// dimensions of the input with the most, less o.DropAxis, plus
// o.NewAxis.
func MapBlocks(fn string, o BlockOpts, arrays ...*Array) *Array {
	const name = "map_blocks"
	n := 0
	for _, a := range arrays {
		if err := a.Err(); err != nil {
			return errArray(err)
		}
		n = max(n, a.NDim())
	}
	if n+len(o.NewAxis) > len(blockLetters) {
		return errorf(name, nil, "%s: %d axes", fn, n+len(o.NewAxis))
	}
	in := blockLetters[:n]
	drop := make([]bool, n)
	if len(o.DropAxis) > 0 {
		d, err := nd.NormalizeAxes(name, o.DropAxis, n)
		if err != nil {
			return errArray(&Error{Op: name, Reason: fmt.Sprintf("%s: drop_axis: %v", fn, err), Err: err})
		}
		for _, x := range d {
			drop[x] = true
		}
	}
	args := make([]BlockArg, len(arrays))
	for i, a := range arrays {
		if len(o.DropAxis) > 0 {
			ch := make([]any, a.NDim())
			for j := range ch {
				if drop[n-a.NDim()+j] {
					ch[j] = -1
				} else {
					ch[j] = a.chunks[j]
				}
			}
			if a = a.Rechunk(ch); a.err != nil {
				return a
			}
		}
		args[i] = In(a, in[n-a.NDim():])
	}
	var out []byte
	for i := range n {
		if !drop[i] {
			out = append(out, in[i])
		}
	}
	if len(o.NewAxis) > 0 {
		m := len(out) + len(o.NewAxis)
		pos, err := nd.NormalizeAxes(name, o.NewAxis, m)
		if err != nil {
			return errArray(&Error{Op: name, Reason: fmt.Sprintf("%s: new_axis: %v", fn, err), Err: err})
		}
		slices.Sort(pos)
		for k, p := range pos {
			out = slices.Insert(out, p, blockLetters[n+k])
		}
	}
	return Blockwise(fn, string(out), o, args...)
}

// blockLetters name the axes of MapBlocks' and ApplyGufunc's Blockwise
// calls.
const blockLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

type blockwiseLayer struct {
	fn   string
	ins  []*Array
	maps [][]int  // per input axis: the output axis, -1 broadcast (block 0)
	op   graph.Op // blockP, or gufuncVecP for ApplyGufunc's Vectorize
}

func (l *blockwiseLayer) inputs() []*Array { return l.ins }

func (l *blockwiseLayer) block(a *Array, idx []int) graph.Node {
	args := make([]graph.Arg, 0, len(l.ins)+1)
	args = append(args, graph.Lit(blockGeo(a, idx)))
	for i, x := range l.ins {
		src := make([]int, x.NDim())
		for j, k := range l.maps[i] {
			if k >= 0 {
				src[j] = idx[k]
			}
		}
		args = append(args, graph.Ref(x.Key(src...)))
	}
	return graph.Task(l.op, args...)
}

// blockGeo encodes a block's index and location: per axis index, start,
// stop; start and stop are Unknown along an axis whose chunks up to the
// block's are not all known (unknown.go).
func blockGeo(a *Array, idx []int) []int {
	st := a.blockStart(idx)
	geo := make([]int, 0, 3*len(idx))
	for i, b := range idx {
		if slices.Contains(a.chunks[i][:b+1], Unknown) {
			geo = append(geo, b, Unknown, Unknown)
			continue
		}
		geo = append(geo, b, st[i], st[i]+a.chunks[i][b])
	}
	return geo
}

func infoOf(geo, shape []int) BlockInfo {
	n := len(geo) / 3
	info := BlockInfo{Index: make([]int, n), Location: make([][2]int, n), Shape: shape}
	for i := range n {
		info.Index[i] = geo[3*i]
		info.Location[i] = [2]int{geo[3*i+1], geo[3*i+2]}
	}
	return info
}

const opBlock = "chunkarray.block"

func init() { register[blockP](opBlock) }

// blockP calls a registered block function. Args: the block geometry
// (blockGeo), the input blocks.
type blockP struct {
	Fn    string   `json:"fn"`
	D     nd.DType `json:"dtype"`
	Shape []int    `json:"shape"`
}

func (p blockP) requires() []string { return []string{requireBlockFunc + p.Fn} }

func (p blockP) run(_ context.Context, args []any) (any, error) {
	fn, ok := lookupBlockFunc(p.Fn)
	if !ok {
		return nil, fmt.Errorf("%s: block function %q is not registered in this process", opBlock, p.Fn)
	}
	geo, err := argInts(args, 0, opBlock)
	if err != nil {
		return nil, err
	}
	blocks := make([]*nd.Array, len(args)-1)
	for i, v := range args[1:] {
		if blocks[i], err = argArray(v, opBlock); err != nil {
			return nil, err
		}
	}
	info := infoOf(geo, p.Shape)
	out, err := fn(info, blocks...)
	if err != nil {
		return nil, fmt.Errorf("%s: block %v: %w", p.Fn, info.Index, err)
	}
	return checkBlock(p.Fn, info, out, p.D)
}

// checkBlock checks that a block function kept its promise of shape and
// dtype.
func checkBlock(fn string, info BlockInfo, out *nd.Array, d nd.DType) (*nd.Array, error) {
	want := make([]int, len(info.Location))
	for i, l := range info.Location {
		want[i] = l[1] - l[0]
	}
	if out == nil {
		return nil, &Error{Op: fn, Reason: fmt.Sprintf("block %v: function returned nil", info.Index)}
	}
	if out.NDim() == len(want) {
		for i, l := range info.Location {
			if l[0] == Unknown { // unknown.go: any length
				want[i] = out.Shape()[i]
			}
		}
	}
	if !slices.Equal(out.Shape(), want) || out.DType() != d {
		return nil, &Error{Op: fn, Shapes: [][]int{want, out.Shape()},
			Reason: fmt.Sprintf("block %v: promised shape %v of %s, function returned shape %v of %s", info.Index, want, d, out.Shape(), out.DType())}
	}
	return out, nil
}
