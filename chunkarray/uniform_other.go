//go:build !amd64

package chunkarray

// useSIMD is false: no vector uniform kernel on this architecture.
var useSIMD = false

// uniformSIMD does nothing off amd64: uniformRun's loop fills everything.
func uniformSIMD[T float32 | float64](o []T, z uint64, lo, s float64) int { return 0 }
