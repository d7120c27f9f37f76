package chunkarray_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
)

// Boolean indexing by a lazy mask, x[x > 4]: the result's length is
// Unknown until computed; reductions and elementwise operations work on
// it, and ComputeChunkSizes learns its chunks for what needs them.
func ExampleMask() {
	ctx := context.Background()
	x := chunkarray.Arange(0, 10, 1, nd.Int64, 4)
	big := x.Index(chunkarray.Mask(x.Greater(4)))
	fmt.Println(big.Shape(), big.Chunks())
	s, _ := big.Mul(2).Sum().Compute(ctx)
	fmt.Println(s)
	err := big.Reshape(-1, 1).Err()
	fmt.Println(errors.Is(err, chunkarray.ErrUnknownChunks))
	k, _ := big.ComputeChunkSizes(ctx)
	fmt.Println(k.Shape(), k.Chunks())
	// Output:
	// [-1] [[-1 -1 -1]]
	// 70
	// true
	// [5] [[0 3 2]]
}

// Unique values with their counts, numpy.unique(x, return_counts=True).
func ExampleArray_Unique() {
	ctx := context.Background()
	v, _ := nd.FromSlice([]int64{3, 1, 3, 2, 1, 3}, 6)
	u := chunkarray.FromNDArray(v, 2).Unique(chunkarray.UniqueOpts{Counts: true})
	vals, _ := u.Values.Compute(ctx)
	counts, _ := u.Counts.Compute(ctx)
	fmt.Println(vals, counts)
	// Output:
	// [1 2 3] [2 1 3]
}

// A histogram with equal bins over a given range (Dask's rule: a bin
// count needs the range).
func ExampleHistogram() {
	ctx := context.Background()
	v, _ := nd.FromSlice([]float64{0.5, 1.5, 1.7, 2.5, 3, 9}, 6)
	h, e := chunkarray.Histogram(chunkarray.FromNDArray(v, 2), chunkarray.HistOpts{Bins: 3, Range: []float64{0, 3}})
	hv, _ := h.Compute(ctx)
	ev, _ := e.Compute(ctx)
	fmt.Println(hv, ev)
	// Output:
	// [1 2 2] [0. 1. 2. 3.]
}

// Sorting along an axis that is one chunk.
func ExampleArray_Sort() {
	v, _ := nd.FromSlice([]float64{3, 1, 2, 9, 8, 7}, 2, 3)
	x := chunkarray.FromNDArray(v, []int{1, -1})
	s, _ := x.Sort(1).Compute(context.Background())
	i, _ := x.ArgSort(1).Compute(context.Background())
	fmt.Println(s)
	fmt.Println(i)
	// Output:
	// [[1. 2. 3.]
	//  [7. 8. 9.]]
	// [[1 2 0]
	//  [2 1 0]]
}
