package schedtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tessera-go/tessera/graph"
)

// The ops of the suite. They are registered in init, so a worker process
// that imports schedtest can rebuild them from their names, and they take
// and return only values the graph codec encodes (int, []any).
var (
	// Add returns the sum of its int arguments.
	Add graph.Op = &graph.FuncOp{OpName: "schedtest.add", Fn: add}
	// Inc returns its int argument plus one.
	Inc graph.Op = &graph.FuncOp{OpName: "schedtest.inc", Fn: inc}
	// SumList returns the sum of the ints in its one []any argument.
	SumList graph.Op = &graph.FuncOp{OpName: "schedtest.sumlist", Fn: sumList}
	// Tuple returns its arguments as a new []any.
	Tuple graph.Op = &graph.FuncOp{OpName: "schedtest.tuple", Fn: tuple}
	// Fail returns ErrBoom.
	Fail graph.Op = &graph.FuncOp{OpName: "schedtest.fail", Fn: fail}
	// Panic panics with the string "schedtest: boom".
	Panic graph.Op = &graph.FuncOp{OpName: "schedtest.panic", Fn: panicOp}
	// Sleep waits for its int argument in milliseconds, or until its
	// context is done, and returns ctx.Err() then; otherwise it returns
	// its second argument.
	Sleep graph.Op = &graph.FuncOp{OpName: "schedtest.sleep", Fn: sleep}
)

// ErrBoom is the error of the Fail op.
var ErrBoom = errors.New("schedtest: boom")

func init() {
	// Registered so that errors.Is(err, ErrBoom) holds on schedulers that
	// run tasks in other processes.
	graph.RegisterError("schedtest.ErrBoom", ErrBoom)
	for _, op := range []graph.Op{Add, Inc, SumList, Tuple, Fail, Panic, Sleep} {
		graph.Register(op)
	}
}

func toInt(op string, v any) (int, error) {
	x, ok := v.(int)
	if !ok {
		return 0, fmt.Errorf("%s: argument %v of type %T, want int", op, v, v)
	}
	return x, nil
}

func add(_ context.Context, args []any) (any, error) {
	s := 0
	for _, a := range args {
		x, err := toInt("schedtest.add", a)
		if err != nil {
			return nil, err
		}
		s += x
	}
	return s, nil
}

func inc(_ context.Context, args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("schedtest.inc: %d arguments, want 1", len(args))
	}
	x, err := toInt("schedtest.inc", args[0])
	return x + 1, err
}

func sumList(_ context.Context, args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("schedtest.sumlist: %d arguments, want 1", len(args))
	}
	l, ok := args[0].([]any)
	if !ok {
		return nil, fmt.Errorf("schedtest.sumlist: argument of type %T, want []any", args[0])
	}
	return add(nil, l)
}

// tuple copies args: the slice belongs to the scheduler, which reuses it.
func tuple(_ context.Context, args []any) (any, error) {
	return append([]any{}, args...), nil
}

func fail(context.Context, []any) (any, error) { return nil, ErrBoom }

func panicOp(context.Context, []any) (any, error) { panic("schedtest: boom") }

func sleep(ctx context.Context, args []any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("schedtest.sleep: %d arguments, want 2", len(args))
	}
	ms, err := toInt("schedtest.sleep", args[0])
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return args[1], nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// AddTree returns a binary tree of Add tasks over leaves leaf tasks
// (leaves a power of two): leaf i is Add(i, 1), so the root, whose key is
// returned, is leaves*(leaves+1)/2. It has 2*leaves-1 tasks; AddTree(1<<15)
// is the 65,535-task graph of Dask's delayed benchmark.
//
//	root
//	 /  \
//	a    b      each level halves
//	/\   /\
//	.. leaves: Add(i, 1)
func AddTree(leaves int) (*graph.Graph, graph.Key) {
	g := graph.New(2 * leaves)
	level := make([]graph.Key, leaves)
	for i := range level {
		level[i] = graph.BlockKey("leaf", i)
		must(g.AddTask(level[i], Add, graph.Lit(i), graph.Lit(1)))
	}
	for d := 1; len(level) > 1; d++ {
		name := "add-" + strconv.Itoa(d)
		next := level[:len(level)/2]
		for i := range next {
			k := graph.BlockKey(name, i)
			must(g.AddTask(k, Add, graph.Ref(level[2*i]), graph.Ref(level[2*i+1])))
			next[i] = k
		}
		level = next
	}
	return g, level[0]
}

// Wide returns n independent Inc tasks over literal i and their keys; the
// value of key i is i+1.
func Wide(n int) (*graph.Graph, []graph.Key) {
	g := graph.New(n)
	keys := make([]graph.Key, n)
	for i := range keys {
		keys[i] = graph.BlockKey("wide", i)
		must(g.AddTask(keys[i], Inc, graph.Lit(i)))
	}
	return g, keys
}

// Chain returns a chain of n Inc tasks starting from literal 0, and the key
// of its end, whose value is n.
//
//	zero -> inc[0] -> inc[1] -> ... -> inc[n-1]
func Chain(n int) (*graph.Graph, graph.Key) {
	g := graph.New(n + 1)
	prev := graph.Key("zero")
	must(g.AddLiteral(prev, 0))
	for i := 0; i < n; i++ {
		k := graph.BlockKey("inc", i)
		must(g.AddTask(k, Inc, graph.Ref(prev)))
		prev = k
	}
	return g, prev
}

// must panics on an error from building a graph of the suite, which would
// be a bug in the suite itself.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
