package udfbridge_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/udfbridge"
	"github.com/tessera-go/tessera/udfbridge/udftest"
)

// TestHDF5Conformance runs udftest's suite on HDF5 datasets written by
// h5py (contiguous; chunked with gzip, big-endian), against h5py's read.
func TestHDF5Conformance(t *testing.T) {
	dir := t.TempDir()
	cases := []hdf5test.Case{
		{File: "c.h5", Dataset: "/data", DType: "<f4", Shape: []int{5, 4, 6, 7}},
		{File: "g.h5", Dataset: "/entry/data", DType: ">u2", Shape: []int{6, 5, 8, 6}, Chunks: []int{2, 5, 4, 6}, Compression: "gzip"},
		{File: "f.h5", Dataset: "/frames", DType: "<c8", Shape: []int{12, 5, 5}, Chunks: []int{1, 5, 5}},
	}
	hdf5test.Write(t, dir, cases...)
	for _, c := range cases {
		t.Run(strings.TrimSuffix(c.File, ".h5"), func(t *testing.T) {
			data, err := npy.ReadFile(hdf5test.Oracle(dir, c))
			if err != nil {
				t.Fatal(err)
			}
			ds, err := udfbridge.OpenHDF5(hdf5test.Path(dir, c), c.Dataset, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			udftest.CheckDataset(t, ds, data)
		})
	}
}

// TestLiveConformance runs udftest's suite on a live stream of a
// synthetic scan, big-endian on the wire.
func TestLiveConformance(t *testing.T) {
	v := make([]float64, 6*5*7*6)
	for i := range v {
		v[i] = float64(i%97) - 20
	}
	data, err := nd.FromSlice(v, 6, 5, 7, 6)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		udfbridge.SendFrames(c, data, 2, true)
	}()
	ds, err := udfbridge.DialLive(context.Background(), ln.Addr().String(), udfbridge.LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	udftest.CheckDataset(t, ds, data)
}
