package viz_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/viz"
)

// wideTree is a pairwise reduction of n loaded chunks: 2n-1 tasks.
func wideTree(n int) *graph.Graph {
	g := graph.New(2 * n)
	prev := "load-00000000aaaaaaaa"
	for i := 0; i < n; i++ {
		must(0, g.AddTask(graph.BlockKey(prev, i), opLoad, graph.Lit(i)))
	}
	for level := 0; n > 1; level++ {
		name := fmt.Sprintf("sum-%016x", level)
		n = (n + 1) / 2
		for j := 0; j < n; j++ {
			args := []graph.Arg{graph.Ref(graph.BlockKey(prev, 2*j))}
			if g.Has(graph.BlockKey(prev, 2*j+1)) {
				args = append(args, graph.Ref(graph.BlockKey(prev, 2*j+1)))
			} else {
				args = append(args, graph.Lit(0))
			}
			must(0, g.AddTask(graph.BlockKey(name, j), opAdd, args...))
		}
		prev = name
	}
	return g
}

func benchmarkDOT(b *testing.B, n int, opts viz.Options) {
	g := wideTree(n)
	b.ReportAllocs()
	for b.Loop() {
		if err := viz.WriteDOT(io.Discard, g, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.Len())*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

func BenchmarkDOTSmall(b *testing.B)  { benchmarkDOT(b, 16, viz.Options{}) }
func BenchmarkDOTMedium(b *testing.B) { benchmarkDOT(b, 1000, viz.Options{}) }
func BenchmarkDOTLarge(b *testing.B)  { benchmarkDOT(b, 10000, viz.Options{}) }
func BenchmarkDOTLargeOrder(b *testing.B) {
	benchmarkDOT(b, 10000, viz.Options{Color: "order", Clusters: true})
}
