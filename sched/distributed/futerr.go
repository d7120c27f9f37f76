package distributed

import (
	"context"
	"errors"
	"fmt"
	"runtime"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Per-Future errors, the client's side (server_futerr.go is the
// scheduler's).
//
// A job of Futures keeps going on the scheduler (Run.keep_going): a task
// that fails for good errs only the Futures of its own key and of the
// keys that depend on it; the job's other Futures are held as their
// values are ready. Each erred output comes in a FutErred, turned here
// into the Future's error: for the task that failed, the *sched.TaskError
// a Get of that task would return; for a Future depending on it, an error
// wrapping both ErrDependencyFailed and that same *sched.TaskError, so
// that errors.As finds the failed task's key and errors.Is its cause, as
// Dask gives a dependent its dependency's exception.

// ErrDependencyFailed is wrapped by the error of a Future that was not
// computed because a task it depends on failed: the error wraps that
// task's error too (a *sched.TaskError naming the failed key, for a task
// that ran on the cluster).
var ErrDependencyFailed = errors.New("distributed: a dependency failed")

// depError is the error of a Future (key) not computed because a task
// it depends on failed with err.
type depError struct {
	key graph.Key
	err error
}

func (e *depError) Error() string {
	return fmt.Sprintf("distributed: %s not computed: a dependency failed: %v", string(e.key), e.err)
}

func (e *depError) Unwrap() []error { return []error{ErrDependencyFailed, e.err} }

// dependencyError is the error of key, which depends on a Future that
// failed with err: the original failure, not a chain of dependents.
func dependencyError(key graph.Key, err error) error {
	var de *depError
	if errors.As(err, &de) {
		err = de.err
	}
	return &depError{key: key, err: err}
}

// outputErred handles the scheduler's report that output fe.Index will
// not be computed. A job that keeps going (onErred set) settles that
// output; any other job fails with its error.
func (r *jobRun) outputErred(fe *pb.FutErred) error {
	j := r.j
	st, ok := j.state[fe.Index]
	if !ok {
		return nil // not an output
	}
	err := j.erredError(fe)
	if j.onErred == nil {
		return err
	}
	if st != outWaiting {
		return nil // held already (then lost, and its recomputation failed): the first report stands
	}
	j.state[fe.Index] = outDone
	j.left--
	j.onErred(fe.Index, err)
	return nil
}

// erredError is the error of output fe.Index: the failed task's error as
// jobError makes it, wrapped in a dependency error when that task is not
// the output's own.
func (j *job) erredError(fe *pb.FutErred) error {
	je := fe.Error
	if je == nil {
		je = &pb.JobError{Kind: pb.JobError_INTERNAL, Message: "the scheduler gave no reason"}
	}
	key := graph.Key(fe.Key)
	op := fe.Op
	var out graph.Key
	if fe.Index >= 0 && int(fe.Index) < len(j.byPrio) {
		out = j.g.Key(int(j.byPrio[fe.Index]))
	}
	if key == "" {
		key = out
	}
	if i, ok := j.g.Index(key); ok && op == "" {
		op = opName(j.g.At(i))
	}
	msg := je.Message
	if msg == "" && je.Failure != nil {
		msg = je.Failure.Message
	}
	var err error
	switch je.Kind {
	case pb.JobError_TASK:
		f := je.Failure
		if f == nil {
			f = &pb.Failure{Message: je.Message}
		}
		err = &sched.TaskError{Key: key, Op: op, Err: failureCause(f)}
	case pb.JobError_KILLED_WORKER:
		err = &sched.TaskError{Key: key, Op: op, Err: &KilledWorkerError{Key: key, Failures: killedCount(msg)}}
	case pb.JobError_NO_WORKER:
		err = &JobError{Kind: "no worker", Key: key, Message: msg}
	case pb.JobError_BAD_GRAPH:
		err = &JobError{Kind: "bad graph", Key: key, Message: msg}
	default:
		err = &JobError{Kind: "internal", Key: key, Message: msg}
	}
	if key != out {
		return dependencyError(out, err)
	}
	return err
}

// failureCause is the cause of a *sched.TaskError for a task whose op
// failed on a worker (f): a *sched.PanicError, or a *RemoteError wrapping
// the registered sentinel it named.
func failureCause(f *pb.Failure) error {
	if f.Panic {
		return &sched.PanicError{Value: f.PanicValue, Stack: f.Stack}
	}
	re := &RemoteError{Message: f.Message}
	if f.Sentinel != "" {
		if s, ok := graph.LookupError(f.Sentinel); ok {
			re.Sentinel = s
		}
	}
	return re
}

// pruneFailed drops from want the keys of g that depend on a Future
// argument that failed before the job was sent (failed, by key): their
// Futures fail at once with a dependency error, and the job computes the
// others. It returns the keys left.
func (c *Client) pruneFailed(g *graph.Graph, want []graph.Key, failed map[graph.Key]error, byKey map[graph.Key]*futState) ([]graph.Key, error) {
	pg, d, wantIdx, err := sched.Plan(g, want)
	if err != nil {
		return nil, err
	}
	// The error each node inherits, from the failed arguments through
	// their users.
	cause := make([]error, pg.Len())
	var queue []int32
	for k, e := range failed {
		if i, ok := pg.Index(k); ok {
			cause[i] = e
			queue = append(queue, int32(i))
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, u := range d.Users(int(i)) {
			if cause[u] == nil {
				cause[u] = cause[i]
				queue = append(queue, u)
			}
		}
	}
	left := want[:0:0]
	c.fmu.Lock()
	defer c.fmu.Unlock()
	for x, k := range want {
		e := cause[wantIdx[x]]
		if e == nil {
			left = append(left, k)
			continue
		}
		if st := byKey[k]; st != nil {
			st.local = true
			st.job.ready++
			select {
			case <-st.done: // cancelled meanwhile
			default:
				st.err = dependencyError(k, e)
				c.finishLocked(st)
			}
		}
	}
	return left, nil
}

// GatherSkip is Gather with failed Futures skipped (Dask's
// errors="skip"): it waits for fs and returns the values of those that
// hold one, in order, with those Futures (vals[i] is ok[i]'s value); a
// Future that failed (its Err) is left out. err is a failure of the
// gather itself: ctx ended, the connection broke, or a Future is another
// client's.
func (c *Client) GatherSkip(ctx context.Context, fs ...*Future) (vals []any, ok []*Future, err error) {
	if err := c.checkFutures("gather", fs); err != nil {
		return nil, nil, err
	}
	if err := c.Wait(ctx, fs...); err != nil {
		return nil, nil, err
	}
	for _, f := range fs {
		if f.c != c {
			return nil, nil, fmt.Errorf("distributed: gather: %s is a Future of another client", f.st.key)
		}
		if f.Err() == nil {
			ok = append(ok, f)
		}
	}
	if len(ok) == 0 {
		return []any{}, ok, nil
	}
	vals, err = c.Gather(ctx, ok...)
	runtime.KeepAlive(fs)
	if err != nil {
		return nil, nil, err
	}
	return vals, ok, nil
}
