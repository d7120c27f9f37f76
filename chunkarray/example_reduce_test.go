package chunkarray_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
)

// NaN-ignoring reductions, as numpy's: an all-NaN column gives NaN (numpy
// also warns).
func ExampleArray_NanMean() {
	nan := math.NaN()
	x, _ := nd.FromSlice([]float64{1, nan, 3, 4, nan, nan}, 2, 3)
	a := chunkarray.FromNDArray(x, 1)
	m, _ := a.NanMean([]int{0}, chunkarray.ReduceOpts{}).Compute(context.Background())
	fmt.Println(m)
	// Output:
	// [2.5 nan 3. ]
}

// A cumulative sum across blocks, with Blelloch's parallel prefix over
// the blocks' totals.
func ExampleArray_Cumsum() {
	a := chunkarray.Arange(1, 11, 1, nd.Int64, 3)
	c, _ := a.Cumsum(0, false, chunkarray.CumOpts{Method: "blelloch"}).Compute(context.Background())
	fmt.Println(c)
	// Output:
	// [ 1  3  6 10 15 21 28 36 45 55]
}

// The three largest elements of each row, largest first, and their
// column indices.
func ExampleArray_TopK() {
	x, _ := nd.FromSlice([]float64{5, 1, 9, 7, 3, 8, 2, 6, 4, 0}, 2, 5)
	a := chunkarray.FromNDArray(x, []int{1, 2})
	v, _ := a.TopK(3, 1, chunkarray.ReduceOpts{}).Compute(context.Background())
	i, _ := a.ArgTopK(3, 1, chunkarray.ReduceOpts{}).Compute(context.Background())
	fmt.Println(v)
	fmt.Println(i)
	// Output:
	// [[9. 7. 5.]
	//  [8. 6. 4.]]
	// [[2 3 0]
	//  [0 2 3]]
}

// A user-defined tree reduction, as dask.array.reduction: the functions
// are registered by name (in an init function, in every process that runs
// the graph), here the largest absolute value.
func ExampleReduction() {
	absMax := func(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error) {
		ab, err := nd.Unary(nd.Abs, x)
		if err != nil {
			return nil, err
		}
		return nd.Reduce(nd.Max, ab, axes, keepdims)
	}
	if err := chunkarray.RegisterReduction("example.absmax", chunkarray.ReductionFuncs{Chunk: absMax, Aggregate: absMax}); err != nil {
		fmt.Println(err)
	}
	x, _ := nd.FromSlice([]float64{1, -7, 3, 2, 5, -4}, 2, 3)
	a := chunkarray.FromNDArray(x, 1)
	r, _ := chunkarray.Reduction(a, "example.absmax", []int{1}, chunkarray.ReductionOpts{}).Compute(context.Background())
	fmt.Println(r)
	// Output:
	// [7. 5.]
}

// Percentiles of a 1-d array: exact in one chunk; across chunks merged
// from per-chunk sketches (within 1/100 + 1/chunk length in rank).
func ExampleArray_Percentile() {
	a := chunkarray.Arange(0, 101, 1, nd.Float64, -1)
	p, _ := a.Percentile([]float64{25, 50, 99}, chunkarray.PercentileOpts{}).Compute(context.Background())
	fmt.Println(p)
	// Output:
	// [25. 50. 99.]
}

// A weighted average along an axis with 1-d weights, and the sum of the
// weights (numpy's returned=True).
func ExampleArray_Average() {
	x, _ := nd.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	w, _ := nd.FromSlice([]float64{3, 2, 1}, 3)
	a := chunkarray.FromNDArray(x, 1)
	avg, sw := a.Average([]int{1}, chunkarray.AverageOpts{Weights: chunkarray.FromNDArray(w, 2)})
	r, _ := chunkarray.Compute(context.Background(), []*chunkarray.Array{avg, sw})
	fmt.Println(r[0], r[1])
	// Output:
	// [1.66666667 4.66666667] [6. 6.]
}

// The covariance and correlation of two variables (rows), as numpy.cov
// and numpy.corrcoef print them.
func ExampleCov() {
	x, _ := nd.FromSlice([]float64{1, 2, 3, 4, 2, 4, 6, 9}, 2, 4)
	a := chunkarray.FromNDArray(x, 2)
	c, _ := chunkarray.Cov(a, chunkarray.CovOpts{}).Compute(context.Background())
	r, _ := chunkarray.Corrcoef(a, chunkarray.CovOpts{}).Compute(context.Background())
	fmt.Println(c)
	fmt.Println(r)
	// Output:
	// [[1.66666667 3.83333333]
	//  [3.83333333 8.91666667]]
	// [[1.         0.99437671]
	//  [0.99437671 1.        ]]
}
