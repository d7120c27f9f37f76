package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// gcRatioTarget is the -gc-check goal: a workload under the default
// collector at most this much slower than without one. Printed beside
// each ratio, never enforced (timings on a shared machine are noise).
const gcRatioTarget = 1.2

// benchOutput writes bench's results as they come: JSON lines, a line
// each, or (-gc-check) a table, the human forms between the machine's
// load average before and after.
type benchOutput struct {
	cfg *benchConfig
	w   io.Writer
	enc *json.Encoder
}

func newBenchOutput(cfg *benchConfig, w io.Writer) *benchOutput {
	return &benchOutput{cfg: cfg, w: w, enc: json.NewEncoder(w)}
}

func (o *benchOutput) begin() {
	if o.cfg.json {
		return
	}
	fmt.Fprintf(o.w, "load average (1 min) at start: %s; figures: median of -reps %d (best in second place)\n", loadString(loadAvg1()), o.cfg.reps)
	if o.cfg.gcCheck {
		fmt.Fprintf(o.w, "%-28s %-11s %12s %10s %12s %10s %4s %7s %9s  %s\n",
			"workload", "scheduler", "GOGC=100 med", "best", "GOGC=off med", "best", "reps", "ratio", "GCs", "load")
	}
}

func (o *benchOutput) row(r *benchResult) error {
	switch {
	case o.cfg.json:
		return o.enc.Encode(r)
	case o.cfg.gcCheck:
		_, err := fmt.Fprintln(o.w, gcLine(r))
		return err
	}
	_, err := fmt.Fprintln(o.w, humanLine(r))
	return err
}

func (o *benchOutput) end() {
	if o.cfg.json {
		return
	}
	if o.cfg.gcCheck {
		fmt.Fprintf(o.w, "ratio = GOGC=100 median / GOGC=off median, target ≤ %.1f (* above it); GCs: collections in the timed parts, GOGC=100/off\n", gcRatioTarget)
	}
	fmt.Fprintf(o.w, "load average (1 min) at end: %s\n", loadString(loadAvg1()))
}

// humanLine is one result: median first, then best, reps and the load.
func humanLine(r *benchResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-28s %-11s median %9.4fs  best %9.4fs  reps %d  load %s→%s",
		r.Workload, r.Scheduler, r.MedianS, r.BestS, r.Reps, loadString(r.LoadStart), loadString(r.LoadEnd))
	if r.USPerTask != nil {
		fmt.Fprintf(&b, "  %.3f µs/task", *r.USPerTask)
	}
	if r.BuildS != nil {
		fmt.Fprintf(&b, "  build %.4fs", *r.BuildS)
	}
	if r.ChunkBytes > 0 {
		fmt.Fprintf(&b, "  %s: peak RSS %s", mib(r.ArrayBytes), mib(r.PeakRSSBytes))
		if r.WorkersPeakRSSBytes > 0 {
			fmt.Fprintf(&b, " (workers %s)", mib(r.WorkersPeakRSSBytes))
		}
		if r.Workers > 0 {
			fmt.Fprintf(&b, ", bound %s = %s chunk × %d worker%s", mib(r.BoundBytes), mib(r.ChunkBytes), r.Workers, plural(r.Workers))
		}
	}
	return b.String()
}

// gcLine is one row of the -gc-check table.
func gcLine(r *benchResult) string {
	off := r.GCOff
	if off == nil {
		off = &benchResult{}
	}
	ratio, mark := "-", ""
	if r.GCRatio != nil {
		ratio = fmt.Sprintf("%.2f", *r.GCRatio)
		if *r.GCRatio > gcRatioTarget {
			mark = "*"
		}
	}
	return fmt.Sprintf("%-28s %-11s %11.4fs %9.4fs %11.4fs %9.4fs %4d %6s%1s %9s  %s→%s",
		r.Workload, r.Scheduler, r.MedianS, r.BestS, off.MedianS, off.BestS, r.Reps, ratio, mark,
		fmt.Sprintf("%d/%d", r.GCCycles, off.GCCycles), loadString(r.LoadStart), loadString(r.LoadEnd))
}

func loadString(l *float64) string {
	if l == nil {
		return "?"
	}
	return fmt.Sprintf("%.2f", *l)
}

func mib(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
