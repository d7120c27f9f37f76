// Command graphviz draws the task graph of a built-in workload or of a
// graph saved as JSON, following Dask's picture conventions (see package
// viz).
//
// Usage:
//
//	graphviz [-o FILE] [-format dot|svg|png|pdf] [-optimize] [-color order|time]
//	         [-rankdir BT|LR|TB|RL] [-collapse] [-clusters] WORKLOAD|GRAPH.json
//
// An argument that ends in .json, or names an existing file, is read with
// graph.ReadJSON and drawn for its outputs (the nodes nothing depends on);
// any other is the name of a workload of cmd/internal/workloads. Without -o
// the DOT text goes to standard output; with -o the format defaults to the
// file's extension, and svg, png and pdf need the graphviz dot binary.
// -color time runs the graph (optimized first if -optimize is given) on
// sched.Sync and colours each task by how long it took, slow red to fast
// blue, with a legend of the fastest, median and slowest times; -color
// order colours by optimize.Order priority, also with a legend.
//
// Work that can take long says so on standard error first, one line
// starting "graphviz: " each: -color time, which runs the whole graph
// (task count says little about its time: a few tasks may read gigabytes),
// and rendering a graph of 2000 keys or more with dot, whose layout takes
// minutes at tens of thousands of nodes (the DOT text itself is written in
// about a second for the 65,535-task tree).
//
// Any error prints one line, "graphviz: " and the message, to standard
// error (after the notes above, if any: the error is the last line) and
// exits with status 2; no partial output file is left behind. A bad flag
// is such an error; -h, -help and --help print the usage to standard
// output and exit 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/viz"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: graphviz [flags] WORKLOAD|GRAPH.json

Draws a workload's or a saved graph's task graph as DOT, SVG, PNG or PDF.

flags:
`

// config is the parsed command line.
type config struct {
	out, format, color, rankdir  string
	optimize, collapse, clusters bool
	source                       string
}

// run is the whole command, in process for the tests: it returns the exit
// status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWith(workloads.All(), args, stdout, stderr)
}

// runWith is run drawing workloads from ws (tests add their own).
func runWith(ws workloads.List, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(ws, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		fs := flags(&config{})
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		return 0
	}
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = draw(ctx, ws, cfg, stdout, stderr)
		stop()
	}
	if err != nil {
		// One line, whatever the error wraps: scripts read the first line.
		msg := strings.Join(strings.Fields(err.Error()), " ")
		fmt.Fprintf(stderr, "graphviz: %s\n", msg)
		return 2
	}
	return 0
}

func flags(cfg *config) *flag.FlagSet {
	fs := flag.NewFlagSet("graphviz", flag.ContinueOnError)
	fs.StringVar(&cfg.out, "o", "", "write to `FILE` instead of standard output")
	fs.StringVar(&cfg.format, "format", "", "output format: dot, svg, png or pdf (default: from the -o extension, else dot)")
	fs.BoolVar(&cfg.optimize, "optimize", false, "draw the optimized graph that Compute runs (cull, inline, fuse)")
	fs.StringVar(&cfg.color, "color", "", "fill nodes by `mode`: order (static priority, first red to last blue) or time (measured by running the graph, slow red to fast blue); either adds a legend")
	fs.StringVar(&cfg.rankdir, "rankdir", "BT", "direction of the arrows: BT, LR, TB or RL")
	fs.BoolVar(&cfg.collapse, "collapse", false, "omit the boxes of task results")
	fs.BoolVar(&cfg.clusters, "clusters", false, "group each layer's nodes in a cluster")
	return fs
}

// parseArgs parses flags before and after the one positional argument, so
// that "graphviz g.json -o g.svg" works as well as the flag-first form.
func parseArgs(ws workloads.List, args []string) (*config, error) {
	cfg := &config{}
	fs := flags(cfg)
	fs.SetOutput(io.Discard) // errors are reported in one line by run
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w (graphviz -h lists the flags)", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(pos) {
	case 0:
		return nil, fmt.Errorf("missing WORKLOAD or GRAPH.json argument (known workloads: %s)", known(ws))
	case 1:
		cfg.source = pos[0]
	default:
		return nil, fmt.Errorf("want one WORKLOAD or GRAPH.json argument, got %d: %s", len(pos), strings.Join(pos, " "))
	}
	switch cfg.rankdir {
	case "BT", "LR", "TB", "RL":
	default:
		return nil, fmt.Errorf("invalid -rankdir %q (want BT, LR, TB or RL)", cfg.rankdir)
	}
	switch cfg.color {
	case "", "order", "time":
	default:
		return nil, fmt.Errorf("invalid -color %q (want order or time)", cfg.color)
	}
	switch cfg.format {
	case "", "dot", "svg", "png", "pdf":
	default:
		return nil, fmt.Errorf("invalid -format %q (want dot, svg, png or pdf)", cfg.format)
	}
	if cfg.out != "" && cfg.format == "" {
		if cfg.format = viz.Format(cfg.out); cfg.format == "" {
			return nil, fmt.Errorf("cannot tell the format of -o %s from its extension; give -format dot, svg, png or pdf", cfg.out)
		}
	}
	if cfg.format == "" {
		cfg.format = "dot"
	}
	if cfg.out == "" && cfg.format != "dot" {
		return nil, fmt.Errorf("-format %s needs -o FILE (only dot goes to standard output)", cfg.format)
	}
	return cfg, nil
}

func known(ws workloads.List) string {
	if len(ws) == 0 {
		return "none"
	}
	return strings.Join(ws.Names(), ", ")
}

// load returns the graph named by src and the keys to draw it for.
func load(ws workloads.List, src string) (*graph.Graph, []graph.Key, error) {
	isFile := strings.HasSuffix(src, ".json")
	if !isFile {
		if st, err := os.Stat(src); err == nil && st.Mode().IsRegular() {
			isFile = true
		}
	}
	if !isFile {
		w, err := ws.Lookup(src)
		if err != nil {
			// Lookup's own message lists names too; this one also says
			// that no file of that name was found either.
			return nil, nil, fmt.Errorf("unknown workload %q and no such file (known workloads: %s)", src, known(ws))
		}
		g, keys, err := w.Build()
		if err != nil {
			return nil, nil, fmt.Errorf("workload %s: %w", src, err)
		}
		return g, keys, nil
	}
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	g, err := graph.ReadJSON(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src, err)
	}
	d, err := g.ValidateDeps()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src, err)
	}
	var keys []graph.Key
	for i := 0; i < g.Len(); i++ {
		if len(d.Users(i)) == 0 {
			keys = append(keys, g.Key(i))
		}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a] < keys[b] })
	return g, keys, nil
}

func draw(ctx context.Context, ws workloads.List, cfg *config, stdout, stderr io.Writer) error {
	g, keys, err := load(ws, cfg.source)
	if err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return fmt.Errorf("%s: %w", cfg.source, err)
	}
	opts := viz.Options{
		RankDir:  cfg.rankdir,
		Optimize: cfg.optimize,
		Keys:     keys,
		Color:    cfg.color,
		Collapse: cfg.collapse,
		Clusters: cfg.clusters,
	}
	if cfg.color == "time" {
		// Time the graph that is drawn: with -optimize that is the fused
		// graph, whose keys are the ones in the picture.
		if cfg.optimize {
			if g, _, err = optimize.Optimize(g, keys); err != nil {
				return fmt.Errorf("%s: %w", cfg.source, err)
			}
			opts.Optimize = false
		}
		fmt.Fprintf(stderr, "graphviz: -color time: computing %s on sched.Sync to measure task times, %d tasks\n", cfg.source, countTasks(g))
		if opts.Times, err = measure(ctx, g, keys); err != nil {
			return fmt.Errorf("%s: run for -color time: %w", cfg.source, err)
		}
	}
	if cfg.out == "" {
		return viz.WriteDOT(stdout, g, opts)
	}
	if _, err := exec.LookPath("dot"); err == nil && cfg.format != "dot" && g.Len() >= bigGraph {
		fmt.Fprintf(stderr, "graphviz: laying out %d keys with graphviz dot into %s; dot takes minutes on graphs of tens of thousands of nodes (-format dot writes the DOT text at once)\n", g.Len(), cfg.out)
	}
	return viz.Render(ctx, g, cfg.out, cfg.format, opts)
}

// bigGraph is the number of keys from which rendering with dot is said
// to take a while: dot lays out a few thousand nodes in seconds.
const bigGraph = 2000

// countTasks is the number of tasks of g (not literals or aliases).
func countTasks(g *graph.Graph) int {
	n := 0
	for i := 0; i < g.Len(); i++ {
		if g.At(i).Kind == graph.KindTask {
			n++
		}
	}
	return n
}

// measure runs g on sched.Sync and returns how long each task took.
// Literals and aliases cost nothing worth a colour and are left out.
func measure(ctx context.Context, g *graph.Graph, keys []graph.Key) (map[graph.Key]time.Duration, error) {
	prof := sched.NewProfiler()
	if _, err := (sched.Sync{}).Get(sched.WithCallbacks(ctx, prof.Callbacks()), g, keys); err != nil {
		return nil, err
	}
	return prof.Durations(), nil
}
