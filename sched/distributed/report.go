package distributed

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"html"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// PerformanceReport records every task computed under the returned
// context, on any scheduler (on a cluster, with the run times the workers
// measured), and writes a self-contained HTML file of them to path when
// the returned function is called: the task stream (one row per worker
// thread, bars coloured by key prefix) and the time spent per key prefix.
// It is Dask's performance_report:
//
//	ctx, done := distributed.PerformanceReport(ctx, "report.html")
//	v, err := x.Sum().Compute(ctx, chunkarray.WithScheduler(cluster))
//	if err := done(); err != nil { … }
//
// The file needs no network: inline SVG and CSS, no script.
func PerformanceReport(ctx context.Context, path string) (context.Context, func() error) {
	p := sched.NewProfiler()
	began := time.Now()
	return sched.WithCallbacks(ctx, p.Callbacks()), func() error {
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("distributed: performance report: %w", err)
		}
		w := bufio.NewWriter(f)
		writeReport(w, p.Records(), began, time.Now())
		if err := w.Flush(); err != nil {
			f.Close()
			return fmt.Errorf("distributed: performance report %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("distributed: performance report %s: %w", path, err)
		}
		return nil
	}
}

// prefixStats are the runs of one key prefix.
type prefixStats struct {
	prefix     string
	n          int
	total, max time.Duration
}

// writeReport writes the HTML of recs, recorded between began and ended.
func writeReport(w io.Writer, recs []sched.TaskRecord, began, ended time.Time) {
	byPrefix := map[string]*prefixStats{}
	var order []string
	t0, t1 := ended, began
	for _, r := range recs {
		p := graph.Key(r.Key).Prefix()
		st := byPrefix[p]
		if st == nil {
			st = &prefixStats{prefix: p}
			byPrefix[p] = st
			order = append(order, p)
		}
		d := r.End.Sub(r.Start)
		st.n++
		st.total += d
		st.max = max(st.max, d)
		if r.Start.Before(t0) {
			t0 = r.Start
		}
		if r.End.After(t1) {
			t1 = r.End
		}
	}
	colour := map[string]string{}
	for i, p := range order {
		colour[p] = fmt.Sprintf("hsl(%.0f, 62%%, 52%%)", math.Mod(float64(i)*137.508+200, 360))
	}
	stats := make([]*prefixStats, 0, len(byPrefix))
	for _, p := range order {
		stats = append(stats, byPrefix[p])
	}
	slices.SortFunc(stats, func(a, b *prefixStats) int {
		return cmp.Or(cmp.Compare(b.total, a.total), cmp.Compare(a.prefix, b.prefix))
	})

	fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tessera performance report</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; } h2 { font-size: 14px; color: #486581; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 2px 10px 2px 0; border-bottom: 1px solid #eee; }
i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
</style></head><body>
<h1>tessera performance report</h1>
<p>%s to %s (%s): %d task runs, %d key prefixes.</p>
`, began.Format(time.RFC3339), ended.Format(time.RFC3339), ended.Sub(began).Round(time.Millisecond), len(recs), len(stats))
	writeStream(w, recs, t0, t1, colour)
	fmt.Fprintf(w, "<h2>Time by key prefix</h2>\n<table class=\"prefixes\"><tr><th>prefix</th><th>tasks</th><th>total</th><th>mean</th><th>max</th></tr>\n")
	for _, st := range stats {
		fmt.Fprintf(w, "<tr class=\"prefix\" data-prefix=\"%s\" data-tasks=\"%d\"><td><i style=\"background:%s\"></i>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(st.prefix), st.n, colour[st.prefix], html.EscapeString(st.prefix), st.n,
			st.total.Round(time.Microsecond), (st.total / time.Duration(st.n)).Round(time.Microsecond), st.max.Round(time.Microsecond))
	}
	fmt.Fprintf(w, "</table>\n</body></html>\n")
}

// writeStream draws the runs as an SVG task stream: for each worker, runs
// packed into the first lane free at their start.
func writeStream(w io.Writer, recs []sched.TaskRecord, t0, t1 time.Time, colour map[string]string) {
	fmt.Fprintf(w, "<h2>Task stream</h2>\n")
	if len(recs) == 0 {
		fmt.Fprintf(w, "<p>No task ran.</p>\n")
		return
	}
	sorted := slices.Clone(recs)
	slices.SortFunc(sorted, func(a, b sched.TaskRecord) int {
		return cmp.Or(cmp.Compare(a.Worker, b.Worker), a.Start.Compare(b.Start))
	})
	const width, left, laneH = 1100.0, 80.0, 14.0
	span := max(t1.Sub(t0).Seconds(), 1e-6)
	x := func(t time.Time) float64 { return left + t.Sub(t0).Seconds()/span*(width-left-10) }
	type placed struct {
		r    sched.TaskRecord
		lane int
	}
	var bars []placed
	lanesOf := map[int][]time.Time{}
	var workers []int
	for _, r := range sorted {
		ls, ok := lanesOf[r.Worker]
		if !ok {
			workers = append(workers, r.Worker)
		}
		i := slices.IndexFunc(ls, func(end time.Time) bool { return !end.After(r.Start) })
		if i < 0 {
			i = len(ls)
			ls = append(ls, time.Time{})
		}
		ls[i] = r.End
		lanesOf[r.Worker] = ls
		bars = append(bars, placed{r, i})
	}
	top := map[int]float64{}
	y := 0.0
	for _, wk := range workers {
		top[wk] = y
		y += float64(len(lanesOf[wk]))*laneH + 6
	}
	fmt.Fprintf(w, "<svg class=\"stream\" width=\"%.0f\" height=\"%.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n", width, y+20)
	for _, wk := range workers {
		fmt.Fprintf(w, "<text x=\"2\" y=\"%.1f\" font-size=\"11\" fill=\"#486581\">worker %d</text>\n", top[wk]+11, wk)
	}
	for _, b := range bars {
		p := graph.Key(b.r.Key).Prefix()
		x1, x2 := x(b.r.Start), x(b.r.End)
		fmt.Fprintf(w, "<rect class=\"bar\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"><title>%s on worker %d: %s</title></rect>\n",
			x1, top[b.r.Worker]+float64(b.lane)*laneH, max(x2-x1, 0.5), laneH-2, colour[p],
			html.EscapeString(string(b.r.Key)), b.r.Worker, b.r.End.Sub(b.r.Start).Round(time.Microsecond))
	}
	for k := 0; k <= 4; k++ {
		t := t0.Add(time.Duration(float64(t1.Sub(t0)) * float64(k) / 4))
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#829ab1\">%.3f s</text>\n",
			x(t)-float64(k/4)*40, y+14, t.Sub(t0).Seconds())
	}
	fmt.Fprintf(w, "</svg>\n")
}
