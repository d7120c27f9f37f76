package npy

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tessera-go/tessera/nd"
)

// Read reads a whole .npy file from r. Fortran-order data comes back with
// Fortran strides (no rearranging copy); big-endian data is byte-swapped.
func Read(r io.Reader) (*nd.Array, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	known := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		known = int64(l.Len())
	}
	return readData(r, h, "", known)
}

// bigUnknown is the data size above which a stream of unknown length is
// read in growing pieces rather than into memory allocated up front, so
// that a header claiming terabytes cannot make Read allocate them.
// 1 MiB rather than the 64 MiB of the first version: a 200-byte stream
// whose header claims 60 MiB made Read allocate the 60 MiB.
const bigUnknown = 1 << 20

// readData reads the data that h describes from r; known is the number of
// bytes r still holds, or -1.
func readData(r io.Reader, h Header, file string, known int64) (*nd.Array, error) {
	n, _ := nd.SizeOf(h.Shape)
	nbytes := int64(n) * int64(h.DType.Size())
	short := func(got int64, err error) error {
		return &Error{File: file, Reason: fmt.Sprintf("data shorter than the shape %s of %s: %d bytes, need %d", nd.FormatShape(h.Shape), h.DType, got, nbytes), Err: err}
	}
	if known >= 0 && known < nbytes {
		return nil, short(known, io.ErrUnexpectedEOF)
	}
	if known < 0 && nbytes > bigUnknown {
		var buf []byte
		for int64(len(buf)) < nbytes {
			step := min(nbytes-int64(len(buf)), max(int64(len(buf)), bigUnknown))
			buf = slices.Grow(buf, int(step))
			k, err := io.ReadFull(r, buf[len(buf):len(buf)+int(step)])
			buf = buf[:len(buf)+k]
			if err != nil {
				return nil, short(int64(len(buf)), io.ErrUnexpectedEOF)
			}
		}
		a, err := nd.FromBytes(h.DType, h.Shape, buf, h.Fortran, h.BigEndian)
		if err != nil {
			return nil, &Error{File: file, Reason: "reading data", Err: err}
		}
		return a, nil
	}
	a, err := nd.ReadRaw(r, h.DType, h.Shape, h.Fortran, h.BigEndian)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &Error{File: file, Reason: fmt.Sprintf("data shorter than the shape %s of %s", nd.FormatShape(h.Shape), h.DType), Err: err}
		}
		return nil, &Error{File: file, Reason: "reading data", Err: err}
	}
	return a, nil
}

// ReadFile reads the .npy file at path; errors name the file.
func ReadFile(path string) (*nd.Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Reason: "open", Err: err}
	}
	defer f.Close()
	// Read the header through a small buffer (it is read in pieces),
	// then the data straight into the array's memory.
	br := bufio.NewReaderSize(f, 4096)
	h, err := ReadHeader(br)
	if err != nil {
		return nil, withFile(err, path)
	}
	known := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		known = st.Size() - h.DataOffset
	}
	return readData(io.MultiReader(br, f), h, path, known)
}

// withFile sets the file name of an *Error that has none.
func withFile(err error, path string) error {
	var e *Error
	if errors.As(err, &e) && e.File == "" {
		c := *e
		c.File = path
		return &c
	}
	return err
}

// Write writes a as a .npy file to w: in Fortran order when fortran is
// set, C order otherwise; always little-endian; format version 1.0, or 2.0
// when the header does not fit 1.0. The bytes are those numpy 1.24's
// np.save writes for the same array.
func Write(w io.Writer, a *nd.Array, fortran bool) error {
	if a == nil || !a.DType().Valid() {
		return &Error{Reason: "Write: nil array or invalid dtype"}
	}
	h := Header{DType: a.DType(), Fortran: fortran && a.NDim() > 1, Shape: a.Shape()}
	// numpy writes a 0-d or 1-d array with fortran_order False whatever
	// was asked: both orders are the same bytes.
	if _, err := w.Write(encodeHeader(h)); err != nil {
		return &Error{Reason: "write header", Err: err}
	}
	if err := a.WriteRaw(w, h.Fortran); err != nil {
		return &Error{Reason: "write data", Err: err}
	}
	return nil
}

// WriteFile writes a to path with Write; errors name the file. A failed
// write removes nothing: the file is left partial.
func WriteFile(path string, a *nd.Array, fortran bool) error {
	f, err := os.Create(path)
	if err != nil {
		return &Error{File: path, Reason: "create", Err: err}
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := Write(bw, a, fortran); err != nil {
		f.Close()
		return withFile(err, path)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return &Error{File: path, Reason: "write", Err: err}
	}
	if err := f.Close(); err != nil {
		return &Error{File: path, Reason: "close", Err: err}
	}
	return nil
}

// File is an open .npy file read piece by piece: FromNPY reads one chunk
// of rows at a time without loading the whole file. Its methods may be
// called from several goroutines (reads use ReadAt).
type File struct {
	path string
	f    *os.File
	h    Header
	size int64

	// The file mapped into memory, for reading rows of a Fortran-order
	// file (see rows.go), made at the first such read and unmapped by
	// Close; mapErr is why it could not be made (the reads then use
	// ReadAt).
	mapOnce sync.Once
	mapDone atomic.Bool // set once the mapping was tried
	mapped  []byte
	mapErr  error
	closed  atomic.Bool
}

// OpenFile opens the .npy file at path and reads its header. Close it
// when done.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Reason: "open", Err: err}
	}
	h, err := ReadHeader(bufio.NewReaderSize(f, 4096))
	if err != nil {
		f.Close()
		return nil, withFile(err, path)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Reason: "stat", Err: err}
	}
	// ParseHeader checked that n·itemsize fits an int64; the offset added
	// to it may still overflow, and a negative sum would pass the test
	// below, so the room left after the offset is what is compared.
	n, _ := nd.SizeOf(h.Shape)
	nbytes := int64(n) * int64(h.DType.Size())
	if h.DataOffset > st.Size() || nbytes > st.Size()-h.DataOffset {
		f.Close()
		return nil, &Error{File: path, Reason: fmt.Sprintf("data shorter than the shape %s of %s: file has %d bytes, needs %d after the %d-byte header", nd.FormatShape(h.Shape), h.DType, st.Size(), nbytes, h.DataOffset), Err: io.ErrUnexpectedEOF}
	}
	return &File{path: path, f: f, h: h, size: st.Size()}, nil
}

// Header returns the file's header. Do not modify its Shape.
func (f *File) Header() Header { return f.h }

// Path returns the path the file was opened with.
func (f *File) Path() string { return f.path }

// Close closes the file (and unmaps it where ReadRowsInto mapped it).
// Reads still running fail with an error.
func (f *File) Close() error {
	if f.closed.Swap(true) {
		return f.f.Close() // os.ErrClosed, as a second Close of a file
	}
	f.mapOnce.Do(func() {}) // no mapping after this
	var err error
	if f.mapped != nil {
		err = unmapFile(f.mapped)
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadRange reads count entries along axis 0 starting at start: the array
// a[start:start+count] of the whole file, C-contiguous. A C-order file is
// one read; a Fortran-order file, whose entries along axis 0 are spread
// over the whole file, is read in large pieces and transposed in memory
// (ReadRowsInto).
func (f *File) ReadRange(start, count int) (*nd.Array, error) {
	h := f.h
	if len(h.Shape) == 0 {
		return nil, &Error{File: f.path, Reason: "ReadRange: the array is 0-d"}
	}
	if start < 0 || count < 0 || start > h.Shape[0] || count > h.Shape[0]-start {
		return nil, &Error{File: f.path, Reason: fmt.Sprintf("ReadRange(%d, %d): out of range for axis 0 of length %d", start, count, h.Shape[0])}
	}
	shape := slices.Clone(h.Shape)
	shape[0] = count
	es := int64(h.DType.Size())
	if !h.Fortran || count == 0 {
		rowElems := int64(1)
		for _, d := range h.Shape[1:] {
			rowElems *= int64(d)
		}
		off := h.DataOffset + int64(start)*rowElems*es
		sr := io.NewSectionReader(f.f, off, int64(count)*rowElems*es)
		return f.read(sr, shape)
	}
	return nd.FillBytes(h.DType, shape, false, h.BigEndian, func(dst []byte) error {
		return f.ReadRowsInto(dst, 1, start, count)
	})
}

func (f *File) read(r io.Reader, shape []int) (*nd.Array, error) {
	a, err := nd.ReadRaw(r, f.h.DType, shape, false, f.h.BigEndian)
	if err != nil {
		return nil, &Error{File: f.path, Reason: "data shorter than the shape", Err: err}
	}
	return a, nil
}
