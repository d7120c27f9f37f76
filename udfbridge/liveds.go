package udfbridge

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
)

// Live data: frames read from a TCP stream as they arrive (LiberTEM-live).
// The wire format is described in doc.go ("Live data").

// The wire format's constants.
const (
	liveMagic       = "TSRLIVE\x00"
	liveVersion     = 1
	liveFixedBytes  = 16 // magic, version, dtype, order, dims counts, reserved
	liveFrameHeader = 16 // sequence number, payload size
)

// liveDTypes maps the wire's dtype codes to nd dtypes: codes are the
// format's own, not nd's enumeration, so that the format does not change
// when nd's does.
var liveDTypes = [...]nd.DType{1: nd.Bool, 2: nd.Int8, 3: nd.Int16, 4: nd.Int32, 5: nd.Int64,
	6: nd.Uint8, 7: nd.Uint16, 8: nd.Uint32, 9: nd.Uint64, 10: nd.Float32, 11: nd.Float64,
	12: nd.Complex64, 13: nd.Complex128}

func liveDTypeCode(dt nd.DType) (uint8, bool) {
	for c, d := range liveDTypes {
		if d == dt && dt.Valid() {
			return uint8(c), true
		}
	}
	return 0, false
}

// DefaultLiveTimeout is the deadline of each read from a live stream
// when LiveOptions gives none.
const DefaultLiveTimeout = 10 * time.Second

// DefaultLiveMaxBytes bounds the data a live stream may declare when
// LiveOptions gives no bound: the frames are kept in memory.
const DefaultLiveMaxBytes = 8 << 30

// MaxLiveFrameBytes bounds one frame of a live stream (1 GiB): a frame
// is read into memory whole.
const MaxLiveFrameBytes = 1 << 30

// LiveOptions configures a live dataset.
type LiveOptions struct {
	// Timeout is the deadline of every read from the connection (the
	// header, each frame's header, each frame); 0: DefaultLiveTimeout.
	Timeout time.Duration
	// MaxBytes bounds nav·sig·itemsize of the header; 0:
	// DefaultLiveMaxBytes. A stream declaring more is refused before
	// anything is allocated.
	MaxBytes int64
}

// LiveHeader describes a live stream: the scan's nav shape, the frames'
// sig shape, the dtype and the byte order of the frames on the wire.
type LiveHeader struct {
	Nav, Sig  []int
	DType     nd.DType
	BigEndian bool
}

// LiveError is an error of a live stream, naming the peer: Op is "dial",
// "header", "frame N" (the frame expected next), "read" or "spec".
type LiveError struct {
	Peer string
	Op   string
	Err  error
}

func (e *LiveError) Error() string {
	return "udfbridge: live stream from " + e.Peer + ": " + e.Op + ": " + e.Err.Error()
}

func (e *LiveError) Unwrap() error { return e.Err }

// ErrLiveFormat is the cause of a live stream's error when what it sent
// is not the format: a bad magic, version, dtype or shape, a frame out of
// sequence or of the wrong size.
var ErrLiveFormat = errors.New("not the live stream format")

// AppendBinary appends the header's wire form to b.
func (h LiveHeader) AppendBinary(b []byte) ([]byte, error) {
	code, ok := liveDTypeCode(h.DType)
	if !ok {
		return nil, fmt.Errorf("udfbridge: live header: dtype %v", h.DType)
	}
	if why := liveShapeProblem(h, math.MaxInt64); why != "" {
		return nil, fmt.Errorf("udfbridge: live header: %s", why)
	}
	order := uint8(0)
	if h.BigEndian {
		order = 1
	}
	b = append(b, liveMagic...)
	b = binary.LittleEndian.AppendUint16(b, liveVersion)
	b = append(b, code, order, uint8(len(h.Nav)), uint8(len(h.Sig)), 0, 0)
	for _, d := range append(dsClone(h.Nav), h.Sig...) {
		b = binary.LittleEndian.AppendUint64(b, uint64(d))
	}
	return b, nil
}

// liveShapeProblem says what is wrong with a header's shapes, or "".
func liveShapeProblem(h LiveHeader, maxBytes int64) string {
	if len(h.Nav) == 0 || len(h.Sig) == 0 {
		return fmt.Sprintf("nav %v and sig %v: need at least one axis each", h.Nav, h.Sig)
	}
	if why := shapeProblem(h.Nav, h.Sig); why != "" {
		return why
	}
	total, ok := shapeBytes(h.DType.Size(), h.Nav, h.Sig)
	if !ok || total > maxBytes {
		return fmt.Sprintf("nav %v × sig %v of %d-byte %v is more than %d bytes", h.Nav, h.Sig, h.DType.Size(), h.DType, maxBytes)
	}
	if fb, _ := shapeBytes(h.DType.Size(), h.Sig); fb > MaxLiveFrameBytes {
		return fmt.Sprintf("frames of sig %v are %d bytes, more than %d", h.Sig, fb, MaxLiveFrameBytes)
	}
	return ""
}

// readLiveHeader reads a header from r, checking every field before the
// next is sized from it: the dims counts bound the dims read, and the
// shapes' bytes (with overflow checks) must not pass maxBytes.
func readLiveHeader(r io.Reader, maxBytes int64) (LiveHeader, error) {
	var h LiveHeader
	var fixed [liveFixedBytes]byte
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return h, err
	}
	bad := func(format string, args ...any) (LiveHeader, error) {
		return LiveHeader{}, fmt.Errorf("%w: "+format, append([]any{ErrLiveFormat}, args...)...)
	}
	if string(fixed[:8]) != liveMagic {
		return bad("magic %q, want %q", fixed[:8], liveMagic)
	}
	if v := binary.LittleEndian.Uint16(fixed[8:]); v != liveVersion {
		return bad("version %d, want %d", v, liveVersion)
	}
	code, order, nn, ns := fixed[10], fixed[11], int(fixed[12]), int(fixed[13])
	if int(code) >= len(liveDTypes) || !liveDTypes[code].Valid() {
		return bad("dtype code %d", code)
	}
	if order > 1 {
		return bad("byte order %d, want 0 (little) or 1 (big)", order)
	}
	if fixed[14] != 0 || fixed[15] != 0 {
		return bad("reserved bytes %x, want zero", fixed[14:16])
	}
	if nn == 0 || ns == 0 || nn+ns > maxDatasetDims {
		return bad("%d nav and %d sig axes: want at least one each, at most %d in all", nn, ns, maxDatasetDims)
	}
	dims := make([]byte, 8*(nn+ns))
	if _, err := io.ReadFull(r, dims); err != nil {
		return h, err
	}
	shape := make([]int, nn+ns)
	for i := range shape {
		d := binary.LittleEndian.Uint64(dims[8*i:])
		if d > math.MaxInt32 {
			return bad("dimension %d of %d", i, d)
		}
		shape[i] = int(d)
	}
	h = LiveHeader{Nav: shape[:nn:nn], Sig: shape[nn:], DType: liveDTypes[code], BigEndian: order == 1}
	if why := liveShapeProblem(h, maxBytes); why != "" {
		return bad("%s", why)
	}
	return h, nil
}

// LiveDataset is a dataset whose frames arrive on a TCP connection as
// the scan runs: Read waits (as long as its ctx allows) until the frames
// it asks for have arrived. A goroutine reads the stream into memory,
// frame by frame, in blocks of about liveBlockBytes allocated as the
// frames come; the whole scan stays in memory until Close, since every
// UDF of a run, and any later run, may read any frame.
//
// Run over it processes each partition as soon as its frames are in;
// RunIter gives the partial results of the partitions merged so far
// while the rest of the scan is still being acquired.
type LiveDataset struct {
	conn    net.Conn
	peer    string
	name    string // String(), made once: checkRead names it in every read
	h       LiveHeader
	timeout time.Duration
	n       int // frames in the scan
	frame   int // bytes of a frame

	perBlock int // frames per block
	done     chan struct{}

	mu       sync.Mutex
	blocks   [][]byte
	received int
	err      error         // why the stream ended early (sticky)
	notify   chan struct{} // closed, then replaced, at each change while waiters > 0
	waiters  int           // Reads waiting on notify
	wake     int           // the fewest frames one of them waits for
}

var (
	_ Dataset           = (*LiveDataset)(nil)
	_ TaskReaderDataset = (*LiveDataset)(nil)
)

// liveBlockBytes is the size of the blocks frames are kept in.
const liveBlockBytes = 4 << 20

// DialLive connects to a live stream's sender at addr ("host:port"),
// reads its header and starts receiving frames.
func DialLive(ctx context.Context, addr string, opts LiveOptions) (*LiveDataset, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &LiveError{Peer: addr, Op: "dial", Err: err}
	}
	ds, err := NewLive(conn, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return ds, nil
}

// NewLive reads a live stream's header from conn and starts receiving
// frames; the dataset owns conn from now on (Close closes it). A header
// that is not the format, declares more than opts.MaxBytes, or does not
// arrive within the timeout is a *LiveError naming the peer.
func NewLive(conn net.Conn, opts LiveOptions) (*LiveDataset, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultLiveTimeout
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultLiveMaxBytes
	}
	peer := conn.RemoteAddr().String()
	if err := conn.SetReadDeadline(time.Now().Add(opts.Timeout)); err != nil {
		return nil, &LiveError{Peer: peer, Op: "header", Err: err}
	}
	h, err := readLiveHeader(conn, opts.MaxBytes)
	if err != nil {
		return nil, &LiveError{Peer: peer, Op: "header", Err: noEOF(err)}
	}
	d := &LiveDataset{conn: conn, peer: peer, name: "live stream from " + peer, h: h, timeout: opts.Timeout, n: dsProd(h.Nav), wake: math.MaxInt,
		frame: dsProd(h.Sig) * h.DType.Size(), done: make(chan struct{}), notify: make(chan struct{})}
	d.perBlock = max(1, liveBlockBytes/max(d.frame, 1))
	go d.receive()
	return d, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// receive reads the frames, in order, until the scan is complete or the
// stream fails; then it closes the connection.
func (d *LiveDataset) receive() {
	defer close(d.done)
	defer d.conn.Close()
	var hdr [liveFrameHeader]byte
	var blk []byte // the block frame f goes into
	for f := 0; f < d.n; f++ {
		fail := func(err error) {
			d.finish(&LiveError{Peer: d.peer, Op: fmt.Sprintf("frame %d", f), Err: err})
		}
		if err := d.readFull(hdr[:]); err != nil {
			fail(err)
			return
		}
		seq, size := binary.LittleEndian.Uint64(hdr[:8]), binary.LittleEndian.Uint64(hdr[8:])
		if seq != uint64(f) {
			fail(fmt.Errorf("%w: sequence number %d, want %d", ErrLiveFormat, seq, f))
			return
		}
		if size != uint64(d.frame) {
			fail(fmt.Errorf("%w: frame of %d bytes, want %d (sig %v of %v)", ErrLiveFormat, size, d.frame, d.h.Sig, d.h.DType))
			return
		}
		k := f % d.perBlock
		if k == 0 {
			// A new block, of the frames still to come at most.
			blk = make([]byte, min(d.perBlock, d.n-f)*d.frame)
			d.mu.Lock()
			d.blocks = append(d.blocks, blk)
			d.mu.Unlock()
		}
		if err := d.readFull(blk[k*d.frame : (k+1)*d.frame]); err != nil {
			fail(err)
			return
		}
		d.mu.Lock()
		d.received = f + 1
		// Waiters are woken when the first of them can go on, not at
		// every frame (a channel per frame).
		if d.waiters > 0 && d.received >= d.wake {
			close(d.notify)
			d.notify = make(chan struct{})
			d.wake = math.MaxInt
		}
		d.mu.Unlock()
	}
}

// readFull reads len(b) bytes with a deadline.
func (d *LiveDataset) readFull(b []byte) error {
	if err := d.conn.SetReadDeadline(time.Now().Add(d.timeout)); err != nil {
		return err
	}
	_, err := io.ReadFull(d.conn, b)
	return noEOF(err)
}

// finish records why the stream ended before the scan did.
func (d *LiveDataset) finish(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil {
		d.err = err
	}
	close(d.notify)
	d.notify = make(chan struct{})
}

// Close stops receiving and closes the connection; reads of frames not
// yet received fail afterwards. It waits for the receiving goroutine.
func (d *LiveDataset) Close() error {
	d.finish(&LiveError{Peer: d.peer, Op: "read", Err: net.ErrClosed})
	d.conn.Close()
	<-d.done
	return nil
}

// Header returns the stream's header.
func (d *LiveDataset) Header() LiveHeader {
	h := d.h
	h.Nav, h.Sig = dsClone(h.Nav), dsClone(h.Sig)
	return h
}

// Received returns how many frames have arrived, and the error that
// ended the stream early, if any.
func (d *LiveDataset) Received() (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.received, d.err
}

func (d *LiveDataset) NavShape() []int { return dsClone(d.h.Nav) }
func (d *LiveDataset) SigShape() []int { return dsClone(d.h.Sig) }
func (d *LiveDataset) DType() nd.DType { return d.h.DType }
func (d *LiveDataset) String() string  { return d.name }

// Spec fails: a live stream's frames arrive once, on one connection, so
// no other process can reopen it, and a run over it stays in this
// process (the suite of udftest calls such a dataset in-process only).
func (d *LiveDataset) Spec() (DatasetSpec, error) {
	return DatasetSpec{}, &LiveError{Peer: d.peer, Op: "spec", Err: errors.New("a live stream cannot be reopened: its frames arrive once, on one connection (run it in this process)")}
}

// wait blocks until frames [0, end) have arrived, the stream has failed,
// or ctx is done.
func (d *LiveDataset) wait(ctx context.Context, end int) error {
	for {
		d.mu.Lock()
		got, err, ch := d.received, d.err, d.notify
		if got >= end || err != nil {
			d.mu.Unlock()
			if got >= end {
				return nil
			}
			return err
		}
		d.waiters++
		d.wake = min(d.wake, end)
		d.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		d.mu.Lock()
		d.waiters--
		d.mu.Unlock()
		if ctx.Err() != nil {
			return &LiveError{Peer: d.peer, Op: "read", Err: fmt.Errorf("waiting for frame %d (%d of %d received): %w", end-1, got, d.n, ctx.Err())}
		}
	}
}

func (d *LiveDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	a, err := (&liveReader{d: d}).read(ctx, start, n, sigStart, sigShape, nil)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// TaskReader returns the reader of one partition task: tiles are copied
// out of the received frames into one buffer from the run's free list,
// reused from tile to tile and given back at Close.
func (d *LiveDataset) TaskReader() TileReader { return &liveReader{d: d} }

type liveReader struct {
	d      *LiveDataset
	buf    listBuf
	listed bool
	sh     []int // the tile's shape
	full   []int // a block's shape
	st     []int // the region's start in a block
	bsh    []int // the region's shape in a block
}

func (r *liveReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	if !r.listed {
		r.buf.fl, r.listed = freelist.FromContext(ctx), true
	}
	return r.read(ctx, start, n, sigStart, sigShape, &r.buf)
}

// read copies the region into a new array (buf nil) or buf's memory.
func (r *liveReader) read(ctx context.Context, start, n int, sigStart, sigShape []int, buf *listBuf) (*nd.Array, error) {
	d := r.d
	sigStart, sigShape, err := checkRead(d.String(), d.n, d.h.Sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := d.wait(ctx, start+n); err != nil {
		return nil, err
	}
	r.sh = append(append(r.sh[:0], n), sigShape...)
	dt := d.h.DType
	if buf == nil {
		tile, err := nd.Zeros(dt, r.sh...)
		if err != nil {
			return nil, err
		}
		if err := nd.FillRaw(tile, d.h.BigEndian, func(dst []byte) error {
			r.copyFrames(dst, start, n, sigStart, sigShape)
			return nil
		}); err != nil {
			return nil, err
		}
		return tile, nil
	}
	tile, err := buf.get(dt, r.sh)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: %v: tile buffer: %w", d, err)
	}
	// The tile is the first bytes of the buffer: copied into straight
	// (FillRaw's closure would cost an allocation per tile), then made
	// host order and valid bools as FillRaw would.
	raw := buf.mem[:dsProd(r.sh)*dt.Size()]
	r.copyFrames(raw, start, n, sigStart, sigShape)
	switch {
	case dt == nd.Bool:
		for i, b := range raw {
			if b > 1 {
				raw[i] = 1
			}
		}
	case d.h.BigEndian:
		w := dt.Size()
		if dt.IsComplex() {
			w /= 2
		}
		nd.SwapBytes(raw, w)
	}
	return tile, nil
}

// copyFrames copies the sig region of frames [start, start+n) out of the
// received blocks into dst, in C order, as they came on the wire.
func (r *liveReader) copyFrames(dst []byte, start, n int, sigStart, sigShape []int) {
	d := r.d
	// The blocks of received frames do not change: only the list is read
	// under the lock.
	d.mu.Lock()
	blocks := d.blocks
	d.mu.Unlock()
	item := d.h.DType.Size()
	regionBytes := dsProd(sigShape) * item
	for f := start; f < start+n; {
		b, k := f/d.perBlock, f%d.perBlock
		m := min(d.perBlock-k, start+n-f)
		blk := blocks[b]
		r.full = append(append(r.full[:0], len(blk)/max(d.frame, 1)), d.h.Sig...)
		r.st = append(append(r.st[:0], k), sigStart...)
		r.bsh = append(append(r.bsh[:0], m), sigShape...)
		pos0 := (f - start) * regionBytes
		_ = regionRuns(r.full, r.st, r.bsh, item, func(pos int, off int64, run int) error {
			copy(dst[pos0+pos:pos0+pos+run], blk[off:off+int64(run)])
			return nil
		})
		f += m
	}
}

// Close gives the tile buffer back to the run's free list.
func (r *liveReader) Close() error {
	r.buf.release()
	return nil
}

// LiveSender writes a live stream: the header at NewLiveSender, then
// frames in order with Send.
type LiveSender struct {
	w     io.Writer
	h     LiveHeader
	next  int
	n     int
	frame int
	buf   []byte
	view  nd.Array
}

// NewLiveSender writes h to w and returns a sender of its frames.
func NewLiveSender(w io.Writer, h LiveHeader) (*LiveSender, error) {
	b, err := h.AppendBinary(nil)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	return &LiveSender{w: w, h: h, n: dsProd(h.Nav), frame: dsProd(h.Sig) * h.DType.Size()}, nil
}

// Send writes the next frames: an array (k,)+sig of the header's dtype,
// each frame with its sequence number, in the header's byte order.
func (s *LiveSender) Send(frames *nd.Array) error {
	sh := frames.Shape()
	if frames.DType() != s.h.DType || len(sh) != 1+len(s.h.Sig) || !slices.Equal(sh[1:], s.h.Sig) {
		return fmt.Errorf("udfbridge: live sender: frames %v of shape %v, want %v of shape (k,)+%v", frames.DType(), sh, s.h.DType, s.h.Sig)
	}
	if sh[0] > s.n-s.next {
		return fmt.Errorf("udfbridge: live sender: %d frames after %d of a scan of %d", sh[0], s.next, s.n)
	}
	for k := range sh[0] {
		// One frame through a reused view: no header per frame.
		if err := s.view.SetSlice(frames, nd.Slice1{Start: k, Stop: k + 1, Step: 1}); err != nil {
			return err
		}
		s.buf = binary.LittleEndian.AppendUint64(s.buf[:0], uint64(s.next))
		s.buf = binary.LittleEndian.AppendUint64(s.buf, uint64(s.frame))
		s.buf = s.view.AppendBytes(s.buf, false)
		if s.h.BigEndian {
			w := s.h.DType.Size()
			if s.h.DType.IsComplex() {
				w /= 2
			}
			nd.SwapBytes(s.buf[liveFrameHeader:], w)
		}
		if _, err := s.w.Write(s.buf); err != nil {
			return fmt.Errorf("udfbridge: live sender: frame %d: %w", s.next, err)
		}
		s.next++
	}
	return nil
}

// SendFrames writes data (nav dims then sig dims, navDims of them) to w
// as a live stream: the header, then every frame in order.
func SendFrames(w io.Writer, data *nd.Array, navDims int, bigEndian bool) error {
	sh := data.Shape()
	if navDims < 1 || navDims >= len(sh) {
		return fmt.Errorf("udfbridge: SendFrames: %d nav dims of shape %v", navDims, sh)
	}
	s, err := NewLiveSender(w, LiveHeader{Nav: sh[:navDims], Sig: sh[navDims:], DType: data.DType(), BigEndian: bigEndian})
	if err != nil {
		return err
	}
	flat, err := data.Contiguous().Reshape(append([]int{dsProd(sh[:navDims])}, sh[navDims:]...)...)
	if err != nil {
		return err
	}
	return s.Send(flat)
}
