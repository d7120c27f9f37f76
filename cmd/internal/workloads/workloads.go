package workloads

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tessera-go/tessera/graph"
)

// Workload is a named graph builder.
type Workload struct {
	Name string // as cmd/graphviz spells it, e.g. "delayed-sum-squares"
	// BenchName is the name under which tessera bench reports it, the same
	// as bench/dask/dask_bench.py; empty if it is not benchmarked.
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
	// NChunks is the number of chunks of the array a workload reduces, for
	// figures against the chunking; 0 if not relevant.
	NChunks int
	// Memory, when set, marks a workload whose peak memory is part of its
	// figure (see MemoryBound).
	Memory *MemoryBound
	// BuildOnly marks a workload whose figure is the time Build takes
	// (dask_bench.py's graphbuild group, scheduler "none"): tessera
	// bench times Build and computes nothing.
	BuildOnly bool
}

// list is every workload, declared here and nowhere else: the commands
// look workloads up in it (All, Lookup), and a test checks that names are
// unique. It is a plain list, built once at start-up from the
// constructors in this package's files, rather than a map that init
// functions in several files fill: the whole set is read in one place, and
// its order is the order the commands list workloads in.
var list = slices.Concat(
	[]*Workload{sumSquaresWorkload(), treeWorkload()},
	[]*Workload{randintSumWorkload(500), randintSumWorkload(200), randintSumWorkload(100), randintSumWorkload(50),
		randintSumWorkload(25), randintSumWorkload(10)},
	arrayWorkloads(),
	[]*Workload{zarrSqSumWorkload()},
	scaleDelayedWorkloads(),
	[]*Workload{streamSumWorkload()},
	[]*Workload{
		udfSumWorkload("udf-sum-4d-tree-merge", "udf_sum_4d_tree_merge", false),
		udfSumWorkload("udf-sum-4d-merge-all", "udf_sum_4d_merge_all", true),
		udfPictureWorkload("udf-merge-tree", false),
		udfPictureWorkload("udf-merge-all", true),
	},
)

// List is a list of workloads, looked up by name.
type List []*Workload

// All returns every built-in workload, in the order they are declared. The
// slice is the caller's (a test may append workloads of its own); the
// workloads themselves are shared and must not be modified.
func All() List { return slices.Clone(List(list)) }

// Lookup returns the built-in workload named name, by Name or BenchName.
func Lookup(name string) (*Workload, error) { return All().Lookup(name) }

// Names returns the Names of the built-in workloads, sorted.
func Names() []string { return All().Names() }

// Lookup returns the workload of l whose Name or BenchName is name.
func (l List) Lookup(name string) (*Workload, error) {
	for _, w := range l {
		if w.Name == name || (w.BenchName != "" && w.BenchName == name) {
			return w, nil
		}
	}
	return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(l.Names(), ", "))
}

// Names returns the Names of l's workloads, sorted.
func (l List) Names() []string {
	out := make([]string, len(l))
	for i, w := range l {
		out[i] = w.Name
	}
	sort.Strings(out)
	return out
}
