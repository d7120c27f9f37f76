package distributed

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Client sessions and held values: how values outlive the job that
// computed them.
//
// A client that wants futures or persisted collections opens a Session
// stream. A job of that session may ask (Run.hold) that some of its
// outputs stay on the workers when it ends: when the client closes the
// job's stream, the job is retired instead of dropped. A retired job
// keeps its state machine (so that a held value lost with a worker is
// recomputed from lineage, as in a live job) and releases everything but
// its held values; it is dropped, and the workers told to forget it, when
// nothing it holds is wanted any more. Values stay in the workers' stores
// under the job that computed them: nothing moves when a job retires.
//
// The session maps each held key to its source, the task of the job that
// computes or computed it. A later job of the session that has a task of
// the same key (the client marks it held, or it merely has the same key)
// links that task to the source instead of computing it: the linked task
// is never placed; it takes the source's holders when the source is in
// memory (at once, or when the source finishes), and a worker running a
// dependent fetches the value under the source's job (Dep.job). A linked
// value lost with its workers waits for the source again, which its own
// job recomputes. So a key is computed once per session while it is held
// or being computed to be held, whichever job asks for it.
//
// Every job that holds a key is one hold of it (a job holding a linked
// task holds it through its source), and a session's release of a key
// drops one hold: the client may hold a key through several jobs at once
// (it released a key and submitted it again before the release arrived,
// and the new job linked to the old one), and releases it once for each.
// A value is dropped once no hold and no live job's linked task needs it.
// When the session stream ends (the client closed it, or vanished and its
// connection broke), every key it held is released that way.
//
// Rejected: moving held values into a per-session namespace on the
// workers when their job ends. It needs a rename message per value and a
// second place where lost values are recomputed, while a retired job
// already has everything lineage needs.

// srvSession is one client's session.
type srvSession struct {
	id   string
	held map[string][]taskRef // held key -> the tasks holding it, each one hold; a linked one holds it through its source
	gone bool
}

// maxSessionRelease bounds the keys of one release message, so that a
// client cannot make the scheduler hold its mutex for long.
const maxSessionRelease = 1 << 20

// Session is one client's session: a name, then releases until the
// stream ends, which releases everything the session held.
func (svc *schedService) Session(stream pb.Scheduler_SessionServer) error {
	s := svc.s
	if err := s.admit(stream.Context(), RoleClient, "a client session"); err != nil {
		return err
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return status.Errorf(codes.Internal, "tessera: session name: %v", err)
	}
	sess := &srvSession{id: hex.EncodeToString(b[:]), held: map[string][]taskRef{}}
	closed := false
	if err := s.locked("a new session", func() {
		if s.closed {
			closed = true
			return
		}
		s.sessions[sess.id] = sess
	}); err != nil {
		return status.Error(codes.Internal, err.Error())
	}
	if closed {
		return errClosing
	}
	defer s.locked("ending a session", func() { s.dropSession(sess) })
	if err := stream.Send(&pb.SessionEvent{Session: sess.id}); err != nil {
		return err
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			return nil
		}
		if len(m.Release)+len(m.Replicate) > maxSessionRelease {
			return status.Errorf(codes.InvalidArgument, "tessera: %d keys released or replicated in one message, more than %d", len(m.Release)+len(m.Replicate), maxSessionRelease)
		}
		s.locked("a session's message", func() {
			for _, k := range m.Replicate {
				s.replicateHeld(sess, k)
			}
			for _, k := range m.Release {
				s.releaseHeld(sess, k)
			}
		})
	}
}

// dropSession releases everything sess held. Idempotent.
func (s *Server) dropSession(sess *srvSession) {
	if sess.gone {
		return
	}
	sess.gone = true
	delete(s.sessions, sess.id)
	for _, k := range slices.Sorted(maps.Keys(sess.held)) {
		for len(sess.held[k]) > 0 {
			s.releaseHeld(sess, k)
		}
	}
	s.log.Debug("session ended", "session", sess.id)
}

// releaseHeld drops one hold of key k by sess (unknown keys are ignored:
// a release may cross the job's failure).
func (s *Server) releaseHeld(sess *srvSession, k string) {
	refs := sess.held[k]
	if len(refs) == 0 {
		return
	}
	ref := refs[len(refs)-1]
	if len(refs) == 1 {
		delete(sess.held, k)
	} else {
		sess.held[k] = refs[:len(refs)-1]
	}
	if ref.j.hold != nil && ref.j.hold[ref.i] {
		ref.j.hold[ref.i] = false
		ref.j.nhold--
	}
	s.sourceCheck(ref)
}

// replicateHeld asks every live worker that does not hold key k (held by
// sess, in memory) to fetch a copy and keep it (a broadcast); each copy
// counts as a holder once the worker reports it (replica). Keys not held,
// or not in memory yet, are ignored.
func (s *Server) replicateHeld(sess *srvSession, k string) {
	ref, ok := sess.source(k)
	if !ok {
		return
	}
	j, t := ref.j, ref.i
	if j.over || j.state[t] != tsMemory {
		return
	}
	dep := &pb.Dep{Key: j.key(t), Addresses: s.addrsOf(j, t), Nbytes: j.nbytes[t], Job: j.id}
	for _, w := range s.live {
		if w.retiring || j.holds(t, w.id) || slices.Contains(j.copies[t], w.id) {
			continue
		}
		if j.copies == nil {
			j.copies = map[int32][]int32{}
		}
		j.copies[t] = append(j.copies[t], w.id)
		w.wout().Replicate = append(w.wout().Replicate, dep)
	}
}

// startSession links j to its session at start: validates the session,
// the held outputs and the tasks the client marked held, links every
// task whose key the session holds, and registers j's own held outputs.
// It returns false after failing the job.
func (s *Server) startSession(j *srvJob, run *pb.Run) bool {
	n := int32(j.ntasks())
	bad := func(i int32, format string, args ...any) bool {
		s.failJob(j, &pb.JobError{Index: i, Kind: pb.JobError_BAD_GRAPH, Message: fmt.Sprintf(format, args...)})
		return false
	}
	if run.Session != "" {
		sess := s.sessions[run.Session]
		if sess == nil || sess.gone {
			return bad(-1, "the job names session %.40q, which the scheduler does not know (ended, or never opened)", run.Session)
		}
		j.sess = sess
	}
	if len(run.Hold) > 0 {
		if j.sess == nil {
			return bad(-1, "the job holds %d outputs without a session", len(run.Hold))
		}
		j.hold = make([]bool, n)
		for _, h := range run.Hold {
			if h < 0 || h >= n || !j.isOut[h] {
				return bad(-1, "held index %d is not an output of the job", h)
			}
			if !j.hold[h] {
				j.hold[h] = true
				j.nhold++
			}
		}
	}
	for _, h := range j.heldDefs {
		if j.sess == nil {
			return bad(h, "task %q is marked held, but the job has no session", j.key(h))
		}
		if _, ok := j.sess.source(j.key(h)); !ok {
			return bad(h, "task %q is marked held, but the session does not hold it (released, or its job failed)", j.key(h))
		}
	}
	if j.sess == nil {
		return true
	}
	if len(j.sess.held) > 0 {
		for i := range n {
			src, ok := j.sess.source(j.key(i))
			if !ok || src.j == j || src.j.over {
				continue
			}
			if j.link == nil {
				j.link = map[int32]taskRef{}
			}
			j.link[i] = src
			if src.j.linkedBy == nil {
				src.j.linkedBy = map[int32][]taskRef{}
			}
			src.j.linkedBy[src.i] = append(src.j.linkedBy[src.i], taskRef{j, i})
		}
	}
	for i, h := range j.hold {
		if h {
			k := j.key(int32(i))
			j.sess.held[k] = append(j.sess.held[k], taskRef{j, int32(i)})
		}
	}
	return true
}

// source returns the task whose value is key k held by sess: the first
// live hold's task, or for a linked one its source.
func (sess *srvSession) source(k string) (taskRef, bool) {
	for _, ref := range sess.held[k] {
		if ref.j.over {
			continue
		}
		if src, ok := ref.j.link[ref.i]; ok {
			if src.j.over {
				continue
			}
			return src, true
		}
		return ref, true
	}
	return taskRef{}, false
}

// startLinks brings j's linked tasks whose sources are in memory to
// memory, once j's state is set up.
//
// A linked task needs none of its dependencies: they are not counted as
// needed by it (they are still computed when the client sent them, as
// roots of the job; the client sends held keys without them).
func (s *Server) startLinks(j *srvJob) {
	links := sortedLinks(j.link)
	for _, u := range links {
		for _, d := range j.deps(u) {
			j.need[d]--
		}
		j.waiting[u] = 0
	}
	for _, u := range links {
		if j.over {
			return
		}
		s.linkWait(j, u)
	}
}

func sortedLinks(m map[int32]taskRef) []int32 {
	out := make([]int32, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	slices.Sort(out)
	return out
}

// linkWait: linked task u of j is needed. It takes its source's value if
// the source is in memory, and otherwise waits for the source (which
// notifies its links when it finishes). A source whose job is over fails j.
func (s *Server) linkWait(j *srvJob, u int32) {
	src := j.link[u]
	if src.j.over {
		s.failJob(j, &pb.JobError{Index: u, Kind: pb.JobError_INTERNAL,
			Message: fmt.Sprintf("held key %q: the job that computes it (job %d) failed or ended", j.key(u), src.j.id)})
		return
	}
	if src.j.state[src.i] == tsErred {
		s.linkErred(j, u, src.j.causes[src.i]) // server_futerr.go
		return
	}
	j.state[u] = tsWaiting
	if src.j.state[src.i] == tsMemory {
		s.linkReady(j, u)
	}
}

// linkReady: u's source is in memory: u takes its holders and size and
// finishes in j.
func (s *Server) linkReady(j *srvJob, u int32) {
	src := j.link[u]
	j.setHolder(u, 0)
	for id := range src.j.holders(src.i) {
		j.addHolder(u, id)
	}
	j.nbytes[u] = src.j.nbytes[src.i]
	s.finished(j, u, nil)
}

// notifyLinks: j's task t is in memory; links waiting for it take it.
func (s *Server) notifyLinks(j *srvJob, t int32) {
	for _, l := range j.linkedBy[t] {
		if !l.j.over && l.j.state[l.i] == tsWaiting {
			s.linkReady(l.j, l.i)
		}
	}
}

// failLinks: j is over; live jobs still needing one of its values fail.
func (s *Server) failLinks(j *srvJob) {
	ts := make([]int32, 0, len(j.linkedBy))
	for t := range j.linkedBy {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	for _, t := range ts {
		for _, l := range j.linkedBy[t] {
			if l.j.over || l.j.state[l.i] == tsReleased || l.j.state[l.i] == tsErred {
				continue
			}
			e := &pb.JobError{Index: l.i, Kind: pb.JobError_INTERNAL,
				Message: fmt.Sprintf("held key %q: the job that computes it (job %d) failed or ended", l.j.key(l.i), j.id)}
			if f := j.failure; f != nil && f.Index == t && f.Kind == pb.JobError_TASK {
				e = &pb.JobError{Index: l.i, Kind: pb.JobError_TASK, Failure: f.Failure, WorkerId: f.WorkerId}
			}
			s.linkFailed(l.j, l.i, e, sourceCause(j, t, l.j.key(l.i), e))
		}
	}
	// The session forgets what j held.
	if j.sess != nil {
		for i, h := range j.hold {
			if !h {
				continue
			}
			k := j.key(int32(i))
			refs := slices.DeleteFunc(j.sess.held[k], func(r taskRef) bool { return r.j == j })
			if len(refs) == 0 {
				delete(j.sess.held, k)
			} else {
				j.sess.held[k] = refs
			}
		}
	}
}

// unlink: j is over; the sources of its links may be dropped now.
func (s *Server) unlink(j *srvJob) {
	for _, u := range sortedLinks(j.link) {
		s.sourceCheck(j.link[u])
	}
}

// sourceCheck drops the value of source ref when nothing wants it any
// more: the session does not hold it, no live job's linked task needs
// it, and its own job has ended (retired); then a retired job holding
// nothing is dropped.
func (s *Server) sourceCheck(ref taskRef) {
	j, t := ref.j, ref.i
	if j.over || !j.retired || j.hold[t] || s.linkNeeded(j, t) {
		return
	}
	j.isOut[t] = false
	if j.state[t] == tsMemory && j.need[t] == 0 {
		s.release(j, t)
	}
	s.retireCheck(j)
}

// linkNeeded reports whether a live job's linked task still needs t's
// value (it is not released there).
func (s *Server) linkNeeded(j *srvJob, t int32) bool {
	for _, l := range j.linkedBy[t] {
		if !l.j.over && l.j.state[l.i] != tsReleased && l.j.state[l.i] != tsErred {
			return true
		}
	}
	return false
}

// retire: j's client closed its stream. A job of a live session that
// holds outputs stays (retired) with them; any other is dropped.
func (s *Server) retire(j *srvJob) {
	if j.over {
		return
	}
	if !j.run || j.sess == nil || j.sess.gone || j.hold == nil {
		s.dropJob(j)
		return
	}
	j.retired = true
	for _, t := range j.outputs {
		if j.hold[t] || s.linkNeeded(j, t) {
			continue
		}
		j.isOut[t] = false
		if j.state[t] == tsMemory && j.need[t] == 0 {
			s.release(j, t)
		}
	}
	s.retireCheck(j)
}

// retireCheck drops retired j when it holds nothing and no live link
// needs any of its values.
func (s *Server) retireCheck(j *srvJob) {
	if j.over || !j.retired || j.nhold > 0 {
		return
	}
	for t := range j.linkedBy {
		if s.linkNeeded(j, t) {
			return
		}
	}
	s.log.Debug("retired job dropped", "job", j.id)
	s.dropJob(j)
}
