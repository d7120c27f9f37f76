package chunkarray_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
)

// A stack of .npy files as Dask writes them (da.to_npy_stack): one file
// per block along axis 0 and a pickled info file, which
// da.from_npy_stack reads, and FromNPYStack here.
func ExampleToNPYStack() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	x := chunkarray.Arange(0, 12, 1, nd.Float64, 12).Reshape(4, 3).Rechunk([]int{3, 2})
	if err := chunkarray.ToNPYStack(ctx, filepath.Join(dir, "stack"), x, 0); err != nil {
		fmt.Println(err)
		return
	}
	files, _ := os.ReadDir(filepath.Join(dir, "stack"))
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	fmt.Println(names)
	y := chunkarray.FromNPYStack(filepath.Join(dir, "stack"))
	s, err := y.Sum(1).Compute(ctx)
	fmt.Println(y.Chunks(), s, err)
	// Output:
	// [0.npy 1.npy info]
	// [[3 1] [3]] [ 3. 12. 21. 30.] <nil>
}

// Two-output functions return two Arrays: numpy's modf and frexp.
func ExampleFrexp() {
	v, _ := nd.FromSlice([]float64{8, -0.375, 0, 1e-310}, 4)
	m, e := chunkarray.Frexp(chunkarray.FromNDArray(v, 2))
	mv, _ := m.Compute(context.Background())
	ev, _ := e.Compute(context.Background())
	fmt.Println(mv, ev)
	// Output:
	// [ 0.5       -0.75       0.         0.5752618] [    4    -1     0 -1029]
}
