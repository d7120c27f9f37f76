package udfbridge

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Partial is one step of RunIter: the results so far and the damage.
type Partial struct {
	// Results equal a run restricted to roi = Damage.
	Results []*Results
	// Damage is a bool array of nav shape: the positions merged so far.
	Damage *nd.Array
	// Done partitions of Total non-empty ones.
	Done, Total int
}

// Iter steps through a run one partition at a time (LiberTEM's
// run_udf_iter). Use it as
//
//	it, err := udfbridge.RunIter(ds, udfs)
//	for it.Next(ctx) { p := it.Partial(); ... }
//	if err := it.Err(); err != nil { ... }
//
// Between steps, UpdateUDF changes a UDF's parameters for the partitions
// still to come.
type Iter struct {
	p     *runPlan
	parts []int
	specs []udfSpec
	done  int
	cur   *Partial
	err   error
	ended bool

	// The merge target, allocated and preprocessed once over all r ROI
	// rows (as LiberTEM's main node does), into which each partition is
	// merged once, when it is processed, with the parameters then in force.
	mg     *merger
	acc    []map[string]*nd.Array
	merged int    // ROI rows merged so far (a prefix: partitions go in order)
	valid  []bool // flat over nav: the positions merged so far

	// WithProgress: one bar over the partitions, sched's, driven through
	// its callbacks by the steps (a step's own computation draws none).
	bar     *sched.Callbacks
	barKeys []graph.Key
}

// startBar starts the bar over the run's partitions (one step at least).
func (it *Iter) startBar() error {
	if !it.p.cfg.withBar || it.bar != nil {
		return nil
	}
	n := max(len(it.parts), 1)
	g := graph.New(n)
	op := &graph.FuncOp{OpName: "udfbridge.step", Fn: func(context.Context, []any) (any, error) { return nil, nil }}
	for i := range n {
		k := graph.BlockKey("udf-step", i)
		if err := g.AddTask(k, op); err != nil {
			return err
		}
		it.barKeys = append(it.barKeys, k)
	}
	it.bar = sched.ProgressTo(it.p.cfg.progress)
	it.bar.Start(g)
	return nil
}

// endBar ends the bar, once.
func (it *Iter) endBar(err error) {
	if it.bar != nil && it.barKeys != nil {
		it.bar.Finish(err)
		it.barKeys = nil
	}
}

// Close ends the iteration early: it draws the progress bar's last line
// (WithProgress). Leaving the loop after Next returned false needs no
// Close; calling it then, or twice, does nothing.
func (it *Iter) Close() {
	it.ended = true
	it.endBar(it.err)
}

// RunIter plans a run whose partitions are processed and merged one by one
// as Next is called. Each partition is merged once, into main-node buffers
// allocated and preprocessed once at the first step, with the parameters
// in force when it was processed: a run of P non-empty partitions calls
// each UDF's Merge P times. UDFs need Merge or nav buffers only (MergeAll
// alone cannot merge one partition at a time).
func RunIter(ds Dataset, udfs []UDF, opts ...RunOption) (_ *Iter, err error) {
	defer recoverPanic(&err)
	p, err := plan(ds, udfs, opts)
	if err != nil {
		return nil, err
	}
	for _, b := range p.main {
		if _, ok := b.u.(Merger); !ok && !b.navOnly() {
			return nil, &UDFError{UDF: b.spec.Name, Step: "merge", Err: fmt.Errorf("RunIter merges one partition at a time and needs Merge (MergeAll alone cannot)")}
		}
	}
	return &Iter{p: p, parts: p.nonEmpty(), specs: append([]udfSpec(nil), p.ri.UDFs...)}, nil
}

// UpdateUDF replaces UDF i of the run for the partitions still to come; it
// must have the same name (only parameters change).
func (it *Iter) UpdateUDF(i int, u UDF) error {
	if i < 0 || i >= len(it.specs) {
		return fmt.Errorf("udfbridge: UpdateUDF: no UDF %d in a run of %d", i, len(it.specs))
	}
	if u.Name() != it.specs[i].Name {
		return fmt.Errorf("udfbridge: UpdateUDF: UDF %d is %s, not %s", i, it.specs[i].Name, u.Name())
	}
	params, err := u.Params()
	if err != nil {
		return &UDFError{UDF: u.Name(), Step: "params", Err: err}
	}
	it.specs[i] = udfSpec{Name: u.Name(), Params: params}
	return nil
}

// Next processes and merges the next partition and reports whether there
// is a step to read with Partial. A run with no non-empty partition has
// one step. A panic of UDF code run here (Merge, Preprocess and
// GetResults on the main node) ends the iteration with a
// *sched.PanicError holding its stack.
func (it *Iter) Next(ctx context.Context) (ok bool) {
	if it.ended || it.err != nil {
		return false
	}
	defer func() {
		if r := recover(); r != nil {
			it.err, ok = &sched.PanicError{Value: r, Stack: debug.Stack()}, false
			it.endBar(it.err)
		}
	}()
	if err := it.startBar(); err != nil {
		it.err = err
		return false
	}
	if err := it.step(ctx); err != nil {
		it.err = err
		it.endBar(err)
		return false
	}
	if it.bar != nil && it.barKeys != nil {
		it.bar.Posttask(it.barKeys[max(it.done-1, 0)], nil, nil, 0)
	}
	if it.ended {
		it.endBar(nil)
	}
	return true
}

func (it *Iter) step(ctx context.Context) error {
	total := len(it.parts)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("udfbridge: run cancelled after %d of %d partitions: %w", it.done, total, err)
	}
	ri := it.p.ri.with(append([]udfSpec(nil), it.specs...), it.p.ri.ROI)
	if it.acc == nil {
		mg, err := newMerger(it.p.ri, nil)
		if err != nil {
			return err
		}
		r := len(ri.roiFrames(0, ri.n()))
		for _, b := range mg.bs {
			dest, err := mg.target(b, 0, r)
			if err != nil {
				return err
			}
			it.acc = append(it.acc, dest)
		}
		it.mg, it.valid = mg, make([]bool, ri.n())
	}
	main, err := ri.build(ri.mainMeta())
	if err != nil {
		return err
	}
	if it.done < total {
		i := it.parts[it.done]
		g := graph.New(1)
		k := graph.BlockKey("udf-partition", i)
		if err := g.Set(k, partitionNode(&partOp{ri: ri, Part: i, Start: it.p.bounds[i], Stop: it.p.bounds[i+1]})); err != nil {
			return err
		}
		vals, err := it.p.compute(ctx, g, []graph.Key{k}, false)
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("udfbridge: run cancelled after %d of %d partitions: %w", it.done, total, err)
			}
			return err
		}
		c := vals[0].(*chunk)
		for u, b := range main {
			if err := it.mg.mergeInto(b, it.acc[u], c.NavOrigin, c, c.Bufs[u], slices.Clone(it.valid)); err != nil {
				return err
			}
		}
		it.mg.markValid(it.valid, c.NavOrigin, c.NavSize)
		it.merged += c.NavSize
		it.done++
	}
	it.ended = it.done >= total
	// The step's results: get_results on a copy of the merged rows (a run
	// with roi = damage), so that later merges do not change them.
	damage := slices.Clone(it.valid)
	snap := &chunk{NavSize: it.merged}
	for u, b := range main {
		m := make(map[string]*nd.Array, len(it.acc[u]))
		for _, d := range b.decls {
			a, ok := it.acc[u][d.Name]
			if !ok {
				continue
			}
			if d.Kind == Nav {
				if a, err = rowsView(a, 0, it.merged); err != nil {
					return err
				}
			}
			m[d.Name] = a.Copy()
		}
		snap.Bufs = append(snap.Bufs, m)
	}
	fp := &runPlan{ri: ri.with(ri.UDFs, damage), cfg: it.p.cfg, main: main, bounds: it.p.bounds}
	res, err := fp.finish(snap, damage)
	if err != nil {
		return err
	}
	d, _ := nd.FromSlice(damage, ri.NavShape...)
	it.cur = &Partial{Results: res, Damage: d, Done: it.done, Total: total}
	return nil
}

// Partial returns the current step's results.
func (it *Iter) Partial() *Partial { return it.cur }

// Err returns the error that ended the iteration, if any.
func (it *Iter) Err() error { return it.err }
