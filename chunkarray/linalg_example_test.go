package chunkarray_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
)

func ExampleEinsum() {
	a := chunkarray.Arange(0, 6, 1, nd.Float64, 2).Reshape(2, 3)
	b := chunkarray.Ones([]int{3, 2}, nd.Float64, 2)
	c, err := chunkarray.Einsum("ij,jk->ik", a, b).Compute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c)
	tr, _ := chunkarray.Einsum("ii", chunkarray.Eye(3, 3, 0, nd.Float64, 2)).Compute(context.Background())
	fmt.Println(tr)
	// Output:
	// [[ 3.  3.]
	//  [12. 12.]]
	// 3.0
}

func ExampleFFT() {
	x := chunkarray.FromNDArray(laVec([]float64{1, 0, -1, 0}), 2)
	// the transformed axis must be one chunk, as in Dask
	if err := chunkarray.FFT(x, 0, -1, "").Err(); err != nil {
		fmt.Println("refused: the axis has two chunks")
	}
	f, _ := chunkarray.FFT(x.Rechunk(-1), 0, -1, "").Compute(context.Background())
	fmt.Println(f)
	freq, _ := chunkarray.FFTFreq(4, 0.5, -1).Compute(context.Background())
	fmt.Println(freq)
	// Output:
	// refused: the axis has two chunks
	// [0.+0.j 2.+0.j 0.+0.j 2.+0.j]
	// [ 0.   0.5 -1.  -0.5]
}

func ExampleTSQR() {
	a := chunkarray.FromNDArray(laVec([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}), 2).Reshape(6, 2).Rechunk([]int{2, -1})
	q, r := chunkarray.TSQR(a)
	back, _ := chunkarray.Matmul(q, r).Compute(context.Background())
	fmt.Println(q.Chunks(), r.Shape())
	fmt.Println(back)
	// Output:
	// [[2 2 2] [2]] [2 2]
	// [[3. 1.]
	//  [4. 1.]
	//  [5. 9.]
	//  [2. 6.]
	//  [5. 3.]
	//  [5. 8.]]
}

func laVec(v []float64) *nd.Array {
	a, err := nd.FromSlice(v, len(v))
	if err != nil {
		panic(err)
	}
	return a
}
