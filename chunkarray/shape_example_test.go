package chunkarray_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

func ExampleArray_Index_steps() {
	x := chunkarray.Arange(0, 10, 1, nd.Int64, 3)
	y := x.Index(chunkarray.RangeStep(8, 1, -3))
	fmt.Println(y.Shape(), y.Chunks())
	v, _ := y.Compute(context.Background(), chunkarray.WithScheduler(sched.Sync{}))
	fmt.Println(nd.Values[int64](v))
	z := x.Index(chunkarray.Ints(5, 0, 1, 2, 9, 9))
	fmt.Println(z.Chunks())
	// Output:
	// [3] [[1 1 1]]
	// [8 5 2] <nil>
	// [[1 3 2]]
}

func ExampleArray_Reshape() {
	x := chunkarray.Ones([]int{6, 4}, nd.Float64, []int{2, 3})
	fmt.Println(x.Reshape(2, 3, 4).Chunks())
	fmt.Println(x.Reshape(-1).Chunks())
	// Output:
	// [[1 1] [3] [3 1]]
	// [[4 4 4 4 4 4]]
}

func ExampleConcatenate() {
	a := chunkarray.Arange(0, 4, 1, nd.Int32, 2)
	b := chunkarray.Arange(0, 3, 1, nd.Float64, 3)
	c := chunkarray.Concatenate([]*chunkarray.Array{a, b}, 0)
	v, _ := c.Compute(context.Background(), chunkarray.WithScheduler(sched.Sync{}))
	fmt.Println(c.DType(), c.Chunks())
	fmt.Println(nd.Values[float64](v))
	// Output:
	// float64 [[2 2 3]]
	// [0 1 2 3 0 1 2] <nil>
}

func ExampleMatmul() {
	a := chunkarray.Ones([]int{4, 6}, nd.Float64, 2)
	b := chunkarray.Ones([]int{6, 3}, nd.Float64, 2)
	v, _ := chunkarray.Matmul(a, b).Compute(context.Background(), chunkarray.WithScheduler(sched.Sync{}))
	vals, _ := nd.Values[float64](v)
	fmt.Println(v.Shape(), vals)
	// Output:
	// [4 3] [6 6 6 6 6 6 6 6 6 6 6 6]
}
