package distributed

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/sched/schedtest"
)

// The conformance suite on the two kinds of local cluster: workers as
// goroutines of the test process, and workers as processes (the test
// binary itself, through TestMain's MaybeWorker), as LocalCluster runs
// them.

func TestConformanceInProcess(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true})
	schedtest.Run(t, c)
}

func TestConformanceProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2})
	schedtest.Run(t, c)
}

func startCluster(t *testing.T, opts ClusterOptions) *Cluster {
	t.Helper()
	c, err := StartCluster(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Cluster.Close: %v", err)
		}
	})
	return c
}
