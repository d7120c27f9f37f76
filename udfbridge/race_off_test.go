//go:build !race

package udfbridge

// raceEnabled is whether the race detector is on (see race_on_test.go).
const raceEnabled = false
