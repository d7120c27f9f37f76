package sched

import (
	"context"
	"io"
	"os"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// ComputeConfig is what one Compute of a collection (delayed values,
// chunked arrays) is configured with. The collections keep their own
// Option types (func(*ComputeConfig)) so that their documentation can say
// what optimization means for them, and share this config and Run, as
// Dask's collections share dask.base.compute.
type ComputeConfig struct {
	// Scheduler runs the graph; nil means Threaded{}.
	Scheduler Scheduler
	// Optimize runs optimize.Optimize before the scheduler (Dask's
	// optimize_graph); collections may do more under it (chunkarray fuses
	// blockwise operations while building its graph).
	Optimize bool
	// Callbacks are attached to this computation only.
	Callbacks []*Callbacks
	// BufferLimit bounds the bytes of free buffers (block, chunk and tile
	// memory that tasks give back for the next task) that the run keeps
	// in its free list (package freelist): 0 lets the scheduler choose
	// (Sync and Threaded keep two buffers of the largest size asked for
	// per worker); a negative value keeps none, so every task allocates
	// its own. The list is the run's and is dropped when it ends.
	BufferLimit int64
}

// ProgressTo returns the callbacks of a progress bar written to w, or to
// standard error when w is nil: what the collections' WithProgress
// options attach.
func ProgressTo(w io.Writer) *Callbacks {
	if w == nil {
		w = os.Stderr
	}
	return NewProgressBar(w).Callbacks()
}

// NewComputeConfig applies opts to the defaults: Threaded{}, optimization
// on, no callbacks. Nil options are skipped.
func NewComputeConfig[O ~func(*ComputeConfig)](opts []O) ComputeConfig {
	c := ComputeConfig{Optimize: true}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.Scheduler == nil {
		c.Scheduler = Threaded{}
	}
	return c
}

// Persist computes keys of g as Run does and returns a node standing for
// each value: the Persister's (the value stays where it was computed)
// when the scheduler is one, else a literal of the value.
func (c ComputeConfig) Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]graph.Node, error) {
	p, ok := c.Scheduler.(Persister)
	if !ok {
		vals, err := c.Run(ctx, g, keys)
		if err != nil {
			return nil, err
		}
		nodes := make([]graph.Node, len(vals))
		for i, v := range vals {
			nodes[i] = graph.Literal(v)
		}
		return nodes, nil
	}
	if c.Optimize {
		var err error
		if g, _, err = optimize.Optimize(g, keys); err != nil {
			return nil, err
		}
	}
	if len(c.Callbacks) > 0 {
		ctx = WithCallbacks(ctx, c.Callbacks...)
	}
	return p.Persist(ctx, g, keys)
}

// Run computes keys of g as configured: optimize.Optimize when c.Optimize,
// then the scheduler with c.Callbacks attached to ctx. No progress bar is
// attached unless asked for (the collections' WithProgress, as Dask's
// ProgressBar() is opt-in): a library must not write to a terminal it
// does not own.
func (c ComputeConfig) Run(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	if c.Optimize {
		var err error
		if g, _, err = optimize.Optimize(g, keys); err != nil {
			return nil, err
		}
	}
	s := c.Scheduler
	if s == nil {
		s = Threaded{}
	}
	if len(c.Callbacks) > 0 {
		ctx = WithCallbacks(ctx, c.Callbacks...)
	}
	if c.BufferLimit != 0 {
		fl := freelist.New(c.BufferLimit)
		defer fl.Close()
		ctx = freelist.NewContext(ctx, fl)
	}
	return s.Get(ctx, g, keys)
}
