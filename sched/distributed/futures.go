package distributed

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Futures: values computed on the cluster and left there.
//
// A Future names one key whose value a job of this client computes (or
// computed) and the scheduler holds for the client's session (see
// server_session.go). The client counts the Futures of each key: Submit
// of a key already held (or being computed) returns a new Future of the
// same value without computing it again, and the key is released on the
// cluster when its last Future is released, when the Future becomes
// unreachable (runtime.AddCleanup), or when the client closes or its
// session breaks (then the scheduler drops everything it held).
//
// Each Submit or Map is one job whose outputs are the new keys, held for
// the session; a Future passed as an argument is a key the job marks held
// (TaskDef.held), which the workers fetch from its holders, never through
// the client. A job ends, and the scheduler retires it with its held
// values, once every output is held or erred; a job whose keys are all
// released before that is cancelled. A task that fails for good errs
// only its own Future and those of the keys that depend on it (the job
// keeps going on the scheduler: futerr.go, server_futerr.go); a Future
// argument that failed before its job was sent errs the keys depending
// on it at once, and they are not sent. Only a failure of the job itself
// (the connection, a bad graph) fails all its unfinished Futures, with
// an error naming it (ErrJobFailed).

// ErrCancelled is the error of a Future cancelled before its value was
// ready.
var ErrCancelled = errors.New("distributed: future cancelled")

// ErrJobFailed is wrapped by the error of a Future whose job failed on
// another task than its own.
var ErrJobFailed = errors.New("distributed: the future's job failed")

// Future is a value computed on the cluster and held there for this
// client. Its methods are safe for concurrent use.
type Future struct {
	c        *Client
	st       *futState
	released atomic.Bool
	cleanup  runtime.Cleanup // releases an unreachable Future; stopped by Release
}

// futState is what the Futures of one key share.
type futState struct {
	key     graph.Key
	refs    int           // Futures not released; guarded by Client.fmu
	done    chan struct{} // closed when the value is held, or the key failed
	started chan struct{} // closed when its job runs on the scheduler (or failed to)
	err     error         // set before done closes
	where   source        // where the value was when it was held, set before done closes
	job     *futJob
	watch   []func() // called when done closes; guarded by Client.fmu
	local   bool     // failed in the client (pruneFailed): never held on the cluster, nothing to release
}

// futJob is the job computing some keys.
type futJob struct {
	states []*futState
	live   int // states with Futures; guarded by Client.fmu
	cancel context.CancelFunc
	ready  int  // keys held or erred so far
	over   bool // the job ended
	held   bool // it ended cleanly: the scheduler holds its keys until released
}

// ending reports whether every key of j is held or erred: the job is ending
// cleanly, and the scheduler may have retired it already, so cancelling
// it (its stream) would not drop what it holds; the job's end releases
// the keys released meanwhile instead.
func (j *futJob) ending() bool { return j.ready == len(j.states) }

// heldOp is the op of a node standing for a held key in a graph: the
// client sends it as a held TaskDef, so it is never run on a worker. On
// another scheduler (Threaded) it fetches the value from the cluster.
type heldOp struct {
	f *Future // kept alive by the node: a persisted collection holds its blocks
}

func (o *heldOp) Name() string { return "distributed.held" }

// Params makes two nodes of the same key equal (graph.NodesEqual).
func (o *heldOp) Params() ([]byte, error) { return []byte(o.f.st.key), nil }

// Run fetches the held value: the node ran on a scheduler other than its
// client.
func (o *heldOp) Run(ctx context.Context, _ []any) (any, error) { return o.f.Result(ctx) }

// Pinned keeps the node a task of its own (optimize.Pinned): fused into
// its dependent, it would be computed, not linked.
func (o *heldOp) Pinned() bool { return true }

// Key returns the Future's key.
func (f *Future) Key() graph.Key { return f.st.key }

// Done returns a channel closed when the value is held on the cluster or
// its computation failed.
func (f *Future) Done() <-chan struct{} { return f.st.done }

// Err returns the Future's error once it is done: nil while it is
// pending and when its value is held.
func (f *Future) Err() error {
	select {
	case <-f.st.done:
		return f.st.err
	default:
		return nil
	}
}

// Result waits for the value and fetches it from the worker holding it.
func (f *Future) Result(ctx context.Context) (any, error) {
	vals, err := f.c.Gather(ctx, f)
	if err != nil {
		return nil, err
	}
	return vals[0], nil
}

// Node returns a graph node standing for the Future's value: a graph
// given to this client that refers to it reads the held value on the
// workers; on another scheduler the node fetches the value.
func (f *Future) Node() graph.Node { return graph.Task(&heldOp{f: f}) }

// Release drops this Future's reference; the value is released on the
// cluster when no Future of its key is left. Releasing twice is a no-op.
func (f *Future) Release() {
	if f != nil {
		f.c.Release(f)
	}
}

// ErrNilFuture is the error of a call given a nil *Future.
var ErrNilFuture = errors.New("distributed: nil Future")

// checkFutures returns an error naming the call (op) and the position of
// a nil Future among fs, or of a Future of another client; nil if none.
func (c *Client) checkFutures(op string, fs []*Future) error {
	for i, f := range fs {
		switch {
		case f == nil:
			return fmt.Errorf("distributed: %s: Future %d of %d: %w", op, i, len(fs), ErrNilFuture)
		case f.c != c:
			return fmt.Errorf("distributed: %s: %s is a Future of another client", op, f.st.key)
		}
	}
	return nil
}

// Release drops the references of fs (Future.Release), telling the
// scheduler about the keys released in one message.
func (c *Client) Release(fs ...*Future) {
	var keys []graph.Key
	var cancels []context.CancelFunc
	c.fmu.Lock()
	for _, f := range fs {
		if f == nil || f.c != c || !f.released.CompareAndSwap(false, true) {
			continue
		}
		f.cleanup.Stop()
		if f.st.job == nil && f.st.refs == 0 {
			continue // a Future that failed before it was counted
		}
		release, cancel := c.unrefLocked(f.st)
		if release {
			keys = append(keys, f.st.key)
		}
		if cancel != nil {
			cancels = append(cancels, cancel)
		}
	}
	c.fmu.Unlock()
	if len(keys) > 0 {
		c.releaseKeys(keys...)
	}
	for _, cancel := range cancels {
		cancel()
	}
}

// Cancel makes every Future of this key fail with ErrCancelled, unless
// its value is already held, and releases this one. The key is forgotten
// by the client, as Dask's cancel does: submitting it again computes it
// anew, though other Futures of the cancelled one are not released yet.
func (f *Future) Cancel() {
	if f == nil {
		return
	}
	f.c.fmu.Lock()
	st := f.st
	select {
	case <-st.done:
	default:
		st.err = ErrCancelled
		f.c.finishLocked(st)
		if f.c.futs[st.key] == st {
			delete(f.c.futs, st.key)
		}
	}
	f.c.fmu.Unlock()
	f.Release()
}

// newFuture returns a Future of st, counted.
func (c *Client) newFutureLocked(st *futState) *Future {
	if st.refs == 0 && st.job != nil {
		st.job.live++
	}
	st.refs++
	f := &Future{c: c, st: st}
	f.cleanup = runtime.AddCleanup(f, func(st *futState) {
		// The Future became unreachable without Release.
		c.fmu.Lock()
		release, cancel := c.unrefLocked(st)
		c.fmu.Unlock()
		if release {
			c.releaseKeys(st.key)
		}
		if cancel != nil {
			cancel()
		}
	}, st)
	return f
}

// unrefLocked drops one reference of st. It returns whether the key is
// to be released on the session now, and the job to cancel, if any: a
// running job is cancelled when none of its keys is wanted any more, and
// when it ends otherwise, it releases the keys released meanwhile.
func (c *Client) unrefLocked(st *futState) (release bool, cancel context.CancelFunc) {
	st.refs--
	if st.refs > 0 {
		return false, nil
	}
	if c.futs[st.key] == st {
		delete(c.futs, st.key)
	}
	j := st.job
	if j == nil {
		return false, nil
	}
	j.live--
	if j.over {
		return j.held && !st.local, nil
	}
	if j.live == 0 && !j.ending() {
		return false, j.cancel
	}
	return false, nil
}

// finishLocked closes st.done once and calls its watchers.
func (c *Client) finishLocked(st *futState) {
	select {
	case <-st.done:
		return
	default:
	}
	close(st.done)
	for _, w := range st.watch {
		w()
	}
	st.watch = nil
}

// SubmitOption configures one Submit or Map.
type SubmitOption func(*submitConfig)

type submitConfig struct {
	retries   int
	resources map[string]float64
	key       graph.Key
	// Placement (constraints_client.go).
	workers  []string
	loose    bool
	priority int64
}

// check reports options that cannot be meant: negative retries, a worker
// or resource with an empty name.
func (cfg *submitConfig) check() error {
	if cfg.retries < 0 {
		return fmt.Errorf("distributed: Retries(%d): negative", cfg.retries)
	}
	if slices.Contains(cfg.workers, "") {
		return errors.New("distributed: Workers: an empty worker name")
	}
	if _, ok := cfg.resources[""]; ok {
		return errors.New("distributed: Resources: a resource with an empty name")
	}
	return nil
}

// Retries re-runs a failing task up to n times before its error is final.
func Retries(n int) SubmitOption { return func(c *submitConfig) { c.retries = n } }

// Resources makes the task run only on workers offering res, holding them
// while it runs.
func Resources(res map[string]float64) SubmitOption {
	return func(c *submitConfig) { c.resources = res }
}

// WithKey names the submitted task's key instead of a token of its op and
// arguments (Submit only).
func WithKey(k graph.Key) SubmitOption { return func(c *submitConfig) { c.key = k } }

// Valuer is a lazy value of a collection (a delayed.Delayed): a key and
// the graph that computes it.
type Valuer interface {
	Key() graph.Key
	Graph() (*graph.Graph, error)
}

// Submit computes fn on the cluster and returns a Future of its value.
// fn is a registered graph.Op, called with args (a *Future argument is its
// value, which the workers fetch from one another), or a Valuer (args must
// be empty), whose graph runs as one job. Submitting a key this client
// already holds or computes returns a Future of the same value. Submit
// does not wait for the computation; an error building the task is the
// Future's error. The computation outlives ctx, whose values (callbacks)
// it keeps: a Future is stopped by Cancel, or by releasing every Future
// of its job, not by ctx.
func (c *Client) Submit(ctx context.Context, fn any, args ...any) *Future {
	return c.submit(ctx, fn, [][]any{args}, nil)[0]
}

// SubmitWith is Submit with options.
func (c *Client) SubmitWith(ctx context.Context, opts []SubmitOption, fn any, args ...any) *Future {
	return c.submit(ctx, fn, [][]any{args}, opts)[0]
}

// Map submits op once per argument list, as one job, and returns the
// Futures in order.
func (c *Client) Map(ctx context.Context, op graph.Op, argLists [][]any, opts ...SubmitOption) []*Future {
	return c.submit(ctx, op, argLists, opts)
}

// failedFuture returns a Future that failed with err (not held).
func (c *Client) failedFuture(k graph.Key, err error) *Future {
	st := &futState{key: k, done: make(chan struct{}), started: make(chan struct{}), err: err}
	close(st.done)
	close(st.started)
	return &Future{c: c, st: st}
}

// submit builds one job for argLists (a Valuer when fn is one) and starts
// it.
func (c *Client) submit(ctx context.Context, fn any, argLists [][]any, opts []SubmitOption) []*Future {
	cfg, _ := callConfig(ctx, submitConfig{})
	cfg.key = "" // a key names one submission, not every one under ctx
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	out := make([]*Future, len(argLists))
	if err := cfg.check(); err != nil {
		for i := range out {
			out[i] = c.failedFuture(cfg.key, err)
		}
		return out
	}
	if cfg.key != "" && len(argLists) != 1 {
		err := fmt.Errorf("distributed: map: WithKey names one task, but %d were asked for (it is an option of Submit)", len(argLists))
		for i := range out {
			out[i] = c.failedFuture(cfg.key, err)
		}
		return out
	}
	g := graph.New(len(argLists))
	var keys []graph.Key
	var args []*Future // Futures the graph refers to, kept until the job starts
	switch f := fn.(type) {
	case Valuer:
		if len(argLists) != 1 || len(argLists[0]) != 0 {
			return []*Future{c.failedFuture("", fmt.Errorf("distributed: submit %s: a delayed value takes no arguments", f.Key()))}
		}
		vg, err := f.Graph()
		if err != nil {
			return []*Future{c.failedFuture(f.Key(), err)}
		}
		return c.submitGraph(ctx, vg, []graph.Key{f.Key()}, cfg)
	case graph.Op:
		for i, al := range argLists {
			k, nd, fs, err := c.taskNode(f, al, cfg)
			if err == nil {
				for _, a := range fs {
					if err = g.Set(a.st.key, a.Node()); err != nil {
						break
					}
				}
			}
			if err == nil {
				err = g.Set(k, nd)
			}
			if err != nil {
				out[i] = c.failedFuture(k, err)
				continue
			}
			args = append(args, fs...)
			keys = append(keys, k)
		}
	default:
		return []*Future{c.failedFuture("", fmt.Errorf("distributed: submit: %T is neither a graph.Op nor a delayed value", fn))}
	}
	fs := c.start(ctx, g, keys, args, cfg)
	ki := 0
	for i := range out {
		if out[i] == nil {
			out[i] = fs[ki]
			ki++
		}
	}
	return out
}

// submitGraph starts a job computing keys of g, held: the Futures of
// keys, in order. Futures among g's nodes (held stand-ins) are its
// arguments.
func (c *Client) submitGraph(ctx context.Context, g *graph.Graph, keys []graph.Key, cfg submitConfig) []*Future {
	var args []*Future
	for i := range g.Len() {
		if nd := g.At(i); isHeld(nd) {
			op := nd.Op.(*heldOp)
			if op.f.c != c {
				err := fmt.Errorf("distributed: %s is a Future of another client", g.Key(i))
				out := make([]*Future, len(keys))
				for x, k := range keys {
					out[x] = c.failedFuture(k, err)
				}
				return out
			}
			args = append(args, op.f)
		}
	}
	return c.start(ctx, g, keys, args, cfg)
}

// Persist computes keys of g on the cluster and returns nodes standing
// for their values, which stay on the workers (sched.Persister): a graph
// given to this client later reads them there, and the values are
// released when the nodes (and any Futures of the keys) are unreachable,
// or the client closes.
func (c *Client) Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]graph.Node, error) {
	cfg, _ := callConfig(ctx, submitConfig{retries: c.opts.Retries})
	cfg.resources, cfg.key = nil, ""
	if err := cfg.check(); err != nil {
		return nil, err
	}
	fs := c.submitGraph(ctx, g, keys, cfg)
	if err := c.Wait(ctx, fs...); err != nil {
		for _, f := range fs {
			f.Release()
		}
		return nil, err
	}
	nodes := make([]graph.Node, len(fs))
	for i, f := range fs {
		if err := f.Err(); err != nil {
			for _, f := range fs {
				f.Release()
			}
			return nil, err
		}
		nodes[i] = f.Node()
	}
	return nodes, nil
}

var _ sched.Persister = (*Client)(nil)

// start makes the Futures of keys (computed by g): existing keys share
// their state; new ones form one job, started in the background.
func (c *Client) start(ctx context.Context, g *graph.Graph, keys []graph.Key, args []*Future, cfg submitConfig) []*Future {
	out := make([]*Future, len(keys))
	c.fmu.Lock()
	if c.futs == nil {
		c.futs = map[graph.Key]*futState{}
	}
	j := &futJob{}
	var want []graph.Key
	for i, k := range keys {
		st, ok := c.futs[k]
		if !ok {
			st = &futState{key: k, done: make(chan struct{}), started: make(chan struct{}), job: j}
			c.futs[k] = st
			j.states = append(j.states, st)
			want = append(want, k)
		}
		out[i] = c.newFutureLocked(st)
	}
	c.fmu.Unlock()
	if len(want) == 0 {
		return out
	}
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	j.cancel = cancel
	go c.runFutures(jctx, g, want, j, args, cfg)
	return out
}

// taskNode builds op's task over args: the node, its key (cfg.key, or a
// token of op and args), and the Futures among args.
func (c *Client) taskNode(op graph.Op, args []any, cfg submitConfig) (graph.Key, graph.Node, []*Future, error) {
	gargs := make([]graph.Arg, len(args))
	parts := make([]any, 0, len(args)+1)
	parts = append(parts, op)
	var fs []*Future
	for i, a := range args {
		ga, part, err := c.futureArg(&fs, a, 0)
		if err != nil {
			return "", graph.Node{}, nil, fmt.Errorf("distributed: submit %s: argument %d: %w", op.Name(), i, err)
		}
		gargs[i] = ga
		parts = append(parts, part)
	}
	nd := graph.Task(op, gargs...)
	nd.Resources = cfg.resources
	k := cfg.key
	if k == "" {
		tok, err := graph.Tokenize(parts...)
		if err != nil {
			// Not tokenizable (a registered type without a token):
			// impure, as Dask's submit(pure=False).
			var b [16]byte
			_, _ = rand.Read(b[:])
			tok = hex.EncodeToString(b[:])
		}
		k = graph.Key(opPrefix(op.Name()) + "-" + tok)
	}
	return k, nd, fs, nil
}

// maxArgDepth bounds the nesting of lists searched for Futures.
const maxArgDepth = 8

// futureArg makes a of a submission an argument: a *Future a reference
// to its key (the op gets its value), a []*Future, or a []any holding
// Futures at any depth, a list whose Futures are references (the op gets
// a []any of values, as Dask's submit unpacks lists of futures); anything
// else a literal. It appends the Futures to *fs and returns what the
// key's token is made of. A Future inside a map is refused, not sent as
// a value the workers cannot decode.
func (c *Client) futureArg(fs *[]*Future, a any, depth int) (graph.Arg, any, error) {
	switch x := a.(type) {
	case *Future:
		if x == nil {
			return graph.Arg{}, nil, ErrNilFuture
		}
		if x.c != c {
			return graph.Arg{}, nil, fmt.Errorf("%s is a Future of another client", x.st.key)
		}
		*fs = append(*fs, x)
		return graph.Ref(x.st.key), x.st.key, nil
	case []*Future:
		elems := make([]any, len(x))
		for i, f := range x {
			elems[i] = f
		}
		return c.futureList(fs, elems, depth)
	case []any:
		if depth < maxArgDepth && holdsFuture(x, depth) {
			return c.futureList(fs, x, depth)
		}
	case map[string]any:
		for k, v := range x {
			if _, ok := v.(*Future); ok {
				return graph.Arg{}, nil, fmt.Errorf("a Future in a map (key %q) is not resolved: pass it as an argument, or in a []any", k)
			}
		}
	}
	return graph.Lit(a), a, nil
}

// futureList is futureArg of a list holding Futures.
func (c *Client) futureList(fs *[]*Future, elems []any, depth int) (graph.Arg, any, error) {
	if depth >= maxArgDepth {
		return graph.Arg{}, nil, fmt.Errorf("Futures nested more than %d lists deep", maxArgDepth)
	}
	args := make([]graph.Arg, len(elems))
	parts := make([]any, len(elems))
	for i, e := range elems {
		a, p, err := c.futureArg(fs, e, depth+1)
		if err != nil {
			return graph.Arg{}, nil, fmt.Errorf("element %d: %w", i, err)
		}
		args[i], parts[i] = a, p
	}
	return graph.List(args...), parts, nil
}

// holdsFuture reports whether xs holds a Future, in nested []any or
// []*Future too, up to maxArgDepth.
func holdsFuture(xs []any, depth int) bool {
	for _, x := range xs {
		switch y := x.(type) {
		case *Future, []*Future:
			return true
		case []any:
			if depth+1 < maxArgDepth && holdsFuture(y, depth+1) {
				return true
			}
		}
	}
	return false
}

// opPrefix makes an op name a key prefix: no '-' or brackets.
func opPrefix(name string) string {
	b := []byte(name)
	for i, ch := range b {
		if ch == '-' || ch == '[' || ch == ']' || ch == ',' {
			b[i] = '_'
		}
	}
	return string(b)
}

// runFutures runs the job computing want and holds its outputs.
func (c *Client) runFutures(ctx context.Context, g *graph.Graph, want []graph.Key, fj *futJob, args []*Future, cfg submitConfig) {
	err := c.holdJob(ctx, g, want, fj, args, cfg)
	runtime.KeepAlive(args)
	c.fmu.Lock()
	defer c.fmu.Unlock()
	fj.over = true
	fj.held = err == nil
	var released []graph.Key
	for _, st := range fj.states {
		select {
		case <-st.started:
		default:
			close(st.started)
		}
		select {
		case <-st.done:
		default:
			st.err = futureError(err, st.key)
			c.finishLocked(st)
		}
		if st.refs == 0 && !st.local {
			released = append(released, st.key) // cancelled meanwhile
		}
	}
	if err == nil && len(released) > 0 {
		c.releaseKeys(released...)
	}
}

// futureError is the error of key's Future when its job ended with err.
func futureError(err error, key graph.Key) error {
	if err == nil {
		return fmt.Errorf("%w: %s was not computed", ErrJobFailed, key)
	}
	if errors.Is(err, context.Canceled) {
		return ErrCancelled
	}
	var te *sched.TaskError
	if errors.As(err, &te) && te.Key == key {
		return err
	}
	return fmt.Errorf("%w (key %s): %w", ErrJobFailed, key, err)
}

// holdJob sends the job computing want (outputs held for the session)
// once the jobs of its Future arguments run on the scheduler, and waits
// until every output is held or erred. Keys that depend on an argument
// that failed meanwhile fail at once and are not sent; the job keeps
// going past a failing task (Run.keep_going).
func (c *Client) holdJob(ctx context.Context, g *graph.Graph, want []graph.Key, fj *futJob, args []*Future, cfg submitConfig) (err error) {
	var failed map[graph.Key]error
	for _, a := range args {
		select {
		case <-a.st.started:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := a.Err(); err != nil {
			if failed == nil {
				failed = map[graph.Key]error{}
			}
			failed[a.st.key] = err
		}
	}
	byKey := make(map[graph.Key]*futState, len(fj.states))
	for _, st := range fj.states {
		byKey[st.key] = st
	}
	if len(failed) > 0 {
		var err error
		if want, err = c.pruneFailed(g, want, failed, byKey); err != nil {
			return err
		}
		if len(want) == 0 {
			return nil
		}
	}
	name, err := c.session(ctx)
	if err != nil {
		return err
	}
	pg, d, wantIdx, err := sched.Plan(g, want)
	if err != nil {
		return err
	}
	// The callbacks of the submitting context see the job as they see a
	// Get (PerformanceReport, progress bars, the profiler).
	hooks := sched.HooksFrom(ctx)
	hooks.Start(pg)
	defer func() { hooks.Finish(err) }()
	j, err := newJob(pg, d, wantIdx, hooks)
	if err != nil {
		return err
	}
	j.hold = true
	j.lateOpsOK = c.lateOpsOK
	j.onStart = func() {
		c.fmu.Lock()
		for _, st := range fj.states {
			select {
			case <-st.started:
			default:
				close(st.started)
			}
		}
		c.fmu.Unlock()
	}
	j.onReady = func(t int32, where source) {
		k := j.g.Key(int(j.byPrio[t]))
		c.fmu.Lock()
		if st := byKey[k]; st != nil {
			st.where = where
			fj.ready++
			c.finishLocked(st)
		}
		c.fmu.Unlock()
	}
	j.onErred = func(t int32, err error) {
		k := j.g.Key(int(j.byPrio[t]))
		c.fmu.Lock()
		if st := byKey[k]; st != nil {
			fj.ready++
			select {
			case <-st.done: // cancelled meanwhile
			default:
				st.err = err
				c.finishLocked(st)
			}
		}
		c.fmu.Unlock()
	}
	enc, err := j.encode(int32(cfg.retries), c.opts.Name)
	if err != nil {
		return err
	}
	enc.run.Session = name
	enc.run.Hold = j.outputs
	enc.run.PlacePriority = cfg.priority
	enc.run.PlaceWorkers = cfg.workers
	enc.run.PlaceLoose = cfg.loose
	enc.run.KeepGoing = true
	return c.run(ctx, j, enc)
}

// clientSession is the client's Session stream.
type clientSession struct {
	name   string
	stream pb.Scheduler_SessionClient
	cancel context.CancelFunc
	broken chan struct{}
}

// session returns the name of the client's session, opening it first.
func (c *Client) session(ctx context.Context) (string, error) {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.sess != nil {
		select {
		case <-c.sess.broken:
			c.sess = nil // the scheduler dropped what it held
		default:
			return c.sess.name, nil
		}
	}
	if c.closed {
		return "", ErrClientClosed
	}
	sctx, cancel := context.WithCancel(context.Background())
	stream, err := c.sched.Session(sctx)
	if err != nil {
		cancel()
		return "", c.lost(err)
	}
	type first struct {
		ev  *pb.SessionEvent
		err error
	}
	ch := make(chan first, 1)
	go func() {
		ev, err := stream.Recv()
		ch <- first{ev, err}
	}()
	t := time.NewTimer(30 * time.Second)
	defer t.Stop()
	var f first
	select {
	case f = <-ch:
	case <-ctx.Done():
		cancel()
		return "", ctx.Err()
	case <-t.C:
		cancel()
		return "", fmt.Errorf("%w: %s opened no session in 30 s", ErrSchedulerLost, c.addr)
	}
	if f.err != nil {
		cancel()
		return "", c.lost(f.err)
	}
	s := &clientSession{name: f.ev.Session, stream: stream, cancel: cancel, broken: make(chan struct{})}
	go func() {
		for {
			if _, err := stream.Recv(); err != nil {
				close(s.broken)
				return
			}
		}
	}()
	c.sess = s
	return s.name, nil
}

// openSession returns the session's name if one is open, else "".
func (c *Client) openSession() string {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.sess == nil {
		return ""
	}
	select {
	case <-c.sess.broken:
		return ""
	default:
		return c.sess.name
	}
}

// releaseKeys tells the scheduler that the session holds keys no more.
// A broken session holds nothing any more: nothing to send.
func (c *Client) releaseKeys(keys ...graph.Key) {
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.sess == nil {
		return
	}
	m := &pb.SessionMessage{Release: make([]string, len(keys))}
	for i, k := range keys {
		m.Release[i] = string(k)
	}
	_ = c.sess.stream.Send(m) // a broken stream released everything
}

// closeSession ends the session: the scheduler drops what it held.
func (c *Client) closeSession() {
	c.smu.Lock()
	defer c.smu.Unlock()
	c.closed = true
	if c.sess != nil {
		_ = c.sess.stream.CloseSend()
		c.sess.cancel()
		c.sess = nil
	}
}

// Gather waits for fs and fetches their values from the workers, in
// order. The first failed Future's error (in the order of fs) is
// returned; GatherSkip leaves failed Futures out instead.
//
// The values are fetched from where they were held, straight away; when
// that fails (a worker left, and a value lives elsewhere now, or is
// being recomputed), a job of held keys asks the scheduler where they
// are and fetches them as Get does, lost values recomputed.
func (c *Client) Gather(ctx context.Context, fs ...*Future) ([]any, error) {
	if err := c.checkFutures("gather", fs); err != nil {
		return nil, err
	}
	if err := c.Wait(ctx, fs...); err != nil {
		return nil, err
	}
	for _, f := range fs {
		if f.c != c {
			return nil, fmt.Errorf("distributed: gather: %s is a Future of another client", f.st.key)
		}
		if err := f.Err(); err != nil {
			return nil, err
		}
	}
	if out, ok := c.gatherDirect(ctx, fs); ok {
		return out, nil
	}
	g := graph.New(len(fs))
	keys := make([]graph.Key, len(fs))
	for i, f := range fs {
		if f.c != c {
			return nil, fmt.Errorf("distributed: gather: %s is a Future of another client", f.st.key)
		}
		if err := f.Err(); err != nil {
			return nil, err
		}
		keys[i] = f.st.key
		if err := g.Set(keys[i], f.Node()); err != nil {
			return nil, err
		}
	}
	out, err := c.Get(ctx, g, keys)
	runtime.KeepAlive(fs)
	return out, err
}

// gatherDirect fetches the values of fs from where they were held, one
// call per address; false when some is not known or a fetch fails.
func (c *Client) gatherDirect(ctx context.Context, fs []*Future) ([]any, bool) {
	type batch struct {
		at   []int
		keys []string
	}
	var order []source
	bySrc := map[source]*batch{}
	for i, f := range fs {
		w := f.st.where
		if w.addr == "" || w.job == 0 {
			return nil, false
		}
		b := bySrc[w]
		if b == nil {
			b = &batch{}
			bySrc[w] = b
			order = append(order, w)
		}
		b.at = append(b.at, i)
		b.keys = append(b.keys, string(f.st.key))
	}
	out := make([]any, len(fs))
	for _, w := range order {
		b := bySrc[w]
		vals, err := c.data.fetch(ctx, w.addr, w.job, b.keys)
		if err != nil {
			return nil, false
		}
		for x, i := range b.at {
			out[i] = vals[x]
		}
	}
	runtime.KeepAlive(fs)
	return out, true
}

// Wait waits until every Future is done (held or failed), or ctx ends.
// It returns only ctx's error, as Dask's wait raises nothing for erred
// futures: a Future's own outcome is its Err (or Gather's error).
func (c *Client) Wait(ctx context.Context, fs ...*Future) error {
	if err := c.checkFutures("wait", fs); err != nil {
		return err
	}
	for _, f := range fs {
		select {
		case <-f.st.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// AsCompleted returns a channel that yields fs as they complete (held or
// failed), and is closed after the last. It needs no goroutine. Nil
// Futures are left out.
func (c *Client) AsCompleted(fs ...*Future) <-chan *Future {
	if slices.Contains(fs, nil) {
		fs = slices.DeleteFunc(slices.Clone(fs), func(f *Future) bool { return f == nil })
	}
	ch := make(chan *Future, len(fs))
	if len(fs) == 0 {
		close(ch)
		return ch
	}
	c.fmu.Lock()
	defer c.fmu.Unlock()
	left := len(fs)
	for _, f := range fs {
		yield := func() {
			ch <- f
			left--
			if left == 0 {
				close(ch)
			}
		}
		select {
		case <-f.st.done:
			yield()
		default:
			f.st.watch = append(f.st.watch, yield)
		}
	}
	return ch
}

// Scatter puts values on the cluster and returns their Futures once they
// are held there. Each value travels in its task's node (through the
// scheduler, which does not decode it), so it must be encodable by the
// value codec (graph.EncodeValue), and be at most 63 MiB encoded (one
// message; a larger one is an error naming its key: split it, or let the
// workers read it from a file, as chunkarray's FromNPY and FromZarr
// do). With broadcast, every live worker is then asked for a copy
// (Replicate).
func (c *Client) Scatter(ctx context.Context, values []any, broadcast bool) ([]*Future, error) {
	args := make([][]any, len(values))
	for i, v := range values {
		args[i] = []any{v}
	}
	fs := c.Map(ctx, scatterOp{}, args)
	if err := c.Wait(ctx, fs...); err != nil {
		return fs, err
	}
	for _, f := range fs {
		if err := f.Err(); err != nil {
			return fs, err
		}
	}
	if broadcast {
		return fs, c.Replicate(ctx, fs...)
	}
	return fs, nil
}

// Replicate asks every live worker to keep a copy of the values of fs
// (Dask's client.replicate), once they are held: tasks needing them then
// read them where they run. The workers fetch the copies from the
// holders in the background; Replicate returns once the scheduler is
// asked.
func (c *Client) Replicate(ctx context.Context, fs ...*Future) error {
	if err := c.Wait(ctx, fs...); err != nil {
		return err
	}
	if len(fs) == 0 {
		return nil
	}
	m := &pb.SessionMessage{}
	for _, f := range fs {
		if f.c != c {
			return fmt.Errorf("distributed: replicate: %s is a Future of another client", f.st.key)
		}
		if err := f.Err(); err != nil {
			return err
		}
		m.Replicate = append(m.Replicate, string(f.st.key))
	}
	c.smu.Lock()
	defer c.smu.Unlock()
	if c.sess == nil {
		return fmt.Errorf("%w: the client's session ended; its values are gone", ErrSchedulerLost)
	}
	if err := c.sess.stream.Send(m); err != nil {
		return c.lost(err)
	}
	runtime.KeepAlive(fs)
	return nil
}

// scatterOp returns its argument: the task of a scattered value.
type scatterOp struct{}

func (scatterOp) Name() string { return "scatter" }

func (scatterOp) Run(_ context.Context, args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("scatter: %d arguments, want 1", len(args))
	}
	return args[0], nil
}

func init() { graph.Register(scatterOp{}) }

// Held lists the keys this client holds (has Futures of), sorted.
func (c *Client) Held() []graph.Key {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	out := make([]graph.Key, 0, len(c.futs))
	for k := range c.futs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
