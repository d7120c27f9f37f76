package udfbridge

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// SumUDF and SumSigUDF take a uint16 raw file's tiles unconverted
// (processRawTile, internal/kern); the oracle is the same run over a
// float32 raw file holding the same values, whose tiles need no
// conversion and go through ProcessTile. Values span the whole uint16
// range, and enough frames and pixels are summed that float32 rounds
// (sums pass 2^24), so a change of summation order would show.
func TestSumRawTileBitIdentical(t *testing.T) {
	// 1440 frames of 323 pixels: a partition of more than 256 frames, or
	// a frame, of values near 65535 passes 2^24.
	nav, sig := []int{36, 40}, []int{17, 19}
	dir := t.TempDir()
	for _, kind := range []string{"random", "max"} {
		rng := rand.New(rand.NewPCG(11, 12))
		n := prod(nav) * prod(sig)
		u16 := make([]byte, 2*n)
		f32 := make([]byte, 4*n)
		for i := range n {
			v := uint16(rng.Uint32())
			if kind == "max" {
				v = math.MaxUint16 - uint16(rng.IntN(3))
			}
			binary.LittleEndian.PutUint16(u16[2*i:], v)
			binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(float32(v)))
		}
		pu, pf := filepath.Join(dir, kind+"-u16.raw"), filepath.Join(dir, kind+"-f32.raw")
		if err := os.WriteFile(pu, u16, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pf, f32, 0o644); err != nil {
			t.Fatal(err)
		}
		dsU, err := OpenRaw(pu, nd.Uint16, nav, sig, 0)
		if err != nil {
			t.Fatal(err)
		}
		dsF, err := OpenRaw(pf, nd.Float32, nav, sig, 0)
		if err != nil {
			t.Fatal(err)
		}
		roi := make([]bool, prod(nav))
		for i := range roi {
			roi[i] = i%7 != 3
		}
		roiA, _ := nd.FromSlice(roi, nav...)
		for _, c := range []struct {
			name string
			opts []RunOption
		}{
			{"default", nil},
			{"depth 3, 1 partition", []RunOption{WithTileShape(3, nil), WithPartitions(1)}},
			{"depth 300, 2 partitions", []RunOption{WithTileShape(300, nil), WithPartitions(2)}},
			{"sig rows", []RunOption{WithTileShape(2, []int{5, 19}), WithPartitions(1)}},    // contiguous sig regions
			{"sig columns", []RunOption{WithTileShape(4, []int{17, 8}), WithPartitions(1)}}, // strided sig buffer regions: the fallback
			{"roi", []RunOption{WithROI(roiA), WithTileShape(5, nil), WithPartitions(1)}},
			{"sync", []RunOption{WithScheduler(sched.Sync{}), WithPartitions(3)}},
		} {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				ctx := context.Background()
				got, err := Run(ctx, dsU, []UDF{&SumSigUDF{}, &SumUDF{}, &SumMergeAllUDF{}}, c.opts...)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Run(ctx, dsF, []UDF{&SumSigUDF{}, &SumUDF{}, &SumMergeAllUDF{}}, c.opts...)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					sameResultBits(t, fmt.Sprint(i), got[i], want[i], "intensity")
				}
			})
		}
	}
}

func sameResultBits(t *testing.T, what string, got, want *Results, name string) {
	t.Helper()
	g, err := got.RawData(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.RawData(name)
	if err != nil {
		t.Fatal(err)
	}
	if g.DType() != nd.Float32 || w.DType() != nd.Float32 {
		t.Fatalf("%s: dtypes %v and %v, want float32", what, g.DType(), w.DType())
	}
	gv, _ := nd.Values[float32](g.Contiguous())
	wv, _ := nd.Values[float32](w.Contiguous())
	if len(gv) != len(wv) || len(gv) == 0 {
		t.Fatalf("%s: %d values, want %d", what, len(gv), len(wv))
	}
	for i := range gv {
		if math.Float32bits(gv[i]) != math.Float32bits(wv[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, gv[i], wv[i])
		}
	}
}

// TestSumRawTileTaken checks that the raw path is taken where it applies
// (C-contiguous uint16 tile, contiguous float32 buffer) and declined,
// changing nothing, elsewhere.
func TestSumRawTileTaken(t *testing.T) {
	u16, _ := nd.FromSlice([]uint16{1, 2, 3, 4, 5, 6}, 2, 3)
	f32, _ := u16.AsType(nd.Float32)
	tr, _ := u16.Transpose(1, 0)
	sigBuf := func() *nd.Array { a, _ := nd.Zeros(nd.Float32, 3); return a }
	navBuf := func() *nd.Array { a, _ := nd.Zeros(nd.Float32, 2); return a }
	f64Buf, _ := nd.Zeros(nd.Float64, 3)
	ctx := func(a *nd.Array) *Ctx { return &Ctx{bufs: map[string]*nd.Array{"intensity": a}} }
	for _, c := range []struct {
		name string
		u    rawTileProcessor
		buf  *nd.Array
		raw  *nd.Array
		done bool
		want []float32
	}{
		{"sum", &SumUDF{}, sigBuf(), u16, true, []float32{5, 7, 9}},
		{"sumsig", &SumSigUDF{}, navBuf(), u16, true, []float32{6, 15}},
		{"sum float32 tile", &SumUDF{}, sigBuf(), f32, false, []float32{0, 0, 0}},
		{"sum float64 buffer", &SumUDF{}, f64Buf, u16, false, nil},
		{"sum strided tile", &SumUDF{}, navBuf(), tr, false, []float32{0, 0}},
		{"sumsig 1-d tile", &SumSigUDF{}, navBuf(), func() *nd.Array { a, _ := nd.FromSlice([]uint16{1, 2}, 2); return a }(), false, []float32{0, 0}},
	} {
		done, err := c.u.processRawTile(ctx(c.buf), c.raw)
		if err != nil || done != c.done {
			t.Errorf("%s: done %v err %v, want done %v", c.name, done, err, c.done)
			continue
		}
		if c.want != nil {
			if got, _ := nd.Values[float32](c.buf); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s: buffer %v, want %v", c.name, got, c.want)
			}
		}
	}
}

// tTileDouble doubles its tile in place (LiberTEM's tiles are writable):
// a UDF after it sees the doubled tile, a UDF before it the tile as read.
type tTileDouble struct{}

func (tTileDouble) Name() string                        { return "test.tiledouble" }
func (tTileDouble) Params() ([]byte, error)             { return nil, nil }
func (tTileDouble) Buffers(*Meta) ([]BufferDecl, error) { return nil, nil }
func (tTileDouble) ProcessTile(_ *Ctx, tile *nd.Array) error {
	return nd.BinaryInto(nd.Add, tile, tile, tile)
}

func init() {
	RegisterUDF("test.tiledouble", func([]byte) (UDF, error) { return tTileDouble{}, nil })
}

func TestSumRawTileAfterWriter(t *testing.T) {
	nav, sig := []int{3, 4}, []int{5, 6}
	n := prod(nav) * prod(sig)
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(i))
	}
	path := filepath.Join(t.TempDir(), "d.raw")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Uint16, nav, sig, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), ds, []UDF{&SumUDF{}, tTileDouble{}, &SumSigUDF{}}, WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	sum, _ := res[0].RawData("intensity")
	sumSig, _ := res[2].RawData("intensity")
	sv, _ := nd.Values[float32](sum)
	ssv, _ := nd.Values[float32](sumSig)
	for k, v := range sv {
		want := float32(0)
		for f := range prod(nav) {
			want += float32(f*prod(sig) + k)
		}
		if v != want {
			t.Fatalf("SumUDF before the writer: [%d] = %v, want %v (the tile as read)", k, v, want)
		}
	}
	for f, v := range ssv {
		want := float32(0)
		for k := range prod(sig) {
			want += 2 * float32(f*prod(sig)+k)
		}
		if v != want {
			t.Fatalf("SumSigUDF after the writer: [%d] = %v, want %v (the doubled tile)", f, v, want)
		}
	}
}
