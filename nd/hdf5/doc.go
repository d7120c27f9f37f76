// Package hdf5 reads numeric datasets of HDF5 files through the HDF5 C
// library (libhdf5, via cgo), behind the build tag hdf5:
//
//	go build -tags hdf5 ./...   # needs libhdf5-dev and pkg-config (hdf5-serial)
//
// Without the tag (or without cgo) the package builds all the same, and
// Open fails with an *Error wrapping ErrNotBuilt; Enabled says which build
// this is.
//
// # Model
//
// Open opens one dataset of one file read-only and reads what describes
// it: Shape, DType, BigEndian (the file's byte order), Layout (contiguous,
// chunked, compact) and, when chunked, Chunks and Filters. ReadRegion
// reads a region (start and count per axis) into the caller's buffer with
// one hyperslab read (H5Dread), HDF5 converting the stored byte order to
// the host's on the way; ReadInto and Read are the same into an nd.Array.
// Nothing is read element by element across cgo, and no Go pointer is kept
// by C beyond the call that receives it.
//
// Element types: integers of 1, 2, 4 and 8 bytes, signed or not; floats of
// 4 and 8 bytes; complex numbers as h5py stores them (a compound of two
// packed floats of one size; the member names are taken from the file, so
// h5py's "r"/"i" and other names alike); bools as h5py stores them (an
// int8 enum FALSE = 0, TRUE = 1). Others (strings, references, float16,
// other compounds and enums) are refused with ErrUnsupported.
//
// A chunked dataset is opened with a chunk cache of four chunks (from
// HDF5's default 1 MiB up to 128 MiB), so that tiles smaller than a chunk
// read one after the other decompress it once, not once per tile.
//
// # Errors
//
// HDF5's automatic printing of its error stack to stderr is turned off;
// the stack of a failed call is returned instead, as the Stack of an
// *Error that names the operation, the file and the dataset. Err is a
// sentinel when one applies: ErrNotFound (no object of that name),
// ErrUnsupported, ErrClosed, ErrNotBuilt, or the os error of a missing
// file.
//
// # Concurrency
//
// A Dataset's methods are safe for concurrent use. Every HDF5 call holds
// one package-level lock: Debian's serial libhdf5 is built thread-safe,
// which means one global lock inside the library, and other builds are not
// thread-safe at all, so calls could not run in parallel either way. The
// lock is the package's one piece of mutable state, with the C buffer that
// carries a failed call's error records back to Go under it.
//
// Each operation (open, read, close) is one cgo call that turns off the
// printing, clears the stack, calls HDF5 and walks the stack: in a
// thread-safe build both are per thread, and a goroutine may move between
// threads from one cgo call to the next, so a separate call to walk the
// stack could find another thread's (empty) stack.
//
// # Corrupt files
//
// libhdf5 (1.10, Debian's) is not robust against corrupt files: a fuzz
// run of Open and a whole read over copies of a 6 KB h5py file with one to
// four random bytes changed found files that crash the process (SIGSEGV
// inside H5Dread; two in a few runs of 20,000 cases), and h5py crashes on
// the same files. Open
// refuses the first such corruption found (chunks larger than a fixed
// dimension, or of 0 or over 4 GiB) before anything is read, but a crash
// inside the C library cannot be recovered in Go: read only files you
// trust, or read untrusted ones in a worker process of their own. For the
// same reason there is no fuzz test here: it would fuzz libhdf5.
//
// Rejected: a pure-Go reader of the HDF5 format. The format (superblock
// versions, B-trees v1 and v2, fractal heaps, filter pipelines, virtual
// datasets) is large, and the C library is what every writer is tested
// against.
package hdf5
