package sched

import (
	"context"
	"fmt"
	"time"

	"github.com/tessera-go/tessera/graph"
)

// Scheduler runs a graph and returns the values of keys, in order.
type Scheduler interface {
	Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error)
}

// Persister is a Scheduler that can leave computed values where it
// computed them (the distributed client: on the workers). Persist
// computes keys of g and returns, for each, a node that stands for its
// value in later graphs: given to the same scheduler, a graph that refers
// to it reads the value where it is; given to another, the node fetches
// it. The value is kept while the node is reachable.
type Persister interface {
	Scheduler
	Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]graph.Node, error)
}

// TaskError is the error of a task that failed or panicked. It names the
// key and wraps the cause, so errors.Is and errors.As see through it.
//
// When optimize.Fuse nested the failing task inside another, Key and Op
// still name the task that failed, as they would without fusion, and Fused
// names the task of the optimized graph that ran it.
type TaskError struct {
	Key   graph.Key
	Op    string    // the op's name
	Err   error     // the cause; for a panic, a *PanicError
	Fused graph.Key // the fused task that ran Key, or "" when Key ran as itself
}

func (e *TaskError) Error() string {
	if e.Fused != "" {
		return fmt.Sprintf("task %q (%s, fused into %q): %v", string(e.Key), e.Op, string(e.Fused), e.Err)
	}
	return fmt.Sprintf("task %q (%s): %v", string(e.Key), e.Op, e.Err)
}

func (e *TaskError) Unwrap() error { return e.Err }

// PanicError is the cause of a TaskError for a task that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Callbacks observe a computation. Any field may be nil. Start and Finish
// run on the goroutine that called Get; Pretask, Posttask and Release run
// on the worker goroutine that ran the task, concurrently for Threaded, so
// they must be safe for concurrent use.
type Callbacks struct {
	// Start is called once before the first task with the graph that will
	// run (after optimization).
	Start func(g *graph.Graph)
	// Pretask is called before key runs on worker.
	Pretask func(key graph.Key, worker int)
	// Posttask is called after key ran on worker; err is nil on success.
	Posttask func(key graph.Key, result any, err error, worker int)
	// Ran is called between Pretask and Posttask, with the task's start
	// and stop as measured where it ran, by schedulers that learn of a
	// task only once it has run elsewhere (sched/distributed): their
	// Pretask and Posttask come together when the report arrives.
	Ran func(key graph.Key, worker int, start, stop time.Time)
	// Release is called when key's value is dropped because its last
	// dependent has run.
	Release func(key graph.Key)
	// Finish is called once at the end, with the error Get returns.
	Finish func(err error)
}

type callbacksKey struct{}

// WithCallbacks returns a context that makes every scheduler that runs
// under it call cbs, in addition to callbacks already in ctx. This is how a
// progress bar or a profiler is attached to one Compute, as httptrace does
// for one request.
func WithCallbacks(ctx context.Context, cbs ...*Callbacks) context.Context {
	old := CallbacksFrom(ctx)
	all := make([]*Callbacks, 0, len(old)+len(cbs))
	all = append(all, old...)
	for _, c := range cbs {
		if c != nil {
			all = append(all, c)
		}
	}
	return context.WithValue(ctx, callbacksKey{}, all)
}

// CallbacksFrom returns the callbacks attached to ctx.
func CallbacksFrom(ctx context.Context) []*Callbacks {
	cbs, _ := ctx.Value(callbacksKey{}).([]*Callbacks)
	return cbs
}
