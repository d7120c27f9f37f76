package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
)

// benchRows runs tessera bench with args (plus -json) and returns its
// lines as maps, failing the test on a non-zero exit.
func benchRows(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), append([]string{"bench", "-json"}, args...), &out, &errb); code != 0 {
		t.Fatalf("bench %q: exit %d: %s", args, code, errb.String())
	}
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// num returns r[k] as a number, failing the test when it is absent or
// not a number.
func num(t *testing.T, r map[string]any, k string) float64 {
	t.Helper()
	v, ok := r[k].(float64)
	if !ok {
		t.Fatalf("field %q = %v (%T), want a number in %v", k, r[k], r[k], r)
	}
	return v
}

// haveLoadAvg says whether this machine has /proc/loadavg, where every
// row must carry a load average.
func haveLoadAvg() bool {
	_, err := os.Stat("/proc/loadavg")
	return err == nil
}

func TestParseBench(t *testing.T) {
	t.Setenv(streamGiBEnv, "")
	t.Setenv(streamChunkMiBEnv, "")
	type want struct {
		scheds    []string
		workloads []string // bench names, in order
		reps      int
		gcCheck   bool
		plot      string
	}
	for _, tc := range []struct {
		name string
		args []string
		want want
	}{
		{"defaults", []string{"delayed"}, want{scheds: []string{"sync", "threads"}, workloads: []string{"delayed_tree_65535"}, reps: 3}},
		{"groups dedupe", []string{"-reps", "5", "-schedulers", "threads, sync,threads", "scale", "chunks"}, want{
			scheds: []string{"threads", "sync"}, reps: 5,
			workloads: []string{"scale_delayed_1e3", "scale_delayed_1e4", "scale_delayed_1e5", "scale_delayed_1e6",
				"randint500^3_sum_chunks100", "randint500^3_sum_chunks50", "randint500^3_sum_chunks25", "randint500^3_sum_chunks10",
				"scale_stream_sum", "randint500^3_sum_chunks500", "randint500^3_sum_chunks200", "ones500^3_sum_chunks50"}}},
		{"gc-check and plot", []string{"-gc-check", "-plot", "x.png", "-dask", "d.jsonl", "scale_delayed_1e3"}, want{
			scheds: []string{"sync", "threads"}, workloads: []string{"scale_delayed_1e3"}, reps: 3, gcCheck: true, plot: "x.png"}},
		{"plot a file", []string{"-plot", "x.PNG", "-results", "t.jsonl"}, want{scheds: []string{"sync", "threads"}, reps: 3, plot: "x.PNG"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			cfg, code, ok := parseBench(tc.args, &out, &errb)
			if !ok {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var names []string
			for _, w := range cfg.ws {
				names = append(names, w.BenchName)
			}
			if !slices.Equal(cfg.scheds, tc.want.scheds) || !slices.Equal(names, tc.want.workloads) ||
				cfg.reps != tc.want.reps || cfg.gcCheck != tc.want.gcCheck || cfg.plot != tc.want.plot {
				t.Errorf("got schedulers %q workloads %q reps %d gc-check %v plot %q; want %+v",
					cfg.scheds, names, cfg.reps, cfg.gcCheck, cfg.plot, tc.want)
			}
		})
	}

	for _, tc := range []struct {
		name string
		args []string
		env  string // SCALE_STREAM_GIB
		msg  string
	}{
		{"dask without plot", []string{"-dask", "d.jsonl"}, "", "need -plot"},
		{"results without plot", []string{"-results", "t.jsonl"}, "", "need -plot"},
		{"results and workloads", []string{"-plot", "x.png", "-results", "t.jsonl", "delayed"}, "", "takes no workloads"},
		{"results and gc-check", []string{"-plot", "x.png", "-results", "t.jsonl", "-gc-check"}, "", "no -gc-check"},
		{"plot not png", []string{"-plot", "x.svg", "delayed"}, "", ".png"},
		{"no schedulers", []string{"-schedulers", " , ", "delayed"}, "", "names no scheduler"},
		{"zero stream", []string{"-stream-gib", "0", "delayed"}, "", "-stream-gib"},
		{"negative chunk", []string{"-stream-chunk-mib", "-1", "delayed"}, "", "-stream-gib"},
		{"bad env", []string{"delayed"}, "lots", streamGiBEnv},
		{"flag after workloads", []string{"delayed", "-reps", "1"}, "", "flags come first"},
		{"unknown", []string{"nope"}, "", `unknown workload "nope"`},
		{"reps", []string{"-reps", "0"}, "", "-reps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(streamGiBEnv, tc.env)
			var out, errb bytes.Buffer
			if _, code, ok := parseBench(tc.args, &out, &errb); ok || code != 2 || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("ok %v, exit %d, stderr %q; want exit 2 mentioning %q", ok, code, errb.String(), tc.msg)
			}
		})
	}

	// The stream workload takes its size from the environment, as
	// dask_bench.py does, and from the flags before it.
	t.Setenv(streamGiBEnv, "0.5")
	t.Setenv(streamChunkMiBEnv, "16")
	for _, tc := range []struct {
		args         []string
		array, chunk int64
	}{
		{[]string{"scale_stream_sum"}, 1 << 29, 16 << 20},
		{[]string{"-stream-gib", "0.25", "-stream-chunk-mib", "1", "scale_stream_sum"}, 1 << 28, 1 << 20},
	} {
		cfg, _, ok := parseBench(tc.args, io.Discard, io.Discard)
		if !ok || len(cfg.ws) != 1 || cfg.ws[0].Memory == nil {
			t.Fatalf("%q: no stream workload", tc.args)
		}
		if m := cfg.ws[0].Memory; m.ArrayBytes != tc.array || m.ChunkBytes != tc.chunk {
			t.Errorf("%q: array %d bytes in chunks of %d, want %d in %d", tc.args, m.ArrayBytes, m.ChunkBytes, tc.array, tc.chunk)
		}
	}
}

// TestBenchJSON: every row carries median (and us_per_task from it),
// best, reps, the load average before and after, and the collector's
// setting and collections.
func TestBenchJSON(t *testing.T) {
	rows := benchRows(t, "-reps", "3", "-schedulers", "sync,threads", "delayed", "graphbuild")
	if len(rows) != 3 {
		t.Fatalf("want 3 rows (delayed on 2 schedulers, graphbuild on none), got %d: %v", len(rows), rows)
	}
	for i, want := range []struct{ workload, sched string }{
		{"delayed_tree_65535", "sync"}, {"delayed_tree_65535", "threads"}, {"graph_build_10k_chunks", "none"},
	} {
		r := rows[i]
		// The workload and scheduler names of bench/dask/dask_bench.py.
		if r["workload"] != want.workload || r["scheduler"] != want.sched {
			t.Errorf("row %d: workload %v scheduler %v, want %s %s", i, r["workload"], r["scheduler"], want.workload, want.sched)
		}
		med, best := num(t, r, "median_s"), num(t, r, "best_s")
		if num(t, r, "reps") != 3 || best <= 0 || med < best {
			t.Errorf("row %d: reps %v median %v best %v; want 3 reps and 0 < best <= median", i, r["reps"], med, best)
		}
		if _, ok := r["seconds"]; ok {
			t.Errorf("row %d: the old field seconds is back: %v", i, r)
		}
		for _, k := range []string{"load_start", "load_end"} {
			if v, ok := r[k]; !ok {
				t.Errorf("row %d: no %s", i, k)
			} else if haveLoadAvg() {
				if f, isNum := v.(float64); !isNum || f < 0 {
					t.Errorf("row %d: %s = %v, want a load average", i, k, v)
				}
			}
		}
		if g := r["gogc"]; g == nil || g == "" {
			t.Errorf("row %d: no gogc", i)
		}
		if c := num(t, r, "gc_cycles"); c < 0 || c != math.Trunc(c) {
			t.Errorf("row %d: gc_cycles %v", i, c)
		}
		tasks := num(t, r, "tasks")
		if want.sched == "none" {
			if _, ok := r["us_per_task"]; ok {
				t.Errorf("row %d: a build-only row has us_per_task", i)
			}
			continue
		}
		if tasks != 65535 {
			t.Errorf("row %d: tasks %v, want 65535", i, tasks)
		}
		if us, want := num(t, r, "us_per_task"), 1e6*med/65535; math.Abs(us-want) > 0.0005+1e-9*want {
			t.Errorf("row %d: us_per_task %v, want 1e6·median_s/65535 = %v", i, us, want)
		}
	}
}

// TestBenchHuman: a human line says median, best, reps and load, median
// first.
func TestBenchHuman(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"bench", "-reps", "2", "-schedulers", "sync", "scale_delayed_1e3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "load average (1 min) at start: ") || !strings.HasPrefix(lines[2], "load average (1 min) at end: ") {
		t.Fatalf("want a load line, a result, a load line:\n%s", out.String())
	}
	l := lines[1]
	im, ib, ir, il := strings.Index(l, " median "), strings.Index(l, " best "), strings.Index(l, " reps 2 "), strings.Index(l, " load ")
	if !strings.HasPrefix(l, "scale_delayed_1e3 ") || im < 0 || !(im < ib && ib < ir && ir < il) || !strings.Contains(l, "µs/task") {
		t.Errorf("result line %q: want workload, median, best, reps 2, load, µs/task in that order", l)
	}
}

// TestBenchGCCheck: -gc-check runs the workload in two children, under
// GOGC=100 and GOGC=off, whatever this process's GOGC variable says; the
// runtime of each child reports the setting it got (runtime/metrics),
// which is the oracle here.
func TestBenchGCCheck(t *testing.T) {
	t.Setenv("GOGC", "50") // the children must replace it
	rows := benchRows(t, "-gc-check", "-reps", "1", "-schedulers", "sync", "scale_delayed_1e3")
	if len(rows) != 1 {
		t.Fatalf("want 1 row, got %v", rows)
	}
	r := rows[0]
	off, ok := r["gc_off"].(map[string]any)
	if !ok {
		t.Fatalf("no gc_off object in %v", r)
	}
	if r["gogc"] != "100" || off["gogc"] != "off" {
		t.Errorf("children ran under GOGC %v and %v, want 100 and off", r["gogc"], off["gogc"])
	}
	if num(t, off, "gc_cycles") != 0 {
		t.Errorf("the GOGC=off child collected %v times", off["gc_cycles"])
	}
	med, offMed := num(t, r, "median_s"), num(t, off, "median_s")
	if ratio, want := num(t, r, "gc_ratio"), med/offMed; math.Abs(ratio-want) > 0.0005+1e-9*want {
		t.Errorf("gc_ratio %v, want median_s / gc_off.median_s = %v", ratio, want)
	}
	if off["workload"] != "scale_delayed_1e3" || num(t, off, "reps") != 1 || num(t, off, "tasks") != 999 {
		t.Errorf("gc_off %v: want the same workload, 1 rep, 999 tasks", off)
	}

	// The human form is a table with both medians and the ratio.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"bench", "-gc-check", "-reps", "1", "-schedulers", "sync", "scale_delayed_1e3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"GOGC=100 med", "GOGC=off med", "ratio", "scale_delayed_1e3", "target ≤ 1.2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("gc-check table lacks %q:\n%s", want, out.String())
		}
	}
}

// TestOffEnv: the GOGC=off child gets a memory limit unless one is set.
func TestOffEnv(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	env := offEnv()
	if env[0] != "GOGC=off" {
		t.Errorf("offEnv() = %q", env)
	}
	if memTotal() > 0 && (len(env) != 2 || !strings.HasPrefix(env[1], "GOMEMLIMIT=")) {
		t.Errorf("offEnv() = %q, want a GOMEMLIMIT", env)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	if env := offEnv(); !slices.Equal(env, []string{"GOGC=off"}) {
		t.Errorf("with GOMEMLIMIT set, offEnv() = %q", env)
	}
	// childEnviron replaces, never duplicates.
	t.Setenv("GOGC", "50")
	var gogc []string
	for _, kv := range childEnviron("GOGC=off") {
		if strings.HasPrefix(kv, "GOGC=") {
			gogc = append(gogc, kv)
		}
	}
	if !slices.Equal(gogc, []string{"GOGC=off"}) {
		t.Errorf("childEnviron(GOGC=off) has %q", gogc)
	}
}

// TestBenchStream: the stream workload runs in a child and reports its
// peak memory beside chunk bytes × workers (the sizes from the flags).
func TestBenchStream(t *testing.T) {
	scheds := "sync,threads"
	if !testing.Short() {
		scheds += ",distributed"
	}
	// 0.001 GiB = 1073741 bytes: 134217 float64, in chunks of 32768.
	rows := benchRows(t, "-reps", "1", "-schedulers", scheds, "-stream-gib", "0.001", "-stream-chunk-mib", "0.25", "scale_stream_sum")
	const array, chunk = 134217 * 8, 32768 * 8
	for _, r := range rows {
		if r["workload"] != workloads.StreamSumName {
			t.Errorf("row %v", r)
			continue
		}
		workers := map[string]float64{"sync": 1, "threads": float64(runtime.GOMAXPROCS(0)), "distributed": 2}[r["scheduler"].(string)]
		if num(t, r, "array_bytes") != array || num(t, r, "chunk_bytes") != chunk || num(t, r, "nchunks") != 5 ||
			num(t, r, "workers") != workers || num(t, r, "bound_bytes") != chunk*workers {
			t.Errorf("%v: want %d bytes in 5 chunks of %d, %v workers, bound chunk × workers", r, array, chunk, workers)
		}
		if _, err := os.Stat("/proc/self/status"); err == nil && num(t, r, "peak_rss_bytes") <= 0 {
			t.Errorf("%v: no peak RSS", r)
		}
		if r["scheduler"] == "distributed" && num(t, r, "workers_peak_rss_bytes") <= 0 {
			t.Errorf("%v: no workers' peak RSS", r)
		}
	}
	if len(rows) != len(strings.Split(scheds, ",")) {
		t.Errorf("want a row per scheduler of %s, got %v", scheds, rows)
	}
}

// scaleRows are bench results as the scale group writes them: delayed
// trees (tasks) and randint sums (chunks) on two schedulers.
func scaleRows(src string) []benchResult {
	var rows []benchResult
	for _, s := range []string{"threads", "sync"} {
		for i, tasks := range []int{999, 9999, 99999} {
			rows = append(rows, benchResult{Workload: "scale_delayed_1e" + string(rune('3'+i)), Scheduler: s, MedianS: float64(tasks) * 1e-6, Tasks: tasks})
		}
		for _, n := range []int{125, 1000} {
			rows = append(rows, benchResult{Workload: "randint500^3_sum_chunks" + map[int]string{125: "100", 1000: "50"}[n], Scheduler: s, MedianS: 0.2, NChunks: n})
		}
		// Rows no panel draws: another workload, a zero time.
		rows = append(rows, benchResult{Workload: "zarr_1e4_sq_sum", Scheduler: s, MedianS: 0.05},
			benchResult{Workload: "randint500^3_sum_chunks10", Scheduler: s, MedianS: 0, NChunks: 125000})
	}
	if src == "Dask" {
		// Dask skipped the big tree on threads.
		rows = slices.DeleteFunc(rows, func(r benchResult) bool { return r.Scheduler == "threads" && r.Tasks == 99999 })
	}
	return rows
}

func TestScaleSeries(t *testing.T) {
	got := scaleSeries(scaleRows("tessera"), scaleRows("Dask"))
	// Written out: per panel, tessera then Dask, sync before threads.
	want := []struct {
		panel, label string
		points       int
	}{
		{"delayed", "tessera sync", 3}, {"delayed", "tessera threads", 3}, {"delayed", "Dask sync", 3}, {"delayed", "Dask threads", 2},
		{"randint", "tessera sync", 2}, {"randint", "tessera threads", 2}, {"randint", "Dask sync", 2}, {"randint", "Dask threads", 2},
	}
	if len(got) != len(want) {
		t.Fatalf("%d series, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Panel != w.panel || g.label() != w.label || len(g.Points) != w.points {
			t.Errorf("series %d: %s %q with %d points, want %s %q with %d", i, g.Panel, g.label(), len(g.Points), w.panel, w.label, w.points)
		}
		if !slices.IsSortedFunc(g.Points, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) }) {
			t.Errorf("series %d: points not by x: %v", i, g.Points)
		}
	}
	// The delayed panel's y is µs per task: 1e6 · median / tasks = 1 here.
	for _, p := range got[0].Points {
		if math.Abs(p.Y-1) > 1e-12 {
			t.Errorf("delayed point %v: want y = 1 µs per task", p)
		}
	}
	if s := scaleSeries(nil, []benchResult{{Workload: "zarr_1e4_sq_sum", Scheduler: "sync", MedianS: 1}}); len(s) != 0 {
		t.Errorf("series from rows no panel draws: %+v", s)
	}
}

// TestBenchPlot: -plot -results -dask writes a PNG of two panels through
// a temporary file it renames; with nothing to draw it fails and leaves
// the file as it was.
func TestBenchPlot(t *testing.T) {
	dir := t.TempDir()
	writeRows := func(name string, rows []benchResult) string {
		var b bytes.Buffer
		for _, r := range rows {
			json.NewEncoder(&b).Encode(r)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tj, dj := writeRows("tessera.jsonl", scaleRows("tessera")), writeRows("dask.jsonl", scaleRows("Dask"))
	out := filepath.Join(dir, "scale.png")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench", "-plot", out, "-results", tj, "-dask", dj}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	// Two panels side by side, each 6.5 × 5 inches.
	if cfg.Width <= cfg.Height || math.Abs(float64(cfg.Width)/float64(cfg.Height)-2*6.5/5) > 0.01 {
		t.Errorf("PNG %d×%d, want two 6.5×5 panels side by side", cfg.Width, cfg.Height)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("want the two inputs and the plot in %s, no temporary file: %v", dir, ents)
	}

	// Nothing to draw: an error, and the earlier plot stays.
	before, _ := os.ReadFile(out)
	other := writeRows("other.jsonl", []benchResult{{Workload: "zarr_1e4_sq_sum", Scheduler: "sync", MedianS: 1}})
	stderr.Reset()
	if code := run(context.Background(), []string{"bench", "-plot", out, "-results", other}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "nothing to draw") {
		t.Errorf("exit %d, stderr %q; want 1 and nothing to draw", code, stderr.String())
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("a failed plot changed the file")
	}
	// A file that is not bench results is an error naming its line.
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"workload\": \"x\", \"scheduler\": \"sync\", \"median_s\": 1}\n{\"workload\": \"x\"}\n"), 0o644)
	stderr.Reset()
	if code := run(context.Background(), []string{"bench", "-plot", out, "-results", bad}, io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "bad.jsonl:2") {
		t.Errorf("exit %d, stderr %q; want 1 naming bad.jsonl:2", code, stderr.String())
	}
}

// TestBenchRunAndPlot: a bench run draws its own results.
func TestBenchRunAndPlot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.png")
	rows := benchRows(t, "-reps", "1", "-schedulers", "sync", "-plot", out, "scale_delayed_1e3", "scale_delayed_1e4")
	if len(rows) != 2 {
		t.Errorf("want 2 rows, got %v", rows)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Errorf("%s: %v", out, err)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range logTicks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{0.3, 3, []string{"0.5", "1", "2"}},
		{500, 1.5e6, []string{"1000", "1e4", "1e5", "1e6"}},
		{80, 2e5, []string{"100", "1000", "1e4", "1e5"}},
		{0.3, 60, []string{"0.5", "1", "2", "5", "10", "20", "50"}},
		{0.6, 0.9, []string{"0.6", "0.9"}}, // no 1, 2 or 5 inside: the ends
	} {
		if got := labels(tc.min, tc.max); !slices.Equal(got, tc.want) {
			t.Errorf("logTicks(%v, %v) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	if logTicks(0, 1) != nil || logTicks(2, 1) != nil {
		t.Error("ticks for a range a log axis cannot show")
	}
}
