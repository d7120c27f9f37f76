package chunkarray

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// sum(int64(x)**2) over an int32 zarr store streams uncompressed, whole,
// present chunks through a cache-sized piece (streamSum) and reads the
// rest as before; both give the exact sum the values give (the oracle:
// the squares summed directly), on Sync and Threaded (where the count of
// streamed chunks is checked) and without the graph optimization.
func TestZarrStreamSum(t *testing.T) {
	ctx := context.Background()
	vals := make([]int32, 10*12)
	var want int64
	for i := range vals {
		vals[i] = int32((i*7919)%2001 - 1000)
		want += int64(vals[i]) * int64(vals[i])
	}
	src, err := nd.FromSlice(vals, 10, 12)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		zo       ZarrOptions
		streamed int64 // chunks streamed per compute
	}{
		{"uncompressed, whole chunks", ZarrOptions{Chunks: []int{5, 4}}, 6},
		{"uncompressed, edge chunks cropped", ZarrOptions{Chunks: []int{4, 5}}, 4}, // rows 4,4,2 by columns 5,5,2: four whole
		{"zlib", ZarrOptions{Chunks: []int{5, 4}, Compressor: "zlib"}, 0},
		{"F order", ZarrOptions{Chunks: []int{5, 4}, Order: "F"}, 0},
		{"v3", ZarrOptions{Chunks: []int{5, 4}, Version: 3}, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.zarr")
			if err := FromNDArray(src, c.zo.Chunks).ToZarr(ctx, path, c.zo); err != nil {
				t.Fatal(err)
			}
			for i, opts := range [][]Option{{WithScheduler(sched.Sync{})}, {WithScheduler(sched.Threaded{Workers: 2})}, {WithOptimize(false)}} {
				before := streamedChunks.Load()
				x := FromZarr(path)
				r, err := x.AsType(nd.Int64).Pow(2).Sum().Compute(ctx, opts...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := nd.Values[int64](r)
				if err != nil || got[0] != want {
					t.Fatalf("sum of squares = %v (%v), want %d", got, err, want)
				}
				if n := streamedChunks.Load() - before; i < 2 && n != c.streamed {
					t.Errorf("%d chunks streamed, want %d", n, c.streamed)
				}
			}
		})
	}
	// A missing chunk is its fill value, read the old way; a chunk file of
	// the wrong size is an error naming the block.
	path := filepath.Join(t.TempDir(), "y.zarr")
	if err := FromNDArray(src, []int{5, 4}).ToZarr(ctx, path, ZarrOptions{Chunks: []int{5, 4}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(path, "0.0")); err != nil {
		t.Fatal(err)
	}
	var missing int64
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			v := int64(vals[i*12+j])
			missing += v * v
		}
	}
	r, err := FromZarr(path).AsType(nd.Int64).Pow(2).Sum().Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := nd.Values[int64](r); got[0] != want-missing {
		t.Fatalf("with a missing chunk: %d, want %d", got[0], want-missing)
	}
	if err := os.WriteFile(filepath.Join(path, "1.2"), []byte("short"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = FromZarr(path).AsType(nd.Int64).Pow(2).Sum().Compute(ctx)
	var fe *FusedInputError
	if !errors.As(err, &fe) || fe.Op != opZarrRead {
		t.Fatalf("a short chunk file: %v, want a *FusedInputError of %s", err, opZarrRead)
	}
}
