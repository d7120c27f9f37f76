package optimize

import (
	"sort"

	"github.com/tessera-go/tessera/graph"
)

// Order returns a static priority for every node of g, by node index: a
// permutation of 0..n-1 in which every node comes after its dependencies.
// Schedulers run ready tasks lowest priority first.
//
// The order is a depth-first post-order from the graph's outputs (nodes
// without dependents, in insertion order), visiting the dependencies of a
// node tallest subtree first. A reduction or merge tree is therefore
// finished branch by branch: both inputs of a merge are computed just before
// it, and at most O(depth) intermediate values are alive at once, where a
// breadth-first order would hold O(width). This is the core of what
// dask.order does; its refinements for wide shared dependencies are left
// out. d may be nil; it is computed then.
func Order(g *graph.Graph, d *graph.Deps) ([]int32, error) {
	if d == nil {
		var err error
		if d, err = g.ValidateDeps(); err != nil {
			return nil, err
		}
	}
	n := g.Len()
	height, err := heights(g, d)
	if err != nil {
		return nil, err
	}
	prio := make([]int32, n)
	for i := range prio {
		prio[i] = -1
	}
	next := int32(0)
	type frame struct {
		node int32
		deps []int32 // dependencies still to visit, in visiting order
	}
	var stack []frame
	visitOrder := func(i int32) []int32 {
		ds := d.Of(int(i))
		if len(ds) <= 1 {
			return ds
		}
		out := append([]int32(nil), ds...)
		sort.SliceStable(out, func(a, b int) bool { return height[out[a]] > height[out[b]] })
		return out
	}
	for s := 0; s < n; s++ {
		if len(d.Users(s)) != 0 || prio[s] >= 0 {
			continue
		}
		stack = append(stack[:0], frame{int32(s), visitOrder(int32(s))})
		prio[s] = -2 // on the stack
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.deps) == 0 {
				prio[top.node] = next
				next++
				stack = stack[:len(stack)-1]
				continue
			}
			j := top.deps[0]
			top.deps = top.deps[1:]
			if prio[j] != -1 {
				continue // done already (or on the stack, impossible without a cycle)
			}
			prio[j] = -2
			stack = append(stack, frame{j, visitOrder(j)})
		}
	}
	return prio, nil
}

// heights returns, for every node, the length of its longest dependency
// chain (0 for a node without dependencies), or a *graph.CycleError.
func heights(g *graph.Graph, d *graph.Deps) ([]int32, error) {
	n := g.Len()
	h := make([]int32, n)
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		pending[i] = int32(len(d.Of(i)))
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		i := queue[q]
		for _, u := range d.Users(int(i)) {
			if h[u] < h[i]+1 {
				h[u] = h[i] + 1
			}
			pending[u]--
			if pending[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if len(queue) != n {
		return nil, g.Validate() // reports the cycle
	}
	return h, nil
}
