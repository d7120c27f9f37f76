package sched

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// engine is the state of one Get: every scheduler in this package is this
// engine with a different number of workers (Sync: the calling goroutine;
// Threaded: N goroutines). See doc.go for the node states.
//
// Everything indexed by node is a dense slice over the graph's node indices.
// The fields below mu are guarded by it; vals[i] is written by the worker
// that ran i before it takes mu to complete i, and read by dependents only
// after they became ready under mu, so the mutex orders every access.
type engine struct {
	g    *graph.Graph
	d    *graph.Deps
	ctx  context.Context // passed to tasks; cancelled on the first error
	done <-chan struct{} // ctx.Done(), nil when ctx cannot be cancelled
	cb   *Hooks

	vals   []any
	byPrio []int32 // byPrio[p] is the node whose priority is p
	prio   []int32 // prio[i] is node i's priority (optimize.Order)
	alias  func(a, target int32)

	mu    sync.Mutex
	cond  sync.Cond // idle workers wait here for ready tasks or stop
	tr    *Tracker  // what is waiting, ready, finished and released
	ready prioHeap  // priorities of ready tasks
	idle  int       // workers waiting on cond
	stop  bool      // finished everything, failed, or cancelled
	err   error     // the first error
	fin   chan struct{}
}

// Hooks is the flattened form of the []*Callbacks in a context: one slice
// per hook, without nils, so that a hook nobody set costs a length check.
// Schedulers call its methods, never the Callbacks directly; those outside
// this package (sched/distributed) get one from HooksFrom. The RWMutex
// keeps worker-side hooks from running after Finish: they hold it for
// reading, Finish takes it for writing.
type Hooks struct {
	start   []func(*graph.Graph)
	pre     []func(graph.Key, int)
	post    []func(graph.Key, any, error, int)
	ran     []func(graph.Key, int, time.Time, time.Time)
	release []func(graph.Key)
	finish  []func(error)

	mu     sync.RWMutex
	closed bool
}

// HooksFrom flattens the callbacks attached to ctx.
func HooksFrom(ctx context.Context) *Hooks { return flatten(CallbacksFrom(ctx)) }

func flatten(cbs []*Callbacks) *Hooks {
	c := &Hooks{}
	for _, x := range cbs {
		if x.Start != nil {
			c.start = append(c.start, x.Start)
		}
		if x.Pretask != nil {
			c.pre = append(c.pre, x.Pretask)
		}
		if x.Posttask != nil {
			c.post = append(c.post, x.Posttask)
		}
		if x.Ran != nil {
			c.ran = append(c.ran, x.Ran)
		}
		if x.Release != nil {
			c.release = append(c.release, x.Release)
		}
		if x.Finish != nil {
			c.finish = append(c.finish, x.Finish)
		}
	}
	return c
}

// PerTask reports whether any per-task hook (Pretask, Posttask, Ran, Release)
// is set; a scheduler may skip gathering per-task events otherwise.
func (c *Hooks) PerTask() bool { return len(c.pre)+len(c.post)+len(c.ran)+len(c.release) > 0 }

// Start calls every Start hook with g.
func (c *Hooks) Start(g *graph.Graph) {
	for _, f := range c.start {
		f(g)
	}
}

// Pretask calls every Pretask hook, unless Finish has been called.
func (c *Hooks) Pretask(k graph.Key, w int) {
	c.mu.RLock()
	if !c.closed {
		for _, f := range c.pre {
			f(k, w)
		}
	}
	c.mu.RUnlock()
}

// Posttask calls every Posttask hook, unless Finish has been called.
func (c *Hooks) Posttask(k graph.Key, v any, err error, w int) {
	c.mu.RLock()
	if !c.closed {
		for _, f := range c.post {
			f(k, v, err, w)
		}
	}
	c.mu.RUnlock()
}

// Ran calls every Ran hook, unless Finish has been called.
func (c *Hooks) Ran(k graph.Key, w int, start, stop time.Time) {
	c.mu.RLock()
	if !c.closed {
		for _, f := range c.ran {
			f(k, w, start, stop)
		}
	}
	c.mu.RUnlock()
}

// Release calls every Release hook for k, unless Finish has been called.
func (c *Hooks) Release(k graph.Key) {
	c.mu.RLock()
	if !c.closed {
		for _, f := range c.release {
			f(k)
		}
	}
	c.mu.RUnlock()
}

func (c *Hooks) released(g *graph.Graph, idx []int32) {
	c.mu.RLock()
	if !c.closed {
		for _, i := range idx {
			for _, f := range c.release {
				f(g.Key(int(i)))
			}
		}
	}
	c.mu.RUnlock()
}

// Finish stops the worker-side hooks, waiting for those under way, and
// calls every Finish hook with err.
func (c *Hooks) Finish(err error) {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	for _, f := range c.finish {
		f(err)
	}
}

// get is the body shared by every scheduler: validate, cull to what keys
// need, order, then run with workers goroutines (0: on the calling one).
func get(ctx context.Context, g *graph.Graph, keys []graph.Key, workers int) (out []any, err error) {
	cb := flatten(CallbacksFrom(ctx))
	started := false
	defer func() {
		if !started {
			cb.Start(g)
		}
		cb.Finish(err)
	}()
	pg, d, want, err := Plan(g, keys)
	if err != nil {
		return nil, err
	}
	g = pg
	started = true
	cb.Start(g)
	if len(keys) == 0 {
		return []any{}, nil
	}
	prio, err := optimize.Order(g, d)
	if err != nil {
		return nil, err
	}
	if freelist.FromContext(ctx) == nil {
		// The run's buffer free list (see doc.go, Buffers): tasks of
		// nested runs (a task computing a block on Sync) share it.
		fl := freelist.NewAuto(2 * max(workers, 1))
		defer fl.Close()
		ctx = freelist.NewContext(ctx, fl)
	}
	e := newEngine(ctx, g, d, prio, want, cb)
	if e.tr.Finished == g.Len() {
		// Only literals and aliases: nothing for a worker to do.
	} else if workers <= 0 {
		e.work(0)
		err = e.err
	} else {
		err = e.runWorkers(ctx, workers)
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	out = make([]any, len(want))
	for i, j := range want {
		out[i] = e.vals[j]
	}
	return out, nil
}

// cull drops the nodes keys do not need. It marks from the requested nodes
// over d, which costs O(n) and no allocation beyond the marks when nothing
// is dropped, the common case after optimize.Optimize.
func cull(g *graph.Graph, d *graph.Deps, keys []graph.Key, want []int32) (*graph.Graph, *graph.Deps, []int32, error) {
	n := g.Len()
	seen := make([]bool, n)
	stack := make([]int32, 0, 64)
	count := 0
	for _, j := range want {
		if !seen[j] {
			seen[j] = true
			count++
			stack = append(stack, j)
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range d.Of(int(i)) {
			if !seen[j] {
				seen[j] = true
				count++
				stack = append(stack, j)
			}
		}
	}
	if count == n {
		return g, d, want, nil
	}
	keep := make([]int32, 0, count)
	for i, s := range seen {
		if s {
			keep = append(keep, int32(i))
		}
	}
	sub := g.Subgraph(keep)
	sd, err := sub.Dependencies()
	if err != nil {
		return nil, nil, nil, err
	}
	for i, k := range keys {
		j, _ := sub.Index(k)
		want[i] = int32(j)
	}
	return sub, sd, want, nil
}

func newEngine(ctx context.Context, g *graph.Graph, d *graph.Deps, prio, want []int32, cb *Hooks) *engine {
	n := g.Len()
	e := &engine{
		g: g, d: d, ctx: ctx, done: ctx.Done(), cb: cb,
		vals:   make([]any, n),
		byPrio: make([]int32, n),
		prio:   prio,
		tr:     NewTracker(g, d, want),
	}
	e.alias = func(a, target int32) { e.vals[a] = e.vals[target] }
	e.cond.L = &e.mu
	for i, p := range prio {
		e.byPrio[p] = int32(i)
	}
	// Literals finish before any worker starts; completing them may make
	// aliases finish and tasks ready. Tasks with no dependencies are ready
	// from the start. The initial ready set is collected in priority order,
	// and a sorted array is already a valid min-heap.
	var rel, fresh []int32
	for i := 0; i < n; i++ {
		if nd := g.At(i); nd.Kind == graph.KindLiteral {
			e.vals[i] = nd.Value
			rel, fresh = e.complete(int32(i), rel, fresh)
		}
	}
	readyAtStart := make([]bool, n)
	for _, i := range fresh {
		readyAtStart[i] = true
	}
	for i := 0; i < n; i++ {
		if e.tr.Pending[i] == 0 && g.At(i).Kind == graph.KindTask {
			readyAtStart[i] = true
		}
	}
	e.ready = make(prioHeap, 0, 64)
	for p, i := range e.byPrio {
		if readyAtStart[i] {
			e.ready = append(e.ready, int32(p))
		}
	}
	if len(rel) > 0 && len(cb.release) > 0 {
		e.cb.released(g, rel)
	}
	return e
}

// complete marks node i finished under mu (Tracker.Complete): newly ready
// tasks are appended to fresh, and released nodes to rel, their values
// dropped at once so that memory stays bounded on streaming reductions.
func (e *engine) complete(i int32, rel, fresh []int32) ([]int32, []int32) {
	from := len(rel)
	rel, fresh = e.tr.Complete(i, rel, fresh, e.alias)
	for _, j := range rel[from:] {
		e.vals[j] = nil
	}
	return rel, fresh
}

// runWorkers starts n workers and waits until they finish everything, one
// fails, or ctx is cancelled. On failure or cancellation it returns at once:
// workers still running a task see the cancelled task context, and exit
// when the task returns without starting another.
func (e *engine) runWorkers(parent context.Context, n int) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	e.ctx, e.done = ctx, ctx.Done()
	e.fin = make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.work(w)
		}()
	}
	select {
	case <-e.fin:
	case <-parent.Done():
	}
	e.mu.Lock()
	err := e.err
	if err == nil && !e.stop {
		err = parent.Err()
		e.fail(err)
	}
	e.mu.Unlock()
	if err == nil {
		// Every task finished: the workers are exiting, and waiting for
		// them keeps the goroutine count of a finished Get at zero.
		wg.Wait()
	}
	return err
}

// fail records the first error and stops the run. Called under mu.
func (e *engine) fail(err error) {
	if e.err == nil {
		e.err = err
	}
	e.halt()
}

// halt stops the run and wakes everyone. Called under mu.
func (e *engine) halt() {
	e.stop = true
	e.cond.Broadcast()
	if e.fin != nil {
		select {
		case <-e.fin:
		default:
			close(e.fin)
		}
	}
}

// work is one worker: pop the best ready task, run it outside the lock,
// complete it under the lock, and run next the best task it made ready when
// nothing better waits in the heap, skipping a heap round trip. That keeps
// one worker walking up a reduction tree the way Order intends.
func (e *engine) work(w int) {
	var (
		args  []any
		rel   []int32
		fresh []int32
		next  int32 = -1
	)
	n := e.g.Len()
	e.mu.Lock()
	for {
		if next < 0 {
			for len(e.ready) == 0 && !e.stop {
				if e.fin == nil {
					// The synchronous engine has no one to wait for.
					e.fail(errStuck)
					break
				}
				e.idle++
				e.cond.Wait()
				e.idle--
			}
			if e.stop {
				break
			}
			next = e.byPrio[e.ready.pop()]
		}
		e.mu.Unlock()

		if e.done != nil {
			select {
			case <-e.done:
				e.mu.Lock()
				e.fail(e.ctx.Err())
				e.mu.Unlock()
				return
			default:
			}
		}
		k := e.g.Key(int(next))
		if len(e.cb.pre) > 0 {
			e.cb.Pretask(k, w)
		}
		var v any
		var err error
		v, err, args = e.run(k, next, args)
		if len(e.cb.post) > 0 {
			e.cb.Posttask(k, v, err, w)
		}

		e.mu.Lock()
		if err != nil {
			e.fail(err)
			break
		}
		e.vals[next] = v
		rel, fresh = e.complete(next, rel[:0], fresh[:0])
		next = -1
		if len(rel) > 0 && len(e.cb.release) > 0 {
			// Outside the lock, and before the run can be declared
			// finished, so that every Release precedes Finish.
			e.mu.Unlock()
			e.cb.released(e.g, rel)
			e.mu.Lock()
		}
		if e.tr.Finished == n {
			e.halt()
			break
		}
		if e.stop {
			break
		}
		if len(fresh) > 0 {
			best := 0
			for x := 1; x < len(fresh); x++ {
				if e.prio[fresh[x]] < e.prio[fresh[best]] {
					best = x
				}
			}
			bp := e.prio[fresh[best]]
			if len(e.ready) == 0 || bp < e.ready[0] {
				next = fresh[best]
				fresh[best] = fresh[len(fresh)-1]
				fresh = fresh[:len(fresh)-1]
			}
			for _, u := range fresh {
				e.ready.push(e.prio[u])
			}
			if next < 0 {
				next = e.byPrio[e.ready.pop()]
			}
			for x := 0; x < len(fresh) && x < e.idle; x++ {
				e.cond.Signal()
			}
		}
	}
	e.mu.Unlock()
}

var errStuck = errors.New("sched: no task is ready and none is running (internal error)")

// run resolves the arguments of task i and runs it, turning a panic into a
// *TaskError. args is the worker's reusable argument slice, returned for the
// next task; it is cleared so that it keeps no value alive.
func (e *engine) run(k graph.Key, i int32, args []any) (v any, err error, _ []any) {
	nd := e.g.At(int(i))
	defer func() {
		if r := recover(); r != nil {
			err = &TaskError{Key: k, Op: nd.Op.Name(), Err: &PanicError{Value: r, Stack: debug.Stack()}}
		}
	}()
	args, err = e.resolve(i, nd, args)
	if err == nil {
		v, err = nd.Op.Run(e.ctx, args)
	}
	clear(args)
	if err != nil {
		err = taskError(k, nd.Op.Name(), err)
	}
	return v, err, args[:0]
}

// taskError names the task that failed: k, or the task fused into k whose
// *optimize.FusedError reached k's arguments unwrapped (graph.Resolve
// returns a nested task's error as it is). An error that already is k's
// TaskError is kept.
func taskError(k graph.Key, op string, err error) error {
	if fe, ok := err.(*optimize.FusedError); ok {
		cause := fe.Err
		if cause == nil {
			cause = &PanicError{Value: fe.Panic, Stack: fe.Stack}
		}
		return &TaskError{Key: fe.Key, Op: fe.Op, Err: cause, Fused: k}
	}
	var te *TaskError
	if errors.As(err, &te) && te.Key == k {
		return err
	}
	return &TaskError{Key: k, Op: op, Err: err}
}

// resolve turns node i's arguments into values. References are resolved
// through the node's dependency list, by index, instead of a map lookup by
// key: when every argument is a distinct reference, argument x is exactly
// dependency x, because Deps lists dependencies in first-use order.
func (e *engine) resolve(i int32, nd *graph.Node, dst []any) ([]any, error) {
	deps := e.d.Of(int(i))
	dst = dst[:0]
	simple := true
	for x := range nd.Args {
		if nd.Args[x].Kind != graph.ArgRef {
			simple = false
			break
		}
	}
	if simple && len(deps) == len(nd.Args) {
		for _, j := range deps {
			dst = append(dst, e.vals[j])
		}
		return dst, nil
	}
	for x := range nd.Args {
		a := &nd.Args[x]
		switch a.Kind {
		case graph.ArgRef:
			v := any(nil)
			for _, j := range deps {
				if e.g.Key(int(j)) == a.Ref {
					v = e.vals[j]
					break
				}
			}
			dst = append(dst, v)
		case graph.ArgLit:
			dst = append(dst, a.Lit)
		default:
			// Lists and nested tasks: rare, take the general path.
			return graph.Resolve(e.ctx, dst, nd.Args, e.lookup)
		}
	}
	return dst, nil
}

func (e *engine) lookup(k graph.Key) any {
	j, _ := e.g.Index(k)
	return e.vals[j]
}

// prioHeap is a binary min-heap of priorities. Priorities are a permutation
// of the node indices, so the heap holds plain int32s and compares them
// without indirection; engine.byPrio maps a priority back to its node.
type prioHeap []int32

func (h *prioHeap) push(p int32) {
	s := append(*h, p)
	c := len(s) - 1
	for c > 0 {
		par := (c - 1) / 2
		if s[par] <= p {
			break
		}
		s[c] = s[par]
		c = par
	}
	s[c] = p
	*h = s
}

func (h *prioHeap) pop() int32 {
	s := *h
	top := s[0]
	last := s[len(s)-1]
	s = s[:len(s)-1]
	n := len(s)
	if n > 0 {
		c := 0
		for {
			l := 2*c + 1
			if l >= n {
				break
			}
			if r := l + 1; r < n && s[r] < s[l] {
				l = r
			}
			if last <= s[l] {
				break
			}
			s[c] = s[l]
			c = l
		}
		s[c] = last
	}
	*h = s
	return top
}
