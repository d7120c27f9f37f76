package distributed

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The scheduler's state machine driven without the network: a harness
// plays the goroutines of server.go (Connect's registration, receiver
// and sender; Compute's receiver and sender; maintain's tick) by calling
// the same methods under s.mu, so that one event costs microseconds and
// a fuzzer can try millions of interleavings of registrations, reports,
// disconnects and jobs. After every event checkServer compares the
// scheduler's redundant bookkeeping (slots, processing lists, counters,
// task states) with itself.
//
//	go test ./sched/distributed -run '^$' -fuzz FuzzServerMessages -fuzztime 60s -fuzzminimizetime 10s
//
// (With the default minimize time of 60 s, the fuzzer spends most of a
// short run minimizing each new interesting input, executing nothing new.)

// simServer is a Server with no listener, no goroutines and a logger that
// records internal errors.
type simServer struct {
	s        *Server
	log      *errorLog
	sessions []*simSession // every worker session ever registered
	jobs     []*srvJob     // every job ever created
	csess    []*srvSession // every client session ever opened
	now      time.Time     // the maintenance clock
	// announced[j][o]: the client was sent an OutputReady for output o
	// since it last entered memory.
	announced map[*srvJob]map[int32]bool
	// lostPeers[j]: the LostPeers the job's client was sent.
	lostPeers map[*srvJob][]string
	// Retirements under way (retire_fuzz_test.go), and the tasks each
	// retiring worker was processing when it began to retire.
	retiring []*retirement
	retSnap  map[int32]map[taskRef]bool
	// erred[j][o]: the client was sent a FutErred for output o (keep-going
	// jobs); erredTasks[j][t]: task t was seen erred (final: never sent
	// to a worker again).
	erred      map[*srvJob]map[int32]bool
	erredTasks map[*srvJob]map[int32]bool
}

// simSession is a fake worker's session: what the scheduler sent it.
type simSession struct {
	w      *srvWorker
	specs  []*pb.TaskSpec // Compute received, not yet reported
	reps   []*pb.Dep      // Replicate received, not yet reported
	steals []simSteal     // Steal requests received, not yet answered
	lost   []string       // LostPeers received
}

// simSteal is a Steal request a fake worker has not answered yet. A real
// worker answers at once, so a request followed by a new Compute of the
// same task (the task failed, was given up or finished meanwhile, and
// came back) was answered "not stolen" before the new copy arrived: the
// request is stale, and the fake worker must not give up the new copy.
type simSteal struct {
	ref   *pb.KeyRef
	stale bool
}

// errorLog is a slog handler that keeps the messages logged at Error
// level (the scheduler logs its recovered panics as "internal error").
type errorLog struct{ msgs []string }

func (l *errorLog) Enabled(_ context.Context, lv slog.Level) bool { return lv >= slog.LevelError }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	l.msgs = append(l.msgs, r.Message)
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

func newSimServer(allowedFailures int) *simServer {
	el := &errorLog{}
	opts := schedulerDefaults(SchedulerOptions{Logger: slog.New(el), AllowedFailures: allowedFailures})
	return &simServer{
		s: &Server{
			opts:     opts,
			log:      opts.Logger,
			done:     make(chan struct{}),
			byID:     []*srvWorker{nil},
			jobs:     make(map[uint64]*srvJob),
			sessions: make(map[string]*srvSession),
			roots:    make(map[string]*rootQueue),
			started:  time.Now(),
		},
		log:        el,
		now:        time.Now(),
		announced:  map[*srvJob]map[int32]bool{},
		erred:      map[*srvJob]map[int32]bool{},
		erredTasks: map[*srvJob]map[int32]bool{},
	}
}

// do runs f under the scheduler's lock as the server's goroutines do, but
// without locked's recover: a panic is a test failure here, with the
// event that caused it.
func (ss *simServer) do(t testing.TB, what func() string, f func()) {
	t.Helper()
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic during %s: %v\n%s", what(), r, debug.Stack())
		}
	}()
	f()
}

// register is Connect up to its receiver: addWorker, then the first
// message (the Register) through handleWorker.
func (ss *simServer) register(t testing.TB, reg *pb.Register) *simSession {
	var sess *simSession
	ss.do(t, func() string { return "register " + reg.Name + "@" + reg.DataAddress }, func() {
		w := ss.s.addWorker(reg)
		if !w.gone {
			ss.s.handleWorker(w, &pb.WorkerMessage{Register: reg})
		}
		w.lastSeen, w.joined = ss.now, ss.now
		sess = &simSession{w: w}
	})
	ss.sessions = append(ss.sessions, sess)
	return sess
}

// send is Connect's receiver getting m from sess's worker.
func (ss *simServer) send(t testing.TB, sess *simSession, m *pb.WorkerMessage) {
	ss.do(t, func() string { return fmt.Sprintf("message from worker %d: %v", sess.w.id, m) }, func() {
		if !sess.w.gone {
			ss.s.handleWorker(sess.w, m)
			sess.w.lastSeen = ss.now // on the harness's clock, for tick
		}
	})
}

// disconnect is Connect's receiver seeing its stream end: EOF (the
// worker left) or an error.
func (ss *simServer) disconnect(t testing.TB, sess *simSession, left bool) {
	ss.do(t, func() string { return fmt.Sprintf("disconnect of worker %d", sess.w.id) }, func() {
		if left {
			sess.w.left = true
			ss.s.lose(sess.w, "left")
			return
		}
		ss.s.lose(sess.w, "connection: broken")
	})
}

// submit is Compute's creation of a job and its receiver getting msgs.
func (ss *simServer) submit(t testing.TB, msgs ...*pb.ClientMessage) *srvJob {
	var j *srvJob
	ss.do(t, func() string { return "a new job" }, func() { j = ss.s.newJob() })
	ss.jobs = append(ss.jobs, j)
	for _, m := range msgs {
		ss.client(t, j, m)
	}
	return j
}

// client is Compute's receiver getting m for j.
func (ss *simServer) client(t testing.TB, j *srvJob, m *pb.ClientMessage) {
	ss.do(t, func() string { return fmt.Sprintf("client message for job %d: %v", j.id, m) }, func() { ss.s.handleClient(j, m) })
}

// cancel is Compute's receiver seeing the client's stream end: cleanly
// (retire: held outputs stay) or broken.
func (ss *simServer) cancel(t testing.TB, j *srvJob, clean bool) {
	ss.do(t, func() string { return fmt.Sprintf("end of job %d (clean %v)", j.id, clean) }, func() {
		if !j.ended {
			j.ended = true
			close(j.quit)
		}
		if clean {
			ss.s.retire(j)
		} else {
			ss.s.dropJob(j)
		}
	})
}

// session plays a client session's event: open one, end one, or
// release a key (held, or made up).
func (ss *simServer) session(t testing.TB, f *fuzzReader) func() string {
	if len(ss.csess) == 0 || f.n(4) == 0 {
		sess := &srvSession{id: fmt.Sprintf("s%d", len(ss.csess)), held: map[string][]taskRef{}}
		ss.do(t, func() string { return "a new session" }, func() { ss.s.sessions[sess.id] = sess })
		ss.csess = append(ss.csess, sess)
		return func() string { return fmt.Sprintf("session %s opens", sess.id) }
	}
	sess := ss.csess[f.n(len(ss.csess))]
	if f.n(4) == 0 {
		ss.do(t, func() string { return "ending a session" }, func() { ss.s.dropSession(sess) })
		return func() string { return fmt.Sprintf("session %s ends", sess.id) }
	}
	k := f.key()
	replicate := f.n(4) == 0
	ss.do(t, func() string { return "a release or replicate" }, func() {
		if held := slices.Sorted(maps.Keys(sess.held)); len(held) > 0 && f.n(4) > 0 {
			k = held[f.n(len(held))]
		}
		if replicate {
			ss.s.replicateHeld(sess, k)
		} else {
			ss.s.releaseHeld(sess, k)
		}
	})
	return func() string { return fmt.Sprintf("session %s releases %q (or replicates: %v)", sess.id, k, replicate) }
}

// sessionJob makes a job of a client session now and then: run names a
// session (now and then an unknown one), holds some outputs (now and then
// a task that is not one), and marks a task held (mostly a key the
// session holds, with its dependencies dropped).
func (ss *simServer) sessionJob(f *fuzzReader, defs []*pb.TaskDef, run *pb.Run) {
	if run == nil || len(ss.csess) == 0 || f.n(2) == 0 {
		return
	}
	sess := ss.csess[f.n(len(ss.csess))]
	run.Session = sess.id
	if f.n(16) == 0 {
		run.Session = "unknown"
	}
	for _, o := range run.Outputs {
		if f.n(2) == 0 {
			run.Hold = append(run.Hold, o)
		}
	}
	if f.n(16) == 0 {
		run.Hold = append(run.Hold, int32(f.n(len(defs)+1)))
	}
	if f.n(4) == 0 {
		d := defs[f.n(len(defs))]
		d.Held = true
		d.Deps = nil
		ss.s.mu.Lock()
		if held := slices.Sorted(maps.Keys(sess.held)); len(held) > 0 && f.n(4) > 0 && !slices.ContainsFunc(defs, func(x *pb.TaskDef) bool { return x.Key == held[0] }) {
			d.Key = held[0]
		}
		ss.s.mu.Unlock()
	}
}

// tick is maintain's periodic check, d after the last one.
func (ss *simServer) tick(t testing.TB, d time.Duration) {
	ss.now = ss.now.Add(d)
	ss.do(t, func() string { return "periodic checks" }, func() { ss.s.checkTimeouts(ss.now) })
}

// drain is the senders: every session's and job's pending message is
// taken, and what a worker was asked to do is remembered for its replies.
// It reports a message that should not have been sent.
func (ss *simServer) drain() error {
	s := ss.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range ss.sessions {
		m := sess.w.out
		sess.w.out = nil
		if m == nil || sess.w.gone {
			continue
		}
		for _, spec := range m.Compute {
			if j := s.jobs[spec.Job]; j != nil && j.run {
				if t, ok := j.lookupKey(spec.Key); ok && (j.state[t] == tsErred || ss.erredTasks[j][t]) && !forgedFailure(j, t, sess.w.id) {
					return fmt.Errorf("task %q of job %d, erred, sent to worker %d", spec.Key, spec.Job, sess.w.id)
				}
			}
			for _, d := range spec.Deps {
				// Only a task whose dependencies are in memory is sent.
				if len(d.Addresses) == 0 {
					return fmt.Errorf("task %q of job %d sent to worker %d with dependency %q at no address", spec.Key, spec.Job, sess.w.id, d.Key)
				}
			}
		}
		for _, p := range m.Compute {
			for k, st := range sess.steals {
				if st.ref.Job == p.Job && st.ref.Key == p.Key {
					sess.steals[k].stale = true
				}
			}
		}
		sess.specs = append(sess.specs, m.Compute...)
		sess.reps = append(sess.reps, m.Replicate...)
		sess.lost = append(sess.lost, m.LostPeers...)
		for _, r := range m.Steal {
			sess.steals = append(sess.steals, simSteal{ref: r})
		}
		if len(m.CancelJobs) > 0 {
			sess.specs = slices.DeleteFunc(sess.specs, func(p *pb.TaskSpec) bool { return slices.Contains(m.CancelJobs, p.Job) })
			sess.steals = slices.DeleteFunc(sess.steals, func(r simSteal) bool { return slices.Contains(m.CancelJobs, r.ref.Job) })
		}
	}
	for _, j := range ss.jobs {
		ev := j.out
		j.out = nil
		if ev == nil {
			continue
		}
		if len(ev.LostPeers) > 0 {
			if ss.lostPeers == nil {
				ss.lostPeers = map[*srvJob][]string{}
			}
			ss.lostPeers[j] = append(ss.lostPeers[j], ev.LostPeers...)
		}
		for _, o := range ev.Outputs {
			if o.Index < 0 || int(o.Index) >= len(j.isOut) || !j.isOut[o.Index] {
				return fmt.Errorf("job %d: OutputReady for index %d, not an output", j.id, o.Index)
			}
			if len(o.Addresses) == 0 {
				return fmt.Errorf("job %d: OutputReady for %q at no address", j.id, j.key(o.Index))
			}
			if ss.erred[j][o.Index] {
				return fmt.Errorf("job %d: OutputReady for %q, reported erred before", j.id, j.key(o.Index))
			}
			if ss.announced[j] == nil {
				ss.announced[j] = map[int32]bool{}
			}
			ss.announced[j][o.Index] = true
		}
		if err := ss.drainErred(j, ev); err != nil {
			return err
		}
	}
	// An output in memory has been announced; one that left memory must
	// be announced again when it comes back.
	for _, j := range ss.jobs {
		if j.over || !j.run || j.ended {
			continue
		}
		for _, o := range j.outputs {
			if j.state[o] != tsMemory {
				delete(ss.announced[j], o)
			} else if !ss.announced[j][o] {
				return fmt.Errorf("job %d: output %q is in memory but the client was not told", j.id, j.key(o))
			}
			if j.state[o] == tsErred && !ss.erred[j][o] {
				return fmt.Errorf("job %d: output %q erred but the client was not told", j.id, j.key(o))
			}
		}
	}
	return nil
}

// check drains the pending messages (as the senders would) and runs
// checkServer, and fails the test with a complaint of either, or with any
// internal error the scheduler logged.
func (ss *simServer) check(t testing.TB, after func() string) {
	t.Helper()
	err := ss.drain()
	if err == nil {
		ss.s.mu.Lock()
		err = checkServer(ss.s)
		if err == nil {
			err = ss.checkRetiring()
		}
		ss.s.mu.Unlock()
	}
	if err != nil {
		t.Fatalf("after:%s\n%v", after(), err)
	}
	for _, m := range ss.log.msgs {
		if strings.Contains(m, "internal error") {
			t.Fatalf("after:%s\nthe scheduler logged %q", after(), m)
		}
	}
}

// checkSessions checks what sessions hold: every held key's source is a
// task of a listed job, under that key, which holds it; every job's count
// of held outputs is right; a retired job holds something, or a live
// job's linked task still needs one of its values.
func checkSessions(s *Server) error {
	for id, sess := range s.sessions {
		if sess.gone {
			return fmt.Errorf("session %s is gone but listed", id)
		}
		held := 0
		for k, refs := range sess.held {
			if len(refs) == 0 {
				return fmt.Errorf("session %s lists %q with no hold", id, k)
			}
			held += len(refs)
			for _, ref := range refs {
				if err := checkHold(id, k, ref); err != nil {
					return err
				}
			}
		}
		n := 0
		for _, j := range s.jobs {
			if j.sess == sess {
				n += j.nhold
			}
		}
		if n != held {
			return fmt.Errorf("session %s lists %d holds, its jobs hold %d", id, held, n)
		}
	}
	for _, j := range s.jobs {
		n := 0
		for _, h := range j.hold {
			if h {
				n++
			}
		}
		if n != j.nhold {
			return fmt.Errorf("job %d holds %d outputs, its count says %d", j.id, n, j.nhold)
		}
		if j.retired && n == 0 {
			needed := false
			for t := range j.linkedBy {
				needed = needed || s.linkNeeded(j, t)
			}
			if !needed {
				return fmt.Errorf("retired job %d holds nothing and no link needs it, but is listed", j.id)
			}
		}
	}
	return nil
}

// checkHold checks one hold of key k by session id: a task of a listed
// job, under that key, which holds it.
func checkHold(id, k string, ref taskRef) error {
	switch {
	case ref.j.over:
		return fmt.Errorf("session %s holds %q of job %d, which is over", id, k, ref.j.id)
	case ref.j.key(ref.i) != k:
		return fmt.Errorf("session %s holds %q as task %q of job %d", id, k, ref.j.key(ref.i), ref.j.id)
	case ref.j.hold == nil || !ref.j.hold[ref.i]:
		return fmt.Errorf("session %s holds %q, but job %d does not hold it", id, k, ref.j.id)
	}
	return nil
}

// checkServer checks the scheduler's invariants; s.mu must be held. It
// recomputes from the tasks' states what the scheduler keeps as counters
// and lists, and reports the first difference.
func checkServer(s *Server) error {
	if err := checkSessions(s); err != nil {
		return err
	}
	if err := checkPlace(s); err != nil {
		return err
	}
	if len(s.score) != len(s.live) {
		return fmt.Errorf("%d scores for %d live workers", len(s.score), len(s.live))
	}
	for k, w := range s.live {
		switch {
		case w.slot != k:
			return fmt.Errorf("live worker %d at position %d has slot %d", w.id, k, w.slot)
		case w.gone:
			return fmt.Errorf("worker %d is gone (%s) but listed as live", w.id, w.why)
		case int(w.id) >= len(s.byID) || s.byID[w.id] != w:
			return fmt.Errorf("live worker %d is not byID[%d]", w.id, w.id)
		}
		if s.score[k] != 0 {
			return fmt.Errorf("placement scratch score[%d] = %d between events", k, s.score[k])
		}
	}
	addrs := map[string]int32{}
	names := map[string]int32{}
	for _, w := range s.live {
		if o, dup := addrs[w.reg.DataAddress]; dup {
			return fmt.Errorf("workers %d and %d both live at data address %s", o, w.id, w.reg.DataAddress)
		}
		addrs[w.reg.DataAddress] = w.id
		if w.reg.Name != "" {
			if o, dup := names[w.reg.Name]; dup {
				return fmt.Errorf("workers %d and %d both live under name %q", o, w.id, w.reg.Name)
			}
			names[w.reg.Name] = w.id
		}
	}
	// Counters recomputed from the tasks.
	stealOut := make([]int, len(s.byID))
	stealIn := make([]int, len(s.byID))
	held := make([]int, len(s.byID))
	for id, w := range s.byID {
		if w == nil {
			continue
		}
		if w.gone {
			if len(w.proc) != 0 {
				return fmt.Errorf("gone worker %d still has %d processing tasks", id, len(w.proc))
			}
			if slices.Contains(s.live, w) {
				return fmt.Errorf("gone worker %d is in the live list", id)
			}
		} else if !slices.Contains(s.live, w) {
			return fmt.Errorf("worker %d is neither gone nor live", id)
		}
		for pos, r := range w.proc {
			j, t := r.j, r.i
			switch {
			case j == nil:
				return fmt.Errorf("worker %d: empty entry %d in its processing list", id, pos)
			case j.over:
				return fmt.Errorf("worker %d processes task %q of job %d, which is over", id, j.key(t), j.id)
			case j.state[t] != tsProcessing:
				return fmt.Errorf("worker %d lists task %q of job %d, which is %s", id, j.key(t), j.id, stateNames[j.state[t]])
			case j.proc[t] != int32(id):
				return fmt.Errorf("worker %d lists task %q of job %d, which is processing on %d", id, j.key(t), j.id, j.proc[t])
			case int(j.procPos[t]) != pos:
				return fmt.Errorf("task %q of job %d is at %d of worker %d's list, procPos says %d", j.key(t), j.id, pos, id, j.procPos[t])
			}
			if j.thief[t] != 0 {
				stealOut[id]++
			}
		}
	}
	// No worker that could take a queued root task is short of work
	// (below rootBase processing tasks): refill ran wherever a task
	// finished. (Above rootBase, a worker full for the first job in queue
	// order takes no later job's roots either, by design, until one of its
	// tasks finishes.)
	for _, w := range s.live {
		for _, q := range s.rootQs {
			if s.queueFits(w, q) && q.clean() && len(w.proc) < s.rootBase(w) {
				return fmt.Errorf("root task %q of job %d is queued, but worker %d has only %d processing tasks", q.h[0].j.key(q.h[0].i), q.h[0].j.id, w.id, len(w.proc))
			}
		}
	}
	for id, j := range s.jobs {
		if j.over {
			return fmt.Errorf("job %d is over but still listed", id)
		}
		if j.id != id {
			return fmt.Errorf("job %d listed as %d", j.id, id)
		}
		if !j.run {
			continue
		}
		if err := checkJob(s, j, stealIn, held); err != nil {
			return fmt.Errorf("job %d: %w", j.id, err)
		}
	}
	// Task counts by state against the workers' lists: the status
	// endpoint reports both.
	processing, listed := 0, 0
	for _, j := range s.jobs {
		for _, st := range j.state {
			if st == tsProcessing {
				processing++
			}
		}
	}
	for _, w := range s.live {
		listed += len(w.proc)
	}
	if processing != listed {
		return fmt.Errorf("%d tasks processing, but the live workers list %d", processing, listed)
	}
	for id, w := range s.byID {
		if w == nil {
			continue
		}
		if w.stealOut < 0 || w.stealIn < 0 || w.held < 0 {
			return fmt.Errorf("worker %d: negative counter (stealOut %d, stealIn %d, held %d)", id, w.stealOut, w.stealIn, w.held)
		}
		if w.stealOut != stealOut[id] {
			return fmt.Errorf("worker %d: stealOut %d, but %d of its tasks have a steal asked", id, w.stealOut, stealOut[id])
		}
		if w.stealIn != stealIn[id] {
			return fmt.Errorf("worker %d (gone %v): stealIn %d, but %d tasks are being stolen for it", id, w.gone, w.stealIn, stealIn[id])
		}
		if w.held != held[id] {
			return fmt.Errorf("worker %d: held %d, but %d root values count against it", id, w.held, held[id])
		}
	}
	return nil
}

// checkJob checks one running job's tasks, adding to the per-worker
// counts of steals asked for (stealIn) and of held root values (held).
func checkJob(s *Server, j *srvJob, stealIn, held []int) error {
	n := j.ntasks()
	// An erred task (keep-going jobs) counts as finished for its
	// dependencies' need: it never runs.
	finished := func(st uint8) bool { return st == tsMemory || st == tsReleased || st == tsErred }
	active := 0
	for t := range n {
		t := int32(t)
		st := j.state[t]
		key := j.key(t)
		if st == tsLimbo || (st == tsErred && !j.keepGoing) {
			return fmt.Errorf("task %q is in limbo or erred (state %d) between events in a running job", key, st)
		}
		if err := checkErred(j, t); err != nil {
			return err
		}
		if (st == tsProcessing) != (j.proc[t] != 0) {
			return fmt.Errorf("task %q is %s with proc %d", key, stateNames[st], j.proc[t])
		}
		if st == tsProcessing {
			w := s.byID[j.proc[t]]
			if w.gone {
				return fmt.Errorf("task %q is processing on worker %d, which is gone", key, w.id)
			}
			if int(j.procPos[t]) >= len(w.proc) || w.proc[j.procPos[t]] != (taskRef{j, t}) {
				return fmt.Errorf("task %q is processing on worker %d, which does not list it", key, w.id)
			}
			if !covers(w.reg.Resources, j.defs.resources(t)) {
				return fmt.Errorf("task %q runs on worker %d, which lacks its resources", key, w.id)
			}
		}
		if th := j.thief[t]; th != 0 {
			if st != tsProcessing {
				return fmt.Errorf("task %q is %s with a steal asked for worker %d", key, stateNames[st], th)
			}
			stealIn[th]++
		}
		if id := j.slot[t]; id != 0 {
			held[id]++
		}
		if st == tsMemory {
			if !j.held(t) {
				return fmt.Errorf("task %q is in memory on no worker", key)
			}
			for id := range j.holders(t) {
				if s.byID[id].gone {
					return fmt.Errorf("task %q is in memory on worker %d, which is gone", key, id)
				}
			}
		} else if j.held(t) {
			return fmt.Errorf("task %q is %s but has holders", key, stateNames[st])
		}
		if st == tsNoWorker {
			if !slices.ContainsFunc(j.noWorker, func(e noWorkerEntry) bool { return e.i == t }) {
				return fmt.Errorf("task %q has no worker but is not in the job's no-worker list", key)
			}
			// It would fail the job after WorkerTimeout although a
			// worker could run it.
			if w := slices.IndexFunc(s.live, func(w *srvWorker) bool { return s.fits(w, j, t) }); w >= 0 {
				return fmt.Errorf("task %q is parked as having no worker, but live worker %d could run it", key, s.live[w].id)
			}
		}
		if st == tsQueued {
			queued := false
			for _, q := range s.rootQs {
				if slices.Contains(q.h, taskRef{j, t}) {
					queued = true
					// A retiring worker counts: the task waits for it
					// while its retirement may still be given up, and is
					// parked once the worker leaves.
					if !slices.ContainsFunc(s.live, func(w *srvWorker) bool { return queueFitsRetiring(s, w, q) }) {
						return fmt.Errorf("root task %q is queued, but no live worker could run it", key)
					}
				}
			}
			if !queued {
				return fmt.Errorf("task %q is queued but in no root queue", key)
			}
		}
		if st == tsWaiting && j.linked(t) {
			src := j.link[t]
			if src.j.over {
				return fmt.Errorf("linked task %q waits for job %d, which is over", key, src.j.id)
			}
			if src.j.state[src.i] == tsMemory {
				return fmt.Errorf("linked task %q waits, but its source in job %d is in memory", key, src.j.id)
			}
			if src.j.state[src.i] == tsErred {
				return fmt.Errorf("linked task %q waits, but its source in job %d erred", key, src.j.id)
			}
		} else if st == tsWaiting {
			missing := int32(0)
			for _, d := range j.deps(t) {
				switch j.state[d] {
				case tsMemory:
				case tsWaiting, tsQueued, tsNoWorker, tsProcessing:
					missing++
				default:
					// Nothing brings d back: t would wait forever.
					return fmt.Errorf("task %q waits for %q, which is %s", key, j.key(d), stateNames[j.state[d]])
				}
			}
			if j.waiting[t] != missing {
				return fmt.Errorf("task %q waits for %d dependencies, counter says %d", key, missing, j.waiting[t])
			}
		}
		if !finished(st) {
			active++
		}
		// need counts the dependents not finished.
		want := int32(0)
		for _, c := range j.dependents(t) {
			if !finished(j.state[c]) && !j.linked(c) {
				want++
			}
		}
		if j.need[t] != want {
			return fmt.Errorf("task %q: need %d, but %d dependents are unfinished", key, j.need[t], want)
		}
		if finished(st) && !j.isOut[t] && want == 0 && st == tsMemory {
			return fmt.Errorf("task %q is in memory, needed by nobody and not an output", key)
		}
	}
	// A job with nothing left to run has every output in memory on a live
	// worker (checked above for memory): it is waiting only for its client.
	if active == 0 {
		for _, o := range j.outputs {
			if j.isOut[o] && j.state[o] != tsMemory && j.state[o] != tsErred {
				return fmt.Errorf("nothing runs, but output %q is %s", j.key(o), stateNames[j.state[o]])
			}
		}
	}
	return nil
}

// fuzzReader reads small values off the fuzz input, zero when exhausted.
type fuzzReader struct{ b []byte }

func (f *fuzzReader) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzReader) n(k int) int { return int(f.byte()) % k }

// Names, addresses and keys come from small alphabets so that collisions
// (re-registration, duplicate keys) are frequent.
var (
	fuzzNames = []string{"", "a", "b", "c"}
	fuzzAddrs = []string{"10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1", "10.0.0.4:1"}
	fuzzGPU   = map[string]float64{"gpu": 1}
)

// nbytes is a result's reported size: small to a few MiB (stealing
// weighs sizes against 1 MiB), now and then absurd.
func (f *fuzzReader) nbytes() int64 {
	switch f.n(32) {
	case 0:
		return -1
	case 1:
		return math.MaxInt64
	}
	return int64(f.n(4)) << (10 * f.n(3))
}

func (f *fuzzReader) key() string { return fmt.Sprintf("k%d-%d", f.n(4), f.n(16)) }

// graph decodes a job's task list and run: mostly well formed, one in
// eight with one flaw (a duplicate key, a dependency on itself or a
// later task, a negative or repeated dependency, an output out of range,
// no outputs).
func (f *fuzzReader) graph() ([]*pb.TaskDef, *pb.Run) {
	n := 1 + f.n(8)
	defs := make([]*pb.TaskDef, n)
	for i := range defs {
		d := &pb.TaskDef{Key: fmt.Sprintf("t%d-%d", f.n(3), i), Priority: int64(f.n(8))}
		if i > 0 {
			for range f.n(3) {
				dep := int32(f.n(i))
				if !slices.Contains(d.Deps, dep) {
					d.Deps = append(d.Deps, dep)
				}
			}
		}
		if f.n(8) == 0 {
			d.Resources = fuzzGPU
		}
		defs[i] = d
	}
	r := &pb.Run{Retries: int32(f.n(3)), Events: f.n(2) == 0, KeepGoing: f.n(2) == 0}
	for range 1 + f.n(3) {
		o := int32(n - 1 - f.n(n))
		// Now and then the same output twice: harmless, and allowed.
		if !slices.Contains(r.Outputs, o) || f.n(16) == 0 {
			r.Outputs = append(r.Outputs, o)
		}
	}
	if f.n(8) == 0 {
		d := defs[f.n(n)]
		switch f.n(6) {
		case 0:
			d.Key = defs[f.n(n)].Key
		case 1:
			d.Deps = append(d.Deps, int32(n-1-f.n(n))) // itself or later, or fine
		case 2:
			d.Deps = append(d.Deps, -1)
		case 3:
			if len(d.Deps) > 0 {
				d.Deps = append(d.Deps, d.Deps[0])
			}
		case 4:
			r.Outputs = append(r.Outputs, int32(n+f.n(2)*(1<<30)))
		case 5:
			r.Outputs = nil
		}
	}
	return defs, r
}

// ref picks a (job, key) for a worker's report: mostly from what the
// session was sent, else from any job, else made up.
func (ss *simServer) ref(f *fuzzReader, sess *simSession) (spec *pb.TaskSpec, k int) {
	switch c := f.n(8); {
	case c < 6 && len(sess.specs) > 0:
		k = f.n(len(sess.specs))
		return sess.specs[k], k
	case c < 7 && len(ss.jobs) > 0:
		j := ss.jobs[f.n(len(ss.jobs))]
		if n := j.ntasks(); n > 0 {
			return &pb.TaskSpec{Job: j.id, Key: j.key(int32(f.n(n)))}, -1
		}
	}
	return &pb.TaskSpec{Job: uint64(f.n(4)), Key: f.key()}, -1
}

// workerMessage decodes one message of sess's worker.
func (ss *simServer) workerMessage(f *fuzzReader, sess *simSession) *pb.WorkerMessage {
	m := &pb.WorkerMessage{}
	if f.n(4) == 0 {
		m.Heartbeat = &pb.Heartbeat{}
	}
	// Copies asked for (a broadcast), reported now and then.
	if len(sess.reps) > 0 && f.n(2) == 0 {
		for _, d := range sess.reps {
			m.Replicas = append(m.Replicas, &pb.Replica{Job: d.Job, Key: d.Key, Nbytes: d.Nbytes})
		}
		sess.reps = nil
	}
	for range 1 + f.n(3) {
		spec, k := ss.ref(f, sess)
		forget := func() {
			if k >= 0 {
				sess.specs = slices.Delete(sess.specs, k, k+1)
			}
		}
		switch f.n(16) {
		case 0, 1, 2, 3, 4, 5, 8, 9:
			// Replicas of the dependencies it fetched come first, as a
			// worker sends them with the result.
			for _, d := range spec.Deps {
				if f.n(2) == 0 {
					m.Replicas = append(m.Replicas, &pb.Replica{Job: spec.Job, Key: d.Key})
				}
			}
			m.Done = append(m.Done, &pb.TaskDone{Job: spec.Job, Key: spec.Key, Nbytes: f.nbytes(), StartUnixNano: 1, StopUnixNano: 1 + int64(f.n(100))})
			forget()
		case 6:
			m.Failed = append(m.Failed, &pb.TaskFailed{Job: spec.Job, Key: spec.Key, Failure: &pb.Failure{Message: "boom"}})
			forget()
		case 7:
			md := &pb.MissingDep{Job: spec.Job, Key: spec.Key, Dep: f.key()}
			if len(spec.Deps) > 0 && f.n(4) > 0 {
				d := spec.Deps[f.n(len(spec.Deps))]
				md.Dep, md.Addresses = d.Key, d.Addresses
				forget() // it gave the task up (a made-up dep is ignored)
			}
			m.Missing = append(m.Missing, md)
		case 10, 11, 12:
			if len(sess.steals) > 0 {
				k := f.n(len(sess.steals))
				st := sess.steals[k]
				r := st.ref
				sess.steals = slices.Delete(sess.steals, k, k+1)
				// Stolen only if it still holds the task the request was
				// for (not yet reported) and chooses to say it had not
				// started it.
				held := func(p *pb.TaskSpec) bool { return p.Job == r.Job && p.Key == r.Key }
				stolen := !st.stale && slices.ContainsFunc(sess.specs, held) && f.n(2) == 0
				m.Stolen = append(m.Stolen, &pb.StealReply{Job: r.Job, Key: r.Key, Stolen: stolen})
				if stolen {
					sess.specs = slices.DeleteFunc(sess.specs, held)
				}
			} else {
				// Unasked: the scheduler ignores it.
				m.Stolen = append(m.Stolen, &pb.StealReply{Job: spec.Job, Key: spec.Key, Stolen: f.n(2) == 0})
			}
		case 13, 14:
			m.Replicas = append(m.Replicas, &pb.Replica{Job: spec.Job, Key: spec.Key})
		case 15:
			// A stale duplicate of a report (the spec is kept).
			m.Done = append(m.Done, &pb.TaskDone{Job: spec.Job, Key: spec.Key})
		}
	}
	return m
}

// step decodes and applies one event. It returns the event's description
// as a function, called only for a failure message: formatting protobuf
// messages costs more than the event.
func (ss *simServer) step(t testing.TB, f *fuzzReader) func() string {
	live := func() *simSession {
		if len(ss.sessions) == 0 {
			return nil
		}
		// Mostly a live session, now and then a gone one.
		sess := ss.sessions[f.n(len(ss.sessions))]
		if sess.w.gone && f.n(4) > 0 {
			for _, x := range slices.Backward(ss.sessions) {
				if !x.w.gone {
					return x
				}
			}
		}
		return sess
	}
	job := func() *srvJob {
		if len(ss.jobs) == 0 {
			return nil
		}
		return ss.jobs[len(ss.jobs)-1-f.n(len(ss.jobs))]
	}
	switch op := f.n(34); {
	case op < 4 || len(ss.sessions) == 0:
		reg := &pb.Register{Name: fuzzNames[f.n(4)], DataAddress: fuzzAddrs[f.n(4)], Nthreads: int32(1 + f.n(3))}
		if f.n(32) == 0 {
			reg.Nthreads = math.MaxInt32 // sums and products of thread counts must not overflow
		}
		if f.n(4) == 0 {
			reg.Resources = fuzzGPU
		}
		fuzzPlaceRegister(f, reg)
		sess := ss.register(t, reg)
		return func() string {
			return fmt.Sprintf("register %q at %s (worker %d)", reg.Name, reg.DataAddress, sess.w.id)
		}
	case op < 20:
		sess := live()
		m := ss.workerMessage(f, sess)
		ss.send(t, sess, m)
		return func() string { return fmt.Sprintf("worker %d sends %v", sess.w.id, m) }
	case op < 22:
		sess := live()
		left := f.n(2) == 0
		ss.disconnect(t, sess, left)
		return func() string { return fmt.Sprintf("worker %d disconnects (left %v)", sess.w.id, left) }
	case op < 26:
		defs, run := f.graph()
		ss.sessionJob(f, defs, run)
		ops := fuzzPlaceJob(f, defs, run)
		var j *srvJob
		switch c := f.n(8); {
		case c < 2 && len(defs) > 1:
			// The graph in two messages, run in the second.
			h := len(defs) / 2
			j = ss.submit(t, &pb.ClientMessage{Tasks: defs[:h], PlaceOps: ops}, &pb.ClientMessage{Tasks: defs[h:], Run: run})
		case c < 3:
			// The client is still sending its graph: run comes later, if
			// ever (a client message event may send it).
			j = ss.submit(t, &pb.ClientMessage{Tasks: defs, PlaceOps: ops})
			run = nil
		default:
			j = ss.submit(t, &pb.ClientMessage{Tasks: defs, Run: run, PlaceOps: ops})
		}
		return func() string { return fmt.Sprintf("job %d: %d tasks, run %v", j.id, len(defs), run) }
	case op < 28:
		j := job()
		if j == nil {
			return func() string { return "no job" }
		}
		m := &pb.ClientMessage{}
		switch f.n(4) {
		case 0:
			m.Tasks = []*pb.TaskDef{{Key: f.key()}}
		case 1:
			m.Run = &pb.Run{Outputs: []int32{0}}
		default:
			for range 1 + f.n(2) {
				lo := &pb.LostOutput{Index: int32(f.n(9)) - 1, Address: fuzzAddrs[f.n(4)]}
				if len(j.outputs) > 0 && f.n(4) > 0 {
					lo.Index = j.outputs[f.n(len(j.outputs))]
				}
				m.Lost = append(m.Lost, lo)
			}
		}
		ss.client(t, j, m)
		return func() string { return fmt.Sprintf("client of job %d sends %v", j.id, m) }
	case op < 29:
		j := job()
		if j == nil {
			return func() string { return "no job" }
		}
		clean := f.n(2) == 0
		ss.cancel(t, j, clean)
		return func() string { return fmt.Sprintf("client of job %d ends its stream (clean %v)", j.id, clean) }
	case op < 30:
		return ss.session(t, f)
	case op >= 32:
		return ss.retireEvent(t, f)
	default:
		// Workers silent for WorkerTimeout (10 s) on the harness's clock
		// are lost; tasks with no worker for as long fail their job.
		d := []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond, 4 * time.Second, 4 * time.Second, 11 * time.Second, 11 * time.Second, time.Minute, time.Hour}[f.n(10)]
		ss.tick(t, d)
		return func() string { return fmt.Sprintf("tick after %v", d) }
	}
}

// runEvents plays up to maxEvents events encoded in data, checking after
// each, then settles: the workers behave from then on, and every job the
// events left running must complete.
func runEvents(t testing.TB, data []byte, maxEvents int) {
	ss := newSimServer(2)
	f := &fuzzReader{data}
	var trail []func() string
	for k := 0; k < maxEvents && len(f.b) > 0; k++ {
		ev := ss.step(t, f)
		trail = append(trail, ev)
		if len(trail) > trailLen {
			trail = trail[1:]
		}
		ss.check(t, func() string {
			var b strings.Builder
			for _, e := range trail {
				b.WriteString("\n\t")
				b.WriteString(e())
			}
			return b.String()
		})
	}
	ss.settle(t, trail)
}

// trailLen is how many of the last events a failure shows.
var trailLen = 8

// settle adds a worker that offers every resource, then lets every live
// worker run what it was sent and refuse every steal, round after round,
// until nothing is left to report. Then every job still running must
// have its outputs in memory (and announced): a job left waiting would
// hang its client.
func (ss *simServer) settle(t testing.TB, trail []func() string) {
	ss.register(t, &pb.Register{Name: "settle", DataAddress: "10.0.0.9:1", Nthreads: 2, Resources: fuzzGPU, PlaceAllOps: true})
	ss.check(t, func() string { return " a worker with every resource joined" })
	for round := 0; ; round++ {
		if round > 1000 {
			t.Fatalf("settling: still reporting after %d rounds", round)
		}
		sent := false
		for _, sess := range ss.sessions {
			if sess.w.gone || len(sess.specs)+len(sess.steals) == 0 {
				continue
			}
			m := &pb.WorkerMessage{}
			for _, r := range sess.steals {
				m.Stolen = append(m.Stolen, &pb.StealReply{Job: r.ref.Job, Key: r.ref.Key})
			}
			for _, p := range sess.specs {
				m.Done = append(m.Done, &pb.TaskDone{Job: p.Job, Key: p.Key, Nbytes: 8})
			}
			sess.specs, sess.steals = nil, nil
			ss.send(t, sess, m)
			ss.check(t, func() string { return fmt.Sprintf(" settling: worker %d sends %v", sess.w.id, m) })
			sent = true
		}
		if !sent {
			break
		}
	}
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	for _, j := range ss.s.sortedJobs() {
		if !j.run {
			continue
		}
		for _, o := range j.outputs {
			if !j.isOut[o] {
				continue // a retired job's output that nobody holds
			}
			if j.state[o] != tsMemory && !(j.keepGoing && j.state[o] == tsErred && (ss.erred[j][o] || j.ended)) {
				var st []string
				for i := range int32(j.ntasks()) {
					st = append(st, fmt.Sprintf("%s:%s@%d", j.key(i), stateNames[j.state[i]], j.proc[i]))
				}
				var b strings.Builder
				for _, e := range trail {
					b.WriteString("\n\t")
					b.WriteString(e())
				}
				t.Fatalf("after:%s\nand settling, job %d's output %q is %s: %v", b.String(), j.id, j.key(o), stateNames[j.state[o]], st)
			}
		}
		if err := settledJob(j); err != nil {
			var b strings.Builder
			for _, e := range trail {
				b.WriteString("\n\t")
				b.WriteString(e())
			}
			t.Fatalf("after:%s\nand settling, job %d: %v", b.String(), j.id, err)
		}
	}
}

func FuzzServerMessages(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 10, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, 0, 0})
	f.Add([]byte{0, 1, 1, 2, 0, 0, 1, 1, 1, 0, 10, 5, 0, 0, 1, 0, 2, 1, 1, 1, 9, 0, 4, 0, 0, 0, 4, 0, 0, 0})
	f.Add([]byte{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 11, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 0, 1, 3, 0, 0, 0})
	f.Add([]byte("register, blip, job, reports, steals, cancel: anything goes"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A handler that loops forever is a hang of the scheduler: crash
		// with every goroutine's stack, so that the fuzzer keeps the
		// input. (Sixty-four events take well under a millisecond.)
		watchdog := time.AfterFunc(10*time.Second, func() {
			debug.SetTraceback("all")
			panic("FuzzServerMessages: one input ran for 10 s: a handler does not return")
		})
		defer watchdog.Stop()
		runEvents(t, data, 64)
	})
}

// queueFitsRetiring is Server.queueFits as though w were not retiring.
func queueFitsRetiring(s *Server, w *srvWorker, q *rootQueue) bool {
	r := w.retiring
	w.retiring = false
	defer func() { w.retiring = r }()
	return s.queueFits(w, q)
}
