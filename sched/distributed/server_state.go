package distributed

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// A task of a job is, on the scheduler, in one of these states. Every
// per-task field lives in a dense slice of srvJob indexed by the task's
// position in the job's task list, so that a job of n tasks costs a few
// slices of n and no allocation per task.
//
//	waiting ──deps in memory──▶ (placed) ──▶ processing ──TaskDone──▶ memory ──not needed──▶ released
//	   ▲                          │  │            │                     │                        │
//	   │                          │  └─▶ queued (root task, workers saturated) ─▶ processing     │
//	   │                          └────▶ noworker (no worker offers its resources)               │
//	   └──────── a dependency lost (its holders died): recomputed from lineage ◀─────────────────┘
//
// A released or lost value that some unfinished task still needs (or
// that is an output) is brought back to waiting, recursively, which is
// how lineage recomputation works; need counts, per task, the dependents
// that have not finished, so that a value is released exactly when its
// last consumer finishes.
const (
	tsWaiting    uint8 = iota // some dependency not in memory; waiting counts them
	tsQueued                  // a root task held on the scheduler while eligible workers are saturated
	tsNoWorker                // no connected worker offers its resources
	tsProcessing              // sent to worker proc[i]
	tsMemory                  // its value is held by who[i]
	tsReleased                // its value was dropped (not needed any more, or lost)
	tsErred                   // failed for good: the job is over, or (keep-going, server_futerr.go) it never runs
	tsLimbo                   // transient, while a task is taken back from a worker
)

var stateNames = [...]string{"waiting", "queued", "no-worker", "processing", "memory", "released", "erred", "waiting"}

// A task's value is held by a set of workers (ids): who[t], and in the
// rare case of more than one, whoMore[t] too. Worker ids start at 1, so
// who[t] == 0 is the empty set.

func (j *srvJob) holds(t, id int32) bool {
	return j.who[t] == id || slices.Contains(j.whoMore[t], id)
}

func (j *srvJob) addHolder(t, id int32) {
	switch {
	case j.holds(t, id):
	case j.who[t] == 0:
		j.who[t] = id
	default:
		if j.whoMore == nil {
			j.whoMore = map[int32][]int32{}
		}
		j.whoMore[t] = append(j.whoMore[t], id)
	}
}

func (j *srvJob) removeHolder(t, id int32) {
	more := j.whoMore[t]
	if j.who[t] == id {
		j.who[t] = 0
		if len(more) > 0 {
			j.who[t] = more[len(more)-1]
			more = more[:len(more)-1]
		}
	} else if k := slices.Index(more, id); k >= 0 {
		more = slices.Delete(more, k, k+1)
	} else {
		return
	}
	if len(more) == 0 {
		delete(j.whoMore, t)
	} else {
		j.whoMore[t] = more
	}
}

// setHolder makes id t's only holder (none for 0).
func (j *srvJob) setHolder(t, id int32) {
	j.who[t] = id
	if j.whoMore != nil {
		delete(j.whoMore, t)
	}
}

func (j *srvJob) held(t int32) bool { return j.who[t] != 0 }

// holders yields t's holders, who[t] first.
func (j *srvJob) holders(t int32) func(func(int32) bool) {
	return func(yield func(int32) bool) {
		if j.who[t] == 0 || !yield(j.who[t]) {
			return
		}
		for _, id := range j.whoMore[t] {
			if !yield(id) {
				return
			}
		}
	}
}

// taskRef names one task of one job.
type taskRef struct {
	j *srvJob
	i int32
}

// srvWorker is a connected (or lost) worker.
type srvWorker struct {
	id        int32
	reg       *pb.Register
	addrs     []string // {reg.DataAddress}, shared by every TaskSpec naming only this worker
	threads   int
	slot      int       // index in Server.live
	proc      []taskRef // tasks processing here; srvJob.procPos indexes it
	stealOut  int       // steal requests sent here, unanswered
	stealIn   int       // tasks being stolen for this worker
	held      int       // root values held here whose last consumer runs (rootFull)
	tasksDone int64
	hb        *pb.Heartbeat
	cpuPct    float64   // CPU use between the last two heartbeats, percent of one core
	hbAt      time.Time // when hb arrived
	lastSeen  time.Time
	joined    time.Time

	out  *pb.SchedulerMessage // pending, sent by the session's sender
	wake chan struct{}
	quit chan struct{} // closed when the worker is lost
	gone bool
	left bool // it closed its session itself, or was told to (retired)
	// retiring: being retired (server_retire.go); no new task goes here.
	retiring bool
	why      string // why it was lost

	pl workerPlace // its ops, its tasks by priority (constraints.go)
}

// srvJob is one client's computation.
type srvJob struct {
	id      uint64
	name    string
	defs    taskDefs
	bytes   int64 // of defs, counted against MaxJobBytes
	run     bool
	events  bool
	retries int32
	outputs []int32
	created time.Time

	isOut      []bool
	usersOff   []int32 // dependents of i: users[usersOff[i]:usersOff[i+1]]
	users      []int32
	state      []uint8
	waiting    []int32 // dependencies not in memory, while waiting
	need       []int32 // dependents not finished
	who        []int32 // a worker holding the value; 0 when none
	whoMore    map[int32][]int32
	nbytes     []int64
	proc       []int32 // worker id processing the task; 0 when none
	procPos    []int32 // the task's index in that worker's proc
	thief      []int32 // worker id a steal is asked for; 0 when none
	fails      []uint8 // at most MaxRetries+1
	suspicious []uint8
	slot       []int32 // worker id whose held counts this root value; 0 when none
	noWorker   []noWorkerEntry
	seen       []bool // worker ids whose WorkerInfo the client has
	rootsDone  int64  // root tasks finished, and the bytes of their values (rootCap)
	rootBytes  int64
	// Run times by key prefix ("sum" for "sum-3fa1…[0,2]"), as Dask
	// keeps durations per task prefix: prefix[t] indexes prefixNanos
	// and prefixRuns, the run time of the finished tasks of that
	// prefix that reported one, and their count (stealing).
	prefix      []int32
	prefixNanos []int64
	prefixRuns  []int64
	prefixNames []string // by prefix id
	layers      []int32  // depth of each task from the roots, for the dashboard; nil until asked for

	out   *pb.ClientEvent // pending, sent by the job's sender
	final bool            // out holds the job's error: the sender stops after it
	wake  chan struct{}
	quit  chan struct{} // closed when the client's stream ended
	ended bool          // quit is closed
	over  bool          // dropped from the scheduler

	// Sessions (server_session.go).
	sess     *srvSession
	hold     []bool              // outputs held for the session; nil when none
	nhold    int                 // true entries of hold
	heldDefs []int32             // tasks the client marked held
	link     map[int32]taskRef   // tasks whose value is another job's (a held key)
	linkedBy map[int32][]taskRef // other jobs' tasks linked to this one's
	retired  bool                // the client's stream ended; kept for held values
	copies   map[int32][]int32   // workers asked to replicate a held value, until they report it
	failure  *pb.JobError        // the error that ended the job, if any

	pl jobPlace // ops, restriction, priority (constraints.go)

	// Keep-going jobs (server_futerr.go).
	keepGoing bool                // Run.keep_going: a failure errs its subtree, not the job
	causes    map[int32]*futCause // why each erred task erred; nil until one does
}

// linked reports whether t's value is another job's.
func (j *srvJob) linked(t int32) bool {
	_, ok := j.link[t]
	return ok
}

type noWorkerEntry struct {
	i     int32
	since time.Time
}

// wout returns w's pending message, creating it, and wakes its sender.
func (w *srvWorker) wout() *pb.SchedulerMessage {
	if w.out == nil {
		w.out = &pb.SchedulerMessage{}
	}
	wakeup(w.wake)
	return w.out
}

// jout returns j's pending event, creating it, and wakes its sender.
func (j *srvJob) jout() *pb.ClientEvent {
	if j.ended {
		// Nobody listens (a retired job): a throwaway.
		return &pb.ClientEvent{}
	}
	if j.out == nil {
		j.out = &pb.ClientEvent{Job: j.id}
	}
	wakeup(j.wake)
	return j.out
}

func (j *srvJob) key(i int32) string { return j.defs.key(i) }

func (j *srvJob) deps(i int32) []int32 { return j.defs.deps(i) }

func (j *srvJob) dependents(i int32) []int32 { return j.users[j.usersOff[i]:j.usersOff[i+1]] }

// ntasks is the number of tasks the client has sent.
func (j *srvJob) ntasks() int { return j.defs.len() }

// lookupKey returns the index of the task with key k, once the job runs.
func (j *srvJob) lookupKey(k string) (int32, bool) { return j.defs.find(k) }

func (s *Server) addWorker(reg *pb.Register) *srvWorker {
	now := time.Now()
	w := &srvWorker{
		id:       int32(len(s.byID)),
		reg:      reg,
		addrs:    []string{reg.DataAddress},
		threads:  int(reg.Nthreads),
		lastSeen: now,
		joined:   now,
		wake:     make(chan struct{}, 1),
		quit:     make(chan struct{}),
	}
	// A live worker at the same data address, or under the same name, is
	// a previous session of this one (it lost its connection and came
	// back before the break was noticed, or was restarted under its
	// -name): the new session supersedes it.
	for _, old := range slices.Clone(s.live) {
		if old.reg.DataAddress == reg.DataAddress || (reg.Name != "" && old.reg.Name == reg.Name) {
			s.lose(old, "registered again as a new session")
		}
	}
	// The slot is taken only now: lose renumbers the slots of the
	// workers after the one it drops, so a slot taken before the loop
	// could point past the end of live (the next lose of this worker
	// then panicked or dropped another worker).
	w.slot = len(s.live)
	s.byID = append(s.byID, w)
	s.live = append(s.live, w)
	s.score = append(s.score, 0)
	s.initOps(w)
	s.log.Info("worker joined", "id", w.id, "name", reg.Name, "address", reg.DataAddress, "threads", reg.Nthreads, "resources", reg.Resources)
	// Tasks that no worker could take may fit this one.
	s.placeParked(func(j *srvJob, t int32) bool { return s.fits(w, j, t) })
	return w
}

// placeParked places the tasks parked as having no worker for which fit
// holds (a worker that joined, or came back from retiring, can take
// them); the others stay parked, keeping the time they were parked at.
// Then it refills and balances the workers.
func (s *Server) placeParked(fit func(j *srvJob, t int32) bool) {
	for _, j := range s.sortedJobs() {
		if len(j.noWorker) == 0 {
			continue
		}
		old := j.noWorker
		j.noWorker = nil
		for _, e := range old {
			if j.over || j.state[e.i] != tsNoWorker {
				continue
			}
			if !fit(j, e.i) {
				j.noWorker = append(j.noWorker, e)
				continue
			}
			s.place(j, e.i)
		}
	}
	s.refill()
	s.balance()
}

// lose forgets a worker: its processing tasks go back to be placed again
// (or fail the job after AllowedFailures deaths), and values only it held
// are lost and recomputed when still needed. Idempotent.
func (s *Server) lose(w *srvWorker, why string) {
	if w.gone {
		return
	}
	w.gone = true
	w.why = why
	w.out = nil
	close(w.quit)
	s.live = slices.Delete(s.live, w.slot, w.slot+1)
	for k, x := range s.live {
		x.slot = k
	}
	s.score = s.score[:len(s.live)]
	if w.left {
		s.log.Info("worker left", "id", w.id, "name", w.reg.Name, "address", w.reg.DataAddress, "processing", len(w.proc))
	} else {
		s.log.Warn("worker lost", "id", w.id, "name", w.reg.Name, "address", w.reg.DataAddress, "reason", why, "processing", len(w.proc))
	}

	// Peers and clients fetching from it stop waiting for it.
	for _, x := range s.live {
		x.wout().LostPeers = append(x.wout().LostPeers, w.reg.DataAddress)
	}
	for _, j := range s.sortedJobs() {
		if !j.over && !j.final && !j.ended {
			j.jout().LostPeers = append(j.jout().LostPeers, w.reg.DataAddress)
		}
	}

	procs := w.proc
	w.proc = nil
	w.pl.prio = nil
	w.stealOut = 0
	for _, r := range procs {
		j, t := r.j, r.i
		j.proc[t] = 0
		if th := j.thief[t]; th != 0 {
			s.byID[th].stealIn--
			j.thief[t] = 0
		}
		j.state[t] = tsLimbo
	}
	for _, j := range s.sortedJobs() {
		var lost []int32
		for t, st := range j.state {
			if st == tsMemory && j.holds(int32(t), w.id) {
				j.removeHolder(int32(t), w.id)
				if !j.held(int32(t)) {
					lost = append(lost, int32(t))
				}
			}
		}
		for _, t := range lost {
			if j.over {
				break
			}
			s.valueLost(j, t)
		}
	}
	for _, r := range procs {
		j, t := r.j, r.i
		if j.over || j.state[t] != tsLimbo {
			continue
		}
		j.suspicious[t]++
		if int(j.suspicious[t]) >= s.opts.AllowedFailures {
			s.taskErred(j, &pb.JobError{
				Index:    t,
				Kind:     pb.JobError_KILLED_WORKER,
				WorkerId: w.id,
				Message: fmt.Sprintf("task %q was running on %d workers that died (allowed failures: %d); last: %s (%s)",
					j.key(t), j.suspicious[t], s.opts.AllowedFailures, w.reg.Name, why),
			})
			continue
		}
		s.requeue(j, t)
	}
	// Root tasks held for workers of which none is left have no worker.
	for _, q := range s.rootQs {
		if len(q.h) == 0 || slices.ContainsFunc(s.live, func(x *srvWorker) bool { return s.queueFits(x, q) }) {
			continue
		}
		for q.clean() {
			r := q.pop()
			s.parkNoWorker(r.j, r.i)
		}
	}
	s.refill()
	s.balance()
}

func (s *Server) sortedJobs() []*srvJob {
	js := slices.Collect(maps.Values(s.jobs))
	slices.SortFunc(js, func(a, b *srvJob) int { return cmp.Compare(a.id, b.id) })
	return js
}

// checkTimeouts loses silent workers and fails jobs whose tasks found no
// worker for WorkerTimeout. A retired job (it recomputes held values its
// workers lost, for a client that is not waiting on it) waits for workers
// without a deadline, as Dask's tasks do: erring there would make the
// held keys fail for good, though workers come back (a scale-down to
// none and up again); a job that needs them waits on its own terms.
func (s *Server) checkTimeouts(now time.Time) {
	for _, w := range slices.Clone(s.live) {
		if now.Sub(w.lastSeen) > s.opts.WorkerTimeout {
			s.lose(w, fmt.Sprintf("no message for %v", now.Sub(w.lastSeen).Round(time.Millisecond)))
		}
	}
	for _, j := range s.sortedJobs() {
		j.noWorker = slices.DeleteFunc(j.noWorker, func(e noWorkerEntry) bool { return j.state[e.i] != tsNoWorker })
		if j.retired {
			continue
		}
		for _, e := range j.noWorker {
			if j.state[e.i] != tsNoWorker || now.Sub(e.since) <= s.opts.WorkerTimeout {
				continue
			}
			msg := s.noWorkerMessage(j, e.i)
			s.taskErred(j, &pb.JobError{Index: e.i, Kind: pb.JobError_NO_WORKER, Message: msg})
			if j.over {
				break
			}
		}
	}
	s.refill()
	s.balance()
}

// formatResources writes resources as sorted name=amount pairs.
func formatResources(res map[string]float64) string {
	var b strings.Builder
	for k, name := range slices.Sorted(maps.Keys(res)) {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%g", name, res[name])
	}
	return b.String()
}

// covers reports whether offered resources cover needed ones.
func covers(offered, needed map[string]float64) bool {
	for k, v := range needed {
		if offered[k] < v {
			return false
		}
	}
	return true
}

func (s *Server) newJob() *srvJob {
	s.nextJob++
	j := &srvJob{
		id:      s.nextJob,
		created: time.Now(),
		wake:    make(chan struct{}, 1),
		quit:    make(chan struct{}),
	}
	s.jobs[j.id] = j
	return j
}

// failJob ends j with its error: the client gets it as the last event and
// the workers drop the job.
func (s *Server) failJob(j *srvJob, e *pb.JobError) {
	if j.over {
		return
	}
	if e.Index >= 0 && int(e.Index) < len(j.state) {
		j.state[e.Index] = tsErred
	}
	j.jout().Error = e
	j.final = true
	j.failure = e
	msg := e.Message
	if msg == "" && e.Failure != nil {
		msg = e.Failure.Message
		if e.Failure.Panic {
			msg = "panic: " + e.Failure.PanicValue
		}
	}
	key := ""
	if e.Index >= 0 && int(e.Index) < j.ntasks() {
		key = j.key(e.Index)
	}
	s.log.Info("job failed", "job", j.id, "name", j.name, "kind", e.Kind.String(), "key", key, "message", msg)
	s.dropJob(j)
}

// dropJob forgets j and tells every worker to drop it. Idempotent.
func (s *Server) dropJob(j *srvJob) {
	if j.over {
		return
	}
	j.over = true
	delete(s.jobs, j.id)
	s.failLinks(j)
	s.unlink(j)
	for t, id := range j.slot {
		if id != 0 {
			s.unslot(j, int32(t))
		}
	}
	for _, w := range s.live {
		w.wout().CancelJobs = append(w.wout().CancelJobs, j.id)
		keep := w.proc[:0]
		for _, r := range w.proc {
			if r.j == j {
				w.countPrio(j, -1)
				if th := j.thief[r.i]; th != 0 {
					w.stealOut--
					s.byID[th].stealIn--
					j.thief[r.i] = 0
				}
				continue
			}
			r.j.procPos[r.i] = int32(len(keep))
			keep = append(keep, r)
		}
		clear(w.proc[len(keep):])
		w.proc = keep
	}
	for _, q := range s.rootQs {
		q.dropJob(j)
	}
	s.refill()
	s.balance()
}

// defOverhead bounds what a task definition costs the scheduler beyond
// its key, node and dependency bytes, counted against MaxJobBytes: the
// offsets, key table and per-task state slices, and a root's place in a
// root queue, come to about 85 bytes on BenchmarkSchedulerMemoryPerTask's
// tree (and 4 more per dependency, for the dependents).
const defOverhead = 128

func (s *Server) handleClient(j *srvJob, m *pb.ClientMessage) {
	if j.over {
		return
	}
	if len(m.Tasks) > 0 {
		if j.run {
			s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH,
				Message: fmt.Sprintf("%d tasks sent after run (first %q)", len(m.Tasks), m.Tasks[0].Key)})
			return
		}
		if j.ntasks()+len(m.Tasks) > s.opts.MaxJobTasks {
			s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH,
				Message: fmt.Sprintf("the job has more than %d tasks, the scheduler's limit per job (MaxJobTasks)", s.opts.MaxJobTasks)})
			return
		}
		for _, d := range m.Tasks {
			j.bytes += int64(len(d.Key)+len(d.Node)+4*len(d.Deps)) + defOverhead
		}
		if j.bytes > s.opts.MaxJobBytes {
			s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH,
				Message: fmt.Sprintf("the job's task definitions pass %d bytes, the scheduler's limit per job (MaxJobBytes)", s.opts.MaxJobBytes)})
			return
		}
		if err := s.placeMessage(j, m); err != nil {
			s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH, Message: err.Error()})
			return
		}
		for _, d := range m.Tasks {
			if d.Held {
				if len(d.Deps) > 0 {
					s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH,
						Message: fmt.Sprintf("task %.200q is marked held but lists %d dependencies", d.Key, len(d.Deps))})
					return
				}
				j.heldDefs = append(j.heldDefs, int32(j.ntasks()))
			}
			if err := j.defs.add(d); err != nil {
				s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH, Message: err.Error()})
				return
			}
		}
	}
	if m.Run != nil {
		if j.run {
			s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH, Message: "run sent twice"})
			return
		}
		s.startJob(j, m.Run)
	}
	for _, lo := range m.Lost {
		if j.over {
			return
		}
		s.lostOutput(j, lo)
	}
}

// startJob validates j's graph and places its ready tasks.
func (s *Server) startJob(j *srvJob, run *pb.Run) {
	j.run = true
	j.jout() // the first event carries the job's id, even before any task finishes
	j.name = run.Name
	j.events = run.Events
	j.retries = min(max(run.Retries, 0), MaxRetries)
	j.keepGoing = run.KeepGoing
	n := int32(j.ntasks())
	bad := func(i int32, format string, args ...any) {
		s.failJob(j, &pb.JobError{Index: i, Kind: pb.JobError_BAD_GRAPH, Message: fmt.Sprintf(format, args...)})
	}
	j.defs.initIndex()
	mark := make([]int32, n) // mark[d] == i+1: d already seen among i's deps
	j.usersOff = make([]int32, n+1)
	for i := range n {
		if prev, dup := j.defs.insert(i); dup {
			bad(i, "duplicate key %q (tasks %d and %d)", j.key(i), prev, i)
			return
		}
		for _, dep := range j.deps(i) {
			if dep < 0 || dep >= i {
				bad(i, "task %q (index %d) depends on index %d: dependencies must come earlier in the task list", j.key(i), i, dep)
				return
			}
			if mark[dep] == i+1 {
				bad(i, "task %q lists dependency %q twice", j.key(i), j.key(dep))
				return
			}
			mark[dep] = i + 1
			j.usersOff[dep+1]++
		}
	}
	j.isOut = make([]bool, n)
	for _, o := range run.Outputs {
		if o < 0 || o >= n {
			bad(-1, "output index %d out of range [0, %d)", o, n)
			return
		}
		j.isOut[o] = true
	}
	j.outputs = run.Outputs
	if len(run.Outputs) == 0 {
		// Nothing would ever be reported to the client: answer at once
		// rather than leave it waiting. Connect's client never sends such
		// a job (a Get of no keys returns without one).
		bad(-1, "the job asks for no outputs (%d tasks): nothing to compute", n)
		return
	}
	if !s.startSession(j, run) {
		return
	}
	for i := range n {
		j.usersOff[i+1] += j.usersOff[i]
	}
	j.users = make([]int32, j.usersOff[n])
	fill := slices.Clone(j.usersOff[:n])
	j.state = make([]uint8, n)
	j.waiting = make([]int32, n)
	j.need = make([]int32, n)
	j.who = make([]int32, n)
	j.nbytes = make([]int64, n)
	j.proc = make([]int32, n)
	j.procPos = make([]int32, n)
	j.thief = make([]int32, n)
	j.fails = make([]uint8, n)
	j.suspicious = make([]uint8, n)
	j.slot = make([]int32, n)
	j.prefix = make([]int32, n)
	prefixes := map[string]int32{}
	for i := range n {
		p := graph.Key(j.key(i)).Prefix()
		id, ok := prefixes[p]
		if !ok {
			id = int32(len(prefixes))
			prefixes[p] = id
		}
		j.prefix[i] = id
	}
	j.prefixNanos = make([]int64, len(prefixes))
	j.prefixRuns = make([]int64, len(prefixes))
	j.prefixNames = make([]string, len(prefixes))
	for p, id := range prefixes {
		j.prefixNames[id] = p
	}
	s.placeRun(j, run)
	if t, op := s.missingOp(j); t >= 0 {
		s.failMissingOp(j, t, op)
		return
	}
	var roots []int32
	for i := range n {
		deps := j.deps(i)
		for _, dep := range deps {
			j.users[fill[dep]] = i
			fill[dep]++
		}
		j.waiting[i] = int32(len(deps))
		j.need[i] = j.usersOff[i+1] - j.usersOff[i]
		if len(deps) == 0 && !j.linked(i) {
			roots = append(roots, i)
		}
	}
	s.log.Debug("job started", "job", j.id, "name", j.name, "tasks", n, "outputs", len(run.Outputs))
	// Roots go out in priority order, so that the first ones placed (and
	// the ones left in the root queue last) follow optimize.Order.
	slices.SortFunc(roots, func(a, b int32) int {
		return cmp.Or(cmp.Compare(j.defs.priority(a), j.defs.priority(b)), cmp.Compare(a, b))
	})
	for _, t := range roots {
		s.place(j, t)
	}
	s.startLinks(j)
	s.balance()
}

func (s *Server) handleWorker(w *srvWorker, m *pb.WorkerMessage) {
	w.lastSeen = time.Now()
	if m.Heartbeat != nil {
		w.sampleCPU(m.Heartbeat, w.lastSeen)
		w.hb = m.Heartbeat
	}
	// Replicas first: they come with the results of the tasks that
	// fetched them, and a result may release the key on every holder.
	for _, r := range m.Replicas {
		s.replica(w, r)
	}
	for _, d := range m.Done {
		s.taskDone(w, d)
	}
	for _, f := range m.Failed {
		s.taskFailed(w, f)
	}
	for _, md := range m.Missing {
		s.missingDep(w, md)
	}
	for _, r := range m.Stolen {
		s.stealReply(w, r)
	}
	if len(m.Done)+len(m.Failed)+len(m.Missing)+len(m.Stolen) > 0 {
		s.refill()
		s.balance()
	}
}

// lookup returns the job and task a worker's message names, or nil for a
// job that is over (the worker was told to drop it) or an unknown key.
func (s *Server) lookup(job uint64, key string) (*srvJob, int32) {
	j := s.jobs[job]
	if j == nil || !j.run {
		return nil, -1
	}
	t, ok := j.lookupKey(key)
	if !ok {
		s.log.Warn("worker named an unknown task", "job", job, "key", key)
		return nil, -1
	}
	return j, t
}

func (s *Server) taskDone(w *srvWorker, d *pb.TaskDone) {
	j, t := s.lookup(d.Job, d.Key)
	if j == nil {
		return
	}
	switch {
	case j.state[t] == tsProcessing && j.proc[t] == w.id:
		s.removeProc(j, t)
	case j.state[t] == tsMemory && j.holds(t, w.id):
		// A duplicate report from a holder: nothing to change (a release
		// here would drop a value the scheduler still lists there).
		return
	case j.state[t] == tsProcessing || j.state[t] == tsMemory:
		// Only the worker a task is assigned to may report its result:
		// any other (a rogue, or a stale duplicate) could hand clients
		// and peers a value that was never computed from the graph.
		s.log.Warn("refused a result: the task is not assigned to this worker", "job", j.id, "key", d.Key, "worker", w.id, "name", w.reg.Name, "address", w.reg.DataAddress)
		w.wout().Release = append(w.wout().Release, &pb.KeyRef{Job: j.id, Key: d.Key})
		return
	default:
		// Not wanted any more: the worker should not keep it.
		w.wout().Release = append(w.wout().Release, &pb.KeyRef{Job: j.id, Key: d.Key})
		return
	}
	w.tasksDone++
	j.setHolder(t, w.id)
	j.nbytes[t] = d.Nbytes
	if d.StartUnixNano > 0 && d.StopUnixNano >= d.StartUnixNano {
		j.prefixNanos[j.prefix[t]] += d.StopUnixNano - d.StartUnixNano
		j.prefixRuns[j.prefix[t]]++
		s.stream.add(streamRec{worker: w.id, job: j.id, prefix: j.prefixNames[j.prefix[t]],
			start: d.StartUnixNano, stop: d.StopUnixNano, nbytes: d.Nbytes})
	}
	if len(j.deps(t)) == 0 {
		j.rootsDone++
		j.rootBytes += max(d.Nbytes, 64)
	}
	s.sawWorker(j, w)
	if j.events {
		j.jout().Events = append(j.jout().Events, &pb.TaskEvent{
			Index: t, WorkerId: w.id, StartUnixNano: d.StartUnixNano, StopUnixNano: d.StopUnixNano, Nbytes: d.Nbytes,
		})
	}
	s.finished(j, t, w.addrs)
	s.notifyLinks(j, t)
}

// finished: t's value is in memory (held by who[t], or its source's
// holders for a linked task): its dependencies may be released, its
// dependents placed, and the client told when it is an output. addrs are
// its holders' addresses when known (nil: looked up).
func (s *Server) finished(j *srvJob, t int32, addrs []string) {
	j.state[t] = tsMemory
	for _, dep := range j.deps(t) {
		if j.link != nil && j.linked(t) {
			break // a linked task needs none of its dependencies (startLinks)
		}
		j.need[dep]--
		if j.need[dep] == 0 && !j.isOut[dep] && j.state[dep] == tsMemory {
			s.release(j, dep)
		}
	}
	for _, c := range j.dependents(t) {
		if j.state[c] == tsWaiting && (j.link == nil || !j.linked(c)) {
			j.waiting[c]--
			if j.waiting[c] == 0 {
				s.place(j, c)
			}
		}
	}
	if j.over {
		return // a linked dependent failed the job
	}
	if j.isOut[t] {
		if addrs == nil {
			addrs = s.addrsOf(j, t)
		}
		j.jout().Outputs = append(j.jout().Outputs, &pb.OutputReady{Index: t, Addresses: addrs, Nbytes: j.nbytes[t], Job: j.valueJob(t)})
	} else if j.need[t] == 0 {
		s.release(j, t)
	}
}

// valueJob is the job under which t's holders store its value, when not
// j: a linked task's source job; 0 otherwise.
func (j *srvJob) valueJob(t int32) uint64 {
	if src, ok := j.link[t]; ok {
		return src.j.id
	}
	return 0
}

// replica: w fetched a value for a task and keeps it. While the value is
// in memory and still needed (an unfinished dependent, or an output), w
// is one more holder: later tasks needing it are placed there and read
// it locally, other workers may fetch it there, and it survives its first
// holder. Otherwise w is told to drop it.
//
// A replica reported for an earlier life of a value (it was released and
// recomputed meanwhile) counts too: values are deterministic. In the rare
// case that a release answered to a stale report reaches w after w has
// fetched the value again, w holds less than the scheduler thinks; a task
// then finds the value missing on w and fetches it from another holder,
// or reports MissingDep, which drops w from the holders.
func (s *Server) replica(w *srvWorker, r *pb.Replica) {
	j, t := s.lookup(r.Job, r.Key)
	if j == nil {
		return // the job is over: the worker dropped it with cancel_jobs
	}
	asked := false
	if c := j.copies[t]; len(c) > 0 {
		if k := slices.Index(c, w.id); k >= 0 {
			asked = true
			j.copies[t] = slices.Delete(c, k, k+1)
			if len(j.copies[t]) == 0 {
				delete(j.copies, t)
			}
		}
	}
	if j.state[t] == tsMemory && (j.need[t] > 0 || j.isOut[t]) {
		if asked || s.runsConsumer(j, t, w) {
			j.addHolder(t, w.id)
			return
		}
		s.log.Warn("refused a replica: the worker runs no task that needs it", "job", j.id, "key", r.Key, "worker", w.id, "name", w.reg.Name, "address", w.reg.DataAddress)
	}
	w.wout().Release = append(w.wout().Release, &pb.KeyRef{Job: j.id, Key: r.Key})
}

// runsConsumer reports whether a task that depends on t is assigned to w:
// a worker fetches a value only for such a task, and reports the replica
// in the message that reports that task (replicas are handled first).
func (s *Server) runsConsumer(j *srvJob, t int32, w *srvWorker) bool {
	for _, c := range j.dependents(t) {
		if j.state[c] == tsProcessing && j.proc[c] == w.id {
			return true
		}
	}
	return false
}

// sawWorker tells j's client about w (ClientEvent.workers) the first time
// one of j's tasks finishes or fails there.
func (s *Server) sawWorker(j *srvJob, w *srvWorker) {
	if int(w.id) >= len(j.seen) {
		j.seen = append(j.seen, make([]bool, int(w.id)+1-len(j.seen))...)
	}
	if !j.seen[w.id] {
		j.seen[w.id] = true
		j.jout().Workers = append(j.jout().Workers, &pb.WorkerInfo{Id: w.id, Name: w.reg.Name, DataAddress: w.reg.DataAddress})
	}
}

// release drops t's value on every worker holding it.
func (s *Server) release(j *srvJob, t int32) {
	src, linked := j.link[t]
	if !linked {
		ref := &pb.KeyRef{Job: j.id, Key: j.key(t)}
		for id := range j.holders(t) {
			w := s.byID[id]
			w.wout().Release = append(w.wout().Release, ref)
		}
	}
	j.setHolder(t, 0)
	j.state[t] = tsReleased
	s.unslot(j, t)
	if linked {
		s.sourceCheck(src)
	}
}

// unslot stops counting t's value against its worker's root budget.
func (s *Server) unslot(j *srvJob, t int32) {
	if id := j.slot[t]; id != 0 {
		s.byID[id].held--
		j.slot[t] = 0
	}
}

func (s *Server) taskFailed(w *srvWorker, f *pb.TaskFailed) {
	j, t := s.lookup(f.Job, f.Key)
	if j == nil || j.state[t] != tsProcessing || j.proc[t] != w.id {
		return
	}
	s.removeProc(j, t)
	j.fails[t]++
	if f.StartUnixNano > 0 && f.StopUnixNano >= f.StartUnixNano {
		s.stream.add(streamRec{worker: w.id, job: j.id, prefix: j.prefixNames[j.prefix[t]],
			start: f.StartUnixNano, stop: f.StopUnixNano, failed: true})
	}
	if int32(j.fails[t]) <= j.retries {
		s.log.Debug("task failed; retrying", "job", j.id, "key", f.Key, "attempt", j.fails[t], "err", f.Failure.GetMessage())
		j.state[t] = tsLimbo
		s.requeue(j, t)
		return
	}
	failure := f.Failure
	if failure == nil {
		failure = &pb.Failure{Message: "task failed without a reason"}
	}
	s.sawWorker(j, w)
	j.state[t] = tsLimbo
	s.taskErred(j, &pb.JobError{Index: t, Kind: pb.JobError_TASK, Failure: failure, WorkerId: w.id})
}

// missingDep: the worker could not fetch a dependency from the addresses
// given. They are dropped from its holders; with none left the value is
// lost (and recomputed); the task waits for it and goes out again.
func (s *Server) missingDep(w *srvWorker, m *pb.MissingDep) {
	j, t := s.lookup(m.Job, m.Key)
	if j == nil || j.state[t] != tsProcessing || j.proc[t] != w.id {
		return
	}
	d, ok := j.lookupKey(m.Dep)
	if !ok || !slices.Contains(j.deps(t), d) {
		s.log.Warn("worker reported a missing dependency the task does not have", "job", j.id, "key", m.Key, "dep", m.Dep)
		return
	}
	s.removeProc(j, t)
	j.state[t] = tsLimbo
	if j.state[d] == tsMemory {
		s.dropAddresses(j, d, m.Addresses)
		if !j.held(d) {
			s.valueLost(j, d)
		}
	}
	s.requeue(j, t)
}

// dropAddresses removes the workers at data addresses from d's holders.
//
// For a linked d, the addresses are dropped from its source too, whose
// value is lost (and recomputed by its job) when none is left.
func (s *Server) dropAddresses(j *srvJob, d int32, addrs []string) {
	if src, ok := j.link[d]; ok && !src.j.over && src.j.state[src.i] == tsMemory {
		s.dropAddresses(src.j, src.i, addrs)
		if !src.j.held(src.i) {
			s.valueLost(src.j, src.i)
		}
	}
	for _, a := range addrs {
		for id := range j.holders(d) {
			if s.byID[id].reg.DataAddress == a {
				j.removeHolder(d, id)
				break
			}
		}
	}
}

func (s *Server) lostOutput(j *srvJob, lo *pb.LostOutput) {
	if !j.run || lo.Index < 0 || int(lo.Index) >= j.ntasks() || !j.isOut[lo.Index] {
		s.failJob(j, &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH,
			Message: fmt.Sprintf("lost output index %d is not an output of the job", lo.Index)})
		return
	}
	t := lo.Index
	if j.state[t] != tsMemory {
		return // already being recomputed
	}
	s.dropAddresses(j, t, []string{lo.Address})
	if !j.held(t) {
		s.valueLost(j, t)
		return
	}
	j.jout().Outputs = append(j.jout().Outputs, &pb.OutputReady{Index: t, Addresses: s.addrsOf(j, t), Nbytes: j.nbytes[t], Job: j.valueJob(t)})
}

// valueLost: d was in memory and no worker holds it any more. Tasks that
// counted it as present wait for it again, and it is recomputed if still
// needed.
func (s *Server) valueLost(j *srvJob, d int32) {
	j.state[d] = tsReleased
	j.setHolder(d, 0)
	s.unslot(j, d)
	for _, c := range j.dependents(d) {
		switch j.state[c] {
		case tsWaiting:
			j.waiting[c]++
		case tsNoWorker:
			j.state[c] = tsWaiting
			j.waiting[c] = 1
		}
	}
	if j.need[d] > 0 || j.isOut[d] {
		if j.linked(d) {
			s.linkWait(j, d)
			return
		}
		s.log.Debug("recomputing a lost value", "job", j.id, "key", j.key(d))
		s.recompute(j, d)
	}
}

// recompute brings a released or lost task back: its dependencies are
// needed again (and recomputed themselves when gone), and it waits for
// them.
func (s *Server) recompute(j *srvJob, t int32) {
	if j.linked(t) {
		s.linkWait(j, t)
		return
	}
	j.state[t] = tsLimbo
	for _, d := range j.deps(t) {
		j.need[d]++
	}
	// A dependency that erred (keep-going jobs) never comes back: t errs.
	if c := j.erredDep(t); c != nil {
		s.errSubtree(j, t, c)
		return
	}
	for _, d := range j.deps(t) {
		if j.state[d] == tsReleased {
			s.recompute(j, d)
			if j.state[t] == tsErred {
				return // d erred, and t with it
			}
		}
	}
	// Counted after the recursion: a linked dependency may be back at
	// once, and t, not waiting yet, was not counted down for it.
	n := int32(0)
	for _, d := range j.deps(t) {
		if j.state[d] != tsMemory {
			n++
		}
	}
	j.state[t] = tsWaiting
	j.waiting[t] = n
	if n == 0 {
		s.place(j, t)
	}
}

// requeue places a task taken back from a worker (state limbo) again, or
// makes it wait for dependencies no longer in memory.
func (s *Server) requeue(j *srvJob, t int32) {
	if c := j.erredDep(t); c != nil {
		s.errSubtree(j, t, c) // keep-going jobs: it never comes back
		return
	}
	for _, d := range j.deps(t) {
		if j.state[d] == tsReleased {
			// Still needed by t, so it must come back.
			s.recompute(j, d)
			if j.state[t] == tsErred {
				return // d erred, and t with it
			}
		}
	}
	n := int32(0)
	for _, d := range j.deps(t) {
		if j.state[d] != tsMemory {
			n++
		}
	}
	j.state[t] = tsWaiting
	j.waiting[t] = n
	if n == 0 {
		s.place(j, t)
	}
}
