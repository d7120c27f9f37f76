package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed"
)

// benchGroups maps the group names of bench/dask/dask_bench.py to
// the bench names of their workloads, so that "tessera bench delayed" and
// "bench/dask/dask_bench.py delayed" time the same things.
var benchGroups = map[string][]string{
	"delayed":     {"delayed_tree_65535"},
	"chunks":      {"randint500^3_sum_chunks500", "randint500^3_sum_chunks200", "randint500^3_sum_chunks100", "randint500^3_sum_chunks50", "ones500^3_sum_chunks50"},
	"elementwise": {"sin_col_times_T_sum_1e4"},
	"normalize":   {"normalize_3x1000x1000"},
	"graphbuild":  {"graph_build_10k_chunks"},
	"zarr":        {"zarr_1e4_sq_sum"},
	"udf":         {"udf_sum_4d_tree_merge", "udf_sum_4d_merge_all"},
}

// benchResult is one line of output: workload and scheduler named as
// bench/dask/dask_bench.py names them, seconds the best repetition and
// median_s the median (the figure bench/compare.sh compares).
type benchResult struct {
	Workload  string   `json:"workload"`
	Scheduler string   `json:"scheduler"`
	Seconds   float64  `json:"seconds"`
	BuildS    *float64 `json:"build_s,omitempty"`
	USPerTask *float64 `json:"us_per_task,omitempty"`
	Tasks     int      `json:"tasks,omitempty"`
	Reps      int      `json:"reps"`
	MedianS   float64  `json:"median_s"`
}

// checkSchedulerName checks a -schedulers entry: sync, threads,
// distributed (a local cluster of two worker processes, started once per
// run) or distributed=HOST:PORT (a running scheduler; the token from
// TESSERA_TOKEN, TLS from the `tessera certs` directory TESSERA_TLS_DIR).
func checkSchedulerName(name string) error {
	switch name {
	case "sync", "single-threaded", "synchronous", "threads", "threading", "threaded", "distributed":
		return nil
	}
	if addr, ok := strings.CutPrefix(name, "distributed="); ok {
		if _, _, err := net.SplitHostPort(addr); err != nil || addr == "" {
			return fmt.Errorf("scheduler %q: want distributed=HOST:PORT", name)
		}
		return nil
	}
	return fmt.Errorf("unknown scheduler %q (sync, threads, distributed, distributed=HOST:PORT)", name)
}

// benchLabel is a scheduler's name in the results: "distributed" for
// either form, as bench/dask/dask_bench.py writes it.
func benchLabel(name string) string {
	if strings.HasPrefix(name, "distributed=") {
		return "distributed"
	}
	return name
}

// schedPool makes the schedulers of one bench run, each once: a local
// cluster or a connection is reused by every workload.
type schedPool struct {
	stderr  io.Writer
	made    map[string]sched.Scheduler
	closers []func() error
}

func (p *schedPool) get(ctx context.Context, name string) (sched.Scheduler, error) {
	if s, ok := p.made[name]; ok {
		return s, nil
	}
	var s sched.Scheduler
	switch {
	case name == "sync" || name == "single-threaded" || name == "synchronous":
		s = sched.Sync{}
	case name == "threads" || name == "threading" || name == "threaded":
		s = sched.Threaded{}
	case name == "distributed":
		// Workers are this binary itself (main calls MaybeWorker).
		// The scheduler logs warnings only: workers joining would
		// interleave with the results.
		log := slog.New(slog.NewTextHandler(p.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		c, err := distributed.StartCluster(ctx, distributed.ClusterOptions{Workers: 2, Stderr: p.stderr,
			Scheduler: distributed.SchedulerOptions{Logger: log}})
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, c.Close)
		s = c
	default:
		addr := strings.TrimPrefix(name, "distributed=")
		sec := distributed.Security{Token: os.Getenv("TESSERA_TOKEN")}
		if dir := os.Getenv("TESSERA_TLS_DIR"); dir != "" {
			sec = distributed.CertSecurity(dir, sec.Token)
		}
		c, err := distributed.Connect(ctx, addr, distributed.ClientOptions{Security: sec, Name: "tessera bench"})
		if err != nil {
			return nil, err
		}
		p.closers = append(p.closers, c.Close)
		s = c
	}
	if p.made == nil {
		p.made = map[string]sched.Scheduler{}
	}
	p.made[name] = s
	return s, nil
}

func (p *schedPool) close() {
	for _, f := range p.closers {
		f()
	}
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("bench", "")
	asJSON := fs.Bool("json", false, "print one JSON line per workload and scheduler (workload, scheduler, seconds: the best, median_s; bench/compare.sh sets them beside bench/dask/dask_bench.py)")
	scheds := fs.String("schedulers", "sync,threads", "comma-separated `list` of schedulers: sync, threads, distributed (a local cluster of 2 worker processes), distributed=HOST:PORT (a running scheduler; token from TESSERA_TOKEN, TLS from the directory TESSERA_TLS_DIR that tessera certs wrote)")
	reps := fs.Int("reps", 3, "repetitions; seconds is the best, median_s the median")
	noCheck := fs.Bool("nocheck", false, "skip checking results against each workload's formula")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tessera bench [-json] [-schedulers LIST] [-reps N] [WORKLOAD|GROUP ...]\n\nworkloads: %s\ngroups: %s\n\n",
			strings.Join(benchNames(), ", "), strings.Join(groupNames(), ", "))
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if *reps < 1 {
		fmt.Fprintln(stderr, "tessera bench: -reps must be at least 1")
		return 2
	}
	var ws []*workloads.Workload
	names := fs.Args()
	if len(names) == 0 {
		names = benchNames()
	}
	for _, n := range names {
		if g, ok := benchGroups[n]; ok {
			for _, m := range g {
				w, err := workloads.Lookup(m)
				if err != nil {
					fmt.Fprintf(stderr, "tessera bench: %v\n", err)
					return 2
				}
				ws = append(ws, w)
			}
			continue
		}
		w, err := workloads.Lookup(n)
		if err != nil || w.BenchName == "" {
			fmt.Fprintf(stderr, "tessera bench: unknown workload %q (workloads: %s; groups: %s)\n",
				n, strings.Join(benchNames(), ", "), strings.Join(groupNames(), ", "))
			return 2
		}
		ws = append(ws, w)
	}
	var ss []string
	for _, s := range strings.Split(*scheds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if err := checkSchedulerName(s); err != nil {
			fmt.Fprintf(stderr, "tessera bench: %v\n", err)
			return 2
		}
		ss = append(ss, s)
	}
	pool := &schedPool{stderr: stderr}
	defer pool.close()
	enc := json.NewEncoder(stdout)
	for _, w := range ws {
		wss := ss
		if w.BuildOnly {
			wss = []string{"none"}
		}
		for _, s := range wss {
			var r *benchResult
			var err error
			if w.BuildOnly {
				r, err = benchBuild(w, *reps)
			} else {
				r, err = benchOne(ctx, pool, w, s, *reps, !*noCheck)
			}
			if err != nil {
				fmt.Fprintf(stderr, "tessera bench: %s on %s: %v\n", w.BenchName, s, err)
				return 1
			}
			if *asJSON {
				if err := enc.Encode(r); err != nil {
					return 1
				}
				continue
			}
			line := fmt.Sprintf("%-28s %-8s best %9.4fs  median %9.4fs", r.Workload, r.Scheduler, r.Seconds, r.MedianS)
			if r.USPerTask != nil {
				line += fmt.Sprintf("  %7.3f µs/task", *r.USPerTask)
			}
			if r.BuildS != nil {
				line += fmt.Sprintf("  build %7.4fs", *r.BuildS)
			}
			fmt.Fprintln(stdout, line)
		}
	}
	return 0
}

// benchOne times w on the named scheduler: each repetition builds a fresh
// graph (untimed, as in bench/dask/dask_bench.py), then times what Compute does:
// optimize and run.
func benchOne(ctx context.Context, pool *schedPool, w *workloads.Workload, schedName string, reps int, check bool) (*benchResult, error) {
	s, err := pool.get(ctx, schedName)
	if err != nil {
		return nil, err
	}
	times := make([]float64, 0, reps)
	var build float64
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		g, keys, err := w.Build()
		if err != nil {
			return nil, err
		}
		if i == 0 {
			build = time.Since(t0).Seconds()
		}
		vals, secs, err := computeTimed(ctx, s, g, keys)
		if err != nil {
			return nil, err
		}
		if check && w.Check != nil {
			if err := w.Check(vals); err != nil {
				return nil, fmt.Errorf("wrong result: %w", err)
			}
		}
		times = append(times, secs)
	}
	sort.Float64s(times)
	r := &benchResult{Workload: w.BenchName, Scheduler: benchLabel(schedName), Seconds: times[0], Reps: reps, MedianS: median(times), Tasks: w.Tasks}
	r.BuildS = &build
	if w.Tasks > 0 {
		us := 1e6 * r.Seconds / float64(w.Tasks)
		us = math.Round(us*1000) / 1000
		r.USPerTask = &us
	}
	return r, nil
}

// benchBuild times Build alone, for BuildOnly workloads (scheduler
// "none", as dask_bench.py's graphbuild).
func benchBuild(w *workloads.Workload, reps int) (*benchResult, error) {
	times := make([]float64, 0, reps)
	tasks := 0
	for i := 0; i < reps; i++ {
		t0 := time.Now()
		g, _, err := w.Build()
		if err != nil {
			return nil, err
		}
		times = append(times, time.Since(t0).Seconds())
		tasks = g.Len()
	}
	sort.Float64s(times)
	return &benchResult{Workload: w.BenchName, Scheduler: "none", Seconds: times[0], Reps: reps, MedianS: median(times), Tasks: tasks}, nil
}

func computeTimed(ctx context.Context, s sched.Scheduler, g *graph.Graph, keys []graph.Key) ([]any, float64, error) {
	t := time.Now()
	og, _, err := optimize.Optimize(g, keys)
	if err != nil {
		return nil, 0, err
	}
	vals, err := s.Get(ctx, og, keys)
	return vals, time.Since(t).Seconds(), err
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

func benchNames() []string {
	var out []string
	for _, w := range workloads.All() {
		if w.BenchName != "" {
			out = append(out, w.BenchName)
		}
	}
	sort.Strings(out)
	return out
}

func groupNames() []string {
	var out []string
	for g := range benchGroups {
		out = append(out, g)
	}
	sort.Strings(out)
	return out
}
