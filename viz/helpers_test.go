package viz_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tessera-go/tessera/graph"
)

// Test ops, registered once for every test of the package. Their names
// carry a package qualifier, as the library's do, so the pictures show the
// shortened form.
var (
	opSquare = &graph.FuncOp{OpName: "vizt.square", Fn: func(_ context.Context, a []any) (any, error) {
		x := a[0].(int)
		return x * x, nil
	}}
	opAdd = &graph.FuncOp{OpName: "vizt.add", Fn: func(_ context.Context, a []any) (any, error) {
		return a[0].(int) + a[1].(int), nil
	}}
	opLoad = &graph.FuncOp{OpName: "vizt.load", Fn: func(_ context.Context, a []any) (any, error) {
		return a[0].(int) + 1, nil
	}}
)

func init() {
	graph.Register(opSquare)
	graph.Register(opAdd)
	graph.Register(opLoad)
}

// entry is one node of a test graph, so that a graph can be built in any
// order.
type entry struct {
	key  graph.Key
	node graph.Node
}

func build(es []entry) *graph.Graph {
	g := graph.New(len(es))
	for _, e := range es {
		if err := g.Set(e.key, e.node); err != nil {
			panic(err) // test tables are fixed: a programmer error
		}
	}
	return g
}

func shuffled(es []entry, seed uint64) []entry {
	out := append([]entry(nil), es...)
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func tok(parts ...any) string {
	t, err := graph.Tokenize(parts...)
	if err != nil {
		panic(err)
	}
	return t
}

// sumSquares is the seed tutorial's x**2 + y**2 as dask.delayed builds it:
//
//	      add
//	     /   \
//	square   square
//	   |       |
//	   x       y
func sumSquares() []entry {
	sx := graph.Key("square-" + tok("square", graph.Key("x")))
	sy := graph.Key("square-" + tok("square", graph.Key("y")))
	return []entry{
		{"x", graph.Literal(3)},
		{"y", graph.Literal(4)},
		{sx, graph.Task(opSquare, graph.Ref("x"))},
		{sy, graph.Task(opSquare, graph.Ref("y"))},
		{graph.Key("add-" + tok("add", sx, sy)), graph.Task(opAdd, graph.Ref(sx), graph.Ref(sy))},
	}
}

// tree is a reduction of 8 loaded chunks by pairwise sums, with an alias
// "total" for the result:
//
//	               total
//	                 |
//	              sum3[0]
//	         /             \
//	    sum2[0]           sum2[1]
//	    /     \           /     \
//	sum1[0] sum1[1]   sum1[2] sum1[3]
//	 / \     / \       / \     / \
//	c0 c1   c2 c3     c4 c5   c6 c7
func tree() []entry {
	chunk := "load-" + tok("load", 8)
	var es []entry
	for i := 0; i < 8; i++ {
		es = append(es, entry{graph.BlockKey(chunk, i), graph.Task(opLoad, graph.Lit(i))})
	}
	prev, width := chunk, 8
	for level := 1; width > 1; level++ {
		name := "sum-" + tok("sum", prev)
		width /= 2
		for j := 0; j < width; j++ {
			es = append(es, entry{graph.BlockKey(name, j), graph.Task(opAdd,
				graph.Ref(graph.BlockKey(prev, 2*j)), graph.Ref(graph.BlockKey(prev, 2*j+1)))})
		}
		prev = name
	}
	es = append(es, entry{"total", graph.Alias(graph.BlockKey(prev, 0))})
	return es
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint("unexpected error: ", err))
	}
	return v
}
