package distributed

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the worker processes of the
// clusters the tests start: a test binary started by StartCluster runs a
// worker in MaybeWorker and exits there.
func TestMain(m *testing.M) {
	MaybeWorker()
	os.Exit(m.Run())
}
