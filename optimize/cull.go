package optimize

import "github.com/tessera-go/tessera/graph"

// Cull returns the part of g needed to compute keys, with its
// dependencies. g is not modified. A requested key that g lacks is a
// *graph.MissingKeyError.
func Cull(g *graph.Graph, keys []graph.Key) (*graph.Graph, *graph.Deps, error) {
	d, err := g.Dependencies()
	if err != nil {
		return nil, nil, err
	}
	seen := make([]bool, g.Len())
	var keep, stack []int32
	for _, k := range keys {
		i, ok := g.Index(k)
		if !ok {
			return nil, nil, &graph.MissingKeyError{Key: k}
		}
		if !seen[i] {
			seen[i] = true
			stack = append(stack, int32(i))
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		keep = append(keep, i)
		for _, j := range d.Of(int(i)) {
			if !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	if len(keep) == g.Len() {
		return g, d, nil
	}
	out := g.Subgraph(keep)
	od, err := out.Dependencies()
	if err != nil {
		return nil, nil, err
	}
	return out, od, nil
}
