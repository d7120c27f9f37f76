package chunkarray_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

func showShape(a *chunkarray.Array) {
	v, err := a.Compute(context.Background(), chunkarray.WithScheduler(sched.Sync{}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v)
}

func ExampleArray_Pad() {
	x := chunkarray.Arange(0, 4, 1, nd.Int64, 2)
	showShape(x.Pad([][2]int{{2, 3}}, chunkarray.PadReflect, nil))
	showShape(x.Pad([][2]int{{1, 1}}, chunkarray.PadConstant, -1))
	// Output:
	// [2 1 0 1 2 3 2 1 0]
	// [-1  0  1  2  3 -1]
}

func ExampleArray_Diff() {
	x := chunkarray.Arange(0, 6, 1, nd.Int64, 2).Pow(2)
	showShape(x.Diff(1, 0))
	showShape(x.Diff(2, 0, chunkarray.DiffOpts{Prepend: 0}))
	// Output:
	// [1 3 5 7 9]
	// [1 2 2 2 2]
}

func ExampleArray_Coarsen() {
	x := chunkarray.Arange(0, 12, 1, nd.Float64, 5).Reshape(3, 4)
	fmt.Println(x.Coarsen(nd.Mean, map[int]int{1: 2}, false).Chunks())
	showShape(x.Coarsen(nd.Mean, map[int]int{1: 2}, false))
	// Output:
	// [[1 1 1] [2]]
	// [[ 0.5  2.5]
	//  [ 4.5  6.5]
	//  [ 8.5 10.5]]
}

func init() {
	// (i),(i)->(): the sum of products over the last axis of each block.
	err := chunkarray.RegisterBlockFunc("example.inner", func(_ chunkarray.BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		p, err := nd.Binary(nd.Mul, b[0], b[1])
		if err != nil {
			return nil, err
		}
		return nd.Reduce(nd.Sum, p, []int{p.NDim() - 1}, false)
	})
	if err != nil {
		panic(err)
	}
}

func ExampleApplyGufunc() {
	x := chunkarray.Arange(0, 6, 1, nd.Float64, 2).Reshape(2, 3).Rechunk([]int{1, 3})
	w := chunkarray.Ones([]int{3}, nd.Float64, -1)
	showShape(chunkarray.ApplyGufunc("example.inner", "(i),(i)->()", chunkarray.GufuncOpts{}, x, w))
	// Output:
	// [ 3. 12.]
}

func ExampleArray_ToDelayed() {
	x := chunkarray.Arange(0, 6, 1, nd.Int64, 4)
	ds, _ := x.ToDelayed()
	b, _ := ds[1].Compute(context.Background())
	fmt.Println(len(ds), b)
	// Output:
	// 2 [4 5]
}
