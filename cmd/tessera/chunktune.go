package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
)

// tessera chunktune runs one workload over several chunk sizes and
// schedulers, as Dask's tutorial's chunk-size experiment does by hand,
// and recommends a chunk size.
//
// Peak memory: every (chunk size, scheduler) pair runs in a child process
// (this binary re-executed with the hidden -child flag), which reports its
// own VmHWM from /proc/self/status. A process's high-water mark cannot be
// reset, so measuring in one process would report the largest run so far
// for every later row; the growth of VmHWM per run (the other option)
// reads zero for every run smaller than an earlier one. A child costs a
// few milliseconds to start, outside the timed part.

// tuneWorkload is a workload parameterised by its size n and chunk c.
type tuneWorkload struct {
	name, doc   string
	defaultSize int
	// build makes the lazy array; prepare (if set) runs first, in the
	// parent, untimed (writing a zarr store).
	build   func(n, c int) (*chunkarray.Array, error)
	prepare func(n, c int) error
	bytes   func(n int) float64 // bytes the workload streams, for GB/s
}

var tuneWorkloads = []tuneWorkload{
	{
		name: "randint-sum", doc: "randint(0, 100, [n]*3, chunks=c).sum()", defaultSize: 500,
		build: func(n, c int) (*chunkarray.Array, error) {
			return chunkarray.Random(0).Integers(0, 100, []int{n, n, n}, c).Sum(), nil
		},
		bytes: func(n int) float64 { return 8 * math.Pow(float64(n), 3) },
	},
	{
		name: "sin-col", doc: "(sin(x[:, 0]) * x.T).sum(), x = ones((n, n), chunks=c)", defaultSize: 10000,
		build: func(n, c int) (*chunkarray.Array, error) { return workloads.SinColTimesT(n, c), nil },
		bytes: func(n int) float64 { return 8 * float64(n) * float64(n) },
	},
	{
		name: "zarr-sq-sum", doc: "(from_zarr(int32 n×n store, chunks c×c).astype(int64) ** 2).sum()", defaultSize: 10000,
		prepare: func(n, c int) error { _, _, err := workloads.ZarrStore(n, c); return err },
		build: func(n, c int) (*chunkarray.Array, error) {
			a, _, err := workloads.ZarrSqSum(n, c)
			return a, err
		},
		bytes: func(n int) float64 { return 4 * float64(n) * float64(n) },
	},
}

func tuneWorkloadNamed(name string) (*tuneWorkload, error) {
	var names []string
	for i := range tuneWorkloads {
		if tuneWorkloads[i].name == name {
			return &tuneWorkloads[i], nil
		}
		names = append(names, tuneWorkloads[i].name)
	}
	return nil, fmt.Errorf("unknown workload %q (%s)", name, strings.Join(names, ", "))
}

// childResult is what a child prints: one JSON line.
type childResult struct {
	Tasks     int       `json:"tasks"`
	Seconds   []float64 `json:"seconds"`
	PeakRSSKB int64     `json:"peak_rss_kb"`
}

// tuneRow is one line of the table.
type tuneRow struct {
	Chunks    int     `json:"chunks"`
	Scheduler string  `json:"scheduler"`
	Tasks     int     `json:"tasks"`
	MedianS   float64 `json:"median_s"`
	GBs       float64 `json:"gb_s"`
	PeakRSSMB float64 `json:"peak_rss_mib"`
}

func runChunktune(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("chunktune", "")
	wname := fs.String("workload", "randint-sum", "workload: randint-sum, sin-col, zarr-sq-sum")
	chunksFlag := fs.String("chunks", "500,200,100,50", "comma-separated chunk lengths (every axis)")
	scheds := fs.String("schedulers", "sync,threads", "comma-separated schedulers: sync, threads")
	reps := fs.Int("reps", 3, "repetitions per chunk size and scheduler; the table shows the median")
	plotFile := fs.String("plot", "", "write a PNG plot of seconds against chunk length to this file")
	// Hidden: the workload size (tests use tiny ones) and the child mode.
	size := fs.Int("size", 0, "")
	child := fs.Bool("child", false, "")
	chunk := fs.Int("chunk", 0, "")
	hidden := map[string]bool{"size": true, "child": true, "chunk": true}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tessera chunktune [-workload W] [-chunks 500,200,100,50] [-schedulers sync,threads] [-reps N] [-plot FILE.png]\n\nworkloads:\n")
		for _, w := range tuneWorkloads {
			fmt.Fprintf(fs.Output(), "  %-12s %s (n = %d)\n", w.name, w.doc, w.defaultSize)
		}
		fmt.Fprintln(fs.Output())
		fs.VisitAll(func(f *flag.Flag) {
			if !hidden[f.Name] {
				fmt.Fprintf(fs.Output(), "  -%s\t%s (default %q)\n", f.Name, f.Usage, f.DefValue)
			}
		})
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "tessera chunktune: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() != 0 {
		return bad("unexpected arguments %q", fs.Args())
	}
	w, err := tuneWorkloadNamed(*wname)
	if err != nil {
		return bad("%v", err)
	}
	if *reps < 1 {
		return bad("-reps must be at least 1")
	}
	n := *size
	if n <= 0 {
		n = w.defaultSize
	}
	if *child {
		return chunktuneChild(ctx, w, n, *chunk, *scheds, *reps, stdout, stderr)
	}
	var chunks []int
	for _, s := range strings.Split(*chunksFlag, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || c <= 0 {
			return bad("-chunks %q: want positive integers separated by commas", *chunksFlag)
		}
		if !slices.Contains(chunks, min(c, n)) {
			chunks = append(chunks, min(c, n))
		}
	}
	var ss []string
	for _, s := range strings.Split(*scheds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if s != "sync" && s != "threads" {
			return bad("unknown scheduler %q (sync, threads)", s)
		}
		ss = append(ss, s)
	}
	if len(ss) == 0 {
		return bad("no scheduler")
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "tessera chunktune: cannot re-execute itself to measure memory: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "workload %s: %s, n = %d; %d reps each, peak RSS per run in a child process\n", w.name, w.doc, n, *reps)
	var rows []tuneRow
	step, steps := 0, len(chunks)*len(ss)
	for _, c := range chunks {
		if w.prepare != nil {
			fmt.Fprintf(stderr, "chunktune: preparing %s for chunks %d\n", w.name, c)
			if err := w.prepare(n, c); err != nil {
				fmt.Fprintf(stderr, "tessera chunktune: %v\n", err)
				return 1
			}
		}
		for _, s := range ss {
			step++
			fmt.Fprintf(stderr, "chunktune: [%d/%d] chunks %d, %s\n", step, steps, c, s)
			r, err := runChild(ctx, exe, w.name, n, c, s, *reps, stderr)
			if err != nil {
				fmt.Fprintf(stderr, "tessera chunktune: chunks %d on %s: %v\n", c, s, err)
				return 1
			}
			sort.Float64s(r.Seconds)
			med := median(r.Seconds)
			rows = append(rows, tuneRow{Chunks: c, Scheduler: s, Tasks: r.Tasks, MedianS: med,
				GBs: w.bytes(n) / med / 1e9, PeakRSSMB: float64(r.PeakRSSKB) / 1024})
		}
	}
	printTuneTable(stdout, rows)
	best := recommend(rows)
	fmt.Fprintf(stdout, "recommended chunks: %d (%s, median %.4f s)\n", best.Chunks, best.Scheduler, best.MedianS)
	if *plotFile != "" {
		if err := plotTune(*plotFile, w.name, n, rows); err != nil {
			fmt.Fprintf(stderr, "tessera chunktune: plot: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return 0
}

// runChild runs one chunk size on one scheduler in a child process, its
// standard error (the progress bar) passed through.
func runChild(ctx context.Context, exe, w string, n, c int, s string, reps int, stderr io.Writer) (*childResult, error) {
	cmd := exec.CommandContext(ctx, exe, "chunktune", "-child", "-workload", w, "-size", strconv.Itoa(n),
		"-chunk", strconv.Itoa(c), "-schedulers", s, "-reps", strconv.Itoa(reps))
	cmd.Env = childEnviron()
	cmd.Stderr = stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("child: %w", err)
	}
	var r childResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil || len(r.Seconds) == 0 {
		return nil, fmt.Errorf("child printed %q: %v", out.String(), err)
	}
	return &r, nil
}

// chunktuneChild times reps computations and prints a childResult.
func chunktuneChild(ctx context.Context, w *tuneWorkload, n, c int, schedName string, reps int, stdout, stderr io.Writer) int {
	var s sched.Scheduler
	switch schedName {
	case "sync":
		s = sched.Sync{}
	case "threads":
		s = sched.Threaded{}
	default:
		fmt.Fprintf(stderr, "tessera chunktune -child: scheduler %q\n", schedName)
		return 2
	}
	if c <= 0 {
		fmt.Fprintln(stderr, "tessera chunktune -child: -chunk must be positive")
		return 2
	}
	var r childResult
	for i := 0; i < reps; i++ {
		a, err := w.build(n, c)
		if err != nil {
			fmt.Fprintf(stderr, "tessera chunktune: %v\n", err)
			return 1
		}
		g, keys, err := chunkarray.BuildGraph([]*chunkarray.Array{a})
		if err != nil {
			fmt.Fprintf(stderr, "tessera chunktune: %v\n", err)
			return 1
		}
		// Timed as Compute and tessera bench time: optimize and run.
		t0 := time.Now()
		og, _, err := optimize.Optimize(g, keys)
		if err != nil {
			fmt.Fprintf(stderr, "tessera chunktune: %v\n", err)
			return 1
		}
		if _, err := s.Get(sched.WithCallbacks(ctx, sched.StderrProgress()), og, keys); err != nil {
			fmt.Fprintf(stderr, "tessera chunktune: %v\n", err)
			return 1
		}
		r.Seconds = append(r.Seconds, time.Since(t0).Seconds())
		r.Tasks = og.Len()
	}
	if hwm, err := vmHWM("self"); err == nil {
		r.PeakRSSKB = hwm >> 10
	}
	if err := json.NewEncoder(stdout).Encode(r); err != nil {
		return 1
	}
	return 0
}

func printTuneTable(w io.Writer, rows []tuneRow) {
	fmt.Fprintf(w, "%8s  %-9s  %8s  %10s  %8s  %13s\n", "chunks", "scheduler", "tasks", "median_s", "GB/s", "peak_rss_MiB")
	for _, r := range rows {
		fmt.Fprintf(w, "%8d  %-9s  %8d  %10.4f  %8.2f  %13.1f\n", r.Chunks, r.Scheduler, r.Tasks, r.MedianS, r.GBs, r.PeakRSSMB)
	}
}

// tieFraction: medians within 5% of the fastest count as ties, broken in
// favour of larger chunks (fewer tasks, less overhead elsewhere); a
// difference that small is within this machine's run-to-run noise.
const tieFraction = 0.05

// recommend returns the row with the fastest median, ties going to the
// larger chunks.
func recommend(rows []tuneRow) tuneRow {
	best := rows[0]
	for _, r := range rows[1:] {
		if r.MedianS < best.MedianS {
			best = r
		}
	}
	out := best
	for _, r := range rows {
		if r.MedianS <= best.MedianS*(1+tieFraction) && r.Chunks > out.Chunks {
			out = r
		}
	}
	return out
}

// plotTune draws median seconds against chunk length, one line per
// scheduler.
func plotTune(path, workload string, n int, rows []tuneRow) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("tessera chunktune: %s, n = %d", workload, n)
	p.X.Label.Text = "chunk length"
	p.Y.Label.Text = "median seconds"
	// Chunk lengths on a log axis, ticked at the lengths measured (log
	// ticks label only powers of ten: one tick for 50…500); seconds on a
	// linear axis from zero, so that the ratios between lines read true.
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	var scheds []string
	for _, r := range rows {
		if !slices.Contains(scheds, r.Scheduler) {
			scheds = append(scheds, r.Scheduler)
		}
		if !slices.ContainsFunc(ticks, func(t plot.Tick) bool { return t.Value == float64(r.Chunks) }) {
			ticks = append(ticks, plot.Tick{Value: float64(r.Chunks), Label: strconv.Itoa(r.Chunks)})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	for i, s := range scheds {
		var pts plotter.XYs
		for _, r := range rows {
			if r.Scheduler == s {
				pts = append(pts, plotter.XY{X: float64(r.Chunks), Y: r.MedianS})
			}
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		p.Add(l, sc)
		p.Legend.Add(s, l, sc)
	}
	p.Legend.Top = true
	return p.Save(6*vg.Inch, 4*vg.Inch, path)
}
