package udfbridge

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// benchmarkMerge runs SumUDF over an in-memory float32 dataset of nav×sig
// in 16 partitions with one merge strategy (the seed's merge vs merge_all).
func benchmarkMerge(b *testing.B, nav, sig int, u UDF, ms MergeStrategy) {
	v := make([]float32, nav*nav*sig*sig)
	for i := range v {
		v[i] = float32(i % 251)
	}
	a, err := nd.FromSlice(v, nav, nav, sig, sig)
	if err != nil {
		b.Fatal(err)
	}
	ds, err := NewMemoryDataset(a, 2)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(v) * 4))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(ctx, ds, []UDF{u}, WithPartitions(16), WithMerge(ms), WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSumMergeLinear(b *testing.B) { benchmarkMerge(b, 64, 128, &SumUDF{}, MergeLinear) }
func BenchmarkSumMergeTree(b *testing.B)   { benchmarkMerge(b, 64, 128, &SumUDF{}, MergeTree) }
func BenchmarkSumMergeAll(b *testing.B)    { benchmarkMerge(b, 64, 128, &SumMergeAllUDF{}, MergeAllNode) }
