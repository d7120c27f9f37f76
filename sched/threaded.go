package sched

import (
	"context"
	"runtime"

	"github.com/tessera-go/tessera/graph"
)

// Threaded runs tasks on Workers goroutines that share one ready queue
// ordered by optimize.Order priority. The zero value uses
// runtime.GOMAXPROCS(0) workers.
//
// Get returns as soon as the computation fails or ctx is cancelled; a task
// still running then sees its context cancelled, and its worker exits when
// it returns, without starting another task or calling any callback.
type Threaded struct {
	Workers int
}

var _ Scheduler = Threaded{}

// Get runs what keys need of g and returns their values, in order.
func (t Threaded) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	n := t.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return get(ctx, g, keys, n)
}
