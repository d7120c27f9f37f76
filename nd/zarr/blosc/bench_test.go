package blosc

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// floatData is n float64 values of a smooth signal plus noise rounded to
// 1/1024, the kind of detector or simulation data zarr stores hold.
func floatData(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 8*n)
	for i := range n {
		v := 100*math.Sin(float64(i)/2000) + math.Round(rng.NormFloat64()*1024)/1024
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return b
}

// benchmarkDecompress times Decompress of one buffer and reports the rate
// in uncompressed GB/s.
func benchmarkDecompress(b *testing.B, src []byte) {
	h, err := ReadInfo(src)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, h.NBytes)
	b.SetBytes(int64(h.NBytes))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecompressInto(dst, src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(h.NBytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	b.ReportMetric(float64(h.NBytes)/float64(h.CompressedSize), "ratio")
}

// BenchmarkDecompressLZ4ShuffleFloat64 decodes 4 MiB of float64 framed as
// numcodecs' default does (lz4, byte shuffle, split, 1 MiB blocks), by this
// package's test encoder.
func BenchmarkDecompressLZ4ShuffleFloat64(b *testing.B) {
	data := floatData(4 << 20 / 8)
	benchmarkDecompress(b, encodeBlosc(data, 8, 1<<20, true, true))
}

// BenchmarkDecompressFixture decodes the largest numcodecs fixtures, written
// by c-blosc itself.
func BenchmarkDecompressFixture(b *testing.B) {
	for _, name := range []string{"lz4_shuffle_t8_1mib", "lz4_noshuffle_t8_1mib", "zstd_shuffle_t8_1mib", "zlib_shuffle_t8_1mib"} {
		b.Run(name, func(b *testing.B) {
			src, err := os.ReadFile(filepath.Join("testdata", name+".blosc"))
			if err != nil {
				b.Fatal(err)
			}
			benchmarkDecompress(b, src)
		})
	}
}

func BenchmarkUnshuffle8(b *testing.B) {
	src := floatData(1 << 17)
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		unshuffle(dst, src, 8)
	}
	b.ReportMetric(float64(len(src))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}
