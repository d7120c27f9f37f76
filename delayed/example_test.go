package delayed_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/sched"
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
	// Call gathers a []Delayed argument the same way.
	v, err = total.Call(squares).Compute(context.Background())
	fmt.Println(v, err)
	// Output:
	// 14 <nil>
	// 14 <nil>
}

// Call takes plain Go values beside Delayed ones, as a dask.delayed call
// does; a value of the wrong type is an error on the result, not a panic.
func ExampleFunc2_Call() {
	delayedAdd := delayed.Fn2("add", add)
	delayedSquare := delayed.Fn1("square", square)
	r := delayedAdd.Call(delayedSquare.Call(3), 1)
	v, err := r.Compute(context.Background())
	fmt.Println(v, err)

	bad := delayedAdd.Call(1, "two")
	var te *delayed.TypeError
	fmt.Println(errors.As(bad.Err(), &te), te.Op, te.Arg)
	// Output:
	// 10 <nil>
	// true delayed.add 1
}

// A variadic wrapper takes a slice of Delayed through Each, or through
// Call, which spreads it (dask's delayed(f)(*values)).
func ExampleEach() {
	delayedSquare := delayed.Fn1("square", square)
	sum := delayed.FnN("sum", func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	})
	var squares []delayed.Delayed[int]
	for i := 1; i <= 3; i++ {
		squares = append(squares, delayedSquare.Call(i))
	}
	a, _ := sum(delayed.Each(squares)...).Compute(context.Background())
	b, _ := sum.Call(squares, 100).Compute(context.Background())
	fmt.Println(a, b)
	// Output: 14 114
}

// A function returning three values gives a Tuple3; the function runs
// once for all three.
func ExampleFn1Tuple3() {
	stats := delayed.Fn1Tuple3("stats", func(xs []float64) (lo, hi, mean float64) {
		lo, hi = xs[0], xs[0]
		for _, x := range xs {
			lo, hi, mean = min(lo, x), max(hi, x), mean+x
		}
		return lo, hi, mean / float64(len(xs))
	})
	lo, hi, mean := stats.Call([]float64{3, 1, 2}).Items()
	spread := delayed.Fn2("sub", func(a, b float64) float64 { return a - b }).Call(hi, lo)
	vals, err := delayed.Compute(context.Background(), []delayed.Valuer{spread, mean})
	fmt.Println(vals, err)
	// Output: [2 2] <nil>
}

// Fn1Nout splits a function returning a slice into a declared number of
// Delayed values (Dask's nout for a function returning a list).
func ExampleFn1Nout() {
	minmax := delayed.Fn1Nout("minmax", 2, func(xs []int) []int {
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		return []int{lo, hi}
	})
	parts := minmax.Call([]int{4, -2, 9})
	vals, err := delayed.Compute(context.Background(), []delayed.Valuer{parts[0], parts[1]})
	fmt.Println(len(parts), vals, err)
	// Output: 2 [-2 9] <nil>
}

// An error names the function that failed and its key, even when graph
// optimization has fused it into the task that uses it.
func Example_errors() {
	fails := delayed.Fn1E("fails", func(x int) (int, error) { return 0, fmt.Errorf("no %d", x) })
	inc := delayed.Fn1("inc", func(x int) int { return x + 1 })
	f := fails.Call(3)
	_, err := inc(delayed.Fn2("add", add).Call(f, 1)).Compute(context.Background())
	var te *sched.TaskError
	fmt.Println(errors.As(err, &te), te.Key == f.Key(), te.Op, te.Err)
	// Output: true true delayed.fails no 3
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
