package chunkarray

import (
	"math"
	"testing"
)

// fillUniform's fast path (merged scale, four lanes, collapsed runs) gives
// the values of the reference formula lo + w*unit(splitmix(seed, i)) at
// every flat index, with the AVX-512 kernel (where the CPU has it) and
// without, for float64 and float32 (the float64 value cast).
func TestFillUniformReference(t *testing.T) {
	defer func(v bool) { useSIMD = v }(useSIMD)
	for _, simd := range []bool{useSIMD, false} {
		useSIMD = simd
		t.Run(map[bool]string{true: "simd", false: "portable"}[simd], testFillUniformReference)
	}
}

func testFillUniformReference(t *testing.T) {
	whole := []int{7, 6, 37}
	for _, tc := range []struct {
		name   string
		lo, hi float64
		st, sh []int
	}{
		{"whole", -2, 3, []int{0, 0, 0}, []int{7, 6, 37}},
		{"long run", -1, 7, []int{3, 0, 0}, []int{4, 6, 37}},
		{"full trailing", 0, 1, []int{2, 0, 0}, []int{3, 6, 37}},
		{"partial rows", 1, 1.5, []int{1, 2, 5}, []int{4, 3, 30}},
		{"odd run", -1e300, 1e300, []int{6, 5, 36}, []int{1, 1, 1}},
		{"tiny width", 1, 1 + 0x1p-52, []int{0, 1, 0}, []int{7, 4, 37}},
		{"subnormal width", 0, 0x1p-1000, []int{0, 0, 3}, []int{7, 6, 9}},
		{"empty width", 5, 5, []int{0, 0, 0}, []int{2, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.sh[0] * tc.sh[1] * tc.sh[2]
			p := randomP{Seed: 99, Dist: distUniform, Shape: whole, A: math.Float64bits(tc.lo), B: math.Float64bits(tc.hi)}
			got := make([]float64, n)
			if err := p.fill(got, 0, tc.st, tc.sh); err != nil {
				t.Fatal(err)
			}
			p.F32 = true
			got32 := make([]float32, n)
			if err := p.fill(got32, 0, tc.st, tc.sh); err != nil {
				t.Fatal(err)
			}
			k := 0
			for i := 0; i < tc.sh[0]; i++ {
				for j := 0; j < tc.sh[1]; j++ {
					for l := 0; l < tc.sh[2]; l++ {
						flat := ((tc.st[0]+i)*whole[1]+tc.st[1]+j)*whole[2] + tc.st[2] + l
						want := tc.lo + (tc.hi-tc.lo)*unit(splitmix(99, uint64(flat)))
						if got[k] != want {
							t.Fatalf("float64 [%d] (flat %d) = %v, want %v", k, flat, got[k], want)
						}
						if got32[k] != float32(want) {
							t.Fatalf("float32 [%d] (flat %d) = %v, want %v", k, flat, got32[k], float32(want))
						}
						k++
					}
				}
			}
		})
	}
}
