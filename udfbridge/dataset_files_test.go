package udfbridge

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/nd/zarr"
)

func TestNPYDataset(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range testDTypes {
		for _, fortran := range []bool{false, true} {
			for _, c := range []struct {
				name  string
				shape []int
				sig   int
			}{
				{"4d", []int{3, 5, 6, 7}, 2},
				{"3d", []int{9, 4, 5}, 2},
			} {
				t.Run(fmt.Sprintf("%v/fortran=%v/%s", dt, fortran, c.name), func(t *testing.T) {
					data := formulaArray(t, dt, c.shape)
					path := filepath.Join(dir, fmt.Sprintf("%v-%v-%s.npy", dt, fortran, c.name))
					if err := npy.WriteFile(path, data, fortran); err != nil {
						t.Fatal(err)
					}
					ds, err := OpenNPY(path, c.sig)
					if err != nil {
						t.Fatal(err)
					}
					defer ds.Close()
					checkDataset(t, ds, data, c.sig)
				})
			}
		}
	}
	missing := filepath.Join(dir, "missing.npy")
	if _, err := OpenNPY(missing, 2); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "2d.npy")
	if err := npy.WriteFile(path, formulaArray(t, nd.Float32, []int{4, 4}), false); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenNPY(path, 2); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("no nav axis: %v", err)
	}
}

// writeZarr stores data in a zarr array of the given chunks.
func writeZarr(t testing.TB, path string, data *nd.Array, chunks []int, compressor string) {
	t.Helper()
	z, err := zarr.Create(path, zarr.Meta{Shape: data.Shape(), Chunks: chunks, DType: data.DType(), Compressor: compressor})
	if err != nil {
		t.Fatal(err)
	}
	grid := z.NumChunks()
	idx := make([]int, len(grid))
	for {
		sl := make([]nd.Slice1, len(grid))
		for i := range grid {
			sl[i] = nd.Slice1{Start: idx[i] * chunks[i], Stop: min((idx[i]+1)*chunks[i], data.Shape()[i]), Step: 1}
		}
		v, err := data.Slice(sl...)
		if err != nil {
			t.Fatal(err)
		}
		if err := z.WriteChunk(idx, v.Contiguous()); err != nil {
			t.Fatal(err)
		}
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < grid[i] {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return
		}
	}
}

func TestZarrDataset(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range testDTypes {
		for _, c := range []struct {
			name   string
			shape  []int
			chunks []int
			comp   string
		}{
			{"one chunk", []int{3, 5, 6, 7}, []int{3, 5, 6, 7}, ""},
			{"nav and sig chunks", []int{3, 5, 6, 7}, []int{2, 2, 4, 3}, "zstd"},
			{"frame chunks", []int{4, 4, 5, 5}, []int{1, 1, 5, 5}, ""},
		} {
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				data := formulaArray(t, dt, c.shape)
				path := filepath.Join(dir, strings.ReplaceAll(fmt.Sprintf("%v-%s.zarr", dt, c.name), " ", "_"))
				writeZarr(t, path, data, c.chunks, c.comp)
				ds, err := OpenZarr(path, 2)
				if err != nil {
					t.Fatal(err)
				}
				checkDataset(t, ds, data, 2)
			})
		}
	}
	missing := filepath.Join(dir, "missing.zarr")
	if _, err := OpenZarr(missing, 2); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing store: %v", err)
	}
}

// TestNPYNumpyFortran has numpy write random arrays of several dtypes and
// shapes in C order, in Fortran order and in big-endian Fortran order;
// the Fortran files read through NPYDataset (Read and a task's reader,
// whole frames, ranges and sig regions) give the C file's values, read by
// nd/npy (checkDataset). Skipped without python3 and numpy.
func TestNPYNumpyFortran(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("no numpy: %s -c 'import numpy': %v", py, err)
	}
	dir := t.TempDir()
	cases := []struct {
		dtype string
		shape []int
		sig   int
	}{
		{"uint16", []int{4, 3, 5, 6}, 2},
		{"int32", []int{7, 2, 9}, 2},
		{"float32", []int{2, 3, 4, 5, 2}, 2},
		{"float64", []int{5, 4, 3, 2}, 1},
		{"complex64", []int{3, 5, 4, 4}, 2},
		{"uint8", []int{6, 7, 3, 5}, 3},
	}
	script := `
import sys, json, numpy as np
rng = np.random.default_rng(5)
for c in json.loads(sys.argv[2]):
    a = (rng.random(c["shape"]) * 1000).astype(c["dtype"])
    if a.dtype.kind == "c":
        a = a + 1j * (rng.random(c["shape"]) * 1000).astype(c["dtype"])
    base = f'{sys.argv[1]}/{c["dtype"]}'
    np.save(base + "_c.npy", a)
    np.save(base + "_f.npy", np.asfortranarray(a))
    np.save(base + "_fbig.npy", np.asfortranarray(a.astype(a.dtype.newbyteorder(">"))))
`
	var spec []map[string]any
	for _, c := range cases {
		spec = append(spec, map[string]any{"dtype": c.dtype, "shape": c.shape})
	}
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-c", script, dir, string(js)).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	for _, c := range cases {
		data, err := npy.ReadFile(filepath.Join(dir, c.dtype+"_c.npy"))
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"f", "fbig"} {
			t.Run(c.dtype+"_"+kind, func(t *testing.T) {
				ds, err := OpenNPY(filepath.Join(dir, c.dtype+"_"+kind+".npy"), c.sig)
				if err != nil {
					t.Fatal(err)
				}
				defer ds.Close()
				if ds.f.Header().Fortran != true || ds.f.Header().BigEndian != (kind == "fbig" && data.DType().Size() > 1) {
					t.Fatalf("header %+v: not the file numpy was asked for", ds.f.Header())
				}
				checkDataset(t, ds, data, c.sig)
			})
		}
	}
}
