package optimize

import "github.com/tessera-go/tessera/graph"

// Optimize is the default pipeline that Compute runs before scheduling:
// Cull to keys, Inline constants and cheap ops, then Fuse linear chains,
// keeping keys addressable throughout. It returns the optimized graph and
// its dependencies. g is not modified. A key that g lacks is a
// *graph.MissingKeyError; a cycle among the needed nodes is a
// *graph.CycleError.
func Optimize(g *graph.Graph, keys []graph.Key) (*graph.Graph, *graph.Deps, error) {
	g, d, err := Cull(g, keys)
	if err != nil {
		return nil, nil, err
	}
	// Inline first: a literal or alias between two tasks would otherwise
	// split a chain that Fuse can merge. Inline's topological pass is also
	// where a cycle is caught, so fuse below may skip validation.
	if g, d, err = inline(g, d, keys); err != nil {
		return nil, nil, err
	}
	// Blockwise fusion is not here: chunkarray has already fused
	// elementwise chains while building g (see chunkarray's doc), so the
	// chains Fuse finds are what blockwise fusion left, e.g. a file read
	// feeding a slice.
	return fuse(g, d, keys)
}
