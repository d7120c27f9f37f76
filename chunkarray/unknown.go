package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Unknown chunk sizes (Dask's NaN chunks). An operation whose output
// length depends on the data (boolean indexing by a lazy mask, Nonzero,
// Unique, Bincount) cannot know its chunks until it runs. Such a chunk
// is recorded as Unknown (-1) in Chunks(), and an axis with any unknown
// chunk has length Unknown in Shape(); Size and Nbytes are Unknown too.
// The number of blocks is always known.
//
// What works on them: Compute and Persist (the result's shape is what
// the blocks turn out to be), elementwise operations between arrays
// whose unknown axes have the same chunks (or broadcast against length
// 1), reductions (Sum, Mean, Min, … over any axes; ArgMin/ArgMax along
// known axes), Transpose, ExpandDims, Index with All on the unknown axes
// (anything on the known ones), Concatenate along an unknown axis,
// Rechunk of the known axes, Tensordot, Dot and Matmul (an unknown axis
// kept, or contracted against the same chunks), MapBlocks and Blockwise
// (BlockInfo.Location is Unknown there), the counting functions of
// sortu.go, and ComputeChunkSizes. Everything that needs the sizes
// (Reshape, Rechunk of an unknown axis, positional Index, Take and
// Compress along one, Squeeze of one, MapOverlap, Store, ToNPY and
// ToZarr, ComputeBlockInto, Flatnonzero) returns an *Error
// wrapping ErrUnknownChunks that names the operation and says to call
// ComputeChunkSizes.

// Unknown is the length reported in Shape and Chunks for a chunk whose
// size is known only once it is computed (Dask's NaN).
const Unknown = -1

// ErrUnknownChunks is wrapped by the error of an operation that needs
// chunk sizes an Array does not know yet (see ComputeChunkSizes).
var ErrUnknownChunks = errors.New("chunk sizes are unknown")

// Known reports whether every chunk size of a is known (a nil Array's
// are).
func (a *Array) Known() bool { return a.unknownAxis() < 0 }

// unknownAxis returns the first axis with an unknown chunk, or -1.
func (a *Array) unknownAxis() int {
	if a == nil {
		return -1
	}
	for ax, c := range a.chunks {
		if slices.Contains(c, Unknown) {
			return ax
		}
	}
	return -1
}

// unknownError is the error of op on an array whose chunk sizes along
// axis are unknown.
func unknownError(op string, shape []int, axis int) error {
	return &Error{Op: op, Shapes: [][]int{shape}, Err: ErrUnknownChunks,
		Reason: fmt.Sprintf("chunk sizes are unknown along axis %d; %s needs them: call ComputeChunkSizes first (Dask's compute_chunk_sizes)", axis, op)}
}

// needKnown returns unknownError for op when a has an unknown chunk, and
// nil otherwise.
func needKnown(op string, a *Array) error {
	if ax := a.unknownAxis(); ax >= 0 {
		return unknownError(op, a.shape, ax)
	}
	return nil
}

// axisLen is the length of an axis chunked as c: Unknown when a chunk is.
func axisLen(c []int) int {
	if slices.Contains(c, Unknown) {
		return Unknown
	}
	return sum(c)
}

// ComputeChunkSizes computes a's blocks to learn their shapes and returns
// an Array with the same values and known chunks (Dask's
// Array.compute_chunk_sizes, which changes the array in place; here the
// input is left as it is). The result is lazy again: its blocks are a's
// blocks, computed once more when the result is (Persist first to
// compute them once). An array whose chunks are known is returned as is.
func (a *Array) ComputeChunkSizes(ctx context.Context, opts ...Option) (*Array, error) {
	const name = "compute_chunk_sizes"
	if err := a.Err(); err != nil {
		return nil, err
	}
	if a.Known() {
		return a, nil
	}
	c := newConfig(opts)
	g, err := buildGraph([]*Array{a}, c.Optimize)
	if err != nil {
		return nil, err
	}
	keys := a.Keys()
	shapeKeys := make([]graph.Key, len(keys))
	so := newOp(opSortu, sortuP{Kind: kShapeOf})
	for i, k := range keys {
		shapeKeys[i] = graph.Key("chunk-shape-" + string(k))
		if err := g.Set(shapeKeys[i], graph.Task(so, graph.Ref(k))); err != nil {
			return nil, err
		}
	}
	vals, err := c.Run(ctx, g, shapeKeys)
	if err != nil {
		return nil, err
	}
	nb := a.NumBlocks()
	chunks := make([][]int, len(nb))
	for ax := range chunks {
		chunks[ax] = slices.Clone(a.chunks[ax])
	}
	i := 0
	forBlocks(nb, func(idx []int) {
		sh, _ := vals[i].([]int)
		i++
		if err != nil {
			return
		}
		if len(sh) != len(idx) {
			err = &Error{Op: name, Reason: fmt.Sprintf("block %v has %d axes, want %d", idx, len(sh), len(idx))}
			return
		}
		for ax, b := range idx {
			switch chunks[ax][b] {
			case Unknown:
				chunks[ax][b] = sh[ax]
			case sh[ax]:
			default:
				err = &Error{Op: name, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("blocks of chunk %d along axis %d have lengths %d and %d", b, ax, chunks[ax][b], sh[ax])}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	shape := make([]int, len(chunks))
	for ax, c := range chunks {
		shape[ax] = sum(c)
	}
	return newArray(name, shape, chunks, a.dtype, &aliasLayer{in: a}, a.name, chunksToken(chunks)), nil
}

// aliasLayer's blocks are its input's blocks (ComputeChunkSizes).
type aliasLayer struct{ in *Array }

func (l *aliasLayer) inputs() []*Array { return []*Array{l.in} }

func (l *aliasLayer) block(_ *Array, idx []int) graph.Node { return graph.Alias(l.in.Key(idx...)) }

// resolveUnknown returns shape with its Unknown entries replaced by the
// lengths of the blocks bs (aligned to the right, broadcasting): along
// such an axis, the length of the blocks whose length there is not 1
// (they must agree), or 1. shape itself is returned when it has no
// Unknown entry. Two arrays with Unknown chunks look alike when they are
// built (their chunks are all Unknown) and may turn out to differ: that
// is an error here, when they run, as in Dask.
func resolveUnknown(opName string, shape []int, bs []*nd.Array) ([]int, error) {
	if !slices.Contains(shape, Unknown) {
		return shape, nil
	}
	out := slices.Clone(shape)
	n := len(out)
	for ax, s := range out {
		if s != Unknown {
			continue
		}
		out[ax] = 1
		for _, b := range bs {
			j := ax - (n - b.NDim())
			if j < 0 || b.Shape()[j] == 1 {
				continue
			}
			if out[ax] != 1 && out[ax] != b.Shape()[j] {
				return nil, fmt.Errorf("%s: blocks of unknown lengths %d and %d along axis %d could not be broadcast (their arrays' chunk sizes were unknown, and differ)", opName, out[ax], b.Shape()[j], ax)
			}
			out[ax] = b.Shape()[j]
		}
	}
	return out, nil
}

// broadcastUnknown is the broadcast of operand shapes of which some have
// Unknown axes: an unknown axis broadcasts against length 1 and matches
// another unknown axis with the same chunks; against a known length
// other than 1 it is unknownError. ok is false when no shape has an
// unknown axis (then nd.BroadcastShapes decides).
func broadcastUnknown(opName string, ops []operand) (shape []int, ok bool, err error) {
	n := 0
	any := false
	for _, o := range ops {
		if o.arr != nil {
			n = max(n, o.arr.NDim())
			if !o.arr.Known() {
				any = true
			}
		}
	}
	if !any {
		return nil, false, nil
	}
	shape = make([]int, n)
	for ax := range shape {
		shape[ax] = 1
		var uc []int // the chunks of an unknown operand axis
		for _, o := range ops {
			a := o.arr
			if a == nil {
				continue
			}
			j := ax - (n - a.NDim())
			if j < 0 {
				continue
			}
			s := a.shape[j]
			switch {
			case s == 1:
			case s == Unknown && uc == nil:
				uc = a.chunks[j]
			case s == Unknown && !slices.Equal(uc, a.chunks[j]):
				return nil, true, unknownError(opName, a.shape, j)
			case s == Unknown:
			case shape[ax] == 1:
				shape[ax] = s
			case shape[ax] != s:
				return nil, true, &Error{Op: opName, Reason: "shapes could not be broadcast"}
			}
		}
		if uc != nil {
			if shape[ax] != 1 {
				return nil, true, unknownError(opName, []int{Unknown, shape[ax]}, ax)
			}
			shape[ax] = Unknown
		}
	}
	return shape, true, nil
}
