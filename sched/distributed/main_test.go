package distributed

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as the worker processes of the
// clusters the tests start: a test binary started by StartCluster (or with
// the tessera-worker argument) runs a worker in MaybeWorker and exits
// there. TestStartClusterGuard sets envNoMaybeWorker to start it as a
// binary that forgot to.
func TestMain(m *testing.M) {
	if os.Getenv(envNoMaybeWorker) == "" {
		MaybeWorker()
	}
	os.Exit(m.Run())
}

const envNoMaybeWorker = "DISTRIBUTED_TEST_NO_MAYBEWORKER"
