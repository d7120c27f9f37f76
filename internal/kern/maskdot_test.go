package kern

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The oracle for the masked-dot kernels is the dot product in float64 of
// the same float32 values. The kernels sum each chunk of MaskChunk pixels
// from zero and add the chunk sums into out, so an output differs from
// the exact value by at most (MaskChunk + 1 + chunks + 1)·u·(|out0| +
// Σ|x·m|) with u = 2^-24 (a product rounded, MaskChunk additions in a
// chunk, one addition per chunk into out); maskTol is that bound with a
// margin for the float64 oracle's own rounding.
func maskTol(out0, absSum float64, r int) float64 {
	chunks := (r + MaskChunk - 1) / MaskChunk
	return float64(MaskChunk+chunks+3) * 0x1p-24 * (math.Abs(out0) + absSum) * 1.0001
}

// maskOracle returns out0[f*k+m] + Σ_p x[f*r+p]·masks[m*r+p] in float64
// and Σ|x·m| for each output.
func maskOracle(out0 []float32, x []float64, masks []float32, t, r, k int) (want, abs []float64) {
	want = make([]float64, t*k)
	abs = make([]float64, t*k)
	for f := range t {
		for m := range k {
			s, a := float64(out0[f*k+m]), 0.0
			for p := range r {
				v := x[f*r+p] * float64(masks[m*r+p])
				s += v
				a += math.Abs(v)
			}
			want[f*k+m], abs[f*k+m] = s, a
		}
	}
	return want, abs
}

func randMasks(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

func TestMaskDot(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		for _, k := range []int{1, 3, 7, 8, 9, 16, 17, 24, 33} {
			for _, tf := range []int{1, 2, 3, 4, 5, 9} {
				for _, r := range []int{1, 7, 255, 256, 257, 600} {
					for _, kind := range []string{"random", "max", "high"} {
						name := fmt.Sprintf("k=%d/t=%d/r=%d/%s", k, tf, r, kind)
						// One element of offset misaligns every slice.
						u16 := fill(rng, kind, tf*r+1)[1:]
						f32 := make([]float32, tf*r+1)[1:]
						x := make([]float64, tf*r)
						for i, v := range u16 {
							f32[i] = float32(v)
							x[i] = float64(v)
						}
						if kind == "random" {
							// signed floats too, for the float32 kernel
							for i := range f32 {
								f32[i] = float32(rng.NormFloat64() * 1000)
							}
						}
						mm := randMasks(rng, k*r)
						pm := PixelMajor(make([]float32, 1), mm, k, r, nil)
						pm = append(make([]float32, 0, len(pm)+1), 0)
						pm = append(pm, PixelMajor(nil, mm, k, r, nil)...)[1:]
						out0 := randMasks(rng, tf*k+1)[1:]

						got := append(make([]float32, 0, len(out0)+1), 0)
						got = append(got, out0...)[1:]
						MaskDotU16(got, u16, pm, tf, r, k)
						want, abs := maskOracle(out0, x, mm, tf, r, k)
						checkMask(t, name+"/u16", got, want, abs, out0, r)

						// MaskDotF32 on the converted tile gives the same bits.
						gotF := append([]float32(nil), out0...)
						conv := make([]float32, len(u16))
						for i, v := range u16 {
							conv[i] = float32(v)
						}
						MaskDotF32(gotF, conv, pm, tf, r, k)
						sameBits(t, name+"/f32 of converted", gotF, got)

						xf := make([]float64, len(f32))
						for i, v := range f32 {
							xf[i] = float64(v)
						}
						gotF = append(gotF[:0], out0...)
						MaskDotF32(gotF, f32, pm, tf, r, k)
						want, abs = maskOracle(out0, xf, mm, tf, r, k)
						checkMask(t, name+"/f32", gotF, want, abs, out0, r)
					}
				}
			}
		}
	})
}

func checkMask(t *testing.T, what string, got []float32, want, abs []float64, out0 []float32, r int) {
	t.Helper()
	for i := range want {
		tol := maskTol(float64(out0[i]), abs[i], r)
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol) {
			t.Fatalf("%s: [%d] = %v, want %v (|diff| %g > %g)", what, i, got[i], want[i], d, tol)
		}
	}
}

// TestMaskDotLong checks a frame of 256×256 pixels (256 chunks), the
// udfbridge case, against the bound.
func TestMaskDotLong(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 6))
		const tf, r, k = 5, 256 * 256, 16
		u16 := fill(rng, "random", tf*r)
		x := make([]float64, len(u16))
		for i, v := range u16 {
			x[i] = float64(v)
		}
		mm := make([]float32, k*r)
		for i := range mm {
			mm[i] = rng.Float32()
		}
		pm := PixelMajor(nil, mm, k, r, nil)
		out0 := make([]float32, tf*k)
		got := make([]float32, tf*k)
		MaskDotU16(got, u16, pm, tf, r, k)
		want, abs := maskOracle(out0, x, mm, tf, r, k)
		checkMask(t, "u16", got, want, abs, out0, r)
	})
}

func TestPixelMajor(t *testing.T) {
	src := []float32{1, 2, 3, 4, 5, 6} // 2 masks of 3 pixels
	got := PixelMajor(nil, src, 2, 3, []int{2, 0})
	want := []float32{3, 6, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 0, 0}
	sameBits(t, "PixelMajor", got, want)
	for _, c := range []struct{ k, stride int }{{0, 0}, {1, 8}, {8, 8}, {9, 16}, {16, 16}, {17, 24}} {
		if s := MaskStride(c.k); s != c.stride {
			t.Errorf("MaskStride(%d) = %d, want %d", c.k, s, c.stride)
		}
	}
}

func TestMaskDotPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"short out":   func() { MaskDotF32(make([]float32, 3), make([]float32, 8), make([]float32, 64), 2, 4, 2) },
		"short tile":  func() { MaskDotU16(make([]float32, 4), make([]uint16, 7), make([]float32, 32), 2, 4, 2) },
		"short masks": func() { MaskDotF32(make([]float32, 4), make([]float32, 8), make([]float32, 31), 2, 4, 2) },
		"negative":    func() { MaskDotF32(nil, nil, nil, -1, 0, 0) },
		"index":       func() { PixelMajor(nil, make([]float32, 4), 2, 2, []int{2}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
