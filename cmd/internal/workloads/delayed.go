package workloads

import (
	"fmt"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
)

// The functions of Dask's delayed tutorial, wrapped once at package level
// so that a worker process that links this package has the same ops.
func add(a, b int) int { return a + b }
func square(x int) int { return x * x }

// The sum of squares is pure, so that its keys, and the golden pictures
// drawn from them, are the same on every run.
var (
	delayedAdd    = delayed.Fn2("workloads.add", add, delayed.Pure())
	delayedSquare = delayed.Fn1("workloads.square", square, delayed.Pure())
	// delayed_tree's additions are impure (pure=False in the baseline, and
	// the default), so every Build gives fresh keys and no scheduler can
	// reuse a result.
	delayedAddImpure = delayed.Fn2("workloads.add", add, delayed.Impure())
)

// TreeLeaves is the number of leaves of delayed-tree; it has 2*TreeLeaves-1
// tasks.
const TreeLeaves = 1 << 15

// sumSquaresWorkload is the tutorial's first picture.
func sumSquaresWorkload() *Workload {
	return &Workload{
		Name: "delayed-sum-squares",
		Doc:  "add(square(2), square(3)) = 13, the first example of Dask's delayed tutorial",
		Build: func() (*graph.Graph, []graph.Key, error) {
			return delayedGraph(SumSquares(2, 3))
		},
		Check: func(vals []any) error { return checkInt(vals, square(2)+square(3)) },
		Tasks: 3,
	}
}

// treeWorkload is the delayed group of bench/dask/dask_bench.py.
func treeWorkload() *Workload {
	return &Workload{
		Name:      "delayed-tree",
		BenchName: "delayed_tree_65535",
		Doc:       "a binary tree of impure additions over add(i, 1) for i < 32768, as bench/dask/dask_bench.py's delayed group",
		Build: func() (*graph.Graph, []graph.Key, error) {
			return delayedGraph(Tree(TreeLeaves))
		},
		// Σ_{i<n} (i+1) = n(n+1)/2.
		Check: func(vals []any) error { return checkInt(vals, TreeLeaves*(TreeLeaves+1)/2) },
		Tasks: 2*TreeLeaves - 1,
	}
}

// SumSquares is add(square(x), square(y)).
func SumSquares(x, y int) delayed.Delayed[int] {
	return delayedAdd(delayedSquare(delayed.Lit(x)), delayedSquare(delayed.Lit(y)))
}

// Tree is bench/dask/dask_bench.py's tree_graph: leaves add(i, 1) for i < n,
// then levels of pairwise additions to one root, every call impure. An odd
// level carries its last value up, so any n > 0 gives 2n-1 tasks.
func Tree(n int) delayed.Delayed[int] {
	level := make([]delayed.Delayed[int], n)
	for i := range level {
		level[i] = delayedAddImpure(delayed.Lit(i), delayed.Lit(1))
	}
	for len(level) > 1 {
		next := level[:0]
		for i := 0; i+1 < len(level); i += 2 {
			next = append(next, delayedAddImpure(level[i], level[i+1]))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return level[0]
}

func delayedGraph(d delayed.Delayed[int]) (*graph.Graph, []graph.Key, error) {
	g, err := d.Graph()
	if err != nil {
		return nil, nil, err
	}
	return g, []graph.Key{d.Key()}, nil
}

func checkInt(vals []any, want int) error {
	if len(vals) != 1 {
		return fmt.Errorf("got %d values, want 1", len(vals))
	}
	if got, ok := vals[0].(int); !ok || got != want {
		return fmt.Errorf("got %v (%T), want %d", vals[0], vals[0], want)
	}
	return nil
}
