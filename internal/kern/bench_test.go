package kern

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchmarkKernels times both kernels on a tile of rows frames of n
// pixels (the default udfbridge tile of 256×256 uint16 frames is 4 rows
// of 65536), with the assembly and with the portable loops.
func benchmarkKernels(b *testing.B, rows, n int) {
	rng := rand.New(rand.NewPCG(7, 8))
	src := fill(rng, "random", rows*n)
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, asm := range []bool{false, true} {
		if asm && !saved {
			continue
		}
		b.Run(fmt.Sprintf("ColSums/asm=%v", asm), func(b *testing.B) {
			useAVX2 = asm
			dst := make([]float32, n)
			b.SetBytes(int64(2 * rows * n))
			b.ReportAllocs()
			for b.Loop() {
				AddColSumsU16(dst, src, rows)
			}
		})
		b.Run(fmt.Sprintf("RowSums/asm=%v", asm), func(b *testing.B) {
			useAVX2 = asm
			dst := make([]float32, rows)
			var s RowSummer
			b.SetBytes(int64(2 * rows * n))
			b.ReportAllocs()
			for b.Loop() {
				s.AddRowSumsU16(dst, src, n)
			}
		})
	}
}

func BenchmarkTile256(b *testing.B) { benchmarkKernels(b, 4, 256*256) }
func BenchmarkTile64(b *testing.B)  { benchmarkKernels(b, 64, 64*64) }
