package kern

import "fmt"

// MaskChunk is the number of pixels the masked-dot kernels sum from zero
// before adding the partial sum into the output: each output is a sum of
// per-chunk sums, which bounds its rounding error (see the package doc).
const MaskChunk = 256

// maskCols is the widest block of masks one pass of the kernel covers:
// two vectors of eight float32.
const maskCols = 16

// maskFrames is the number of frames one pass covers: each mask row
// loaded is used for this many frames.
const maskFrames = 4

// MaskStride returns the row length of a pixel-major mask stack of k
// masks: k rounded up to a multiple of 8 (the extra columns are zero).
func MaskStride(k int) int { return (k + 7) &^ 7 }

// PixelMajor returns k masks laid out pixel-major for MaskDotU16 and
// MaskDotF32: r rows of MaskStride(k) values, row i holding pixel i's
// value in each mask and zeros after the k-th. src is mask-major, mask m
// of size pixels at src[m*size:(m+1)*size]; pixel i of the result is
// pixel idx[i] of the masks, or pixel i when idx is nil (then r = size).
// dst is reused when it has the capacity. It panics (a programmer error)
// when src is shorter than k·size or an index is outside [0, size).
func PixelMajor(dst, src []float32, k, size int, idx []int) []float32 {
	if k < 0 || size < 0 || len(src) < k*size {
		panic(fmt.Sprintf("kern: PixelMajor: %d masks of %d from %d values", k, size, len(src)))
	}
	r := size
	if idx != nil {
		r = len(idx)
	}
	ks := MaskStride(k)
	if cap(dst) < r*ks {
		dst = make([]float32, r*ks)
	}
	dst = dst[:r*ks]
	clear(dst)
	for i := range r {
		p := i
		if idx != nil {
			p = idx[i]
			if p < 0 || p >= size {
				panic(fmt.Sprintf("kern: PixelMajor: pixel %d outside %d", p, size))
			}
		}
		row := dst[i*ks : i*ks+k]
		for m := range row {
			row[m] = src[m*size+p]
		}
	}
	return dst
}

// MaskDotF32 adds to out[f*k+m], for each frame f < t and mask m < k, the
// dot product of frame f (tile[f*r:(f+1)*r]) with mask m of masks, a
// pixel-major stack of r rows of MaskStride(k) (see PixelMajor). The
// pixels are summed in chunks of MaskChunk, each chunk from zero by one
// fused multiply-add per pixel in pixel order (a multiply then an add in
// the portable loops), and the chunk sums are added into out in chunk
// order. It panics (a programmer error) when a slice is too short or a
// size negative.
func MaskDotF32(out, tile, masks []float32, t, r, k int) {
	if !maskDotArgs("MaskDotF32", len(out), len(tile), len(masks), t, r, k) {
		return
	}
	ks := MaskStride(k)
	for p0 := 0; p0 < r; p0 += MaskChunk {
		np := min(MaskChunk, r-p0)
		m := masks[p0*ks:]
		for f0 := 0; f0 < t; f0 += maskFrames {
			nf := min(maskFrames, t-f0)
			dotGroup(out, k, f0, tile[f0*r+p0:], r, nf, m, ks, np)
		}
	}
}

// MaskDotU16 is MaskDotF32 for a uint16 tile: each chunk of frames is
// converted to float32 (exactly) into a small buffer and summed as
// MaskDotF32 sums it, so that its results are bit for bit those of
// MaskDotF32 on the converted tile.
func MaskDotU16(out []float32, tile []uint16, masks []float32, t, r, k int) {
	if !maskDotArgs("MaskDotU16", len(out), len(tile), len(masks), t, r, k) {
		return
	}
	ks := MaskStride(k)
	var xb [maskFrames * MaskChunk]float32
	for p0 := 0; p0 < r; p0 += MaskChunk {
		np := min(MaskChunk, r-p0)
		m := masks[p0*ks:]
		for f0 := 0; f0 < t; f0 += maskFrames {
			nf := min(maskFrames, t-f0)
			for f := range nf {
				src := tile[(f0+f)*r+p0 : (f0+f)*r+p0+np]
				cvtU16(xb[f*MaskChunk:f*MaskChunk+np], src)
			}
			dotGroup(out, k, f0, xb[:], MaskChunk, nf, m, ks, np)
		}
	}
}

// maskDotArgs panics on slices too short for the sizes and reports
// whether there is anything to add.
func maskDotArgs(op string, nout, ntile, nmasks, t, r, k int) bool {
	if t < 0 || r < 0 || k < 0 {
		panic(fmt.Sprintf("kern: %s: negative size t=%d r=%d k=%d", op, t, r, k))
	}
	if nout < t*k || ntile < t*r || nmasks < r*MaskStride(k) {
		panic(fmt.Sprintf("kern: %s: %d outputs, %d tile values, %d mask values for t=%d r=%d k=%d",
			op, nout, ntile, nmasks, t, r, k))
	}
	return t > 0 && r > 0 && k > 0
}

// dotGroup adds, for nf frames of np pixels (frame f at x[f*xs:]) and
// every block of masks, the chunk sums into out's rows f0...
func dotGroup(out []float32, k, f0 int, x []float32, xs, nf int, m []float32, ks, np int) {
	var acc [maskFrames * maskCols]float32
	for c0 := 0; c0 < ks; c0 += maskCols {
		nc := min(maskCols, ks-c0)
		dotChunk(&acc, x, xs, nf, m[c0:], ks, np, nc)
		kk := min(nc, k-c0)
		for f := range nf {
			o := out[(f0+f)*k+c0 : (f0+f)*k+c0+kk]
			a := acc[f*maskCols : f*maskCols+kk]
			for j := range o {
				o[j] += a[j]
			}
		}
	}
}

// dotChunkGo sets acc[f*maskCols+c], f < nf, c < nc, to the sum over
// p < np of x[f*xs+p]·m[p*ks+c], from zero in pixel order, each product
// rounded before its addition (the explicit conversion forbids fusing).
func dotChunkGo(acc *[maskFrames * maskCols]float32, x []float32, xs, nf int, m []float32, ks, np, nc int) {
	for f := range nf {
		a := acc[f*maskCols : f*maskCols+nc]
		clear(a)
		row := x[f*xs : f*xs+np]
		for p, v := range row {
			mr := m[p*ks : p*ks+nc]
			mr = mr[:len(a)]
			for c := range a {
				a[c] += float32(v * mr[c])
			}
		}
	}
}

func cvtU16Go(dst []float32, src []uint16) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}
