package optimize

import "github.com/tessera-go/tessera/graph"

// Cheap is implemented by ops that cost less to run again inside each of
// their dependents than to schedule as tasks of their own: building a small
// constant, a slice header, a dtype conversion of a scalar. Inline inlines a
// task whose op reports Cheap() == true when all its arguments are
// literals (after literals have been inlined), so it never duplicates work
// that depends on the graph's data. Ops that do not implement Cheap are
// never inlined.
type Cheap interface {
	Cheap() bool
}

// Inline returns g with constants substituted into their dependents:
//   - a literal node becomes a literal argument (graph.Lit) of every task
//     that refers to it;
//   - a reference to an alias is retargeted to the node the alias chain
//     ends at (or replaced by that node's substitute);
//   - a task whose op is Cheap, that has no Resources, and whose arguments
//     contain no reference once the above is done becomes a nested argument
//     (graph.Nested) of every dependent, unless that would nest deeper than
//     MaxNestDepth or copy more than a few hundred arguments.
//
// Substituted nodes are then dropped, except those in keep, those without
// dependents (they are outputs; removing them is Cull's job) and targets of
// aliases that stay. Aliases that stay point straight at the end of their
// chain. g is not modified; when nothing changes, g itself is returned. A
// key of keep that g lacks is a *graph.MissingKeyError; a cycle is a
// *graph.CycleError.
func Inline(g *graph.Graph, keep []graph.Key) (*graph.Graph, *graph.Deps, error) {
	d, err := g.Dependencies()
	if err != nil {
		return nil, nil, err
	}
	return inline(g, d, keep)
}

func inline(g *graph.Graph, d *graph.Deps, keep []graph.Key) (*graph.Graph, *graph.Deps, error) {
	kept, err := keepSet(g, keep)
	if err != nil {
		return nil, nil, err
	}
	order, err := topoOrder(g, d)
	if err != nil {
		return nil, nil, err
	}
	n := g.Len()
	// What replaces a reference to node i is subs[subAt[i]] (subAt[i] ==
	// 0: nothing). Kept apart, as are the rewritten args (allocated at the
	// first change), because most nodes of a large graph have neither and
	// a slice of n full entries is most of the pass's memory traffic.
	subAt := make([]int32, n)
	subs := []sub{{}}
	final := make([]int32, n) // where node i's alias chain ends (i itself for non-aliases)
	var args [][]graph.Arg    // the rewritten args of tasks, when they changed
	setSub := func(i int32, s sub) {
		subAt[i] = int32(len(subs))
		subs = append(subs, s)
	}
	changed := false
	repl := func(k graph.Key) sub {
		i, _ := g.Index(k)
		return subs[subAt[i]]
	}
	for _, i := range order {
		nd := g.At(int(i))
		final[i] = i
		switch nd.Kind {
		case graph.KindLiteral:
			setSub(i, sub{arg: graph.Lit(nd.Value), size: 1, ok: true})
		case graph.KindAlias:
			t := d.Of(int(i))[0] // an alias's one dependency is its target
			final[i] = final[t]
			if f := subAt[final[i]]; f != 0 {
				subAt[i] = f
			} else {
				setSub(i, sub{arg: graph.Ref(g.Key(int(final[i]))), size: 1, ok: true})
			}
		case graph.KindTask:
			// Look references up only where one of them is substituted
			// (on a graph of a million tasks a map lookup per reference
			// is most of the pass), and measure args only for a task
			// that may be nested.
			cheap := isCheap(nd.Op) && len(nd.Resources) == 0
			hit := hasSub(d.Of(int(i)), subAt)
			if !cheap && !hit {
				continue
			}
			r := noSub
			if hit {
				r = repl
			}
			a, depth, size, ch := rewrite(nd.Args, r)
			if ch {
				if args == nil {
					args = make([][]graph.Arg, n)
				}
				args[i] = a
				changed = true
			}
			if cheap && depth < MaxNestDepth && size < maxInlineSize && !hasRef(a) {
				setSub(i, sub{arg: graph.Nested(nd.Op, a...), depth: depth + 1, size: size + 1, ok: true})
			}
		}
	}

	remains := make([]bool, n)
	dropped := 0
	for i := 0; i < n; i++ {
		remains[i] = subAt[i] == 0 || kept[i] || len(d.Users(i)) == 0
	}
	for i := 0; i < n; i++ {
		if remains[i] && g.At(i).Kind == graph.KindAlias {
			remains[final[i]] = true
			if g.At(i).Target != g.Key(int(final[i])) {
				changed = true
			}
		}
	}
	for i := 0; i < n; i++ {
		if !remains[i] {
			dropped++
		}
	}
	if dropped == 0 && !changed {
		return g, d, nil
	}
	out := graph.New(n - dropped)
	for i := 0; i < n; i++ {
		if !remains[i] {
			continue
		}
		nd := *g.At(i)
		switch nd.Kind {
		case graph.KindTask:
			if args != nil && args[i] != nil {
				nd.Args = args[i]
			}
		case graph.KindAlias:
			nd.Target = g.Key(int(final[i]))
		}
		if err := out.Set(g.Key(i), nd); err != nil {
			return nil, nil, err
		}
	}
	od, err := out.Dependencies()
	if err != nil {
		return nil, nil, err
	}
	return out, od, nil
}

// hasSub reports whether one of deps is substituted.
func hasSub(deps []int32, subAt []int32) bool {
	for _, j := range deps {
		if subAt[j] != 0 {
			return true
		}
	}
	return false
}

func isCheap(op graph.Op) bool {
	c, ok := op.(Cheap)
	return ok && c.Cheap()
}

func hasRef(args []graph.Arg) bool {
	for i := range args {
		switch args[i].Kind {
		case graph.ArgRef:
			return true
		case graph.ArgList, graph.ArgNested:
			if hasRef(args[i].List) {
				return true
			}
		}
	}
	return false
}
