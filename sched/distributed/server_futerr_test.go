package distributed

import (
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The fuzz harness's checks of keep-going jobs (server_futerr.go).

// drainErred checks the FutErred reports of ev, an event of job j, and
// records them: each names an output of a keep-going job that is erred,
// once, with a failure and the key of a task that failed.
func (ss *simServer) drainErred(j *srvJob, ev *pb.ClientEvent) error {
	for _, e := range ev.Erred {
		if e.Index < 0 || int(e.Index) >= len(j.isOut) || !j.isOut[e.Index] {
			return fmt.Errorf("job %d: FutErred for index %d, not an output", j.id, e.Index)
		}
		if !j.keepGoing {
			return fmt.Errorf("job %d: FutErred for %q, but the job does not keep going", j.id, j.key(e.Index))
		}
		if j.state[e.Index] != tsErred {
			return fmt.Errorf("job %d: FutErred for %q, which is %s", j.id, j.key(e.Index), stateNames[j.state[e.Index]])
		}
		if ss.erred[j][e.Index] {
			return fmt.Errorf("job %d: FutErred for %q twice", j.id, j.key(e.Index))
		}
		if e.Error == nil || e.Key == "" {
			return fmt.Errorf("job %d: FutErred for %q without a failure (%v) or a failed key (%q)", j.id, j.key(e.Index), e.Error, e.Key)
		}
		if ss.erred[j] == nil {
			ss.erred[j] = map[int32]bool{}
		}
		ss.erred[j][e.Index] = true
	}
	// Erred is final: a task seen erred stays so.
	if !j.run || j.over {
		return nil
	}
	for t, st := range j.state {
		t := int32(t)
		if st == tsErred {
			if ss.erredTasks[j] == nil {
				ss.erredTasks[j] = map[int32]bool{}
			}
			ss.erredTasks[j][t] = true
		} else if ss.erredTasks[j][t] {
			return fmt.Errorf("job %d: task %q erred, and is %s now", j.id, j.key(t), stateNames[st])
		}
	}
	return nil
}

// forgedFailure reports whether erred task t of j failed on worker w
// itself: the harness has a worker report the failure of a task in the
// message whose handling assigned it the task (a real worker reports
// only tasks it received), and the assignment is then sent after the
// failure.
func forgedFailure(j *srvJob, t, w int32) bool {
	c := j.causes[t]
	return c != nil && c.key == j.key(t) && c.err.Kind == pb.JobError_TASK && c.err.WorkerId == w
}

// checkErred checks task t of running job j: an erred task has a cause
// and none of its dependents waits to run (each has finished, runs, or
// erred); a task that is not erred has no cause.
func checkErred(j *srvJob, t int32) error {
	if j.state[t] != tsErred {
		if j.causes[t] != nil {
			return fmt.Errorf("task %q is %s but has a cause of error", j.key(t), stateNames[j.state[t]])
		}
		return nil
	}
	if j.causes[t] == nil || j.causes[t].err == nil || j.causes[t].key == "" {
		return fmt.Errorf("task %q erred without a cause", j.key(t))
	}
	if j.proc[t] != 0 {
		return fmt.Errorf("task %q erred but is processing on worker %d", j.key(t), j.proc[t])
	}
	for _, c := range j.dependents(t) {
		if unrun(j.state[c]) {
			return fmt.Errorf("task %q erred, but its dependent %q is %s", j.key(t), j.key(c), stateNames[j.state[c]])
		}
	}
	return nil
}

// settledJob checks a running job once every worker has reported what it
// was sent: nothing is left to run, no reference is left (need is zero
// everywhere) and only outputs are in memory.
func settledJob(j *srvJob) error {
	for t, st := range j.state {
		t := int32(t)
		switch {
		case st != tsMemory && st != tsReleased && st != tsErred:
			return fmt.Errorf("task %q is %s after settling", j.key(t), stateNames[st])
		case j.need[t] != 0:
			return fmt.Errorf("task %q: need %d after settling", j.key(t), j.need[t])
		case st == tsMemory && !j.isOut[t]:
			return fmt.Errorf("task %q, not an output, is in memory after settling", j.key(t))
		}
	}
	return nil
}

// reportAll has sess's worker report every task it was sent: failed for
// the keys in fail, finished for the others.
func reportAll(sess *simSession, fail map[string]bool) *pb.WorkerMessage {
	m := &pb.WorkerMessage{}
	for _, p := range sess.specs {
		if fail[p.Key] {
			m.Failed = append(m.Failed, &pb.TaskFailed{Job: p.Job, Key: p.Key, Failure: &pb.Failure{Message: "boom " + p.Key}})
		} else {
			m.Done = append(m.Done, &pb.TaskDone{Job: p.Job, Key: p.Key, Nbytes: 8})
		}
	}
	sess.specs = nil
	return m
}

// A scripted keep-going job through the harness, checked after every
// step:
//
//	a0 (fails)   a1     a2
//	  |           |       \
//	 b3 (out)    b4 (out)  \
//	  \____________________ c5 = h(b3, a2) (out)
//
// b3 and c5 err with a0's failure, never run; a2's value is released
// when it finishes (its only dependent erred); b4 is held. A later
// keep-going job of the session linking to b3 errs its dependent at
// once and computes the one on b4; a job that does not keep going fails
// on the link with a0's failure. Releasing every key drops every job.
func TestServerKeepGoingScripted(t *testing.T) {
	ss := newSimServer(3)
	ok := func(what string) { t.Helper(); ss.check(t, func() string { return " " + what }) }
	w := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 8})
	sess := ss.openSession(t, "s")

	defs := []*pb.TaskDef{
		{Key: "a-0"}, {Key: "a-1", Priority: 1}, {Key: "a-2", Priority: 2},
		{Key: "b-3", Deps: []int32{0}}, {Key: "b-4", Deps: []int32{1}}, {Key: "c-5", Deps: []int32{3, 2}},
	}
	outs := []int32{3, 4, 5}
	j := ss.submit(t, &pb.ClientMessage{Tasks: defs, Run: &pb.Run{Outputs: outs, Hold: outs, Session: sess.id, KeepGoing: true}})
	ok("job 1 submitted")
	if len(w.specs) != 3 {
		t.Fatalf("%d tasks sent, want the 3 roots", len(w.specs))
	}
	for round := 0; len(w.specs) > 0; round++ {
		ss.send(t, w, reportAll(w, map[string]bool{"a-0": true}))
		ok(fmt.Sprintf("round %d reported", round))
	}
	ss.s.mu.Lock()
	states := map[string]string{}
	for i := range int32(j.ntasks()) {
		states[j.key(i)] = stateNames[j.state[i]]
	}
	cause := j.causes[5]
	ss.s.mu.Unlock()
	want := map[string]string{"a-0": "erred", "a-1": "released", "a-2": "released", "b-3": "erred", "b-4": "memory", "c-5": "erred"}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Fatalf("job 1's states %v, want %v", states, want)
	}
	if cause == nil || cause.key != "a-0" || cause.err.Kind != pb.JobError_TASK || cause.err.Failure.GetMessage() != "boom a-0" {
		t.Fatalf("c-5's cause %+v, want a-0's failure", cause)
	}
	if !ss.erred[j][3] || !ss.erred[j][5] || ss.erred[j][4] || !ss.announced[j][4] {
		t.Fatalf("reported erred %v, ready %v; want b-3 and c-5 erred, b-4 ready", ss.erred[j], ss.announced[j])
	}
	ss.cancel(t, j, true) // the client saw every output settled
	ok("job 1 retired")

	// A later job of the session on b-3 (erred) and b-4 (held).
	defs2 := []*pb.TaskDef{
		{Key: "b-3", Held: true}, {Key: "b-4", Held: true},
		{Key: "d-2", Deps: []int32{0}}, {Key: "e-3", Deps: []int32{1}},
	}
	j2 := ss.submit(t, &pb.ClientMessage{Tasks: defs2, Run: &pb.Run{Outputs: []int32{2, 3}, Hold: []int32{2, 3}, Session: sess.id, KeepGoing: true}})
	ok("job 2 submitted")
	ss.s.mu.Lock()
	c2 := j2.causes[2]
	ss.s.mu.Unlock()
	if !ss.erred[j2][2] || c2 == nil || c2.key != "a-0" {
		t.Fatalf("job 2: d-2 erred %v with cause %+v; want it erred at once with a-0's failure", ss.erred[j2][2], c2)
	}
	for len(w.specs) > 0 {
		if w.specs[0].Key != "e-3" {
			t.Fatalf("job 2 sent %q, want only e-3", w.specs[0].Key)
		}
		ss.send(t, w, reportAll(w, nil))
		ok("job 2 reported")
	}
	if !ss.announced[j2][3] {
		t.Fatalf("job 2's e-3 not reported ready")
	}

	// A job that does not keep going fails on the link, with a0's failure.
	j3 := ss.submit(t, &pb.ClientMessage{Tasks: []*pb.TaskDef{{Key: "b-3", Held: true}, {Key: "f-1", Deps: []int32{0}}},
		Run: &pb.Run{Outputs: []int32{1}, Session: sess.id}})
	ok("job 3 submitted")
	if f := j3.failure; !j3.over || f == nil || f.Kind != pb.JobError_TASK || f.Failure.GetMessage() != "boom a-0" || f.Index != 0 {
		t.Fatalf("job 3: over %v, failure %v; want it failed on b-3 with a-0's failure", j3.over, f)
	}

	// Releasing every held key drops both jobs; nothing stays.
	ss.cancel(t, j2, true)
	ok("job 2 retired")
	for _, k := range []string{"b-3", "b-4", "c-5", "d-2", "e-3"} {
		ss.do(t, func() string { return "release " + k }, func() { ss.s.releaseHeld(sess, k) })
		ok("released " + k)
	}
	if len(ss.s.jobs) != 0 || len(sess.held) != 0 {
		t.Fatalf("after releasing everything: %d jobs, %d held keys", len(ss.s.jobs), len(sess.held))
	}
}

// A held value lost with the last worker is recomputed by its retired
// job whenever a worker comes back, however long that takes (Dask's
// tasks wait for workers without a deadline): the scheduler's worker
// timeout, which fails a running job's tasks that find no worker, does
// not err a retired job's recomputation (it did: the held key then
// stayed erred, and a later Result failed though workers had returned).
func TestRetiredJobWaitsForWorkers(t *testing.T) {
	ss := newSimServer(3)
	ok := func(what string) { t.Helper(); ss.check(t, func() string { return " " + what }) }
	w := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 2})
	sess := ss.openSession(t, "s")
	defs := []*pb.TaskDef{{Key: "x-0"}, {Key: "y-1", Deps: []int32{0}}}
	j := ss.submit(t, &pb.ClientMessage{Tasks: defs, Run: &pb.Run{Outputs: []int32{1}, Hold: []int32{1}, Session: sess.id, KeepGoing: true}})
	ok("submitted")
	for len(w.specs) > 0 {
		ss.send(t, w, reportAll(w, nil))
		ok("reported")
	}
	ss.cancel(t, j, true)
	ok("retired")
	ss.disconnect(t, w, false)
	ok("the only worker lost")
	for range 3 {
		ss.tick(t, 2*ss.s.opts.WorkerTimeout)
		ok("a worker timeout later")
	}
	ss.s.mu.Lock()
	st := j.state[1]
	ss.s.mu.Unlock()
	if st == tsErred {
		t.Fatalf("the held value erred while no worker was connected")
	}
	w2 := ss.register(t, &pb.Register{Name: "b", DataAddress: "10.0.0.2:1", Nthreads: 2})
	ok("a worker joined")
	for len(w2.specs) > 0 {
		ss.send(t, w2, reportAll(w2, nil))
		ok("reported again")
	}
	ss.s.mu.Lock()
	st, holder := j.state[1], j.who[1]
	ss.s.mu.Unlock()
	if st != tsMemory || holder != w2.w.id {
		t.Fatalf("after a worker joined: the held value is %s on worker %d, want in memory on %d", stateNames[st], holder, w2.w.id)
	}
}

// openSession opens a client session named id on the scheduler, as its
// Session stream does.
func (ss *simServer) openSession(t testing.TB, id string) *srvSession {
	sess := &srvSession{id: id, held: map[string][]taskRef{}}
	ss.do(t, func() string { return "a session" }, func() { ss.s.sessions[sess.id] = sess })
	ss.csess = append(ss.csess, sess)
	return sess
}

// A steal reply that says the worker gave a task up, though the scheduler
// no longer asked for it (the request was for an attempt that failed
// since; the worker got the request after the task was sent again, and
// took the new copy), sends the task out again: the worker no longer has
// it. (Under load a retried task once waited for ever this way.)
func TestStaleStealReplyRequeues(t *testing.T) {
	ss := newSimServer(3)
	ok := func(what string) { t.Helper(); ss.check(t, func() string { return " " + what }) }
	w := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 1})
	j := ss.submit(t, &pb.ClientMessage{Tasks: []*pb.TaskDef{{Key: "r-0"}}, Run: &pb.Run{Outputs: []int32{0}}})
	ok("submitted")
	if len(w.specs) != 1 {
		t.Fatalf("%d tasks sent, want 1", len(w.specs))
	}
	ss.send(t, w, &pb.WorkerMessage{Stolen: []*pb.StealReply{{Job: j.id, Key: "r-0", Stolen: true}}})
	ok("a stale steal reply")
	if len(w.specs) != 2 || w.specs[1].Key != "r-0" {
		t.Fatalf("after the worker gave the task up: %d tasks sent, want r-0 sent again", len(w.specs))
	}
	ss.send(t, w, reportAll(w, nil))
	ok("reported")
	ss.s.mu.Lock()
	st := j.state[0]
	ss.s.mu.Unlock()
	if st != tsMemory {
		t.Fatalf("r-0 is %s, want in memory", stateNames[st])
	}
}
