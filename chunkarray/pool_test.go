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
