package workloads

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestZarrSqSum writes a small store, checks the sum of squares that
// ZarrStore counted against a third path (the generator's values squared
// and summed lazily, without the store), and that the workload's lazy
// read-cast-square-sum gives it on both schedulers; the second call
// reuses the store.
func TestZarrSqSum(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	const n, c = 70, 16 // edge chunks of 6
	gen := chunkarray.Random(0).Integers(0, 100, []int{n, n}, 32)
	ref, err := gen.Mul(gen).Sum().Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := nd.Values[int64](ref)
	for round := 0; round < 2; round++ {
		a, sum, err := ZarrSqSum(n, c)
		if err != nil {
			t.Fatal(err)
		}
		if sum != want[0] {
			t.Fatalf("round %d: ZarrStore counted %d, want %d", round, sum, want[0])
		}
		for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
			got, err := a.Compute(context.Background(), chunkarray.WithScheduler(s))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkInt64(sum)([]any{got}); err != nil {
				t.Errorf("round %d, %T: %v", round, s, err)
			}
		}
	}
	path, _, _ := ZarrStore(n, c)
	if _, err := os.Stat(filepath.Join(path, "4.4")); err != nil {
		t.Errorf("edge chunk file: %v", err)
	}
	if err := checkInt64(want[0] + 1)([]any{ref}); err == nil {
		t.Error("checkInt64 accepted a wrong sum")
	}
}
