package zarr

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestEmptyArrays: an array with an axis of length 0 has no chunk in the
// grid on that axis (NumChunks 0, zarr-python's cdata_shape), yet index 0
// there names the one empty block that readers tile it with: it reads as
// an empty array of the cropped shape, writes nothing, and no file is ever
// made. Any other index stays out of range. The stores come from
// zarr-python (testdata/gen.py) and from Create.
func TestEmptyArrays(t *testing.T) {
	tests := []struct {
		name       string
		open       func(t *testing.T) *Array
		numChunks  []int
		emptyShape []int // of the chunk at index 0…0
		bad        []int // an index still out of range
	}{
		{"zarr-python 0x0", openFixture("float64_empty_0x0"), []int{0, 0}, []int{0, 0}, []int{0, 1}},
		{"zarr-python 0x5", openFixture("int32_empty_0x5"), []int{0, 3}, []int{0, 2}, []int{0, 3}},
		{"Create 0x0 v2", create(Meta{Shape: []int{0, 0}, Chunks: []int{1, 1}, DType: nd.Float64}), []int{0, 0}, []int{0, 0}, []int{1, 0}},
		{"Create 4x0x3 v3", create(Meta{Shape: []int{4, 0, 3}, Chunks: []int{2, 2, 2}, DType: nd.Int16, Version: 3, Compressor: "zstd"}), []int{2, 0, 2}, []int{2, 0, 2}, []int{2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.open(t)
			if got := a.NumChunks(); !slices.Equal(got, tt.numChunks) {
				t.Errorf("NumChunks = %v, want %v", got, tt.numChunks)
			}
			idx := make([]int, len(a.Shape()))
			for _, i := range []int{1, 2} { // a non-zero index on a non-empty axis
				if i < len(idx) && a.Shape()[i] > 0 {
					idx[i] = a.NumChunks()[i] - 1
				}
			}
			want := slices.Clone(tt.emptyShape)
			if sh, err := a.ChunkShape(idx); err != nil || !slices.Equal(sh, cropAt(a, idx)) {
				t.Errorf("ChunkShape(%v) = %v, %v; want %v", idx, sh, err, cropAt(a, idx))
			}
			got, err := a.ReadChunk(idx)
			if err != nil {
				t.Fatalf("ReadChunk(%v): %v", idx, err)
			}
			if got.Size() != 0 || got.DType() != a.DType() || !slices.Equal(got.Shape(), cropAt(a, idx)) {
				t.Errorf("ReadChunk(%v) = %s %v, want an empty %s %v", idx, got.DType(), got.Shape(), a.DType(), cropAt(a, idx))
			}
			first, err := a.ReadChunk(make([]int, len(idx)))
			if err != nil || !slices.Equal(first.Shape(), want) {
				t.Errorf("ReadChunk(0…) = %v, %v; want shape %v", first, err, want)
			}
			if err := a.WriteChunk(idx, got); err != nil {
				t.Errorf("WriteChunk(%v, empty): %v", idx, err)
			}
			if _, err := os.Stat(a.ChunkPath(idx)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("empty chunk has a file %s (%v)", a.ChunkPath(idx), err)
			}
			var ze *Error
			if _, err := a.ReadChunk(tt.bad); !errors.As(err, &ze) {
				t.Errorf("ReadChunk(%v) = %v, want *Error out of range", tt.bad, err)
			}
			if _, err := a.ReadChunk([]int{-1, 0, 0}[:len(idx)]); !errors.As(err, &ze) {
				t.Errorf("ReadChunk(-1…) = %v, want *Error", err)
			}
		})
	}
}

// cropAt is the chunk's shape computed from the metadata here: the chunk
// size, cut at the end of the array.
func cropAt(a *Array, idx []int) []int {
	sh := make([]int, len(idx))
	for i, v := range idx {
		sh[i] = max(0, min(a.Chunks()[i], a.Shape()[i]-v*a.Chunks()[i]))
	}
	return sh
}

func openFixture(name string) func(t *testing.T) *Array {
	return func(t *testing.T) *Array {
		a, err := Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
}

func create(m Meta) func(t *testing.T) *Array {
	return func(t *testing.T) *Array {
		dir := filepath.Join(t.TempDir(), "a.zarr")
		if _, err := Create(dir, m); err != nil {
			t.Fatal(err)
		}
		a, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
}
