// Package optimize holds pure graph-to-graph passes: Cull, Inline, Fuse,
// the Optimize pipeline that runs them, and Order, the static priorities
// schedulers run tasks by. A pass never modifies its input graph (it may
// return the input itself when it has nothing to change) and returns the
// dependency information of its output for the next pass.
//
// # Passes
//
// Cull keeps what the requested keys need. Inline substitutes literal nodes
// into the arguments of their dependents, retargets references to aliases,
// and turns tasks whose op implements Cheap into nested arguments when they
// depend on constants only. Fuse merges linear chains (a task whose only
// dependency is a task with only that dependent) into one task whose
// arguments nest the lower tasks. Optimize is Cull, then Inline, then Fuse,
// keeping the requested keys; it is what Compute runs by default.
//
// Blockwise fusion (a chain of elementwise array operations as one task per
// output block) is not a pass of this package: package chunkarray does it
// while it builds its graph, where each layer still says that it is
// elementwise, and hands Optimize a graph that already has one fused task
// per block (see "Blockwise fusion" in chunkarray's doc). A pass here would
// see only tasks, and would have to recognise elementwise ones by their
// shape, which the graph's model forbids (nodes have explicit kinds);
// chunkarray.WithOptimize(false) turns both off, as Dask's
// optimize_graph=False does.
//
// Fused and inlined tasks are ordinary graph.Nested arguments, so the
// result encodes to JSON and runs on a remote worker like any graph. A
// fused task's op is wrapped in a Fused op that keeps its original key:
// when it fails or panics, the error (*FusedError, which package sched
// reports as a *sched.TaskError under that key) names the task that
// failed, not the top of its chain. Nesting is bounded by MaxNestDepth, which cuts long chains into
// several tasks, because every consumer of arguments (graph.Resolve, the
// JSON decoder, NodesEqual) recurses on them.
//
// # Dependency information
//
// Passes return *graph.Deps (dependencies and dependents by node index in
// compact form) with their graph, so that Optimize computes it once per
// pass output and never from a map of sets, and Order and the schedulers
// take it as it is. Keys named in keep that a graph lacks are a
// *graph.MissingKeyError rather than ignored: a misspelt key would
// otherwise let the value the caller wants be fused away without a word.
//
// # Why depth-first post-order
//
// Order gives each node a priority; a scheduler runs the ready task of
// lowest priority. The order is a depth-first post-order from the outputs,
// which finishes a subgraph before it starts the next: on a reduction tree
// of width w and depth k, it holds O(k) intermediate values at once where a
// breadth-first order (every leaf, then every pair, ...) holds O(w). That
// bound is what keeps LiberTEM-style merges and array sums from loading
// every chunk before reducing any (see live_test.go for the figures).
//
// Among a node's dependencies, the one whose subgraph needs the most live
// values is visited first: the Sethi–Ullman rule of register allocation.
// Finishing the greedy subgraph while nothing else is held costs its need;
// finishing it last costs its need plus one value per subgraph already done.
// On trees this order reaches the least peak of live values of all orders
// (order_test.go checks it against a search over every topological order).
// Ties go to the tallest dependency, then to argument order, so that
// merges run left to right.
//
// # Rejected alternatives
//
//   - Tallest dependency first (the first version of Order): it starts a
//     long cheap chain before a short bushy tree, holding the chain's value
//     through the whole tree. Need-first never does worse on trees.
//   - Breadth-first or insertion order: O(width) live values on reductions.
//   - The full dask.order, which also weighs how many dependents a node
//     has and switches between "finish" and "start" strategies for wide
//     shared dependencies: it is several hundred lines of heuristics, and
//     the DFS post-order already gives the O(depth) bound the schedulers
//     rely on. It can replace Order later behind the same signature.
//   - Fusing into a new "fused" op holding a list of sub-tasks: a second
//     representation for every scheduler and the codec to learn, where
//     graph.Nested already says "run this in place". Fused is not that: it
//     wraps one nested op and is an ordinary registered op.
//   - Nested ops left bare, as the first version did: an error inside a
//     fused chain then came back under the top task's key and op, so
//     inc(add(fails(3), 1)) reported "inc" with fails's message.
//   - Fusing without a depth bound: a 100,000-task chain would become one
//     argument tree 100,000 levels deep that no encoder accepts.
//   - Inlining every task with literal arguments: most are real work (a
//     chunk load takes a file name); only ops that say they are Cheap are
//     copied into their dependents.
package optimize
