//go:build !race

package chunkarray

// raceEnabled is whether the race detector is on (see race_on_test.go).
const raceEnabled = false
