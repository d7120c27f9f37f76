package chunkarray

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestFusedTasksUseTheRunsFreeList computes fused arrays whose chunk
// tasks take buffers from the run's free list (tile buffers, a pooled
// block for moments, zarr chunks and their compressed bytes), all in one
// list given in the context, and checks that:
//   - every value equals the unfused graph's (the oracle: no fusion, no
//     pooled buffer; exactly for elementwise results, within rounding for
//     reductions, whose fused form sums tile by tile);
//   - the tasks took buffers and gave every one back, and later tasks
//     reused them;
//   - no result shares memory with a buffer: after every array is
//     computed (the later ones overwriting the list's buffers), the earlier
//     results still equal the oracle.
func TestFusedTasksUseTheRunsFreeList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "z.zarr")
	src := Random(7).Integers(0, 50, []int{300, 200}, []int{100, 100}).AsType(nd.Float64)
	if err := src.ToZarr(context.Background(), dir, ZarrOptions{Compressor: "zlib"}); err != nil {
		t.Fatal(err)
	}
	u := func() *Array { return Random(3).Uniform(-1, 1, []int{400, 300}, []int{200, 150}) }
	z := func() *Array { return FromZarr(dir) }
	cases := []struct {
		name  string
		build func() *Array
		exact bool
	}{
		{"uniform*2+1", func() *Array { return u().Mul(2.0).Add(1.0) }, true},
		{"sin(uniform).sum(1)", func() *Array { return u().Sin().Sum(1) }, false},
		{"(uniform^2).mean(0)", func() *Array { return u().Square().Mean(0) }, false},
		{"uniform.std()", func() *Array { return u().Std() }, false},
		{"zarr*3", func() *Array { return z().Mul(3.0) }, true},
		{"(zarr^2).sum()", func() *Array { return z().Square().Sum() }, false},
		{"zarr", z, true},
	}
	fl := freelist.New(256 << 20)
	ctx := freelist.NewContext(context.Background(), fl)
	got := make([]*nd.Array, len(cases))
	want := make([]*nd.Array, len(cases))
	for i, tc := range cases {
		var err error
		if got[i], err = tc.build().Compute(ctx, WithScheduler(sched.Sync{})); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want[i], err = tc.build().Compute(context.Background(), WithScheduler(sched.Sync{}), WithOptimize(false)); err != nil {
			t.Fatalf("%s unfused: %v", tc.name, err)
		}
	}
	s := fl.Stats()
	if s.Gets == 0 || s.Hits == 0 || s.Puts != s.Gets || s.Dropped != 0 {
		t.Fatalf("the run's list: %+v (want buffers taken, reused and all given back)", s)
	}
	for i, tc := range cases {
		d := closeDiff(got[i], want[i], 1e-12)
		if tc.exact {
			d = sameDiff(got[i], want[i])
		}
		if d != "" {
			t.Errorf("%s: %s", tc.name, d)
		}
	}
}

// sameDiff says where g and w differ (dtype or an element), or "".
func sameDiff(g, w *nd.Array) string {
	if g.DType() != w.DType() {
		return "dtype " + g.DType().String() + ", want " + w.DType().String()
	}
	return closeDiff(g, w, 0)
}

// TestFusedTileLoopAllocatesNothing computes one block of 8 and of 64
// evaluation tiles of fused expressions (elementwise into a destination,
// scalar and broadcast operands, a reduction over the tiles, random and
// zarr inputs) with a free list in the context, and checks that both make
// the same number of allocations (testing.AllocsPerRun, exact on Sync):
// a fused task allocates nothing per tile.
func TestFusedTileLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	dir := t.TempDir()
	cases := []struct {
		name  string
		build func(t *testing.T, cols int) func() error
	}{
		{"(uniform*2+row) into", func(t *testing.T, cols int) func() error {
			row := FromNDArray(ndRow(t, cols), cols)
			a := Random(3).Uniform(0, 1, []int{4, cols}, []int{4, cols}).Mul(2.0).Add(row)
			g, _ := benchGraph(t, a)
			dst, err := nd.Zeros(nd.Float64, 4, cols)
			if err != nil {
				t.Fatal(err)
			}
			ctx := freelist.NewContext(context.Background(), freelist.NewAuto(2))
			return func() error { return ComputeKeyInto(ctx, g, a.Key(0, 0), dst, sched.Sync{}) }
		}},
		{"sin(uniform)-1 sum(1)", func(t *testing.T, cols int) func() error {
			return runWithList(t, Random(3).Uniform(0, 1, []int{4, cols}, []int{4, cols}).Sin().Sub(1.0).Sum(1))
		}},
		{"max(integers) float32", func(t *testing.T, cols int) func() error {
			return runWithList(t, Random(4).Integers(0, 9, []int{4, cols}, []int{4, cols}).AsType(nd.Float32).Max(1))
		}},
		{"zarr*3 sum(1)", func(t *testing.T, cols int) func() error {
			path := filepath.Join(dir, "z"+string(rune('a'+cols%26))+".zarr")
			src := Random(5).Integers(0, 50, []int{4, cols}, []int{4, cols}).AsType(nd.Float64)
			// Uncompressed: a decompressor's own allocations grow with the
			// compressed stream (zlib's per deflate block), not per tile.
			if err := src.ToZarr(context.Background(), path, ZarrOptions{}); err != nil {
				t.Fatal(err)
			}
			return runWithList(t, FromZarr(path).Mul(3.0).Sum(1))
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			count := func(tiles int) float64 {
				run := tc.build(t, tiles*tileElems/4)
				return minAllocs(func() {
					if err := run(); err != nil {
						t.Fatal(err)
					}
				})
			}
			if few, many := count(8), count(64); few != many {
				t.Fatalf("8 tiles: %v allocations, 64 tiles: %v: %.2f per tile", few, many, (many-few)/56)
			}
		})
	}
}

// runWithList returns a function computing a's graph on Sync with one
// free list in the context, kept from run to run (as a worker's is).
func runWithList(t *testing.T, a *Array) func() error {
	g, keys := benchGraph(t, a)
	ctx := freelist.NewContext(context.Background(), freelist.NewAuto(2))
	return func() error {
		_, err := sched.Sync{}.Get(ctx, g, keys)
		return err
	}
}

func ndRow(t *testing.T, n int) *nd.Array {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%7) - 3
	}
	a, err := nd.FromSlice(v, n)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// minAllocs is the least of a few testing.AllocsPerRun counts of f: a
// collection during a run empties graph's sync.Pool of key scratch and
// adds an allocation that is not f's; the least count has none.
func minAllocs(f func()) float64 {
	n := testing.AllocsPerRun(3, f)
	for range 3 {
		n = min(n, testing.AllocsPerRun(3, f))
	}
	return n
}
