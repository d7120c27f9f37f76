// Package workloads is the registry of named, built-in workloads that
// cmd/graphviz draws and cmd/tessera benchmarks: each builds a task graph and
// names the keys to compute. Packages add their workloads in init functions
// (delayed ones in delayed.go here, array and UDF ones by later issues).
package workloads

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tessera-go/tessera/graph"
)

// Workload is a named graph builder.
type Workload struct {
	Name string // as cmd/graphviz spells it, e.g. "delayed-sum-squares"
	// BenchName is the name under which tessera bench reports it, the same
	// as ../shared/bench/dask_baseline.py; empty if it is not benchmarked.
	BenchName string
	Doc       string
	// Build makes a fresh graph (new keys for impure workloads) and the
	// keys whose values the workload computes.
	Build func() (*graph.Graph, []graph.Key, error)
	// Check verifies computed values against an independent formula; nil
	// when there is nothing to check.
	Check func(vals []any) error
	// Tasks is the number of tasks, for per-task figures; 0 if not relevant.
	Tasks int
	// BuildOnly marks a workload whose figure is the time Build takes
	// (dask_baseline.py's graphbuild group, scheduler "none"): tessera
	// bench times Build and computes nothing.
	BuildOnly bool
}

var registry = map[string]*Workload{}

// Register adds w; it panics on a duplicate name (a programmer error).
func Register(w *Workload) {
	if _, dup := registry[w.Name]; dup {
		panic("workloads: duplicate " + w.Name)
	}
	registry[w.Name] = w
	if w.BenchName != "" && w.BenchName != w.Name {
		if _, dup := registry[w.BenchName]; dup {
			panic("workloads: duplicate " + w.BenchName)
		}
		registry[w.BenchName] = w
	}
}

// Lookup returns the workload registered under name or bench name.
func Lookup(name string) (*Workload, error) {
	w, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return w, nil
}

// Names returns the graphviz names of all workloads, sorted.
func Names() []string {
	var out []string
	for k, w := range registry {
		if k == w.Name {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// All returns every workload once, sorted by name.
func All() []*Workload {
	var out []*Workload
	for _, n := range Names() {
		out = append(out, registry[n])
	}
	return out
}
