//go:build race

package distributed

// raceEnabled: the race detector slows everything several times; the
// chaos test runs fewer rounds under it.
const raceEnabled = true
