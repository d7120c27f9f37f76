package optimize

import (
	"maps"

	"github.com/tessera-go/tessera/graph"
)

// MaxNestDepth bounds how deeply Fuse and Inline nest task arguments. A
// fused chain longer than this is cut into several fused tasks, each at most
// MaxNestDepth levels deep. Without the bound a 100,000-task chain would
// become one argument tree 100,000 levels deep: graph.Resolve, NodesEqual
// and the JSON encoder all recurse on it, and graph.ReadJSON refuses trees
// deeper than 256 levels, so the optimized graph could not be saved or sent
// to a worker. 64 levels keep the per-task scheduling overhead of a chain
// negligible (one task per 64 links) while staying far inside those limits.
const MaxNestDepth = 64

// maxInlineSize bounds the number of argument nodes that inlining a cheap
// task may copy into each dependent. Inlined trees are shared between
// dependents in memory, but a chain of cheap tasks each using the previous
// one twice would double the tree at every level in the JSON encoding and
// in the work done by graph.Resolve.
const maxInlineSize = 256

// sub is the replacement of one key inside arguments: the argument that
// stands for it, its nesting depth and its size in argument nodes.
type sub struct {
	arg   graph.Arg
	depth int32
	size  int32
	ok    bool
}

// rewrite returns args with every reference for which repl reports a
// replacement substituted, the nesting depth of the result and its size in
// argument nodes. It copies only the argument slices on the path to a
// replaced reference and returns args itself when nothing changed, so the
// input graph's slices are never modified. It recurses on the argument
// structure of one node, never along a chain of nodes.
func rewrite(args []graph.Arg, repl func(graph.Key) sub) (out []graph.Arg, depth, size int32, changed bool) {
	for i := range args {
		a := &args[i]
		var na graph.Arg
		var d, s int32
		var ch bool
		switch a.Kind {
		case graph.ArgRef:
			if r := repl(a.Ref); r.ok {
				na, d, s, ch = r.arg, r.depth, r.size, true
			} else {
				s = 1
			}
		case graph.ArgList, graph.ArgNested:
			var l []graph.Arg
			l, d, s, ch = rewrite(a.List, repl)
			d++
			s++
			if ch {
				na = *a
				na.List = l
			}
		default:
			s = 1
		}
		if d > depth {
			depth = d
		}
		size += s
		if ch {
			if !changed {
				out = make([]graph.Arg, len(args))
				copy(out, args)
				changed = true
			}
			out[i] = na
		}
	}
	if !changed {
		out = args
	}
	return out, depth, size, changed
}

// noSub replaces nothing; rewrite(args, noSub) measures args.
func noSub(graph.Key) sub { return sub{} }

// sameResources reports whether two nodes ask for the same resources; nil
// and an empty map are the same request.
func sameResources(a, b map[string]float64) bool { return maps.Equal(a, b) }

// keepSet returns, by node index, which nodes are named in keep. A key that
// g lacks is a *graph.MissingKeyError: a misspelt key would otherwise let
// the value the caller wants be fused or inlined away silently.
func keepSet(g *graph.Graph, keep []graph.Key) ([]bool, error) {
	set := make([]bool, g.Len())
	for _, k := range keep {
		i, ok := g.Index(k)
		if !ok {
			return nil, &graph.MissingKeyError{Key: k}
		}
		set[i] = true
	}
	return set, nil
}

// topoOrder returns the node indices with every node after its
// dependencies (Kahn's algorithm, ties in insertion order), or the
// *graph.CycleError that g.Validate reports.
func topoOrder(g *graph.Graph, d *graph.Deps) ([]int32, error) {
	n := g.Len()
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		pending[i] = int32(len(d.Of(i)))
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		for _, u := range d.Users(int(queue[q])) {
			pending[u]--
			if pending[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if len(queue) != n {
		return nil, g.Validate()
	}
	return queue, nil
}
