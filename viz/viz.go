package viz

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/emicklei/dot"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// Options control a picture. The zero value draws the graph as it is,
// bottom to top, uncoloured.
type Options struct {
	// RankDir is the direction of the arrows: "BT" (the default, Dask's:
	// inputs at the bottom, results on top), "TB", "LR" or "RL".
	RankDir string
	// Optimize draws the graph that Compute would run: optimize.Optimize
	// of g for Keys (cull, inline constants, fuse chains).
	Optimize bool
	// Keys are the outputs of the graph, for Optimize. Empty means every
	// node that no other node depends on.
	Keys []graph.Key
	// Color fills nodes: "" leaves them white; "order" colours every node
	// by its optimize.Order priority, first run (red) to last (blue);
	// "time" colours tasks by Times, fastest (blue) to slowest (red) on a
	// log scale, and leaves nodes without a time white. Either adds a
	// legend node that says what the colours mean.
	Color string
	// Times are measured task durations, for Color "time" (see
	// sched.Profiler's Durations).
	Times map[graph.Key]time.Duration
	// Collapse omits the boxes of task results, as Dask's
	// collapse_outputs: a task's circle connects straight to the circles
	// of the tasks that use it. Literals and aliases keep their boxes.
	Collapse bool
	// Clusters draws each layer (a key's name without its block index)
	// in a box of its own, labelled with the layer's name.
	Clusters bool
}

// OptionError reports an invalid field of Options.
type OptionError struct {
	Field string // "RankDir", "Color", ...
	Value string
}

func (e *OptionError) Error() string {
	var want string
	switch e.Field {
	case "RankDir":
		want = "BT, TB, LR or RL"
	case "Color":
		want = `"", order or time`
	case "format":
		want = "dot, svg, png or pdf"
	}
	return fmt.Sprintf("viz: invalid %s %q (want %s)", e.Field, e.Value, want)
}

func (o *Options) check() error {
	switch o.RankDir {
	case "", "BT", "TB", "LR", "RL":
	default:
		return &OptionError{Field: "RankDir", Value: o.RankDir}
	}
	switch o.Color {
	case "", "order", "time":
	default:
		return &OptionError{Field: "Color", Value: o.Color}
	}
	return nil
}

// DOT returns the picture of g in the graphviz DOT language. The bytes
// depend only on the graph's content and opts, never on the order in which
// the graph was built. g is not modified. A graph that fails Validate gives
// the graph's typed error (*graph.CycleError, *graph.MissingKeyError).
func DOT(g *graph.Graph, opts Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteDOT(&buf, g, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteDOT writes the picture of g in the DOT language to w; see DOT.
func WriteDOT(w io.Writer, g *graph.Graph, opts Options) error {
	if g == nil {
		return fmt.Errorf("viz: nil graph")
	}
	if err := opts.check(); err != nil {
		return err
	}
	dg, err := build(g, &opts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	dg.Write(&buf)
	if _, err := w.Write(tidy(buf.Bytes())); err != nil {
		return fmt.Errorf("viz: write dot: %w", err)
	}
	return nil
}

// tidy drops the blank, tab-indented lines emicklei/dot writes after each
// attribute block and its double space after an anonymous "digraph": they
// are invisible in an editor but not to diff or to a // Output: comment.
func tidy(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i+1], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if bytes.HasPrefix(line, []byte("digraph  {")) {
			line = []byte("digraph {\n")
		}
		out = append(out, line...)
	}
	return out
}

// canonical returns g rebuilt in sorted key order. Everything after it
// (optimize, order, node numbering) sees the same graph whatever order g
// was built in, which is what makes the output byte-stable.
func canonical(g *graph.Graph) (*graph.Graph, error) {
	keys := append([]graph.Key(nil), g.Keys()...)
	sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	out := graph.New(len(keys))
	for _, k := range keys {
		n, _ := g.Get(k)
		if err := out.Set(k, *n); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// outputs returns the keys no node depends on, sorted.
func outputs(g *graph.Graph, d *graph.Deps) []graph.Key {
	var out []graph.Key
	for i := 0; i < g.Len(); i++ {
		if len(d.Users(i)) == 0 {
			out = append(out, g.Key(i))
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] < out[b] })
	return out
}

func build(g0 *graph.Graph, opts *Options) (*dot.Graph, error) {
	g, err := canonical(g0)
	if err != nil {
		return nil, err
	}
	d, err := g.ValidateDeps()
	if err != nil {
		return nil, err
	}
	if opts.Optimize {
		keys := opts.Keys
		if len(keys) == 0 {
			keys = outputs(g, d)
		}
		if g, _, err = optimize.Optimize(g, keys); err != nil {
			return nil, err
		}
		// The optimized graph is built in the pass's own order; make it
		// canonical again so that numbering does not depend on the pass.
		if g, err = canonical(g); err != nil {
			return nil, err
		}
		if d, err = g.ValidateDeps(); err != nil {
			return nil, err
		}
	}
	fill, lg, err := colours(g, d, opts)
	if err != nil {
		return nil, err
	}

	root := dot.NewGraph(dot.Directed)
	rank := opts.RankDir
	if rank == "" {
		rank = "BT"
	}
	root.Attr("rankdir", rank)

	clusters := map[string]*dot.Graph{}
	parent := func(k graph.Key) *dot.Graph {
		if !opts.Clusters {
			return root
		}
		layer := k.Name()
		c, ok := clusters[layer]
		if !ok {
			c = root.Subgraph(layer, dot.ClusterOption{})
			c.Attr("label", layerLabel(k))
			clusters[layer] = c
		}
		return c
	}

	n := g.Len()
	// box[i] is the node that stands for the value of key i (a box, or the
	// task's circle when collapsed); circle[i] is task i's circle.
	box := make([]dot.Node, n)
	circle := make([]dot.Node, n)
	// Nodes are created in sorted key order, circle before box, so that
	// emicklei/dot numbers them (n1, n2, ...) the same way every time. It
	// writes them sorted by id: key, NUL, then a for the circle and b for
	// the box keeps a task's two nodes together in key order.
	for i := 0; i < n; i++ {
		k := g.Key(i)
		node := g.At(i)
		p := parent(k)
		if node.Kind == graph.KindTask {
			c := p.Node(string(k) + "\x00a")
			c.Attr("label", taskLabel(node))
			c.Attr("shape", "circle")
			c.Attr("tooltip", string(k))
			paint(c, fill[i])
			circle[i] = c
			if opts.Collapse {
				box[i] = c
				continue
			}
		}
		b := p.Node(string(k) + "\x00b")
		b.Attr("label", boxLabel(k))
		b.Attr("shape", "box")
		b.Attr("tooltip", string(k))
		if node.Kind == graph.KindAlias {
			b.Attr("style", "dashed")
		}
		paint(b, fill[i])
		box[i] = b
	}
	for i := 0; i < n; i++ {
		node := g.At(i)
		switch node.Kind {
		case graph.KindTask:
			for _, j := range d.Of(i) {
				root.Edge(box[j], circle[i])
			}
			if !opts.Collapse {
				root.Edge(circle[i], box[i])
			}
		case graph.KindAlias:
			j, _ := g.Index(node.Target)
			root.Edge(box[j], box[i]).Attr("style", "dashed")
		}
	}
	if lg != nil {
		// Created last, so that it takes the last number and no node of
		// the graph is renumbered; its id sorts before every key's
		// ("\x00" then a letter after "a" and "b"), so it is written
		// first, alone, unconnected.
		l := root.Node("\x00legend")
		l.Attr("label", dot.HTML(lg.html()))
		l.Attr("shape", "plaintext")
	}
	return root, nil
}

// paint fills n with colour c; "" leaves it as it is.
func paint(n dot.Node, c string) {
	if c == "" {
		return
	}
	if n.Value("style") == "dashed" {
		n.Attr("style", "filled,dashed")
	} else {
		n.Attr("style", "filled")
	}
	n.Attr("fillcolor", c)
	if dark(c) {
		n.Attr("fontcolor", "white")
	}
}

// taskLabel is the label of a task's circle: its op's short name, after
// the short names of the ops fused or inlined into it as nested arguments,
// sorted and without repeats ("load-add" for an add whose argument is a
// nested load), which is how Dask names fused tasks.
func taskLabel(n *graph.Node) string {
	top := labelOf(n.Op)
	seen := map[string]bool{top: true}
	var nested []string
	var walk func(args []graph.Arg)
	walk = func(args []graph.Arg) {
		for i := range args {
			a := &args[i]
			switch a.Kind {
			case graph.ArgNested:
				if l := labelOf(a.Op); !seen[l] {
					seen[l] = true
					nested = append(nested, l)
				}
				walk(a.List)
			case graph.ArgList:
				walk(a.List)
			}
		}
	}
	walk(n.Args)
	if len(nested) == 0 {
		return top
	}
	sort.Strings(nested)
	return strings.Join(nested, "-") + "-" + top
}

// Labeler is an optional interface of a graph.Op: Label is the short,
// human name under which pictures show its tasks, in place of the op's
// registry name. Ops whose one registered name covers many functions use
// it to say which one a task runs: chunkarray's "chunkarray.full" op is
// labelled "ones", "zeros" or "full", its elementwise op by its ufunc
// chain ("truediv", "sin-mul"), as Dask's pictures name tasks by their
// function. An empty label falls back to the op's short name.
type Labeler interface {
	Label() string
}

// labelOf is op's Label when it has one, its short name otherwise.
func labelOf(op graph.Op) string {
	if l, ok := op.(Labeler); ok {
		if s := l.Label(); s != "" {
			return s
		}
	}
	return opLabel(op.Name())
}

// opLabel shortens an op name the way Dask's funcname does: the part after
// the last package qualifier, "add" for "delayed.add".
func opLabel(name string) string {
	if i := strings.LastIndexAny(name, "./"); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// boxLabel is what Dask writes in a data box: the block index for a block
// key ("3", "(1, 2)"), the key's prefix otherwise.
func boxLabel(k graph.Key) string {
	_, idx, ok := k.Block()
	if !ok {
		return k.Prefix()
	}
	if len(idx) == 1 {
		return strconv.Itoa(idx[0])
	}
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = strconv.Itoa(x)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// layerLabel names a cluster: the layer's prefix and the first 7 hex
// digits of its token, like a short git hash; long tokens would make the
// cluster wider than its nodes.
func layerLabel(k graph.Key) string {
	name, prefix := k.Name(), k.Prefix()
	if prefix == name {
		return name
	}
	token := name[len(prefix)+1:]
	if len(token) > 7 {
		token = token[:7]
	}
	return prefix + "-" + token
}
