//go:build !amd64 || purego

package kern

// useAVX2 is false: no assembly on this architecture or with purego.
var useAVX2 = false

func colSumsVec([]float32, []uint16, int) int { return 0 }

func leafSums(x []uint16, lens []int32, out []float32) { leafSumsGo(x, lens, out, 1) }

func leafSums4(x []uint16, stride int, lens []int32, out []float32) {
	leafSums4Go(x, stride, lens, out)
}
