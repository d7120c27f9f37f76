package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// bench -plot draws the scale group's two figures side by side, log-log:
// the per-task time of the delayed trees against their number of tasks
// (flat is the goal), and the time of the randint sum against its number
// of chunks; one line per source (tessera, Dask) and scheduler.

// scalePanel is one panel of the plot: the rows it draws and how.
type scalePanel struct {
	name, title, xLabel, yLabel string
	// point returns r's point in the panel, ok false when r does not
	// belong to it.
	point func(r *benchResult) (x, y float64, ok bool)
}

// scalePanels are the panels, in order, left to right.
var scalePanels = []scalePanel{
	{
		name: "delayed", title: "delayed tree: compute time per task", xLabel: "tasks", yLabel: "µs per task (median)",
		point: func(r *benchResult) (float64, float64, bool) {
			ok := strings.HasPrefix(r.Workload, "scale_delayed_") || strings.HasPrefix(r.Workload, "delayed_tree_")
			if !ok || r.Tasks <= 0 {
				return 0, 0, false
			}
			return float64(r.Tasks), 1e6 * r.MedianS / float64(r.Tasks), true
		},
	},
	{
		name: "randint", title: "randint(0, 100, 500³, chunks).sum()", xLabel: "chunks", yLabel: "seconds (median)",
		point: func(r *benchResult) (float64, float64, bool) {
			if !strings.HasPrefix(r.Workload, "randint500^3_sum_chunks") || r.NChunks <= 0 {
				return 0, 0, false
			}
			return float64(r.NChunks), r.MedianS, true
		},
	},
}

// plotSeries is one line of the plot.
type plotSeries struct {
	Panel     string // a scalePanel's name
	Source    string // "tessera" or "Dask"
	Scheduler string
	Points    plotter.XYs // by increasing x
}

func (s plotSeries) label() string { return s.Source + " " + s.Scheduler }

// schedRank orders schedulers in the legend, and picks their colours.
func schedRank(s string) int {
	if i := slices.Index([]string{"sync", "threads", "distributed"}, s); i >= 0 {
		return i
	}
	return 3
}

// scaleSeries returns the plot's lines: for each panel, tessera's then
// Dask's, one per scheduler (sync, threads, distributed, others by
// name). Rows of other workloads, and points a log axis cannot show (zero
// or negative), are left out; a line has at least one point.
func scaleSeries(tessera, dask []benchResult) []plotSeries {
	var out []plotSeries
	for _, p := range scalePanels {
		for _, src := range []struct {
			name string
			rows []benchResult
		}{{"tessera", tessera}, {"Dask", dask}} {
			var lines []plotSeries
			for i := range src.rows {
				x, y, ok := p.point(&src.rows[i])
				if !ok || !(x > 0) || !(y > 0) || math.IsInf(y, 0) {
					continue
				}
				j := slices.IndexFunc(lines, func(s plotSeries) bool { return s.Scheduler == src.rows[i].Scheduler })
				if j < 0 {
					lines = append(lines, plotSeries{Panel: p.name, Source: src.name, Scheduler: src.rows[i].Scheduler})
					j = len(lines) - 1
				}
				lines[j].Points = append(lines[j].Points, plotter.XY{X: x, Y: y})
			}
			slices.SortStableFunc(lines, func(a, b plotSeries) int {
				if d := schedRank(a.Scheduler) - schedRank(b.Scheduler); d != 0 {
					return d
				}
				return strings.Compare(a.Scheduler, b.Scheduler)
			})
			for _, l := range lines {
				slices.SortStableFunc(l.Points, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
			}
			out = append(out, lines...)
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// plotBench draws rows (and Dask's rows from the JSON lines in daskPath,
// if any) to the PNG file path, atomically.
func plotBench(path string, rows []benchResult, daskPath string) error {
	var dask []benchResult
	if daskPath != "" {
		var err error
		if dask, err = readResults(daskPath); err != nil {
			return err
		}
	}
	series := scaleSeries(rows, dask)
	if len(series) == 0 {
		return fmt.Errorf("%s: nothing to draw: no results of the delayed trees or the randint sums (the scale group)", path)
	}
	return writeFileAtomic(path, func(w io.Writer) error { return drawScale(w, series) })
}

// drawScale draws series as a PNG, one panel per scalePanel that has a
// line.
func drawScale(w io.Writer, series []plotSeries) error {
	var plots []*plot.Plot
	for _, p := range scalePanels {
		var mine []plotSeries
		for _, s := range series {
			if s.Panel == p.name {
				mine = append(mine, s)
			}
		}
		if len(mine) == 0 {
			continue
		}
		pl, err := panelPlot(p, mine)
		if err != nil {
			return err
		}
		plots = append(plots, pl)
	}
	const panelW, panelH = 6.5 * vg.Inch, 5 * vg.Inch
	img := vgimg.New(vg.Length(len(plots))*panelW, panelH)
	dc := draw.New(img)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8,
		PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, pl := range plots {
		pl.Draw(canvases[0][i])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// panelPlot makes one panel: log-log axes, a line and marks per series,
// tessera solid with round marks, Dask dashed with triangles, a colour
// per scheduler; the y range leaves room above for the legend.
func panelPlot(p scalePanel, series []plotSeries) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = p.title
	pl.X.Label.Text, pl.Y.Label.Text = p.xLabel, p.yLabel
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.TickerFunc(logTicks), plot.TickerFunc(logTicks)
	pl.Add(plotter.NewGrid())
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range series {
		l, sc, err := plotter.NewLinePoints(s.Points)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(schedRank(s.Scheduler))
		l.Color, sc.Color = c, c
		l.Width = vg.Points(1.5)
		sc.Radius = vg.Points(3.5)
		if s.Source == "tessera" {
			sc.Shape = draw.CircleGlyph{}
		} else {
			sc.Shape = draw.TriangleGlyph{}
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		pl.Add(l, sc)
		pl.Legend.Add(s.label(), l, sc)
		for _, pt := range s.Points {
			xmin, xmax = math.Min(xmin, pt.X), math.Max(xmax, pt.X)
			ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
		}
	}
	pl.X.Min, pl.X.Max = xmin/1.5, xmax*1.5
	pl.Y.Min, pl.Y.Max = ymin/2, ymax*8
	pl.Legend.Top = true
	pl.Legend.Left = true
	pl.Legend.XOffs, pl.Legend.YOffs = vg.Points(6), -vg.Points(10)
	return pl, nil
}

// logTicks labels 1, 2 and 5 times the powers of ten between min and
// max (only the powers when that would be more than eight labels; the
// two ends when fewer than two), with unlabelled ticks at the other
// integers times them.
func logTicks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	lo, hi := int(math.Floor(math.Log10(min))), int(math.Ceil(math.Log10(max)))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		for m := 1; m <= 9; m++ {
			if v := float64(m) * math.Pow(10, float64(e)); v >= min && v <= max {
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	mantissa := func(v float64) int { return int(math.Round(v / math.Pow(10, math.Floor(math.Log10(v)+1e-9)))) }
	labelled := []int{1, 2, 5}
	if n := len(slices.DeleteFunc(slices.Clone(ticks), func(t plot.Tick) bool { return !slices.Contains(labelled, mantissa(t.Value)) })); n > 8 {
		labelled = []int{1}
	}
	n := 0
	for i := range ticks {
		if slices.Contains(labelled, mantissa(ticks[i].Value)) {
			ticks[i].Label = tickLabel(ticks[i].Value)
			n++
		}
	}
	if n < 2 {
		ticks = append(ticks, plot.Tick{Value: min, Label: strconv.FormatFloat(min, 'g', 2, 64)},
			plot.Tick{Value: max, Label: strconv.FormatFloat(max, 'g', 2, 64)})
	}
	return ticks
}

// tickLabel writes v shortly: 0.5, 20, 1000, 1e4, 2e5.
func tickLabel(v float64) string {
	if v >= 1e4 || v < 1e-3 {
		s := strconv.FormatFloat(v, 'e', -1, 64) // 2e+05
		s = strings.Replace(s, "e+0", "e", 1)
		s = strings.Replace(s, "e+", "e", 1)
		return strings.Replace(s, "e-0", "e-", 1)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// writeFileAtomic writes path through write into a temporary file in the
// same directory, then renames it over path: a reader never sees half a
// file, and a failed write leaves path as it was.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
