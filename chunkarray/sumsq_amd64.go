package chunkarray

// sumSqInt32AVX2 returns the wrapping int64 sum of int64(v)*int64(v) over
// x: sign-extend four int32 to int64 lanes (VPMOVSXDQ), square them exactly
// (VPMULDQ multiplies the low signed 32 bits of each lane into 64) and add,
// sixteen elements per iteration in four accumulators.
//
//go:noescape
func sumSqInt32AVX2(x []int32) int64

func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

func xgetbv() (eax, edx uint32)

// hasAVX2 says whether the CPU has AVX2 and the OS saves the YMM
// registers; decided once at start-up, never changed (like nd's byte
// order check, not mutable state).
var hasAVX2 = func() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

// sumSqInt32 is the kernel of sum(int64(x)**2) over an int32 run.
func sumSqInt32(x []int32) int64 {
	if hasAVX2 {
		return sumSqInt32AVX2(x)
	}
	return sumSqRun[int32, int64, int64](x)
}
