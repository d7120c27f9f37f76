package udfbridge

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/internal/kern"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestApplyMasksKernel runs ApplyMasksUDF with dense float32 masks over
// uint16 data (a memory dataset, a raw file: tiles taken as read) and
// float32 data (the same values, and signed values), for several mask
// counts and tilings (whole frames, sig tiles that split the signal
// unevenly), and checks every intensity against the dot products computed
// in float64 here. The tolerance is the masked-dot kernels' bound (see
// internal/kern): (MaskChunk + chunks + 3)·2^-24·Σ|x·m| per output, with
// chunks counted over every sig tile of a frame (at most the frame's
// pixels). The uint16 runs and the float32 run of the same values give
// the same bits (the raw path must equal the converted one), and the
// masks' pixel-major cache shows that the kernel ran.
func TestApplyMasksKernel(t *testing.T) {
	const nav = 11
	sig := []int{20, 13}
	size := prodInts(sig)
	rng := rand.New(rand.NewPCG(21, 22))
	u16 := make([]uint16, nav*size)
	signed := make([]float32, nav*size)
	for i := range u16 {
		u16[i] = uint16(rng.Uint32())
		signed[i] = float32(rng.NormFloat64() * 100)
	}
	for _, k := range []int{1, 3, 8, 16, 17} {
		mv := make([]float32, k*size)
		for i := range mv {
			mv[i] = float32(rng.NormFloat64())
		}
		ma, err := nd.FromSlice(mv, append([]int{k}, sig...)...)
		if err != nil {
			t.Fatal(err)
		}
		for _, tiling := range []struct {
			name    string
			depth   int
			sigTile []int
		}{
			{"whole-depth4", 4, nil},
			{"whole-depth3", 3, nil},
			{"sig-7x5", 2, []int{7, 5}},
			{"sig-20x4", 5, []int{20, 4}},
		} {
			t.Run(fmt.Sprintf("k=%d/%s", k, tiling.name), func(t *testing.T) {
				opts := []RunOption{WithPartitions(2), WithTileShape(tiling.depth, tiling.sigTile), WithScheduler(sched.Sync{})}
				run := func(ds Dataset) (*nd.Array, *Masks) {
					t.Helper()
					mk, err := DenseMasks(ma, sig)
					if err != nil {
						t.Fatal(err)
					}
					res, err := Run(context.Background(), ds, []UDF{ApplyMasks(mk)}, opts...)
					if err != nil {
						t.Fatal(err)
					}
					got, err := res[0].Data("intensity")
					if err != nil {
						t.Fatal(err)
					}
					if got.DType() != nd.Float32 || got.Size() != nav*k {
						t.Fatalf("intensity %v of shape %v, want float32 of %d×%d", got.DType(), got.Shape(), nav, k)
					}
					// A task rebuilds its UDF from the parameters (and
					// shares the decoded stack), or uses mk.
					params, err := ApplyMasks(mk).Params()
					if err != nil {
						t.Fatal(err)
					}
					dm, err := decodeMasks(params)
					if err != nil {
						t.Fatal(err)
					}
					if !cachedRegion(mk, tiling.sigTile) && !cachedRegion(dm, tiling.sigTile) {
						t.Fatalf("no pixel-major masks cached for the first tile region: the kernel did not run")
					}
					return got, mk
				}
				check := func(what string, got *nd.Array, x []float64) {
					t.Helper()
					g, err := nd.Values[float32](got.Contiguous())
					if err != nil {
						t.Fatal(err)
					}
					chunks := 0
					if tiling.sigTile == nil {
						chunks = (size + kern.MaskChunk - 1) / kern.MaskChunk
					} else {
						chunks = size // at most one chunk per pixel
					}
					for f := range nav {
						for m := range k {
							want, abs := 0.0, 0.0
							for p := range size {
								v := x[f*size+p] * float64(mv[m*size+p])
								want += v
								abs += math.Abs(v)
							}
							tol := float64(kern.MaskChunk+chunks+3) * 0x1p-24 * abs * 1.0001
							if d := math.Abs(float64(g[f*k+m]) - want); !(d <= tol) {
								t.Fatalf("%s: frame %d mask %d = %v, want %v (|diff| %g > %g)", what, f, m, g[f*k+m], want, d, tol)
							}
						}
					}
				}
				xu := make([]float64, len(u16))
				f32 := make([]float32, len(u16))
				for i, v := range u16 {
					xu[i], f32[i] = float64(v), float32(v)
				}
				memU16 := memArray(t, u16, nav, sig)
				gotMem, _ := run(memU16)
				check("memory uint16", gotMem, xu)

				path := filepath.Join(t.TempDir(), "d.raw")
				writeRaw(t, path, memU16.Array(), 0)
				raw, err := OpenRaw(path, nd.Uint16, []int{nav}, sig, 0)
				if err != nil {
					t.Fatal(err)
				}
				gotRaw, _ := run(raw)
				check("raw uint16", gotRaw, xu)

				gotF32, _ := run(memArray(t, f32, nav, sig))
				check("memory float32", gotF32, xu)
				for name, a := range map[string]*nd.Array{"memory uint16": gotMem, "raw uint16": gotRaw} {
					if err := sameFloat32Bits(a, gotF32); err != nil {
						t.Errorf("%s against float32 of the same values: %v", name, err)
					}
				}

				xs := make([]float64, len(signed))
				for i, v := range signed {
					xs[i] = float64(v)
				}
				gotS, _ := run(memArray(t, signed, nav, sig))
				check("memory float32 signed", gotS, xs)
			})
		}
	}
}

// cachedRegion reports whether m caches pixel-major masks for the sig
// region at the origin of shape sigTile (nil: the whole signal).
func cachedRegion(m *Masks, sigTile []int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.pixelMajor {
		if sigTile == nil && e.whole || sigTile != nil && !e.whole && slices.Equal(e.shape, sigTile) &&
			slices.Equal(e.start, make([]int, len(sigTile))) {
			return true
		}
	}
	return false
}

func memArray[T nd.Elem](t *testing.T, v []T, nav int, sig []int) *MemoryDataset {
	t.Helper()
	a, err := nd.FromSlice(append([]T(nil), v...), append([]int{nav}, sig...)...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewMemoryDataset(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func sameFloat32Bits(a, b *nd.Array) error {
	av, err := nd.Values[float32](a.Contiguous())
	if err != nil {
		return err
	}
	bv, err := nd.Values[float32](b.Contiguous())
	if err != nil {
		return err
	}
	if len(av) != len(bv) {
		return fmt.Errorf("%d values against %d", len(av), len(bv))
	}
	for i := range av {
		if math.Float32bits(av[i]) != math.Float32bits(bv[i]) {
			return fmt.Errorf("[%d] = %v against %v", i, av[i], bv[i])
		}
	}
	return nil
}

// TestPixelMajorCacheBounded applies a stack over more sig regions than
// its budget holds and checks that the cache keeps within it and still
// returns the right region's masks.
func TestPixelMajorCacheBounded(t *testing.T) {
	sig := []int{8, 8}
	mv := make([]float32, 3*64)
	for i := range mv {
		mv[i] = float32(i)
	}
	ma, err := nd.FromSlice(mv, 3, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	mk, err := DenseMasks(ma, sig)
	if err != nil {
		t.Fatal(err)
	}
	budget := mk.pixelMajorBudget()
	for i := range 40 {
		start := []int{i % 5, i % 3}
		shape := []int{3, 4}
		pm, err := mk.pixelMajorFor(start, shape)
		if err != nil {
			t.Fatal(err)
		}
		// pixel (1, 2) of the region is sig pixel (start+1, start+2)
		p := 1*4 + 2
		s := (start[0]+1)*8 + start[1] + 2
		for m := range 3 {
			if got, want := pm[p*kern.MaskStride(3)+m], mv[m*64+s]; got != want {
				t.Fatalf("region at %v: mask %d at (1,2) = %v, want %v", start, m, got, want)
			}
		}
		if mk.pmValues > budget {
			t.Fatalf("after %d regions: %d values cached, budget %d", i+1, mk.pmValues, budget)
		}
	}
	if _, err := mk.pixelMajorFor([]int{6, 0}, []int{3, 8}); err == nil {
		t.Fatal("a region outside the signal gave no error")
	}
}
