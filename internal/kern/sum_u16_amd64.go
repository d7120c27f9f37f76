//go:build !purego

package kern

import "golang.org/x/sys/cpu"

// colSumsAVX2 is AddColSumsU16 for the first cols columns (a multiple of
// 8), rows of src stride elements apart: 64 columns at a time in eight
// YMM accumulators, then 8 at a time.
//
//go:noescape
func colSumsAVX2(dst *float32, src *uint16, cols, rows, stride int)

// leafSumsAVX2 is leafSumsGo for n leaves: one YMM register holds the
// eight accumulators of a leaf.
//
//go:noescape
func leafSumsAVX2(x *uint16, lens *int32, n int, out *float32)

// leafSums4AVX2 is leafSumsAVX2 for four rows stride bytes apart, the
// same leaves in each, with four independent accumulators: out[4*i+j] is
// leaf i of row j.
//
//go:noescape
func leafSums4AVX2(x *uint16, stride int, lens *int32, n int, out *float32)

// useAVX2 says whether the assembly runs; decided once at start-up from
// the CPU (tests turn it off to run the portable loops on the same data).
var useAVX2 = cpu.X86.HasAVX2

// colSumsVec sums the longest prefix of columns whose count is a multiple
// of 8 with the assembly, and returns that count (0 without AVX2).
func colSumsVec(dst []float32, src []uint16, rows int) int {
	k := len(dst) &^ 7
	if !useAVX2 || k == 0 {
		return 0
	}
	colSumsAVX2(&dst[0], &src[0], k, rows, len(dst))
	return k
}

// leafSums sets out[i] to the sum of leaf i of x (see leafSumsGo).
func leafSums(x []uint16, lens []int32, out []float32) {
	if !useAVX2 || len(lens) == 0 {
		leafSumsGo(x, lens, out, 1)
		return
	}
	total := 0
	for _, l := range lens {
		total += int(l)
	}
	if total > len(x) || len(out) < len(lens) {
		panic("kern: leafSums: leaves beyond the run")
	}
	var p *uint16
	if len(x) > 0 {
		p = &x[0]
	}
	leafSumsAVX2(p, &lens[0], len(lens), &out[0])
}

// leafSums4 sets out[4*i+j] to the sum of leaf i of row j, where row j is
// x[j*stride:] (see leafSumsGo).
func leafSums4(x []uint16, stride int, lens []int32, out []float32) {
	if !useAVX2 || len(lens) == 0 {
		leafSums4Go(x, stride, lens, out)
		return
	}
	total := 0
	for _, l := range lens {
		total += int(l)
	}
	if stride < 0 || 3*stride+total > len(x) || len(out) < 4*len(lens) {
		panic("kern: leafSums4: leaves beyond the rows")
	}
	var p *uint16
	if len(x) > 0 {
		p = &x[0]
	}
	leafSums4AVX2(p, 2*stride, &lens[0], len(lens), &out[0])
}
