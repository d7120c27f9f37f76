//go:build race

package udfbridge

// raceEnabled is whether the race detector is on. Under it sync.Pool
// (graph's key scratch) drops items at random, so allocation counts are
// not exact and the tests that compare them are skipped.
const raceEnabled = true
