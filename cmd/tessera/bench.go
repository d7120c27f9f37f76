package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
)

// tessera bench times built-in workloads on the schedulers and prints one
// result per workload and scheduler: the median of the repetitions first
// (the figure to quote), the best second, the number of repetitions, and
// the machine's 1-minute load average when the measurement began and
// ended, so that a figure taken on a busy machine says so.
//
// Most workloads are measured in this process. Two things need a process
// of their own, which bench gets by re-executing itself (with the hidden
// -child flag, as chunktune does):
//
//   - -gc-check runs each workload once under GOGC=100 and once under
//     GOGC=off, each in a child whose environment says so (inherited by
//     the worker processes of a local cluster the child starts), and
//     reports both medians and their ratio; each child's runtime reports
//     the setting it got, and bench checks it. Rejected: debug.SetGCPercent in this
//     process, which would change the collector under the caller's feet
//     (and under every later workload) and is the library's to leave alone.
//   - Workloads with a memory bound (the scale group's stream sum) run in
//     a fresh child, so that its peak resident set (VmHWM, which a process
//     cannot reset portably) is that workload's and not the largest of
//     everything run before it.
//
// -plot draws the scale group's figures (per-task time against tasks,
// seconds against chunks) for tessera and, from -dask, Dask; bench_plot.go.

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
	"scale": {"scale_delayed_1e3", "scale_delayed_1e4", "scale_delayed_1e5", "scale_delayed_1e6",
		"randint500^3_sum_chunks100", "randint500^3_sum_chunks50", "randint500^3_sum_chunks25", "randint500^3_sum_chunks10",
		workloads.StreamSumName},
}

// Environment variables that size the stream workload, read by tessera
// bench (as the defaults of -stream-gib and -stream-chunk-mib) and by
// bench/dask/dask_bench.py, so that bench/compare.sh sizes both alike.
const (
	streamGiBEnv      = "SCALE_STREAM_GIB"
	streamChunkMiBEnv = "SCALE_STREAM_CHUNK_MIB"
)

// benchConfig is a parsed `tessera bench` command line.
type benchConfig struct {
	json    bool
	scheds  []string // as given: sync, threads, distributed, distributed=HOST:PORT
	reps    int
	check   bool
	gcCheck bool
	child   bool // measure in this process (a child of bench -gc-check or of a memory workload)

	plot    string // PNG to draw, "" for none
	dask    string // Dask's JSON lines to add to the plot
	results string // tessera bench -json lines to plot instead of running

	// streamGiB and streamChunkMiB as given, passed on to children.
	streamGiB, streamChunkMiB float64
	ws                        []*workloads.Workload
}

// parseBench parses bench's arguments. ok says whether the command goes
// on; when not, code is its exit status (0 after -h, 2 for bad usage).
func parseBench(args []string, stdout, stderr io.Writer) (cfg *benchConfig, code int, ok bool) {
	cfg = &benchConfig{}
	fs := newFlagSet("bench", "")
	fs.BoolVar(&cfg.json, "json", false, "print one JSON line per workload and scheduler (workload, scheduler, median_s, best_s, reps, load_start, load_end and more; bench/compare.sh sets them beside bench/dask/dask_bench.py)")
	scheds := fs.String("schedulers", "sync,threads", "comma-separated `list` of schedulers: sync, threads, distributed (a local cluster of 2 worker processes), distributed=HOST:PORT (a running scheduler; token from TESSERA_TOKEN, TLS from the directory TESSERA_TLS_DIR that tessera certs wrote)")
	fs.IntVar(&cfg.reps, "reps", 3, "repetitions; median_s is their median (the figure to quote), best_s the fastest")
	noCheck := fs.Bool("nocheck", false, "skip checking results against each workload's formula")
	fs.BoolVar(&cfg.gcCheck, "gc-check", false, "run each workload twice, in child processes under GOGC=100 and GOGC=off, and report both medians and their ratio (target at most 1.2; printed, never enforced)")
	fs.StringVar(&cfg.plot, "plot", "", "after the run, draw the scale group's figures (µs per task against tasks, seconds against chunks; log-log) to this PNG `file`")
	fs.StringVar(&cfg.dask, "dask", "", "with -plot: add the JSON lines of bench/dask/dask_bench.py in this `file` to the plot")
	fs.StringVar(&cfg.results, "results", "", "with -plot: plot the tessera bench -json lines in this `file` instead of running workloads")
	fs.Float64Var(&cfg.streamGiB, "stream-gib", envFloat(streamGiBEnv, float64(workloads.DefaultStreamBytes)/(1<<30)), "GiB of float64 that "+workloads.StreamSumName+" generates and sums; "+streamGiBEnv+" sets the default")
	fs.Float64Var(&cfg.streamChunkMiB, "stream-chunk-mib", envFloat(streamChunkMiBEnv, float64(workloads.DefaultStreamChunkBytes)/(1<<20)), "MiB of one chunk of "+workloads.StreamSumName+"; "+streamChunkMiBEnv+" sets the default")
	fs.BoolVar(&cfg.child, "child", false, "")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tessera bench [-json] [-schedulers LIST] [-reps N] [-gc-check] [-plot FILE.png [-dask FILE] [-results FILE]] [WORKLOAD|GROUP ...]\n\nworkloads: %s\ngroups: %s\n\n",
			strings.Join(benchNames(), ", "), strings.Join(groupNames(), ", "))
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "child" {
				return // internal: the children bench starts
			}
			name, usage := flag.UnquoteUsage(f)
			if name != "" {
				name = " " + name
			}
			fmt.Fprintf(fs.Output(), "  -%s%s\n    \t%s", f.Name, name, usage)
			if f.DefValue != "" && f.DefValue != "false" {
				fmt.Fprintf(fs.Output(), " (default %s)", f.DefValue)
			}
			fmt.Fprintln(fs.Output())
		})
	}
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return nil, code, false
	}
	cfg.check = !*noCheck
	if err := cfg.validate(*scheds, fs.Args()); err != nil {
		fmt.Fprintf(stderr, "tessera bench: %v\n", err)
		return nil, 2, false
	}
	return cfg, 0, true
}

// envFloat is the number in the environment variable name, or def when
// it is unset or not a number (validate then reports it).
func envFloat(name string, def float64) float64 {
	if v, err := strconv.ParseFloat(os.Getenv(name), 64); err == nil {
		return v
	}
	return def
}

// validate checks the flags against each other and resolves schedulers
// and workload names.
func (cfg *benchConfig) validate(scheds string, names []string) error {
	if cfg.reps < 1 {
		return fmt.Errorf("-reps must be at least 1")
	}
	for _, env := range []string{streamGiBEnv, streamChunkMiBEnv} {
		if v := os.Getenv(env); v != "" {
			if f, err := strconv.ParseFloat(v, 64); err != nil || !(f > 0) {
				return fmt.Errorf("environment variable %s=%q: want a positive number", env, v)
			}
		}
	}
	if cfg.plot == "" && (cfg.dask != "" || cfg.results != "") {
		return fmt.Errorf("-dask and -results need -plot")
	}
	if cfg.results != "" && (cfg.gcCheck || len(names) > 0) {
		return fmt.Errorf("-results plots a file: it takes no workloads and no -gc-check")
	}
	if cfg.plot != "" && !strings.EqualFold(ext(cfg.plot), ".png") {
		return fmt.Errorf("-plot %q: want a .png file", cfg.plot)
	}
	for _, s := range strings.Split(scheds, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if err := checkSchedulerName(s); err != nil {
			return err
		}
		if !slices.Contains(cfg.scheds, s) {
			cfg.scheds = append(cfg.scheds, s)
		}
	}
	if len(cfg.scheds) == 0 {
		return fmt.Errorf("-schedulers %q names no scheduler", scheds)
	}
	stream, err := cfg.streamWorkload()
	if err != nil {
		return err
	}
	if cfg.results != "" {
		return nil
	}
	cfg.ws, err = selectWorkloads(names, stream)
	return err
}

func ext(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.ContainsRune(path[i:], os.PathSeparator) {
		return path[i:]
	}
	return ""
}

// streamWorkload is the stream workload at the size of -stream-gib and
// -stream-chunk-mib.
func (cfg *benchConfig) streamWorkload() (*workloads.Workload, error) {
	if !(cfg.streamGiB > 0) || !(cfg.streamChunkMiB > 0) || cfg.streamGiB > 1<<20 || cfg.streamChunkMiB > 1<<30 {
		return nil, fmt.Errorf("-stream-gib %v, -stream-chunk-mib %v: want positive sizes", cfg.streamGiB, cfg.streamChunkMiB)
	}
	return workloads.StreamSum(int64(cfg.streamGiB*(1<<30)), int64(cfg.streamChunkMiB*(1<<20)))
}

// selectWorkloads resolves workload and group names (all workloads when
// there are none), each workload once, in the order named; the stream
// workload is stream, at the size the flags ask for.
func selectWorkloads(names []string, stream *workloads.Workload) ([]*workloads.Workload, error) {
	if len(names) == 0 {
		names = benchNames()
	}
	var out []*workloads.Workload
	seen := map[string]bool{}
	add := func(n string) error {
		w, err := workloads.Lookup(n)
		if strings.HasPrefix(n, "-") {
			return fmt.Errorf("flag %s after the workloads: flags come first", n)
		}
		if err != nil || w.BenchName == "" {
			return fmt.Errorf("unknown workload %q (workloads: %s; groups: %s)",
				n, strings.Join(benchNames(), ", "), strings.Join(groupNames(), ", "))
		}
		if w.BenchName == workloads.StreamSumName {
			w = stream
		}
		if !seen[w.BenchName] {
			seen[w.BenchName] = true
			out = append(out, w)
		}
		return nil
	}
	for _, n := range names {
		g, isGroup := benchGroups[n]
		if !isGroup {
			g = []string{n}
		}
		for _, m := range g {
			if err := add(m); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
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

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, code, ok := parseBench(args, stdout, stderr)
	if !ok {
		return code
	}
	var rows []benchResult
	if cfg.results != "" {
		var err error
		if rows, err = readResults(cfg.results); err != nil {
			fmt.Fprintf(stderr, "tessera bench: %v\n", err)
			return 1
		}
	} else {
		b := &bencher{cfg: cfg, stderr: stderr, pool: &schedPool{stderr: stderr}}
		defer b.pool.close()
		out := newBenchOutput(cfg, stdout)
		out.begin()
		for _, w := range cfg.ws {
			for _, s := range b.schedulersOf(w) {
				r, err := b.measure(ctx, w, s)
				if err != nil {
					fmt.Fprintf(stderr, "tessera bench: %s on %s: %v\n", w.BenchName, s, err)
					return 1
				}
				if err := out.row(r); err != nil {
					return 1
				}
				rows = append(rows, *r)
			}
		}
		out.end()
	}
	if cfg.plot != "" {
		if err := plotBench(cfg.plot, rows, cfg.dask); err != nil {
			fmt.Fprintf(stderr, "tessera bench: plot: %v\n", err)
			return 1
		}
		if !cfg.json {
			fmt.Fprintf(stdout, "plot: %s\n", cfg.plot)
		}
	}
	return 0
}

// readResults reads the JSON lines of tessera bench -json or of
// bench/dask/dask_bench.py.
func readResults(path string) ([]benchResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseResults(b, path)
}

// parseResults parses JSON result lines (blank lines skipped); name
// names their source in errors.
func parseResults(data []byte, name string) ([]benchResult, error) {
	var rows []benchResult
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &fields); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		var r benchResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if _, ok := fields["median_s"]; !ok || r.Workload == "" || r.Scheduler == "" {
			return nil, fmt.Errorf("%s:%d: not a bench result (no workload, scheduler or median_s)", name, i+1)
		}
		rows = append(rows, r)
	}
	return rows, nil
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
