package distributed

import (
	"math"
	"slices"
	"time"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Placement. A worker queues the tasks it is sent and runs them by
// priority, holding a task's resources while it runs; so the scheduler
// checks only that a worker offers a task's resources at all, not that
// they are free now. (Keeping tasks on the scheduler until a worker's
// resources are free was rejected: it costs a round trip per task, and
// the worker knows better when they free up.) Eligible workers also have
// the task's op and are allowed by its job's restriction, and jobs are
// ordered by their priority first (constraints.go). Among the eligible workers
// a task goes to the one holding the most bytes of its dependencies
// (each held dependency also counts one byte, so that values of unknown
// size still pull their consumers), ties to the one with the fewest
// processing tasks per thread, then to the lower id.
//
// Root tasks (no dependencies) go only to workers below their root
// budget (rootFull: Dask's ceil(threads × WorkerSaturation) processing
// tasks, plus about 32 MiB of the job's root values, processing or held
// until a consumer already running releases them); otherwise they wait in
// a root queue on the scheduler (one per resource signature, ordered by
// job then priority) and go out as workers finish tasks. Non-root tasks
// are never held back: they consume values, so running them frees
// memory.
//
// Work stealing moves surplus tasks (beyond a worker's threads) from
// busy workers to workers with fewer processing tasks than threads: the
// victim is asked for its lowest-priority tasks (as many as the thief has
// idle threads, or up to an even split of the two backlogs when that is
// more), and those it had not started (StealReply.stolen) go to the
// thief. A task is asked for only if moving it pays (worthMoving): the
// bytes of its dependencies the thief lacks must cross in less time, at
// stealBandwidth, than the task would wait on the victim plus its own run
// time, both estimated from the job's mean run time. It runs after every batch
// of worker messages, on joins and on the maintenance tick, and costs a
// pass over the workers unless some worker is idle and another has
// surplus; then a pass over the victim's processing list.

// place sends ready task t (every dependency in memory) to a worker,
// holds it in a root queue, or parks it as having no worker.
func (s *Server) place(j *srvJob, t int32) {
	if j.over {
		return
	}
	if j.linked(t) {
		// Never computed here: its value is the source's.
		s.linkWait(j, t)
		return
	}
	deps := j.deps(t)
	if len(deps) == 0 {
		s.placeRoot(j, t)
		return
	}
	for _, d := range deps {
		for id := range j.holders(d) {
			s.score[s.byID[id].slot] += j.nbytes[d] + 1
		}
	}
	res := j.defs.resources(t)
	var best *srvWorker
	var bestScore int64
	for _, w := range s.live {
		sc := s.score[w.slot]
		s.score[w.slot] = 0
		if w.retiring || !covers(w.reg.Resources, res) || !s.canRun(w, j, t) {
			continue
		}
		if best == nil || sc > bestScore || sc == bestScore && lessLoaded(w, best) {
			best, bestScore = w, sc
		}
	}
	if best == nil {
		s.parkNoWorker(j, t)
		return
	}
	s.assign(best, j, t)
}

// lessLoaded reports whether a has fewer processing tasks per thread
// than b.
func lessLoaded(a, b *srvWorker) bool {
	return len(a.proc)*b.threads < len(b.proc)*a.threads
}

// rootCap is how many processing tasks w may have and still be given a
// root task of j: ceil(threads × WorkerSaturation), Dask's bound, plus
// min(1024, 32 MiB / the mean size of j's finished root values, at least
// 64 bytes). The second term lets tiny roots go out in batches of hundreds
// (at Dask's bound alone every finished task is a round trip that carries
// one new task, and per-task cost triples) while the memory queued roots
// can hold stays near 32 MiB per worker; until one of j's roots has
// finished, only the first term applies.
func (s *Server) rootCap(w *srvWorker, j *srvJob) int {
	c := s.rootBase(w)
	if j.rootsDone > 0 {
		mean := max(j.rootBytes/j.rootsDone, 64)
		c += int(min(1024, (32<<20)/mean))
	}
	return c
}

// rootBase is ceil(threads × WorkerSaturation), the first term of rootCap.
func (s *Server) rootBase(w *srvWorker) int {
	return int(math.Ceil(float64(w.threads) * s.opts.WorkerSaturation))
}

// rootFull reports whether w may not be given a root task of j now: it has
// at least rootBase processing tasks, and its processing tasks and held
// root values (srvWorker.held) reach rootCap.
//
// Held root values count because a worker runs its queued roots faster
// than a round trip when they are quick: each finished root is answered
// with a new one while the consumers of the earlier ones are still on
// their way, and the values they will release pile up on top of the
// queued roots (about twice rootCap's memory on a sum over 256 KiB
// blocks). Only roots whose last unfinished consumer is already running
// are held this way: those are released without any further root, so the
// bound cannot starve a reduction that waits for more roots (a sum of all
// of them), and below rootBase processing tasks a worker takes roots
// whatever it holds.
func (s *Server) rootFull(w *srvWorker, j *srvJob) bool {
	n := w.procAtLeast(j)
	return n >= s.rootBase(w) && n+w.held >= s.rootCap(w, j)
}

func (s *Server) placeRoot(j *srvJob, t int32) {
	res := j.defs.resources(t)
	var best *srvWorker
	eligible := false
	for _, w := range s.live {
		if w.retiring || !covers(w.reg.Resources, res) || !s.canRun(w, j, t) {
			continue
		}
		eligible = true
		if s.rootFull(w, j) {
			continue
		}
		if best == nil || lessLoaded(w, best) {
			best = w
		}
	}
	switch {
	case best != nil:
		s.assign(best, j, t)
	case eligible:
		s.rootQueueOf(j, t).push(taskRef{j, t})
		j.state[t] = tsQueued
	default:
		s.parkNoWorker(j, t)
	}
}

func (s *Server) parkNoWorker(j *srvJob, t int32) {
	j.state[t] = tsNoWorker
	j.noWorker = append(j.noWorker, noWorkerEntry{i: t, since: time.Now()})
}

// assign sends t to w.
func (s *Server) assign(w *srvWorker, j *srvJob, t int32) {
	j.state[t] = tsProcessing
	j.proc[t] = w.id
	j.procPos[t] = int32(len(w.proc))
	w.proc = append(w.proc, taskRef{j, t})
	w.countPrio(j, 1)
	spec := &pb.TaskSpec{Job: j.id, Key: j.key(t), Node: j.defs.node(t), Priority: j.defs.priority(t), Resources: j.defs.resources(t), PlacePriority: j.pl.prio}
	if ds := j.deps(t); len(ds) > 0 {
		deps := make([]pb.Dep, len(ds))
		spec.Deps = make([]*pb.Dep, len(ds))
		for k, d := range ds {
			if j.need[d] == 1 && j.slot[d] == 0 && len(j.deps(d)) == 0 && !j.isOut[d] && j.held(d) && !j.linked(d) {
				// t is the last consumer of root d: d's value is held
				// until t finishes, against its first holder's budget.
				j.slot[d] = j.who[d]
				s.byID[j.slot[d]].held++
			}
			p := &deps[k]
			p.Key = j.key(d)
			p.Addresses = s.addrsOf(j, d)
			p.Nbytes = j.nbytes[d]
			p.Job = j.valueJob(d)
			spec.Deps[k] = p
		}
	}
	out := w.wout()
	out.Compute = append(out.Compute, spec)
}

// addrsOf returns the data addresses of the workers holding t's value; a
// single holder's slice is shared (senders only read it).
func (s *Server) addrsOf(j *srvJob, t int32) []string {
	more := j.whoMore[t]
	if len(more) == 0 {
		if j.who[t] == 0 {
			return nil
		}
		return s.byID[j.who[t]].addrs
	}
	a := make([]string, 0, 1+len(more))
	for id := range j.holders(t) {
		a = append(a, s.byID[id].reg.DataAddress)
	}
	return a
}

// removeProc takes t off the processing list of its worker (and cancels
// the bookkeeping of a steal asked for it).
func (s *Server) removeProc(j *srvJob, t int32) {
	w := s.byID[j.proc[t]]
	pos := j.procPos[t]
	last := len(w.proc) - 1
	moved := w.proc[last]
	w.proc[pos] = moved
	moved.j.procPos[moved.i] = pos
	w.proc[last] = taskRef{}
	w.proc = w.proc[:last]
	w.countPrio(j, -1)
	j.proc[t] = 0
	if th := j.thief[t]; th != 0 {
		w.stealOut--
		s.byID[th].stealIn--
		j.thief[t] = 0
	}
}

// refill gives every worker below its root capacity root tasks from the
// queues it can serve.
func (s *Server) refill() {
	if len(s.rootQs) == 0 {
		return
	}
	for _, w := range s.live {
		s.fillRoots(w)
	}
}

func (s *Server) fillRoots(w *srvWorker) {
	if w.retiring {
		return
	}
	for {
		var best *rootQueue
		for _, q := range s.rootQs {
			if !s.queueFits(w, q) || !q.clean() {
				continue
			}
			if best == nil || q.less(q.h[0], best.h[0]) {
				best = q
			}
		}
		if best == nil || s.rootFull(w, best.h[0].j) {
			return
		}
		r := best.pop()
		s.assign(w, r.j, r.i)
	}
}

// balance asks busy workers for tasks on behalf of idle ones.
func (s *Server) balance() {
	if len(s.live) < 2 {
		return
	}
	var thieves, victims []*srvWorker
	for _, w := range s.live {
		switch {
		case w.retiring:
			// No thief; its tasks are asked back by its retirement.
		case len(w.proc)+w.stealIn < w.threads:
			thieves = append(thieves, w)
		case len(w.proc)-w.stealOut > w.threads:
			victims = append(victims, w)
		}
	}
	if len(thieves) == 0 || len(victims) == 0 {
		return
	}
	for _, th := range thieves {
		for slack := th.threads - len(th.proc) - th.stealIn; slack > 0 && len(victims) > 0; {
			// The victim with the largest surplus per thread.
			vi := 0
			for k, v := range victims {
				if surplus(v)*victims[vi].threads > surplus(victims[vi])*v.threads {
					vi = k
				}
			}
			v := victims[vi]
			// At least the thief's idle threads; more when the victim's
			// backlog is large, up to an even split per thread, so that a
			// worker joining a long computation gets a share in a few
			// round trips rather than threads tasks per round trip.
			lv, lt := len(v.proc)-v.stealOut, len(th.proc)+th.stealIn
			share := (lv+lt)*th.threads/(v.threads+th.threads) - lt
			n := min(max(slack, share), surplus(v))
			picked := s.pickSteal(v, th, n)
			for _, r := range picked {
				r.j.thief[r.i] = th.id
				v.stealOut++
				th.stealIn++
				out := v.wout()
				out.Steal = append(out.Steal, &pb.KeyRef{Job: r.j.id, Key: r.j.key(r.i)})
			}
			slack -= len(picked)
			if len(picked) < n || surplus(v) <= 0 {
				victims = append(victims[:vi], victims[vi+1:]...)
			}
			if slack <= 0 {
				break
			}
		}
	}
}

func surplus(w *srvWorker) int { return len(w.proc) - w.stealOut - w.threads }

// stealBandwidth is the transfer rate, in bytes per second, that stealing
// assumes between workers: Dask's default estimate (100 MB/s), low for
// loopback (over 1 GB/s) and about right for a shared 1 Gbit/s network,
// so that a task is moved only when it clearly pays.
const stealBandwidth = 100e6

// stealSmallBytes is what a move may cost without an estimate: 1 MiB,
// about 10 ms at stealBandwidth.
const stealSmallBytes = 1 << 20

// worthMoving reports whether moving r from victim v to thief th pays:
// the bytes of r's dependencies th does not hold (a replica or its own
// value counts as held) take at most the mean run time of r's prefix ×
// (1 + surplus(v) / v's threads) to cross at stealBandwidth, the time r
// would take to start and run on v if not stolen, roughly, as stolen
// tasks are the last v would run. Up to stealSmallBytes always move;
// more waits until a task of r's prefix has finished and reported its
// run time (the first one of a kind may take longer than its bytes). The
// estimate counts a dependency shared by several stolen tasks once per
// task, which errs on the side of leaving tasks with their data.
func (s *Server) worthMoving(r taskRef, v, th *srvWorker) bool {
	j, t := r.j, r.i
	var move int64
	for _, d := range j.deps(t) {
		if !j.holds(d, th.id) {
			move += j.nbytes[d]
		}
	}
	if move <= stealSmallBytes {
		return true
	}
	p := j.prefix[t]
	if j.prefixRuns[p] == 0 {
		return false
	}
	mean := float64(j.prefixNanos[p]) / float64(j.prefixRuns[p]) / 1e9
	budget := mean * (1 + float64(max(surplus(v), 0))/float64(v.threads)) * stealBandwidth
	return float64(move) <= budget
}

// pickSteal returns up to n of v's processing tasks with the highest
// priority values (the last it would run) that thief can run, that are
// worth moving (worthMoving) and that no steal is asked for already.
func (s *Server) pickSteal(v, thief *srvWorker, n int) []taskRef {
	if n <= 0 {
		return nil
	}
	if n > 8 {
		// A large share: sort the candidates instead of insertion.
		var all []taskRef
		for _, r := range v.proc {
			if r.j.thief[r.i] == 0 && s.fits(thief, r.j, r.i) && s.worthMoving(r, v, thief) {
				all = append(all, r)
			}
		}
		slices.SortFunc(all, func(a, b taskRef) int {
			if laterThan(a, b) {
				return -1
			}
			if laterThan(b, a) {
				return 1
			}
			return 0
		})
		return all[:min(n, len(all))]
	}
	var best []taskRef // sorted, most stealable first
	for _, r := range v.proc {
		if r.j.thief[r.i] != 0 || !s.fits(thief, r.j, r.i) {
			continue
		}
		if len(best) == n && !laterThan(r, best[n-1]) || !s.worthMoving(r, v, thief) {
			continue
		}
		k := len(best)
		if k == n {
			k--
		} else {
			best = append(best, taskRef{})
		}
		for k > 0 && laterThan(r, best[k-1]) {
			best[k] = best[k-1]
			k--
		}
		best[k] = r
	}
	return best
}

// laterThan reports whether a runs after b: a later job, or in the same
// job a higher priority value (then a higher index).
func laterThan(a, b taskRef) bool {
	if a.j != b.j {
		if a.j.pl.prio != b.j.pl.prio {
			return a.j.pl.prio < b.j.pl.prio
		}
		return a.j.id > b.j.id
	}
	pa, pb := a.j.defs.priority(a.i), b.j.defs.priority(b.i)
	if pa != pb {
		return pa > pb
	}
	return a.i > b.i
}

func (s *Server) stealReply(w *srvWorker, r *pb.StealReply) {
	j, t := s.lookup(r.Job, r.Key)
	if j == nil || j.state[t] != tsProcessing || j.proc[t] != w.id {
		return // finished, lost or dropped meanwhile
	}
	if j.thief[t] == 0 {
		if r.Stolen {
			// A stale request (asked of an earlier attempt, which failed
			// and cleared it) took the copy sent here again since, which
			// the worker got in the same message before the request: the
			// task is no longer there, and would be waited for for ever.
			s.removeProc(j, t)
			j.state[t] = tsLimbo
			s.requeue(j, t)
		}
		return
	}
	th := s.byID[j.thief[t]]
	if !r.Stolen {
		w.stealOut--
		th.stealIn--
		j.thief[t] = 0
		return
	}
	s.removeProc(j, t)
	j.state[t] = tsLimbo
	if !th.gone && s.fits(th, j, t) && s.depsInMemory(j, t) {
		s.assign(th, j, t)
		return
	}
	s.requeue(j, t)
}

func (s *Server) depsInMemory(j *srvJob, t int32) bool {
	for _, d := range j.deps(t) {
		if j.state[d] != tsMemory {
			return false
		}
	}
	return true
}

// rootQueue holds root tasks that need resources res (a binary heap by
// job, then priority, then index).
type rootQueue struct {
	res  map[string]float64
	ops  []int32      // op ids its tasks need (constraints.go)
	only *restriction // the workers its tasks may run on; nil for any
	h    []taskRef
}

func (s *Server) rootQueueFor(res map[string]float64) *rootQueue {
	sig := formatResources(res)
	q := s.roots[sig]
	if q == nil {
		q = &rootQueue{res: res}
		s.roots[sig] = q
		s.rootQs = append(s.rootQs, q)
	}
	return q
}

func (q *rootQueue) less(a, b taskRef) bool { return laterThan(b, a) }

func (q *rootQueue) push(r taskRef) {
	q.h = append(q.h, r)
	q.up(len(q.h) - 1)
}

func (q *rootQueue) pop() taskRef {
	r := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = taskRef{}
	q.h = q.h[:last]
	if last > 0 {
		q.down(0)
	}
	return r
}

// clean pops entries that are no longer queued and reports whether any
// remain.
func (q *rootQueue) clean() bool {
	for len(q.h) > 0 {
		r := q.h[0]
		if !r.j.over && r.j.state[r.i] == tsQueued {
			return true
		}
		q.pop()
	}
	return false
}

func (q *rootQueue) dropJob(j *srvJob) {
	keep := q.h[:0]
	for _, r := range q.h {
		if r.j != j {
			keep = append(keep, r)
		}
	}
	clear(q.h[len(keep):])
	q.h = keep
	for k := len(q.h)/2 - 1; k >= 0; k-- {
		q.down(k)
	}
}

func (q *rootQueue) up(k int) {
	for k > 0 {
		p := (k - 1) / 2
		if !q.less(q.h[k], q.h[p]) {
			return
		}
		q.h[k], q.h[p] = q.h[p], q.h[k]
		k = p
	}
}

func (q *rootQueue) down(k int) {
	n := len(q.h)
	for {
		c := 2*k + 1
		if c >= n {
			return
		}
		if c+1 < n && q.less(q.h[c+1], q.h[c]) {
			c++
		}
		if !q.less(q.h[c], q.h[k]) {
			return
		}
		q.h[k], q.h[c] = q.h[c], q.h[k]
		k = c
	}
}
