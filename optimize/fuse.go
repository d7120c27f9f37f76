package optimize

import "github.com/tessera-go/tessera/graph"

// Fuse returns g with its linear chains fused: a task whose only dependency
// is a task with exactly one dependent is merged into it, and so on down
// the chain. The fused task keeps the key, op and resources of the top of
// the chain; the tasks below it become nested arguments (graph.Nested) in
// place of the reference to them, each under a Fused op that remembers its
// key, so that its failure is reported under its own key and op rather
// than the top's; the fused graph still encodes to JSON and runs on any
// scheduler.
//
// A task p is fused into its dependent c only when all of these hold:
//   - both are tasks (literals and aliases are Inline's business, and stay
//     barriers here);
//   - p is c's only dependency and c refers to it once (fusing x into
//     add(x, x) would compute x twice);
//   - c is p's only dependent;
//   - p is not in keep: its value must stay addressable;
//   - p's op is not Pinned;
//   - p and c ask for the same Resources: a GPU task fused into a CPU task
//     would run where the GPU is not.
//
// Chains longer than MaxNestDepth are cut into several fused tasks. The
// pass is iterative and linear in the size of g, so a chain of a million
// tasks is fine. g is not modified; when nothing fuses, g itself is
// returned. A key of keep that g lacks is a *graph.MissingKeyError; a cycle
// is a *graph.CycleError.
func Fuse(g *graph.Graph, keep []graph.Key) (*graph.Graph, *graph.Deps, error) {
	d, err := g.ValidateDeps()
	if err != nil {
		return nil, nil, err
	}
	return fuse(g, d, keep)
}

// Pinned is implemented by ops whose tasks must stay tasks of their own,
// addressable by their keys: Fuse never merges such a task into its
// dependent. The distributed client's stand-ins for values held on the
// cluster are pinned: fused, they would be computed instead of read where
// they are.
type Pinned interface {
	Pinned() bool
}

func isPinned(op graph.Op) bool {
	p, ok := op.(Pinned)
	return ok && p.Pinned()
}

// fuse is Fuse for an acyclic g whose dependencies d are known.
func fuse(g *graph.Graph, d *graph.Deps, keep []graph.Key) (*graph.Graph, *graph.Deps, error) {
	kept, err := keepSet(g, keep)
	if err != nil {
		return nil, nil, err
	}
	n := g.Len()
	// down[c] is the dependency fused into c, or -1; up[p] says that p is
	// fused into its dependent. Every node has at most one of each, so the
	// links form disjoint paths: the chains.
	down := make([]int32, n)
	up := make([]bool, n)
	links := 0
	var refs []graph.Key
	for c := 0; c < n; c++ {
		down[c] = -1
		cn := g.At(c)
		ds := d.Of(c)
		if cn.Kind != graph.KindTask || len(ds) != 1 {
			continue
		}
		p := ds[0]
		pn := g.At(int(p))
		if kept[p] || pn.Kind != graph.KindTask || isPinned(pn.Op) || len(d.Users(int(p))) != 1 {
			continue
		}
		if refs = cn.Refs(refs[:0]); len(refs) != 1 {
			continue
		}
		if !sameResources(cn.Resources, pn.Resources) {
			continue
		}
		down[c] = p
		up[p] = true
		links++
	}
	if links == 0 {
		return g, d, nil
	}

	out := graph.New(n - links)
	emit := func(i int32, args []graph.Arg) error {
		nd := *g.At(int(i))
		nd.Args = args
		return out.Set(g.Key(int(i)), nd)
	}
	var chain []int32
	for t := int32(0); t < int32(n); t++ {
		if up[t] {
			continue // emitted with the top of its chain
		}
		if down[t] < 0 {
			if err := out.Set(g.Key(int(t)), *g.At(int(t))); err != nil {
				return nil, nil, err
			}
			continue
		}
		chain = chain[:0]
		for c := t; c >= 0; c = down[c] {
			chain = append(chain, c)
		}
		// Walk up from the bottom, wrapping the fused part so far into a
		// nested argument of the next task.
		cur := chain[len(chain)-1]
		curArgs := g.At(int(cur)).Args
		_, curDepth, _, _ := rewrite(curArgs, noSub)
		for k := len(chain) - 2; k >= 0; k-- {
			c := chain[k]
			cn := g.At(int(c))
			curKey := g.Key(int(cur))
			r := sub{arg: graph.Nested(fusedOp(g.At(int(cur)).Op, curKey), curArgs...), depth: curDepth + 1, ok: true}
			args, depth, _, _ := rewrite(cn.Args, func(k graph.Key) sub {
				if k == curKey {
					return r
				}
				return sub{}
			})
			if depth > MaxNestDepth {
				// Cut the chain: the part below c becomes a task of its own.
				if err := emit(cur, curArgs); err != nil {
					return nil, nil, err
				}
				args = cn.Args
				_, depth, _, _ = rewrite(args, noSub)
			}
			cur, curArgs, curDepth = c, args, depth
		}
		if err := emit(cur, curArgs); err != nil {
			return nil, nil, err
		}
	}
	od, err := out.Dependencies()
	if err != nil {
		return nil, nil, err
	}
	return out, od, nil
}

// fusedOp wraps the op of a task fused into another under its key. An op
// that is already a Fused keeps its original key.
func fusedOp(op graph.Op, key graph.Key) graph.Op {
	if f, ok := op.(*Fused); ok {
		return f
	}
	return &Fused{Op: op, Key: key}
}
