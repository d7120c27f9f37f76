package chunkarray

import (
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"slices"
	"sync/atomic"
)

// Specialised kernels for the commonest fused reductions: the sum over a
// whole block of x, x*x, x**2 or square(x), where x is an input block,
// optionally cast first (x.AsType(int64).Pow(2).Sum() is dask_bench.py's
// zarr workload). The generic fused path evaluates each node of the
// expression into a tile buffer and then reduces the tile: three passes
// over memory and a few dozen small allocations per tile. A kernel reads
// the input once, converts, squares and adds in registers with four
// independent accumulators so that the loop pipelines.
//
// Integer results are exact (wrapping two's complement arithmetic, as
// numpy's, is associative). Float blocks are summed in runs of
// sumRunElems with four accumulators and the runs' sums added in float64:
// a different association from numpy's pairwise sum, at least as
// accurate.

// sumRunElems is the length of the runs whose float sums are added in
// float64.
const sumRunElems = 4096

// sumPattern is what fastSum recognised in a fused expression.
type sumPattern struct {
	in  *nd.Array // the input block
	e   nd.DType  // the dtype of the expression (after any cast)
	sq  bool      // square before adding
	out nd.DType  // the partial's dtype: ReduceResultType(Sum, e)
}

// matchSum recognises sum(x), sum(x*x), sum(x**2) and sum(square(x)) with
// x an input or file (zarr, npy) node, possibly cast, whose block has the
// output block's shape.
func (ev *evaluator) matchSum() (sumPattern, bool) {
	nodes := ev.p.Nodes
	i := len(nodes) - 1
	var pt sumPattern
	n := nodes[i]
	switch {
	case n.K == kBin && nd.BinaryOp(n.Op) == nd.Mul && n.A == n.B:
		pt.sq, i = true, int(n.A)
	case n.K == kBin && nd.BinaryOp(n.Op) == nd.Pow && nodes[n.B].K == kConst && isTwo(ev.consts[n.B]):
		pt.sq, i = true, int(n.A)
	case n.K == kUn && nd.UnaryOp(n.Op) == nd.Square:
		pt.sq, i = true, int(n.A)
	}
	if i < 0 || i >= len(nodes) {
		return pt, false
	}
	x := nodes[i]
	cast := nd.Invalid
	if x.K == kCast {
		cast = x.D
		if i = int(x.A); i < 0 || i >= len(nodes) {
			return pt, false
		}
		x = nodes[i]
	}
	switch x.K {
	case kIn:
		pt.in = ev.ins[x.A]
	case kZarr, kNPY:
		pt.in = ev.files[x.A]
	default:
		return pt, false
	}
	if pt.in == nil || !slices.Equal(pt.in.Shape(), ev.shape) || !realDType(pt.in.DType()) {
		return pt, false
	}
	pt.e = pt.in.DType()
	if cast != nd.Invalid {
		// Float to integer casts of out-of-range values differ between
		// Go and numpy; leave them (and bool, complex) to the generic path.
		if !realDType(cast) || isFloatDType(pt.in.DType()) && !isFloatDType(cast) {
			return pt, false
		}
		pt.e = cast
	}
	if pt.sq && n.K == kBin && nd.BinaryOp(n.Op) == nd.Pow {
		probe, err := nd.Zeros(pt.e, 1)
		if err != nil {
			return pt, false
		}
		if d, err := nd.BinaryResultTypeOf(nd.Pow, probe, ev.consts[n.B]); err != nil || d != pt.e {
			return pt, false
		}
	}
	pt.out = nd.ReduceResultType(nd.Sum, pt.e)
	return pt, true
}

func realDType(d nd.DType) bool {
	switch d {
	case nd.Int8, nd.Int16, nd.Int32, nd.Int64, nd.Uint8, nd.Uint16, nd.Uint32, nd.Uint64, nd.Float32, nd.Float64:
		return true
	}
	return false
}

func isFloatDType(d nd.DType) bool { return d == nd.Float32 || d == nd.Float64 }

// isTwo reports whether the 0-d constant c is the number 2.
func isTwo(c *nd.Array) bool {
	if c == nil || c.Size() != 1 {
		return false
	}
	v, err := c.At()
	if err != nil {
		return false
	}
	switch x := v.(type) {
	case int8:
		return x == 2
	case int16:
		return x == 2
	case int32:
		return x == 2
	case int64:
		return x == 2
	case uint8:
		return x == 2
	case uint16:
		return x == 2
	case uint32:
		return x == 2
	case uint64:
		return x == 2
	case float32:
		return x == 2
	case float64:
		return x == 2
	}
	return false
}

// streamedChunks counts the chunks streamSum summed (for tests).
var streamedChunks atomic.Int64

// streamPieceBytes is the piece streamSum reads a chunk in: small enough
// to stay in a core's cache between the read and the sum, large enough
// that the read calls cost little (measured on the zarr workload's 4 MB
// chunks: 256 KiB to 1 MiB pieces took about 20% less CPU than reading
// the chunk whole, 64 KiB no better than whole).
const streamPieceBytes = 512 << 10

// streamSum is fastSum for sum(int64(x)**2) (or x*x, square) of one
// deferred zarr chunk x of int32, the expression's only input: the chunk
// is read in cache-sized pieces and each summed as it arrives
// (zarr.StreamChunk) instead of being read whole into memory and summed
// from there. Integer sums are exact, so the result is the same bits as
// the whole-chunk kernel's. ok is false, with nothing read, where the
// block is not such a sum or the chunk cannot be streamed.
func (ev *evaluator) streamSum(rp reduceP, shape []int) (r *nd.Array, ok bool, err error) {
	if rp.Op != nd.Sum || len(ev.pending) != 1 || len(ev.ins) > 0 || len(ev.rands) > 0 || size(shape) == 0 {
		return nil, false, nil
	}
	accShape := make([]int, len(shape))
	for i := range accShape {
		accShape[i] = shape[i]
	}
	for _, ax := range rp.Axes {
		if ax < 0 || ax >= len(shape) {
			return nil, false, nil
		}
		accShape[ax] = 1
	}
	if size(accShape) != 1 {
		return nil, false, nil
	}
	pr := ev.pending[0]
	z, err := pr.n.h.open(pr.n.F)
	if err != nil {
		return nil, false, nil // readPending reports it
	}
	if z.DType() != nd.Int32 {
		return nil, false, nil
	}
	// matchSum looks at the leaf's dtype and shape only: a one-element
	// stand-in broadcast to the block's shape.
	one, err := nd.Zeros(nd.Int32, 1)
	if err != nil {
		return nil, false, err
	}
	stand, err := one.BroadcastTo(shape...)
	if err != nil {
		return nil, false, nil
	}
	ev.files[pr.n.A] = stand
	pt, match := ev.matchSum()
	ev.files[pr.n.A] = nil
	if !match || !pt.sq || pt.e != nd.Int64 {
		return nil, false, nil
	}
	b := ev.tb.bytes(streamPieceBytes)
	view, err := nd.ViewBytes(nd.Int32, b, streamPieceBytes/4)
	if err != nil {
		return nil, false, err
	}
	x, err := nd.Values[int32](view)
	if err != nil {
		return nil, false, err
	}
	var acc int64
	streamed, err := z.StreamChunk(pr.ints, b, func(p []byte) error {
		acc += sumSqInt32(x[:len(p)/4])
		return nil
	})
	if err != nil {
		return nil, false, &FusedInputError{Op: opZarrRead, Key: graph.BlockKey(pr.n.N, pr.ints...), Err: err}
	}
	if !streamed {
		return nil, false, nil
	}
	streamedChunks.Add(1)
	return sumResult(acc, accShape)
}

// fastSum computes the partial of a whole-block sum with a kernel when
// the expression is one matchSum recognises; ok is false otherwise.
func (ev *evaluator) fastSum(accShape []int) (r *nd.Array, ok bool, err error) {
	pt, ok := ev.matchSum()
	if !ok {
		return nil, false, nil
	}
	defer func() {
		if ok && r.DType() != pt.out {
			r, ok, err = nil, false, nil
		}
	}()
	if pt.sq && pt.in.DType() == nd.Int32 && pt.e == nd.Int64 {
		// x.AsType(int64)**2 over int32 (dask_bench.py's zarr workload):
		// a vector kernel where the CPU has one (sumsq_amd64.s).
		return sumResult(sumSqInt32Block(pt.in), accShape)
	}
	switch pt.in.DType() {
	case nd.Int8:
		return sumFrom[int8](pt, accShape)
	case nd.Int16:
		return sumFrom[int16](pt, accShape)
	case nd.Int32:
		return sumFrom[int32](pt, accShape)
	case nd.Int64:
		return sumFrom[int64](pt, accShape)
	case nd.Uint8:
		return sumFrom[uint8](pt, accShape)
	case nd.Uint16:
		return sumFrom[uint16](pt, accShape)
	case nd.Uint32:
		return sumFrom[uint32](pt, accShape)
	case nd.Uint64:
		return sumFrom[uint64](pt, accShape)
	case nd.Float32:
		return sumFrom[float32](pt, accShape)
	case nd.Float64:
		return sumFrom[float64](pt, accShape)
	}
	return nil, false, nil
}

func sumFrom[T nd.Real](pt sumPattern, accShape []int) (*nd.Array, bool, error) {
	switch pt.e {
	case nd.Int8:
		return sumResult(sumBlock[T, int8, int64](pt), accShape)
	case nd.Int16:
		return sumResult(sumBlock[T, int16, int64](pt), accShape)
	case nd.Int32:
		return sumResult(sumBlock[T, int32, int64](pt), accShape)
	case nd.Int64:
		return sumResult(sumBlock[T, int64, int64](pt), accShape)
	case nd.Uint8:
		return sumResult(sumBlock[T, uint8, uint64](pt), accShape)
	case nd.Uint16:
		return sumResult(sumBlock[T, uint16, uint64](pt), accShape)
	case nd.Uint32:
		return sumResult(sumBlock[T, uint32, uint64](pt), accShape)
	case nd.Uint64:
		return sumResult(sumBlock[T, uint64, uint64](pt), accShape)
	case nd.Float32:
		return sumResult(sumBlock[T, float32, float32](pt), accShape)
	case nd.Float64:
		return sumResult(sumBlock[T, float64, float64](pt), accShape)
	}
	return nil, false, nil
}

func sumResult[A nd.Real](v A, accShape []int) (*nd.Array, bool, error) {
	r, err := nd.FromSlice([]A{v}, accShape...)
	return r, err == nil, err
}

// sumBlock sums E(x) or E(x)*E(x) over pt.in into A.
func sumBlock[T, E, A nd.Real](pt sumPattern) A {
	data, _ := pt.in.Data().([]T)
	float := isFloatDType(pt.out)
	var ti A
	var tf float64
	nd.ForEachOffset(pt.in.Shape(), pt.in.Strides(), pt.in.Offset(), func(off, n, step int) {
		if step != 1 {
			var b A
			for k := range n {
				e := E(data[off+k*step])
				if pt.sq {
					e *= e
				}
				b += A(e)
			}
			if float {
				tf += float64(b)
			} else {
				ti += b
			}
			return
		}
		x := data[off : off+n]
		for len(x) > 0 {
			k := min(len(x), sumRunElems)
			var b A
			if pt.sq {
				b = sumSqRun[T, E, A](x[:k])
			} else {
				b = sumRun[T, E, A](x[:k])
			}
			if float {
				tf += float64(b)
			} else {
				ti += b
			}
			x = x[k:]
		}
	})
	if float {
		return A(tf)
	}
	return ti
}

func sumRun[T, E, A nd.Real](x []T) A {
	var a0, a1, a2, a3 A
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c := x[i : i+4 : i+4]
		a0 += A(E(c[0]))
		a1 += A(E(c[1]))
		a2 += A(E(c[2]))
		a3 += A(E(c[3]))
	}
	for ; i < len(x); i++ {
		a0 += A(E(x[i]))
	}
	return (a0 + a1) + (a2 + a3)
}

func sumSqRun[T, E, A nd.Real](x []T) A {
	var a0, a1, a2, a3 A
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c := x[i : i+4 : i+4]
		e0, e1, e2, e3 := E(c[0]), E(c[1]), E(c[2]), E(c[3])
		a0 += A(e0 * e0)
		a1 += A(e1 * e1)
		a2 += A(e2 * e2)
		a3 += A(e3 * e3)
	}
	for ; i < len(x); i++ {
		e := E(x[i])
		a0 += A(e * e)
	}
	return (a0 + a1) + (a2 + a3)
}

// sumSqInt32Block is sumBlock[int32, int64, int64] with squares, through
// sumSqInt32 for the contiguous runs.
func sumSqInt32Block(in *nd.Array) int64 {
	data, _ := in.Data().([]int32)
	var t int64
	nd.ForEachOffset(in.Shape(), in.Strides(), in.Offset(), func(off, n, step int) {
		if step == 1 {
			t += sumSqInt32(data[off : off+n])
			return
		}
		for k := range n {
			v := int64(data[off+k*step])
			t += v * v
		}
	})
	return t
}
