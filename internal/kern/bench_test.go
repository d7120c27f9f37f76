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

// BenchmarkMaskDot times MaskDotU16 and MaskDotF32 on a udfbridge tile of
// 4 frames of 256×256 pixels against 16 masks (4 MiB of pixel-major
// float32: larger than L2), with the assembly and the portable loops;
// GFLOP/s counts a multiply and an add per pixel, frame and mask.
func BenchmarkMaskDot(b *testing.B) {
	const t, r = 4, 256 * 256
	rng := rand.New(rand.NewPCG(9, 10))
	u16 := fill(rng, "random", t*r)
	f32 := make([]float32, len(u16))
	for i, v := range u16 {
		f32[i] = float32(v)
	}
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, k := range []int{1, 16, 17} {
		masks := make([]float32, k*r)
		for i := range masks {
			masks[i] = rng.Float32()
		}
		pm := PixelMajor(nil, masks, k, r, nil)
		out := make([]float32, t*k)
		for _, asm := range []bool{false, true} {
			if asm && !saved {
				continue
			}
			for _, in := range []string{"u16", "f32"} {
				b.Run(fmt.Sprintf("k=%d/%s/asm=%v", k, in, asm), func(b *testing.B) {
					useAVX2 = asm
					b.SetBytes(int64(2 * t * r))
					b.ReportAllocs()
					for b.Loop() {
						if in == "u16" {
							MaskDotU16(out, u16, pm, t, r, k)
						} else {
							MaskDotF32(out, f32, pm, t, r, k)
						}
					}
					flops := 2 * float64(t*r*k) * float64(b.N)
					b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}
