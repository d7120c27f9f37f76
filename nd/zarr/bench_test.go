package zarr

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// benchmarkRead reads every chunk of a 4000×4000 int32 store in
// 1000×1000 chunks (values 0-99, as the zarr_1e4_sq_sum workload), written
// before timing. The files sit in the page cache: this measures decoding,
// not the disk.
func benchmarkRead(b *testing.B, compressor string, version int) {
	const n, c = 4000, 1000
	dir := filepath.Join(b.TempDir(), "bench.zarr")
	a, err := Create(dir, Meta{Shape: []int{n, n}, Chunks: []int{c, c}, DType: nd.Int32, Compressor: compressor, Version: version})
	if err != nil {
		b.Fatal(err)
	}
	v := make([]int32, c*c)
	for i := range v {
		v[i] = int32(i*7919) % 100
	}
	blk, _ := nd.FromSlice(v, c, c)
	for i := 0; i < n/c; i++ {
		for j := 0; j < n/c; j++ {
			if err := a.WriteChunk([]int{i, j}, blk); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < n/c; i++ {
			for j := 0; j < n/c; j++ {
				if _, err := a.ReadChunk([]int{i, j}); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(float64(n*n*4)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkRead4000Int32(b *testing.B) {
	for _, comp := range []string{"", "zstd", "zlib", "gzip"} {
		name := comp
		if name == "" {
			name = "none"
		}
		b.Run(fmt.Sprintf("%s", name), func(b *testing.B) { benchmarkRead(b, comp, 2) })
	}
}
