package distributed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Graceful retirement of workers (Dask's retire_workers): a worker that
// leaves on purpose (a cluster scaling down) hands over what the cluster
// still needs of it before it goes, so that nothing is recomputed and no
// running task is lost.
//
//	live ──RetireWorkers──▶ retiring ──nothing running, nothing to move──▶ exiting ──session closed──▶ left
//	                          │ ctx done                                              (ctx done: dropped)
//	                          ▼
//	                         live (un-retired: the worker works on)
//
// A retiring worker is given no new task: place, placeRoot, the root
// queues' refill and work stealing (as a thief) skip it. Its queued tasks
// are asked back with the ordinary steal request, the retiring worker
// itself standing as the thief: what it had not started comes back
// (StealReply.stolen) and is placed on the others; what was running
// finishes there. Every value in memory that only retiring workers hold
// and that is still needed (an output of a live job or a value a session
// holds, or an input of an unfinished task) is copied to a remaining
// worker with the Replicate message that Client.Replicate uses, the
// recipient being the live worker with the fewest bytes in memory plus
// the bytes already asked of it; the copy counts as a holder once the
// recipient reports it (Replica). When nothing runs on the retiring
// workers and nothing is left to move, each is sent SchedulerMessage.retire
// and marked as leaving (srvWorker.left): it closes its session, lets the
// fetches under way from its data plane finish and exits with status 0,
// and the scheduler forgets it as a worker that left, not one that was
// lost (the values it held all have other holders by then: no recompute,
// no warning).
//
// Retiring every live worker is refused (ErrNoRecipient) before anything
// changes. Dask retires such workers when they hold no unique data and
// leaves them otherwise; here the tasks running on them would produce
// values with nowhere to go, so the answer could only be given at the
// end. Scaling a cluster to zero workers is a plain shutdown (SlurmCluster
// cancels the jobs without retiring).
//
// The retirement is driven by the caller's goroutine, which applies one
// step under the scheduler's lock every retirePoll until it is done: the
// scheduler's state machine needs no new state for it beyond the
// retiring flag, and a retirement that is abandoned (ctx done) leaves
// nothing behind but extra replicas. Rejected: a per-event hook in the
// state machine that advances retirements as tasks finish, which adds a
// branch to the per-task path for a rare operation.

// ErrNoRecipient is the cause of the error of a retirement that would
// leave no live worker to take the retiring workers' values and tasks.
var ErrNoRecipient = errors.New("distributed: no worker would remain to take over from the retiring workers")

// ErrUnknownWorker is the cause of the error of a retirement naming a
// worker the scheduler does not have connected.
var ErrUnknownWorker = errors.New("distributed: no such worker connected")

// RetireError is the error of a retirement that did not happen: Err is
// ErrNoRecipient, ErrUnknownWorker, or the context's error when the
// retirement was given up; the workers then work on as before. Running
// and Unmoved say what was left to do at that moment: tasks still running
// on the workers, and the keys of the values that only they held and that
// were still needed (Unmoved lists at most maxUnmoved of them; NotMoved
// counts all).
type RetireError struct {
	Workers  []string
	Running  int
	NotMoved int
	Unmoved  []string
	Err      error
}

// maxUnmoved bounds RetireError.Unmoved.
const maxUnmoved = 20

func (e *RetireError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "distributed: retire workers %s", strings.Join(e.Workers, ", "))
	if e.Running > 0 {
		fmt.Fprintf(&b, ": %d tasks still running there", e.Running)
	}
	if e.NotMoved > 0 {
		fmt.Fprintf(&b, ": %d values held only there not moved yet (%s", e.NotMoved, strings.Join(e.Unmoved, ", "))
		if e.NotMoved > len(e.Unmoved) {
			b.WriteString(", …")
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled) {
		b.WriteString("; the workers work on")
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *RetireError) Unwrap() error { return e.Err }

// retirePoll is how often a retirement looks at the scheduler's state.
const retirePoll = 20 * time.Millisecond

// RetireWorkers retires the named workers gracefully (each named by its
// name, WorkerStatus.Name, or its data address): no new task is placed
// on them, their queued tasks move to other workers, their running tasks
// finish, the values that only they hold and that are still needed are
// copied to the other workers, and then they are told to exit (a worker
// process exits with status 0). It returns once they have left.
//
// ctx bounds everything but the last step: when it ends before the
// workers were told to exit, the retirement is given up, the workers work
// on (nothing moved back), and the error, a *RetireError, says what was
// still running and not moved. Naming every live worker gives a
// *RetireError wrapping ErrNoRecipient, and naming a worker that is not
// connected one wrapping ErrUnknownWorker; nothing changes then.
func (s *Server) RetireWorkers(ctx context.Context, workers ...string) error {
	var r *retirement
	var err error
	if lerr := s.locked("starting a retirement", func() { r, err = s.startRetire(workers) }); lerr != nil {
		return lerr
	}
	if err != nil || r == nil {
		return err
	}
	tick := time.NewTicker(retirePoll)
	defer tick.Stop()
	for {
		if ctx.Err() != nil {
			var e *RetireError
			s.locked("abandoning a retirement", func() { e = r.abort(ctx.Err()) })
			return e
		}
		done := false
		if lerr := s.locked("a retirement's step", func() {
			if done = r.step(); done {
				r.exit()
			}
		}); lerr != nil {
			s.locked("abandoning a retirement", func() { r.abort(lerr) })
			return lerr
		}
		if done {
			break
		}
		select {
		case <-ctx.Done():
		case <-s.done:
			return fmt.Errorf("distributed: retire workers %s: %w", strings.Join(r.names(), ", "), errClosing)
		case <-tick.C:
		}
	}
	// The workers were told to exit; they close their sessions.
	for {
		left := false
		s.locked("a retirement's end", func() { left = r.left() })
		if left {
			return nil
		}
		select {
		case <-ctx.Done():
			// They hold nothing needed any more: forget them now.
			s.locked("a retirement's end", func() { r.drop() })
			return nil
		case <-s.done:
			return nil
		case <-tick.C:
		}
	}
}

// retirement is one RetireWorkers call's state; its methods run under
// s.mu.
type retirement struct {
	s       *Server
	ws      []*srvWorker        // the workers retired, in id order
	mine    []bool              // ws[k] was marked retiring by this retirement
	asked   map[taskRef]bool    // tasks asked back
	copies  map[taskRef]copyAsk // values asked of a recipient
	planned map[int32]int64     // bytes asked of each recipient
	steps   int                 // steps taken
}

// copyAsk is a copy asked of worker to at step at.
type copyAsk struct {
	to int32
	at int
}

// copyPatience is how many steps (about 5 s) a retirement waits for a
// copy before it asks again: a recipient whose fetch failed (the value's
// holder did not answer in time) reports nothing.
const copyPatience = 250

// startRetire marks the named workers retiring and asks their queued
// tasks back. It returns nil, nil for no names.
func (s *Server) startRetire(names []string) (*retirement, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var ws []*srvWorker
	for _, n := range names {
		k := slices.IndexFunc(s.live, func(w *srvWorker) bool { return n != "" && (w.reg.Name == n || w.reg.DataAddress == n) })
		if k < 0 {
			return nil, &RetireError{Workers: names, Err: fmt.Errorf("%w: %q", ErrUnknownWorker, n)}
		}
		if !slices.Contains(ws, s.live[k]) {
			ws = append(ws, s.live[k])
		}
	}
	slices.SortFunc(ws, func(a, b *srvWorker) int { return int(a.id - b.id) })
	if !slices.ContainsFunc(s.live, func(w *srvWorker) bool { return !w.retiring && !slices.Contains(ws, w) }) {
		return nil, &RetireError{Workers: names, Err: ErrNoRecipient}
	}
	r := &retirement{s: s, ws: ws, mine: make([]bool, len(ws)),
		asked: map[taskRef]bool{}, copies: map[taskRef]copyAsk{}, planned: map[int32]int64{}}
	for k, w := range ws {
		if !w.retiring {
			w.retiring = true
			r.mine[k] = true
		}
	}
	s.log.Info("retiring workers", "workers", r.names())
	r.step()
	// Root tasks that preferred these workers (AllowOtherWorkers) may go
	// to the others now.
	s.refill()
	return r, nil
}

func (r *retirement) names() []string {
	out := make([]string, len(r.ws))
	for k, w := range r.ws {
		out[k] = w.reg.Name
	}
	return out
}

// step asks back the retiring workers' tasks not asked yet and copies
// the values that only retiring workers hold to others; it reports
// whether nothing runs on them and nothing is left to move.
func (r *retirement) step() bool {
	r.steps++
	busy := false
	for _, w := range r.ws {
		if w.gone {
			continue
		}
		busy = busy || len(w.proc) > 0
		for _, p := range w.proc {
			if p.j.thief[p.i] != 0 || r.asked[p] {
				continue
			}
			// The retiring worker stands as its own thief: stealReply
			// places what comes back on the others (place skips it).
			r.asked[p] = true
			p.j.thief[p.i] = w.id
			w.stealOut++
			w.stealIn++
			w.wout().Steal = append(w.wout().Steal, &pb.KeyRef{Job: p.j.id, Key: p.j.key(p.i)})
		}
	}
	pending := r.move()
	return !busy && pending == 0
}

// stranded calls f for every value in memory that only retiring workers
// hold and that is still needed. A linked task is skipped: its value is
// its source's, which is moved (and the link takes the new holders when
// its workers exit).
func (r *retirement) stranded(f func(j *srvJob, t int32)) {
	s := r.s
	for _, j := range s.sortedJobs() {
		if j.over {
			continue
		}
		for t, st := range j.state {
			t := int32(t)
			if st != tsMemory || (j.need[t] == 0 && !j.isOut[t]) || j.linked(t) {
				continue
			}
			only := true
			for id := range j.holders(t) {
				if !s.byID[id].retiring {
					only = false
					break
				}
			}
			if only && j.held(t) {
				f(j, t)
			}
		}
	}
}

// move asks a recipient for a copy of each stranded value that has no
// copy under way to a live worker, and returns how many are stranded.
func (r *retirement) move() int {
	s := r.s
	n := 0
	seen := map[taskRef]bool{}
	r.stranded(func(j *srvJob, t int32) {
		n++
		ref := taskRef{j, t}
		seen[ref] = true
		if c, ok := r.copies[ref]; ok && !s.byID[c.to].gone && !s.byID[c.to].retiring && r.steps-c.at < copyPatience {
			return
		}
		to := r.recipient()
		if to == nil {
			return
		}
		r.copies[ref] = copyAsk{to: to.id, at: r.steps}
		r.planned[to.id] += j.nbytes[t]
		if !slices.Contains(j.copies[t], to.id) {
			if j.copies == nil {
				j.copies = map[int32][]int32{}
			}
			j.copies[t] = append(j.copies[t], to.id)
		}
		to.wout().Replicate = append(to.wout().Replicate, &pb.Dep{Key: j.key(t), Addresses: s.addrsOf(j, t), Nbytes: j.nbytes[t], Job: j.id})
	})
	for ref := range r.copies {
		if !seen[ref] {
			delete(r.copies, ref)
		}
	}
	return n
}

// recipient returns the live worker that is not retiring with the fewest
// bytes in memory (as of its last heartbeat) plus the bytes this
// retirement asked of it; ties go to the lower id. nil when none.
func (r *retirement) recipient() *srvWorker {
	var best *srvWorker
	var bestLoad int64
	for _, w := range r.s.live {
		if w.retiring {
			continue
		}
		load := r.planned[w.id]
		if w.hb != nil {
			load += w.hb.MemoryBytes
		}
		if best == nil || load < bestLoad {
			best, bestLoad = w, load
		}
	}
	return best
}

// exit tells the retiring workers to leave. Linked tasks they hold take
// their sources' other holders now, so that their leaving loses nothing.
func (r *retirement) exit() {
	s := r.s
	for _, w := range r.ws {
		if w.gone {
			continue
		}
		for _, j := range s.sortedJobs() {
			for u, src := range j.link {
				if j.state[u] != tsMemory || !j.holds(u, w.id) || src.j.over || src.j.state[src.i] != tsMemory {
					continue
				}
				j.removeHolder(u, w.id)
				for id := range src.j.holders(src.i) {
					if !s.byID[id].retiring {
						j.addHolder(u, id)
					}
				}
			}
		}
		w.left = true
		w.wout().Retire = true
		s.log.Info("worker retired; told to exit", "id", w.id, "name", w.reg.Name, "address", w.reg.DataAddress)
	}
}

// left reports whether every retiring worker has left.
func (r *retirement) left() bool {
	for _, w := range r.ws {
		if !w.gone {
			return false
		}
	}
	return true
}

// drop forgets the workers told to exit that have not closed their
// sessions yet.
func (r *retirement) drop() {
	for _, w := range r.ws {
		r.s.lose(w, "retired")
	}
}

// abort gives the retirement up: the workers it marked work on. It
// returns the error saying what was left to do.
func (r *retirement) abort(cause error) *RetireError {
	s := r.s
	e := &RetireError{Workers: r.names(), Err: cause}
	for _, w := range r.ws {
		if !w.gone {
			e.Running += len(w.proc)
		}
	}
	r.stranded(func(j *srvJob, t int32) {
		e.NotMoved++
		if len(e.Unmoved) < maxUnmoved {
			e.Unmoved = append(e.Unmoved, j.key(t))
		}
	})
	for k, w := range r.ws {
		if r.mine[k] && !w.gone {
			w.retiring = false
		}
	}
	for ref, ask := range r.copies {
		j, t := ref.j, ref.i
		if c := j.copies[t]; !j.over && len(c) > 0 {
			j.copies[t] = slices.DeleteFunc(c, func(x int32) bool { return x == ask.to })
			if len(j.copies[t]) == 0 {
				delete(j.copies, t)
			}
		}
	}
	s.log.Info("retirement given up; the workers work on", "workers", e.Workers, "running", e.Running, "not_moved", e.NotMoved, "cause", cause)
	// Tasks that found no worker while these were retiring may fit them.
	s.placeParked(func(j *srvJob, t int32) bool {
		return slices.ContainsFunc(s.live, func(w *srvWorker) bool { return s.fits(w, j, t) })
	})
	return e
}

// Retire is a client's RetireWorkers (Client.RetireWorkers).
func (svc *schedService) Retire(ctx context.Context, req *pb.RetireRequest) (*pb.RetireReply, error) {
	s := svc.s
	if err := s.admit(ctx, RoleClient, "a retirement"); err != nil {
		return nil, err
	}
	if req.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	err := s.RetireWorkers(ctx, req.Workers...)
	if err == nil {
		return &pb.RetireReply{Retired: req.Workers}, nil
	}
	code := codes.Internal
	switch {
	case errors.Is(err, errClosing):
		return nil, errClosing
	case errors.Is(err, ErrNoRecipient):
		code = codes.FailedPrecondition
	case errors.Is(err, ErrUnknownWorker):
		code = codes.NotFound
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	}
	return nil, status.Error(code, err.Error())
}

// RetireWorkers asks the scheduler to retire the named workers gracefully
// (Server.RetireWorkers; Dask's client.retire_workers), each named by its
// name or data address, and returns once they have left. ctx bounds the
// retirement: when it ends first, the workers work on. The error of a
// retirement that did not happen is a *RetireError whose Err is
// ErrNoRecipient, ErrUnknownWorker or the context's error, with the
// scheduler's message.
func (c *Client) RetireWorkers(ctx context.Context, workers ...string) error {
	req := &pb.RetireRequest{Workers: workers}
	if d, ok := ctx.Deadline(); ok {
		// The scheduler gives up a little before the call's deadline, so
		// that its answer (un-retired, what was left) reaches the client.
		req.TimeoutMs = max(time.Until(d).Milliseconds()*9/10, 1)
	}
	_, err := c.sched.Retire(ctx, req)
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	e := &RetireError{Workers: workers}
	switch st.Code() {
	case codes.FailedPrecondition:
		e.Err = ErrNoRecipient
	case codes.NotFound:
		e.Err = ErrUnknownWorker
	case codes.DeadlineExceeded:
		e.Err = context.DeadlineExceeded
	case codes.Canceled:
		e.Err = context.Canceled
	case codes.Internal:
		return fmt.Errorf("distributed: retire workers %s: the scheduler: %s", strings.Join(workers, ", "), st.Message())
	default:
		return c.lost(err)
	}
	return &remoteRetireError{RetireError: e, msg: st.Message()}
}

// remoteRetireError is a RetireError as the scheduler wrote it.
type remoteRetireError struct {
	*RetireError
	msg string
}

func (e *remoteRetireError) Error() string { return e.msg }

// Unwrap returns the RetireError, for errors.As and errors.Is.
func (e *remoteRetireError) Unwrap() error { return e.RetireError }
