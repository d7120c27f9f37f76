//go:build !purego

package kern

import "golang.org/x/sys/cpu"

// hasFMA says whether the CPU has FMA3, which the masked-dot assembly
// needs beside AVX2.
var hasFMA = cpu.X86.HasFMA

// dot4AVX2 is dotChunkGo for four frames xs bytes apart and nc (8 or 16)
// columns of masks ks bytes apart, np > 0 pixels, with one fused
// multiply-add per pixel, frame and vector of columns.
//
//go:noescape
func dot4AVX2(acc *float32, x *float32, xs int, m *float32, ks, np, nc int)

// dot1AVX2 is dot4AVX2 for one frame.
//
//go:noescape
func dot1AVX2(acc *float32, x *float32, m *float32, ks, np, nc int)

// cvtU16AVX2 converts n (a multiple of 8) uint16 to float32.
//
//go:noescape
func cvtU16AVX2(dst *float32, src *uint16, n int)

func dotChunk(acc *[maskFrames * maskCols]float32, x []float32, xs, nf int, m []float32, ks, np, nc int) {
	if !useAVX2 || !hasFMA || np == 0 {
		dotChunkGo(acc, x, xs, nf, m, ks, np, nc)
		return
	}
	// The assembly reads x[f*xs : f*xs+np] for f < nf and
	// m[p*ks : p*ks+nc] for p < np.
	if (nf-1)*xs+np > len(x) || (np-1)*ks+nc > len(m) || (nc != 8 && nc != 16) {
		panic("kern: dotChunk: operands beyond their slices")
	}
	if nf == maskFrames {
		dot4AVX2(&acc[0], &x[0], 4*xs, &m[0], 4*ks, np, nc)
		return
	}
	for f := range nf {
		dot1AVX2(&acc[f*maskCols], &x[f*xs], &m[0], 4*ks, np, nc)
	}
}

func cvtU16(dst []float32, src []uint16) {
	n := len(src) &^ 7
	if !useAVX2 || n == 0 {
		cvtU16Go(dst, src)
		return
	}
	_ = dst[n-1]
	cvtU16AVX2(&dst[0], &src[0], n)
	cvtU16Go(dst[n:], src[n:])
}
