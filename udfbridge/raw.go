package udfbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// KindRaw is the dataset kind of raw binary detector files (OpenRaw).
const KindRaw = "raw"

func init() {
	RegisterDatasetKind(KindRaw, func(params []byte) (Dataset, error) {
		var p rawParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: raw dataset parameters: %w", err)
		}
		dt, _, err := nd.ParseDType(p.DType)
		if err != nil {
			return nil, &DatasetError{Kind: KindRaw, Path: p.Path, Reason: "dtype", Err: err}
		}
		return OpenRaw(p.Path, dt, p.Nav, p.Sig, p.Offset)
	})
}

type rawParams struct {
	Path   string `json:"path"`
	DType  string `json:"dtype"`
	Nav    []int  `json:"nav"`
	Sig    []int  `json:"sig"`
	Offset int64  `json:"offset"`
}

// RawDataset is a raw binary detector file: offset bytes of header, then
// nav·sig elements of one little-endian dtype in C order (frames one after
// the other), as LiberTEM's "raw" format.
//
// Read reads only the bytes of the requested tile, with ReadAt: one call
// per contiguous run of the file (all n frames at once when whole frames are
// asked for). The file is opened for each Read and closed after it, so that
// a dataset reopened from its Spec inside every task holds no descriptor
// between tasks (an open per 1 MiB tile costs microseconds).
type RawDataset struct {
	path     string
	dt       nd.DType
	nav, sig []int
	offset   int64
}

var _ Dataset = (*RawDataset)(nil)

// OpenRaw opens the raw file at path holding frames of shape sigShape for
// the nav positions navShape, starting offset bytes into the file. A file
// shorter than offset + nav·sig·itemsize is an error naming the file and both
// sizes; so is a missing file. Every error is a *DatasetError naming the
// file. The sizes are computed with overflow checks before anything is
// allocated: a declared shape whose bytes overflow int64 is refused, not
// wrapped to a small number that a short file would satisfy.
func OpenRaw(path string, dt nd.DType, navShape, sigShape []int, offset int64) (*RawDataset, error) {
	bad := func(err error, format string, args ...any) error {
		return &DatasetError{Kind: KindRaw, Path: path, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	// A worker process confined to its data directories refuses other
	// paths (graph.RestrictPaths); datasets reach workers through Open*.
	if err := graph.CheckPath("udfbridge.open-raw", path); err != nil {
		return nil, bad(err, "refused")
	}
	if !dt.Valid() {
		return nil, bad(nil, "invalid dtype %v", dt)
	}
	if offset < 0 {
		return nil, bad(nil, "negative offset %d", offset)
	}
	if why := shapeProblem(navShape, sigShape); why != "" {
		return nil, bad(nil, "%s", why)
	}
	data, ok := shapeBytes(dt.Size(), navShape, sigShape)
	if !ok {
		return nil, bad(nil, "declared shape nav %v × sig %v of %d-byte %v overflows a 64-bit size", navShape, sigShape, dt.Size(), dt)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, bad(err, "stat")
	}
	if st.IsDir() {
		return nil, bad(nil, "is a directory")
	}
	// offset + data may overflow: compare what the file has after offset.
	if offset > st.Size() || data > st.Size()-offset {
		need := fmt.Sprint(offset, " + ", data) // the sum may not fit an int64
		if data <= math.MaxInt64-offset {
			need = fmt.Sprint(offset + data)
		}
		return nil, bad(io.ErrUnexpectedEOF, "file is %d bytes, shorter than the %s bytes of its declared shape (offset %d + nav %v × sig %v × %d-byte %v)",
			st.Size(), need, offset, navShape, sigShape, dt.Size(), dt)
	}
	return &RawDataset{path: path, dt: dt, nav: dsClone(navShape), sig: dsClone(sigShape), offset: offset}, nil
}

// DatasetError reports a dataset file (raw, npy or zarr) that cannot be
// opened or read as declared: Kind is the dataset kind, Path the file or
// store. Errors of the nd/npy and nd/zarr readers are wrapped as Err, so
// errors.As finds them too.
type DatasetError struct {
	Kind   string
	Path   string
	Reason string
	Err    error
}

func (e *DatasetError) Error() string {
	s := "udfbridge: " + e.Kind + " dataset " + e.Path + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *DatasetError) Unwrap() error { return e.Err }

// maxDatasetDims bounds nav + sig axes: numpy's NPY_MAXDIMS.
const maxDatasetDims = 64

// shapeBytes returns the bytes of the elements of the shapes taken
// together (0 when a dimension is 0), and false when itemsize times the
// product of the non-zero dimensions overflows int64: numpy's rule for a
// valid shape, by which an empty sig does not make a nav of 2^62 frames
// valid. That product bounds the element count and every stride, so frame
// and tile sizes computed later from a valid shape cannot overflow either.
func shapeBytes(itemsize int, shapes ...[]int) (int64, bool) {
	p := uint64(max(itemsize, 1))
	empty := false
	for _, sh := range shapes {
		for _, d := range sh {
			switch {
			case d < 0:
				return 0, false
			case d == 0:
				empty = true
				continue
			}
			hi, lo := bits.Mul64(p, uint64(d))
			if hi != 0 || lo > math.MaxInt64 {
				return 0, false
			}
			p = lo
		}
	}
	if empty {
		return 0, true
	}
	return int64(p), true
}

func (d *RawDataset) NavShape() []int   { return dsClone(d.nav) }
func (d *RawDataset) SigShape() []int   { return dsClone(d.sig) }
func (d *RawDataset) DType() nd.DType   { return d.dt }
func (d *RawDataset) Path() string      { return d.path }
func (d *RawDataset) Offset() int64     { return d.offset }
func (d *RawDataset) String() string    { return "raw file " + d.path }
func (d *RawDataset) frameBytes() int64 { return int64(dsProd(d.sig)) * int64(d.dt.Size()) }

// ByteRange returns the bytes [lo, hi) of the file that hold frames
// [start, start+n): the locality of a partition (ToChunkArray).
func (d *RawDataset) ByteRange(start, n int) (lo, hi int64) {
	return d.offset + int64(start)*d.frameBytes(), d.offset + int64(start+n)*d.frameBytes()
}

func (d *RawDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(rawParams{Path: d.path, DType: d.dt.Descr(), Nav: d.nav, Sig: d.sig, Offset: d.offset})
	if err != nil {
		return DatasetSpec{}, err
	}
	return DatasetSpec{Kind: KindRaw, Params: b}, nil
}

func (d *RawDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	sigStart, sigShape, err := checkRead(d.String(), dsProd(d.nav), d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := os.Open(d.path)
	if err != nil {
		return nil, &DatasetError{Kind: KindRaw, Path: d.path, Reason: "open", Err: err}
	}
	defer f.Close()
	full := append([]int{dsProd(d.nav)}, d.sig...)
	st := append([]int{start}, sigStart...)
	sh := append([]int{n}, sigShape...)
	item := d.dt.Size()
	buf := make([]byte, dsProd(sh)*item)
	err = copyRegion(full, st, sh, item, buf, func(dst []byte, off int64) error {
		_, err := f.ReadAt(dst, d.offset+off)
		return err
	})
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, &DatasetError{Kind: KindRaw, Path: d.path, Reason: fmt.Sprintf("reading frames [%d, %d)", start, start+n), Err: err}
	}
	return nd.FromBytes(d.dt, sh, buf, false, false)
}

// TaskReader returns the reader of one partition task: it keeps the file
// open until Close (the task closes it when it ends) and reads every tile
// with ReadAt into one reused buffer, without the allocation and the copy
// of Read. The tile it returns is valid until its next Read: a partition
// task lends each tile to process_tile and reads the next one afterwards
// (LiberTEM's readers reuse their tile buffers the same way).
func (d *RawDataset) TaskReader() TileReader { return &rawReader{d: d} }

var _ TaskReaderDataset = (*RawDataset)(nil)

// rawReader is RawDataset's per-task reader.
type rawReader struct {
	d      *RawDataset
	f      *os.File
	buf    listBuf // the tile buffer, from the run's free list
	listed bool    // buf.fl is set (from the first Read's context)
	full   []int   // (frames,)+sig, the file's shape
	st, sh []int   // the region of the last Read
	str    string  // d.String(), made once
}

// name returns the dataset's name for errors, made at the first call.
func (r *rawReader) name() string {
	if r.str == "" {
		r.str = r.d.String()
	}
	return r.str
}

func (r *rawReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	d := r.d
	sigStart, sigShape, err := checkRead(r.name(), dsProd(d.nav), d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.f == nil {
		if r.f, err = os.Open(d.path); err != nil {
			return nil, &DatasetError{Kind: KindRaw, Path: d.path, Reason: "open", Err: err}
		}
	}
	if !r.listed {
		r.buf.fl, r.listed = freelist.FromContext(ctx), true
		r.full = append([]int{dsProd(d.nav)}, d.sig...)
	}
	r.st = append(append(r.st[:0], start), sigStart...)
	r.sh = append(append(r.sh[:0], n), sigShape...)
	tile, err := r.buf.get(d.dt, r.sh)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: raw file %s: tile buffer: %w", d.path, err)
	}
	item := d.dt.Size()
	err = nd.FillRaw(tile, false, func(dst []byte) error {
		return copyRegion(r.full, r.st, r.sh, item, dst, func(dst []byte, off int64) error {
			_, err := r.f.ReadAt(dst, d.offset+off)
			return err
		})
	})
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, &DatasetError{Kind: KindRaw, Path: d.path, Reason: fmt.Sprintf("reading frames [%d, %d)", start, start+n), Err: err}
	}
	return tile, nil
}

// Close gives the tile buffer back to the run's free list and closes the
// file (if a Read opened it): the last tile is not valid afterwards.
func (r *rawReader) Close() error {
	r.buf.release()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}

// copyRegion fills dst with the region st/sh of a C-order array of shape
// full and item-byte elements, by calls read(part, byteOffset) for each
// contiguous run of the region.
func copyRegion(full, st, sh []int, item int, dst []byte, read func(dst []byte, off int64) error) error {
	return regionRuns(full, st, sh, item, func(pos int, off int64, run int) error {
		return read(dst[pos:pos+run], off)
	})
}

// regionRuns calls fn for each contiguous run of bytes of the region st/sh
// of a C-order array of shape full with item-byte elements: pos is the
// run's byte position in the compact (C-order) region, off its byte offset
// in the full array, run its length in bytes. A run is the trailing axes the
// region covers whole, times the first axis it does not.
func regionRuns(full, st, sh []int, item int, fn func(pos int, off int64, run int) error) error {
	if dsProd(sh) == 0 {
		return nil
	}
	k := len(full) - 1
	run := item
	for k >= 0 && st[k] == 0 && sh[k] == full[k] {
		run *= full[k]
		k--
	}
	if k >= 0 {
		run *= sh[k]
	}
	// Strides and the index live on the stack for up to 16 axes: a
	// tile read costs no allocation.
	var stBuf [16]int64
	var idxBuf [16]int
	strides := stBuf[:0]
	for range full {
		strides = append(strides, 0)
	}
	s := int64(item)
	for i := len(full) - 1; i >= 0; i-- {
		strides[i] = s
		s *= int64(full[i])
	}
	idx := idxBuf[:0]
	for range max(k, 0) {
		idx = append(idx, 0)
	}
	pos := 0
	for {
		off := int64(0)
		for i := range full {
			j := st[i]
			if i < k {
				j += idx[i]
			}
			off += int64(j) * strides[i]
		}
		if err := fn(pos, off, run); err != nil {
			return err
		}
		pos += run
		i := k - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < sh[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}

// checkRead validates a Read request of a dataset named name with navSize
// frames of shape sig, and returns the sig region (the whole frame when both
// are nil).
func checkRead(name string, navSize int, sig []int, start, n int, sigStart, sigShape []int) ([]int, []int, error) {
	if start < 0 || n < 0 || start > navSize || n > navSize-start { // start+n may overflow
		return nil, nil, fmt.Errorf("udfbridge: %s: frames [%d, %d) out of range [0, %d)", name, start, start+n, navSize)
	}
	if sigStart == nil && sigShape == nil {
		return make([]int, len(sig)), dsClone(sig), nil
	}
	if sigStart == nil {
		sigStart = make([]int, len(sig))
	}
	if sigShape == nil {
		sigShape = make([]int, len(sig))
		for i := range sig {
			sigShape[i] = sig[i] - sigStart[i]
		}
	}
	if len(sigStart) != len(sig) || len(sigShape) != len(sig) {
		return nil, nil, fmt.Errorf("udfbridge: %s: sig region start %v shape %v does not match sig shape %v", name, sigStart, sigShape, sig)
	}
	for i := range sig {
		if sigStart[i] < 0 || sigShape[i] < 0 || sigStart[i]+sigShape[i] > sig[i] {
			return nil, nil, fmt.Errorf("udfbridge: %s: sig region start %v shape %v outside sig shape %v", name, sigStart, sigShape, sig)
		}
	}
	return sigStart, sigShape, nil
}

func checkShapes(name string, nav, sig []int) error {
	if why := shapeProblem(nav, sig); why != "" {
		return fmt.Errorf("udfbridge: %s: %s", name, why)
	}
	return nil
}

// shapeProblem says what is wrong with a nav and sig shape, or "".
func shapeProblem(nav, sig []int) string {
	if len(nav) == 0 {
		return "empty nav shape"
	}
	if len(nav)+len(sig) > maxDatasetDims {
		return fmt.Sprintf("%d axes, more than %d", len(nav)+len(sig), maxDatasetDims)
	}
	for _, s := range append(dsClone(nav), sig...) {
		if s < 0 {
			return fmt.Sprintf("negative dimension in nav %v sig %v", nav, sig)
		}
	}
	return ""
}

func dsProd(s []int) int {
	p := 1
	for _, x := range s {
		p *= x
	}
	return p
}

func dsClone(s []int) []int { return append([]int(nil), s...) }
