// Package chunkarray is a lazy, chunked n-d array mirroring numpy and
// dask.array: an Array describes how to compute each of its blocks, and
// nothing runs until Compute.
//
// # Model
//
// An Array holds a name (a deterministic token of its op, its inputs' names
// and its parameters, as Dask's "ones-3fa1…"), a shape, its chunks (per axis,
// the list of chunk lengths: regular or irregular), a dtype, a sticky error,
// and its layer: how to make the task of each block, and pointers to the
// input Arrays. Like package delayed, an Array never copies its inputs'
// graphs: Graph walks the Arrays reachable from the ones asked for and asks
// each layer for its block tasks, in O(tasks). Block keys are
// graph.BlockKey(name, i, j, …).
//
// Every block task is a registered op (graph.RegisterOp) whose parameters
// encode, so the graphs built here run unchanged on a scheduler in another
// process; *nd.Array values cross process boundaries through the codec
// registered here (a dtype and shape header, then raw little-endian bytes;
// zero-stride constant blocks as one element).
//
// Files: FromNPY, FromZarr and FromHDF5 read a block per task (FromHDF5
// through nd/hdf5, which needs the hdf5 build tag and libhdf5); Store,
// ToNPY and ToZarr write one. ToNPYStack and FromNPYStack write and read
// Dask's stacks of .npy files (one per block along an axis, and a pickled
// info file), which Dask reads and writes too.
//
// # Operands
//
// Elementwise operations take `any` operands: an *Array, an *nd.Array, or
// a Go scalar (bool, ints, uints, floats, complex). They exist as methods
// for chaining, x.Add(1).Mul(2), and as functions for scalars on the left,
// chunkarray.Sub(1, x). A Go scalar, or a 0-d *nd.Array, follows numpy
// 1.24's value-based casting (nd.BinaryResultTypeOf): beside arrays of its
// kind or a higher one (bool < integer < float and complex) it counts as
// the smallest dtype that holds its value, so x.Add(1) keeps an int8 or
// float32 array's dtype, an int8 array + 300 is int16, a float32 array +
// 3.4e38 float64, and a uint8 array // 256 int16 (numpy's loop search for
// floor_divide, remainder and power); a scalar of a higher kind promotes
// to the kind's default (float64, complex128). numpy would pick float16
// for int8 + 1.5; there is no float16 here.
//
// A 0-d *Array operand is typed by its dtype alone, like an n-d array,
// whatever its value: the value is lazy, unknown when the result's dtype
// is decided (Dask's rule). uint16 array - (a 0-d int8 Array holding 122)
// is int32, -115 for 7, where numpy's 0-d array gives uint16 65421. Its
// blocks are computed in that declared dtype too (the fused evaluator
// never applies value-based casting to a block, only to Go scalars), so
// an Array computes the dtype it reports; Dask declares int32 here and
// then computes uint16.
//
// # Chunks
//
// Chunk specs follow Dask: an int for every axis, per-axis ints ([]int, -1
// for the whole axis), explicit per-axis lists ([][]int), or "auto" (or
// nil) for chunks of about 128 MiB, square-ish (AutoChunks). Binary
// operations broadcast as numpy and unify chunks as dask's unify_chunks:
// inputs whose chunking differs along an axis are rechunked to the union
// of their boundaries; size-1 broadcast axes need nothing.
//
// # Blockwise fusion
//
// Blockwise fusion is chunkarray's own pass, run while the graph is
// collected (Graph, BuildGraph, Compute, Persist) with optimization on,
// before the generic optimize.Optimize (Cull, Inline, Fuse) sees the
// graph: a chain of elementwise operations becomes one task per output
// block whose parameters are the fused expression (elemP, a small program
// of nd ops). The task evaluates it on tiles of a few thousand elements
// with buffers reused from tile to tile, so no intermediate block is
// materialised. An Array is fused into its consumer when it has no other
// consumer in the graph, is not itself asked for, and can be a node of an
// expression: elementwise; constant (Ones, Full, or a selection of one),
// which becomes a constant of the expression; random, generated in place;
// or a FromZarr or FromNPY block, read inside the task (a zarr chunk into
// a buffer from the run's free list, package freelist). The chunk stage of Sum, Prod, Min, Max, Any, All,
// Mean, Var and Std fuses with its input the same way (reduceFusedP): the
// input's expression is reduced tile by tile into the partial. Fused
// whole-block sums of x, x*x, x**2 or square(x) (x an input, maybe cast)
// run a one-pass kernel instead (kernels.go). Arg reductions and device
// reductions keep their input as a task of its own.
// WithOptimize(false) turns fusion off: each op is then its own task, which
// tests use as a second code path.
//
// The code: fuse_collect.go decides what fuses (inputKind, the one
// dispatch on what an Array becomes inside an expression; fusedTask, the
// one dispatch on which blocks are fused tasks, asked alike for a task's
// dependencies and for its emission) and builds the expressions and
// tasks; fuse_eval.go holds the node kinds and the evaluator that both
// fused ops decode their arguments into; broadcast.go the chunk
// unification and the broadcast views of inputs; elemwise.go the API.
//
// A read that fusion moved into another task keeps its name: when it
// fails, the task's *sched.TaskError (under the consumer's key, e.g. the
// sum's chunk) wraps a *FusedInputError with the read's op and the key its
// block has without fusion (from-npy-<token>[0,1]), which wraps the
// reader's *npy.Error or *zarr.Error naming the file; errors.Is sees
// fs.ErrNotExist through all three.
//
// # Reductions
//
// Reductions are trees, as dask's: a chunk step per block (keepdims), then
// levels that combine up to split_every blocks per reduced axis (default
// 4 in all, so 2 per axis over three axes), then an aggregate. Sum, Prod,
// Min, Max, Any and All combine their partials elementwise; Mean, Var and
// Std carry (count, mean, M2) moments merged with Chan et al.'s parallel
// formula (nd.Moments, nd.CombineMoments); ArgMin and ArgMax carry values
// and global indices (nd.ArgChunk, nd.ArgCombine); ArgReduce gives them
// keepdims. ReduceOpts.DType is numpy's dtype= (the input cast to it;
// integer means and variances in numpy's truncating integer arithmetic).
// A reduced axis's empty chunks are skipped. With the scheduler's
// depth-first order and intermediates released after their last use, a
// reduction's live memory is bounded by chunk bytes × workers × a small
// constant.
//
// Reduction is dask.array.reduction for Go functions registered by name
// (RegisterReduction): the same tree, with the partials concatenated
// along the reduced axes before each combine, and dask's output_size
// (reduction.go). TopK, ArgTopK and Percentile's sketches are built-in
// reductions of that kind; Median and NanMedian rechunk their axes whole
// and reduce each block; the NaN reductions, Ptp, CountNonzero, Average,
// Cov and Corrcoef are elementwise steps around Reduce, as numpy writes
// them (nanreduce.go, cov.go); Cumsum and Cumprod scan the blocks' totals
// sequentially or with Blelloch's parallel prefix (cumulative.go).
//
// ReduceOpts{Device: DeviceCUDA} runs the chunk step of Sum, Max and Min
// of float32/float64 arrays on a CUDA device (internal/cudaops; the cuda
// build tag), its tasks asking for the resource GPU=1 so that
// sched/distributed places them on GPU workers; without CUDA in the build
// the reduction's Err wraps cudaops.ErrNoCUDA (device.go).
//
// # Linear algebra and FFT
//
// Tensordot, Dot, Matmul and Einsum multiply the pairs (or tuples) of
// blocks that meet and add the partial products with a reduction tree
// (linalg.go, einsum.go). QR, SVD and Lstsq of tall-and-skinny arrays (one
// column of blocks) are dask's TSQR; SVDCompressed is the randomised SVD
// on top of it; Cholesky and SolveTriangular are blocked as Dask's
// (linalg_blocked.go); Solve, Inv and LU factor the whole matrix in one
// task (linalg_decomp.go). Factors come from gonum's LAPACK through
// package nd (float64 arithmetic; complex only for Inv, Solve and the
// singular values, through the real embedding). The FFTs (fft.go)
// transform each block along axes that must be one chunk, as dask's
// fft_wrap requires.
//
// # Unknown chunk sizes
//
// Some results have a length that only the data decides: x.Index(Mask(m))
// for a lazy bool m, Nonzero, Argwhere, Flatnonzero, Unique, Bincount.
// Their chunks along that axis are Unknown (-1), as Dask's NaN chunks,
// and so is the axis's entry in Shape() (and Size() and Nbytes()); the
// number of blocks is known. Elementwise operations between arrays with
// the same unknown chunks (or broadcast against length 1), reductions,
// Transpose, ExpandDims, Index with All on the unknown axes, Concatenate
// along one, Rechunk of the known axes, the products, Persist and
// Compute work; what needs the sizes (Reshape, Rechunk of an unknown
// axis, positional indexing along one, MapBlocks, Store, …) returns an
// *Error wrapping ErrUnknownChunks that says to call
// ComputeChunkSizes, which computes the blocks' shapes and returns the
// array with known chunks. Arrays whose unknown chunks look alike but
// differ when computed fail then, not before (unknown.go).
//
// # Sorting and counting
//
// Sort and ArgSort sort each block along an axis that must be one chunk;
// Unique, Bincount and the histograms reduce per-block partials in one
// task; Digitize, SearchSorted and IsIn are blockwise against a small
// sorted operand. Values compare in numpy's order, NaN last (sortu.go,
// sortu_kernels.go).
//
// # Pictures
//
// Visualize draws an Array's graph as dask.visualize(arr) does: its
// blocks are the outputs (no finalize task: that one belongs to Compute),
// and by default every operation is a task of its own (optimize_graph=
// False); viz.Options.Optimize draws what Compute runs. Tasks are labelled
// by the function they run (viz.Labeler): "ones", "random_sample",
// "arange"; "max" per block, "max-partial" for the levels of the tree,
// "max-aggregate" for its root; "truediv", or "sin-mul" for a fused
// chain (Python's operator names where there is one, numpy's ufunc names
// otherwise); "getitem", "transpose", "reshape"; "rechunk-split" and
// "rechunk-merge"; "from-zarr", "from-npy", "from-hdf5", "store". Op names, which the
// registry and encoded graphs use, are one per kind of task and do not
// say as much.
//
// # Errors
//
// Errors are sticky: an operation on incompatible shapes or dtypes returns
// an Array whose Err names the operation and the shapes
// ("chunkarray: add: shapes (3, 4) and (5,) could not be broadcast"); any
// Array built on it carries the error, and Compute returns it. Nothing
// panics on user mistakes.
//
// # Rejected alternatives
//
// A flat graph per Array (Dask before HighLevelGraph) copies every
// input's tasks into every result: quadratic for long chains. Fusing on the
// flat graph after collection (dask's optimize_blockwise on materialised
// tasks) would have to rediscover which tasks are elementwise from their
// shapes; fusing while collecting, when each layer still knows what it is,
// needs no such guess.
package chunkarray
