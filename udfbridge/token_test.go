package udfbridge

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// The same run built twice over a file or chunkarray dataset has the same
// keys; a rewritten file (new mtime) or another array gives other keys.
func TestDatasetTokens(t *testing.T) {
	dir := t.TempDir()
	data := formulaArray(t, nd.Uint16, []int{3, 4, 5, 6})
	rawPath := filepath.Join(dir, "a.raw")
	writeRaw(t, rawPath, data, 8)
	npyPath := filepath.Join(dir, "a.npy")
	if err := npy.WriteFile(npyPath, data, false); err != nil {
		t.Fatal(err)
	}
	zarrPath := filepath.Join(dir, "a.zarr")
	writeZarr(t, zarrPath, data, []int{2, 2, 5, 3}, "")
	arr := chunkarray.FromNDArray(data, []int{2, 4, 5, 6})
	open := map[string]func() (Dataset, error){
		"raw":        func() (Dataset, error) { return OpenRaw(rawPath, nd.Uint16, []int{3, 4}, []int{5, 6}, 8) },
		"npy":        func() (Dataset, error) { return OpenNPY(npyPath, 2) },
		"zarr":       func() (Dataset, error) { return OpenZarr(zarrPath, 2) },
		"chunkarray": func() (Dataset, error) { return FromChunkArray(arr, 2) },
	}
	key := func(t *testing.T, name string) string {
		t.Helper()
		ds, err := open[name]()
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunLazy(ds, []UDF{&SumUDF{}}, WithPartitions(2))
		if err != nil {
			t.Fatal(err)
		}
		return res[0].Arrays["intensity"].Name()
	}
	seen := map[string]string{}
	for _, name := range []string{"raw", "npy", "zarr", "chunkarray"} {
		t.Run(name, func(t *testing.T) {
			a, b := key(t, name), key(t, name)
			if a != b {
				t.Fatalf("built twice: keys %s and %s differ", a, b)
			}
			if other, ok := seen[a]; ok {
				t.Fatalf("key %s shared with the %s dataset", a, other)
			}
			seen[a] = name
		})
	}
	// A rewritten file has a new mtime, hence new keys.
	before := key(t, "raw")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(rawPath, later, later); err != nil {
		t.Fatal(err)
	}
	if after := key(t, "raw"); after == before {
		t.Errorf("raw file with a new mtime keeps key %s", after)
	}
	// Another array, another key.
	ds2, err := FromChunkArray(chunkarray.FromNDArray(data, []int{1, 4, 5, 6}), 2)
	if err != nil {
		t.Fatal(err)
	}
	if ds2.Token() == open2(t, open["chunkarray"]).(*ArrayDataset).Token() {
		t.Error("arrays chunked differently share a token")
	}
}

func open2(t *testing.T, f func() (Dataset, error)) Dataset {
	t.Helper()
	ds, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
