package udfbridge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestRunUsesTheRunsFreeList runs SumUDF and SumSigUDF over datasets of
// every reader kind (memory, a lazy chunkarray, a raw file, a zarr store;
// uint16 data, so that tiles are converted to float32) with one free
// list in the context, on Sync and on Threaded, and checks that:
//   - the results are bitwise those of the same run without a list (the
//     oracle: the same additions in the same order, in new memory);
//   - tile, block and conversion buffers came from the list, were reused
//     from task to task and all given back;
//   - no result shares memory with the list's buffers: results computed
//     first still equal the oracle after every later run has overwritten
//     them.
func TestRunUsesTheRunsFreeList(t *testing.T) {
	const frames, sig = 48, 40
	data := chunkarray.Random(9).Integers(0, 4000, []int{frames, sig, sig}, []int{12, sig, sig}).AsType(nd.Uint16)
	eager, err := data.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rawPath := filepath.Join(dir, "d.raw")
	writeRaw(t, rawPath, eager, 0)
	zpath := filepath.Join(dir, "d.zarr")
	if err := data.ToZarr(context.Background(), zpath, chunkarray.ZarrOptions{Compressor: "zlib"}); err != nil {
		t.Fatal(err)
	}
	datasets := []struct {
		name string
		open func() (Dataset, error)
	}{
		{"memory", func() (Dataset, error) { return NewMemoryDataset(eager, 1) }},
		{"chunkarray", func() (Dataset, error) { return FromChunkArray(data, 2) }},
		{"raw", func() (Dataset, error) { return OpenRaw(rawPath, nd.Uint16, []int{frames}, []int{sig, sig}, 0) }},
		{"zarr", func() (Dataset, error) { return OpenZarr(zpath, 2) }},
	}
	type result struct{ got, want *nd.Array }
	var results []result
	fl := freelist.New(256 << 20)
	ctx := freelist.NewContext(context.Background(), fl)
	for _, s := range []struct {
		name string
		s    sched.Scheduler
	}{{"sync", sched.Sync{}}, {"threads", sched.Threaded{Workers: 2}}} {
		for _, d := range datasets {
			ds, err := d.open()
			if err != nil {
				t.Fatal(err)
			}
			run := func(ctx context.Context) []*nd.Array {
				res, err := Run(ctx, ds, []UDF{&SumUDF{}, &SumSigUDF{}}, WithPartitions(4), WithTileShape(5, nil), WithScheduler(s.s))
				if err != nil {
					t.Fatalf("%s/%s: %v", s.name, d.name, err)
				}
				var out []*nd.Array
				for _, r := range res {
					a, err := r.RawData("intensity")
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, a)
				}
				return out
			}
			got, want := run(ctx), run(context.Background())
			for i := range got {
				if err := sameArray(got[i], want[i]); err != nil {
					t.Fatalf("%s/%s: UDF %d: %v", s.name, d.name, i, err)
				}
				results = append(results, result{got[i], want[i]})
			}
		}
	}
	st := fl.Stats()
	if st.Gets == 0 || st.Hits == 0 || st.Puts != st.Gets || st.Dropped != 0 {
		t.Fatalf("the runs' list: %+v (want buffers taken, reused and all given back)", st)
	}
	for i, r := range results {
		if err := sameArray(r.got, r.want); err != nil {
			t.Fatalf("result %d changed after later runs: %v", i, err)
		}
	}
}
