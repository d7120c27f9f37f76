package udfbridge

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// The raw per-task reader reuses one buffer: each tile it returns equals
// Dataset.Read's for the same request (whole frames, sig regions, empty
// reads, after a larger and a smaller read), and bad requests are errors.
func TestRawTaskReaderMatchesRead(t *testing.T) {
	vals := make([]uint16, 6*4*5)
	for i := range vals {
		vals[i] = uint16(i*7 + 3)
	}
	a, _ := nd.FromSlice(vals, 6, 4, 5)
	path := filepath.Join(t.TempDir(), "x.raw")
	hdr := []byte{9, 9, 9}
	if err := os.WriteFile(path, a.AppendBytes(hdr, false), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Uint16, []int{2, 3}, []int{4, 5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	rd := ds.TaskReader()
	defer rd.(interface{ Close() error }).Close()
	ctx := context.Background()
	reqs := []struct {
		start, n           int
		sigStart, sigShape []int
	}{
		{0, 6, nil, nil}, {1, 2, nil, nil}, {2, 3, []int{1, 2}, []int{2, 3}},
		{5, 1, []int{0, 0}, []int{4, 5}}, {3, 0, nil, nil}, {0, 6, []int{3, 0}, []int{1, 5}},
	}
	for _, q := range reqs {
		got, err := rd.Read(ctx, q.start, q.n, q.sigStart, q.sigShape)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ds.Read(ctx, q.start, q.n, q.sigStart, q.sigShape)
		if err != nil {
			t.Fatal(err)
		}
		gv, _ := nd.Values[uint16](got)
		wv, _ := nd.Values[uint16](want)
		if !slices.Equal(got.Shape(), want.Shape()) || !slices.Equal(gv, wv) {
			t.Fatalf("%+v: got %v %v, want %v %v", q, got.Shape(), gv, want.Shape(), wv)
		}
	}
	if _, err := rd.Read(ctx, 5, 2, nil, nil); err == nil {
		t.Fatal("read past the end: no error")
	}
	if _, err := rd.Read(ctx, 0, 1, []int{3, 0}, []int{2, 5}); err == nil {
		t.Fatal("sig region outside the frame: no error")
	}
}

// A run over a raw uint16 file (input float32) with tiles smaller than a
// partition and a sig tile: SumUDF and SumSigUDF against sums of the
// whole data, the same with every tile shape.
func TestRawRunReusedTiles(t *testing.T) {
	vals := make([]uint16, 7*3*6*4)
	for i := range vals {
		vals[i] = uint16((i * 131) % 1000)
	}
	a, _ := nd.FromSlice(vals, 21, 6, 4)
	path := filepath.Join(t.TempDir(), "y.raw")
	if err := os.WriteFile(path, a.AppendBytes(nil, false), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Uint16, []int{7, 3}, []int{6, 4}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := a.AsType(nd.Float32)
	wantSum, _ := nd.Reduce(nd.Sum, f, []int{0}, false)
	wantSig, _ := nd.Reduce(nd.Sum, f, []int{1, 2}, false)
	ws, _ := nd.Values[float32](wantSum)
	wg, _ := nd.Values[float32](wantSig)
	for _, opts := range [][]RunOption{
		{WithPartitions(1)},
		{WithPartitions(2), WithTileShape(2, []int{6, 4})},
		{WithPartitions(7), WithTileShape(2, []int{2, 4})},
		{WithPartitions(3), WithTileShape(5, []int{6, 1})},
	} {
		res, err := Run(context.Background(), ds, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := res[0].RawData("intensity")
		if err != nil {
			t.Fatal(err)
		}
		rg, err := res[1].RawData("intensity")
		if err != nil {
			t.Fatal(err)
		}
		gs, _ := nd.Values[float32](rs)
		gg, _ := nd.Values[float32](rg)
		if !closeF32(gs, ws) || !closeF32(gg, wg) {
			t.Fatalf("%d options: sum %v want %v; sumsig %v want %v", len(opts), gs, ws, gg, wg)
		}
	}
}

func closeF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		d := a[i] - b[i]
		if d < 0 {
			d = -d
		}
		if d > 1e-4*(1+max(a[i], -a[i])) {
			return false
		}
	}
	return true
}
