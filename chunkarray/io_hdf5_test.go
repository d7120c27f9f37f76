package chunkarray

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

// TestFromHDF5 reads h5py's files (chunked with gzip, big-endian; and
// contiguous) with the file's chunks and with others, and checks the
// blocks, the values (against h5py's read), a reduction (against the
// same reduction of h5py's read) and a run of the graph decoded from
// JSON, whose tasks open the file themselves.
func TestFromHDF5(t *testing.T) {
	dir := t.TempDir()
	chunked := hdf5test.Case{File: "a.h5", Dataset: "/entry/data", DType: ">f8", Shape: []int{7, 6, 5}, Chunks: []int{3, 6, 2}, Compression: "gzip"}
	contiguous := hdf5test.Case{File: "a.h5", Dataset: "/flat", DType: "<i2", Shape: []int{9, 4}}
	hdf5test.Write(t, dir, chunked, contiguous)
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		h5     hdf5test.Case
		chunks any
		want   [][]int
	}{
		{"file chunks", chunked, nil, [][]int{{3, 3, 1}, {6}, {2, 2, 1}}},
		{"other chunks", chunked, []int{4, 4, 5}, [][]int{{4, 3}, {4, 2}, {5}}},
		{"contiguous auto", contiguous, nil, [][]int{{9}, {4}}},
		{"contiguous rows", contiguous, []int{2, 4}, [][]int{{2, 2, 2, 2, 1}, {4}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			oracle, err := npy.ReadFile(hdf5test.Oracle(dir, c.h5))
			if err != nil {
				t.Fatal(err)
			}
			a := FromHDF5(hdf5test.Path(dir, c.h5), c.h5.Dataset, c.chunks)
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(a.Chunks(), c.want, slices.Equal) {
				t.Fatalf("chunks %v, want %v", a.Chunks(), c.want)
			}
			got, err := a.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.AppendBytes(nil, false), oracle.AppendBytes(nil, false)) || got.DType() != oracle.DType() {
				t.Fatalf("values differ from h5py's: %v, want %v", got, oracle)
			}
			sum, err := a.Sum(0).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want, err := FromNDArray(oracle, -1).Sum(0).Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(sum.AppendBytes(nil, false), want.AppendBytes(nil, false)) {
				t.Errorf("sum(0) = %v, want %v", sum, want)
			}
			// The graph through JSON: decoded ops have no open handle.
			g, err := a.Graph()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := g.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			back, err := graph.ReadJSON(&buf)
			if err != nil {
				t.Fatal(err)
			}
			keys := a.Keys()
			vals, err := sched.Sync{}.Get(ctx, back, keys)
			if err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				_, idx, ok := k.Block()
				if !ok {
					t.Fatalf("key %v is not a block key", k)
				}
				sl := make([]nd.Slice1, a.NDim())
				for ax, b := range idx {
					lo := 0
					for _, s := range a.Chunks()[ax][:b] {
						lo += s
					}
					sl[ax] = nd.Slice1{Start: lo, Stop: lo + a.Chunks()[ax][b], Step: 1}
				}
				w, err := oracle.Slice(sl...)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(vals[i].(*nd.Array).AppendBytes(nil, false), w.Contiguous().AppendBytes(nil, false)) {
					t.Fatalf("decoded graph: block %v differs", idx)
				}
			}
		})
	}
}

// TestFromHDF5Errors checks the sticky errors: a missing file, a missing
// dataset, bad chunks, and a build without HDF5.
func TestFromHDF5Errors(t *testing.T) {
	dir := t.TempDir()
	if !hdf5.Enabled {
		err := FromHDF5(filepath.Join(dir, "a.h5"), "/data", nil).Err()
		if !errors.Is(err, hdf5.ErrNotBuilt) || !strings.Contains(err.Error(), "a.h5") {
			t.Fatalf("FromHDF5 without HDF5: %v, want an error naming the file wrapping hdf5.ErrNotBuilt", err)
		}
	}
	c := hdf5test.Case{File: "e.h5", Dataset: "/data", DType: "<u2", Shape: []int{4, 4}, Chunks: []int{2, 2}}
	hdf5test.Write(t, dir, c)
	path := hdf5test.Path(dir, c)
	for _, e := range []struct {
		name, path, dataset string
		chunks              any
		want                string
	}{
		{"missing file", filepath.Join(dir, "missing.h5"), "/data", nil, "missing.h5"},
		{"missing dataset", path, "/nope", nil, "/nope"},
		{"bad chunks", path, "/data", []int{2, 2, 2}, "chunks"},
	} {
		err := FromHDF5(e.path, e.dataset, e.chunks).Err()
		if err == nil || !strings.Contains(err.Error(), e.want) {
			t.Errorf("%s: %v, want an error saying %q", e.name, err, e.want)
		}
	}
}
