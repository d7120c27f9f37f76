package graph_test

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// buildTree builds a binary addition tree with the given number of leaves:
// leaves literal chunks, each inner node adds its two children, 2*leaves-1
// nodes in all. Keys are made as a collection builder makes them, one
// BlockKey per node.
func buildTree(leaves int) *graph.Graph {
	g := graph.New(2*leaves - 1)
	for i := 0; i < leaves; i++ {
		if err := g.Set(graph.BlockKey("ones-3fa1c0de12345678", i), graph.Literal(1)); err != nil {
			panic(err)
		}
	}
	prev, name := "ones-3fa1c0de12345678", ""
	for level, n := 1, leaves/2; n >= 1; level, n = level+1, n/2 {
		name = fmt.Sprintf("add-%016x", level)
		for i := 0; i < n; i++ {
			err := g.Set(graph.BlockKey(name, i), graph.Task(addOp{},
				graph.Ref(graph.BlockKey(prev, 2*i)), graph.Ref(graph.BlockKey(prev, 2*i+1))))
			if err != nil {
				panic(err)
			}
		}
		prev = name
	}
	return g
}

// buildLayers builds width*depth tasks shaped like a chain of blockwise
// array operations with a neighbour dependency (a stencil): task (l, i)
// depends on (l-1, i) and (l-1, i+1 mod width); layer 0 is literals.
func buildLayers(width, depth int) *graph.Graph {
	names := make([]string, depth)
	for l := range names {
		names[l] = fmt.Sprintf("add-%016x", l)
	}
	g := graph.New(width * depth)
	for i := 0; i < width; i++ {
		if err := g.Set(graph.BlockKey(names[0], i), graph.Literal(i)); err != nil {
			panic(err)
		}
	}
	for l := 1; l < depth; l++ {
		for i := 0; i < width; i++ {
			err := g.Set(graph.BlockKey(names[l], i), graph.Task(addOp{},
				graph.Ref(graph.BlockKey(names[l-1], i)), graph.Ref(graph.BlockKey(names[l-1], (i+1)%width))))
			if err != nil {
				panic(err)
			}
		}
	}
	return g
}

// reportPerTask reports ns/task, allocated B/task and live B/task (the heap
// the last graph built holds).
func reportPerTask(b *testing.B, tasks int, build func() *graph.Graph) {
	b.Helper()
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	var g *graph.Graph
	n := 0
	for b.Loop() {
		g = build()
		n++
	}
	b.StopTimer()
	runtime.ReadMemStats(&ms1)
	alloc := float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(n*tasks)
	g = nil
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	g = build()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	live := float64(int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc)) / float64(tasks)
	runtime.KeepAlive(g)
	if g.Len() != tasks {
		b.Fatalf("built %d tasks, want %d", g.Len(), tasks)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*tasks), "ns/task")
	b.ReportMetric(alloc, "B/task")
	b.ReportMetric(live, "live-B/task")
	b.ReportMetric(float64(n*tasks)/b.Elapsed().Seconds(), "tasks/s")
}

func benchmarkBuildTree(b *testing.B, leaves int) {
	reportPerTask(b, 2*leaves-1, func() *graph.Graph { return buildTree(leaves) })
}

func BenchmarkBuildTree1K(b *testing.B)   { benchmarkBuildTree(b, 1<<10) }
func BenchmarkBuildTree65K(b *testing.B)  { benchmarkBuildTree(b, 1<<15) } // 65,535 tasks
func BenchmarkBuildLayers1M(b *testing.B) { benchmarkBuildLayers(b, 1000, 1000) }

func benchmarkBuildLayers(b *testing.B, width, depth int) {
	reportPerTask(b, width*depth, func() *graph.Graph { return buildLayers(width, depth) })
}

func benchmarkDependencies(b *testing.B, width, depth int) {
	g := buildLayers(width, depth)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Dependencies(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*g.Len()), "ns/task")
}

func BenchmarkDependencies10K(b *testing.B) { benchmarkDependencies(b, 100, 100) }
func BenchmarkDependencies1M(b *testing.B)  { benchmarkDependencies(b, 1000, 1000) }

func benchmarkValidate(b *testing.B, width, depth int) {
	g := buildLayers(width, depth)
	b.ReportAllocs()
	for b.Loop() {
		if err := g.Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*g.Len()), "ns/task")
}

func BenchmarkValidate10K(b *testing.B) { benchmarkValidate(b, 100, 100) }
func BenchmarkValidate1M(b *testing.B)  { benchmarkValidate(b, 1000, 1000) }

func BenchmarkJSONEncode(b *testing.B) {
	g := buildLayers(100, 100)
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		out, err := g.MarshalJSON()
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*g.Len()), "ns/node")
	b.ReportMetric(float64(size)/float64(g.Len()), "json-B/node")
}

func BenchmarkJSONDecode(b *testing.B) {
	g := buildLayers(100, 100)
	data, err := g.MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := graph.ReadJSON(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*g.Len()), "ns/node")
}

// BenchmarkTokenize hashes what graph builders hash most: an op name with
// key references, with small scalar literals, and a short list.
func BenchmarkTokenize(b *testing.B) {
	cases := []struct {
		name  string
		parts []any
	}{
		{"name+2keys", []any{"add", graph.Key("add-0123456789abcdef0123456789abcdef"), graph.Key("x-1")}},
		{"name+scalars", []any{"scale", 3, 2.5, true, int64(-7)}},
		{"name+list", []any{"ones", []any{128, 128}, "float64", []int{64, 64}}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := graph.Tokenize(c.parts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
