package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tessera-go/tessera/cmd/internal/workloads"
)

// TestDaskScriptNames checks that bench/dask/dask_bench.py times the same
// groups and workloads, under the same names, as tessera bench, so that
// bench/compare.sh pairs every line. The script's --list needs Python
// only, not Dask.
func TestDaskScriptNames(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH")
	}
	script := filepath.Join("..", "..", "bench", "dask", "dask_bench.py")
	out, err := exec.Command(py, script, "--list").Output()
	if err != nil {
		t.Fatalf("%s --list: %v", script, err)
	}
	var got map[string][]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%s --list: %v\n%s", script, err, out)
	}
	if !reflect.DeepEqual(got, benchGroups) {
		t.Errorf("%s's groups differ from tessera bench's:\n script %v\n tessera %v", script, got, benchGroups)
	}
	for _, names := range got {
		for _, n := range names {
			if w, err := workloads.Lookup(n); err != nil || w.BenchName != n {
				t.Errorf("%s times %q, which tessera bench does not know (%v)", script, n, err)
			}
		}
	}
}

// TestDaskScriptCompiles byte-compiles bench/dask/dask_bench.py with the
// system Python that bench/compare.sh uses by default (into a temporary
// file, leaving no __pycache__ behind): a syntax error in a group that
// --list does not reach fails here rather than halfway through a
// comparison.
func TestDaskScriptCompiles(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := exec.LookPath(py); err != nil {
		t.Skipf("%s: %v", py, err)
	}
	script := filepath.Join("..", "..", "bench", "dask", "dask_bench.py")
	out, err := exec.Command(py, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
		script, filepath.Join(t.TempDir(), "dask_bench.pyc")).CombinedOutput()
	if err != nil {
		t.Fatalf("py_compile %s: %v\n%s", script, err, out)
	}
}
