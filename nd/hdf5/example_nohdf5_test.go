//go:build !(hdf5 && cgo)

package hdf5_test

import (
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/nd/hdf5"
)

// Without the hdf5 build tag, Open says how to get HDF5 support.
func Example() {
	_, err := hdf5.Open("testdata/example.h5", "/entry/data")
	fmt.Println(errors.Is(err, hdf5.ErrNotBuilt))
	fmt.Println(err)
	// Output:
	// true
	// hdf5: open testdata/example.h5 dataset /entry/data: built without HDF5 support: build with -tags hdf5 and libhdf5-dev
}
