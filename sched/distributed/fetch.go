package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The data plane: every worker serves the Data service, from which peers
// (a task's dependencies) and clients (a job's outputs) fetch values. A
// value travels as its graph.EncodeValue bytes cut into frames of at most
// frameSize bytes; the first frame of a value carries its key and total
// size, so that the receiver allocates the whole buffer once.
//
// A value is encoded once, into a pooled buffer, and the frames are slices
// of it: gRPC copies each frame into its own write buffer, and nothing
// else is copied on the sending side. A spilled value is not decoded to be
// sent: its file already holds the encoded bytes. The first design sent
// one Frame per value with the whole encoding in it; a 64 MiB message
// limit then capped value sizes, and gRPC held two full copies in memory.

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

// valueSource is what a data server serves: the values of a worker's store.
type valueSource interface {
	// appendEncoded appends the encoded bytes of job's value of key to dst.
	// ok is false when the value is not held; err is non-nil when it is
	// held but cannot be encoded or read back from disk.
	appendEncoded(dst []byte, job uint64, key string) (b []byte, ok bool, err error)
}

// bufPool recycles encoding buffers of the data server. Buffers larger
// than maxPooled are dropped rather than kept alive by the pool.
var bufPool = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 256 << 20

// dataServer serves the Data service from a valueSource.
type dataServer struct {
	pb.UnimplementedDataServer
	src valueSource
	log *slog.Logger
}

// Fetch streams the values of req.Keys in order. A value that cannot be
// encoded ends the call with a FailedPrecondition status naming its key.
func (s *dataServer) Fetch(req *pb.FetchRequest, stream grpc.ServerStreamingServer[pb.Frame]) error {
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooled {
			bufPool.Put(bp)
		}
	}()
	frame := new(pb.Frame)
	for _, key := range req.Keys {
		if err := stream.Context().Err(); err != nil {
			return status.FromContextError(err).Err()
		}
		b, ok, err := s.src.appendEncoded((*bp)[:0], req.Job, key)
		if err != nil {
			s.log.Warn("cannot send a value", "job", req.Job, "key", key, "err", err)
			return status.Errorf(codes.FailedPrecondition, "value %q of job %d: %v", key, req.Job, err)
		}
		if !ok {
			*frame = pb.Frame{Key: key, Missing: true}
			if err := stream.Send(frame); err != nil {
				return err
			}
			continue
		}
		*bp = b
		for off := 0; off == 0 || off < len(b); off += frameSize {
			end := min(off+frameSize, len(b))
			*frame = pb.Frame{Data: b[off:end]}
			if off == 0 {
				frame.Key, frame.Size = key, int64(len(b))
			}
			if err := stream.Send(frame); err != nil {
				return err
			}
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
func serveData(lis net.Listener, sec Security, log *slog.Logger, src valueSource) (*grpc.Server, error) {
	opts, err := dataServerOptions(sec, log)
	if err != nil {
		return nil, err
	}
	srv := grpc.NewServer(opts...)
	pb.RegisterDataServer(srv, &dataServer{src: src, log: log})
	go srv.Serve(lis)
	return srv, nil
}

// dialOptions are the gRPC dial options of data-plane connections: sec's,
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

	mu     sync.Mutex
	conns  map[string]*grpc.ClientConn
	closed bool
}

func newDataClient(sec Security) *dataClient {
	return &dataClient{sec: sec, conns: map[string]*grpc.ClientConn{}}
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
// worker refused this process).
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := pb.NewDataClient(cc).Fetch(ctx, &pb.FetchRequest{Job: job, Keys: keys})
	if err != nil {
		return fail(err)
	}
	for i, key := range keys {
		f, err := stream.Recv()
		if err == io.EOF {
			err = fmt.Errorf("stream ended after %d of %d values", i, len(keys))
		}
		if err != nil {
			return fail(err)
		}
		if f.Key != key {
			return fail(fmt.Errorf("got value %q, want %q", f.Key, key))
		}
		if f.Missing {
			got(i, nil, false)
			continue
		}
		if f.Size < int64(len(f.Data)) || f.Size > 1<<46 {
			return fail(fmt.Errorf("value %q: bad size %d for a frame of %d bytes", key, f.Size, len(f.Data)))
		}
		b := f.Data
		if size := f.Size; size > int64(len(f.Data)) {
			// Several frames: assemble them into one buffer, allocated
			// once (growing only past 1 GiB, so that a lying peer cannot
			// make this process allocate more than it sends). It is not
			// reused for the next value: a registered type's decoder may
			// keep its bytes.
			b = append(make([]byte, 0, min(size, 1<<30)), f.Data...)
			for int64(len(b)) < size {
				f, err := stream.Recv()
				if err == io.EOF {
					err = fmt.Errorf("stream ended inside value %q", key)
				}
				if err != nil {
					return fail(err)
				}
				if f.Key != "" || f.Missing || int64(len(b)+len(f.Data)) > size {
					return fail(fmt.Errorf("value %q: unexpected frame (key %q, missing %v, %d bytes) after %d of its %d bytes", key, f.Key, f.Missing, len(f.Data), len(b), size))
				}
				b = append(b, f.Data...)
			}
		}
		v, err := graph.Unmarshal(b)
		if err != nil {
			return fail(fmt.Errorf("value %q: %w", key, err))
		}
		got(i, v, true)
	}
	return nil
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
