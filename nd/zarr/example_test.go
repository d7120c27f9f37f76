package zarr_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr"
)

func Example() {
	dir, _ := os.MkdirTemp("", "zarr-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "a.zarr")

	a, err := zarr.Create(path, zarr.Meta{Shape: []int{3, 4}, Chunks: []int{2, 2}, DType: nd.Int32, Compressor: "zstd", Fill: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	x, _ := nd.FromSlice([]int32{1, 2, 3, 4}, 2, 2)
	if err := a.WriteChunk([]int{0, 1}, x); err != nil {
		fmt.Println(err)
		return
	}

	b, _ := zarr.Open(path)
	fmt.Println(b.Shape(), b.Chunks(), b.DType(), b.Fill(), b.NumChunks())
	for _, idx := range [][]int{{0, 1}, {1, 0}} {
		c, _ := b.ReadChunk(idx)
		v, _ := nd.Values[int32](c)
		fmt.Println(idx, c.Shape(), v)
	}
	_, err = b.ReadChunk([]int{2, 0})
	fmt.Println(err != nil)
	// Output:
	// [3 4] [2 2] int32 -1 [2 2]
	// [0 1] [2 2] [1 2 3 4]
	// [1 0] [1 2] [-1 -1]
	// true
}
