package nd_test

import (
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

func ExampleBinary() {
	col, _ := nd.FromSlice([]float64{1, 2, 3}, 3, 1)
	row, _ := nd.FromSlice([]float64{10, 20}, 1, 2)
	sum, _ := nd.Binary(nd.Add, col, row) // (3,1) + (1,2) broadcast to (3,2)
	v, _ := nd.Values[float64](sum)
	fmt.Println(sum.Shape(), v)

	// A Go scalar is a 0-d array; numpy 1.24's value-based casting keeps
	// int8 + 1 in int8, and integer overflow wraps.
	x, _ := nd.FromSlice([]int8{1, 127})
	one, _ := nd.ScalarOf(1)
	y, _ := nd.Binary(nd.Add, x, one)
	w, _ := nd.Values[int8](y)
	fmt.Println(y.DType(), w)

	// Floor division and remainder follow Python's signs; integer division
	// by zero gives 0 as numpy does.
	a, _ := nd.FromSlice([]int64{-7, 7, 5})
	b, _ := nd.FromSlice([]int64{2, -2, 0})
	q, _ := nd.Binary(nd.FloorDiv, a, b)
	r, _ := nd.Binary(nd.Mod, a, b)
	qv, _ := nd.Values[int64](q)
	rv, _ := nd.Values[int64](r)
	fmt.Println(qv, rv)
	// Output:
	// [3 2] [11 21 12 22 13 23]
	// int8 [2 -128]
	// [-4 -4 0] [1 -1 0]
}

func ExampleResultType() {
	fmt.Println(nd.ResultType(nd.Int8, nd.Uint8))
	fmt.Println(nd.ResultType(nd.Int64, nd.Uint64))
	fmt.Println(nd.ResultType(nd.Float32, nd.Int16))
	fmt.Println(nd.ResultType(nd.Float32, nd.Int32))
	dt, _ := nd.BinaryResultType(nd.Div, nd.Int32, nd.Int32)
	fmt.Println(dt)
	_, err := nd.BinaryResultType(nd.FloorDiv, nd.Complex128, nd.Float64)
	fmt.Println(err)
	// Output:
	// int16
	// float64
	// float32
	// float64
	// float64
	// nd: floor_divide: complex128, float64: not supported for complex numbers
}

func ExampleUnary() {
	x, _ := nd.FromSlice([]int16{4, 9})
	s, _ := nd.Unary(nd.Sqrt, x) // int16 -> float32, as numpy
	v, _ := nd.Values[float32](s)
	fmt.Println(s.DType(), v)
	// Output: float32 [2 3]
}

func ExampleWhere() {
	x, _ := nd.FromSlice([]float64{-1, 2, -3})
	zero, _ := nd.ScalarOf(0.0)
	pos, _ := nd.Binary(nd.Greater, x, zero)
	r, _ := nd.Where(pos, x, zero) // np.where(x > 0, x, 0)
	v, _ := nd.Values[float64](r)
	fmt.Println(v)
	// Output: [0 2 0]
}
