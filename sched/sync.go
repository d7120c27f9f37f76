package sched

import (
	"context"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// Sync runs every task on the calling goroutine, one at a time, in the order
// given by optimize.Order: deterministic, for debugging and tests. The zero
// value is ready to use.
type Sync struct{}

var _ Scheduler = Sync{}

// Get runs g and returns the values of keys.
func (Sync) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) (out []any, err error) {
	cbs := CallbacksFrom(ctx)
	for _, c := range cbs {
		if c.Start != nil {
			c.Start(g)
		}
	}
	defer func() {
		for _, c := range cbs {
			if c.Finish != nil {
				c.Finish(err)
			}
		}
	}()
	d, err := g.ValidateDeps()
	if err != nil {
		return nil, err
	}
	want := make([]int32, len(keys))
	wanted := make([]bool, g.Len())
	for i, k := range keys {
		j, ok := g.Index(k)
		if !ok {
			return nil, &graph.MissingKeyError{Key: k}
		}
		want[i] = int32(j)
		wanted[j] = true
	}
	prio, err := optimize.Order(g, d)
	if err != nil {
		return nil, err
	}
	order := make([]int32, len(prio))
	for i, p := range prio {
		order[p] = int32(i)
	}
	n := g.Len()
	vals := make([]any, n)
	remaining := make([]int32, n) // dependents not yet run
	for i := 0; i < n; i++ {
		remaining[i] = int32(len(d.Users(i)))
	}
	lookup := func(k graph.Key) any {
		j, _ := g.Index(k)
		return vals[j]
	}
	var args []any
	for _, i := range order {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := g.Key(int(i))
		node := g.At(int(i))
		for _, c := range cbs {
			if c.Pretask != nil {
				c.Pretask(k, 0)
			}
		}
		var v any
		var terr error
		switch node.Kind {
		case graph.KindLiteral:
			v = node.Value
		case graph.KindAlias:
			v = lookup(node.Target)
		case graph.KindTask:
			args, terr = graph.Resolve(ctx, args, node.Args, lookup)
			if terr == nil {
				v, terr = runTask(ctx, k, node, args)
			} else {
				terr = &TaskError{Key: k, Op: node.Op.Name(), Err: terr}
			}
			clear(args)
		}
		for _, c := range cbs {
			if c.Posttask != nil {
				c.Posttask(k, v, terr, 0)
			}
		}
		if terr != nil {
			return nil, terr
		}
		vals[i] = v
		for _, j := range d.Of(int(i)) {
			remaining[j]--
			if remaining[j] == 0 && !wanted[j] {
				vals[j] = nil
				for _, c := range cbs {
					if c.Release != nil {
						c.Release(g.Key(int(j)))
					}
				}
			}
		}
	}
	out = make([]any, len(keys))
	for i, j := range want {
		out[i] = vals[j]
	}
	return out, nil
}
