package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/tessera-go/tessera/graph"
)

// incOp adds one to its argument. Registering it lets graphs that use it be
// saved as JSON and run on other processes.
type incOp struct{}

func (incOp) Name() string { return "example.inc" }
func (incOp) Run(_ context.Context, args []any) (any, error) {
	return args[0].(int) + 1, nil
}

func init() { graph.Register(incOp{}) }

// Build a small graph, validate it and save it as JSON.
func Example() {
	g := graph.New(3)
	_ = g.AddLiteral("x", 1)
	_ = g.AddTask("y", incOp{}, graph.Ref("x"))
	_ = g.AddAlias("result", "y")

	if err := g.Validate(); err != nil {
		fmt.Println("invalid:", err)
		return
	}
	d, _ := g.Dependencies()
	for i, k := range g.Keys() {
		fmt.Printf("%s depends on %d node(s)\n", k, len(d.Of(i)))
	}

	b, _ := g.MarshalJSON()
	var out bytes.Buffer
	_ = json.Indent(&out, b, "", "  ")
	out.WriteTo(os.Stdout)
	fmt.Println()
	// Output:
	// x depends on 0 node(s)
	// y depends on 1 node(s)
	// result depends on 1 node(s)
	// {
	//   "tessera_graph": 1,
	//   "nodes": [
	//     {
	//       "key": "x",
	//       "literal": {
	//         "t": "int",
	//         "v": 1
	//       }
	//     },
	//     {
	//       "key": "y",
	//       "op": "example.inc",
	//       "args": [
	//         {
	//           "ref": "x"
	//         }
	//       ]
	//     },
	//     {
	//       "key": "result",
	//       "alias": "y"
	//     }
	//   ]
	// }
}

// Keys made from a token of the op and its inputs are deterministic: the
// same computation built twice gets the same key, so the graphs merge.
func ExampleTokenize() {
	key := func(op graph.Op, in graph.Key) graph.Key {
		tok, err := graph.Tokenize(op, in)
		if err != nil {
			panic(err)
		}
		return graph.Key("inc-" + tok)
	}
	a, b := graph.New(0), graph.New(0)
	for _, g := range []*graph.Graph{a, b} {
		_ = g.AddLiteral("x", 1)
		_ = g.AddTask(key(incOp{}, "x"), incOp{}, graph.Ref("x"))
	}
	merged, err := graph.Merge(a, b)
	fmt.Println(merged.Len(), err)
	fmt.Println(key(incOp{}, "x") == key(incOp{}, "x"), key(incOp{}, "x") == key(incOp{}, "y"))
	fmt.Println(key(incOp{}, "x").Prefix())
	// Output:
	// 2 <nil>
	// true false
	// inc
}

func ExampleBlockKey() {
	k := graph.BlockKey("sum-3fa1c0de", 0, 2)
	name, idx, ok := k.Block()
	fmt.Println(k, name, idx, ok, k.Prefix())
	// Output: sum-3fa1c0de[0,2] sum-3fa1c0de [0 2] true sum
}

// Validate reports a cycle with its keys in a stable order, starting at the
// smallest.
func ExampleGraph_Validate() {
	g := graph.New(0)
	_ = g.AddTask("c", incOp{}, graph.Ref("a"))
	_ = g.AddTask("b", incOp{}, graph.Ref("c"))
	_ = g.AddTask("a", incOp{}, graph.Ref("b"))
	err := g.Validate()
	var ce *graph.CycleError
	fmt.Println(errors.As(err, &ce), ce.Keys)
	fmt.Println(err)
	// Output:
	// true [a b c]
	// graph: cycle: "a" -> "b" -> "c" -> "a"
}

// Resolve turns a task's arguments into values; schedulers call it before
// running the op.
func ExampleResolve() {
	values := map[graph.Key]any{"x": 41}
	args := []graph.Arg{
		graph.Ref("x"),
		graph.List(graph.Lit("a"), graph.Ref("x")),
		graph.Nested(incOp{}, graph.Ref("x")),
	}
	vals, err := graph.Resolve(context.Background(), nil, args, func(k graph.Key) any { return values[k] })
	fmt.Println(vals, err)
	// Output: [41 [a 41] 42] <nil>
}

func ExampleMarshal() {
	b, _ := graph.Marshal([]any{1, "two", 3.0})
	v, err := graph.Unmarshal(b)
	// 1 tag and 1 length byte, then 9 for the int, 5 for the string, 9 for
	// the float.
	fmt.Printf("%d bytes: %v %v\n", len(b), v, err)
	_, err = graph.Unmarshal(b[:len(b)-1])
	var ce *graph.CodecError
	fmt.Println(errors.As(err, &ce))
	// Output:
	// 25 bytes: [1 two 3] <nil>
	// true
}

// A Hasher builds the token of a call piece by piece, without allocating
// for the op name and the keys; it gives what Tokenize gives.
func ExampleHasher() {
	h := graph.NewHasher()
	h.String("add")
	h.Key("x-1")
	if err := h.Value(2.5); err != nil {
		panic(err)
	}
	tok, _ := graph.Tokenize("add", graph.Key("x-1"), 2.5)
	fmt.Println(h.Token() == tok, len(tok))
	// Output:
	// true 32
}
