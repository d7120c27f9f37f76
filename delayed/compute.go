package delayed

import (
	"context"
	"fmt"
	"io"
	"reflect"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/viz"
)

// Option configures Compute, Persist and Visualize.
// The configuration is sched.ComputeConfig, shared with the other
// collections.
type Option func(*sched.ComputeConfig)

func newConfig(opts []Option) sched.ComputeConfig { return sched.NewComputeConfig(opts) }

// WithScheduler runs the computation on s instead of sched.Threaded{}.
func WithScheduler(s sched.Scheduler) Option {
	return func(c *sched.ComputeConfig) { c.Scheduler = s }
}

// WithOptimize turns the default graph optimization (optimize.Optimize:
// cull, inline, fuse) on or off; off is Dask's optimize_graph=False.
func WithOptimize(on bool) Option { return func(c *sched.ComputeConfig) { c.Optimize = on } }

// WithCallbacks attaches callbacks (a profiler, a progress bar) to this
// computation only.
func WithCallbacks(cbs ...*sched.Callbacks) Option {
	return func(c *sched.ComputeConfig) { c.Callbacks = append(c.Callbacks, cbs...) }
}

// WithProgress draws a progress bar of this computation on w (standard
// error when w is nil), as Dask's ProgressBar(); none is drawn unless
// asked for.
func WithProgress(w io.Writer) Option { return WithCallbacks(sched.ProgressTo(w)) }

// rootOf returns v's node: its own for values of this package, a layer
// node wrapping v.Graph() for other Valuers.
func rootOf(v Valuer) *node {
	switch x := v.(type) {
	case nil:
		return &node{err: fmt.Errorf("delayed: nil Valuer")}
	case interface{ node() *node }:
		return x.node()
	}
	g, err := v.Graph()
	if err != nil {
		return &node{key: v.Key(), err: err}
	}
	return &node{key: v.Key(), layer: g}
}

// Compute computes several values in one run over one graph, so that
// subexpressions they share are computed once (dask.compute(a, b)). The
// values come back in the order of vs, untyped; Delayed.Compute is the
// typed form for one value.
func Compute(ctx context.Context, vs []Valuer, opts ...Option) ([]any, error) {
	c := newConfig(opts)
	roots := make([]*node, len(vs))
	keys := make([]graph.Key, len(vs))
	for i, v := range vs {
		roots[i] = rootOf(v)
		keys[i] = roots[i].key
	}
	g, err := collect(roots)
	if err != nil {
		return nil, err
	}
	return c.Run(ctx, g, keys)
}

// Compute computes d: collects its graph, optimizes it (unless
// WithOptimize(false)) and runs it on the scheduler (sched.Threaded{}
// unless WithScheduler). A task's failure is a *sched.TaskError naming its
// key; an error recorded while building is returned as is.
func (d Delayed[T]) Compute(ctx context.Context, opts ...Option) (T, error) {
	var zero T
	vals, err := Compute(ctx, []Valuer{d}, opts...)
	if err != nil {
		return zero, err
	}
	v, ok := as[T](vals[0])
	if !ok {
		return zero, &TypeError{Op: "compute " + string(d.Key()), Arg: -1, Want: reflect.TypeFor[T]().String(), Got: typeName(vals[0])}
	}
	return v, nil
}

// Persist computes d and returns it as a Delayed holding the value: a
// single literal node under the same key, so that values built on it reuse
// the result instead of computing it again (Dask's persist).
//
// On a scheduler that keeps values where it computed them (a
// sched.Persister: the distributed client or cluster), the value stays
// there: the node stands for it, values built on it read it there, and it
// is released when the returned Delayed is unreachable.
func (d Delayed[T]) Persist(ctx context.Context, opts ...Option) (Delayed[T], error) {
	if c := newConfig(opts); isPersister(c.Scheduler) {
		g, err := d.Graph()
		if err != nil {
			return Delayed[T]{}, err
		}
		nodes, err := c.Persist(ctx, g, []graph.Key{d.Key()})
		if err != nil {
			return Delayed[T]{}, err
		}
		return Delayed[T]{&node{key: d.Key(), nd: nodes[0]}}, nil
	}
	v, err := d.Compute(ctx, opts...)
	if err != nil {
		return Delayed[T]{}, err
	}
	return Delayed[T]{&node{key: d.Key(), nd: graph.Literal(v)}}, nil
}

func isPersister(s sched.Scheduler) bool {
	_, ok := s.(sched.Persister)
	return ok
}

// Visualize draws d's graph into path with package viz; the format comes
// from the extension (.dot, .svg, .png, .pdf), and all but .dot need the
// graphviz dot binary. opts.Keys defaults to d's key, so that
// opts.Optimize draws the graph Compute would run.
func (d Delayed[T]) Visualize(ctx context.Context, path string, opts viz.Options) error {
	g, err := d.Graph()
	if err != nil {
		return err
	}
	if len(opts.Keys) == 0 {
		opts.Keys = []graph.Key{d.Key()}
	}
	return viz.Render(ctx, g, path, "", opts)
}
