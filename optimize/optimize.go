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
	// Blockwise fusion of array layers belongs here, once it exists: after
	// Inline, so that constant chunks are already arguments, and before
	// Fuse, which would hide elementwise chains inside nested arguments
	// where the blockwise pass can no longer see them.
	return fuse(g, d, keys)
}
