// Package nd holds eager n-d arrays and their kernels: the numpy that
// tessera's lazy arrays (package chunkarray) compute block by block, and
// the arrays that UDFs (package udfbridge) read and fill. It imports
// nothing of tessera; with graph it is the ground floor.
//
// # Dtypes
//
// An Array has one of numpy's dtypes: Bool, Int8…Int64, Uint8…Uint64,
// Float32, Float64, Complex64 and Complex128, each stored as a slice of its
// Go type ([]float32 for Float32, ...). float16 and the string and object
// dtypes are absent. Operations on arrays of different dtypes promote as
// numpy's result_type does (ResultType, BinaryResultType: int8 with uint8
// is int16, int64 with uint64 is float64); a result type numpy refuses is
// an error, never a silent cast. AsType converts as numpy's astype does
// (floats to integers truncate toward zero).
//
// # Shapes, views and strides
//
// An Array is a dtype, a shape, strides counted in elements, an offset and
// a backing slice. Slice, Index, Transpose, Reshape (where the layout
// allows) and BroadcastTo return views that share the backing slice; a
// broadcast axis has stride zero, so a constant array of any shape holds
// one element (Full of a shape, broadcast). Copy and Contiguous return
// arrays of their own in C order. Arrays are treated as immutable once
// built: nothing in this package writes into an array it did not make,
// except the functions below that name a dst.
//
// # dst: results written in place
//
// Functions with an argument named dst write their result into it; dst
// must already have the result's shape and dtype (each function's doc says
// what else it accepts): BinaryInto, UnaryInto, ReduceInto, AsTypeInto,
// Assign and FillBytesInto. They let a caller reuse one buffer
// from task to task (chunkarray's fused tasks, udfbridge's tiles and
// buffers) instead of allocating a result each time. The functions without
// dst (Binary, Unary, Reduce, Matmul, ...) leave their inputs unchanged and
// return new arrays.
//
// # Kernels
//
// Elementwise ops run typed loops chosen once per call by dtype (Go's way
// of monomorphising generic kernels), over contiguous runs of the operands
// where their strides allow. Reductions follow numpy where results can
// differ: sums of floats are pairwise, so that a chunked sum and numpy's
// agree to the last bits where numpy's would; NaN propagates through Max
// and Min as in numpy. Matmul, Dot and Tensordot of floats go through
// gonum's BLAS; Einsum is one loop over every label (einsum.go); QR,
// SVD, LU, Inv, Solve and Cholesky are gonum's LAPACK in float64
// (decomp.go); FFTN is gonum's FFTPACK along one axis at a time (fft.go).
//
// # Errors
//
// Bad input is an error naming the operation and the shapes or dtypes
// (*ShapeError, *InvalidArrayError, ...), never a panic: a mismatched
// shape, an axis out of range, an unknown op name. A nil or zero Array is
// an *InvalidArrayError wherever an array is expected.
//
// # Printing
//
// An Array prints as numpy prints it: String is numpy's repr
// ("array([1. , 2.5])", with dtype= where numpy shows it), and the %v verb
// gives numpy's str ("[1.  2.5]"); arrays of more than 1000 elements are
// summarised with "..." as numpy does.
//
// # Files
//
// FromBytes, AppendBytes, ReadRaw and WriteRaw move arrays to and from raw
// little- or big-endian bytes in C or Fortran order. Package nd/npy reads
// and writes numpy's .npy files and package nd/zarr zarr v2 and v3 stores,
// both shared with numpy and zarr-python.
package nd
