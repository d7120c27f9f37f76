//go:build hdf5 && cgo

package hdf5_test

import (
	"fmt"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
)

// testdata/example.h5 was written by h5py (hdf5test's gen.py): values
// (7i+3) mod 251 of the flat index, big-endian uint16, chunks of one
// nav row, gzip.
func Example() {
	d, err := hdf5.Open("testdata/example.h5", "/entry/data")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	fmt.Println(d.Shape(), d.DType(), d.BigEndian(), d.Layout(), d.Chunks(), d.Filters())

	// Rows 1-2 of frame (1, 2), into a caller's array.
	dst, _ := nd.Zeros(nd.Uint16, 1, 1, 2, 4)
	if err := d.ReadInto(dst, []int{1, 2, 1, 0}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dst)

	_, err = hdf5.Open("testdata/example.h5", "/entry/missing")
	fmt.Println(err != nil)
	// Output:
	// [2 3 4 4] uint16 true chunked [1 3 4 4] [deflate]
	// [[[[ 89  96 103 110]
	//    [117 124 131 138]]]]
	// true
}
