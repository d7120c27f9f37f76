//go:build !(hdf5 && cgo)

package hdf5

// Enabled reports whether this build reads HDF5 files: false here, where
// every Open fails with ErrNotBuilt.
const Enabled = false

// handle is the cgo build's open dataset; this build never has one.
type handle struct{}

func (*handle) read(d *Dataset, _ []byte, _, _ []int) error {
	return d.fail("read", "", ErrNotBuilt)
}

func (*handle) close(*Dataset) error { return nil }

func open(path, name string) (*Dataset, error) {
	return nil, &Error{Op: "open", Path: path, Dataset: name, Err: ErrNotBuilt}
}
