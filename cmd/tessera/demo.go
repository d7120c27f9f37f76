package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed"
	"github.com/tessera-go/tessera/viz"
)

func add(x1, x2 int) int { return x1 + x2 }
func square(x int) int   { return x * x }

// The demo's wrapped functions, registered once at start-up as ops named
// "delayed.add" and "delayed.square".
var (
	delayedAdd    = delayed.Fn2("add", add)
	delayedSquare = delayed.Fn1("square", square)
)

// runDemo walks through the seed tutorial's delayed and array examples: it
// prints each result, and draws the x²+y² and normalisation graphs as the
// tutorial's visualize does.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tessera demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "tessera-demo", "folder for the task-graph pictures")
	zarrN := fs.Int("zarr-size", 10000, "side of the demo's zarr image (the tutorial's 10000)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "tessera demo: unexpected arguments %q\n", fs.Args())
		return 2
	}
	err := demo(ctx, *out, stdout)
	if err == nil {
		err = demoArrays(ctx, *out, *zarrN, stdout)
	}
	if err == nil {
		err = demoUDF(ctx, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tessera demo: %v\n", err)
		return 1
	}
	return 0
}

func demo(ctx context.Context, out string, w io.Writer) error {
	fmt.Fprintln(w, "# delayed(add)(1, 2).compute()")
	r := delayedAdd(delayed.Lit(1), delayed.Lit(2))
	fmt.Fprintf(w, "lazy value: %v\n", r)
	a, err := r.Compute(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "computed:   %d\n\n", a)

	fmt.Fprintln(w, "# f(x, y) = x² + y² as delayed_add(delayed_square(x), delayed_square(y))")
	x, y := 2, 3
	res := delayedAdd(delayedSquare(delayed.Lit(x)), delayedSquare(delayed.Lit(y)))
	v, err := res.Compute(ctx, delayed.WithScheduler(sched.Sync{}))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "eager add(square(x), square(y)) = %d, delayed = %d\n", add(square(x), square(y)), v)

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	pic := filepath.Join(out, "sum-squares.svg")
	err = res.Visualize(ctx, pic, viz.Options{})
	if errors.Is(err, viz.ErrNoGraphviz) {
		fmt.Fprintf(w, "(%v; writing DOT instead)\n", err)
		pic = filepath.Join(out, "sum-squares.dot")
		err = res.Visualize(ctx, pic, viz.Options{})
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "task graph (visualize, optimize_graph=False): %s\n\n", pic)

	wl, err := workloads.Lookup("delayed_tree_65535")
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "# a binary tree of 65,535 delayed additions over 32,768 leaves")
	// The distributed scheduler: a local cluster of two worker processes
	// (this binary, re-executed as workers), the same graph, nothing else
	// changed.
	cl, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 2, Scheduler: distributed.SchedulerOptions{Logger: quietLogger()}})
	if err != nil {
		return err
	}
	defer cl.Close()
	for _, s := range []struct {
		name string
		s    sched.Scheduler
	}{{"sync", sched.Sync{}}, {"threads", sched.Threaded{}}, {"distributed", cl}} {
		t0 := time.Now()
		g, keys, err := wl.Build()
		if err != nil {
			return err
		}
		built := time.Since(t0)
		t1 := time.Now()
		og, _, err := optimize.Optimize(g, keys)
		if err != nil {
			return err
		}
		vals, err := s.s.Get(ctx, og, keys)
		if err != nil {
			return err
		}
		ran := time.Since(t1)
		if err := wl.Check(vals); err != nil {
			return err
		}
		fmt.Fprintf(w, "%-11s sum = %v  built in %v (%.2f µs/task), computed in %v (%.2f µs/task)\n", s.name, vals[0],
			built.Round(time.Millisecond), us(built, wl.Tasks), ran.Round(time.Millisecond), us(ran, wl.Tasks))
	}
	return nil
}

func us(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }

// quietLogger logs warnings and errors only, to stderr: the demo's local
// cluster does not narrate workers joining and leaving.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
