package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/keepalive"
)

// Client submits graphs to a scheduler and fetches their outputs from the
// workers. It implements sched.Scheduler; one Client serves any number of
// Gets, concurrently, over one connection to the scheduler. Make one with
// Connect, or take a Cluster's.
type Client struct {
	conn  *grpc.ClientConn
	sched pb.SchedulerClient
	data  fetcher
	opts  ClientOptions
	addr  string

	// Futures (futures.go).
	fmu    sync.Mutex
	futs   map[graph.Key]*futState
	smu    sync.Mutex // guards sess and closed; Send on the session
	sess   *clientSession
	closed bool

	// lateOpsOK lets jobs use ops registered after package
	// initialization: every worker is in this process (a Cluster's
	// in-process workers). See LateOpError.
	lateOpsOK bool
}

var _ sched.Scheduler = (*Client)(nil)

// fetcher is what the client needs of the data plane: dataClient (fetch.go),
// or a fake in tests.
type fetcher interface {
	fetch(ctx context.Context, addr string, job uint64, keys []string) ([]any, error)
	// dropPeer abandons the fetches from a worker the scheduler lost.
	dropPeer(addr string)
	close()
}

// Connect returns a client of the scheduler at address (host:port). It
// waits until the connection is up, bounded by ctx and 30 s; the
// connection is then kept, and re-established when it breaks, until
// Close.
func Connect(ctx context.Context, address string, opts ClientOptions) (*Client, error) {
	dial, err := opts.Security.dialOptions()
	if err != nil {
		return nil, err
	}
	dial = append(dial,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20), grpc.MaxCallSendMsgSize(64<<20)),
		// A scheduler that vanishes without closing the connection
		// (a machine down, a cable out) is noticed by missed pings.
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 10 * time.Second}))
	conn, err := grpc.NewClient(address, dial...)
	if err != nil {
		return nil, fmt.Errorf("distributed: connect to scheduler %s: %w", address, err)
	}
	if err := waitReady(ctx, conn, address, opts.Security); err != nil {
		conn.Close()
		return nil, fmt.Errorf("distributed: connect to scheduler %s: %w", address, err)
	}
	if err := checkIdentity(ctx, pb.NewSchedulerClient(conn)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("distributed: connect to scheduler %s: %w", address, err)
	}
	data := newDataClient(opts.Security)
	switch {
	case opts.MaxResultBytes > 0:
		data.maxValue = opts.MaxResultBytes
	case opts.MaxResultBytes == 0:
		data.maxValue = defaultMaxResult()
	}
	return &Client{conn: conn, sched: pb.NewSchedulerClient(conn), data: data, opts: opts, addr: address}, nil
}

// waitReady waits until conn (to address, dialed with sec) is up, bounded
// by ctx and 30 s. While it fails, a call that does not wait for the
// connection says why: a refused certificate ends the wait at once with an
// error wrapping ErrUnauthenticated, as no retry will fix it, and so does a
// scheduler speaking TLS to a client without it (speaksTLS); other reasons
// (nothing listening yet) are retried and reported at the end.
func waitReady(ctx context.Context, conn *grpc.ClientConn, address string, sec Security) error {
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn.Connect()
	var last error
	for {
		st := conn.GetState()
		switch st {
		case connectivity.Ready:
			return nil
		case connectivity.TransientFailure:
			pctx, pcancel := context.WithCancel(wctx)
			_, err := pb.NewSchedulerClient(conn).Compute(pctx)
			pcancel()
			if err != nil {
				if e := unauthenticated(err); errors.Is(e, ErrUnauthenticated) {
					return e
				}
				if !sec.TLS() && speaksTLS(wctx, address) {
					return errSpeaksTLS(address)
				}
				last = err
			}
		}
		if !conn.WaitForStateChange(wctx, st) {
			if err := ctx.Err(); err != nil {
				return err
			}
			if last != nil {
				return fmt.Errorf("not reachable after 30 s: %w", last)
			}
			return fmt.Errorf("not reachable after 30 s (connection %v)", st)
		}
	}
}

// defaultMaxResult is ClientOptions.MaxResultBytes's default: half of
// MemTotal from /proc/meminfo, or 16 GiB where that cannot be read.
func defaultMaxResult() int64 {
	const fallback = 16 << 30
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return fallback
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || kb <= 0 || kb > math.MaxInt64/1024 {
				return fallback
			}
			return kb * 1024 / 2
		}
	}
	return fallback
}

// ErrClientClosed is the error of a call on a Client after Close.
var ErrClientClosed = errors.New("distributed: client closed")

// Close closes the client's connections. Gets under way fail, later
// calls fail with ErrClientClosed, and closing again does nothing.
func (c *Client) Close() error {
	if c.isClosed() {
		return nil
	}
	c.closeSession()
	c.data.close()
	return c.conn.Close()
}

// isClosed reports whether Close was called.
func (c *Client) isClosed() bool {
	c.smu.Lock()
	defer c.smu.Unlock()
	return c.closed
}

// maxMessage bounds the bytes of TaskDefs the client puts in one
// ClientMessage, so that a large graph streams to the scheduler in pieces
// it can start decoding at once, far below the 64 MiB gRPC limit.
const maxMessage = 2 << 20

// maxNode bounds one encoded node: a node alone in its message must still
// fit the scheduler's 64 MiB receive limit, with room for the envelope.
const maxNode = 63 << 20

// Get runs g on the cluster and returns the values of keys, in order. It
// fails on bad input exactly as sched.Threaded does, a failing task gives a
// *sched.TaskError naming its key (wrapping a *RemoteError, a
// *sched.PanicError or a *KilledWorkerError), and a broken connection to
// the scheduler an error wrapping ErrSchedulerLost. Callbacks attached to
// ctx are called on the calling goroutine: Pretask and Posttask for every
// task, when the scheduler reports it finished (Posttask's value is nil:
// the value stays on the worker), and Release for every intermediate node,
// when its last dependent has finished, as Threaded does. Their worker
// argument is the scheduler's id of the worker that ran the task, or where
// it failed (-1 when the scheduler does not say).
func (c *Client) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) (out []any, err error) {
	cb := sched.HooksFrom(ctx)
	started := false
	defer func() {
		if !started {
			cb.Start(g)
		}
		cb.Finish(err)
	}()
	if c.isClosed() {
		return nil, ErrClientClosed
	}
	pg, d, want, err := sched.Plan(g, keys)
	if err != nil {
		return nil, err
	}
	started = true
	cb.Start(pg)
	if len(keys) == 0 {
		return []any{}, nil
	}
	j, err := newJob(pg, d, want, cb)
	if err != nil {
		return nil, err
	}
	j.lateOpsOK = c.lateOpsOK
	if len(j.outputs) > 0 {
		cfg, _ := callConfig(ctx, submitConfig{retries: c.opts.Retries})
		if err := cfg.check(); err != nil {
			return nil, err
		}
		enc, err := j.encode(int32(cfg.retries), c.opts.Name)
		if err != nil {
			return nil, err
		}
		enc.run.PlacePriority, enc.run.PlaceWorkers, enc.run.PlaceLoose = cfg.priority, cfg.workers, cfg.loose
		if enc.held {
			// Held keys are the session's: the job must name it.
			if enc.run.Session, err = c.session(ctx); err != nil {
				return nil, err
			}
		} else {
			// Keys the session holds are not computed again.
			enc.run.Session = c.openSession()
		}
		if err := c.run(ctx, j, enc); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
	}
	out = make([]any, len(want))
	for i, w := range want {
		out[i] = j.value(j.source[w])
	}
	return out, nil
}

// job is the client's state of one Get. Node indices are those of the
// planned graph; task indices are positions in the list sent to the
// scheduler, which is the graph in optimize.Order's order: a topological
// order, so that every dependency's task index is below its user's, and a
// node's priority is its own task index.
type job struct {
	g      *graph.Graph
	d      *graph.Deps
	cb     *sched.Hooks
	prio   []int32 // prio[node] is its task index
	byPrio []int32 // byPrio[task index] is its node
	wanted []bool

	// source[i] is the node whose value node i has: i itself, or the end
	// of its chain of aliases: a literal, whose value is in the graph, or
	// a task, whose value is fetched into vals (by task index). A slice
	// of values for every node was 16 bytes a node for a few outputs.
	source []int32
	vals   map[int32]any

	// outputs are the distinct task indices fetched from workers: the
	// sources of requested nodes that are tasks.
	outputs []int32
	state   map[int32]outputState
	left    int // outputs not fetched yet

	// Release emulation from the finish events the scheduler sends (when
	// callbacks want them), by sched's own completion bookkeeping.
	events   bool
	tr       *sched.Tracker
	finished []bool  // tasks reported finished (recomputed ones report again)
	tasks    int     // tasks not reported finished yet
	rel      []int32 // reused by complete
	fresh    []int32

	// A job of Futures (futures.go): its outputs stay on the workers,
	// held for the session, and are not fetched; onReady is called for
	// each as it is held, onStart at the job's first event. With onErred
	// the job keeps going (Run.keep_going, futerr.go): an output that
	// will not be computed is settled with its error.
	hold    bool
	onStart func()
	onReady func(t int32, where source)

	// lateOpsOK: ops registered after package initialization may be
	// sent (Client.lateOpsOK); otherwise encode refuses them.
	lateOpsOK bool
	onErred   func(t int32, err error)
}

type outputState uint8

const (
	outWaiting  outputState = iota // not ready, or lost and being recomputed
	outFetching                    // a fetch is under way
	outDone                        // value in vals
)

func newJob(g *graph.Graph, d *graph.Deps, want []int32, cb *sched.Hooks) (*job, error) {
	prio, err := optimize.Order(g, d)
	if err != nil {
		return nil, err
	}
	n := g.Len()
	j := &job{
		g: g, d: d, cb: cb, prio: prio,
		byPrio: make([]int32, n),
		wanted: make([]bool, n),
		source: make([]int32, n),
		vals:   map[int32]any{},
		state:  map[int32]outputState{},
		events: cb.PerTask(),
	}
	for i, p := range prio {
		j.byPrio[p] = int32(i)
	}
	// Sources in topological order: an alias's target comes first.
	for _, i := range j.byPrio {
		nd := g.At(int(i))
		j.source[i] = i
		if nd.Kind == graph.KindAlias {
			t, _ := g.Index(nd.Target)
			j.source[i] = j.source[t]
		}
	}
	for _, w := range want {
		j.wanted[w] = true
		s := j.source[w]
		if g.At(int(s)).Kind != graph.KindTask {
			continue
		}
		if _, dup := j.state[prio[s]]; !dup {
			j.state[prio[s]] = outWaiting
			j.outputs = append(j.outputs, prio[s])
		}
	}
	j.left = len(j.outputs)
	if j.events {
		j.initEvents()
	}
	return j, nil
}

// value returns the value of source node s: a literal's, or a fetched
// task's.
func (j *job) value(s int32) any {
	if nd := j.g.At(int(s)); nd.Kind == graph.KindLiteral {
		return nd.Value
	}
	return j.vals[j.prio[s]]
}

// initEvents prepares the release emulation and finishes the literals,
// which, as on Threaded, finish before any task and may finish aliases.
func (j *job) initEvents() {
	n := j.g.Len()
	want := make([]int32, 0, n)
	for i := range n {
		if j.wanted[i] {
			want = append(want, int32(i))
		}
		if j.g.At(i).Kind == graph.KindTask {
			j.tasks++
		}
	}
	j.tr = sched.NewTracker(j.g, j.d, want)
	j.finished = make([]bool, n)
	for i := range n {
		if j.g.At(i).Kind == graph.KindLiteral {
			j.complete(int32(i))
		}
	}
}

// complete marks node i finished (sched.Tracker.Complete) and calls the
// Release callbacks of the nodes it releases.
func (j *job) complete(i int32) {
	j.finished[i] = true
	if j.g.At(int(i)).Kind == graph.KindTask {
		j.tasks--
	}
	j.rel, j.fresh = j.tr.Complete(i, j.rel[:0], j.fresh[:0], func(a, _ int32) { j.finished[a] = true })
	for _, r := range j.rel {
		j.cb.Release(j.g.Key(int(r)))
	}
}

// taskFinished handles the scheduler's report that task index t finished
// on worker: the callbacks, once per task however often it ran (lost
// values are recomputed).
func (j *job) taskFinished(t int32, worker int, start, stop int64) {
	if t < 0 || int(t) >= len(j.byPrio) {
		return
	}
	i := j.byPrio[t]
	if j.finished[i] || j.g.At(int(i)).Kind != graph.KindTask {
		return
	}
	k := j.g.Key(int(i))
	j.cb.Pretask(k, worker)
	if start > 0 && stop >= start {
		j.cb.Ran(k, worker, time.Unix(0, start), time.Unix(0, stop))
	}
	j.cb.Posttask(k, nil, nil, worker)
	j.complete(i)
}

// encoded is a job's task list encoded for the scheduler, in task index
// order: every node's bytes (graph.EncodeNode) one after the other in
// chunks of up to arenaChunk bytes (arenaCap; a node of more than a quarter of that in a
// chunk of its own), found by ref (chunk << 32 | offset; a node ends
// where the next one starts, or at its chunk's end), and the task
// indices where each message after the first starts. Its messages are
// built one at a time as they are sent (message).
//
// Building every ClientMessage before sending (the first design) held a
// TaskDef, a node allocation and a dependency slice per task until the
// last message was sent: about 210 bytes a task of a reduction tree,
// for nothing, as a message is no use once sent.
type encoded struct {
	held   bool // some node stands for a held key (heldOp)
	j      *job
	chunks [][]byte
	ref    []uint64
	starts []int32 // first task index of messages 1, 2, ...
	run    *pb.Run
	ops    *opTable // the tasks' ops (constraints_client.go)
}

// encode encodes the job for the scheduler: TaskDefs in task index
// order, at most about maxMessage bytes per message, then Run in the
// last. Every node is encoded before anything is sent, so a node that
// cannot be is an *EncodeError and the scheduler never sees the job.
func (j *job) encode(retries int32, name string) (*encoded, error) {
	n := j.g.Len()
	e := &encoded{j: j, ref: make([]uint64, n), ops: newOpTable(n, j.lateOpsOK)}
	var scratch []byte
	size := 0
	for t := 0; t < n; t++ {
		i := int(j.byPrio[t])
		k := j.g.Key(i)
		var b []byte
		var err error
		if isHeld(j.g.At(i)) {
			e.held = true // sent as a held TaskDef, without its node
		} else {
			b, err = graph.EncodeNode(scratch[:0], j.g.At(i))
		}
		if err != nil {
			return nil, &EncodeError{Key: k, Err: err}
		}
		if err := e.ops.add(t, k, j.g.At(i)); err != nil {
			return nil, err
		}
		if len(b) > maxNode {
			return nil, &EncodeError{Key: k, Err: fmt.Errorf("%d bytes encoded, more than one message carries (%d)", len(b), maxNode)}
		}
		if cap(b) <= arenaChunk {
			scratch = b // reused, unless a large node made it large
		}
		c := len(e.chunks) - 1
		if c < 0 || len(e.chunks[c])+len(b) > cap(e.chunks[c]) {
			e.chunks = append(e.chunks, make([]byte, 0, arenaCap(len(e.chunks), len(b))))
			c++
		}
		e.ref[t] = uint64(c)<<32 | uint64(len(e.chunks[c]))
		e.chunks[c] = append(e.chunks[c], b...)
		sz := len(b) + len(k) + 5*len(j.d.Of(i)) + 16
		if size > 0 && size+sz > maxMessage {
			e.starts = append(e.starts, int32(t))
			size = 0
		}
		size += sz
	}
	e.run = &pb.Run{Outputs: j.outputs, Events: j.events, Retries: retries, Name: name}
	return e, nil
}

// count returns the number of messages.
func (e *encoded) count() int { return len(e.starts) + 1 }

// node returns task t's encoded node.
func (e *encoded) node(t int) []byte {
	c, off := e.ref[t]>>32, int(uint32(e.ref[t]))
	end := len(e.chunks[c])
	if t+1 < len(e.ref) && e.ref[t+1]>>32 == c {
		end = int(uint32(e.ref[t+1]))
	}
	return e.chunks[c][off:end:end]
}

// message builds message m: the TaskDefs of its tasks, over the encoded
// nodes, and Run in the last.
func (e *encoded) message(m int) *pb.ClientMessage {
	j := e.j
	lo, hi := 0, len(e.ref)
	if m > 0 {
		lo = int(e.starts[m-1])
	}
	if m < len(e.starts) {
		hi = int(e.starts[m])
	}
	msg := &pb.ClientMessage{Tasks: make([]*pb.TaskDef, hi-lo)}
	defs := make([]pb.TaskDef, hi-lo)
	ndeps := 0
	for t := lo; t < hi; t++ {
		ndeps += len(j.d.Of(int(j.byPrio[t])))
	}
	flat := make([]int32, 0, ndeps)
	for t := lo; t < hi; t++ {
		i := int(j.byPrio[t])
		def := &defs[t-lo]
		def.Key = string(j.g.Key(i))
		def.Node = e.node(t)
		def.Priority = int64(t)
		def.Held = e.held && isHeld(j.g.At(i))
		def.PlaceOp = e.ops.of[t]
		if e.ops.nested != nil {
			def.PlaceNestedOps = e.ops.nested[int32(t)]
		}
		if deps := j.d.Of(i); len(deps) > 0 {
			at := len(flat)
			for _, dep := range deps {
				flat = append(flat, j.prio[dep])
			}
			def.Deps = flat[at:len(flat):len(flat)]
		}
		if nd := j.g.At(i); nd.Kind == graph.KindTask && len(nd.Resources) > 0 {
			def.Resources = nd.Resources
		}
		msg.Tasks[t-lo] = def
	}
	if m == 0 {
		msg.PlaceOps = e.ops.names
	}
	if m == len(e.starts) {
		msg.Run = e.run
	}
	return msg
}

// isHeld reports whether nd stands for a key held by the client's session.
func isHeld(nd *graph.Node) bool {
	if nd.Kind != graph.KindTask {
		return false
	}
	_, ok := nd.Op.(*heldOp)
	return ok
}

// free drops the encoded nodes, once every message is sent.
func (e *encoded) free() { e.chunks, e.ref = nil, nil }

// fetched is the result of fetching some outputs from one address.
type fetched struct {
	src  source
	idx  []int32 // task indices
	vals []any
	err  error
}

// run sends the job and receives its events until every output is
// fetched (and, with callbacks, every task reported finished). Every
// goroutine it starts has exited when it returns. The concerns are one
// method each: receiving events (receive), acting on one (onEvent),
// fetching ready outputs (startFetch), and what a fetch's result means
// (onFetched, with the failure policy in fetchFailure).
func (c *Client) run(ctx context.Context, j *job, enc *encoded) error {
	// The stream's context has no deadline of its own but is cancelled
	// with ctx: given ctx's deadline, gRPC would send it to the scheduler,
	// whose end of the stream could expire first and make a deadline look
	// like a lost scheduler.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	r := &jobRun{c: c, j: j, sctx: sctx, evs: make(chan recvd, 1), results: make(chan fetched, 4)}
	defer r.wg.Wait()
	defer stop()
	defer cancel()
	var err error
	if r.stream, err = c.sched.Compute(sctx); err != nil {
		return c.lost(err)
	}
	r.wg.Add(1)
	go r.receive()
	for m := range enc.count() {
		if err := r.stream.Send(enc.message(m)); err != nil {
			// io.EOF: the scheduler ended the stream, and Recv says
			// why; otherwise the stream is broken.
			if err != io.EOF {
				return c.lost(err)
			}
			break
		}
	}
	enc.free()
	if err := r.loop(ctx); err != nil {
		return err
	}
	// Done: closing the stream ends the job, and the scheduler frees its
	// values on the workers, but those it holds for the session.
	_ = r.stream.CloseSend()
	if j.hold {
		// Held outputs outlive the job only when it ends cleanly: wait
		// until the scheduler has seen the end (it then ends its side),
		// as cancelling the stream would drop the job.
		t := time.NewTimer(30 * time.Second)
		defer t.Stop()
		for {
			select {
			case e := <-r.evs:
				if e.err == io.EOF {
					return nil
				}
				if e.err != nil {
					return c.lost(e.err)
				}
			case <-ctx.Done():
				return ctx.Err()
			case <-t.C:
				return fmt.Errorf("%w: %s did not end a finished job in 30 s", ErrSchedulerLost, c.addr)
			}
		}
	}
	return nil
}

// loop receives the job's events and fetches its outputs until every
// output is fetched (or held) and, with callbacks, every task reported
// finished.
func (r *jobRun) loop(ctx context.Context) error {
	c, j := r.c, r.j
	for j.left > 0 || (j.events && j.tasks > 0) {
		var err error
		select {
		case <-ctx.Done():
			return ctx.Err()
		case e := <-r.evs:
			if e.err != nil {
				return c.lost(e.err)
			}
			err = r.onEvent(e.ev)
		case f := <-r.results:
			if f.err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			err = r.onFetched(f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// jobRun is one run of a job: its stream to the scheduler and the fetches
// of its outputs. Only run's goroutine calls its methods, but receive and
// the fetches, which report on channels.
type jobRun struct {
	c       *Client
	j       *job
	sctx    context.Context // the stream's, cancelled when run returns
	stream  pb.Scheduler_ComputeClient
	jobID   uint64
	evs     chan recvd
	results chan fetched
	wg      sync.WaitGroup
}

type recvd struct {
	ev  *pb.ClientEvent
	err error
}

// receive passes the scheduler's events to run until the stream ends.
func (r *jobRun) receive() {
	defer r.wg.Done()
	for {
		ev, err := r.stream.Recv()
		select {
		case r.evs <- recvd{ev, err}:
		case <-r.sctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// onEvent acts on one event of the scheduler: finished tasks (for the
// callbacks), the job's error, workers lost, outputs ready to fetch.
func (r *jobRun) onEvent(ev *pb.ClientEvent) error {
	j := r.j
	if ev.Job != 0 {
		if r.jobID == 0 && j.onStart != nil {
			j.onStart()
		}
		r.jobID = ev.Job
	}
	if j.events {
		for _, te := range ev.Events {
			j.taskFinished(te.Index, int(te.WorkerId), te.StartUnixNano, te.StopUnixNano)
		}
	}
	if ev.Error != nil {
		return j.jobError(ev.Error)
	}
	// Fetches from workers the scheduler lost fail now, and their
	// outputs are asked for again (LostOutput).
	for _, a := range ev.LostPeers {
		r.c.data.dropPeer(a)
	}
	// Group the ready outputs by the address they are fetched from, so
	// that one call fetches all of them.
	var byAddr map[source][]int32
	var order []source
	for _, o := range ev.Outputs {
		st, ok := j.state[o.Index]
		if !ok || st != outWaiting || len(o.Addresses) == 0 {
			continue
		}
		if j.hold {
			// Held on the workers: not fetched.
			j.state[o.Index] = outDone
			j.left--
			if j.onReady != nil {
				src := source{o.Addresses[0], o.Job}
				if src.job == 0 {
					src.job = r.jobID
				}
				j.onReady(o.Index, src)
			}
			continue
		}
		a := source{o.Addresses[0], o.Job}
		if a.job == 0 {
			a.job = r.jobID
		}
		if byAddr == nil {
			byAddr = map[source][]int32{}
		}
		if _, seen := byAddr[a]; !seen {
			order = append(order, a)
		}
		byAddr[a] = append(byAddr[a], o.Index)
	}
	for _, a := range order {
		r.startFetch(a, byAddr[a])
	}
	// Outputs that will not be computed (keep-going jobs), after those
	// ready: an output held first and erred later stays held.
	for _, fe := range ev.Erred {
		if err := r.outputErred(fe); err != nil {
			return err
		}
	}
	return nil
}

// startFetch fetches the outputs idx (task indices) from src; the result
// comes back on r.results.
func (r *jobRun) startFetch(src source, idx []int32) {
	j := r.j
	keys := make([]string, len(idx))
	for x, t := range idx {
		keys[x] = string(j.g.Key(int(j.byPrio[t])))
		j.state[t] = outFetching
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		vals, err := r.c.data.fetch(r.sctx, src.addr, src.job, keys)
		select {
		case r.results <- fetched{src, idx, vals, err}:
		case <-r.sctx.Done():
		}
	}()
}

// onFetched keeps the values of a successful fetch; after a failed one it
// fetches again what is still there and tells the scheduler what was
// lost, or returns the error that ends the job.
func (r *jobRun) onFetched(f fetched) error {
	j := r.j
	if f.err == nil {
		for x, t := range f.idx {
			j.vals[t] = f.vals[x]
			j.state[t] = outDone
			j.left--
		}
		return nil
	}
	lost, again, err := j.fetchFailure(f)
	if err != nil {
		return err
	}
	if len(again) > 0 {
		r.startFetch(f.src, again)
	}
	m := &pb.ClientMessage{}
	for _, t := range lost {
		j.state[t] = outWaiting
		m.Lost = append(m.Lost, &pb.LostOutput{Index: t, Address: f.src.addr})
	}
	if err := r.stream.Send(m); err != nil && err != io.EOF {
		return r.c.lost(err)
	}
	return nil
}

// fetchFailure is the policy for a failed fetch of outputs f.idx: the
// outputs lost at f.addr (to be recomputed), those to fetch from it
// again, or the job's error.
//
// A value that cannot be sent (its type is not registered with the codec
// on the worker, or here) fails the same way from anywhere and after any
// recomputation: it is the task's error at once, not a loss to recompute
// for ever; so is a value larger than this client accepts. A key the
// worker lacks is lost there, and the others are fetched again. Any
// other failure loses them all: the worker is probably gone.
func (j *job) fetchFailure(f fetched) (lost, again []int32, err error) {
	var big *ValueTooLargeError
	if errors.As(f.err, &big) {
		return nil, nil, big
	}
	var ce *valueCodecError
	if errors.As(f.err, &ce) {
		t := f.idx[0]
		for _, x := range f.idx {
			if string(j.g.Key(int(j.byPrio[x]))) == ce.Key {
				t = x
			}
		}
		i := int(j.byPrio[t])
		return nil, nil, &sched.TaskError{Key: j.g.Key(i), Op: opName(j.g.At(i)), Err: ce}
	}
	var md *MissingDataError
	if !errors.As(f.err, &md) {
		return f.idx, nil, nil
	}
	for _, t := range f.idx {
		if string(j.g.Key(int(j.byPrio[t]))) == md.Key {
			lost = append(lost, t)
		} else {
			again = append(again, t)
		}
	}
	if len(lost) == 0 {
		return f.idx, nil, nil
	}
	return lost, again, nil
}

// lost maps a broken stream's error: a refused call wraps
// ErrUnauthenticated, anything else ErrSchedulerLost.
func (c *Client) lost(err error) error {
	if err == io.EOF {
		return fmt.Errorf("%w: %s ended the computation without a result", ErrSchedulerLost, c.addr)
	}
	if e := unauthenticated(err); errors.Is(e, ErrUnauthenticated) {
		return e
	}
	return fmt.Errorf("%w: %s: %v", ErrSchedulerLost, c.addr, err)
}

// jobError turns the scheduler's final JobError into Get's error.
func (j *job) jobError(je *pb.JobError) error {
	var key graph.Key
	var nd *graph.Node
	if je.Index >= 0 && int(je.Index) < len(j.byPrio) {
		i := int(j.byPrio[je.Index])
		key, nd = j.g.Key(i), j.g.At(i)
	}
	msg := je.Message
	if msg == "" && je.Failure != nil {
		msg = je.Failure.Message
	}
	switch je.Kind {
	case pb.JobError_TASK:
		if nd == nil {
			return &JobError{Kind: "task", Message: msg}
		}
		f := je.Failure
		if f == nil {
			f = &pb.Failure{Message: je.Message}
		}
		err := &sched.TaskError{Key: key, Op: opName(nd), Err: failureCause(f)}
		if j.events && !j.finished[j.byPrio[je.Index]] {
			w := int(je.WorkerId)
			if w <= 0 {
				w = -1 // a scheduler that does not say
			}
			j.cb.Pretask(key, w)
			j.cb.Posttask(key, nil, err, w)
		}
		return err
	case pb.JobError_KILLED_WORKER:
		if nd == nil {
			return &JobError{Kind: "killed worker", Message: msg}
		}
		return &sched.TaskError{Key: key, Op: opName(nd), Err: &KilledWorkerError{Key: key, Failures: killedCount(msg)}}
	case pb.JobError_NO_WORKER:
		return &JobError{Kind: "no worker", Key: key, Message: msg}
	case pb.JobError_PLACE_NO_OP:
		return &NoWorkerForOpError{Op: je.PlaceOp, Key: key, Workers: je.PlaceWorkers}
	case pb.JobError_BAD_GRAPH:
		return &JobError{Kind: "bad graph", Key: key, Message: msg}
	}
	return &JobError{Kind: "internal", Key: key, Message: msg}
}

func opName(nd *graph.Node) string {
	if nd.Kind == graph.KindTask && nd.Op != nil {
		return nd.Op.Name()
	}
	return nd.Kind.String()
}

// killedCount reads the number of workers that died running a task from
// the scheduler's message, the first number in it followed by " worker";
// 0 when there is none.
func killedCount(msg string) int {
	for x := 0; x < len(msg); x++ {
		n, y := 0, x
		for y < len(msg) && msg[y] >= '0' && msg[y] <= '9' && y-x < 6 {
			n = n*10 + int(msg[y]-'0')
			y++
		}
		if y > x && (x == 0 || msg[x-1] == ' ') && len(msg) >= y+7 && msg[y:y+7] == " worker" {
			return n
		}
		if y > x {
			x = y
		}
	}
	return 0
}
