//go:build !amd64

package chunkarray

// normalSIMD does nothing off amd64: normalRun's loop fills everything.
func normalSIMD[T float32 | float64](o []T, seed, e0 uint64, mu, sd float64) int { return 0 }
