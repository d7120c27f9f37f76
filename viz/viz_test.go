package viz_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/viz"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenCases are the pictures kept in testdata/NAME.dot. They were
// generated with -update and inspected by eye (rendered with dot).
func goldenCases() []struct {
	name string
	es   []entry
	opts viz.Options
} {
	return []struct {
		name string
		es   []entry
		opts viz.Options
	}{
		{"sumsq", sumSquares(), viz.Options{}},
		{"sumsq-lr", sumSquares(), viz.Options{RankDir: "LR"}},
		{"tree", tree(), viz.Options{}},
		{"tree-order", tree(), viz.Options{Color: "order"}},
		{"tree-collapse", tree(), viz.Options{Collapse: true}},
		{"tree-clusters", tree(), viz.Options{Clusters: true}},
		{"tree-time", tree(), viz.Options{Color: "time", Times: treeTimes()}},
	}
}

// treeTimes gives each task of the tree 1 ms per level above the chunks:
// loads 1 ms, the first sums 2 ms, ..., the root 4 ms.
func treeTimes() map[graph.Key]time.Duration {
	g := build(tree())
	d := must(g.Dependencies())
	level := make([]int, g.Len())
	t := map[graph.Key]time.Duration{}
	for range g.Len() { // relax until stable: the graph is small
		for i := 0; i < g.Len(); i++ {
			for _, j := range d.Of(i) {
				level[i] = max(level[i], level[j]+1)
			}
		}
	}
	for i := 0; i < g.Len(); i++ {
		if g.At(i).Kind == graph.KindTask {
			t[g.Key(i)] = time.Duration(level[i]+1) * time.Millisecond
		}
	}
	return t
}

// TestColorTime checks the time colouring against the durations: slow is
// hot, so the longest tasks take the ramp's dark red, the shortest its
// dark blue, 2 ms (half way between 1 and 4 ms on a log scale) its white
// middle; nodes without a time stay unfilled.
func TestColorTime(t *testing.T) {
	times := treeTimes()
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for _, dt := range times {
		lo, hi = min(lo, dt), max(hi, dt)
	}
	p := parse(t, must(viz.DOT(build(tree()), viz.Options{Color: "time", Times: times})))
	for id, a := range p.nodes {
		dt, ok := times[graph.Key(a["tooltip"])]
		var want string
		switch {
		case !ok:
			want = ""
		case dt == lo:
			want = "#053061"
		case dt == hi:
			want = "#67001f"
		case dt == 2*time.Millisecond:
			want = "#f7f7f7"
		default:
			continue
		}
		if got := a["fillcolor"]; got != want {
			t.Errorf("node %s (%s, %v): fill %q, want %q", id, a["tooltip"], dt, got, want)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := viz.DOT(build(tc.es), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.name+".dot")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("DOT differs from %s (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// TestInsertionOrder builds every golden graph in several shuffled orders:
// the bytes must not change.
func TestInsertionOrder(t *testing.T) {
	for _, tc := range goldenCases() {
		want := must(viz.DOT(build(tc.es), tc.opts))
		for seed := uint64(1); seed <= 5; seed++ {
			got := must(viz.DOT(build(shuffled(tc.es, seed)), tc.opts))
			if !bytes.Equal(got, want) {
				t.Errorf("%s, shuffle %d: DOT depends on insertion order:\ngot:\n%s\nwant:\n%s", tc.name, seed, got, want)
			}
		}
	}
}

// picture is a parsed DOT file: just enough to count what was drawn.
type picture struct {
	nodes map[string]map[string]string // id -> attributes
	edges [][2]string
	attrs []map[string]string // of the edges
}

var (
	nodeRE = regexp.MustCompile(`^\s*(n\d+)\[(.*)\];$`)
	edgeRE = regexp.MustCompile(`^\s*(n\d+)->(n\d+)(?:\[(.*)\])?;$`)
	attrRE = regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)
)

func parse(t *testing.T, b []byte) picture {
	t.Helper()
	p := picture{nodes: map[string]map[string]string{}}
	attrs := func(s string) map[string]string {
		m := map[string]string{}
		for _, a := range attrRE.FindAllStringSubmatch(s, -1) {
			m[a[1]] = a[2]
		}
		return m
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m := edgeRE.FindStringSubmatch(line); m != nil {
			p.edges = append(p.edges, [2]string{m[1], m[2]})
			p.attrs = append(p.attrs, attrs(m[3]))
		} else if m := nodeRE.FindStringSubmatch(line); m != nil {
			if _, dup := p.nodes[m[1]]; dup {
				t.Fatalf("node %s drawn twice", m[1])
			}
			p.nodes[m[1]] = attrs(m[2])
		}
	}
	return p
}

func (p picture) count(attr, value string) int {
	n := 0
	for _, a := range p.nodes {
		if a[attr] == value {
			n++
		}
	}
	return n
}

// TestShape counts circles, boxes and edges against what the graph says
// they must be: a circle per task, a box per key (none for tasks when
// collapsed), an edge per distinct dependency plus one from each task to
// its box.
func TestShape(t *testing.T) {
	withDup := append(sumSquares(), entry{"double", graph.Task(opAdd, graph.Ref("x"), graph.Ref("x"))})
	for _, tc := range []struct {
		name     string
		es       []entry
		collapse bool
	}{
		{"sumsq", sumSquares(), false},
		{"sumsq collapsed", sumSquares(), true},
		{"tree", tree(), false},
		{"tree collapsed", tree(), true},
		{"repeated ref", withDup, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(tc.es)
			d := must(g.Dependencies())
			var tasks, deps, aliases int
			for i := 0; i < g.Len(); i++ {
				deps += len(d.Of(i))
				switch g.At(i).Kind {
				case graph.KindTask:
					tasks++
				case graph.KindAlias:
					aliases++
				}
			}
			p := parse(t, must(viz.DOT(g, viz.Options{Collapse: tc.collapse})))
			wantBoxes, wantEdges := g.Len(), deps+tasks
			if tc.collapse {
				wantBoxes, wantEdges = g.Len()-tasks, deps
			}
			if got := p.count("shape", "circle"); got != tasks {
				t.Errorf("circles: got %d, want %d", got, tasks)
			}
			if got := p.count("shape", "box"); got != wantBoxes {
				t.Errorf("boxes: got %d, want %d", got, wantBoxes)
			}
			if got := len(p.edges); got != wantEdges {
				t.Errorf("edges: got %d, want %d", got, wantEdges)
			}
			dashed := 0
			for _, a := range p.attrs {
				if a["style"] == "dashed" {
					dashed++
				}
			}
			if dashed != aliases {
				t.Errorf("dashed edges: got %d, want %d (one per alias)", dashed, aliases)
			}
			for _, e := range p.edges {
				if p.nodes[e[0]] == nil || p.nodes[e[1]] == nil {
					t.Errorf("edge %s->%s to an undrawn node", e[0], e[1])
				}
			}
		})
	}
}

// TestColorOrder checks the order colouring against optimize.Order: the
// task run first is the first colour of the ramp (dark red), the node run
// last the last (dark blue), and nodes with equal colours are exactly the
// circle and box of one key.
func TestColorOrder(t *testing.T) {
	g := build(tree())
	prio := must(optimize.Order(g, nil))
	first, last := -1, -1
	for i, p := range prio {
		if p == 0 {
			first = i
		}
		if int(p) == g.Len()-1 {
			last = i
		}
	}
	p := parse(t, must(viz.DOT(g, viz.Options{Color: "order"})))
	byColor := map[string][]string{}
	for _, a := range p.nodes {
		if a["tooltip"] == "" {
			continue // the legend
		}
		byColor[a["fillcolor"]] = append(byColor[a["fillcolor"]], a["tooltip"])
	}
	check := func(color string, want graph.Key) {
		keys := byColor[color]
		if len(keys) == 0 || keys[0] != string(want) {
			t.Errorf("colour %s: got nodes %q, want %q", color, keys, want)
		}
	}
	check("#67001f", g.Key(first))
	check("#053061", g.Key(last))
	if len(byColor) != g.Len() {
		t.Errorf("distinct colours: got %d, want one per key (%d)", len(byColor), g.Len())
	}
	for c, keys := range byColor {
		for _, k := range keys[1:] {
			if k != keys[0] {
				t.Errorf("colour %s shared by %q and %q", c, keys[0], k)
			}
		}
	}
}

func TestClusters(t *testing.T) {
	g := build(tree())
	b := must(viz.DOT(g, viz.Options{Clusters: true}))
	layers := map[string]bool{}
	for _, k := range g.Keys() {
		layers[k.Name()] = true
	}
	if got := bytes.Count(b, []byte("subgraph cluster_")); got != len(layers) {
		t.Errorf("clusters: got %d, want one per layer (%d)", got, len(layers))
	}
}

func TestOptimizeCulls(t *testing.T) {
	es := append(sumSquares(), entry{"unused", graph.Task(opSquare, graph.Ref("x"))})
	g := build(es)
	var out graph.Key
	for _, e := range sumSquares() {
		out = e.key // the add is last
	}
	got := string(must(viz.DOT(g, viz.Options{Optimize: true, Keys: []graph.Key{out}})))
	if strings.Contains(got, `"unused"`) {
		t.Errorf("Optimize kept a node that %s does not need:\n%s", out, got)
	}
	all := string(must(viz.DOT(g, viz.Options{})))
	if !strings.Contains(all, `"unused"`) {
		t.Errorf("without Optimize the node is missing:\n%s", all)
	}
}

func TestErrors(t *testing.T) {
	cyc := graph.New(2)
	must(0, cyc.AddTask("a", opLoad, graph.Ref("b")))
	must(0, cyc.AddTask("b", opLoad, graph.Ref("a")))
	missing := graph.New(1)
	must(0, missing.AddTask("a", opLoad, graph.Ref("nowhere")))
	var cycErr *graph.CycleError
	var missErr *graph.MissingKeyError
	var optErr *viz.OptionError
	for _, tc := range []struct {
		name string
		g    *graph.Graph
		opts viz.Options
		as   any
	}{
		{"cycle", cyc, viz.Options{}, &cycErr},
		{"missing key", missing, viz.Options{}, &missErr},
		{"bad rankdir", build(tree()), viz.Options{RankDir: "up"}, &optErr},
		{"bad color", build(tree()), viz.Options{Color: "rainbow"}, &optErr},
		{"optimize for a missing key", build(tree()), viz.Options{Optimize: true, Keys: []graph.Key{"nope"}}, &missErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := viz.DOT(tc.g, tc.opts)
			if err == nil || !errors.As(err, tc.as) {
				t.Errorf("got error %v, want %T", err, tc.as)
			}
		})
	}
}

func haveDot(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("dot"); err != nil {
		t.Skip("graphviz dot is not installed")
	}
}

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		magic        []byte
		needsDot     bool
	}{
		{"g.dot", "", []byte("digraph"), false},
		{"g.svg", "", []byte("<svg"), true},
		{"g.png", "", []byte("\x89PNG\r\n\x1a\n"), true},
		{"g.pdf", "", []byte("%PDF"), true},
		{"picture", "svg", []byte("<svg"), true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if tc.needsDot {
				haveDot(t)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			if err := viz.Render(context.Background(), build(tree()), path, tc.format, viz.Options{Color: "order"}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head := b[:min(len(b), 512)]
			if !bytes.Contains(head, tc.magic) {
				t.Errorf("%s starts %q, want it to contain %q", tc.file, head[:min(len(head), 40)], tc.magic)
			}
			onlyFile(t, dir, tc.file)
		})
	}
}

// onlyFile fails unless dir holds exactly the named file (or nothing when
// name is ""): no temporary file may be left behind.
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	want := []string{}
	if name != "" {
		want = []string{name}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

func TestRenderWithoutGraphviz(t *testing.T) {
	t.Setenv("PATH", "")
	dir := t.TempDir()
	for _, name := range []string{"g.svg", "g.png", "g.pdf"} {
		err := viz.Render(context.Background(), build(sumSquares()), filepath.Join(dir, name), "", viz.Options{})
		if !errors.Is(err, viz.ErrNoGraphviz) {
			t.Errorf("%s: got %v, want an error wrapping ErrNoGraphviz", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "apt-get install graphviz") {
			t.Errorf("%s: error %q does not say how to install graphviz", name, err)
		}
	}
	onlyFile(t, dir, "")
}

func TestRenderFailures(t *testing.T) {
	ctx := context.Background()
	cyc := graph.New(2)
	must(0, cyc.AddTask("a", opLoad, graph.Ref("b")))
	must(0, cyc.AddTask("b", opLoad, graph.Ref("a")))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, tc := range []struct {
		name, file, format string
		g                  *graph.Graph
		ctx                context.Context
	}{
		{"unknown extension", "g.txt", "", build(tree()), ctx},
		{"unknown format", "g.svg", "gif", build(tree()), ctx},
		{"bad graph", "g.dot", "", cyc, ctx},
		{"cancelled", "g.svg", "", build(tree()), cancelled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := viz.Render(tc.ctx, tc.g, filepath.Join(dir, tc.file), tc.format, viz.Options{}); err == nil {
				t.Error("got no error")
			}
			onlyFile(t, dir, "")
		})
	}
}

// TestFusedLabel checks that a fused chain is labelled with the ops it
// holds: load -> square -> add, fused by Optimize into one task, must show
// a single circle whose label names all three.
func TestFusedLabel(t *testing.T) {
	g := build([]entry{
		{"load-00000000aaaaaaaa", graph.Task(opLoad, graph.Lit(1))},
		{"square-00000000bbbbbbbb", graph.Task(opSquare, graph.Ref("load-00000000aaaaaaaa"))},
		{"add-00000000cccccccc", graph.Task(opAdd, graph.Ref("square-00000000bbbbbbbb"), graph.Lit(1))},
	})
	p := parse(t, must(viz.DOT(g, viz.Options{Optimize: true, Keys: []graph.Key{"add-00000000cccccccc"}})))
	var labels []string
	for _, a := range p.nodes {
		if a["shape"] == "circle" {
			labels = append(labels, a["label"])
		}
	}
	if fmt.Sprint(labels) != "[load-square-add]" {
		t.Errorf("circles: got %q, want one labelled load-square-add", labels)
	}
}

// nastyKeys are keys with characters that DOT quoting must survive.
var nastyKeys = []graph.Key{
	`quote"d`, `back\slash`, `trailing\`, "new\nline", "tab\there", "ünïcødé-0123456789abcdef",
	`\N\G\L`, "ctl\x01char", `{braces};[brackets]`, "-", "[0]", "x[", "x[1,2,3]", "x[-1]",
}

func nastyGraph(keys []graph.Key) *graph.Graph {
	g := graph.New(2 * len(keys))
	for i, k := range keys {
		lit := graph.Key(fmt.Sprintf("lit%d", i))
		must(0, g.AddLiteral(lit, i))
		_ = g.AddTask(k, opLoad, graph.Ref(lit)) // a duplicate key is fine to skip
	}
	return g
}

// TestNastyKeys renders keys full of quotes, backslashes and control
// characters: dot must accept the file.
func TestNastyKeys(t *testing.T) {
	haveDot(t)
	path := filepath.Join(t.TempDir(), "nasty.svg")
	if err := viz.Render(context.Background(), nastyGraph(nastyKeys), path, "", viz.Options{Clusters: true}); err != nil {
		t.Fatal(err)
	}
}

// FuzzDOT: any keys give a picture with one circle per task, the same
// bytes twice, and never a panic.
func FuzzDOT(f *testing.F) {
	for _, k := range nastyKeys {
		f.Add(string(k), "y[0]")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if a == "" || b == "" || strings.HasPrefix(a, "lit") || strings.HasPrefix(b, "lit") {
			return
		}
		g := nastyGraph([]graph.Key{graph.Key(a), graph.Key(b)})
		tasks := 0
		for i := 0; i < g.Len(); i++ {
			if g.At(i).Kind == graph.KindTask {
				tasks++
			}
		}
		for _, opts := range []viz.Options{{}, {Clusters: true, Color: "order"}, {Collapse: true}} {
			b1, err := viz.DOT(g, opts)
			if err != nil {
				t.Fatal(err)
			}
			b2 := must(viz.DOT(g, opts))
			if !bytes.Equal(b1, b2) {
				t.Fatalf("two calls differ:\n%s\n%s", b1, b2)
			}
			if got := bytes.Count(b1, []byte(`shape="circle"`)); got != tasks {
				t.Errorf("%+v: %d circles, want %d", opts, got, tasks)
			}
		}
	})
}

// TestRenderKeepsOldFile: a failed Render leaves a file already at the
// path as it was.
func TestRenderKeepsOldFile(t *testing.T) {
	t.Setenv("PATH", "")
	dir := t.TempDir()
	path := filepath.Join(dir, "g.svg")
	old := []byte("<svg>old</svg>")
	must(0, os.WriteFile(path, old, 0o644))
	if err := viz.Render(context.Background(), build(tree()), path, "", viz.Options{}); err == nil {
		t.Fatal("got no error without graphviz")
	}
	if got := must(os.ReadFile(path)); !bytes.Equal(got, old) {
		t.Errorf("file changed to %q, want %q", got, old)
	}
	onlyFile(t, dir, "g.svg")
}

// fakeDot puts a dot on PATH that runs script (a /bin/sh body).
func fakeDot(t *testing.T, script string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh for a fake dot")
	}
	bin := t.TempDir()
	must(0, os.WriteFile(filepath.Join(bin, "dot"), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	t.Setenv("PATH", bin)
}

func sleepPath(t *testing.T) string {
	p, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary for a slow fake dot")
	}
	return p
}

// TestRenderDotFails: dot writing half a picture and failing, or being
// cancelled while it runs, leaves the old file and no temporary file.
func TestRenderDotFails(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		timeout      time.Duration
		want         string
	}{
		{"exit 1", "echo '<svg partial'; echo 'syntax error in line 1' >&2; exit 1", 0, "syntax error in line 1"},
		{"cancelled", "echo '<svg partial'; exec " + sleepPath(t) + " 30", 100 * time.Millisecond, "deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fakeDot(t, tc.script)
			dir := t.TempDir()
			path := filepath.Join(dir, "g.svg")
			old := []byte("<svg>old</svg>")
			must(0, os.WriteFile(path, old, 0o644))
			ctx := context.Background()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			err := viz.Render(ctx, build(tree()), path, "", viz.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one mentioning %q", err, tc.want)
			}
			if got := must(os.ReadFile(path)); !bytes.Equal(got, old) {
				t.Errorf("file changed to %q, want %q", got, old)
			}
			onlyFile(t, dir, "g.svg")
		})
	}
}
