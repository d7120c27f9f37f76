package viz_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/viz"
)

func ExampleDOT() {
	inc := &graph.FuncOp{OpName: "example.inc", Fn: func(_ context.Context, a []any) (any, error) {
		return a[0].(int) + 1, nil
	}}
	g := graph.New(2)
	_ = g.AddLiteral("x", 1)
	_ = g.AddTask("inc-0123456789abcdef", inc, graph.Ref("x"))

	b, err := viz.DOT(g, viz.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// digraph {
	//	rankdir="BT";
	//	n1[label="inc",shape="circle",tooltip="inc-0123456789abcdef"];
	//	n2[label="inc",shape="box",tooltip="inc-0123456789abcdef"];
	//	n3[label="x",shape="box",tooltip="x"];
	//	n1->n2;
	//	n3->n1;
	// }
}

func ExampleDOT_collapse() {
	inc := &graph.FuncOp{OpName: "example.inc", Fn: func(_ context.Context, a []any) (any, error) {
		return a[0].(int) + 1, nil
	}}
	g := graph.New(3)
	_ = g.AddLiteral("x", 1)
	_ = g.AddTask(graph.BlockKey("inc-0123456789abcdef", 0), inc, graph.Ref("x"))
	_ = g.AddTask(graph.BlockKey("inc-fedcba9876543210", 0), inc, graph.Ref(graph.BlockKey("inc-0123456789abcdef", 0)))

	b, err := viz.DOT(g, viz.Options{Collapse: true, RankDir: "LR"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// digraph {
	//	rankdir="LR";
	//	n1[label="inc",shape="circle",tooltip="inc-0123456789abcdef[0]"];
	//	n2[label="inc",shape="circle",tooltip="inc-fedcba9876543210[0]"];
	//	n3[label="x",shape="box",tooltip="x"];
	//	n1->n2;
	//	n3->n1;
	// }
}

// binop is one registered op for several functions; Label says which one
// a task runs, and the picture shows it instead of the op's name.
type binop struct{ fn string }

func (binop) Name() string                                { return "example.binop" }
func (binop) Run(_ context.Context, a []any) (any, error) { return a[0], nil }
func (o binop) Label() string                             { return o.fn }

func ExampleLabeler() {
	g := graph.New(2)
	_ = g.AddLiteral("x", 1)
	_ = g.AddTask("truediv-0123456789abcdef", binop{"truediv"}, graph.Ref("x"))

	b, err := viz.DOT(g, viz.Options{Collapse: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// digraph {
	//	rankdir="BT";
	//	n1[label="truediv",shape="circle",tooltip="truediv-0123456789abcdef"];
	//	n2[label="x",shape="box",tooltip="x"];
	//	n2->n1;
	// }
}
