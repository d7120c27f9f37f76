package udfbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// MergeStrategy chooses the shape of the merge.
type MergeStrategy uint8

const (
	// MergeTree (default): a log-depth tree of ordered pairwise merges.
	MergeTree MergeStrategy = iota
	// MergeLinear: a chain, one merge per partition in order (LiberTEM's).
	MergeLinear
	// MergeAllNode: one node for all partitions, using MergeAll where the
	// UDF has it or has nav buffers only, sequential Merge calls otherwise.
	MergeAllNode
)

type runConfig struct {
	roi        *nd.Array
	partitions int
	depth      int
	sigTile    []int
	merge      MergeStrategy
	backend    Backend
	// comp configures every computation of the run as the collections'
	// Compute is configured (scheduler, callbacks, optimization); progress
	// is kept apart, since RunIter draws one bar over its steps.
	comp     []chunkarray.Option
	progress io.Writer
	withBar  bool
}

// computeConfig returns the run's compute configuration, with the
// progress bar when asked for and bar is true.
func (c *runConfig) computeConfig(bar bool) sched.ComputeConfig {
	return sched.NewComputeConfig(c.options(bar))
}

func (c *runConfig) options(bar bool) []chunkarray.Option {
	opts := slices.Clone(c.comp)
	if bar && c.withBar {
		opts = append(opts, chunkarray.WithProgress(c.progress))
	}
	return opts
}

// RunOption configures a run.
type RunOption func(*runConfig)

// WithROI sets the region of interest: a bool array, flat (n,) or of nav
// shape. It is copied at the start of the run.
func WithROI(roi *nd.Array) RunOption { return func(c *runConfig) { c.roi = roi } }

// WithPartitions sets the number of partitions (default: one per 128 MiB
// of data, at least 1... see partitionCount).
func WithPartitions(p int) RunOption { return func(c *runConfig) { c.partitions = p } }

// WithTileShape sets the tile shape: depth frames and the sig tile shape
// (nil: whole frames). Default: about 1 MiB per tile.
func WithTileShape(depth int, sigTile []int) RunOption {
	return func(c *runConfig) { c.depth, c.sigTile = depth, append([]int(nil), sigTile...) }
}

// WithScheduler sets the scheduler (default sched.Threaded{}). Run,
// RunIter and RunLazy's LazyResults.Compute use it, as the other compute
// options below.
func WithScheduler(s sched.Scheduler) RunOption {
	return func(c *runConfig) { c.comp = append(c.comp, chunkarray.WithScheduler(s)) }
}

// WithOptimize turns the graph optimization (optimize.Optimize, Dask's
// optimize_graph) on or off, as chunkarray.WithOptimize; on by default.
func WithOptimize(on bool) RunOption {
	return func(c *runConfig) { c.comp = append(c.comp, chunkarray.WithOptimize(on)) }
}

// WithCallbacks attaches scheduler callbacks (a profiler, a progress bar)
// to the run's computations.
func WithCallbacks(cbs ...*sched.Callbacks) RunOption {
	return func(c *runConfig) { c.comp = append(c.comp, chunkarray.WithCallbacks(cbs...)) }
}

// WithProgress draws a progress bar of the run on w (standard error when w
// is nil), as LiberTEM's run_udf(progress=True): sched's bar over the
// run's tasks for Run and LazyResults.Compute, and one bar over the
// partitions for RunIter, advanced by each step (Iter.Close ends it when
// the loop is left early). None is drawn unless asked for.
func WithProgress(w io.Writer) RunOption {
	return func(c *runConfig) { c.progress, c.withBar = w, true }
}

// WithMerge sets the merge strategy (default MergeTree).
func WithMerge(m MergeStrategy) RunOption { return func(c *runConfig) { c.merge = m } }

// WithBackend restricts the run to one backend.
func WithBackend(b Backend) RunOption { return func(c *runConfig) { c.backend = b } }

// ErrNoUDF is returned by a run with no UDF.
var ErrNoUDF = errors.New("udfbridge: a run needs at least one UDF")

// Results are the computed results of one UDF of a run.
type Results struct {
	udf      string
	decls    []BufferDecl
	navShape []int
	roi      []bool // flat, nil: all
	raw      map[string]*nd.Array
	full     map[string]*nd.Array // nav buffers get_results returned nav-shaped
	masks    map[string]*nd.Array
	navValid []bool // flat over nav: merged positions
}

// Names returns the names of the returned buffers, in declaration order.
func (r *Results) Names() []string {
	var out []string
	for _, d := range r.decls {
		if _, ok := r.raw[d.Name]; ok {
			out = append(out, d.Name)
		}
	}
	return out
}

func (r *Results) decl(name string) (BufferDecl, *nd.Array, error) {
	a, ok := r.raw[name]
	if !ok {
		return BufferDecl{}, nil, &BufferError{UDF: r.udf, Buffer: name, Err: fmt.Errorf("no such result buffer (have %v)", r.Names())}
	}
	for _, d := range r.decls {
		if d.Name == name {
			return d, a, nil
		}
	}
	return BufferDecl{}, nil, &BufferError{UDF: r.udf, Buffer: name, Err: fmt.Errorf("undeclared")}
}

// RawData returns a buffer as merged: nav buffers flat and ROI-compressed,
// (r,)+E.
func (r *Results) RawData(name string) (*nd.Array, error) {
	_, a, err := r.decl(name)
	return a, err
}

// Data returns a buffer in its user shape: nav buffers as nav+E with the
// fill value (NaN, 0, false) outside the ROI, or as GetResults returned
// them where it returned them in that shape (LiberTEM keeps those too).
func (r *Results) Data(name string) (*nd.Array, error) {
	d, a, err := r.decl(name)
	if err != nil || d.Kind != Nav {
		return a, err
	}
	if f, ok := r.full[name]; ok {
		return f, nil
	}
	return embedNav(a, r.navShape, r.roi)
}

// ValidMask returns the buffer's valid mask, of its Data shape: for nav
// buffers true where merged, sig and single all true, unless GetResults set
// one with Ctx.WithMask.
func (r *Results) ValidMask(name string) (*nd.Array, error) {
	d, a, err := r.decl(name)
	if err != nil {
		return nil, err
	}
	shape := a.Shape()
	if d.Kind == Nav {
		shape = append(append([]int(nil), r.navShape...), a.Shape()[1:]...)
	}
	if m, ok := r.masks[name]; ok {
		b, err := m.BroadcastTo(shape...)
		if err != nil {
			return nil, &BufferError{UDF: r.udf, Buffer: name, Err: fmt.Errorf("mask: %w", err)}
		}
		return b.Contiguous(), nil
	}
	if d.Kind != Nav {
		return nd.Full(nd.Bool, true, shape...)
	}
	n := 1
	for _, s := range r.navShape {
		n *= s
	}
	e := 1
	for _, s := range a.Shape()[1:] {
		e *= s
	}
	vals := make([]bool, n*e)
	for i := 0; i < n; i++ {
		if r.navValid[i] {
			for j := 0; j < e; j++ {
				vals[i*e+j] = true
			}
		}
	}
	return nd.FromSlice(vals, shape...)
}

// MaskedData returns the data with invalid elements set to the fill value,
// and the valid mask (Go has no masked arrays).
func (r *Results) MaskedData(name string) (data, valid *nd.Array, err error) {
	data, err = r.Data(name)
	if err != nil {
		return nil, nil, err
	}
	valid, err = r.ValidMask(name)
	if err != nil {
		return nil, nil, err
	}
	fill, err := nd.Full(data.DType(), fillValue(data.DType()), data.Shape()...)
	if err != nil {
		return nil, nil, err
	}
	out, err := nd.Where(valid, data, fill)
	return out, valid, err
}

func fillValue(d nd.DType) any {
	switch {
	case d.IsFloat(), d.IsComplex():
		return nanOf(d)
	case d.IsBool():
		return false
	}
	return 0
}

// Run runs udfs over ds in one pass and returns each UDF's computed
// results, in order. See RunLazy for lazy results and RunIter for partial
// results after each partition.
func Run(ctx context.Context, ds Dataset, udfs []UDF, opts ...RunOption) (_ []*Results, err error) {
	defer recoverPanic(&err)
	p, err := plan(ds, udfs, opts)
	if err != nil {
		return nil, err
	}
	return p.run(ctx)
}
