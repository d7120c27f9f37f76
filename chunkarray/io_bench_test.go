package chunkarray

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// benchmarkIO times a read-square-sum of an n×n int32 file in c×c blocks
// (zarr: one chunk file per block; npy: one region read per block) and
// the writes; GB/s counts the file's bytes.
func benchmarkIO(b *testing.B, n, c int) {
	dir := b.TempDir()
	ctx := context.Background()
	src := Random(0).Integers(0, 100, []int{n, n}, c).AsType(nd.Int32)
	zp, np := filepath.Join(dir, "a.zarr"), filepath.Join(dir, "a.npy")
	if err := src.ToZarr(ctx, zp, ZarrOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := src.ToNPY(ctx, np); err != nil {
		b.Fatal(err)
	}
	bytes := float64(4 * n * n)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"read/zarr", func() error { _, err := FromZarr(zp).AsType(nd.Int64).Pow(2).Sum().Compute(ctx); return err }},
		{"read/npy", func() error { _, err := FromNPY(np, c).AsType(nd.Int64).Pow(2).Sum().Compute(ctx); return err }},
		{"write/zarr", func() error { return src.ToZarr(ctx, filepath.Join(dir, "w.zarr"), ZarrOptions{}) }},
		{"write/npy", func() error { return src.ToNPY(ctx, filepath.Join(dir, "w.npy")) }},
	} {
		b.Run(fmt.Sprintf("%s/n=%d/c=%d", tc.name, n, c), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := tc.run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(bytes*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}

func BenchmarkIOSmall(b *testing.B) { benchmarkIO(b, 1000, 250) }
func BenchmarkIOLarge(b *testing.B) { benchmarkIO(b, 4000, 1000) }

// BenchmarkFromNPYFortran sums a 20 MiB float32 array of shape
// (16, 20, 128, 128) read from a C-order and a Fortran-order .npy file
// in blocks of one entry of axis 0: in the Fortran file each block is a
// 4-byte run every 64 bytes.
func BenchmarkFromNPYFortran(b *testing.B) {
	ctx := context.Background()
	shape := []int{16, 20, 128, 128}
	a, err := Random(0).Integers(0, 100, shape, []int{1, 20, 128, 128}).AsType(nd.Float32).Compute(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, fortran := range []bool{false, true} {
		path := filepath.Join(b.TempDir(), "a.npy")
		if err := npy.WriteFile(path, a, fortran); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("fortran=%v", fortran), func(b *testing.B) {
			b.SetBytes(int64(a.Nbytes()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := FromNPY(path, []int{1, 20, 128, 128}).Sum().Compute(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
