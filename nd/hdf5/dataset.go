package hdf5

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/nd"
)

// ErrNotBuilt is the cause of every Open error in a build without HDF5
// support (no hdf5 build tag, or cgo disabled).
var ErrNotBuilt = errors.New("built without HDF5 support: build with -tags hdf5 and libhdf5-dev")

// ErrUnsupported is the cause of an Open error for a dataset whose
// element type or dataspace has no nd equivalent (strings, references,
// float16, enums other than h5py's bool, a null dataspace).
var ErrUnsupported = errors.New("unsupported")

// ErrNotFound is the cause of an Open error when the file has no object
// of the dataset's name.
var ErrNotFound = errors.New("no such dataset")

// ErrClosed is the cause of a read of a closed Dataset.
var ErrClosed = errors.New("dataset is closed")

// Error is an error of an HDF5 operation: Op is "open", "read" or
// "close", Path and Dataset name the file and the dataset, Reason says
// which step failed, Stack holds HDF5's error stack (the API function
// first, its deepest cause last) and Err a sentinel (ErrNotBuilt,
// ErrUnsupported, ErrNotFound, ErrClosed) or an os error, when there is
// one.
type Error struct {
	Op      string
	Path    string
	Dataset string
	Reason  string
	Stack   []Frame
	Err     error
}

// Frame is one record of HDF5's error stack.
type Frame struct {
	Func  string // the library function that pushed it
	Major string // HDF5's major message ("Dataset", "File accessibility")
	Minor string // HDF5's minor message ("Object not found")
	Desc  string // the description ("unable to open file: name = ...")
}

func (f Frame) String() string {
	return f.Func + ": " + f.Major + ": " + f.Minor + ": " + f.Desc
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("hdf5: ")
	b.WriteString(e.Op)
	b.WriteString(" ")
	b.WriteString(e.Path)
	if e.Dataset != "" {
		b.WriteString(" dataset ")
		b.WriteString(e.Dataset)
	}
	if e.Reason != "" {
		b.WriteString(": ")
		b.WriteString(e.Reason)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	// The API function's record says what was asked, the deepest one
	// why it failed; the records between repeat the story.
	switch n := len(e.Stack); {
	case n == 1:
		b.WriteString(" (HDF5: " + e.Stack[0].String() + ")")
	case n > 1:
		b.WriteString(" (HDF5: " + e.Stack[0].String() + "; ... " + e.Stack[n-1].String() + ")")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Layout is a dataset's storage layout.
type Layout int

const (
	Compact Layout = iota
	Contiguous
	Chunked
	Virtual
)

func (l Layout) String() string {
	switch l {
	case Compact:
		return "compact"
	case Contiguous:
		return "contiguous"
	case Chunked:
		return "chunked"
	case Virtual:
		return "virtual"
	}
	return fmt.Sprintf("Layout(%d)", int(l))
}

// maxRank is HDF5's H5S_MAX_RANK.
const maxRank = 32

// Dataset is one open HDF5 dataset. Its methods are safe for concurrent
// use; HDF5 calls are serialised (see the package doc).
type Dataset struct {
	path, name string
	shape      []int
	dt         nd.DType
	bigEndian  bool
	layout     Layout
	chunks     []int    // nil unless Chunked
	filters    []string // the filter pipeline's names, in order
	mu         sync.Mutex
	h          *handle // nil once closed
}

// Path returns the file's path and Name the dataset's name, as given to
// Open.
func (d *Dataset) Path() string { return d.path }
func (d *Dataset) Name() string { return d.name }

// Shape returns the dataset's dimensions (empty for a scalar).
func (d *Dataset) Shape() []int { return append([]int(nil), d.shape...) }

// DType returns the element type as read: HDF5 converts the stored byte
// order to the host's, so BigEndian only describes the file.
func (d *Dataset) DType() nd.DType { return d.dt }

// BigEndian reports whether the file stores the elements big-endian.
func (d *Dataset) BigEndian() bool { return d.bigEndian }

// Layout returns the storage layout.
func (d *Dataset) Layout() Layout { return d.layout }

// Chunks returns the chunk shape of a chunked dataset, nil otherwise.
func (d *Dataset) Chunks() []int { return append([]int(nil), d.chunks...) }

// Filters returns the names of the filters of the dataset's pipeline
// ("deflate", "shuffle", ...), in order; none for a dataset stored as is.
func (d *Dataset) Filters() []string { return append([]string(nil), d.filters...) }

func (d *Dataset) String() string { return "hdf5 file " + d.path + " dataset " + d.name }

func (d *Dataset) fail(op, reason string, err error) error {
	return &Error{Op: op, Path: d.path, Dataset: d.name, Reason: reason, Err: err}
}

// Open opens the dataset name (an HDF5 path, "/entry/data") of the HDF5
// file at path, read-only, and reads its shape, type and layout. Errors
// are *Error naming both.
func Open(path, name string) (*Dataset, error) {
	return open(path, name)
}

// ReadRegion reads the region start/count (one entry per axis) of the
// dataset into dst, in C order and in the host's byte order (which HDF5
// converts to): dst must hold exactly count's elements. The read is one
// HDF5 hyperslab read into dst; dst is not kept after the call.
func (d *Dataset) ReadRegion(dst []byte, start, count []int) error {
	n, err := d.checkRegion(start, count)
	if err != nil {
		return err
	}
	if n != int64(len(dst)) {
		return d.fail("read", fmt.Sprintf("buffer of %d bytes for region start %v count %v of %d bytes", len(dst), start, count, n), nil)
	}
	if n == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.h == nil {
		return d.fail("read", fmt.Sprintf("region start %v count %v", start, count), ErrClosed)
	}
	return d.h.read(d, dst, start, count)
}

// ReadInto reads the region of dst's shape starting at start into dst,
// which must be C-contiguous and of the dataset's dtype.
func (d *Dataset) ReadInto(dst *nd.Array, start []int) error {
	if dst == nil || dst.DType() != d.dt {
		return d.fail("read", fmt.Sprintf("destination %v, want dtype %v", dst, d.dt), nil)
	}
	return nd.FillRaw(dst, false, func(b []byte) error {
		return d.ReadRegion(b, start, dst.Shape())
	})
}

// Read returns the region start/count as a new array.
func (d *Dataset) Read(start, count []int) (*nd.Array, error) {
	if _, err := d.checkRegion(start, count); err != nil {
		return nil, err
	}
	a, err := nd.Zeros(d.dt, count...)
	if err != nil {
		return nil, d.fail("read", "buffer", err)
	}
	if err := d.ReadInto(a, start); err != nil {
		return nil, err
	}
	return a, nil
}

// Close releases the dataset's HDF5 objects; later reads fail with
// ErrClosed. Closing twice is not an error.
func (d *Dataset) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.h == nil {
		return nil
	}
	err := d.h.close(d)
	d.h = nil
	return err
}

// checkRegion validates a region against the shape and returns its size
// in bytes (without overflow: a region inside a valid shape is no larger
// than the dataset, whose size HDF5 has checked, but the sum start+count
// of hostile arguments could wrap).
func (d *Dataset) checkRegion(start, count []int) (int64, error) {
	if len(start) != len(d.shape) || len(count) != len(d.shape) {
		return 0, d.fail("read", fmt.Sprintf("region start %v count %v for shape %v", start, count, d.shape), nil)
	}
	size := uint64(d.dt.Size())
	empty := false
	for i, s := range d.shape {
		if start[i] < 0 || count[i] < 0 || start[i] > s || count[i] > s-start[i] {
			return 0, d.fail("read", fmt.Sprintf("region start %v count %v outside shape %v", start, count, d.shape), nil)
		}
		if count[i] == 0 {
			empty = true
			continue
		}
		hi, lo := bits.Mul64(size, uint64(count[i]))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, d.fail("read", fmt.Sprintf("region count %v overflows", count), nil)
		}
		size = lo
	}
	if empty {
		return 0, nil
	}
	return int64(size), nil
}
