package viz

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// ramp is ColorBrewer's 11-class RdBu, the palette Dask's
// visualize(color=...) uses by default: dark red at 0, through white, to
// dark blue at 1. Order colours run it forwards (the first task red, as
// Dask's), time colours backwards (the slowest task red). It is fixed
// data, not matplotlib's colormap machinery, so a picture is the same on
// every machine.
var ramp = [...][3]uint8{
	{0x67, 0x00, 0x1f}, {0xb2, 0x18, 0x2b}, {0xd6, 0x60, 0x4d}, {0xf4, 0xa5, 0x82},
	{0xfd, 0xdb, 0xc7}, {0xf7, 0xf7, 0xf7}, {0xd1, 0xe5, 0xf0}, {0x92, 0xc5, 0xde},
	{0x43, 0x93, 0xc3}, {0x21, 0x66, 0xac}, {0x05, 0x30, 0x61},
}

// rampColor returns the colour at t in [0, 1] as "#rrggbb", interpolating
// linearly between the ramp's anchors. t outside [0, 1] is clamped; NaN
// counts as 0.
func rampColor(t float64) string {
	if !(t > 0) {
		t = 0
	}
	if t > 1 {
		t = 1
	}
	x := t * float64(len(ramp)-1)
	i := int(x)
	if i >= len(ramp)-1 {
		i = len(ramp) - 2
	}
	f := x - float64(i)
	var b []byte
	b = append(b, '#')
	for c := 0; c < 3; c++ {
		v := float64(ramp[i][c])*(1-f) + float64(ramp[i+1][c])*f
		b = appendHex2(b, uint8(math.Round(v)))
	}
	return string(b)
}

func appendHex2(b []byte, v uint8) []byte {
	const hex = "0123456789abcdef"
	return append(b, hex[v>>4], hex[v&15])
}

// dark reports whether "#rrggbb" is dark enough to need white text
// (relative luminance below one half).
func dark(c string) bool {
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return false
	}
	r, g, b := float64(v>>16&0xff), float64(v>>8&0xff), float64(v&0xff)
	return (0.2126*r+0.7152*g+0.0722*b)/255 < 0.5
}

// legend explains a colouring: a title and a row of cells, each a label
// ("fastest", "first"), a value and the colour that value gets.
type legend struct {
	title string
	cells []legendCell
}

type legendCell struct {
	label, value, colour string
}

// html is the legend as a graphviz HTML-like table: the title across the
// top, then one coloured cell per entry.
func (l *legend) html() string {
	var b strings.Builder
	b.WriteString(`<table border="0" cellborder="1" cellspacing="0" cellpadding="4">`)
	fmt.Fprintf(&b, `<tr><td colspan="%d">%s</td></tr><tr>`, len(l.cells), html.EscapeString(l.title))
	for _, c := range l.cells {
		text := html.EscapeString(c.label) + "<br/>" + html.EscapeString(c.value)
		if dark(c.colour) {
			text = `<font color="white">` + text + `</font>`
		}
		fmt.Fprintf(&b, `<td bgcolor="%s">%s</td>`, c.colour, text)
	}
	b.WriteString(`</tr></table>`)
	return b.String()
}

// colours returns the fill colour of every node of g by index, "" for no
// fill, and the legend of the colouring (nil when nothing is coloured).
func colours(g *graph.Graph, d *graph.Deps, opts *Options) ([]string, *legend, error) {
	switch opts.Color {
	case "order":
		return orderColours(g, d)
	case "time":
		fill, lg := timeColours(g, opts.Times)
		return fill, lg, nil
	}
	return make([]string, g.Len()), nil, nil
}

// orderColours colours by optimize.Order priority: the first task run dark
// red, through white, to the last dark blue, as Dask's color="order".
func orderColours(g *graph.Graph, d *graph.Deps) ([]string, *legend, error) {
	n := g.Len()
	prio, err := optimize.Order(g, d)
	if err != nil {
		return nil, nil, fmt.Errorf("viz: order: %w", err)
	}
	at := func(p int) float64 {
		if n <= 1 {
			return 0
		}
		return float64(p) / float64(n-1)
	}
	fill := make([]string, n)
	for i, p := range prio {
		fill[i] = rampColor(at(int(p)))
	}
	mid := (n - 1) / 2
	lg := &legend{title: "order of execution (optimize.Order)", cells: []legendCell{
		{"first", "0", rampColor(0)},
		{"middle", strconv.Itoa(mid), rampColor(at(mid))},
		{"last", strconv.Itoa(n - 1), rampColor(at(n - 1))},
	}}
	return fill, lg, nil
}

// timeColours colours the tasks that have a time: slow is hot (dark red),
// fast is cool (dark blue), on a log scale between the fastest and the
// slowest, because task times span orders of magnitude and a linear
// scale paints all but the few slowest tasks one colour. The first
// version ran the other way (the RdBu ramp as it comes: red fast, blue
// slow), which reads backwards, and had no legend. When every task took
// the same time they are all white, the middle of the ramp.
func timeColours(g *graph.Graph, times map[graph.Key]time.Duration) ([]string, *legend) {
	n := g.Len()
	fill := make([]string, n)
	var ds []time.Duration
	for i := 0; i < n; i++ {
		if dt, ok := times[g.Key(i)]; ok {
			ds = append(ds, dt)
		}
	}
	if len(ds) == 0 {
		return fill, nil
	}
	slices.Sort(ds)
	lo, hi, med := ds[0], ds[len(ds)-1], ds[(len(ds)-1)/2]
	// Durations below 1 ns count as 1 ns: the log of 0 is no colour.
	logLo, logHi := math.Log(float64(max(lo, 1))), math.Log(float64(max(hi, 1)))
	colour := func(dt time.Duration) string {
		t := 0.5
		if logHi > logLo {
			t = (math.Log(float64(max(dt, 1))) - logLo) / (logHi - logLo)
		}
		return rampColor(1 - t) // the ramp runs red to blue
	}
	for i := 0; i < n; i++ {
		if dt, ok := times[g.Key(i)]; ok {
			fill[i] = colour(dt)
		}
	}
	lg := &legend{title: fmt.Sprintf("task time, log scale (%d tasks)", len(ds)), cells: []legendCell{
		{"fastest", formatDuration(lo), colour(lo)},
		{"median", formatDuration(med), colour(med)},
		{"slowest", formatDuration(hi), colour(hi)},
	}}
	return fill, lg
}

// formatDuration writes d to three significant digits ("1.23ms"): a legend
// needs the magnitude, not the nanoseconds.
func formatDuration(d time.Duration) string {
	unit := time.Duration(1)
	for x := d; x >= 1000; x /= 10 {
		unit *= 10
	}
	return d.Round(unit).String()
}
