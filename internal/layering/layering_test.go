// Package layering holds one test: that tessera's import graph points down,
// as the layer table of DESIGN.md says. It has no non-test code.
package layering

import (
	"bufio"
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/tessera-go/tessera"

// anything marks packages that may import every tessera package: commands
// and the workload registry, which sit on top of everything.
var anything = []string{"*"}

// allowed is DESIGN.md's layer table, package by package: the tessera
// packages (relative to the module) that each may import. It is explicit,
// not derived from a list of layers, so that a new package must be placed
// in it deliberately; a package missing here fails the test.
//
//	graph < optimize < sched < {viz, sched/distributed} < delayed
//	      < chunkarray < udfbridge < udfbridge/udftest;  nd (with nd/npy, nd/zarr) is the
//	second foundation beside graph (nd/hdf5 reads HDF5 through libhdf5
//	behind the hdf5 tag, on nd only) and imports nothing of tessera but
//	freelist, the bounded buffer free list of a run, which sits under
//	both (stdlib only) so that zarr decoding, the schedulers that own a
//	run's list and the tasks that use it share one;
//	internal/cudaops sits on nd only, and udfbridge may use it (UDF
//	backends), as may chunkarray (device reductions); internal/kern
//	(convert-and-reduce kernels on plain slices) imports nothing of
//	tessera and udfbridge uses it; cmd/internal/workloads serves the
//	commands only.
var allowed = map[string][]string{
	"graph":                {},
	"freelist":             {},
	"optimize":             {"graph"},
	"sched":                {"graph", "optimize", "freelist"},
	"sched/schedtest":      {"graph", "optimize", "sched", "freelist"},
	"sched/distributed":    {"graph", "optimize", "sched", "sched/distributed/pb", "freelist"},
	"sched/distributed/pb": {},
	"viz":                  {"graph", "optimize"},
	"delayed":              {"graph", "optimize", "sched", "viz", "freelist"},
	"nd":                   {},
	"nd/npy":               {"nd"},
	"nd/hdf5":              {"nd"},
	"nd/hdf5/hdf5test":     {"nd", "nd/hdf5"},
	"nd/ndtest":            {"nd"},
	"nd/zarr/blosc":        {"freelist"},
	"nd/zarr":              {"nd", "nd/zarr/blosc", "freelist"},
	"chunkarray":           {"graph", "optimize", "sched", "viz", "delayed", "nd", "nd/npy", "nd/zarr", "nd/zarr/blosc", "nd/hdf5", "internal/cudaops", "freelist"},
	"udfbridge":            {"graph", "optimize", "sched", "viz", "delayed", "chunkarray", "nd", "nd/npy", "nd/zarr", "nd/zarr/blosc", "nd/hdf5", "internal/cudaops", "internal/kern", "freelist"},
	"udfbridge/udftest":    {"graph", "optimize", "sched", "viz", "delayed", "chunkarray", "nd", "nd/npy", "nd/zarr", "nd/zarr/blosc", "nd/hdf5", "internal/cudaops", "internal/kern", "freelist", "udfbridge"},
	"internal/cudaops":     {"nd"},
	"internal/kern":        {},
	"internal/layering":    {},
	"internal/deploycheck": {},
	"internal/quickstart":  {},
	".":                    {}, // the root package: a doc map, no code

	"cmd/internal/workloads": anything,
	"cmd/*":                  anything, // every command
}

// external lists, for the packages whose non-standard imports are
// restricted, the module path prefixes they may import. Packages not named
// here may import any module go.mod allows.
var external = map[string][]string{
	"graph": {},
	// The free list sits under the storage and engine packages alike.
	"freelist": {},
	"nd":       {"gonum.org/v1/gonum"},
	// Storage reads files and may not pull in the engine.
	"nd/npy": {},
	// Kernels on slices: the CPU feature flags only.
	"internal/kern": {"golang.org/x/sys/cpu"},
	// blosc decodes with the standard library and klauspost/compress only.
	"nd/zarr/blosc": {"github.com/klauspost/compress"},
}

// fenced lists external modules that only the named packages may import,
// whatever the table says: gorgonia.org/cu calls os.Exit in its init when no
// GPU is present, so it stays inside internal/cudaops, behind its cuda tag.
var fenced = map[string][]string{
	"gorgonia.org/cu": {"internal/cudaops"},
}

// pkg is what the test needs to know of one package.
type pkg struct {
	Path    string   // relative to the module
	Imports []string // full import paths
}

// entry returns the allowed list for a package and whether it has one.
func entry(path string) ([]string, bool) {
	if a, ok := allowed[path]; ok {
		return a, true
	}
	if strings.HasPrefix(path, "cmd/") {
		return allowed["cmd/*"], true
	}
	return nil, false
}

// isStd reports whether an import path is in the standard library: its
// first element has no dot, the rule the go command itself uses.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// check returns one message per violation in pkgs.
func check(pkgs []pkg) []string {
	var bad []string
	for _, p := range pkgs {
		allow, ok := entry(p.Path)
		if !ok {
			bad = append(bad, fmt.Sprintf("package %s has no entry in the layer table: add it to `allowed` in internal/layering/layering_test.go with the tessera packages it may import (dependencies point down, see DESIGN.md)", p.Path))
			continue
		}
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !slices.Equal(allow, anything) && !slices.Contains(allow, rel) {
					bad = append(bad, fmt.Sprintf("%s imports %s, which is not below it in DESIGN.md's layer table (it may import: %s)", p.Path, rel, list(allow)))
				}
				continue
			}
			if imp == module {
				bad = append(bad, fmt.Sprintf("%s imports the module root package", p.Path))
				continue
			}
			if owner, owners := fence(imp); owner != "" && !slices.Contains(owners, p.Path) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which only %s may import", p.Path, imp, list(owners)))
				continue
			}
			prefixes, restricted := external[p.Path]
			if !restricted || isStd(imp) || imp == "C" {
				continue
			}
			okExt := false
			for _, pre := range prefixes {
				if imp == pre || strings.HasPrefix(imp, pre+"/") {
					okExt = true
				}
			}
			if !okExt {
				bad = append(bad, fmt.Sprintf("%s imports %s, but it may import only the standard library%s", p.Path, imp, andList(prefixes)))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

// fence returns the fenced module prefix of an import path, if any, and
// the packages that may import it.
func fence(imp string) (string, []string) {
	for pre, owners := range fenced {
		if imp == pre || strings.HasPrefix(imp, pre+"/") {
			return pre, owners
		}
	}
	return "", nil
}

func list(s []string) string {
	if len(s) == 0 {
		return "no tessera package"
	}
	return strings.Join(s, ", ")
}

func andList(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return " and " + strings.Join(s, ", ")
}

// goList lists the module's packages and their direct imports, with the
// given build tags. Layering is checked one edge at a time: if every edge
// points down, every path does. Test files are not checked: an in-package
// test cannot import a higher layer without an import cycle, and an
// external test package may, to test the layers together.
func goList(t *testing.T, tags string) []pkg {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	root, err := exec.Command(gobin, "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	args := []string{"list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command(gobin, append(args, "./...")...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		path := fields[0]
		rel, ok := strings.CutPrefix(path, module+"/")
		if !ok {
			if path == module {
				rel = "."
			} else {
				continue
			}
		}
		pkgs = append(pkgs, pkg{Path: rel, Imports: fields[1:]})
	}
	if len(pkgs) == 0 {
		t.Fatalf("go list found no packages of %s", module)
	}
	return pkgs
}

func TestLayering(t *testing.T) {
	// The cuda tag pulls in the GPU files of internal/cudaops, the hdf5
	// tag nd/hdf5's cgo file; their imports must obey the table too.
	for _, tags := range []string{"", "cuda", "cuda,cublas", "hdf5"} {
		t.Run("tags="+tags, func(t *testing.T) {
			pkgs := goList(t, tags)
			for _, msg := range check(pkgs) {
				t.Error(msg)
			}
		})
	}
}

// TestTableClosed checks the table itself: a package may import only
// packages that have an entry, never itself, and whatever those may
// import it may import too (otherwise the table would say A is above B
// but below one of B's dependencies).
func TestTableClosed(t *testing.T) {
	for p, allow := range allowed {
		if slices.Equal(allow, anything) {
			continue
		}
		for _, q := range allow {
			if q == p {
				t.Errorf("%s may import itself", p)
			}
			qa, ok := allowed[q]
			if !ok {
				t.Errorf("%s may import %s, which has no entry", p, q)
				continue
			}
			for _, r := range qa {
				if !slices.Contains(allow, r) {
					t.Errorf("%s may import %s, which may import %s, but %s may not", p, q, r, p)
				}
			}
		}
	}
}

// TestCheck runs the checker on made-up import lists, so that a broken
// checker cannot pass the real module silently.
func TestCheck(t *testing.T) {
	m := func(rel string) string { return module + "/" + rel }
	tests := []struct {
		name string
		pkgs []pkg
		want []string // substrings, one per expected message
	}{
		{"clean", []pkg{
			{"graph", []string{"fmt", "encoding/json"}},
			{"optimize", []string{m("graph"), "slices"}},
			{"delayed", []string{m("graph"), m("sched"), m("viz"), m("optimize")}},
			{"nd", []string{"math", "gonum.org/v1/gonum/blas/blas64"}},
			{"cmd/tessera", []string{m("udfbridge"), m("sched/distributed")}},
			{"cmd/internal/workloads", []string{m("chunkarray")}},
		}, nil},
		{"upward", []pkg{{"graph", []string{m("sched")}}}, []string{"graph imports sched"}},
		{"sideways", []pkg{{"viz", []string{m("sched")}}}, []string{"viz imports sched"}},
		{"delayed-to-distributed", []pkg{{"delayed", []string{m("sched/distributed")}}}, []string{"delayed imports sched/distributed"}},
		{"cudaops-to-graph", []pkg{{"internal/cudaops", []string{m("graph")}}}, []string{"internal/cudaops imports graph"}},
		{"nd-to-graph", []pkg{{"nd", []string{m("graph")}}}, []string{"nd imports graph"}},
		{"new-package", []pkg{{"newthing", []string{"fmt"}}}, []string{"package newthing has no entry"}},
		{"graph-third-party", []pkg{{"graph", []string{"github.com/emicklei/dot"}}}, []string{"graph imports github.com/emicklei/dot"}},
		{"nd-third-party", []pkg{{"nd", []string{"gonum.org/v1/gonumx", "golang.org/x/sync/errgroup"}}},
			[]string{"nd imports golang.org/x/sync/errgroup", "nd imports gonum.org/v1/gonumx"}},
		{"viz-third-party-ok", []pkg{{"viz", []string{"github.com/emicklei/dot"}}}, nil},
		{"cu-outside-cudaops", []pkg{{"udfbridge", []string{"gorgonia.org/cu"}}, {"chunkarray", []string{"gorgonia.org/cu/blas"}}},
			[]string{"chunkarray imports gorgonia.org/cu/blas, which only internal/cudaops may import", "udfbridge imports gorgonia.org/cu, which only"}},
		{"cu-in-cudaops-ok", []pkg{{"internal/cudaops", []string{"gorgonia.org/cu", m("nd")}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(tt.pkgs)
			if len(got) != len(tt.want) {
				t.Fatalf("check = %q, want %d messages containing %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("message %q does not contain %q", got[i], w)
				}
			}
		})
	}
}
