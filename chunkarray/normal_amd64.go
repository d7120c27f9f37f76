package chunkarray

// normal8F64 (normal_amd64.s, AVX-512 F and DQ) is the ziggurat's common
// case eight lanes at a time; see normalSIMD.
//
//go:noescape
func normal8F64(o *float64, n int, z *[8]uint64, fail *uint8, mu, sd float64)

// normalSIMD fills the longest prefix of o (float64 only) whose length is
// a multiple of 8 with normalRun's values when the CPU allows, and
// returns its length: the vector kernel writes the common case and flags
// the lanes that need the ziggurat's slow path, which are then computed
// here one by one, as normalRun would.
func normalSIMD[T float32 | float64](o []T, seed, e0 uint64, mu, sd float64) int {
	n := len(o) &^ 7
	of, ok := any(o).([]float64)
	if !useSIMD || n == 0 || !ok {
		return 0
	}
	const piece = 4096
	var fail [piece / 8]uint8
	var lanes [8]uint64
	for p := 0; p < n; p += piece {
		m := min(piece, n-p)
		z := seed + (e0+uint64(p)+1)*smGamma
		for i := range lanes {
			lanes[i] = z
			z += smGamma
		}
		normal8F64(&of[p], m, &lanes, &fail[0], mu, sd)
		for k, b := range fail[:m/8] {
			for b != 0 {
				l := 0
				for b&(1<<l) == 0 {
					l++
				}
				b &^= 1 << l
				j := p + 8*k + l
				e := e0 + uint64(j)
				u := mix(seed + (e+1)*smGamma)
				s := newElemStream(seed, e)
				of[j] = mu + float64(sd*zigSlow(u, &s))
			}
		}
	}
	return n
}
