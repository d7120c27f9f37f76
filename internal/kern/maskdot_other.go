//go:build !amd64 || purego

package kern

func dotChunk(acc *[maskFrames * maskCols]float32, x []float32, xs, nf int, m []float32, ks, np, nc int) {
	dotChunkGo(acc, x, xs, nf, m, ks, np, nc)
}

func cvtU16(dst []float32, src []uint16) { cvtU16Go(dst, src) }
