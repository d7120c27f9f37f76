package distributed

import (
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/graph"
)

// ErrSchedulerLost is the cause of the error a client's Get returns when
// its connection to the scheduler breaks mid-computation (the scheduler
// died, or the network between them did): test it with errors.Is. A
// silent network is noticed by gRPC keepalive pings within about 20 s.
var ErrSchedulerLost = errors.New("distributed: lost the connection to the scheduler")

// RemoteError is the cause of a *sched.TaskError for a task whose op
// returned an error in another process. Message is that error's text.
// Sentinel is the sentinel error the cause wrapped, when it was registered
// with graph.RegisterError (nil otherwise), so that errors.Is(err,
// ErrSomething) holds on the client as it does on Threaded.
type RemoteError struct {
	Message  string
	Sentinel error
}

func (e *RemoteError) Error() string { return e.Message }

// Unwrap returns e.Sentinel.
func (e *RemoteError) Unwrap() error { return e.Sentinel }

// KilledWorkerError is the cause of a *sched.TaskError for a task that was
// running on Failures workers that died (SchedulerOptions.AllowedFailures):
// the task itself probably kills the process (a crash, an exhausted
// machine), so it is not tried again.
type KilledWorkerError struct {
	Key      graph.Key
	Failures int
}

func (e *KilledWorkerError) Error() string {
	if e.Failures > 0 {
		return fmt.Sprintf("distributed: task %q was running on %d workers that died", string(e.Key), e.Failures)
	}
	return fmt.Sprintf("distributed: task %q was running on too many workers that died", string(e.Key))
}

// JobError is the error of a computation that the scheduler refused or
// could not run, for a reason other than a task's own failure: Kind is
// "no worker" (no connected worker offers the resources of task Key),
// "bad graph" (the job's graph reached the scheduler malformed or past
// its limits) or "internal". Key is "" when no task is at fault. The
// sentinels ErrNoWorker, ErrBadGraph and ErrInternal match a JobError of
// their kind with errors.Is, so callers need not compare strings.
type JobError struct {
	Kind    string
	Key     graph.Key
	Message string
}

// The kinds of JobError, for errors.Is.
var (
	ErrNoWorker = errors.New("distributed: no worker")
	ErrBadGraph = errors.New("distributed: bad graph")
	ErrInternal = errors.New("distributed: internal error")
)

// Is reports whether target is the sentinel of e's Kind.
func (e *JobError) Is(target error) bool {
	switch e.Kind {
	case "no worker":
		return target == ErrNoWorker
	case "bad graph":
		return target == ErrBadGraph
	case "internal", "task", "killed worker":
		return target == ErrInternal
	}
	return false
}

func (e *JobError) Error() string {
	if e.Key != "" {
		return fmt.Sprintf("distributed: %s: task %q: %s", e.Kind, string(e.Key), e.Message)
	}
	return fmt.Sprintf("distributed: %s: %s", e.Kind, e.Message)
}

// EncodeError is the error of Get for a node that cannot be sent to the
// workers: its op or a literal is not registered, or it is too large for
// one message. Nothing of the job has been sent then.
type EncodeError struct {
	Key graph.Key
	Err error
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("distributed: cannot send node %q to the workers: %v", string(e.Key), e.Err)
}

func (e *EncodeError) Unwrap() error { return e.Err }
