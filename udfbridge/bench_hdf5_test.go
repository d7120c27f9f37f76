package udfbridge

import (
	"context"
	"net"
	"testing"

	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
	"github.com/tessera-go/tessera/sched"
)

// BenchmarkHDF5Sum runs SumUDF over one uint16 scan of nav×nav × sig×sig
// (TESSERA_H5_NAV, TESSERA_H5_SIG; default 32 and 128: 32 MiB) stored
// as: the raw reference (the .npy file of the same bytes, which
// NPYDataset reads as a raw file), HDF5 contiguous, HDF5 in chunks of one
// nav row uncompressed and gzip-compressed (written by h5py), and a live
// stream over loopback TCP (each iteration streams the scan and runs over
// it as it arrives). SetBytes is the scan's bytes, so MB/s compares the
// five directly.
func BenchmarkHDF5Sum(b *testing.B) {
	nav, sig := envInt("TESSERA_H5_NAV", 32), envInt("TESSERA_H5_SIG", 128)
	shape := []int{nav, nav, sig, sig}
	dir := b.TempDir()
	cases := []hdf5test.Case{
		{File: "contiguous.h5", Dataset: "d", DType: "<u2", Shape: shape},
		{File: "chunked.h5", Dataset: "d", DType: "<u2", Shape: shape, Chunks: []int{1, nav, sig, sig}},
		{File: "gzip.h5", Dataset: "d", DType: "<u2", Shape: shape, Chunks: []int{1, nav, sig, sig}, Compression: "gzip"},
	}
	hdf5test.Write(b, dir, cases...)
	size := int64(nav * nav * sig * sig * 2)
	ctx := context.Background()
	run := func(b *testing.B, ds Dataset) {
		b.Helper()
		if _, err := Run(ctx, ds, []UDF{&SumUDF{}}, WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("raw", func(b *testing.B) {
		ds, err := OpenNPY(hdf5test.Oracle(dir, cases[0]), 2)
		if err != nil {
			b.Fatal(err)
		}
		defer ds.Close()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			run(b, ds)
		}
	})
	for _, c := range cases {
		b.Run("hdf5-"+c.File[:len(c.File)-3], func(b *testing.B) {
			ds, err := OpenHDF5(hdf5test.Path(dir, c), c.Dataset, 2)
			if err != nil {
				b.Fatal(err)
			}
			defer ds.Close()
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				run(b, ds)
			}
		})
	}
	b.Run("live", func(b *testing.B) {
		npyDS, err := OpenNPY(hdf5test.Oracle(dir, cases[0]), 2)
		if err != nil {
			b.Fatal(err)
		}
		data, err := npyDS.Read(ctx, 0, nav*nav, nil, nil)
		npyDS.Close()
		if err != nil {
			b.Fatal(err)
		}
		data, err = data.Reshape(shape...)
		if err != nil {
			b.Fatal(err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Skip(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					SendFrames(c, data, 2, false)
				}()
			}
		}()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			ds, err := DialLive(ctx, ln.Addr().String(), LiveOptions{})
			if err != nil {
				b.Fatal(err)
			}
			run(b, ds)
			ds.Close()
		}
	})
}
