package optimize_test

import (
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

func ExampleOptimize() {
	// total = add(double(inc(x)), y), with x = 3 and y = 4 constants and an
	// unused key that Cull drops.
	g := graph.New(0)
	_ = g.AddLiteral("x", 3)
	_ = g.AddLiteral("y", 4)
	_ = g.AddTask("a", opInc, graph.Ref("x"))
	_ = g.AddTask("b", opDbl, graph.Ref("a"))
	_ = g.AddTask("total", opAdd, graph.Ref("b"), graph.Ref("y"))
	_ = g.AddTask("unused", opInc, graph.Ref("y"))

	out, _, err := optimize.Optimize(g, []graph.Key{"total"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(g.Keys()), "nodes before:", g.Keys())
	fmt.Println(len(out.Keys()), "node after:", out.Keys())
	// Output:
	// 6 nodes before: [x y a b total unused]
	// 1 node after: [total]
}

func ExampleFuse() {
	// c = double(b), b = inc(a), a = leaf(): one chain, fused into c.
	g := graph.New(0)
	_ = g.AddTask("a", opLeaf)
	_ = g.AddTask("b", opInc, graph.Ref("a"))
	_ = g.AddTask("c", opDbl, graph.Ref("b"))

	out, _, err := optimize.Fuse(g, []graph.Key{"c"})
	if err != nil {
		fmt.Println(err)
		return
	}
	c, _ := out.Get("c")
	// The fused tasks are nested arguments whose ops remember their keys.
	inner := c.Args[0].Op.(*optimize.Fused)
	leaf := c.Args[0].List[0].Op.(*optimize.Fused)
	fmt.Println(out.Keys(), c.Op.Name(), "of", inner.Op.Name(), inner.Key, "of", leaf.Op.Name(), leaf.Key)
	// Output:
	// [c] optimize_test.double of optimize_test.inc b of optimize_test.leaf a
}

func ExampleOrder() {
	//      r
	//     / \
	//    p   q
	//   / \   \
	//  a   b   c
	g := graph.New(0)
	_ = g.AddTask("c", opLeaf)
	_ = g.AddTask("q", opInc, graph.Ref("c"))
	_ = g.AddTask("a", opLeaf)
	_ = g.AddTask("b", opLeaf)
	_ = g.AddTask("p", opAdd, graph.Ref("a"), graph.Ref("b"))
	_ = g.AddTask("r", opAdd, graph.Ref("q"), graph.Ref("p"))

	prio, err := optimize.Order(g, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	run := make([]graph.Key, len(prio))
	for i, p := range prio {
		run[p] = g.Key(i)
	}
	// p's side needs three live values (a, b, p), q's side two: p's side
	// goes first, so that only its result is held while q is computed.
	fmt.Println(run)
	// Output:
	// [a b p c q r]
}
