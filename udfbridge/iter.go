package udfbridge

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
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
	acc   *chunk
	cur   *Partial
	err   error
	ended bool
}

// RunIter plans a run whose partitions are processed and merged one by one
// as Next is called.
func RunIter(ds Dataset, udfs []UDF, opts ...RunOption) (*Iter, error) {
	p, err := plan(ds, udfs, opts)
	if err != nil {
		return nil, err
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
// one step.
func (it *Iter) Next(ctx context.Context) bool {
	if it.ended || it.err != nil {
		return false
	}
	total := len(it.parts)
	if err := ctx.Err(); err != nil {
		it.err = fmt.Errorf("udfbridge: run cancelled after %d of %d partitions: %w", it.done, total, err)
		return false
	}
	ri := it.p.ri.with(append([]udfSpec(nil), it.specs...), it.p.ri.ROI)
	var in []*chunk
	if it.acc != nil {
		in = append(in, it.acc)
	}
	if it.done < total {
		i := it.parts[it.done]
		g := graph.New(1)
		k := graph.BlockKey("udf-partition", i)
		if err := g.Set(k, partitionNode(&partOp{ri: ri, Part: i, Start: it.p.bounds[i], Stop: it.p.bounds[i+1]})); err != nil {
			it.err = err
			return false
		}
		vals, err := it.p.scheduler().Get(ctx, g, []graph.Key{k})
		if err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("udfbridge: run cancelled after %d of %d partitions: %w", it.done, total, err)
			}
			it.err = err
			return false
		}
		in = append(in, vals[0].(*chunk))
	}
	acc, err := mergeChunks(ri, in, false)
	if err != nil {
		it.err = err
		return false
	}
	it.acc = acc
	if it.done < total {
		it.done++
	}
	it.ended = it.done >= total
	// Damage: the ROI positions of the merged partitions.
	n := ri.n()
	damage := make([]bool, n)
	if acc.Hi > acc.Lo || total > 0 {
		for _, i := range it.parts[:it.done] {
			for f := it.p.bounds[i]; f < it.p.bounds[i+1]; f++ {
				damage[f] = ri.ROI == nil || ri.ROI[f]
			}
		}
	}
	main, err := ri.build(ri.mainMeta())
	if err != nil {
		it.err = err
		return false
	}
	fp := &runPlan{ri: ri.with(ri.UDFs, damage), cfg: it.p.cfg, main: main, bounds: it.p.bounds}
	res, err := fp.finish(acc, damage)
	if err != nil {
		it.err = err
		return false
	}
	d, _ := nd.FromSlice(damage, ri.NavShape...)
	it.cur = &Partial{Results: res, Damage: d, Done: it.done, Total: total}
	return true
}

// Partial returns the current step's results.
func (it *Iter) Partial() *Partial { return it.cur }

// Err returns the error that ended the iteration, if any.
func (it *Iter) Err() error { return it.err }
