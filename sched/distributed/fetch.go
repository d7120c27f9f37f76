package distributed

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The data plane: every worker serves the Data service, from which peers
// (a task's dependencies) and clients (a job's outputs) fetch values. A
// value travels as its graph.EncodeValue bytes cut into frames of at most
// frameSize bytes; the first frame of a value carries its key and total
// size, so that the receiver allocates the whole buffer once.
//
// A value is encoded once, into a buffer from the worker's free list
// (package freelist), and its frames are views of that buffer that gRPC
// writes to the socket as they are: the data plane's codec (frameCodec)
// marshals a frame as a few header bytes followed by the view, and the
// buffer goes back to the list when the last frame has been written. On the receiving side the codec reads each
// frame's bytes straight from gRPC's read buffers into the value's
// assembly buffer, allocated once at its full size. A spilled value is
// not decoded to be sent: its file already holds the encoded bytes.
//
// Rejected: one Frame per value with the whole encoding in it (the 64 MiB
// message limit capped value sizes, and gRPC held two full copies); the
// generated proto codec for frames, which copies every frame twice on
// each side (into a marshalled message, into gRPC's buffers; out of them
// into one contiguous buffer, into Frame.Data) and halved the throughput
// of 8 MiB arrays.

const (
	// frameSize bounds the data of one Frame.
	frameSize = 4 << 20
	// maxMsgSize is the gRPC message limit of data-plane and control-plane
	// connections.
	maxMsgSize = 64 << 20
	// windowSize is the HTTP/2 flow-control window of data-plane
	// connections: large enough that an 8 MiB value streams without
	// waiting for window updates.
	windowSize = 8 << 20
	// ioBufferSize is gRPC's socket read and write buffer size.
	ioBufferSize = 1 << 20
)

// MissingDataError reports a value that the worker at Address does not
// hold: it was never computed there, or was released, or the worker lost
// it when its scheduler connection broke.
type MissingDataError struct {
	Address string // the worker's data address
	Key     string
}

func (e *MissingDataError) Error() string {
	return fmt.Sprintf("distributed: worker %s does not hold %q", e.Address, e.Key)
}

// valueCodecError reports a value that its worker holds but could not
// encode, or that this process could not decode (its type is not
// registered here): fetching it again, from anywhere, fails the same way,
// so a task that needs it fails instead of asking for it again.
type valueCodecError struct {
	Address, Key string
	Err          error
}

func (e *valueCodecError) Error() string {
	return fmt.Sprintf("value %q from %s cannot be sent: %v", e.Key, e.Address, e.Err)
}

func (e *valueCodecError) Unwrap() error { return e.Err }

// valueSource is what a data server serves: the values of a worker's store.
type valueSource interface {
	// appendEncoded appends the encoded bytes of job's value of key to dst.
	// ok is false when the value is not held; err is non-nil when it is
	// held but cannot be encoded or read back from disk.
	appendEncoded(dst []byte, job uint64, key string) (b []byte, ok bool, err error)
}

// sizeHinter is a valueSource that can say about how many bytes a
// value's encoding takes, so that the buffer it is encoded into comes
// from the free list at its size instead of growing.
type sizeHinter interface {
	sizeHint(job uint64, key string) int
}

// dataServer serves the Data service from a valueSource. The buffers
// values are encoded into come from the worker's free list (package
// freelist; nil: new memory per value) and go back when gRPC has written
// them.
//
// Rejected: a package-level sync.Pool (the first version), which every
// garbage collection empties.
type dataServer struct {
	pb.UnimplementedDataServer
	src valueSource
	log *slog.Logger
	fl  *freelist.List
}

// Fetch streams the values of req.Keys in order. A value that cannot be
// encoded ends the call with a FailedPrecondition status naming its key.
func (s *dataServer) Fetch(req *pb.FetchRequest, stream grpc.ServerStreamingServer[pb.Frame]) error {
	for _, key := range req.Keys {
		if err := stream.Context().Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		hint := 0
		if h, ok := s.src.(sizeHinter); ok {
			hint = h.sizeHint(req.Job, key)
		}
		buf := s.fl.Get(hint)[:0]
		b, ok, err := s.src.appendEncoded(buf, req.Job, key)
		if err != nil || !ok || !sameMemory(b, buf) {
			s.fl.Put(buf) // not sent, or the encoding grew into new memory
		}
		if err != nil || !ok {
			if err != nil {
				s.log.Warn("cannot send a value", "job", req.Job, "key", key, "err", err)
				return status.Errorf(codes.FailedPrecondition, "value %q of job %d: %v", key, req.Job, err)
			}
			if err := stream.SendMsg(&outFrame{key: key, missing: true}); err != nil {
				return err
			}
			continue
		}
		// root owns the buffer; every frame holds a view of it, which
		// gRPC frees once written, and the last free gives the buffer
		// back to the free list.
		root := mem.NewBuffer(&b, framePool{s.fl})
		for off := 0; off < len(b); off += frameSize {
			f := &outFrame{data: root.Slice(off, min(off+frameSize, len(b)))}
			if off == 0 {
				f.key, f.size = key, int64(len(b))
			}
			if err := stream.SendMsg(f); err != nil {
				root.Free()
				return err
			}
		}
		root.Free()
	}
	return nil
}

// sameMemory reports whether a and b start at the same byte.
func sameMemory(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && &a[:1][0] == &b[:1][0]
}

// framePool gives the data server's buffers back to the free list when
// gRPC is done with them (a mem.BufferPool).
type framePool struct{ fl *freelist.List }

func (p framePool) Get(n int) *[]byte {
	b := p.fl.Get(n)
	return &b
}

func (p framePool) Put(bp *[]byte) {
	p.fl.Put(*bp)
	*bp = nil
}

// outFrame is a Frame to send whose data is a view of a free-list buffer;
// frameCodec marshals it without copying the data. Its data belongs to
// gRPC once sent.
type outFrame struct {
	key     string
	size    int64
	missing bool
	data    mem.Buffer
}

// inFrame is a received Frame whose data frameCodec appends to data,
// which the receiver may set beforehand: the value's bytes so far.
type inFrame struct {
	key     string
	size    int64
	missing bool
	data    []byte
	// limit, when positive, bounds a value's declared size: a first frame
	// declaring more sets tooLarge and keeps none of its bytes, so that
	// nothing near the size is allocated.
	limit    int64
	tooLarge bool
}

// frameCodec is the data plane's gRPC codec: outFrame and inFrame as
// Frame's protobuf wire form without copying their data more than once,
// other messages by the proto codec. It keeps the name "proto", since the
// bytes on the wire are the same.
type frameCodec struct{}

var protoCodec = encoding.GetCodecV2("proto")

func (frameCodec) Name() string { return "proto" }

func (frameCodec) Marshal(v any) (mem.BufferSlice, error) {
	f, ok := v.(*outFrame)
	if !ok {
		return protoCodec.Marshal(v)
	}
	var h []byte
	if f.key != "" {
		h = protowire.AppendTag(h, 1, protowire.BytesType)
		h = protowire.AppendString(h, f.key)
	}
	if f.size != 0 {
		h = protowire.AppendTag(h, 2, protowire.VarintType)
		h = protowire.AppendVarint(h, uint64(f.size))
	}
	if f.missing {
		h = protowire.AppendTag(h, 4, protowire.VarintType)
		h = protowire.AppendVarint(h, 1)
	}
	if f.data == nil {
		return mem.BufferSlice{mem.SliceBuffer(h)}, nil
	}
	h = protowire.AppendTag(h, 3, protowire.BytesType)
	h = protowire.AppendVarint(h, uint64(f.data.Len()))
	return mem.BufferSlice{mem.SliceBuffer(h), f.data}, nil
}

func (frameCodec) Unmarshal(data mem.BufferSlice, v any) error {
	f, ok := v.(*inFrame)
	if !ok {
		return protoCodec.Unmarshal(data, v)
	}
	r := data.Reader()
	defer r.Close()
	for r.Remaining() > 0 {
		tag, err := binary.ReadUvarint(r)
		if err != nil {
			return fmt.Errorf("frame: %w", err)
		}
		num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
		var n uint64
		switch typ {
		case protowire.VarintType, protowire.BytesType:
			if n, err = binary.ReadUvarint(r); err != nil {
				return fmt.Errorf("frame field %d: %w", num, err)
			}
		case protowire.Fixed32Type:
			n = 4
		case protowire.Fixed64Type:
			n = 8
		default:
			return fmt.Errorf("frame field %d: wire type %d", num, typ)
		}
		if typ != protowire.VarintType && n > uint64(r.Remaining()) {
			return fmt.Errorf("frame field %d: %d bytes, %d left", num, n, r.Remaining())
		}
		switch {
		case num == 1 && typ == protowire.BytesType:
			k := make([]byte, n)
			io.ReadFull(r, k)
			f.key = string(k)
		case num == 2 && typ == protowire.VarintType:
			f.size = int64(n)
		case num == 4 && typ == protowire.VarintType:
			f.missing = n != 0
		case num == 3 && typ == protowire.BytesType:
			l := len(f.data)
			if f.data == nil && f.limit > 0 && f.size > f.limit {
				f.tooLarge = true
				r.Discard(int(n))
				continue
			}
			if f.data == nil && f.size >= int64(n) {
				// The first frame of a value: allocate it whole (up to
				// 1 GiB; beyond, it grows as bytes come, so that a lying
				// peer cannot make this process allocate more than it
				// sends).
				f.data = make([]byte, 0, min(f.size, 1<<30))
			}
			f.data = growTo(f.data, l+int(n))[:l+int(n)]
			io.ReadFull(r, f.data[l:])
		case typ == protowire.VarintType:
		default:
			r.Discard(int(n))
		}
	}
	return nil
}

// dataServerOptions are the gRPC server options of a data plane (and of
// the control plane, whose messages can be as large), after those of sec.
func dataServerOptions(sec Security, log *slog.Logger) ([]grpc.ServerOption, error) {
	opts, err := sec.serverOptions(log)
	if err != nil {
		return nil, err
	}
	return append(opts,
		grpc.ForceServerCodecV2(frameCodec{}),
		// Clients ping every 10 s (dataDialOptions); allow a little less,
		// so that timer jitter never closes a connection for "too many
		// pings".
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(maxMsgSize),
		grpc.MaxSendMsgSize(maxMsgSize),
		grpc.InitialWindowSize(windowSize),
		grpc.InitialConnWindowSize(windowSize),
		grpc.ReadBufferSize(ioBufferSize),
		grpc.WriteBufferSize(ioBufferSize),
	), nil
}

// serveData serves the Data service of src on lis in the background and
// returns the server; Stop it to stop serving.
func serveData(lis net.Listener, sec Security, log *slog.Logger, src valueSource, fl *freelist.List) (*grpc.Server, error) {
	opts, err := dataServerOptions(sec, log)
	if err != nil {
		return nil, err
	}
	srv := grpc.NewServer(opts...)
	pb.RegisterDataServer(srv, &dataServer{src: src, log: log, fl: fl})
	go srv.Serve(lis)
	return srv, nil
}

// dataDialOptions are the gRPC dial options of data-plane connections: sec's,
// large messages and windows, and a quick reconnect, since a worker that
// is back should serve again at once.
func dataDialOptions(sec Security) ([]grpc.DialOption, error) {
	opts, err := sec.dialOptions()
	if err != nil {
		return nil, err
	}
	return append(opts,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMsgSize), grpc.MaxCallSendMsgSize(maxMsgSize)),
		grpc.WithInitialWindowSize(windowSize),
		grpc.WithInitialConnWindowSize(windowSize),
		grpc.WithReadBufferSize(ioBufferSize),
		grpc.WithWriteBufferSize(ioBufferSize),
		// A peer that died is redialed with backoff while its connection
		// is in use; idle for this long, the connection stops trying.
		grpc.WithIdleTimeout(30*time.Second),
		// A peer that stops answering pings (its machine gone, its
		// process frozen) has its connection closed, which fails the
		// fetches on it, after about 20 s.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 10 * time.Second}),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 50 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: time.Second},
			MinConnectTimeout: 5 * time.Second,
		}),
	), nil
}

// dataClient fetches values from data planes. It keeps one gRPC
// connection per address, dialed on first use, for its lifetime; gRPC
// multiplexes concurrent fetches over it. It is safe for concurrent use.
type dataClient struct {
	sec Security
	// idle bounds the wait for each frame of a fetch (fetchIdleTimeout).
	idle time.Duration
	// maxValue, when positive, bounds the size of one fetched value
	// (ClientOptions.MaxResultBytes for a client).
	maxValue int64

	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn
	closed bool

	// fetchedBytes counts the bytes of the values received (a worker's
	// heartbeat reports it; the dashboard marks transfers with it).
	fetchedBytes atomic.Int64
}

// fetchIdleTimeout bounds the wait for the next frame of a fetch: a peer
// whose process is frozen (SIGSTOP, a stuck disk) or whose serving code
// is stuck would otherwise hold the fetching task forever. A frame is at
// most 4 MiB, so a minute without one is no slow link but a peer that
// stopped. A peer whose whole machine went away is noticed sooner by the
// connection's keepalive (dataDialOptions).
const fetchIdleTimeout = time.Minute

func newDataClient(sec Security) *dataClient {
	return &dataClient{sec: sec, idle: fetchIdleTimeout, conns: map[string]*grpc.ClientConn{}}
}

// ValueTooLargeError is the error of a fetch whose value is larger than the
// fetching process accepts (ClientOptions.MaxResultBytes): it is refused
// before its bytes are allocated.
type ValueTooLargeError struct {
	Address, Key string
	Size, Limit  int64
}

func (e *ValueTooLargeError) Error() string {
	return fmt.Sprintf("distributed: value %q at %s is %d bytes, more than this process accepts (%d bytes; ClientOptions.MaxResultBytes)", e.Key, e.Address, e.Size, e.Limit)
}

// StalledPeerError is the cause of a fetch's error when the peer sent
// nothing for Idle: the fetch gives up, and the task that needed the value
// asks another holder or has the scheduler recompute it.
type StalledPeerError struct {
	Address string
	Idle    time.Duration
}

func (e *StalledPeerError) Error() string {
	return fmt.Sprintf("distributed: peer %s sent nothing for %v", e.Address, e.Idle)
}

var errDataClientClosed = errors.New("distributed: data client closed")

func (d *dataClient) conn(addr string) (*grpc.ClientConn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, errDataClientClosed
	}
	if cc := d.conns[addr]; cc != nil {
		return cc, nil
	}
	opts, err := dataDialOptions(d.sec)
	if err != nil {
		return nil, err
	}
	cc, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, err
	}
	d.conns[addr] = cc
	return cc, nil
}

// fetch returns the values of keys of job held by the worker at addr, in
// order. A key the worker lacks is a *MissingDataError; a dial or stream
// failure is an error that wraps it (and ErrUnauthenticated when the
// worker refused this process); a value that the worker cannot encode or
// this process cannot decode is an error that names its key.
func (d *dataClient) fetch(ctx context.Context, addr string, job uint64, keys []string) ([]any, error) {
	vals := make([]any, len(keys))
	var missing error
	err := d.fetchEach(ctx, addr, job, keys, func(i int, v any, ok bool) {
		if !ok && missing == nil {
			missing = &MissingDataError{Address: addr, Key: keys[i]}
		}
		vals[i] = v
	})
	if err != nil {
		return nil, err
	}
	if missing != nil {
		return nil, missing
	}
	return vals, nil
}

// fetchEach fetches keys of job from addr in one call and calls got for
// each key, in order, with its value, or with ok false when the worker
// does not hold it. It returns an error when the call fails or a value
// does not decode; got may have been called for some keys then.
func (d *dataClient) fetchEach(ctx context.Context, addr string, job uint64, keys []string, got func(i int, v any, ok bool)) error {
	fail := func(err error) error {
		return fmt.Errorf("distributed: fetch %d values of job %d from %s: %w", len(keys), job, addr, unauthenticated(err))
	}
	if len(keys) == 0 {
		return nil
	}
	cc, err := d.conn(addr)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// The watchdog cancels the call when no frame arrives for d.idle; the
	// cause then replaces gRPC's plain Canceled in the error.
	watchdog := time.AfterFunc(d.idle, func() { cancel(&StalledPeerError{Address: addr, Idle: d.idle}) })
	defer watchdog.Stop()
	fail = func(err error) error {
		var stalled *StalledPeerError
		if errors.As(context.Cause(ctx), &stalled) {
			err = stalled
		}
		return fmt.Errorf("distributed: fetch %d values of job %d from %s: %w", len(keys), job, addr, unauthenticated(err))
	}
	stream, err := pb.NewDataClient(cc).Fetch(ctx, &pb.FetchRequest{Job: job, Keys: keys}, grpc.ForceCodecV2(frameCodec{}))
	if err != nil {
		return fail(err)
	}
	for i, key := range keys {
		f := inFrame{limit: d.maxValue}
		err := stream.RecvMsg(&f)
		watchdog.Reset(d.idle)
		if err == io.EOF {
			err = fmt.Errorf("stream ended after %d of %d values", i, len(keys))
		}
		if st, ok := status.FromError(err); ok && st.Code() == codes.FailedPrecondition {
			// The worker holds keys[i] but cannot encode it. An
			// unregistered type keeps its sentinel across the process
			// boundary, so that errors.Is finds it.
			cause := errors.New(st.Message())
			if strings.Contains(st.Message(), graph.ErrUnregisteredType.Error()) {
				cause = fmt.Errorf("%w (on the worker: %s)", graph.ErrUnregisteredType, st.Message())
			}
			return fail(&valueCodecError{Address: addr, Key: key, Err: cause})
		}
		if err != nil {
			return fail(err)
		}
		if f.key != key {
			return fail(fmt.Errorf("got value %q, want %q", f.key, key))
		}
		if f.missing {
			got(i, nil, false)
			continue
		}
		if f.tooLarge {
			return fail(&ValueTooLargeError{Address: addr, Key: key, Size: f.size, Limit: d.maxValue})
		}
		size := f.size
		if size < int64(len(f.data)) || size > 1<<46 {
			return fail(fmt.Errorf("value %q: bad size %d for a frame of %d bytes", key, size, len(f.data)))
		}
		// Later frames append to the same buffer. It is not reused for
		// the next value: a registered type's decoder may keep its bytes.
		b := f.data
		for int64(len(b)) < size {
			g := inFrame{data: b}
			err := stream.RecvMsg(&g)
			watchdog.Reset(d.idle)
			if err == io.EOF {
				err = fmt.Errorf("stream ended inside value %q", key)
			}
			if err != nil {
				return fail(err)
			}
			if g.key != "" || g.missing || int64(len(g.data)) > size || len(g.data) == len(b) {
				return fail(fmt.Errorf("value %q: unexpected frame (key %q, missing %v, %d bytes) after %d of its %d bytes", key, g.key, g.missing, len(g.data)-len(b), len(b), size))
			}
			b = g.data
		}
		v, err := graph.Unmarshal(b)
		if err != nil {
			return fail(&valueCodecError{Address: addr, Key: key, Err: err})
		}
		d.fetchedBytes.Add(size)
		got(i, v, true)
	}
	return nil
}

// dropPeer closes the connection to addr, whose worker the scheduler
// lost: fetches in flight on it fail at once (and their tasks report the
// values missing) instead of waiting for the keepalive or the idle bound.
// A later fetch from addr dials again: a worker that comes back at the
// same address is reachable.
func (d *dataClient) dropPeer(addr string) {
	d.mu.Lock()
	cc := d.conns[addr]
	delete(d.conns, addr)
	d.mu.Unlock()
	if cc != nil {
		cc.Close()
	}
}

// close closes every connection; later fetches fail.
func (d *dataClient) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for addr, cc := range d.conns {
		cc.Close()
		delete(d.conns, addr)
	}
}
