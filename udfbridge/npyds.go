package udfbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// KindNPY is the dataset kind of .npy files (OpenNPY).
const KindNPY = "npy"

func init() {
	RegisterDatasetKind(KindNPY, func(params []byte) (Dataset, error) {
		var p sigDimsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: npy dataset parameters: %w", err)
		}
		return OpenNPY(p.Path, p.SigDims)
	})
}

// NPYDataset is a .npy file whose last sigDims axes are the sig. A
// little-endian C-order file is read as a raw file at the header's data
// offset: only the tile's bytes, with ReadAt. Other files (big-endian or
// Fortran order) are read by frames with npy.File.ReadRowsInto, which
// reads a Fortran-order file in large contiguous pieces and transposes
// them in memory; a partition task reads a window of up to
// npyWindowBytes of frames at a time and cuts its tiles from it.
//
// The first version read such files in blocks of rows of axis 0 with
// npy.File.ReadRange, one ReadAt per run of the rows (a few bytes each in
// a Fortran file, whose first axis varies fastest) and again for every
// tile: 20 MB took 9 s to 86 s. A window per task was chosen over a
// window per tile because a Fortran file's frames are spread over the
// whole file: each window read passes over the file once, however few
// frames it holds, so fewer, larger windows read less.
type NPYDataset struct {
	f        *npy.File
	path     string
	sigDims  int
	nav, sig []int
	raw      *RawDataset // nil unless little-endian C order
	windows  windowList  // window memory of finished tasks
}

// windowList keeps the window memory of a dataset's finished tasks for
// its next tasks, at most npyKeptWindowBytes in all: a window of fresh
// memory cost its page faults and zeroing in every task, a third of a
// 20 MB file's reading time. It is an explicit bounded list, not a
// sync.Pool, so that what it keeps is known (and freed with the dataset).
type windowList struct {
	mu    sync.Mutex
	bufs  []*nd.Array
	bytes int
}

// npyKeptWindowBytes bounds the window memory a dataset keeps between
// tasks.
const npyKeptWindowBytes = 2 * npyWindowBytes

func (l *windowList) get() *nd.Array {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.bufs)
	if n == 0 {
		return nil
	}
	b := l.bufs[n-1]
	l.bufs[n-1] = nil
	l.bufs = l.bufs[:n-1]
	l.bytes -= b.Nbytes()
	return b
}

// put keeps b unless that would pass the bound.
func (l *windowList) put(b *nd.Array) {
	if b == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bytes+b.Nbytes() > npyKeptWindowBytes {
		return
	}
	l.bufs = append(l.bufs, b)
	l.bytes += b.Nbytes()
}

// npyWindowBytes bounds the frames a partition task of a big-endian or
// Fortran-order file reads at once (at least one frame): the memory it
// holds besides its tiles. A Fortran file of F bytes costs about F bytes
// of reading per window, so a partition of P bytes reads about
// F·P/npyWindowBytes bytes.
const npyWindowBytes = 64 << 20

var (
	_ Dataset           = (*NPYDataset)(nil)
	_ TaskReaderDataset = (*NPYDataset)(nil)
)

// OpenNPY opens the .npy file at path, reading its header only.
func OpenNPY(path string, sigDims int) (*NPYDataset, error) {
	if err := graph.CheckPath("udfbridge.open-npy", path); err != nil {
		return nil, &DatasetError{Kind: KindNPY, Path: path, Reason: "refused", Err: err}
	}
	f, err := npy.OpenFile(path)
	if err != nil {
		return nil, &DatasetError{Kind: KindNPY, Path: path, Reason: "open", Err: err}
	}
	h := f.Header()
	nav, sig, err := splitNavSig("npy file "+path, h.Shape, sigDims)
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &NPYDataset{f: f, path: path, sigDims: sigDims, nav: nav, sig: sig}
	if !h.BigEndian && !h.Fortran {
		d.raw, err = OpenRaw(path, h.DType, nav, sig, h.DataOffset)
		if err != nil {
			f.Close()
			return nil, err
		}
	}
	return d, nil
}

// Close closes the file.
func (d *NPYDataset) Close() error { return d.f.Close() }

func (d *NPYDataset) NavShape() []int { return dsClone(d.nav) }
func (d *NPYDataset) SigShape() []int { return dsClone(d.sig) }
func (d *NPYDataset) DType() nd.DType { return d.f.Header().DType }
func (d *NPYDataset) String() string  { return "npy file " + d.path }

func (d *NPYDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(sigDimsParams{Path: d.path, SigDims: d.sigDims})
	return DatasetSpec{Kind: KindNPY, Params: b}, err
}

func (d *NPYDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	if d.raw != nil {
		a, err := d.raw.Read(ctx, start, n, sigStart, sigShape)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: npy file %s: %w", d.path, err)
		}
		return a, nil
	}
	sigStart, sigShape, err := checkRead(d.String(), dsProd(d.nav), d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var buf *nd.Array
	frames, err := d.readFrames(&buf, start, n)
	if err != nil {
		return nil, err
	}
	return sigRegion(frames, sigStart, sigShape)
}

// TaskReader returns the reader of one partition task: the raw file's
// reader for a little-endian C-order file, else a reader of windows of
// frames (npyReader).
func (d *NPYDataset) TaskReader() TileReader {
	if d.raw != nil {
		return d.raw.TaskReader()
	}
	return &npyReader{d: d, end: dsProd(d.nav), windowBytes: npyWindowBytes, buf: d.windows.get()}
}

// readFrames reads frames [start, start+n), all of their sig, into the
// memory of *buf (grown as needed) as a C-order array (n,)+sig.
func (d *NPYDataset) readFrames(buf **nd.Array, start, n int) (*nd.Array, error) {
	h := d.f.Header()
	shape := append([]int{n}, d.sig...)
	if dsProd(shape) == 0 {
		return nd.Zeros(h.DType, shape...)
	}
	v, err := reuse(buf, h.DType, []int{dsProd(shape)})
	if err != nil {
		return nil, fmt.Errorf("udfbridge: npy file %s: frame buffer: %w", d.path, err)
	}
	// A Fortran-order file is mapped once for all partitions, whose reads
	// then touch only their own columns (npy.File.Map); where it cannot be
	// mapped, ReadRowsInto reads instead, so Map's error is not this
	// read's.
	_ = d.f.Map()
	a, err := nd.FillBytesInto(v, h.DType, shape, false, h.BigEndian, func(dst []byte) error {
		return d.f.ReadRowsInto(dst, len(d.nav), start, n)
	})
	if err != nil {
		return nil, &DatasetError{Kind: KindNPY, Path: d.path, Reason: fmt.Sprintf("reading frames [%d, %d)", start, start+n), Err: err}
	}
	return a, nil
}

// sigRegion returns the sig region sigStart/sigShape of frames (n,)+sig.
func sigRegion(frames *nd.Array, sigStart, sigShape []int) (*nd.Array, error) {
	whole := true
	for i, s := range frames.Shape()[1:] {
		whole = whole && sigStart[i] == 0 && sigShape[i] == s
	}
	if whole {
		return frames, nil
	}
	sl := make([]nd.Slice1, 1+len(sigStart))
	sl[0] = nd.Slice1{Start: 0, Stop: frames.Shape()[0], Step: 1}
	for i := range sigStart {
		sl[1+i] = nd.Slice1{Start: sigStart[i], Stop: sigStart[i] + sigShape[i], Step: 1}
	}
	return frames.Slice(sl...)
}

// npyReader is the per-task reader of a big-endian or Fortran-order
// file: it reads a window of frames starting at the first frame asked for
// (up to npyWindowBytes, and no further than the task's last frame when
// the task says which, frameHinter) and answers reads inside the window
// with views of it. A tile it returns is valid until its next Read.
type npyReader struct {
	d      *NPYDataset
	buf    *nd.Array // window memory, reused
	window *nd.Array // frames [w0, w0+len) as (len,)+sig
	w0     int
	end    int // one past the last frame the task reads

	windowBytes int // npyWindowBytes; tests make it small
}

var (
	_ frameHinter = (*npyReader)(nil)
	_ io.Closer   = (*npyReader)(nil)
)

// Close gives the window memory back to the dataset for its next task
// (the file stays open: the dataset owns it). The tiles it returned must
// not be used afterwards.
func (r *npyReader) Close() error {
	r.d.windows.put(r.buf)
	r.buf, r.window = nil, nil
	return nil
}

func (r *npyReader) hintFrames(end int) { r.end = min(max(end, 0), dsProd(r.d.nav)) }

func (r *npyReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	d := r.d
	navSize := dsProd(d.nav)
	sigStart, sigShape, err := checkRead(d.String(), navSize, d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if r.window == nil || start < r.w0 || start+n > r.w0+r.window.Shape()[0] {
		frameBytes := dsProd(d.sig) * d.DType().Size()
		m := navSize - start
		if frameBytes > 0 {
			m = min(m, max(r.windowBytes/frameBytes, 1))
		}
		if r.end > start {
			m = min(m, r.end-start)
		}
		m = max(m, n)
		if r.window, err = d.readFrames(&r.buf, start, m); err != nil {
			r.window = nil
			return nil, err
		}
		r.w0 = start
	}
	rows, err := r.window.Slice(nd.Slice1{Start: start - r.w0, Stop: start - r.w0 + n, Step: 1})
	if err != nil {
		return nil, err
	}
	return sigRegion(rows, sigStart, sigShape)
}

// reuse returns a C-contiguous array of dtype dt and the given shape over
// the memory of *buf (offset 0), growing *buf (flat) when it is too small
// or of another dtype. The contents are left as they were.
func reuse(buf **nd.Array, dt nd.DType, shape []int) (*nd.Array, error) {
	need := dsProd(shape)
	var err error
	if *buf == nil || (*buf).DType() != dt || (*buf).Size() < need {
		if *buf, err = nd.Zeros(dt, max(need, 1)); err != nil {
			return nil, err
		}
	}
	flat := *buf
	if flat.Size() != need {
		if flat, err = flat.Slice(nd.Slice1{Start: 0, Stop: need, Step: 1}); err != nil {
			return nil, err
		}
	}
	return flat.Reshape(shape...)
}
