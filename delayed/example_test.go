package delayed_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/viz"
)

func add(a, b int) int { return a + b }
func square(x int) int { return x * x }

// The seed tutorial's first example: delayed(add)(1, 2).compute().
func Example() {
	delayedAdd := delayed.Fn2("add", add)
	result := delayedAdd(delayed.Lit(1), delayed.Lit(2))
	a, err := result.Compute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a)
	// Output: 3
}

// f(x, y) = x² + y², chained: add(square(x), square(y)).
func Example_chained() {
	delayedSquare := delayed.Fn1("square", square)
	delayedAdd := delayed.Fn2("add", add)
	x, y := 2, 3
	result := delayedAdd(delayedSquare(delayed.Lit(x)), delayedSquare(delayed.Lit(y)))
	v, err := result.Compute(context.Background())
	fmt.Println(v, err, add(square(x), square(y)))
	// Output: 13 <nil> 13
}

// Visualize draws the graph in Dask's style: each task a circle, its
// result a box. A .dot path needs no graphviz binary.
func ExampleDelayed_Visualize() {
	delayedSquare := delayed.Fn1("square", square)
	delayedAdd := delayed.Fn2("add", add)
	result := delayedAdd(delayedSquare(delayed.Lit(2)), delayedSquare(delayed.Lit(3)))
	dir, _ := os.MkdirTemp("", "delayed-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sum-squares.dot")
	if err := result.Visualize(context.Background(), path, viz.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	dot, _ := os.ReadFile(path)
	fmt.Println(strings.HasPrefix(string(dot), "digraph"), strings.Count(string(dot), `label="square",shape="circle"`))
	// Output: true 2
}

// A function returning two values gives a Tuple2 (Dask's nout=2); the
// function runs once for both items.
func ExampleFn2Tuple2() {
	divmod := delayed.Fn2Tuple2("divmod", func(a, b int) (int, int) { return a / b, a % b })
	q, r := divmod(delayed.Lit(17), delayed.Lit(5)).Items()
	total := delayed.Fn2("add", add)(q, r)
	v, err := total.Compute(context.Background())
	fmt.Println(v, err)
	// Output: 5 <nil>
}

// Compute runs several values over one shared graph (dask.compute(a, b)).
func ExampleCompute() {
	delayedSquare := delayed.Fn1("square", square)
	delayedAdd := delayed.Fn2("add", add)
	x2 := delayedSquare(delayed.Lit(4))
	a := delayedAdd(x2, delayed.Lit(1))
	b := delayedAdd(x2, delayed.Lit(2))
	vals, err := delayed.Compute(context.Background(), []delayed.Valuer{a, b})
	fmt.Println(vals, err)
	// Output: [17 18] <nil>
}

// Slice gathers delayed values for a function of a slice.
func ExampleSlice() {
	delayedSquare := delayed.Fn1("square", square)
	total := delayed.Fn1("total", func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	})
	var squares []delayed.Delayed[int]
	for i := 1; i <= 3; i++ {
		squares = append(squares, delayedSquare(delayed.Lit(i)))
	}
	v, err := total(delayed.Slice(squares)).Compute(context.Background())
	fmt.Println(v, err)
	// Output: 14 <nil>
}

// Calls are impure by default, as in Dask: every call is a task of its own,
// even with equal arguments. Pure wrappers key a call by its function and
// arguments, so the same call built twice is one task.
func ExamplePure() {
	impureAdd := delayed.Fn2("add", add)
	pureAdd := delayed.Fn2("add", add, delayed.Pure())
	fmt.Println(impureAdd.Call(1, 2).Key() == impureAdd.Call(1, 2).Key())
	fmt.Println(pureAdd.Call(1, 2).Key() == pureAdd.Call(1, 2).Key())
	// Output:
	// false
	// true
}

// Named gives a value an explicit key (Dask's dask_key_name).
func ExampleDelayed_Named() {
	delayedSquare := delayed.Fn1("square", square)
	x := delayedSquare(delayed.Lit(9)).Named("nine-squared")
	v, err := x.Compute(context.Background())
	fmt.Println(x.Key(), v, err)
	// Output: nine-squared 81 <nil>
}

// Persist computes once; values built on the result reuse it.
func ExampleDelayed_Persist() {
	delayedSquare := delayed.Fn1("square", square)
	delayedAdd := delayed.Fn2("add", add)
	x, err := delayedSquare(delayed.Lit(12)).Persist(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := x.Graph()
	v, _ := delayedAdd(x, delayed.Lit(1)).Compute(context.Background())
	fmt.Println(g.Len(), v)
	// Output: 1 145
}
