package chunkarray

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestZarrEmptyArrays: arrays with an axis of length 0 go to zarr and
// back (ToZarr then FromZarr), and zarr-python's own empty stores
// (nd/zarr/testdata, written by gen.py) read, as numpy reads them: an
// empty array of the stored shape and dtype. Before, FromZarr's one empty
// block asked the store for chunk [0 0], which the store's grid of no
// chunks refused.
func TestZarrEmptyArrays(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		shape []int
		d     nd.DType
		zo    ZarrOptions
	}{
		{"0x0", []int{0, 0}, nd.Float64, ZarrOptions{}},
		{"0x5 zstd", []int{0, 5}, nd.Int32, ZarrOptions{Chunks: []int{2, 2}, Compressor: "zstd"}},
		{"3x0 v3", []int{3, 0}, nd.Uint8, ZarrOptions{Version: 3}},
		{"0", []int{0}, nd.Complex64, ZarrOptions{}},
	} {
		t.Run("tessera "+tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "e.zarr")
			if err := Zeros(tc.shape, tc.d, 4).ToZarr(ctx, path, tc.zo); err != nil {
				t.Fatal(err)
			}
			checkEmpty(t, FromZarr(path), tc.shape, tc.d)
		})
	}
	for _, tc := range []struct {
		store string
		shape []int
		d     nd.DType
	}{
		{"float64_empty_0x0", []int{0, 0}, nd.Float64},
		{"int32_empty_0x5", []int{0, 5}, nd.Int32},
	} {
		t.Run("zarr-python "+tc.store, func(t *testing.T) {
			checkEmpty(t, FromZarr(filepath.Join("..", "nd", "zarr", "testdata", tc.store)), tc.shape, tc.d)
		})
	}
}

func checkEmpty(t *testing.T, a *Array, shape []int, d nd.DType) {
	t.Helper()
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := a.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Shape(), shape) || got.DType() != d || got.Size() != 0 {
		t.Errorf("got %s %v (%d elements), want an empty %s %v", got.DType(), got.Shape(), got.Size(), d, shape)
	}
	// A reduction over the empty array still runs: the sum is 0.
	s, err := a.Sum().Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.AsType(nd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	if x, _ := nd.Values[float64](f); len(x) != 1 || x[0] != 0 {
		t.Errorf("sum of an empty array = %v, want 0", x)
	}
}
