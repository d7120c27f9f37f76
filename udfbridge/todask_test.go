package udfbridge

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

func TestArrayDataset(t *testing.T) {
	for _, dt := range testDTypes {
		for _, chunks := range []any{[]int{2, 3, 4, 7}, []int{3, 5, 6, 7}, [][]int{{1, 2}, {5}, {1, 5}, {3, 4}}} {
			t.Run(fmt.Sprintf("%v/%v", dt, chunks), func(t *testing.T) {
				data := formulaArray(t, dt, []int{3, 5, 6, 7})
				a := chunkarray.FromNDArray(data, chunks)
				ds, err := FromChunkArray(a, 2)
				if err != nil {
					t.Fatal(err)
				}
				checkDataset(t, ds, data, 2)
			})
		}
	}
	// A lazily generated array: reads equal its computed values.
	r := chunkarray.Random(7).Uniform(0, 1, []int{4, 4, 8, 8}, []int{2, 4, 8, 4})
	want, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{r})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := FromChunkArray(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, ds, want[0], 2)
	if _, err := FromChunkArray(r, 4); err == nil {
		t.Error("sig dims 4 of a 4-d array: no error")
	}
}

func TestToChunkArray(t *testing.T) {
	dir := t.TempDir()
	shape := []int{4, 5, 6, 3}
	for _, dt := range testDTypes {
		data := formulaArray(t, dt, shape)
		flat, err := data.Reshape(20, 6, 3)
		if err != nil {
			t.Fatal(err)
		}
		raw := filepath.Join(dir, fmt.Sprintf("%v.raw", dt))
		writeRaw(t, raw, data, 8)
		npyPath := filepath.Join(dir, fmt.Sprintf("%v.npy", dt))
		if err := npy.WriteFile(npyPath, data, false); err != nil {
			t.Fatal(err)
		}
		zpath := filepath.Join(dir, fmt.Sprintf("%v.zarr", dt))
		writeZarr(t, zpath, data, []int{3, 2, 6, 2}, "")
		rds, err := OpenRaw(raw, dt, shape[:2], shape[2:], 8)
		if err != nil {
			t.Fatal(err)
		}
		nds, err := OpenNPY(npyPath, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer nds.Close()
		zds, err := OpenZarr(zpath, 2)
		if err != nil {
			t.Fatal(err)
		}
		ads, err := FromChunkArray(chunkarray.FromNDArray(data, []int{3, 2, 6, 2}), 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, ds := range []Dataset{rds, nds, zds, ads} {
			for _, p := range []int{1, 2, 7, 25} {
				for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{}} {
					name := fmt.Sprintf("%v/%v/P=%d/%T", dt, ds, p, s)
					a, where, err := ToChunkArray(ds, p)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					np := min(p, 20)
					if got := len(a.Chunks()[0]); got != np {
						t.Errorf("%s: %d blocks, want %d", name, got, np)
					}
					if len(where) != np {
						t.Errorf("%s: locality map has %d entries, want %d", name, len(where), np)
					}
					if loc := where[a.Key(0, 0, 0)]; loc == "" {
						t.Errorf("%s: no location for block 0: %v", name, where)
					} else if ds == rds && !strings.Contains(loc, raw+" bytes [8, ") {
						t.Errorf("%s: location %q", name, loc)
					}
					got, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{a}, chunkarray.WithScheduler(s))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := sameArray(got[0], flat.Contiguous()); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			}
		}
	}
}

func TestToChunkArrayErrors(t *testing.T) {
	if _, _, err := ToChunkArray(nil, 2); err == nil {
		t.Error("nil dataset: no error")
	}
	// A raw file truncated after ToChunkArray: Compute fails naming it.
	dir := t.TempDir()
	path := filepath.Join(dir, "t.raw")
	data := formulaArray(t, nd.Float32, []int{4, 2, 2})
	writeRaw(t, path, data, 0)
	ds, err := OpenRaw(path, nd.Float32, []int{4}, []int{2, 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, _, err := ToChunkArray(ds, 2)
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, path, formulaArray(t, nd.Float32, []int{1}), 0)
	got, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{a})
	if err == nil || got != nil || !strings.Contains(err.Error(), path) {
		t.Errorf("truncated file: %v, %v", got, err)
	}
}
