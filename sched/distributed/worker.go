package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// A worker holds one session with its scheduler at a time (the Connect
// stream) and serves its data plane for as long as it runs. Per session
// it keeps:
//
//   - a queue of tasks by priority (lower first, then arrival), run by
//     Threads runner goroutines, never one goroutine per task; a task
//     holds its resources while it runs, and a runner takes the first
//     queued task whose resources are free;
//   - per job, a context that its running tasks get, cancelled by the
//     scheduler's cancel_jobs, and the job's values in the store;
//   - an outbox of results (done, failed, missing dependencies, steal
//     replies) that one sender goroutine drains into one message per
//     wake-up, so that a burst of small tasks costs one message, not one
//     per task; the same goroutine sends the heartbeat.
//
// A broken session drops everything of every job: the scheduler counts
// the worker as lost, and the values it held as gone, so keeping them
// would only hold memory that nobody will ask for. The worker then dials
// again for up to ConnectTimeout and starts afresh with a new id.

// Worker is a running worker: it runs the tasks its scheduler sends and
// serves the values it holds to peers and clients. Start one with
// StartWorker; it runs until its context is cancelled, Close is called,
// or its scheduler is gone for longer than ConnectTimeout.
type Worker struct {
	opts   WorkerOptions
	log    *slog.Logger
	cancel context.CancelFunc
	life   context.Context // cancelled when the worker stops
	lis    net.Listener
	srv    *grpc.Server
	addr   string // advertised data address
	store  *store
	// buffers is the worker's free list (package freelist), for its
	// lifetime: tasks find it in their context, and the data server and
	// the spiller encode values into its buffers.
	buffers *freelist.List
	data    *dataClient
	cc      *grpc.ClientConn
	reg     *pb.Register

	mu        sync.Mutex
	cond      *sync.Cond // a task was queued, resources were freed, or stopping
	queue     taskHeap
	tasks     map[taskID]*task // queued or running
	jobs      map[uint64]*jobState
	gone      map[uint64]bool          // cancelled jobs of this session: late tasks are ignored
	fetching  map[taskID]chan struct{} // values a runner is fetching; closed once stored (gather)
	free      map[string]float64
	executing int
	seq       uint64
	stopping  bool
	retired   bool              // the scheduler retired this worker (worker_retire.go)
	out       *pb.WorkerMessage // pending results; guarded by mu
	wake      chan struct{}     // the sender has something to send

	fetched atomic.Int64 // values received from peers (heartbeats, tests)

	wg   sync.WaitGroup // runners
	done chan struct{}
	err  error // set before done is closed
}

// StartWorker starts a worker: it listens for its data plane, connects to
// opts.Scheduler (retrying for up to opts.ConnectTimeout) and registers,
// and returns once the scheduler has welcomed it. The worker then runs in
// the background until ctx is cancelled or Close is called. A scheduler
// that refuses this worker's token or certificate gives an error wrapping
// ErrUnauthenticated at once.
func StartWorker(ctx context.Context, opts WorkerOptions) (*Worker, error) {
	if opts.Scheduler == "" {
		return nil, errors.New("distributed: worker: no scheduler address")
	}
	if opts.Threads <= 0 {
		opts.Threads = runtime.GOMAXPROCS(0)
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	for r, v := range opts.Resources {
		if !(v >= 0) || v > 1e300 {
			return nil, fmt.Errorf("distributed: worker: resource %q = %v, want a finite amount >= 0", r, v)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	host, _ := os.Hostname()
	if opts.Name == "" {
		opts.Name = host + ":" + strconv.Itoa(os.Getpid())
	}
	log = log.With("worker", opts.Name)
	listen := opts.ListenAddress
	if listen == "" {
		listen = ":0"
		if isLoopback(opts.Scheduler) {
			listen = "127.0.0.1:0"
		}
	}
	dialOpts, err := schedulerDialOptions(opts.Security)
	if err != nil {
		return nil, fmt.Errorf("distributed: worker: %w", err)
	}
	if opts.MemoryLimit > 0 {
		if err := checkSpillDir(opts.SpillDir); err != nil {
			return nil, fmt.Errorf("distributed: worker: memory limit %d bytes: %w", opts.MemoryLimit, err)
		}
	}
	insecure, err := exposure("worker data plane", listen, opts.Security, opts.Insecure)
	if err != nil {
		return nil, err
	}
	if insecure {
		log.Warn("INSECURE: data plane listening beyond loopback without TLS and a token; anyone who reaches it can read this worker's values", "address", listen)
	}
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("distributed: worker: data plane: %w", err)
	}
	addr := opts.AdvertiseAddress
	if addr == "" {
		addr = advertised(lis.Addr().(*net.TCPAddr), opts.Scheduler)
	}
	w := &Worker{
		opts:     opts,
		log:      log,
		lis:      lis,
		addr:     addr,
		store:    newStore(opts.MemoryLimit, opts.SpillDir),
		buffers:  freelist.NewAuto(2 * opts.Threads),
		data:     newDataClient(opts.Security),
		tasks:    map[taskID]*task{},
		jobs:     map[uint64]*jobState{},
		gone:     map[uint64]bool{},
		fetching: map[taskID]chan struct{}{},
		free:     map[string]float64{},
		out:      &pb.WorkerMessage{},
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		reg: &pb.Register{
			Name:        opts.Name,
			DataAddress: addr,
			Nthreads:    int32(opts.Threads),
			Resources:   opts.Resources,
			MemoryLimit: opts.MemoryLimit,
			Pid:         int32(os.Getpid()),
			Host:        host,
		},
	}
	placeRegister(w.reg, opts)
	w.cond = sync.NewCond(&w.mu)
	w.store.buffers = w.buffers
	for r, v := range opts.Resources {
		w.free[r] = v
	}
	fail := func(err error) (*Worker, error) {
		if w.srv != nil {
			w.srv.Stop()
		}
		lis.Close()
		if w.cc != nil {
			w.cc.Close()
		}
		w.data.close()
		w.store.close()
		return nil, err
	}
	if w.srv, err = serveData(lis, opts.Security, log, w.store, w.buffers); err != nil {
		return fail(fmt.Errorf("distributed: worker: %w", err))
	}
	if w.cc, err = grpc.NewClient(opts.Scheduler, dialOpts...); err != nil {
		return fail(fmt.Errorf("distributed: worker: scheduler %s: %w", opts.Scheduler, err))
	}
	ctx, w.cancel = context.WithCancel(ctx)
	w.life = ctx
	sess, err := w.connect(ctx)
	if err != nil {
		w.cancel()
		return fail(err)
	}
	for range opts.Threads {
		w.wg.Add(1)
		go w.runner()
	}
	go w.run(ctx, sess)
	return w, nil
}

// RunWorker runs a worker until ctx is cancelled (then it returns nil) or
// its scheduler is lost for good. It is the entry point of a worker
// process (tessera worker, MaybeWorker): with opts.ConfineFiles it first
// confines the files the process's tasks may use to opts.DataDirs
// (graph.RestrictPaths), which StartWorker, sharing its process with
// other code, does not.
func RunWorker(ctx context.Context, opts WorkerOptions) error {
	if opts.ConfineFiles {
		if err := graph.RestrictPaths(opts.DataDirs); err != nil {
			return fmt.Errorf("distributed: worker: %w", err)
		}
	}
	w, err := StartWorker(ctx, opts)
	if err != nil {
		return err
	}
	return w.Wait()
}

// DataAddr returns the address peers and clients fetch values from.
func (w *Worker) DataAddr() string { return w.addr }

// Wait blocks until the worker stops. It returns nil when it stopped for
// its context or Close, and an error naming the scheduler when it lost
// its scheduler for longer than ConnectTimeout.
func (w *Worker) Wait() error {
	<-w.done
	return w.err
}

// Close stops the worker: running tasks see their context cancelled,
// queued ones are dropped, its values and spill files are deleted. It
// returns when every goroutine of the worker has ended.
func (w *Worker) Close() error {
	w.cancel()
	<-w.done
	return nil
}

// schedulerDialOptions are the dial options of the control plane: sec's,
// large messages, a quick reconnect, and keepalive pings so that a
// scheduler whose machine vanished is noticed without waiting for TCP.
func schedulerDialOptions(sec Security) ([]grpc.DialOption, error) {
	opts, err := dataDialOptions(sec)
	if err != nil {
		return nil, err
	}
	return append(opts, grpc.WithKeepaliveParams(keepalive.ClientParameters{
		Time:    20 * time.Second,
		Timeout: 20 * time.Second,
	})), nil
}

// isLoopback reports whether the host of addr is a loopback name or
// address.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// advertised returns the data address to advertise for a listener at
// la: la itself, unless its host is unspecified (it listens on every
// interface); then the host is that of the interface that reaches the
// scheduler (a UDP "dial" sends nothing but picks the route).
func advertised(la *net.TCPAddr, scheduler string) string {
	port := strconv.Itoa(la.Port)
	if !la.IP.IsUnspecified() {
		return net.JoinHostPort(la.IP.String(), port)
	}
	if c, err := net.Dial("udp", scheduler); err == nil {
		defer c.Close()
		if ua, ok := c.LocalAddr().(*net.UDPAddr); ok && !ua.IP.IsUnspecified() {
			return net.JoinHostPort(ua.IP.String(), port)
		}
	}
	if h, err := os.Hostname(); err == nil {
		return net.JoinHostPort(h, port)
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// session is one Connect stream to the scheduler.
type session struct {
	stream    grpc.BidiStreamingClient[pb.WorkerMessage, pb.SchedulerMessage]
	cancel    context.CancelFunc
	id        int32
	heartbeat time.Duration
}

// connect opens a session: it dials, registers and waits for the Welcome,
// retrying refused or broken attempts until ConnectTimeout has passed. A
// refusal for the token or certificate is final at once.
func (w *Worker) connect(ctx context.Context) (*session, error) {
	deadline := time.Now().Add(w.opts.ConnectTimeout)
	delay := 50 * time.Millisecond
	for {
		s, err := w.connectOnce(ctx, time.Until(deadline))
		if err == nil {
			return s, nil
		}
		err = unauthenticated(err)
		if !errors.Is(err, ErrUnauthenticated) && ctx.Err() == nil && !w.opts.Security.TLS() && speaksTLS(ctx, w.opts.Scheduler) {
			err = errSpeaksTLS(w.opts.Scheduler)
		}
		if errors.Is(err, ErrUnauthenticated) {
			w.log.Error("the scheduler refused this worker", "scheduler", w.opts.Scheduler, "err", err)
			return nil, fmt.Errorf("distributed: worker: scheduler %s: %w", w.opts.Scheduler, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Until(deadline) <= 0 {
			return nil, fmt.Errorf("distributed: worker: no scheduler at %s after %v: %w", w.opts.Scheduler, w.opts.ConnectTimeout, err)
		}
		t := time.NewTimer(min(delay, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		delay = min(2*delay, time.Second)
	}
}

// hello sends the Register on a new session's stream and returns the
// scheduler's first message, its Welcome. A Send that finds the stream
// already ended returns io.EOF, and only Recv says why: the scheduler
// refuses a session at once, before reading the Register, when the token
// or the certificate's role is wrong. (Taking that io.EOF for the error,
// as the first version did, turned a refusal into a broken stream, which
// connect retries until ConnectTimeout and then reports as no scheduler:
// the refusal raced the Register, and lost on a loaded machine.)
func hello(stream pb.Scheduler_ConnectClient, reg *pb.Register) (*pb.SchedulerMessage, error) {
	if err := stream.Send(&pb.WorkerMessage{Register: reg}); err != nil && err != io.EOF {
		return nil, err
	}
	m, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	if m.Welcome == nil {
		return nil, errors.New("the scheduler's first message has no Welcome")
	}
	return m, nil
}

func (w *Worker) connectOnce(ctx context.Context, timeout time.Duration) (*session, error) {
	// The session's stream outlives ctx: when ctx ends, sendLoop closes
	// the worker's side so that the scheduler sees it leave rather than
	// die. Until the Welcome, ctx ending cancels the stream.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(ctx, cancel)
	defer unhook()
	timer := time.AfterFunc(max(timeout, time.Millisecond), cancel)
	stream, err := pb.NewSchedulerClient(w.cc).Connect(sctx)
	var m *pb.SchedulerMessage
	if err == nil {
		m, err = hello(stream, w.reg)
	}
	if !timer.Stop() && err == nil {
		err = errors.New("timed out waiting for the Welcome")
	}
	if err != nil {
		cancel()
		return nil, err
	}
	hb := time.Duration(m.Welcome.HeartbeatIntervalMs) * time.Millisecond
	if hb <= 0 {
		hb = 500 * time.Millisecond
	}
	s := &session{stream: stream, cancel: cancel, id: m.Welcome.WorkerId, heartbeat: hb}
	w.log.Info("connected to the scheduler", "scheduler", w.opts.Scheduler, "id", s.id, "data", w.addr)
	// The Welcome may come with work already.
	if len(m.Compute)+len(m.Steal)+len(m.Release)+len(m.CancelJobs) > 0 {
		w.handle(m)
	}
	return s, nil
}

// run serves sessions until ctx is done or the scheduler is lost for
// good, then stops the worker.
func (w *Worker) run(ctx context.Context, sess *session) {
	var err error
	for {
		serr := w.serve(ctx, sess)
		if ctx.Err() != nil {
			break
		}
		w.log.Warn("lost the scheduler; reconnecting", "scheduler", w.opts.Scheduler, "err", serr)
		if sess, err = w.connect(ctx); err != nil {
			if ctx.Err() != nil {
				err = nil
			} else {
				w.log.Error("gave up on the scheduler", "scheduler", w.opts.Scheduler, "err", err)
				err = fmt.Errorf("distributed: worker lost its scheduler %s: %w", w.opts.Scheduler, err)
			}
			break
		}
	}
	w.stop(err)
}

// stop ends the worker's goroutines and frees what it holds.
func (w *Worker) stop(err error) {
	w.cancel()
	w.mu.Lock()
	w.stopping = true
	w.dropAllLocked()
	w.cond.Broadcast()
	w.mu.Unlock()
	w.wg.Wait()
	w.stopData()
	w.data.close()
	w.cc.Close()
	w.store.close()
	w.buffers.Close()
	w.err = err
	close(w.done)
}

// serve runs one session until its stream breaks or ctx is done; then
// everything of every job is dropped.
func (w *Worker) serve(ctx context.Context, s *session) error {
	senderDone := make(chan struct{})
	sctx := s.stream.Context()
	go func() {
		defer close(senderDone)
		w.sendLoop(ctx, sctx, s)
	}()
	w.signal() // results queued while connecting
	var err error
	for {
		var m *pb.SchedulerMessage
		if m, err = s.stream.Recv(); err != nil {
			break
		}
		w.handle(m)
	}
	s.cancel()
	<-senderDone
	w.mu.Lock()
	w.dropAllLocked()
	w.mu.Unlock()
	return err
}

// signal wakes the sender.
func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// sendLoop sends the outbox whenever it is signalled, and a heartbeat
// every interval, until the stream (sctx) ends or a send fails. When the
// worker stops (ctx), it closes its side of the stream, the scheduler
// ends the session as a worker that left, and Recv in serve sees the end;
// a scheduler that does not answer within a second is cut off.
func (w *Worker) sendLoop(ctx, sctx context.Context, s *session) {
	tick := time.NewTicker(s.heartbeat)
	defer tick.Stop()
	for {
		hb := false
		select {
		case <-sctx.Done():
			return
		case <-ctx.Done():
			s.stream.CloseSend()
			time.AfterFunc(time.Second, s.cancel)
			return
		case <-w.wake:
		case <-tick.C:
			hb = true
		}
		w.mu.Lock()
		m := w.out
		empty := len(m.Done)+len(m.Failed)+len(m.Missing)+len(m.Stolen)+len(m.Replicas) == 0
		if !empty {
			w.out = &pb.WorkerMessage{}
		}
		w.mu.Unlock()
		if empty {
			if !hb {
				continue
			}
			m = &pb.WorkerMessage{}
		}
		if hb {
			m.Heartbeat = w.heartbeat()
		}
		if err := s.stream.Send(m); err != nil {
			s.cancel() // Recv fails too, and serve ends the session
			return
		}
	}
}

// heartbeat returns the worker's current counters.
func (w *Worker) heartbeat() *pb.Heartbeat {
	st := w.store.statsNow()
	w.mu.Lock()
	executing, queued := w.executing, len(w.queue)
	w.mu.Unlock()
	return &pb.Heartbeat{
		MemoryBytes:  st.memory,
		SpilledBytes: st.spilled,
		RssBytes:     rss(),
		Executing:    int32(executing),
		Queued:       int32(queued),
		StoredKeys:   st.keys,
		SpillCount:   st.spillCount,
		UnspillCount: st.unspillCount,
		CpuSeconds:   cpuSeconds(),
		FetchCount:   w.fetched.Load(),
		FetchedBytes: w.data.fetchedBytes.Load(),
	}
}

// rss returns the process's resident set size in bytes, from
// /proc/self/statm; 0 where there is none.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
