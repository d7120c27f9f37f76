package viz

import (
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
)

// TestLegend: a coloured picture carries one legend node, an HTML table
// whose cells name the scale's ends and middle in the colours the nodes
// get; an uncoloured picture, or time colours without times, has none.
// The wanted tables are written out by hand: 100 µs is half way between
// 1 µs and 10 ms on a log scale, so white; the middle of four priorities
// is 1/3 of the ramp, between its anchors #f4a582 and #fddbc7; the legend
// is node n8, after the 7 nodes of the graph (x's box, a circle and a box
// for each of a, b, c).
func TestLegend(t *testing.T) {
	g := graph.New(4)
	op := &graph.FuncOp{OpName: "legendt.inc"}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(g.Set("x", graph.Literal(1)))
	must(g.Set("a", graph.Task(op, graph.Ref("x"))))
	must(g.Set("b", graph.Task(op, graph.Ref("a"))))
	must(g.Set("c", graph.Task(op, graph.Ref("b"))))
	const head = `<table border="0" cellborder="1" cellspacing="0" cellpadding="4">`
	for _, tc := range []struct {
		name string
		opts Options
		want string // the legend's label; "" for no legend
	}{
		{"none", Options{}, ""},
		{"time without times", Options{Color: "time"}, ""},
		{"time", Options{Color: "time", Times: map[graph.Key]time.Duration{"a": time.Microsecond, "b": 100 * time.Microsecond, "c": 10 * time.Millisecond}},
			head + `<tr><td colspan="3">task time, log scale (3 tasks)</td></tr><tr>` +
				`<td bgcolor="#053061"><font color="white">fastest<br/>1µs</font></td>` +
				`<td bgcolor="#f7f7f7">median<br/>100µs</td>` +
				`<td bgcolor="#67001f"><font color="white">slowest<br/>10ms</font></td></tr></table>`},
		{"time all equal", Options{Color: "time", Times: map[graph.Key]time.Duration{"a": 5, "b": 5}},
			head + `<tr><td colspan="3">task time, log scale (2 tasks)</td></tr><tr>` +
				`<td bgcolor="#f7f7f7">fastest<br/>5ns</td><td bgcolor="#f7f7f7">median<br/>5ns</td><td bgcolor="#f7f7f7">slowest<br/>5ns</td></tr></table>`},
		{"order", Options{Color: "order"},
			head + `<tr><td colspan="3">order of execution (optimize.Order)</td></tr><tr>` +
				`<td bgcolor="#67001f"><font color="white">first<br/>0</font></td>` +
				`<td bgcolor="#f7b799">middle<br/>1</td>` +
				`<td bgcolor="#053061"><font color="white">last<br/>3</font></td></tr></table>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := DOT(g, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var legends []string
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "<table") {
					legends = append(legends, line)
				}
			}
			if tc.want == "" {
				if len(legends) != 0 {
					t.Errorf("want no legend, got %q", legends)
				}
				return
			}
			want := "\tn8[label=<" + tc.want + `>,shape="plaintext"];`
			if len(legends) != 1 || legends[0] != want {
				t.Errorf("legend:\ngot  %q\nwant %q", legends, want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{7, "7ns"},
		{999, "999ns"},
		{1234, "1.23µs"},
		{999_999, "1ms"},
		{1_234_567, "1.23ms"},
		{12_345_678_901, "12.3s"},
		{-1500, "-1.5µs"},
	} {
		if got := formatDuration(tc.d); got != tc.want {
			t.Errorf("formatDuration(%d) = %q, want %q", int64(tc.d), got, tc.want)
		}
	}
}
