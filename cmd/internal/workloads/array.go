package workloads

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The array workloads of bench/dask/dask_bench.py (groups chunks, elementwise,
// normalize, graphbuild) and the pictures of Dask's array tutorial.

func arrayGraph(a *chunkarray.Array) (*graph.Graph, []graph.Key, error) {
	return chunkarray.BuildGraph([]*chunkarray.Array{a})
}

// pictureGraph is a's graph as dask.visualize(arr) draws it: every
// operation its own task (optimize_graph=False) and a's blocks as the
// outputs, with no finalize task (cmd/graphviz -optimize then shows what
// optimize.Optimize makes of it).
func pictureGraph(a *chunkarray.Array) (*graph.Graph, []graph.Key, error) {
	g, err := a.Graph(chunkarray.WithOptimize(false))
	if err != nil {
		return nil, nil, err
	}
	return g, a.Keys(), nil
}

// RandintSum is randint(0, 100, [500]*3, chunks=c).sum().
func RandintSum(c int) *chunkarray.Array {
	return chunkarray.Random(0).Integers(0, 100, []int{500, 500, 500}, c).Sum()
}

// SinColTimesT is (sin(im[:, 0]) * im.T).sum() with im = ones((n, n), chunks c).
func SinColTimesT(n, c int) *chunkarray.Array {
	im := chunkarray.Ones([]int{n, n}, nd.Float64, c)
	return im.Index(chunkarray.All(), chunkarray.At(0)).Sin().Mul(im.T()).Sum()
}

// Normalize is im / im.max(axis=(1, 2))[:, None, None] with im = ones((3,
// 1000, 1000), chunks=(1, 600, 600)).
func Normalize() *chunkarray.Array {
	im := chunkarray.Ones([]int{3, 1000, 1000}, nd.Float64, []int{1, 600, 600})
	m := im.Max(1, 2).Index(chunkarray.All(), chunkarray.NewAxis(), chunkarray.NewAxis())
	return im.Div(m)
}

// GraphBuild10k is ((ones((1000, 1000, 100), chunks=(10, 10, 100)) + 1) * 2).sum().
func GraphBuild10k() *chunkarray.Array {
	return chunkarray.Ones([]int{1000, 1000, 100}, nd.Float64, []int{10, 10, 100}).Add(1).Mul(2).Sum()
}

func scalarOf(vals []any) (float64, error) {
	if len(vals) != 1 {
		return 0, fmt.Errorf("got %d values, want 1", len(vals))
	}
	a, ok := vals[0].(*nd.Array)
	if !ok || a.Size() != 1 {
		return 0, fmt.Errorf("got %T, want a one-element *nd.Array", vals[0])
	}
	f, err := a.AsType(nd.Float64)
	if err != nil {
		return 0, err
	}
	v, err := nd.Values[float64](f)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// randintSumWorkload is randint(0, 100, [500]*3, chunks=c).sum().
func randintSumWorkload(c int) *Workload {
	const n3 = 500 * 500 * 500
	return &Workload{
		Name:      fmt.Sprintf("array-randint-sum-%d", c),
		BenchName: fmt.Sprintf("randint500^3_sum_chunks%d", c),
		Doc:       fmt.Sprintf("randint(0, 100, [500]*3, chunks=%d).sum()", c),
		Build:     func() (*graph.Graph, []graph.Key, error) { return arrayGraph(RandintSum(c)) },
		NChunks:   ceilDiv(500, c) * ceilDiv(500, c) * ceilDiv(500, c),
		// The values are the same for every chunking (one draw per
		// element index), so the sum is one number: check it lies
		// within 6σ of the mean 49.5·n (σ² = n·(100²-1)/12).
		Check: func(vals []any) error {
			v, err := scalarOf(vals)
			if err != nil {
				return err
			}
			mean, sd := 49.5*n3, math.Sqrt(n3*(100*100-1)/12.0)
			if math.Abs(v-mean) > 6*sd || v != math.Trunc(v) {
				return fmt.Errorf("sum %v, want %v ± %v", v, mean, 6*sd)
			}
			return nil
		},
	}
}

// arrayWorkloads are the other array workloads: the benchmarks of the
// elementwise, normalize and graphbuild groups, then two pictures.
func arrayWorkloads() []*Workload {
	const n3 = 500 * 500 * 500
	return []*Workload{{
		Name:      "array-ones-sum-50",
		BenchName: "ones500^3_sum_chunks50",
		Doc:       "ones([500]*3, chunks=50, dtype=int64).sum()",
		Build: func() (*graph.Graph, []graph.Key, error) {
			return arrayGraph(chunkarray.Ones([]int{500, 500, 500}, nd.Int64, 50).Sum())
		},
		Check: checkFloat(n3),
	}, {
		Name:      "array-sin-col-times-t",
		BenchName: "sin_col_times_T_sum_1e4",
		Doc:       "(sin(im[:, 0]) * im.T).sum() with im = ones((10000, 10000), chunks=1000)",
		Build:     func() (*graph.Graph, []graph.Key, error) { return arrayGraph(SinColTimesT(10000, 1000)) },
		// every row of im.T is 1 and the column sin(1): 10⁸·sin(1).
		Check: checkFloatTol(1e8*math.Sin(1), 1e-9),
	}, {
		Name:      "array-normalize-bench",
		BenchName: "normalize_3x1000x1000",
		Doc:       "im / im.max(axis=(1, 2))[:, None, None], im = ones((3, 1000, 1000), chunks=(1, 600, 600))",
		Build:     func() (*graph.Graph, []graph.Key, error) { return arrayGraph(Normalize()) },
		Check: func(vals []any) error {
			a, ok := vals[0].(*nd.Array)
			if !ok || a.Size() != 3e6 {
				return fmt.Errorf("got %T", vals[0])
			}
			s, err := nd.Reduce(nd.Sum, a, nil, false)
			if err != nil {
				return err
			}
			return checkFloat(3e6)([]any{s})
		},
	}, {
		Name:      "array-graph-build",
		BenchName: "graph_build_10k_chunks",
		Doc:       "((ones((1000, 1000, 100), chunks=(10, 10, 100)) + 1) * 2).sum(), building the graph only",
		Build:     func() (*graph.Graph, []graph.Key, error) { return arrayGraph(GraphBuild10k()) },
		BuildOnly: true,
	}, {
		Name: "array-sum",
		Doc:  "ones((3, 1000, 1000), chunks=(1, 600, 600)).sum(), every operation its own task",
		Build: func() (*graph.Graph, []graph.Key, error) {
			return pictureGraph(chunkarray.Ones([]int{3, 1000, 1000}, nd.Float64, []int{1, 600, 600}).Sum())
		},
		Check: checkFloat(3e6),
	}, {
		Name:  "array-normalize",
		Doc:   "im / im.max(axis=(1, 2))[:, None, None] on ones((3, 1000, 1000), chunks=(1, 600, 600)), every operation its own task",
		Build: func() (*graph.Graph, []graph.Key, error) { return pictureGraph(Normalize()) },
	}}
}

func checkFloat(want float64) func([]any) error { return checkFloatTol(want, 0) }

func checkFloatTol(want, rel float64) func([]any) error {
	return func(vals []any) error {
		v, err := scalarOf(vals)
		if err != nil {
			return err
		}
		if math.Abs(v-want) > rel*math.Abs(want) {
			return fmt.Errorf("got %v, want %v", v, want)
		}
		return nil
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
