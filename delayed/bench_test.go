package delayed_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/delayed"
)

func benchAdd(a, b int) int { return a + b }

var (
	benchAddPure   = delayed.Fn2("bench.add", benchAdd, delayed.Pure())
	benchAddImpure = delayed.Fn2("bench.add", benchAdd, delayed.Impure())
)

// buildTree builds Dask's delayed_tree: leaves add(i, 1), then pairwise
// sums up to one root; 2*leaves-1 tasks. An odd level carries its last
// value up (Dask's version only ever sees powers of two).
func buildTree(add func(delayed.In[int], delayed.In[int]) delayed.Delayed[int], leaves int) delayed.Delayed[int] {
	level := make([]delayed.Delayed[int], leaves)
	for i := range level {
		level[i] = add(delayed.Lit(i), delayed.Lit(1))
	}
	for len(level) > 1 {
		next := make([]delayed.Delayed[int], 0, (len(level)+1)/2)
		for i := 0; i+1 < len(level); i += 2 {
			next = append(next, add(level[i], level[i+1]))
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return level[0]
}

func benchmarkBuildTree(b *testing.B, pure, collect bool, leaves int) {
	add := benchAddImpure
	if pure {
		add = benchAddPure
	}
	tasks := 2*leaves - 1
	b.ReportAllocs()
	for b.Loop() {
		root := buildTree(add, leaves)
		if collect {
			g, err := root.Graph()
			if err != nil {
				b.Fatal(err)
			}
			if g.Len() != tasks {
				b.Fatalf("graph has %d nodes, want %d", g.Len(), tasks)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tasks), "ns/task")
}

// BenchmarkBuildTree builds trees of additions; "graph" variants also
// collect the graph, which Compute does. The 32768-leaf tree is
// dask_bench.py's delayed_tree_65535 (Dask: about 34 µs per task).
func BenchmarkBuildTree(b *testing.B) {
	for _, leaves := range []int{1 << 10, 1 << 15, 1 << 18} {
		for _, pure := range []bool{false, true} {
			for _, collect := range []bool{false, true} {
				name := fmt.Sprintf("leaves=%d/pure=%v/graph=%v", leaves, pure, collect)
				b.Run(name, func(b *testing.B) { benchmarkBuildTree(b, pure, collect, leaves) })
			}
		}
	}
}

// BenchmarkComputeTree builds and computes the 65,535-task tree end to
// end on the default scheduler, with and without graph optimization,
// reporting ns per task for the whole.
func BenchmarkComputeTree(b *testing.B) {
	for _, opt := range []bool{true, false} {
		b.Run(fmt.Sprintf("optimize=%v", opt), func(b *testing.B) {
			const leaves = 1 << 15
			tasks := 2*leaves - 1
			b.ReportAllocs()
			for b.Loop() {
				v, err := buildTree(benchAddImpure, leaves).Compute(context.Background(), delayed.WithOptimize(opt))
				if err != nil || v != leaves*(leaves+1)/2 {
					b.Fatalf("got %d, %v", v, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tasks), "ns/task")
		})
	}
}
