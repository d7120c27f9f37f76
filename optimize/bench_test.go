package optimize_test

import (
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// benchGraph is a graph built once per process for the benchmarks.
type benchGraph struct {
	once sync.Once
	g    *graph.Graph
	d    *graph.Deps
	keys []graph.Key
	make func() (*graph.Graph, graph.Key)
}

func (bg *benchGraph) get(b *testing.B) (*graph.Graph, *graph.Deps, []graph.Key) {
	bg.once.Do(func() {
		g, root := bg.make()
		d, err := g.Dependencies()
		if err != nil {
			b.Fatal(err)
		}
		bg.g, bg.d, bg.keys = g, d, []graph.Key{root}
	})
	return bg.g, bg.d, bg.keys
}

var (
	// tree65535 is a binary reduction tree over 2^15 leaves.
	tree65535 = &benchGraph{make: func() (*graph.Graph, graph.Key) { return binaryTree(15) }}
	// mapReduce1M is 2^18 chains load -> inc -> double, summed by a binary
	// tree: 1,048,575 tasks, with chains for Fuse and a tree for Order.
	mapReduce1M = &benchGraph{make: func() (*graph.Graph, graph.Key) { return mapReduce(18) }}
)

func mapReduce(k int) (*graph.Graph, graph.Key) {
	g := graph.New(4 << k)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	for i := 0; i < 1<<k; i++ {
		must(g.AddTask(graph.BlockKey("load", i), opLeaf))
		must(g.AddTask(graph.BlockKey("inc", i), opInc, graph.Ref(graph.BlockKey("load", i))))
		must(g.AddTask(graph.BlockKey("t", 0, i), opDbl, graph.Ref(graph.BlockKey("inc", i))))
	}
	for l := 1; l <= k; l++ {
		for i := 0; i < 1<<(k-l); i++ {
			must(g.AddTask(graph.BlockKey("t", l, i), opAdd,
				graph.Ref(graph.BlockKey("t", l-1, 2*i)), graph.Ref(graph.BlockKey("t", l-1, 2*i+1))))
		}
	}
	return g, graph.BlockKey("t", k, 0)
}

func reportPerTask(b *testing.B, tasks int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tasks), "ns/task")
}

func benchmarkOrder(b *testing.B, bg *benchGraph) {
	g, d, _ := bg.get(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := optimize.Order(g, d); err != nil {
			b.Fatal(err)
		}
	}
	reportPerTask(b, g.Len())
}

func benchmarkFuse(b *testing.B, bg *benchGraph) {
	g, _, keys := bg.get(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := optimize.Fuse(g, keys); err != nil {
			b.Fatal(err)
		}
	}
	reportPerTask(b, g.Len())
}

func benchmarkOptimize(b *testing.B, bg *benchGraph) {
	g, _, keys := bg.get(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := optimize.Optimize(g, keys); err != nil {
			b.Fatal(err)
		}
	}
	reportPerTask(b, g.Len())
}

func BenchmarkOrderTree65535(b *testing.B)    { benchmarkOrder(b, tree65535) }
func BenchmarkOrder1M(b *testing.B)           { benchmarkOrder(b, mapReduce1M) }
func BenchmarkFuseTree65535(b *testing.B)     { benchmarkFuse(b, tree65535) }
func BenchmarkFuse1M(b *testing.B)            { benchmarkFuse(b, mapReduce1M) }
func BenchmarkOptimizeTree65535(b *testing.B) { benchmarkOptimize(b, tree65535) }
func BenchmarkOptimize1M(b *testing.B)        { benchmarkOptimize(b, mapReduce1M) }
