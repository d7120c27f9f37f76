// Package npy reads and writes numpy's .npy files: one n-d array per file,
// a small text header then the raw element bytes.
//
// # Format
//
// A file starts with the magic string "\x93NUMPY", a version (major,
// minor), the length of the header (2 bytes little-endian in version 1.0,
// 4 bytes in 2.0 and 3.0) and the header itself: a Python dict literal
// such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
//
// padded with spaces and a final '\n' so that the data starts at a
// multiple of 64 bytes. The data follows: Size elements of descr, in C
// order or, when fortran_order is True, in Fortran order.
//
// # What is supported
//
// Reading: versions 1.0, 2.0 and 3.0 (3.0 differs from 2.0 only in allowing
// UTF-8 in the header, which no supported descr uses); every nd dtype
// (bool, int8-64, uint8-64, float32/64, complex64/128) in little- or
// big-endian byte order (big-endian data is swapped on read); C and Fortran
// order. Fortran-order data read whole is returned with Fortran strides
// rather than rearranged, as numpy does (call Contiguous for C order);
// ReadRange and ReadRowsInto return C order.
//
// Writing: little-endian, C order or Fortran order on request, version 1.0
// (2.0 when the header does not fit 65535 bytes). The header is byte for
// byte what numpy 1.24's np.save writes, including the 21 spaces of room
// numpy leaves for the growing axis; TestWriteMatchesNumpy holds Write to
// that.
//
// Streaming: OpenFile reads the header only; File.ReadRange reads a range
// of entries along axis 0 with ReadAt, so that a chunked reader can load
// one block of rows at a time, and File.ReadRowsInto reads a range of
// rows over any number of leading axes (a detector's frames) into memory
// the caller gives, in C order. In a Fortran-order file such rows are
// spread over the whole file (the first axis varies fastest): they are
// read in large contiguous pieces and transposed in memory (rows.go), so
// that each read passes over the file once rather than making a syscall
// per few bytes. Whole-file reads (Read, ReadFile) read the data straight
// into the array's memory with no intermediate buffer.
//
// # Speed
//
// On this 2-core machine (page cache, 100 MB float64; go test -bench
// File100MB ./nd/npy): ReadFile 2.8 GB/s, WriteFile 1.35 GB/s. A
// contiguous array is written from its own memory in one call and read
// straight into the new array's memory; only streams of unknown length
// over 1 MiB are read in growing pieces (so that a header claiming
// terabytes cannot allocate them).
//
// # What is refused, and why
//
// Strings ('<U5', '|S3'), objects ('O', which numpy stores pickled),
// float16 ('<f2'), datetimes and structured dtypes (a list as descr) are
// refused with an error wrapping *nd.DTypeError: tessera's arrays cannot
// hold them, and reading pickles would run arbitrary code. Headers over
// 1 MiB are refused so that a corrupt length cannot exhaust memory.
// Sizes computed from the header are checked before anything is
// allocated: more than 64 axes, a shape whose non-zero dimensions times
// the item size overflow int64 (numpy's rule, so (0, 2**62, 2**62) is
// refused although it holds no element), and data offset + n·itemsize
// beyond the file's size are errors naming the file; TestBadFilesRefused
// holds each failed read to under 2 MiB of allocation.
//
// # Errors
//
// Every failure is an *Error naming the file (when there is one) and the
// reason: bad magic, truncated header, bad header dict, unsupported
// version or dtype, data shorter than the shape. Causes are wrapped:
// errors.Is(err, io.ErrUnexpectedEOF) holds for short files.
//
// The header parser reads only the subset of Python literal syntax that
// headers use (strings, True/False, tuples of integers); a general Python
// literal parser was rejected because anything beyond that subset
// describes a dtype tessera refuses anyway. FuzzParseHeader and FuzzRead
// check that no input panics and that what parses round-trips.
package npy
