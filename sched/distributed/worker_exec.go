package distributed

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// How a worker runs tasks: the queue, the runners, gathering a task's
// dependencies, and the op call.

type taskID struct {
	job uint64
	key string
}

// task is a TaskSpec queued or running on this worker.
type task struct {
	spec    *pb.TaskSpec
	job     *jobState
	seq     uint64 // arrival order, to break priority ties
	index   int    // in the heap; -1 once taken out
	running bool
}

// jobState is a job's context on this worker, for this session.
type jobState struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// taskHeap orders queued tasks: lower priority value first, then arrival.
type taskHeap []*task

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	if h[i].spec.PlacePriority != h[j].spec.PlacePriority {
		return h[i].spec.PlacePriority > h[j].spec.PlacePriority // the job's: higher first
	}
	if h[i].spec.Priority != h[j].spec.Priority {
		return h[i].spec.Priority < h[j].spec.Priority
	}
	return h[i].seq < h[j].seq
}
func (h taskHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *taskHeap) Push(x any) {
	t := x.(*task)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *taskHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// handle applies one message of the scheduler.
func (w *Worker) handle(m *pb.SchedulerMessage) {
	var release []taskID
	var cancelled []uint64
	w.mu.Lock()
	queued := false
	for _, spec := range m.Compute {
		queued = w.enqueueLocked(spec) || queued
	}
	for _, r := range m.Steal {
		stolen := false
		if t := w.tasks[taskID{r.Job, r.Key}]; t != nil && !t.running {
			heap.Remove(&w.queue, t.index)
			delete(w.tasks, taskID{r.Job, r.Key})
			stolen = true
		}
		w.out.Stolen = append(w.out.Stolen, &pb.StealReply{Job: r.Job, Key: r.Key, Stolen: stolen})
	}
	for _, r := range m.Release {
		release = append(release, taskID{r.Job, r.Key})
	}
	for _, j := range m.CancelJobs {
		w.cancelJobLocked(j)
		cancelled = append(cancelled, j)
	}
	if queued {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
	for _, r := range release {
		w.store.release(r.job, r.key)
	}
	for _, j := range cancelled {
		w.store.dropJob(j)
	}
	if len(m.Steal) > 0 {
		w.signal()
	}
	for _, a := range m.LostPeers {
		if a != w.addr {
			w.data.dropPeer(a)
		}
	}
	if len(m.Replicate) > 0 {
		w.wg.Add(1)
		go w.replicate(m.Replicate)
	}
	if m.Retire {
		w.retire()
	}
}

// replicate fetches the values ds (a broadcast a client asked for), keeps
// them and reports them as replicas; a value whose job was cancelled
// meanwhile is dropped again. A value no address serves is not kept: the
// scheduler then never counts this worker as its holder. Bounded by the
// worker's life and 10 minutes.
func (w *Worker) replicate(ds []*pb.Dep) {
	defer w.wg.Done()
	ctx, cancel := context.WithTimeout(w.life, 10*time.Minute)
	defer cancel()
	for _, d := range ds {
		if d.Job == 0 || w.store.has(d.Job, d.Key) {
			continue
		}
		for _, a := range d.Addresses {
			if a == w.addr {
				continue
			}
			var v any
			got := false
			err := w.data.fetchEach(ctx, a, d.Job, []string{d.Key}, func(_ int, x any, ok bool) { v, got = x, ok })
			if err != nil || !got {
				continue
			}
			w.fetched.Add(1)
			n := w.store.put(d.Job, d.Key, v)
			w.mu.Lock()
			live := !w.gone[d.Job] && !w.stopping
			if live {
				w.out.Replicas = append(w.out.Replicas, &pb.Replica{Job: d.Job, Key: d.Key, Nbytes: n})
			}
			w.mu.Unlock()
			if live {
				w.signal()
			} else {
				w.store.release(d.Job, d.Key)
			}
			break
		}
	}
}

// enqueueLocked queues spec and reports whether a runner should look. A
// task already queued or running here is not queued again; one that needs
// more of a resource than this worker offers fails at once, instead of
// waiting for ever.
func (w *Worker) enqueueLocked(spec *pb.TaskSpec) bool {
	id := taskID{spec.Job, spec.Key}
	if w.gone[spec.Job] || w.tasks[id] != nil {
		return false
	}
	js := w.jobs[spec.Job]
	if js == nil {
		// Tasks take their buffers from the worker's free list.
		ctx, cancel := context.WithCancel(freelist.NewContext(context.Background(), w.buffers))
		js = &jobState{ctx: ctx, cancel: cancel}
		w.jobs[spec.Job] = js
	}
	for _, r := range sortedResources(spec.Resources) {
		if need, have := spec.Resources[r], w.opts.Resources[r]; need > have {
			now := time.Now().UnixNano()
			w.out.Failed = append(w.out.Failed, &pb.TaskFailed{
				Job: spec.Job, Key: spec.Key, StartUnixNano: now, StopUnixNano: now,
				Failure: &pb.Failure{Message: fmt.Sprintf("distributed: task %q needs %s=%v; worker %s offers %v", spec.Key, r, need, w.opts.Name, have)},
			})
			w.signal()
			return false
		}
	}
	w.seq++
	t := &task{spec: spec, job: js, seq: w.seq}
	w.tasks[id] = t
	heap.Push(&w.queue, t)
	return true
}

func sortedResources(m map[string]float64) []string {
	if len(m) == 0 {
		return nil
	}
	names := make([]string, 0, len(m))
	for r := range m {
		names = append(names, r)
	}
	sort.Strings(names)
	return names
}

// cancelJobLocked drops job's queued tasks and cancels its running ones;
// the caller drops its values.
func (w *Worker) cancelJobLocked(job uint64) {
	w.gone[job] = true
	js := w.jobs[job]
	if js == nil {
		return
	}
	js.cancel()
	delete(w.jobs, job)
	for id, t := range w.tasks {
		if id.job != job {
			continue
		}
		if !t.running {
			heap.Remove(&w.queue, t.index)
		}
		delete(w.tasks, id)
	}
}

// dropAllLocked forgets every job of the session: queued tasks, running
// tasks' contexts, pending results and values.
func (w *Worker) dropAllLocked() {
	for _, js := range w.jobs {
		js.cancel()
	}
	clear(w.jobs)
	clear(w.gone)
	clear(w.tasks)
	for _, t := range w.queue {
		t.index = -1
	}
	w.queue = w.queue[:0]
	w.out = &pb.WorkerMessage{}
	w.store.dropAll()
}

// fits reports whether t's resources are free now.
func (w *Worker) fits(t *task) bool {
	for r, need := range t.spec.Resources {
		if need > w.free[r] {
			return false
		}
	}
	return true
}

// nextLocked waits for a task that can run and takes it out of the
// queue: the first by priority among those whose resources are free. It
// returns nil when the worker stops.
func (w *Worker) nextLocked() *task {
	for {
		if w.stopping {
			return nil
		}
		if len(w.queue) > 0 {
			if w.fits(w.queue[0]) {
				return heap.Pop(&w.queue).(*task)
			}
			// Rare: the best task waits for a resource. Take the best
			// one that fits, if any.
			best := -1
			for i, t := range w.queue {
				if w.fits(t) && (best < 0 || w.queue.Less(i, best)) {
					best = i
				}
			}
			if best >= 0 {
				return heap.Remove(&w.queue, best).(*task)
			}
		}
		w.cond.Wait()
	}
}

// testHookTaskRan, set only by tests, runs after a runner has run (and
// reported) a task and before it takes the worker's lock again. It is an
// atomic pointer: a test sets and clears it while runners run, with
// nothing but the network between them (a plain variable was a data race
// the race detector reported about one run in three).
var testHookTaskRan atomic.Pointer[func(key string)]

// runner runs queued tasks one at a time until the worker stops.
func (w *Worker) runner() {
	defer w.wg.Done()
	var args []any
	for {
		w.mu.Lock()
		t := w.nextLocked()
		if t == nil {
			w.mu.Unlock()
			return
		}
		t.running = true
		for r, need := range t.spec.Resources {
			w.free[r] -= need
		}
		w.executing++
		w.mu.Unlock()

		args = w.runTask(t, args)
		if hook := testHookTaskRan.Load(); hook != nil {
			(*hook)(t.spec.Key)
		}

		w.mu.Lock()
		for r, need := range t.spec.Resources {
			w.free[r] += need
		}
		w.executing--
		id := taskID{t.spec.Job, t.spec.Key}
		if w.tasks[id] == t {
			delete(w.tasks, id)
		}
		if len(t.spec.Resources) > 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// runTask gathers t's dependencies, runs it and reports the result. args
// is the runner's reusable argument slice.
func (w *Worker) runTask(t *task, args []any) []any {
	spec := t.spec
	ctx := t.job.ctx
	if ctx.Err() != nil {
		return args
	}
	start := time.Now()
	deps, missing, failure := w.gather(ctx, t)
	if ctx.Err() != nil {
		return args
	}
	if len(missing) > 0 {
		w.report(t, func(m *pb.WorkerMessage) { m.Missing = append(m.Missing, missing...) })
		return args
	}
	var v any
	if failure == nil {
		v, failure, args = execute(ctx, spec, deps, args)
	}
	stop := time.Now()
	if ctx.Err() != nil {
		return args
	}
	if failure != nil {
		w.report(t, func(m *pb.WorkerMessage) {
			m.Failed = append(m.Failed, &pb.TaskFailed{Job: spec.Job, Key: spec.Key, Failure: failure,
				StartUnixNano: start.UnixNano(), StopUnixNano: stop.UnixNano()})
		})
		return args
	}
	n := w.store.put(spec.Job, spec.Key, v)
	if !w.report(t, func(m *pb.WorkerMessage) {
		m.Done = append(m.Done, &pb.TaskDone{Job: spec.Job, Key: spec.Key, Nbytes: n, Type: fmt.Sprintf("%T", v),
			StartUnixNano: start.UnixNano(), StopUnixNano: stop.UnixNano()})
	}) {
		// The job was cancelled (or the session lost) while the value was
		// stored: it must not outlive the job.
		w.store.release(spec.Job, spec.Key)
	}
	return args
}

// report adds t's result to the outbox if t's job is still live in this
// session, and reports whether it did. t leaves w.tasks in the same
// critical section: once its result can reach the scheduler, the
// scheduler may send the task here again (a retry after a failure, a
// MissingDep whose dependency is back, a lost value recomputed), and that
// copy must be queued, not taken for this one and dropped (the job then
// waited for ever on a task the scheduler believed was running here).
func (w *Worker) report(t *task, add func(m *pb.WorkerMessage)) bool {
	w.mu.Lock()
	if id := (taskID{t.spec.Job, t.spec.Key}); w.tasks[id] == t {
		delete(w.tasks, id)
	}
	live := w.jobs[t.spec.Job] == t.job && !w.stopping
	if live {
		add(w.out)
	}
	w.mu.Unlock()
	if live {
		w.signal()
	}
	return live
}

// gather returns the values of t's dependencies: from the store, else
// fetched from the addresses the scheduler gave (fetchDeps). A fetched
// value is kept in the store as a replica and reported to the scheduler
// (keepReplicas), so that the next task here needing it reads it locally.
// Runners needing the same value at once fetch it once: the first claims
// it in w.fetching, the others wait for it after fetching their own claims
// (never before, so that two runners waiting on each other's claims cannot
// deadlock) and fetch it themselves only if it did not arrive.
//
// A dependency that no address serves is returned in missing, with the
// addresses that failed. A dependency that its holder cannot encode, or
// this worker cannot decode, is the task's failure instead: asking again
// would fail again.
//
// A dependency stored under another job (Dep.job: a value a client
// session holds) is read from the store under that job, or fetched, and
// not kept as a replica: the scheduler tracks holders per job.
func (w *Worker) gather(ctx context.Context, t *task) (deps map[string]any, missing []*pb.MissingDep, failure *pb.Failure) {
	spec := t.spec
	deps = make(map[string]any, len(spec.Deps))
	var remote, foreign []*pb.Dep
	for _, d := range spec.Deps {
		job := depJob(spec, d)
		if w.fromStore(job, d.Key, deps) {
			continue
		}
		if job != spec.Job {
			foreign = append(foreign, d)
			continue
		}
		remote = append(remote, d)
	}
	if len(foreign) > 0 {
		more, failure := w.fetchDeps(ctx, spec, foreign, deps)
		if failure != nil {
			return nil, nil, failure
		}
		missing = more
	}
	deps, more, failure := w.gatherOwn(ctx, t, remote, deps)
	return deps, append(missing, more...), failure
}

// depJob is the job under which d's value is stored.
func depJob(spec *pb.TaskSpec, d *pb.Dep) uint64 {
	if d.Job != 0 {
		return d.Job
	}
	return spec.Job
}

// gatherOwn is gather for the dependencies of t's own job not in the
// store.
func (w *Worker) gatherOwn(ctx context.Context, t *task, remote []*pb.Dep, deps map[string]any) (_ map[string]any, missing []*pb.MissingDep, failure *pb.Failure) {
	spec := t.spec
	if len(remote) == 0 {
		return deps, nil, nil
	}
	var mine, theirs []*pb.Dep
	var waits []chan struct{}
	w.mu.Lock()
	for _, d := range remote {
		id := taskID{spec.Job, d.Key}
		if ch := w.fetching[id]; ch != nil {
			theirs = append(theirs, d)
			waits = append(waits, ch)
			continue
		}
		if w.store.has(spec.Job, d.Key) {
			// Stored by a claim that ended since the first look.
			theirs = append(theirs, d)
			continue
		}
		w.fetching[id] = make(chan struct{})
		mine = append(mine, d)
	}
	w.mu.Unlock()
	if len(mine) > 0 {
		missing, failure = w.fetchDeps(ctx, spec, mine, deps)
		w.keepReplicas(t, mine, deps, true)
		if failure != nil {
			return nil, nil, failure
		}
	}
	if len(theirs) == 0 {
		return deps, missing, nil
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return deps, missing, nil
		}
	}
	var again []*pb.Dep
	for _, d := range theirs {
		if !w.fromStore(spec.Job, d.Key, deps) {
			again = append(again, d)
		}
	}
	if len(again) == 0 {
		return deps, missing, nil
	}
	more, failure := w.fetchDeps(ctx, spec, again, deps)
	w.keepReplicas(t, again, deps, false)
	if failure != nil {
		return nil, nil, failure
	}
	return deps, append(missing, more...), nil
}

// fromStore sets deps[key] to job's value of key if the store holds it.
func (w *Worker) fromStore(job uint64, key string, deps map[string]any) bool {
	v, ok, err := w.store.get(job, key)
	if err != nil {
		w.log.Warn("cannot read back a spilled value", "job", job, "key", key, "err", err)
	}
	if ok && err == nil {
		deps[key] = v
		return true
	}
	return false
}

// keepReplicas stores the values of ds that were fetched into deps and
// reports them as replicas, or drops them again when t's job is no longer
// live in this session (checked after storing, so that a cancel_jobs
// handled meanwhile cannot leave them behind). With claimed, it then ends
// this runner's claims on ds, waking runners waiting for them.
func (w *Worker) keepReplicas(t *task, ds []*pb.Dep, deps map[string]any, claimed bool) {
	job := t.spec.Job
	var reps []*pb.Replica
	for _, d := range ds {
		if v, ok := deps[d.Key]; ok {
			reps = append(reps, &pb.Replica{Job: job, Key: d.Key, Nbytes: w.store.put(job, d.Key, v)})
		}
	}
	w.mu.Lock()
	live := w.jobs[job] == t.job && !w.stopping
	if live {
		w.out.Replicas = append(w.out.Replicas, reps...)
	}
	if claimed {
		for _, d := range ds {
			id := taskID{job, d.Key}
			close(w.fetching[id])
			delete(w.fetching, id)
		}
	}
	w.mu.Unlock()
	if !live {
		for _, r := range reps {
			w.store.release(job, r.Key)
		}
	}
}

// fetchDeps fetches the values of remote into deps, several keys per peer
// in one call, trying a dependency's next address when one fails. It
// returns the dependencies that no address served, and the task's failure
// when a value cannot be encoded or decoded.
// source is where a dependency is fetched from: an address and the job
// the value is stored under there.
type source struct {
	addr string
	job  uint64
}

func (w *Worker) fetchDeps(ctx context.Context, spec *pb.TaskSpec, remote []*pb.Dep, deps map[string]any) (missing []*pb.MissingDep, failure *pb.Failure) {
	failed := map[string][]string{} // dependency -> addresses that failed
	next := map[string]int{}        // dependency -> index of its next address
	var mu sync.Mutex
	for len(remote) > 0 && ctx.Err() == nil {
		// One round: each dependency's next address; one call per address.
		tried := map[string]string{}
		byAddr := map[source][]string{}
		var order []source
		for _, d := range remote {
			for next[d.Key] < len(d.Addresses) {
				a := d.Addresses[next[d.Key]]
				next[d.Key]++
				if a == w.addr {
					// This worker's own address, but not in its store.
					failed[d.Key] = append(failed[d.Key], a)
					continue
				}
				src := source{a, depJob(spec, d)}
				if byAddr[src] == nil {
					order = append(order, src)
				}
				byAddr[src] = append(byAddr[src], d.Key)
				tried[d.Key] = a
				break
			}
		}
		fetchFrom := func(src source) {
			addr, keys := src.addr, byAddr[src]
			err := w.data.fetchEach(ctx, addr, src.job, keys, func(i int, v any, ok bool) {
				if ok {
					w.fetched.Add(1)
					mu.Lock()
					deps[keys[i]] = v
					mu.Unlock()
				}
			})
			var ce *valueCodecError
			if errors.As(err, &ce) {
				mu.Lock()
				if failure == nil {
					failure = &pb.Failure{Message: fmt.Sprintf("distributed: task %q: its dependency %v", spec.Key, ce)}
				}
				mu.Unlock()
			} else if err != nil && ctx.Err() == nil {
				w.log.Warn("fetch failed", "from", addr, "job", spec.Job, "task", spec.Key, "err", err)
			}
		}
		if len(order) == 1 {
			fetchFrom(order[0])
		} else {
			var wg sync.WaitGroup
			for _, a := range order {
				wg.Go(func() { fetchFrom(a) })
			}
			wg.Wait()
		}
		if failure != nil {
			return nil, failure
		}
		var again []*pb.Dep
		for _, d := range remote {
			if _, ok := deps[d.Key]; ok {
				continue
			}
			if a, ok := tried[d.Key]; ok {
				failed[d.Key] = append(failed[d.Key], a)
			}
			if next[d.Key] < len(d.Addresses) {
				again = append(again, d)
				continue
			}
			missing = append(missing, &pb.MissingDep{Job: spec.Job, Key: spec.Key, Dep: d.Key, Addresses: failed[d.Key]})
		}
		remote = again
	}
	return missing, nil
}

// execute runs spec's node with its dependencies' values. It returns the
// value, or the failure to report: the op's error, a panic, an op that
// is not registered here, or a malformed node.
func execute(ctx context.Context, spec *pb.TaskSpec, deps map[string]any, args []any) (v any, failure *pb.Failure, argsOut []any) {
	node, err := graph.DecodeNode(spec.Node)
	if err != nil {
		var uo *graph.UnknownOpError
		if errors.As(err, &uo) {
			return nil, &pb.Failure{Message: fmt.Sprintf("distributed: task %q: op %q is not registered on this worker", spec.Key, uo.Name)}, args
		}
		return nil, &pb.Failure{Message: fmt.Sprintf("distributed: task %q: %v", spec.Key, err)}, args
	}
	switch node.Kind {
	case graph.KindLiteral:
		return node.Value, nil, args
	case graph.KindAlias:
		v, ok := deps[string(node.Target)]
		if !ok {
			return nil, &pb.Failure{Message: fmt.Sprintf("distributed: alias %q: its target %q was not sent as a dependency", spec.Key, node.Target)}, args
		}
		return v, nil, args
	case graph.KindTask:
	default:
		return nil, &pb.Failure{Message: fmt.Sprintf("distributed: task %q: node of kind %d", spec.Key, node.Kind)}, args
	}
	if k, ok := missingRef(node.Args, deps); !ok {
		return nil, &pb.Failure{Message: fmt.Sprintf("distributed: task %q: its argument %q was not sent as a dependency", spec.Key, k)}, args
	}
	defer func() {
		if r := recover(); r != nil {
			v = nil
			failure = &pb.Failure{
				Message:    fmt.Sprintf("panic: %v", r),
				Panic:      true,
				PanicValue: fmt.Sprint(r),
				Stack:      debug.Stack(),
			}
		}
		clear(args)
		argsOut = args[:0]
	}()
	lookup := func(k graph.Key) any { return deps[string(k)] }
	args, err = graph.Resolve(ctx, args, node.Args, lookup)
	if err == nil {
		v, err = node.Op.Run(ctx, args)
	}
	if err != nil {
		return nil, failureOf(err), args
	}
	return v, nil, args
}

// failureOf is the Failure of a task that returned err. A panic that
// optimize.Fused recovered inside a fused task is still a panic to the
// client (a *sched.PanicError); its Message names the fused task's key.
func failureOf(err error) *pb.Failure {
	f := &pb.Failure{Message: err.Error()}
	if fe, ok := err.(*optimize.FusedError); ok && fe.Err == nil {
		f.Panic, f.PanicValue, f.Stack = true, fmt.Sprint(fe.Panic), fe.Stack
	}
	f.Sentinel, _ = graph.ErrorName(err)
	return f
}

// missingRef returns the first key args refer to that deps lacks.
func missingRef(args []graph.Arg, deps map[string]any) (graph.Key, bool) {
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case graph.ArgRef:
			if _, ok := deps[string(a.Ref)]; !ok {
				return a.Ref, false
			}
		case graph.ArgList, graph.ArgNested:
			if k, ok := missingRef(a.List, deps); !ok {
				return k, false
			}
		}
	}
	return "", true
}
