package sched

import "github.com/tessera-go/tessera/graph"

// Plan is the part of Get that every scheduler shares before running
// anything: it validates g (returning graph.Validate's error for a bad
// graph), finds the node of every requested key (a *graph.MissingKeyError
// for one that is absent), and drops the nodes that keys do not need. It
// returns the graph to run, its dependencies, and want[i], the index of
// keys[i] in that graph. g is not modified; when nothing is dropped the
// returned graph is g itself.
//
// Schedulers outside this package (sched/distributed) call it so that they
// fail on bad input exactly as Threaded does.
func Plan(g *graph.Graph, keys []graph.Key) (*graph.Graph, *graph.Deps, []int32, error) {
	d, err := g.ValidateDeps()
	if err != nil {
		return nil, nil, nil, err
	}
	want := make([]int32, len(keys))
	for i, k := range keys {
		j, ok := g.Index(k)
		if !ok {
			return nil, nil, nil, &graph.MissingKeyError{Key: k}
		}
		want[i] = int32(j)
	}
	return cull(g, d, keys, want)
}
