package hdf5_test

import (
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tessera-go/tessera/nd/hdf5"
	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
)

// TestNoStderr checks that a failed open prints nothing: HDF5 prints its
// error stack to the process's stderr (file descriptor 2) unless told not
// to, which the descriptor, redirected to a pipe here, would show.
func TestNoStderr(t *testing.T) {
	dir := t.TempDir()
	c := hdf5test.Case{File: "a.h5", Dataset: "/data", DType: "<f4", Shape: []int{2, 2}}
	hdf5test.Write(t, dir, c)
	saved, err := unix.Dup(2)
	if err != nil {
		t.Skipf("dup: %v", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(w.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	_, errDataset := hdf5.Open(hdf5test.Path(dir, c), "/missing")
	_, errFile := hdf5.Open(os.Args[0], "/data") // not an HDF5 file
	unix.Dup2(saved, 2)
	unix.Close(saved)
	w.Close()
	printed, _ := io.ReadAll(r)
	r.Close()
	if errDataset == nil || errFile == nil {
		t.Fatalf("opens succeeded: %v, %v", errDataset, errFile)
	}
	if len(printed) > 0 {
		t.Errorf("HDF5 printed to stderr:\n%s", printed)
	}
}
