package chunkarray_test

import (
	"context"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// The seed tutorial's first array: ones((10000, 10000), chunks=(1000,
// 1000)). Nothing is allocated: the array is a description of 100 blocks.
func ExampleOnes() {
	im := chunkarray.Ones([]int{10000, 10000}, nd.Float64, []int{1000, 1000})
	fmt.Println("shape", im.Shape(), "dtype", im.DType(), "bytes", im.Nbytes())
	fmt.Println("chunks along axis 0", im.Chunks()[0])
	fmt.Println("blocks", im.NumBlocks(), "tasks", im.NumTasks())
	// Output:
	// shape [10000 10000] dtype float64 bytes 800000000
	// chunks along axis 0 [1000 1000 1000 1000 1000 1000 1000 1000 1000 1000]
	// blocks [10 10] tasks 100
}

// Irregular chunks are lists of lengths per axis; an edge chunk is
// shorter than the others.
func ExampleNormalizeChunks() {
	ch, err := chunkarray.NormalizeChunks("example", []int{4, -1}, []int{10, 3}, nd.Float64)
	fmt.Println(ch, err)
	a := chunkarray.Zeros([]int{10, 3}, nd.Int32, [][]int{{1, 9}, {2, 1}})
	fmt.Println(a.Chunks(), a.NumTasks())
	// Output:
	// [[4 4 2] [3]] <nil>
	// [[1 9] [2 1]] 4
}

// Slicing, im[:10, 0]: the result is lazy too, and computes only what it
// needs.
func ExampleArray_Index() {
	im := chunkarray.Ones([]int{10000, 10000}, nd.Float64, []int{1000, 1000})
	s := im.Index(chunkarray.Range(0, 10), chunkarray.At(0))
	fmt.Println("shape", s.Shape(), "chunks", s.Chunks())
	v, err := s.Compute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Shape(), values(v))
	// Output:
	// shape [10] chunks [[10]]
	// [10] [1 1 1 1 1 1 1 1 1 1]
}

// sin(im[:, 0]) * im.T broadcasts a column against the transposed array;
// computing the [:5, :5] corner runs only the blocks it needs.
func ExampleSin() {
	im := chunkarray.Ones([]int{10000, 10000}, nd.Float64, []int{1000, 1000})
	res := chunkarray.Sin(im.Index(chunkarray.All(), chunkarray.At(0))).Mul(im.T())
	fmt.Println("shape", res.Shape(), "blocks", res.NumBlocks())
	corner, err := res.Index(chunkarray.Range(0, 5), chunkarray.Range(0, 5)).Compute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := nd.Values[float64](corner)
	for i := 0; i < 5; i++ {
		fmt.Printf("%.8f\n", v[i*5:i*5+5])
	}
	// Output:
	// shape [10000 10000] blocks [10 10]
	// [0.84147098 0.84147098 0.84147098 0.84147098 0.84147098]
	// [0.84147098 0.84147098 0.84147098 0.84147098 0.84147098]
	// [0.84147098 0.84147098 0.84147098 0.84147098 0.84147098]
	// [0.84147098 0.84147098 0.84147098 0.84147098 0.84147098]
	// [0.84147098 0.84147098 0.84147098 0.84147098 0.84147098]
}

// The tutorial's normalisation of a time series of images (TXY): the
// maximum of each image, then each image divided by its maximum, with the
// maxima broadcast over the image axes by im_max[:, None, None].
func ExampleArray_Max() {
	im := chunkarray.Ones([]int{3, 1000, 1000}, nd.Float64, []int{1, 600, 600})
	imMax := im.Max(1, 2)
	normalized := im.Div(imMax.Index(chunkarray.All(), chunkarray.NewAxis(), chunkarray.NewAxis()))
	fmt.Println("im", im.Shape(), im.Chunks())
	fmt.Println("max", imMax.Shape(), imMax.Chunks())
	fmt.Println("normalized", normalized.Shape(), normalized.NumTasks(), "blocks")

	ctx := context.Background()
	m, err := imMax.Compute(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := normalized.Sum().Compute(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("maxima", values(m), "sum of normalized", values(s))
	// Output:
	// im [3 1000 1000] [[1 1 1] [600 400] [600 400]]
	// max [3] [[1 1 1]]
	// normalized [3 1000 1000] 12 blocks
	// maxima [1 1 1] sum of normalized [3e+06]
}

// Compute of several arrays runs one graph: what they share (here the
// random array's blocks) is computed once, and the results agree with each
// other.
func ExampleCompute() {
	x := chunkarray.Random(42).Integers(0, 100, []int{100, 100, 100}, 50)
	total, mean, peak := x.Sum(), x.Mean(), x.Max()
	out, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{total, mean, peak})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, _ := nd.Values[int64](out[0])
	avg, _ := nd.Values[float64](out[1])
	mx, _ := nd.Values[int64](out[2])
	fmt.Println(out[0].DType(), out[1].DType(), out[2].DType())
	// the mean is merged from per-chunk moments: equal to sum/size up to
	// rounding
	fmt.Println("mean ≈ sum/size:", math.Abs(avg[0]-float64(sum[0])/1e6) < 1e-9, "max:", mx[0])
	// Output:
	// int64 float64 int64
	// mean ≈ sum/size: true max: 99
}

// Every scheduler computes the same result; the tutorial's
// single-threaded and threads schedulers are sched.Sync and sched.Threaded.
func ExampleWithScheduler() {
	x := chunkarray.Ones([]int{100, 100, 100}, nd.Float64, []int{20, 20, 20})
	y := x.T().Sum()
	for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
		v, err := y.Compute(context.Background(), chunkarray.WithScheduler(s))
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(values(v))
	}
	// Output:
	// [1e+06]
	// [1e+06]
}

// Errors are sticky: a shape mistake is reported when the expression is
// built, and Compute returns it.
func ExampleArray_Err() {
	a := chunkarray.Ones([]int{3, 4}, nd.Float64, 2)
	b := chunkarray.Ones([]int{5}, nd.Float64, 2)
	c := a.Add(b).Sum()
	fmt.Println(c.Err())
	_, err := c.Compute(context.Background())
	fmt.Println(err == c.Err())
	// Output:
	// chunkarray: add: shapes (3, 4) and (5,) could not be broadcast
	// true
}

// values returns a's elements in C order as float64. (Data would return
// the backing slice: one element for a constant, zero-stride result.)
func values(a *nd.Array) []float64 {
	b, err := a.AsType(nd.Float64)
	if err != nil {
		return nil
	}
	v, _ := nd.Values[float64](b)
	return v
}
