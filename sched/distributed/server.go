package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The scheduler's concurrency model: one mutex (Server.mu) guards all
// state (workers, jobs, every task's state). Each stream has two
// goroutines: the handler, which is the stream's only sender, and a
// receiver, which reads a message, takes the mutex, applies it and
// releases the mutex. Whatever the state machine wants to tell a peer is
// appended to that peer's pending message (srvWorker.out, srvJob.out) and
// the sender is woken; it swaps the pending message out under the mutex
// and sends it outside it. So everything that accumulated while the
// sender was busy leaves as one message: with thousands of small tasks
// per second this batching, not the state machine, decides the per-task
// cost. A goroutine per task, or a channel per message, was rejected for
// the same reason.

// Server is a scheduler: it serves the control plane (workers' Connect
// sessions and clients' Compute jobs) and, when asked, the HTTP status
// endpoint. Create one with NewServer; it serves until Close.
type Server struct {
	opts     SchedulerOptions
	log      *slog.Logger
	insecure bool // listening beyond loopback without TLS and token, as allowed by opts.Insecure
	// statusWarn bounds the warnings of refused status requests.
	statusWarn warnLimit

	lis       net.Listener
	grpc      *grpc.Server
	statusLis net.Listener
	http      *http.Server

	done chan struct{} // closed by Close
	wg   sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	byID     []*srvWorker // every worker ever registered, by id; byID[0] is nil
	live     []*srvWorker // connected workers, in id order; srvWorker.slot indexes it
	jobs     map[uint64]*srvJob
	sessions map[string]*srvSession // client sessions by name (server_session.go)
	nextJob  uint64
	roots    map[string]*rootQueue // root tasks held back, by resource signature
	rootQs   []*rootQueue          // the same queues, in creation order
	score    []int64               // placement scratch, one per live worker
	started  time.Time
	stream   taskStream // the recent task runs, for the dashboard
	pl       placeState // ops, restrictions (constraints.go)

	longPolls atomic.Int64 // long polls of /dashboard.json served (tests)
}

// schedService implements pb.SchedulerServer for a Server, so that
// Connect and Compute are not methods of the exported type.
type schedService struct {
	pb.UnimplementedSchedulerServer
	s *Server
}

// NewServer starts a scheduler listening on opts.Address (and on
// opts.StatusAddress for the HTTP status endpoint, when set) and serving
// in the background. It returns an error if opts.Security's files cannot
// be loaded or an address cannot be listened on.
func NewServer(opts SchedulerOptions) (*Server, error) {
	opts = schedulerDefaults(opts)
	s := &Server{
		opts:     opts,
		log:      opts.Logger,
		done:     make(chan struct{}),
		byID:     []*srvWorker{nil},
		jobs:     make(map[uint64]*srvJob),
		sessions: make(map[string]*srvSession),
		roots:    make(map[string]*rootQueue),
		started:  time.Now(),
	}
	sopts, err := opts.Security.serverOptions(s.log)
	if err != nil {
		return nil, err
	}
	for _, l := range []struct{ what, addr string }{{"scheduler", opts.Address}, {"status endpoint", opts.StatusAddress}} {
		if l.addr == "" {
			continue
		}
		insecure, err := exposure(l.what, l.addr, opts.Security, opts.Insecure)
		if err != nil {
			return nil, err
		}
		if insecure {
			s.insecure = true
			s.log.Warn("INSECURE: listening beyond loopback without TLS and a token; anyone who reaches the port can run tasks", "what", l.what, "address", l.addr)
		}
	}
	sopts = append(sopts,
		grpc.MaxRecvMsgSize(64<<20),
		grpc.MaxSendMsgSize(64<<20),
		// Workers and clients ping every 10 s; allow a little less so
		// that timer jitter never gets a peer's connection closed for
		// "too many pings".
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 10 * time.Second, Timeout: 10 * time.Second}),
	)
	lis, err := net.Listen("tcp", opts.Address)
	if err != nil {
		return nil, fmt.Errorf("distributed: scheduler: listen on %s: %w", opts.Address, err)
	}
	s.lis = lis
	s.grpc = grpc.NewServer(sopts...)
	pb.RegisterSchedulerServer(s.grpc, &schedService{s: s})
	if opts.StatusAddress != "" {
		if err := s.startStatus(); err != nil {
			lis.Close()
			return nil, err
		}
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.grpc.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			s.log.Error("scheduler: serving stopped", "err", err)
		}
	}()
	go func() {
		defer s.wg.Done()
		s.maintain()
	}()
	s.log.Info("scheduler listening", "address", s.Addr(), "status", s.StatusAddr())
	return s, nil
}

func schedulerDefaults(o SchedulerOptions) SchedulerOptions {
	if o.Address == "" {
		o.Address = "127.0.0.1:0"
	}
	if o.HeartbeatInterval <= 0 {
		o.HeartbeatInterval = 500 * time.Millisecond
	}
	if o.WorkerTimeout <= 0 {
		o.WorkerTimeout = 10 * time.Second
	}
	if o.AllowedFailures <= 0 {
		o.AllowedFailures = 3
	}
	if o.WorkerSaturation <= 0 {
		o.WorkerSaturation = 2
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxJobTasks <= 0 {
		o.MaxJobTasks = DefaultMaxJobTasks
	}
	if o.MaxJobBytes <= 0 {
		o.MaxJobBytes = DefaultMaxJobBytes
	}
	return o
}

// The defaults of SchedulerOptions.MaxJobTasks and MaxJobBytes.
const (
	DefaultMaxJobTasks = 10_000_000
	DefaultMaxJobBytes = 4 << 30
)

// Addr returns the control plane's host:port, the one listened on (with
// the port chosen when Address asked for port 0).
func (s *Server) Addr() string { return s.lis.Addr().String() }

// StatusAddr returns the status endpoint's host:port, or "" when none is
// served.
func (s *Server) StatusAddr() string {
	if s.statusLis == nil {
		return ""
	}
	return s.statusLis.Addr().String()
}

// Close stops the scheduler: clients' Compute streams end with an
// Unavailable error, workers' sessions end, and the listeners close. It
// waits for the scheduler's goroutines and returns nil; closing twice is
// a no-op.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	if s.http != nil {
		s.http.Close()
	}
	s.grpc.Stop()
	s.wg.Wait()
	return nil
}

var errClosing = status.Error(codes.Unavailable, "tessera: scheduler closing")

// maintain runs the periodic checks: workers silent for WorkerTimeout are
// lost, tasks no worker could take for WorkerTimeout fail their job, and
// work is rebalanced.
func (s *Server) maintain() {
	period := min(max(s.opts.WorkerTimeout/5, 10*time.Millisecond), time.Second)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			// A panic here is logged and the next tick tries again: the
			// scheduler process never dies of its own bookkeeping.
			s.locked("periodic checks", func() { s.checkTimeouts(now) })
		}
	}
}

// Connect is a worker's session: Register, Welcome, then messages both
// ways until the stream breaks or the worker goes silent.
func (svc *schedService) Connect(stream pb.Scheduler_ConnectServer) error {
	s := svc.s
	if err := s.admit(stream.Context(), RoleWorker, "a worker session"); err != nil {
		return err
	}
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	reg := first.GetRegister()
	switch {
	case reg == nil:
		return status.Error(codes.InvalidArgument, "tessera: a worker's first message must hold a Register")
	case reg.DataAddress == "":
		return status.Errorf(codes.InvalidArgument, "tessera: worker %q registered without a data address", reg.Name)
	case reg.Nthreads <= 0:
		return status.Errorf(codes.InvalidArgument, "tessera: worker %q registered with %d threads", reg.Name, reg.Nthreads)
	}
	var w *srvWorker
	closed := false
	if err := s.locked("a worker's registration", func() {
		if closed = s.closed; !closed {
			w = s.addWorker(reg)
		}
	}); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	if closed {
		return errClosing
	}
	// The Welcome goes out before anything addWorker queued for the
	// worker, since only this goroutine sends.
	err = stream.Send(&pb.SchedulerMessage{Welcome: &pb.Welcome{
		WorkerId:            w.id,
		HeartbeatIntervalMs: s.opts.HeartbeatInterval.Milliseconds(),
	}})
	if err != nil {
		s.locked("losing a worker", func() { s.lose(w, "sending welcome: "+err.Error()) })
		return err
	}
	if err := s.locked("a worker's registration", func() {
		if !w.gone {
			s.handleWorker(w, first)
		}
	}); err != nil {
		s.locked("losing a worker", func() { s.lose(w, err.Error()) })
		return status.Error(codes.Internal, err.Error())
	}

	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			m, err := stream.Recv()
			if err != nil {
				s.locked("losing a worker", func() {
					if errors.Is(err, io.EOF) {
						// The worker closed its side of the session (it is
						// stopping): the same bookkeeping, but not a
						// failure. A cancelled stream is not told apart
						// from a killed process: both read as Canceled.
						w.left = true
						s.lose(w, "left")
						return
					}
					s.lose(w, "connection: "+err.Error())
				})
				return
			}
			err = s.locked("a worker's message", func() {
				if !w.gone {
					s.handleWorker(w, m)
				}
			})
			if err != nil {
				s.locked("losing a worker", func() { s.lose(w, err.Error()) })
				return
			}
		}
	}()

	for {
		select {
		case <-w.wake:
		case <-w.quit:
			if w.left {
				return nil
			}
			return status.Error(codes.Unavailable, "tessera: worker lost: "+w.why)
		case <-s.done:
			return errClosing
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
		s.mu.Lock()
		m := w.out
		w.out = nil
		s.mu.Unlock()
		if m == nil {
			continue
		}
		for _, part := range splitSchedulerMessage(m, sendBatch) {
			if err := stream.Send(part); err != nil {
				s.locked("losing a worker", func() { s.lose(w, "send: "+err.Error()) })
				return err
			}
		}
	}
}

// sendBatch bounds the tasks' bytes in one message to a worker, well
// below maxMsgSize: a message gathers every task placed on the worker
// since the last send, and tasks carrying large literals (the blocks of
// a persisted array) would otherwise add up beyond what gRPC accepts;
// the send then failed and the worker was taken for dead.
const sendBatch = 16 << 20

// splitSchedulerMessage cuts m into messages whose Compute specs hold
// about limit bytes at most (a larger spec goes alone); the last carries
// the rest of m (steals, releases, cancellations, lost peers), which the
// worker handles after the message's tasks, as it would in one message.
// A message under the limit is returned as it is.
func splitSchedulerMessage(m *pb.SchedulerMessage, limit int) []*pb.SchedulerMessage {
	total := 0
	for _, spec := range m.Compute {
		total += specSize(spec)
	}
	if total <= limit {
		return []*pb.SchedulerMessage{m}
	}
	var parts []*pb.SchedulerMessage
	cur, size := &pb.SchedulerMessage{}, 0
	for _, spec := range m.Compute {
		n := specSize(spec)
		if size > 0 && size+n > limit {
			parts = append(parts, cur)
			cur, size = &pb.SchedulerMessage{}, 0
		}
		cur.Compute = append(cur.Compute, spec)
		size += n
	}
	cur.Welcome, cur.Steal, cur.Release, cur.CancelJobs, cur.LostPeers = m.Welcome, m.Steal, m.Release, m.CancelJobs, m.LostPeers
	cur.Replicate, cur.Retire = m.Replicate, m.Retire
	return append(parts, cur)
}

// specSize is about the encoded size of spec: its node, key and
// dependencies' keys and addresses, with a few bytes of framing each.
func specSize(spec *pb.TaskSpec) int {
	n := len(spec.Node) + len(spec.Key) + 32
	for _, d := range spec.Deps {
		n += len(d.Key) + 16
		for _, a := range d.Addresses {
			n += len(a) + 2
		}
	}
	return n
}

// Compute is one client's job: TaskDefs until Run, then events until the
// job's error or the client closing the stream.
func (svc *schedService) Compute(stream pb.Scheduler_ComputeServer) error {
	s := svc.s
	if err := s.admit(stream.Context(), RoleClient, "a job"); err != nil {
		return err
	}
	var j *srvJob
	if err := s.locked("a new job", func() {
		if !s.closed {
			j = s.newJob()
		}
	}); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	if j == nil {
		return errClosing
	}

	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			m, err := stream.Recv()
			if err != nil {
				s.locked("dropping a job", func() {
					if !j.ended {
						j.ended = true
						close(j.quit)
					}
					if err == io.EOF {
						s.retire(j) // a clean end: held outputs stay
					} else {
						s.dropJob(j)
					}
				})
				return
			}
			err = s.locked("a client's message", func() { s.handleClient(j, m) })
			if err != nil {
				s.locked("failing a job", func() {
					s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_INTERNAL, Message: err.Error()})
				})
			}
		}
	}()

	for {
		select {
		case <-j.wake:
		case <-j.quit:
			return nil
		case <-s.done:
			return errClosing
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
		s.mu.Lock()
		m, final := j.out, j.final
		j.out = nil
		s.mu.Unlock()
		if m == nil {
			continue
		}
		if err := stream.Send(m); err != nil {
			return err
		}
		if final {
			return nil
		}
	}
}

// admit checks that the certificate of ctx's peer is for role before it
// opens what (a worker session, a job): a client holding the cluster's
// token must not register as a worker and hand others forged results. A
// connection without TLS is the token's business; a certificate without a
// role (from an older tessera certs) is accepted with a warning.
func (s *Server) admit(ctx context.Context, role, what string) error {
	got, ok := peerRole(ctx)
	if !ok || got == role {
		return nil
	}
	addr := "unknown"
	if p, found := peer.FromContext(ctx); found && p.Addr != nil {
		addr = p.Addr.String()
	}
	if got == "" {
		s.log.Warn("accepted a certificate without a role; regenerate the cluster's certificates with tessera certs", "peer", addr, "for", what)
		return nil
	}
	s.log.Warn("refused a peer whose certificate is for another role", "peer", addr, "role", got, "for", what, "needs", role)
	return status.Errorf(codes.PermissionDenied, "tessera: %s needs a %s certificate; the peer's is for %s", what, role, got)
}

// locked runs f holding the scheduler's mutex. A panic in f (a bug in the
// scheduler) is logged with its stack and returned as an error, so that
// the session that hit it ends instead of the whole scheduler; the caller
// then drops that worker or fails that job.
func (s *Server) locked(what string, f func()) (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("scheduler: internal error", "during", what, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("tessera: scheduler internal error during %s: %v", what, r)
		}
	}()
	f()
	return nil
}

// wakeup wakes a sender without blocking: a wake already pending covers
// this one too.
func wakeup(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
