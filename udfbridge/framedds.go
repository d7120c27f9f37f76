package udfbridge

// Detector files of whole frames at computable byte offsets: Merlin .mib
// (a header before every frame, one file or many), EMPAD (a footer after
// every frame) and MRC (one header, then frames back to back). A format
// parses its headers into a framedFile — where each frame's bytes lie and
// how to decode them into the dataset's dtype — and framedFile does the
// rest: bounds checks at open, reads, and the per-task reader.
//
// A partition task reads a window of whole frames at once (one ReadAt per
// file span, headers and footers included, then a decode per frame) and
// cuts its tiles from the window as views: the decoders (bit-packed raw
// MIB, quad chip layouts, 12-bit pairs, float16) work on whole frames or
// rows, and a window read once serves every sig region of its frames. The
// rejected version decoded per tile: a tile of a few rows re-read and
// re-decoded its frames once per sig region, which with row tiles of a
// 512×512 frame is 64 reads of each frame.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// frameRun is a run of frames stored at a fixed stride in one file: flat
// frames [first, first+count) of the dataset, frame first+j's stored bytes
// at offset + j·stride.
type frameRun struct {
	path   string
	first  int
	count  int
	offset int64
	stride int64
}

// frameDecoder decodes one stored frame (src, the format's stored bytes)
// into dst, the frame's elements in the dataset's dtype, little-endian, C
// order. Both lengths are exact. A nil decoder means the stored bytes are
// already the frame.
type frameDecoder func(dst, src []byte)

// openFramedFile opens the file of a framed format of kind at path, after
// checking it against the process's data directories (graph.CheckPath,
// as op "udfbridge.open-KIND"), and returns with it the format's error
// maker: a *DatasetError of kind naming path.
func openFramedFile(kind, path string) (*os.File, func(err error, format string, args ...any) error, error) {
	bad := func(err error, format string, args ...any) error {
		return &DatasetError{Kind: kind, Path: path, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	if err := graph.CheckPath("udfbridge.open-"+kind, path); err != nil {
		return nil, nil, bad(err, "refused")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, bad(err, "open")
	}
	return f, bad, nil
}

// framedFile is the frame table and decoder of a framed format.
type framedFile struct {
	kind     string // dataset kind, for errors
	name     string // "mib file /x/y.mib", for errors
	path     string // the path the user opened, for errors
	runs     []frameRun
	nav, sig []int
	dt       nd.DType
	stored   int // bytes of one stored frame
	decode   frameDecoder
	// bigEndian: frames stored as they are but big-endian (decode nil),
	// swapped in place after the read.
	bigEndian bool
	// skip is the sync offset: dataset frame i is stored frame i+skip,
	// and frames of zeros where i+skip < 0.
	skip int
}

// The Dataset methods every framed format shares (MIB, EMPAD, MRC, DM4,
// BLO embed framedFile; each has its own Spec).

func (f *framedFile) NavShape() []int { return dsClone(f.nav) }
func (f *framedFile) SigShape() []int { return dsClone(f.sig) }
func (f *framedFile) DType() nd.DType { return f.dt }
func (f *framedFile) String() string  { return f.name }

func (f *framedFile) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	return f.read(ctx, start, n, sigStart, sigShape)
}

// TaskReader returns a reader of windows of frames (framedReader).
func (f *framedFile) TaskReader() TileReader {
	return &framedReader{f: f, end: dsProd(f.nav)}
}

// framedWindowBytes bounds the frames a task reads at once (at least the
// frames of the tile, and no more than the task reads): about two of a
// run's default tiles. A window of 16 MiB read ahead no faster and held
// 16 MiB per task (and as much of scratch) where a raw file's task holds
// its 1 MiB tile.
const framedWindowBytes = 2 << 20

// check validates the table against the files: every run lies inside its
// file (with overflow checks), runs cover the stored frames the nav reads
// ([0, nav+skip)) in order, and the frame and stored sizes are sane. It
// is called once at open.
func (f *framedFile) check() error {
	bad := func(path string, err error, format string, args ...any) error {
		return &DatasetError{Kind: f.kind, Path: path, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	if why := shapeProblem(f.nav, f.sig); why != "" {
		return bad(f.path, nil, "%s", why)
	}
	frame, ok := shapeBytes(f.dt.Size(), f.sig)
	if !ok || frame > math.MaxInt32*8 {
		return bad(f.path, nil, "frame of %v × %v is too large", f.sig, f.dt)
	}
	if _, ok := shapeBytes(f.dt.Size(), f.nav, f.sig); !ok {
		return bad(f.path, nil, "nav %v × sig %v of %v overflows a 64-bit size", f.nav, f.sig, f.dt)
	}
	if f.stored < 0 || (f.decode == nil && int64(f.stored) != frame) {
		return bad(f.path, nil, "stored frame of %d bytes for a frame of %d bytes", f.stored, frame)
	}
	if f.skip < -math.MaxInt32 || f.skip > math.MaxInt32 {
		return bad(f.path, nil, "sync offset %d out of range", f.skip)
	}
	need := dsProd(f.nav) + f.skip // stored frames read
	next := 0
	sizes := map[string]int64{}
	for _, r := range f.runs {
		if r.first != next || r.count < 0 || r.offset < 0 || (r.count > 1 && r.stride < int64(f.stored)) {
			return bad(r.path, nil, "frame run of %d frames from %d at offset %d stride %d does not follow frame %d", r.count, r.first, r.offset, r.stride, next)
		}
		next += r.count
		if r.count == 0 {
			continue
		}
		size, seen := sizes[r.path]
		if !seen {
			st, err := os.Stat(r.path)
			if err != nil {
				return bad(r.path, err, "stat")
			}
			if st.IsDir() {
				return bad(r.path, nil, "is a directory")
			}
			size = st.Size()
			sizes[r.path] = size
		}
		// end = offset + (count-1)·stride + stored, without wrapping.
		span, ok := mulAdd(int64(r.count-1), r.stride, int64(f.stored))
		if !ok || r.offset > size || span > size-r.offset {
			return bad(r.path, io.ErrUnexpectedEOF, "file is %d bytes, shorter than its %d frames of %d bytes every %d from offset %d", size, r.count, f.stored, r.stride, r.offset)
		}
		if next >= need {
			break
		}
	}
	if next < need {
		if f.skip != 0 {
			return bad(f.path, nil, "%d frames stored, fewer than the %d of nav shape %v with sync offset %d", next, need, f.nav, f.skip)
		}
		return bad(f.path, nil, "%d frames stored, fewer than the %d of nav shape %v", next, need, f.nav)
	}
	return nil
}

// mulAdd returns a·b + c for non-negative operands, false on overflow.
func mulAdd(a, b, c int64) (int64, bool) {
	if a < 0 || b < 0 || c < 0 {
		return 0, false
	}
	if a != 0 && b > (math.MaxInt64-c)/a {
		return 0, false
	}
	return a*b + c, true
}

func (f *framedFile) frameBytes() int { return dsProd(f.sig) * f.dt.Size() }

// runOf returns the index of the run holding flat frame i.
func (f *framedFile) runOf(i int) int {
	return sort.Search(len(f.runs), func(k int) bool { return f.runs[k].first+f.runs[k].count > i }) // first run ending after i
}

// read returns frames [start, start+n) restricted to a sig region as a new
// array (Dataset.Read). Frames stored as they are read only the region's
// bytes, one ReadAt per contiguous run of each frame; decoded frames are
// read whole and decoded (a decoder needs its groups of pixels).
func (f *framedFile) read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	if f.decode != nil {
		r := &framedReader{f: f, end: start + n}
		defer r.Close()
		a, err := r.Read(ctx, start, n, sigStart, sigShape)
		if err != nil {
			return nil, err
		}
		// The reader's memory goes with it: the caller owns a copy.
		return a.Copy(), nil
	}
	sigStart, sigShape, err := checkRead(f.name, dsProd(f.nav), f.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	item := f.dt.Size()
	per := dsProd(sigShape) * item
	out := make([]byte, n*per)
	r := &framedReader{f: f}
	defer r.Close()
	for j := range n {
		i := start + j + f.skip
		if i < 0 {
			continue // a frame of zeros (out is zeroed)
		}
		run := f.runs[f.runOf(i)]
		if err := r.open(run.path); err != nil {
			return nil, err
		}
		base := run.offset + int64(i-run.first)*run.stride
		err := regionRuns(f.sig, sigStart, sigShape, item, func(pos int, off int64, ln int) error {
			return r.readAt(out[j*per+pos:j*per+pos+ln], base+off)
		})
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, &DatasetError{Kind: f.kind, Path: run.path, Reason: fmt.Sprintf("reading frame %d", i), Err: err}
		}
	}
	return nd.FromBytes(f.dt, append([]int{n}, sigShape...), out, false, f.bigEndian)
}

// framedReader is a framed file's per-task reader: it reads a window of
// whole decoded frames from the first frame asked for (up to
// framedWindowBytes, no further than the task's last frame) and answers
// reads inside it with views. A tile is valid until the next Read.
type framedReader struct {
	f       *framedFile
	end     int // one past the task's last frame (hintFrames)
	win     listBuf
	fl      *freelist.List // the run's, from the first Read's context
	scratch []byte         // stored bytes of a span of frames
	window  *nd.Array      // frames [w0, w0+window.Shape()[0])
	w0      int
	listed  bool
	file    *os.File
	filePth string
	rows    nd.Array // the tile's frames, a view of window
	tile    nd.Array // the tile, a view of rows
	sl      []nd.Slice1
	shape   []int
}

var (
	_ frameHinter = (*framedReader)(nil)
	_ io.Closer   = (*framedReader)(nil)
)

func (r *framedReader) hintFrames(end int) { r.end = min(max(end, 0), dsProd(r.f.nav)) }

func (r *framedReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	f := r.f
	navSize := dsProd(f.nav)
	sigStart, sigShape, err := checkRead(f.name, navSize, f.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !r.listed {
		r.fl = freelist.FromContext(ctx)
		r.win.fl, r.listed = r.fl, true
	}
	if r.window == nil || start < r.w0 || start+n > r.w0+r.window.Shape()[0] {
		if err := r.fill(start, n); err != nil {
			r.window = nil
			return nil, err
		}
	}
	r.sl = append(r.sl[:0], nd.Slice1{Start: start - r.w0, Stop: start - r.w0 + n, Step: 1})
	whole := true
	for i := range sigStart {
		r.sl = append(r.sl, nd.Slice1{Start: sigStart[i], Stop: sigStart[i] + sigShape[i], Step: 1})
		whole = whole && sigStart[i] == 0 && sigShape[i] == f.sig[i]
	}
	if whole {
		if err := r.tile.SetSlice(r.window, r.sl[0]); err != nil {
			return nil, err
		}
		return &r.tile, nil
	}
	if err := r.tile.SetSlice(r.window, r.sl...); err != nil {
		return nil, err
	}
	return &r.tile, nil
}

// fill reads the window starting at frame start, at least n frames.
func (r *framedReader) fill(start, n int) error {
	f := r.f
	fb := f.frameBytes()
	m := dsProd(f.nav) - start
	if fb > 0 {
		m = min(m, max(framedWindowBytes/fb, 1))
	}
	if r.end > start {
		m = min(m, r.end-start)
	}
	m = max(m, n)
	r.shape = append(append(r.shape[:0], m), f.sig...)
	w, err := r.win.get(f.dt, r.shape)
	if err != nil {
		return fmt.Errorf("udfbridge: %s: window buffer: %w", f.name, err)
	}
	err = nd.FillRaw(w, f.bigEndian, func(dst []byte) error { return r.readFrames(dst, start, m) })
	if err != nil {
		return err
	}
	r.window, r.w0 = w, start
	return nil
}

// readFrames reads and decodes frames [start, start+m) into dst, one
// ReadAt per run segment.
func (r *framedReader) readFrames(dst []byte, start, m int) error {
	f := r.f
	fb := f.frameBytes()
	for i := start; i < start+m; {
		if j := i + f.skip; j < 0 { // before the first stored frame
			cnt := min(start+m-i, -j)
			clear(dst[(i-start)*fb : (i-start+cnt)*fb])
			i += cnt
			continue
		}
		k := f.runOf(i + f.skip)
		if k >= len(f.runs) {
			return &DatasetError{Kind: f.kind, Path: f.path, Reason: fmt.Sprintf("frame %d is in no file", i)}
		}
		run := f.runs[k]
		j0 := i + f.skip - run.first
		cnt := min(start+m-i, run.count-j0)
		if err := r.open(run.path); err != nil {
			return err
		}
		off := run.offset + int64(j0)*run.stride
		out := dst[(i-start)*fb : (i-start+cnt)*fb]
		var err error
		switch {
		case f.decode == nil && run.stride == int64(f.stored):
			err = r.readAt(out, off)
		case f.decode == nil:
			// Headers or footers between frames: a ReadAt per frame
			// straight into the window rather than a span into scratch
			// and a copy (the same syscalls per byte, half the memory
			// traffic).
			for j := 0; j < cnt && err == nil; j++ {
				err = r.readAt(out[j*fb:(j+1)*fb], off+int64(j)*run.stride)
			}
		default:
			span := int64(cnt-1)*run.stride + int64(f.stored)
			src := r.scratchBytes(int(span))
			err = r.readAt(src, off)
			if err == nil {
				for j := range cnt {
					s := src[int64(j)*run.stride : int64(j)*run.stride+int64(f.stored)]
					f.decode(out[j*fb:(j+1)*fb], s)
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return &DatasetError{Kind: f.kind, Path: run.path, Reason: fmt.Sprintf("reading frames [%d, %d)", i, i+cnt), Err: err}
		}
		i += cnt
	}
	return nil
}

func (r *framedReader) readAt(b []byte, off int64) error {
	_, err := r.file.ReadAt(b, off)
	return err
}

// scratchBytes returns n bytes of the reader's scratch memory (from the
// run's free list, kept until Close).
func (r *framedReader) scratchBytes(n int) []byte {
	if cap(r.scratch) < n {
		r.fl.Put(r.scratch)
		r.scratch = r.fl.Get(n)
	}
	return r.scratch[:n]
}

// open makes path the reader's open file.
func (r *framedReader) open(path string) error {
	if r.file != nil && r.filePth == path {
		return nil
	}
	if r.file != nil {
		r.file.Close()
		r.file = nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return &DatasetError{Kind: r.f.kind, Path: path, Reason: "open", Err: err}
	}
	r.file, r.filePth = fh, path
	return nil
}

// Close gives the buffers back to the run's free list and closes the
// file: the last tile is not valid afterwards.
func (r *framedReader) Close() error {
	r.win.release()
	r.fl.Put(r.scratch)
	r.scratch = nil
	r.window = nil
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}
