package npy_test

import (
	"bytes"
	"fmt"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

func Example() {
	a, _ := nd.FromSlice([]int32{1, 2, 3, 4, 5, 6}, 2, 3)
	var buf bytes.Buffer
	if err := npy.Write(&buf, a, false); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", buf.Bytes()[10:69])
	b, err := npy.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := nd.Values[int32](b)
	fmt.Println(b.DType(), b.Shape(), v)
	// Output:
	// "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"
	// int32 [2 3] [1 2 3 4 5 6]
}

func ExampleReadHeader() {
	_, err := npy.ReadHeader(bytes.NewReader([]byte("PK\x03\x04 a zip file")))
	fmt.Println(err)
	// Output:
	// npy: bad magic "PK\x03\x04 a": not a .npy file
}
