package udfbridge

import (
	"context"
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// A task's reader walks its tiles (3 frames, blocks of 5 frames) and
// fetches each block once; its tiles equal the dataset's reads.
//
//	frames  0 1 2 | 3 4 5 | 6 7 8 | 9 …     tiles of 3
//	blocks  0 1 2 3 4 | 5 6 7 8 9 | …       blocks of 5 (rows of nav axis 0)
func TestTaskReaderFetchesEachBlockOnce(t *testing.T) {
	data := formulaArray(t, nd.Float32, []int{12, 2, 4, 4})
	ds, err := FromChunkArray(chunkarray.FromNDArray(data, []int{5, 2, 4, 2}), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(ds.FrameBlockStarts()), "[0 10 20]"; got != want {
		t.Errorf("FrameBlockStarts = %s, want %s", got, want)
	}
	var fetched []string
	c := &blockCache{}
	r := &blockReader{name: ds.String(), dt: ds.dt, nav: ds.nav, sig: ds.sig, bounds: ds.bounds,
		fetch: c.wrap(func(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
			fetched = append(fetched, fmt.Sprint(idx))
			return ds.fetch(ctx, idx)
		})}
	for start := 0; start < 24; start += 3 {
		n := min(3, 24-start)
		got, err := r.Read(context.Background(), start, n, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameArray(got, oracleRead(t, data, 2, start, n, []int{0, 0}, []int{4, 4})); err != nil {
			t.Fatalf("tile at %d: %v", start, err)
		}
	}
	// Frames 0-9 lie in nav block 0, 10-19 in 1, 20-23 in 2; each has two
	// sig blocks. Tile [9, 12) straddles blocks 0 and 1, [18, 21) 1 and 2.
	want := []string{"[[0 0 0 0] [0 0 0 1]]", "[[1 0 0 0] [1 0 0 1]]", "[[2 0 0 0] [2 0 0 1]]"}
	if fmt.Sprint(fetched) != fmt.Sprint(want) {
		t.Errorf("fetched %v, want %v", fetched, want)
	}
}

// With the default tile shape, blocks not aligned to partitions and a
// nav of two axes, a SumUDF over a chunkarray dataset equals the sum of
// the whole array, on both schedulers.
func TestArrayDatasetDefaultTiles(t *testing.T) {
	data := formulaArray(t, nd.Float32, []int{6, 5, 16, 16})
	want, err := nd.Reduce(nd.Sum, data, []int{0, 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{1, 2, 7} {
		for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{}} {
			ds, err := FromChunkArray(chunkarray.FromNDArray(data, []int{4, 5, 16, 8}), 2)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), ds, []UDF{&SumUDF{}}, WithPartitions(parts), WithScheduler(s))
			if err != nil {
				t.Fatal(err)
			}
			got, err := res[0].Data("intensity")
			if err != nil {
				t.Fatal(err)
			}
			g, _ := got.AsType(nd.Float64)
			w, _ := want.AsType(nd.Float64)
			gv, _ := nd.Values[float64](g)
			wv, _ := nd.Values[float64](w)
			for i := range wv {
				if d := gv[i] - wv[i]; d > 1e-3 || d < -1e-3 {
					t.Fatalf("%d partitions, %T: intensity[%d] = %v, want %v", parts, s, i, gv[i], wv[i])
				}
			}
		}
	}
}

// An ArrayDataset's task reader computes each block into a buffer it
// reuses: tiles equal the dataset's own reads (which compute blocks
// anew), and after the first block the reader allocates no block memory.
func TestTaskReaderReusesBlockBuffer(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *chunkarray.Array
	}{
		{"random float32", chunkarray.Random(9).Uniform(0, 1, []int{20, 8, 8}, []int{5, 8, 8}).AsType(nd.Float32)},
		{"fused expression", chunkarray.Random(9).Uniform(0, 1, []int{20, 8, 8}, []int{5, 8, 8}).Mul(3).Sqrt()},
		{"sig blocks, uneven", chunkarray.Random(9).Normal(0, 1, []int{21, 8, 8}, []int{4, 8, 3})},
		{"literal blocks", chunkarray.FromNDArray(formulaArray(t, nd.Float32, []int{20, 8, 8}), []int{5, 8, 8})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds, err := FromChunkArray(tc.a, 2)
			if err != nil {
				t.Fatal(err)
			}
			r := ds.TaskReader()
			frames := tc.a.Shape()[0]
			for start := 0; start < frames; start += 3 {
				n := min(3, frames-start)
				got, err := r.Read(context.Background(), start, n, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ds.Read(context.Background(), start, n, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameArray(got, want); err != nil {
					t.Fatalf("tile at %d: %v", start, err)
				}
			}
		})
	}
	// One block per fetch: the second block goes into the first one's buffer.
	ds, err := FromChunkArray(chunkarray.Random(2).Uniform(0, 1, []int{20, 8, 8}, []int{5, 8, 8}), 2)
	if err != nil {
		t.Fatal(err)
	}
	c := &bufCache{dt: ds.dt, bounds: ds.bounds, into: ds.fetchInto}
	b0, err := c.fetch(context.Background(), [][]int{{0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	p0 := &b0[0].Data().([]float64)[0]
	for blk := 1; blk < 4; blk++ {
		b, err := c.fetch(context.Background(), [][]int{{blk, 0, 0}})
		if err != nil {
			t.Fatal(err)
		}
		if p := &b[0].Data().([]float64)[0]; p != p0 {
			t.Errorf("block %d in new memory, want the reused buffer", blk)
		}
	}
	if _, err := c.fetch(context.Background(), [][]int{{4, 0, 0}}); err == nil {
		t.Error("block 4 of 4: no error")
	}
}
