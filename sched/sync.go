package sched

import (
	"context"

	"github.com/tessera-go/tessera/graph"
)

// Sync runs every task on the calling goroutine, one at a time, in the order
// given by optimize.Order: deterministic, for debugging and tests. It is the
// engine of Threaded with the calling goroutine as its only worker. The zero
// value is ready to use.
//
// Cancellation takes effect between tasks, and inside a task that honours
// its ctx: a task that ignores ctx delays Get until it returns, which
// Threaded avoids by waiting on another goroutine.
type Sync struct{}

var _ Scheduler = Sync{}

// Get runs what keys need of g and returns their values, in order.
func (Sync) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	return get(ctx, g, keys, 0)
}
