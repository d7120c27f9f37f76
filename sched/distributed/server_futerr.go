package distributed

import (
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Keep-going jobs: per-task failures, for Futures.
//
// A job of Futures (Submit, Map, Persist) asks the scheduler to keep
// going (Run.keep_going): a task's final failure (its op failed after
// its retries, it was running on AllowedFailures workers that died, or no
// worker offers its resources for WorkerTimeout) does not end the job.
// The task is erred, and so is every task that depends on it and has not
// finished: none of them is run, each counts as finished for its
// dependencies' reference counts (need), so that their values are
// released as if it had run, and each erred output is reported to the
// client (ClientEvent.erred) with the original failure and the key of the
// task that failed. The other tasks run on; the client ends the job, as
// any other, once every output is held or erred. An erred task never
// comes back: erred is final, and a task that needs an erred value (a
// lost value's recomputation, a task given back by its worker) errs too.
//
// A held output that erred keeps its hold, without a value: a later job
// of the session whose task links to it (the client sent it before it
// heard of the failure, or merely has the same key) gets the same error
// for that task and its dependents, instead of waiting for ever; the
// client releases the key as it releases any other. A job that does not
// keep going fails as a whole on such a link, as on a failure of its own.
//
// A dependent being processed when its dependency errs (the dependency's
// value was lost after the dependent was sent, and its recomputation
// failed) is left to its worker: it finishes with the value it fetched,
// or reports the dependency missing and errs then.
//
// Compute (Get) does not set keep_going: as Dask's compute, it fails at
// the first failure.

// futCause is why a task of a keep-going job erred: the task that failed
// (its key and op, in this job or in the job computing a held key it
// links to) and the failure, whose index is -1.
type futCause struct {
	key string
	op  string
	err *pb.JobError
}

// taskErred: task e.Index of j failed for good with e. A job that does not
// keep going fails; in a keep-going one the task and its unfinished
// dependents err.
func (s *Server) taskErred(j *srvJob, e *pb.JobError) {
	if !j.keepGoing || e.Index < 0 || int(e.Index) >= j.ntasks() {
		s.failJob(j, e)
		return
	}
	t := e.Index
	op, _ := graph.WireOpName(j.defs.node(t))
	c := &futCause{key: j.key(t), op: op, err: &pb.JobError{Index: -1, Kind: e.Kind, Failure: e.Failure, Message: e.Message, WorkerId: e.WorkerId}}
	msg := e.Message
	if msg == "" && e.Failure != nil {
		msg = e.Failure.Message
	}
	s.log.Info("task erred; its dependents will not run", "job", j.id, "name", j.name, "kind", e.Kind.String(), "key", c.key, "message", msg)
	s.errSubtree(j, t, c)
}

// unrun reports whether a task in state st has not finished and is not
// being run: a dependent in this state of an erred task errs too.
func unrun(st uint8) bool {
	return st == tsWaiting || st == tsLimbo || st == tsNoWorker || st == tsQueued
}

// errSubtree errs t, whatever its state, and every dependent of it in j,
// transitively, that has not finished and is not being run, for cause c;
// then the tasks of other jobs linked to them and waiting for them.
func (s *Server) errSubtree(j *srvJob, t int32, c *futCause) {
	if j.over || j.state[t] == tsErred {
		return
	}
	var erred []int32
	stack := []int32{t}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if j.state[x] == tsErred {
			continue // a dependent of two erred tasks
		}
		s.errOne(j, x, c)
		erred = append(erred, x)
		for _, d := range j.dependents(x) {
			if unrun(j.state[d]) {
				stack = append(stack, d)
			}
		}
	}
	// Other jobs and sources are touched once this job is consistent:
	// they may come back to it (a source dropped fails its links).
	for _, x := range erred {
		if src, ok := j.link[x]; ok {
			s.sourceCheck(src)
		}
		for _, l := range j.linkedBy[x] {
			if !l.j.over && l.j.state[l.i] == tsWaiting {
				s.linkErred(l.j, l.i, c)
			}
		}
	}
}

// errOne errs task x of j: it holds nothing and runs nowhere, its
// dependencies no longer wait for it (it counted as unfinished in their
// need, but for a linked task, which needs none), and the client hears of
// it when it is an output.
func (s *Server) errOne(j *srvJob, x int32, c *futCause) {
	if j.proc[x] != 0 {
		s.removeProc(j, x)
	}
	j.state[x] = tsErred
	j.setHolder(x, 0)
	s.unslot(j, x)
	if j.causes == nil {
		j.causes = map[int32]*futCause{}
	}
	j.causes[x] = c
	if !j.linked(x) {
		for _, d := range j.deps(x) {
			j.need[d]--
			if j.need[d] == 0 && !j.isOut[d] && j.state[d] == tsMemory {
				s.release(j, d)
			}
		}
	}
	if j.isOut[x] {
		j.jout().Erred = append(j.jout().Erred, &pb.FutErred{Index: x, Key: c.key, Op: c.op, Error: c.err})
	}
}

// erredDep returns the cause of the first erred dependency of t, or nil.
func (j *srvJob) erredDep(t int32) *futCause {
	for _, d := range j.deps(t) {
		if j.state[d] == tsErred {
			if c := j.causes[d]; c != nil {
				return c
			}
			return &futCause{key: j.key(d), err: &pb.JobError{Index: -1, Kind: pb.JobError_INTERNAL,
				Message: fmt.Sprintf("task %q erred", j.key(d))}}
		}
	}
	return nil
}

// linkErred: linked task u of j needs a source that erred with c. A
// keep-going j errs u's subtree with the same cause; any other job fails
// with it.
func (s *Server) linkErred(j *srvJob, u int32, c *futCause) {
	if j.over {
		return
	}
	if c == nil {
		c = &futCause{key: j.key(u), err: &pb.JobError{Index: -1, Kind: pb.JobError_INTERNAL,
			Message: fmt.Sprintf("held key %q erred", j.key(u))}}
	}
	if j.keepGoing {
		s.errSubtree(j, u, c)
		return
	}
	msg := c.err.Message
	if msg == "" {
		msg = fmt.Sprintf("held key %q: task %q failed", j.key(u), c.key)
	}
	s.failJob(j, &pb.JobError{Index: u, Kind: c.err.Kind, Failure: c.err.Failure, WorkerId: c.err.WorkerId, Message: msg})
}

// linkFailed: the job computing the source of j's linked task u is over
// (failed, or its client went away), with e naming u. A keep-going j errs
// u's subtree; any other job fails with e.
func (s *Server) linkFailed(j *srvJob, u int32, e *pb.JobError, c *futCause) {
	if j.keepGoing && !j.over {
		s.errSubtree(j, u, c)
		return
	}
	s.failJob(j, e)
}

// sourceCause is the cause of a failure of the job computing held key t of
// j that fails its links (failLinks): its own task error when t failed,
// else e (naming the linked task u of another job).
func sourceCause(j *srvJob, t int32, u string, e *pb.JobError) *futCause {
	if f := j.failure; f != nil && f.Index == t && f.Kind == pb.JobError_TASK {
		op, _ := graph.WireOpName(j.defs.node(t))
		return &futCause{key: j.key(t), op: op, err: &pb.JobError{Index: -1, Kind: f.Kind, Failure: f.Failure, WorkerId: f.WorkerId}}
	}
	return &futCause{key: u, err: &pb.JobError{Index: -1, Kind: e.Kind, Failure: e.Failure, Message: e.Message, WorkerId: e.WorkerId}}
}
