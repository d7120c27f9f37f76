package sched_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// Sum a tree of additions on four workers.
func ExampleThreaded() {
	g, root := schedtest.AddTree(1024) // 2,047 tasks
	vals, err := sched.Threaded{Workers: 4}.Get(context.Background(), g, []graph.Key{root})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(vals[0])
	// Output: 524800
}

// Sync runs on the calling goroutine; keys may be literals, aliases or
// repeated.
func ExampleSync() {
	g := graph.New(0)
	_ = g.AddLiteral("x", 41)
	_ = g.AddTask("y", schedtest.Inc, graph.Ref("x"))
	_ = g.AddAlias("answer", "y")
	vals, err := sched.Sync{}.Get(context.Background(), g, []graph.Key{"answer", "x", "answer"})
	fmt.Println(vals, err)
	// Output: [42 41 42] <nil>
}

// A failing task's error names its key and wraps the cause.
func ExampleTaskError() {
	g := graph.New(0)
	_ = g.AddTask("boom", schedtest.Fail)
	_, err := sched.Sync{}.Get(context.Background(), g, []graph.Key{"boom"})
	fmt.Println(err)
	// Output: task "boom" (schedtest.fail): schedtest: boom
}

// Callbacks ride in the context; here a profiler counts the tasks run.
func ExampleProfiler() {
	p := sched.NewProfiler()
	ctx := sched.WithCallbacks(context.Background(), p.Callbacks())
	g, root := schedtest.AddTree(8)
	if _, err := (sched.Threaded{}).Get(ctx, g, []graph.Key{root}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(p.Records()), "tasks profiled")
	// Output: 15 tasks profiled
}
