package workloads

import (
	"slices"
	"strings"
	"testing"
)

// TestList: the built-in list holds the workloads the commands and
// bench/dask/dask_bench.py know, by these names (written out here, the oracle);
// no Name or BenchName is used twice; Lookup finds each by either name.
func TestList(t *testing.T) {
	want := map[string]string{ // Name -> BenchName
		"delayed-sum-squares":   "",
		"delayed-tree":          "delayed_tree_65535",
		"array-randint-sum-500": "randint500^3_sum_chunks500",
		"array-randint-sum-200": "randint500^3_sum_chunks200",
		"array-randint-sum-100": "randint500^3_sum_chunks100",
		"array-randint-sum-50":  "randint500^3_sum_chunks50",
		"array-randint-sum-25":  "randint500^3_sum_chunks25",
		"array-randint-sum-10":  "randint500^3_sum_chunks10",
		"delayed-tree-1e3":      "scale_delayed_1e3",
		"delayed-tree-1e4":      "scale_delayed_1e4",
		"delayed-tree-1e5":      "scale_delayed_1e5",
		"delayed-tree-1e6":      "scale_delayed_1e6",
		"array-stream-sum":      "scale_stream_sum",
		"array-ones-sum-50":     "ones500^3_sum_chunks50",
		"array-sin-col-times-t": "sin_col_times_T_sum_1e4",
		"array-normalize-bench": "normalize_3x1000x1000",
		"array-graph-build":     "graph_build_10k_chunks",
		"array-sum":             "",
		"array-normalize":       "",
		"array-zarr-sq-sum":     "zarr_1e4_sq_sum",
		"udf-sum-4d-tree-merge": "udf_sum_4d_tree_merge",
		"udf-sum-4d-merge-all":  "udf_sum_4d_merge_all",
		"udf-merge-tree":        "",
		"udf-merge-all":         "",
	}
	all := All()
	if len(all) != len(want) {
		t.Errorf("%d workloads, want %d: %v", len(all), len(want), all.Names())
	}
	seen := map[string]bool{}
	for _, w := range all {
		bench, ok := want[w.Name]
		if !ok || w.BenchName != bench {
			t.Errorf("workload %q (bench %q): want bench name %q (known: %v)", w.Name, w.BenchName, bench, ok)
		}
		for _, n := range []string{w.Name, w.BenchName} {
			if n == "" {
				continue
			}
			if seen[n] {
				t.Errorf("name %q used twice", n)
			}
			seen[n] = true
			if got, err := Lookup(n); err != nil || got != w {
				t.Errorf("Lookup(%q) = %v, %v; want workload %s", n, got, err, w.Name)
			}
		}
		if w.Build == nil || w.Doc == "" {
			t.Errorf("workload %q lacks Build or Doc", w.Name)
		}
		if strings.Contains(strings.ToLower(w.Doc), "seed") {
			t.Errorf("workload %q: Doc %q speaks of the seed; say what it computes", w.Name, w.Doc)
		}
	}
	if !slices.IsSorted(Names()) || len(Names()) != len(want) {
		t.Errorf("Names() = %v, want the %d names sorted", Names(), len(want))
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), `unknown workload "nope"`) {
		t.Errorf("Lookup(nope) = %v", err)
	}
	// All hands out a copy: appending to it leaves the built-in list alone.
	extra := append(All(), &Workload{Name: "extra"})
	if _, err := extra.Lookup("extra"); err != nil {
		t.Error(err)
	}
	if _, err := Lookup("extra"); err == nil {
		t.Error("appending to All() changed the built-in list")
	}
}
