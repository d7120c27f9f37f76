package chunkarray_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
)

// A zarr store written block by block and read back lazily, one task per
// stored chunk.
func ExampleFromZarr() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "im.zarr")
	ctx := context.Background()

	im := chunkarray.Arange(0, 12, 1, nd.Int32, 4)
	if err := im.ToZarr(ctx, path, chunkarray.ZarrOptions{Compressor: "zlib"}); err != nil {
		fmt.Println(err)
		return
	}
	back := chunkarray.FromZarr(path)
	s, err := back.AsType(nd.Int64).Pow(2).Sum().Compute(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := s.At()
	fmt.Println(back.Chunks(), back.DType(), v)
	// Output: [[4 4 4]] int32 506
}

// A .npy file written without assembling the array, then read back in
// blocks of two rows.
func ExampleFromNPY() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "x.npy")
	ctx := context.Background()

	x := chunkarray.Eye(4, 3, 0, nd.Float64, 2)
	if err := x.ToNPY(ctx, path); err != nil {
		fmt.Println(err)
		return
	}
	y := chunkarray.FromNPY(path, []int{2, -1})
	sum, err := y.Sum(0).Compute(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := nd.Values[float64](sum)
	fmt.Println(y.Shape(), y.Chunks(), v)
	// Output: [4 3] [[2 2] [3]] [1 1 1]
}
