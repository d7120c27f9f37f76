package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed"
)

// benchResult is one line of output, workload and scheduler named as
// bench/dask/dask_bench.py names them, which writes the same fields where
// it has them (readResults reads both).
type benchResult struct {
	Workload  string  `json:"workload"`
	Scheduler string  `json:"scheduler"`
	MedianS   float64 `json:"median_s"` // the figure to quote and compare
	BestS     float64 `json:"best_s"`
	Reps      int     `json:"reps"`
	// The machine's 1-minute load average when the measurement began and
	// when it ended (null where /proc/loadavg is missing). Under
	// -gc-check: the first child's start and the second's end.
	LoadStart *float64 `json:"load_start"`
	LoadEnd   *float64 `json:"load_end"`
	// GOGC is the collector setting the measuring process ran under, as
	// the runtime reports it ("100", "off"); GCCycles the collections that
	// completed during the timed parts of all repetitions.
	GOGC     string `json:"gogc,omitempty"`
	GCCycles uint64 `json:"gc_cycles"`

	Tasks     int      `json:"tasks,omitempty"`
	NChunks   int      `json:"nchunks,omitempty"`
	USPerTask *float64 `json:"us_per_task,omitempty"` // 1e6 · median_s / tasks
	BuildS    *float64 `json:"build_s,omitempty"`     // building the first repetition's graph

	// Workloads with a memory bound: the array's and a chunk's bytes, the
	// threads that run tasks at once, chunk bytes × workers, and the peak
	// resident set of the process that ran it (the client, for
	// distributed) and the sum of its local cluster's worker processes'.
	ArrayBytes          int64 `json:"array_bytes,omitempty"`
	ChunkBytes          int64 `json:"chunk_bytes,omitempty"`
	Workers             int   `json:"workers,omitempty"`
	BoundBytes          int64 `json:"bound_bytes,omitempty"`
	PeakRSSBytes        int64 `json:"peak_rss_bytes,omitempty"`
	WorkersPeakRSSBytes int64 `json:"workers_peak_rss_bytes,omitempty"`

	// -gc-check: the top-level figures are the GOGC=100 run's, GCOff the
	// GOGC=off run's, GCRatio median_s / GCOff.median_s.
	GCOff   *benchResult `json:"gc_off,omitempty"`
	GCRatio *float64     `json:"gc_ratio,omitempty"`
}

// newResult summarises the times of reps repetitions of w on scheduler
// label, measured between the load averages load0 and load1.
func newResult(w *workloads.Workload, label string, times []float64, load0, load1 *float64) *benchResult {
	sort.Float64s(times)
	gogc, _ := gcState()
	r := &benchResult{Workload: w.BenchName, Scheduler: label, MedianS: median(times), BestS: times[0], Reps: len(times),
		LoadStart: load0, LoadEnd: load1, GOGC: gogc, Tasks: w.Tasks, NChunks: w.NChunks}
	if w.Tasks > 0 && !w.BuildOnly {
		us := round3(1e6 * r.MedianS / float64(w.Tasks))
		r.USPerTask = &us
	}
	return r
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// bencher measures workloads as a bench command line asks.
type bencher struct {
	cfg    *benchConfig
	stderr io.Writer
	pool   *schedPool
}

// schedulersOf: a build-only workload runs on no scheduler ("none").
func (b *bencher) schedulersOf(w *workloads.Workload) []string {
	if w.BuildOnly {
		return []string{"none"}
	}
	return b.cfg.scheds
}

// measure times w on scheduler s: in two child processes under
// -gc-check, in one for a workload with a memory bound, else here.
func (b *bencher) measure(ctx context.Context, w *workloads.Workload, s string) (*benchResult, error) {
	switch {
	case b.cfg.gcCheck && !b.cfg.child:
		return b.gcCheck(ctx, w, s)
	case w.Memory != nil && !b.cfg.child:
		return b.inChild(ctx, w, s)
	case w.BuildOnly:
		return benchBuild(w, b.cfg.reps)
	}
	return b.benchOne(ctx, w, s)
}

// benchOne times w on the named scheduler: each repetition builds a fresh
// graph (untimed, as in bench/dask/dask_bench.py), then times what Compute does:
// optimize and run.
func (b *bencher) benchOne(ctx context.Context, w *workloads.Workload, schedName string) (*benchResult, error) {
	s, err := b.pool.get(ctx, schedName)
	if err != nil {
		return nil, err
	}
	times := make([]float64, 0, b.cfg.reps)
	var build float64
	var cycles uint64
	load0 := loadAvg1()
	for i := 0; i < b.cfg.reps; i++ {
		t0 := time.Now()
		g, keys, err := w.Build()
		if err != nil {
			return nil, err
		}
		if i == 0 {
			build = time.Since(t0).Seconds()
		}
		_, c0 := gcState()
		vals, secs, err := computeTimed(ctx, s, g, keys)
		_, c1 := gcState()
		if err != nil {
			return nil, err
		}
		cycles += c1 - c0
		if b.cfg.check && w.Check != nil {
			if err := w.Check(vals); err != nil {
				return nil, fmt.Errorf("wrong result: %w", err)
			}
		}
		times = append(times, secs)
	}
	r := newResult(w, benchLabel(schedName), times, load0, loadAvg1())
	r.GCCycles = cycles
	r.BuildS = &build
	if w.Memory != nil {
		b.memory(r, w, schedName)
	}
	return r, nil
}

// memory fills in r's memory figures, read after the run.
func (b *bencher) memory(r *benchResult, w *workloads.Workload, schedName string) {
	r.ArrayBytes, r.ChunkBytes = w.Memory.ArrayBytes, w.Memory.ChunkBytes
	r.Workers = b.pool.threads(schedName)
	r.BoundBytes = r.ChunkBytes * int64(r.Workers)
	if hwm, err := vmHWM("self"); err == nil {
		r.PeakRSSBytes = hwm
	}
	r.WorkersPeakRSSBytes = b.pool.workersPeakRSS(schedName)
}

// benchBuild times Build alone, for BuildOnly workloads (scheduler
// "none", as dask_bench.py's graphbuild).
func benchBuild(w *workloads.Workload, reps int) (*benchResult, error) {
	times := make([]float64, 0, reps)
	tasks := 0
	var cycles uint64
	load0 := loadAvg1()
	for i := 0; i < reps; i++ {
		_, c0 := gcState()
		t0 := time.Now()
		g, _, err := w.Build()
		if err != nil {
			return nil, err
		}
		times = append(times, time.Since(t0).Seconds())
		_, c1 := gcState()
		cycles += c1 - c0
		tasks = g.Len()
	}
	r := newResult(w, "none", times, load0, loadAvg1())
	r.Tasks, r.GCCycles = tasks, cycles
	return r, nil
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

// schedPool makes the schedulers of one bench run, each once: a local
// cluster or a connection is reused by every workload.
type schedPool struct {
	stderr   io.Writer
	made     map[string]sched.Scheduler
	clusters map[string]*distributed.Cluster // the local ones, by name
	closers  []func() error
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
		if p.clusters == nil {
			p.clusters = map[string]*distributed.Cluster{}
		}
		p.clusters[name] = c
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

// threads returns how many tasks the named scheduler runs at once: 1
// for sync, GOMAXPROCS for threads, the threads of a local cluster's
// workers; 0 when unknown (a remote cluster).
func (p *schedPool) threads(name string) int {
	switch name {
	case "sync", "single-threaded", "synchronous":
		return 1
	case "threads", "threading", "threaded":
		return runtime.GOMAXPROCS(0)
	}
	if c := p.clusters[name]; c != nil {
		return c.Server().Status().Totals.Threads
	}
	return 0
}

// workersPeakRSS sums the peak resident sets (VmHWM) of a local
// cluster's worker processes; 0 for other schedulers. The peaks cover
// the workers' whole lives, which is one workload's run when the
// workload ran in a child process of its own.
func (p *schedPool) workersPeakRSS(name string) int64 {
	c := p.clusters[name]
	if c == nil {
		return 0
	}
	var sum int64
	for _, w := range c.Workers() {
		if hwm, err := vmHWM(strconv.Itoa(w.Pid)); err == nil {
			sum += hwm
		}
	}
	return sum
}

func (p *schedPool) close() {
	for _, f := range p.closers {
		f()
	}
}
