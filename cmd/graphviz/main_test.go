package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/viz"
)

// The ops of the JSON graphs in testdata, registered for this test binary
// only.
func init() {
	intOp := func(name string, f func(a []any) int) {
		graph.Register(&graph.FuncOp{OpName: name, Fn: func(_ context.Context, a []any) (any, error) {
			return f(a), nil
		}})
	}
	intOp("graphvizt.inc", func(a []any) int { return a[0].(int) + 1 })
	intOp("graphvizt.square", func(a []any) int { return a[0].(int) * a[0].(int) })
	intOp("graphvizt.add", func(a []any) int { return a[0].(int) + a[1].(int) })
	graph.Register(&graph.FuncOp{OpName: "graphvizt.fail", Fn: func(context.Context, []any) (any, error) {
		return nil, errors.New("deliberate failure")
	}})
}

// testWorkloads are the built-in workloads and one of this test's own.
var testWorkloads = append(workloads.All(), &workloads.Workload{
	Name: "graphviz-test-sumsq",
	Doc:  "testdata/sumsq.json as a workload",
	Build: func() (*graph.Graph, []graph.Key, error) {
		g, err := readJSON("testdata/sumsq.json")
		return g, []graph.Key{"result"}, err
	},
})

func readJSON(path string) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return graph.ReadJSON(f)
}

// runArgs runs the command in process with args and
// returns its status, standard output and standard error.
func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := runWith(testWorkloads, args, &out, &errb)
	return code, out.String(), errb.String()
}

// listDir returns the names in dir.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string // "OUT" is replaced by a file in a fresh directory
		want string   // in the message
	}{
		{"unknown workload", []string{"-o", "OUT.svg", "no-such-workload"}, "graphviz-test-sumsq"},
		{"no argument", []string{"-o", "OUT.dot"}, "missing"},
		{"two arguments", []string{"-o", "OUT.dot", "testdata/sumsq.json", "testdata/chain.json"}, "got 2"},
		{"malformed json", []string{"-o", "OUT.svg", "testdata/malformed.json"}, "malformed.json"},
		{"missing file", []string{"-o", "OUT.svg", "testdata/nothere.json"}, "nothere.json"},
		{"cycle", []string{"-o", "OUT.svg", "testdata/cycle.json"}, "cycle"},
		{"missing reference", []string{"-o", "OUT.dot", "testdata/missing-ref.json"}, "nowhere"},
		{"unknown op", []string{"-o", "OUT.svg", "testdata/unknown-op.json"}, "nosuch.op"},
		{"task fails under -color time", []string{"-o", "OUT.dot", "-color", "time", "testdata/fails.json"}, "deliberate failure"},
		{"bad format", []string{"-o", "OUT.svg", "-format", "gif", "testdata/sumsq.json"}, "gif"},
		{"bad color", []string{"-o", "OUT.svg", "-color", "rainbow", "testdata/sumsq.json"}, "rainbow"},
		{"bad rankdir", []string{"-o", "OUT.svg", "-rankdir", "up", "testdata/sumsq.json"}, "up"},
		{"unknown flag", []string{"-o", "OUT.svg", "-shiny", "testdata/sumsq.json"}, "-shiny (graphviz -h lists the flags)"},
		{"unknown extension", []string{"-o", "OUT.txt", "testdata/sumsq.json"}, "extension"},
		{"binary format to stdout", []string{"-format", "png", "testdata/sumsq.json"}, "-o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = strings.Replace(a, "OUT", filepath.Join(dir, "out"), 1)
			}
			code, stdout, stderr := runArgs(args...)
			if code != 2 {
				t.Errorf("exit status: got %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q, want nothing", stdout)
			}
			// -color time says what it runs first; the error is the
			// last line.
			if note, rest, ok := strings.Cut(stderr, "\n"); ok && strings.HasPrefix(note, "graphviz: -color time: computing ") {
				stderr = rest
			}
			if !strings.HasPrefix(stderr, "graphviz: ") || !strings.HasSuffix(stderr, "\n") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr: got %q, want one line starting \"graphviz: \"", stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr: got %q, want it to mention %q", stderr, tc.want)
			}
			if names := listDir(t, dir); len(names) != 0 {
				t.Errorf("left files behind: %q", names)
			}
		})
	}
}

func TestErrorsWithoutGraphviz(t *testing.T) {
	t.Setenv("PATH", "")
	dir := t.TempDir()
	code, _, stderr := runArgs("-o", filepath.Join(dir, "g.png"), "testdata/sumsq.json")
	if code != 2 || !strings.Contains(stderr, "apt-get install graphviz") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("got status %d, stderr %q; want 2 and one line naming the graphviz package", code, stderr)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("left files behind: %q", names)
	}
}

// TestDOT checks the DOT the command prints against viz.DOT of the same
// graph read independently, for each flag that changes the picture.
func TestDOT(t *testing.T) {
	sumsq, err := readJSON("testdata/sumsq.json")
	if err != nil {
		t.Fatal(err)
	}
	chain, err := readJSON("testdata/chain.json")
	if err != nil {
		t.Fatal(err)
	}
	outs := []graph.Key{"result"}
	for _, tc := range []struct {
		name string
		args []string
		g    *graph.Graph
		opts viz.Options
	}{
		{"json", []string{"testdata/sumsq.json"}, sumsq, viz.Options{}},
		{"workload", []string{"graphviz-test-sumsq"}, sumsq, viz.Options{}},
		{"flags after the argument", []string{"testdata/sumsq.json", "-rankdir", "LR"}, sumsq, viz.Options{RankDir: "LR"}},
		{"order", []string{"-color", "order", "testdata/sumsq.json"}, sumsq, viz.Options{Color: "order"}},
		{"collapse clusters", []string{"-collapse", "-clusters", "testdata/sumsq.json"}, sumsq, viz.Options{Collapse: true, Clusters: true}},
		{"optimize", []string{"-optimize", "testdata/chain.json"}, chain, viz.Options{Optimize: true, Keys: []graph.Key{"square-00000000cccccccc"}}},
		{"optimize workload", []string{"-optimize", "graphviz-test-sumsq"}, sumsq, viz.Options{Optimize: true, Keys: outs}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(tc.args...)
			if code != 0 {
				t.Fatalf("exit status %d, stderr %q", code, stderr)
			}
			want, err := viz.DOT(tc.g, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", stdout, want)
			}
		})
	}
}

// TestColorTime checks that every task's circle is filled, and no node
// but a task's circle and its result box (same tooltip: the task's key):
// literals and aliases have no time.
func TestColorTime(t *testing.T) {
	for _, args := range [][]string{
		{"-color", "time", "testdata/sumsq.json"},
		{"-color", "time", "-optimize", "testdata/chain.json"},
		{"-color", "time", "-collapse", "graphviz-test-sumsq"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runArgs(args...)
			if code != 0 {
				t.Fatalf("exit status %d, stderr %q", code, stderr)
			}
			tasks := map[string]bool{}
			var filled []string
			for _, line := range strings.Split(stdout, "\n") {
				tip := tooltipRE.FindStringSubmatch(line)
				if tip == nil {
					continue
				}
				isFilled := strings.Contains(line, "fillcolor=")
				if strings.Contains(line, `shape="circle"`) {
					tasks[tip[1]] = true
					if !isFilled {
						t.Errorf("task %s not filled", tip[1])
					}
				}
				if isFilled {
					filled = append(filled, tip[1])
				}
			}
			if len(tasks) == 0 {
				t.Fatalf("no task drawn:\n%s", stdout)
			}
			for _, k := range filled {
				if !tasks[k] {
					t.Errorf("node %s is filled but is no task", k)
				}
			}
		})
	}
}

var tooltipRE = regexp.MustCompile(`tooltip="([^"]*)"`)

func TestFiles(t *testing.T) {
	_, dotErr := exec.LookPath("dot")
	for _, tc := range []struct {
		file   string
		format string
		magic  string
		render bool
	}{
		{"g.dot", "", "digraph", false},
		{"g.svg", "", "<svg", true},
		{"g.png", "", "\x89PNG\r\n\x1a\n", true},
		{"g.pdf", "", "%PDF", true},
		{"g.out", "svg", "<svg", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			if tc.render && dotErr != nil {
				t.Skip("graphviz dot is not installed")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			args := []string{"-o", path, "-color", "order", "testdata/sumsq.json"}
			if tc.format != "" {
				args = append([]string{"-format", tc.format}, args...)
			}
			code, stdout, stderr := runArgs(args...)
			if code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("got status %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(b[:min(len(b), 512)], []byte(tc.magic)) {
				t.Errorf("%s starts %q, want %q", tc.file, b[:min(len(b), 40)], tc.magic)
			}
			if names := listDir(t, dir); fmt.Sprint(names) != fmt.Sprint([]string{tc.file}) {
				t.Errorf("directory holds %q, want only %s", names, tc.file)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, h := range []string{"-h", "-help", "--help"} {
		code, stdout, stderr := runArgs(h)
		if code != 0 || !strings.Contains(stdout, "-rankdir") || stderr != "" {
			t.Errorf("%s: got status %d, stdout %q, stderr %q; want 0 and the flags on stdout", h, code, stdout, stderr)
		}
		// Each flag names its value by one word, if any (a backquoted
		// phrase of a usage would show up here as several).
		for _, line := range strings.Split(stdout, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			head, _, _ := strings.Cut(line, "\t")
			if f := strings.Fields(head); len(f) > 2 || strings.Contains(head, "`") {
				t.Errorf("%s: flag line %q: placeholder is not one word", h, line)
			}
		}
	}
}

// TestNotes: -color time says on stderr what it computes and how many
// tasks, and rendering a big graph with dot says that it lays it out; the
// DOT on stdout is unchanged by either. A fake dot on PATH stands in for
// graphviz, so the test needs none and takes no time.
func TestNotes(t *testing.T) {
	g, err := readJSON("testdata/sumsq.json")
	if err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for i := range g.Len() {
		if g.At(i).Kind == graph.KindTask {
			tasks++
		}
	}
	code, stdout, stderr := runArgs("-color", "time", "testdata/sumsq.json")
	want := fmt.Sprintf("graphviz: -color time: computing testdata/sumsq.json on sched.Sync to measure task times, %d tasks\n", tasks)
	if code != 0 || stderr != want || !strings.Contains(stdout, "task time, log scale") {
		t.Errorf("got status %d, stderr %q, legend %v; want 0, %q and a legend", code, stderr, strings.Contains(stdout, "task time"), want)
	}

	bin := t.TempDir()
	fake := "#!/bin/sh\ncat >/dev/null\necho '<svg/>'\n"
	if err := os.WriteFile(filepath.Join(bin, "dot"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A chain of 2500 increments: x, inc-0 ... inc-2499.
	var b strings.Builder
	b.WriteString(`{"tessera_graph": 1, "nodes": [{"key": "x", "literal": {"t": "int", "v": 0}}`)
	prev := "x"
	const n = 2500
	for i := range n {
		k := fmt.Sprintf("inc-%04d", i)
		fmt.Fprintf(&b, `, {"key": %q, "op": "graphvizt.inc", "args": [{"ref": %q}]}`, k, prev)
		prev = k
	}
	b.WriteString("]}")
	dir := t.TempDir()
	src := filepath.Join(dir, "chain.json")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		src, out string
		note     bool
	}{
		{src, filepath.Join(dir, "big.svg"), true},
		{src, filepath.Join(dir, "big.dot"), false}, // no dot run
		{"testdata/sumsq.json", filepath.Join(dir, "small.svg"), false},
	} {
		code, _, stderr := runArgs("-o", tc.out, tc.src)
		want := ""
		if tc.note {
			want = fmt.Sprintf("graphviz: laying out %d keys with graphviz dot into %s;", n+1, tc.out)
		}
		if code != 0 || !strings.HasPrefix(stderr, want) || (want == "" && stderr != "") {
			t.Errorf("%s -o %s: status %d, stderr %q; want 0 and a note starting %q", tc.src, tc.out, code, stderr, want)
		}
	}
}

// TestAllWorkloads draws every built-in workload that is small enough
// to draw: each must give a picture with at least one task.
func TestAllWorkloads(t *testing.T) {
	for _, w := range workloads.All() {
		if w.Tasks > 5000 || w.NChunks > 10000 {
			continue // a benchmark-sized graph; drawing it says nothing more
		}
		t.Run(w.Name, func(t *testing.T) {
			for _, args := range [][]string{{w.Name}, {"-optimize", "-color", "order", w.Name}} {
				code, stdout, stderr := runArgs(args...)
				if code != 0 || !strings.Contains(stdout, `shape="circle"`) {
					t.Errorf("%q: status %d, stderr %q, want a picture with tasks", args, code, stderr)
				}
			}
		})
	}
}
