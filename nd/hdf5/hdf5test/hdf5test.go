// Package hdf5test writes HDF5 test files with h5py, for the tests of
// nd/hdf5 and of the packages that read HDF5 through it: Write runs
// gen.py (embedded) with /usr/bin/python3 and skips the test, saying why,
// when this build has no HDF5 support or h5py is missing. Beside each
// dataset it leaves what h5py reads back as a little-endian .npy file
// (Oracle), the tests' independent oracle.
package hdf5test

import (
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd/hdf5"
)

//go:embed gen.py
var genPy []byte

// Python is the interpreter the files are written with.
const Python = "/usr/bin/python3"

// Case is one dataset to write: values of its flat index i (integers
// (7i+3) mod 251, minus 100 when signed; floats i/2-3; complex i-2i·j;
// bools i%3 == 0) of a numpy dtype string with its byte order (">u2",
// "<f4", "c8", "?"), contiguous when Chunks is nil, with gzip compression
// when Compression is "gzip".
type Case struct {
	File        string `json:"file"`
	Dataset     string `json:"dataset"`
	DType       string `json:"dtype"`
	Shape       []int  `json:"shape"`
	Chunks      []int  `json:"chunks"`
	Compression string `json:"compression,omitempty"`
	Shuffle     bool   `json:"shuffle,omitempty"`
}

// Skip skips t when this build cannot read HDF5 or h5py is missing.
func Skip(t testing.TB) {
	t.Helper()
	if !hdf5.Enabled {
		t.Skip("built without HDF5 support: run with -tags hdf5 (needs libhdf5-dev and pkg-config)")
	}
	if err := exec.Command(Python, "-c", "import h5py, numpy").Run(); err != nil {
		t.Skipf("%s cannot import h5py and numpy (apt-get install python3-h5py): %v", Python, err)
	}
}

// Write writes the cases into files under dir (several cases may share a
// file), skipping t as Skip does.
func Write(t testing.TB, dir string, cases ...Case) {
	t.Helper()
	Skip(t)
	script := filepath.Join(t.TempDir(), "gen.py")
	if err := os.WriteFile(script, genPy, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Python, script, dir)
	cmd.Stdin = strings.NewReader(string(in))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s gen.py: %v\n%s", Python, err, out)
	}
}

// Path returns the path of c's file under dir.
func Path(dir string, c Case) string { return filepath.Join(dir, c.File) }

// Oracle returns the path of the .npy file holding what h5py read back
// from c's dataset.
func Oracle(dir string, c Case) string {
	return filepath.Join(dir, c.File+"."+strings.ReplaceAll(strings.Trim(c.Dataset, "/"), "/", "_")+".npy")
}
