package workloads

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/sched"
)

// BenchmarkUDFSumTree is the bench workload udf_sum_4d_tree_merge on the
// threaded scheduler (for -cpuprofile / -memprofile).
func BenchmarkUDFSumTree(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r, err := UDFSum(UDFSumData(udfSeed, udfFrames, udfParts, udfSig), udfParts, false)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Compute(context.Background(), chunkarray.WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
}
