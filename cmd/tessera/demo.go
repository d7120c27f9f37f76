package main

import (
	"context"
	"errors"
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

// runDemo is `tessera demo`, a tour of the project for a new user:
// delayed values, chunked arrays, a zarr image read lazily and UDFs, the
// examples a Dask user starts with. It prints each result and draws the
// x²+y² and normalisation task graphs as dask's visualize does; pictures
// and the zarr store go to -out (./tessera-demo by default, where the
// README says they are).
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("demo", "tessera demo [-out DIR] [-zarr-size N]")
	out := fs.String("out", "tessera-demo", "`folder` for the task-graph pictures and the zarr store (created if missing)")
	zarrN := fs.Int("zarr-size", 10000, fmt.Sprintf("side `N` of the demo's N×N int32 zarr image, 1 to %d", maxZarrSide))
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "tessera demo: unexpected arguments %q\n", fs.Args())
		return 2
	}
	// Checked before any work: the zarr part comes after a minute of
	// other examples, too late to learn that the size was a typo.
	if *zarrN < 1 || *zarrN > maxZarrSide {
		fmt.Fprintf(stderr, "tessera demo: -zarr-size %d: want 1 to %d (the store is 4·N² bytes, and the eager comparison holds the image in memory three times)\n", *zarrN, maxZarrSide)
		return 2
	}
	if *out == "" {
		fmt.Fprintln(stderr, "tessera demo: -out must name a folder")
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

// maxZarrSide bounds -zarr-size: at 20000 the store is 1.6 GB and the
// eager comparison needs about 5 GB of memory; beyond that the demo would
// more likely exhaust a laptop than show anything new.
const maxZarrSide = 20000

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
