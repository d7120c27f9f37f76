package udfbridge

import (
	"fmt"
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
