package chunkarray

// uniform8F64 and uniform8F32 (uniform_amd64.s, AVX-512 F and DQ) write
// lo + s*float64(mix(z_i + k*8*smGamma)>>11) for n elements (a multiple of
// 8), element 8k+i from lane i of z: the values of uniformRun's loop, eight
// lanes at a time, the multiply and the add rounded separately as in Go.
//
//go:noescape
func uniform8F64(o *float64, n int, z *[8]uint64, lo, s float64)

//go:noescape
func uniform8F32(o *float32, n int, z *[8]uint64, lo, s float64)

// cpuAVX512DQ reports whether the CPU has AVX-512 F and DQ and the OS
// saves their registers.
func cpuAVX512DQ() bool

// useSIMD turns the AVX-512 uniform kernel on; tests turn it off to check
// the portable loop gives the same values.
var useSIMD = cpuAVX512DQ()

// uniformSIMD fills the longest prefix of o whose length is a multiple of
// 8 with uniformRun's values when the CPU allows, and returns its length.
func uniformSIMD[T float32 | float64](o []T, z uint64, lo, s float64) int {
	n := len(o) &^ 7
	if !useSIMD || n == 0 {
		return 0
	}
	var lanes [8]uint64
	for i := range lanes {
		lanes[i] = z
		z += smGamma
	}
	switch o := any(o).(type) {
	case []float64:
		uniform8F64(&o[0], n, &lanes, lo, s)
	case []float32:
		uniform8F32(&o[0], n, &lanes, lo, s)
	default:
		return 0
	}
	return n
}
