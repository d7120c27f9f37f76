package optimize

import (
	"cmp"
	"slices"

	"github.com/tessera-go/tessera/graph"
)

// Order returns a static priority for every node of g, by node index: a
// permutation of 0..n-1 in which every node comes after its dependencies.
// Schedulers run ready tasks lowest priority first. d may be nil; it is
// computed then. A cycle is a *graph.CycleError.
//
// The order is a depth-first post-order from the graph's outputs (nodes
// without dependents, in insertion order). Each output is finished before
// the next is started, and the dependencies of a node are visited in
// decreasing order of need: the number of values that computing the
// dependency's subgraph alone keeps alive at its peak (the Sethi–Ullman
// number of register allocation, see the package documentation), then
// tallest first, then in argument order. On trees this order reaches the
// least peak of live values that any order reaches; on a reduction or merge
// tree it is O(depth), where a breadth-first order holds O(width).
func Order(g *graph.Graph, d *graph.Deps) ([]int32, error) {
	if d == nil {
		var err error
		if d, err = g.Dependencies(); err != nil {
			return nil, err
		}
	}
	n := g.Len()
	topo, err := topoOrder(g, d)
	if err != nil {
		return nil, err
	}

	// vis holds every node's dependencies in visiting order, in the same
	// compact layout as d; it is filled in topological order so that the
	// need and height of a node's dependencies are known when it is sorted.
	off := make([]int32, n+1)
	for i := 0; i < n; i++ {
		off[i+1] = off[i] + int32(len(d.Of(i)))
	}
	vis := make([]int32, off[n])
	need := make([]int32, n)
	height := make([]int32, n)
	byNeed := func(a, b int32) int {
		if c := cmp.Compare(need[b], need[a]); c != 0 {
			return c
		}
		return cmp.Compare(height[b], height[a])
	}
	for _, i := range topo {
		ds := vis[off[i]:off[i+1]]
		copy(ds, d.Of(int(i)))
		switch len(ds) {
		case 0:
		case 1:
		case 2:
			if byNeed(ds[0], ds[1]) > 0 {
				ds[0], ds[1] = ds[1], ds[0]
			}
		default:
			slices.SortStableFunc(ds, byNeed)
		}
		nd := int32(len(ds)) + 1 // all dependencies and the result at once
		h := int32(0)
		for j, x := range ds {
			nd = max(nd, need[x]+int32(j))
			h = max(h, height[x]+1)
		}
		need[i], height[i] = nd, h
	}

	prio := make([]int32, n)
	for i := range prio {
		prio[i] = -1 // not visited; -2 while on the stack
	}
	next := int32(0)
	type frame struct{ node, pos int32 } // pos: next entry of vis to visit
	var stack []frame
	for s := 0; s < n; s++ {
		if len(d.Users(s)) != 0 || prio[s] >= 0 {
			continue
		}
		stack = append(stack[:0], frame{int32(s), off[s]})
		prio[s] = -2
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.pos == off[top.node+1] {
				prio[top.node] = next
				next++
				stack = stack[:len(stack)-1]
				continue
			}
			j := vis[top.pos]
			top.pos++
			if prio[j] != -1 {
				continue // done already through another dependent
			}
			prio[j] = -2
			stack = append(stack, frame{j, off[j]})
		}
	}
	return prio, nil
}
