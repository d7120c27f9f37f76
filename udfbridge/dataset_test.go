package udfbridge

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Test fixtures of the dataset kinds: every dataset holds values f(flat
// index) of its dtype, written by the test; every Read is compared with the
// same region cut from the whole array by nd.

var testDTypes = []nd.DType{nd.Uint16, nd.Float32, nd.Complex128}

// formulaArray returns an array of shape whose element at flat index i is
// f(i) for the dtype: uint16 (7i+3) mod 65521, float32 i/2-3, complex128
// i - 2i·j.
func formulaArray(t testing.TB, dt nd.DType, shape []int) *nd.Array {
	t.Helper()
	n := dsProd(shape)
	var a *nd.Array
	var err error
	switch dt {
	case nd.Uint16:
		v := make([]uint16, n)
		for i := range v {
			v[i] = uint16((7*i + 3) % 65521)
		}
		a, err = nd.FromSlice(v, shape...)
	case nd.Float32:
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i)/2 - 3
		}
		a, err = nd.FromSlice(v, shape...)
	case nd.Complex128:
		v := make([]complex128, n)
		for i := range v {
			v[i] = complex(float64(i), -2*float64(i))
		}
		a, err = nd.FromSlice(v, shape...)
	default:
		t.Fatalf("no formula for %v", dt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// oracleRead cuts frames [start, start+n) and a sig region out of the whole
// data (nav dims flattened).
func oracleRead(t testing.TB, data *nd.Array, sigDims, start, n int, sigStart, sigShape []int) *nd.Array {
	t.Helper()
	sh := data.Shape()
	nav := sh[:len(sh)-sigDims]
	sig := sh[len(sh)-sigDims:]
	flat, err := data.Reshape(append([]int{dsProd(nav)}, sig...)...)
	if err != nil {
		t.Fatal(err)
	}
	sl := []nd.Slice1{{Start: start, Stop: start + n, Step: 1}}
	for i := range sig {
		sl = append(sl, nd.Slice1{Start: sigStart[i], Stop: sigStart[i] + sigShape[i], Step: 1})
	}
	v, err := flat.Slice(sl...)
	if err != nil {
		t.Fatal(err)
	}
	return v.Contiguous()
}

func sameArray(a, b *nd.Array) error {
	if a.DType() != b.DType() {
		return fmt.Errorf("dtype %v, want %v", a.DType(), b.DType())
	}
	if fmt.Sprint(a.Shape()) != fmt.Sprint(b.Shape()) {
		return fmt.Errorf("shape %v, want %v", a.Shape(), b.Shape())
	}
	if !bytes.Equal(a.AppendBytes(nil, false), b.AppendBytes(nil, false)) {
		return fmt.Errorf("values differ")
	}
	return nil
}

// checkDataset runs the common suite on ds, which must hold data (nav dims
// then sig dims): shapes and dtype, random reads, whole-frame reads,
// partitions × tiles covering the dataset exactly once, errors for reads
// out of range, and a Spec round trip.
func checkDataset(t *testing.T, ds Dataset, data *nd.Array, sigDims int) {
	t.Helper()
	ctx := context.Background()
	sh := data.Shape()
	nav, sig := sh[:len(sh)-sigDims], sh[len(sh)-sigDims:]
	if fmt.Sprint(ds.NavShape()) != fmt.Sprint(nav) || fmt.Sprint(ds.SigShape()) != fmt.Sprint(sig) || ds.DType() != data.DType() {
		t.Fatalf("nav %v sig %v dtype %v, want %v %v %v", ds.NavShape(), ds.SigShape(), ds.DType(), nav, sig, data.DType())
	}
	navSize := dsProd(nav)
	rng := rand.New(rand.NewPCG(1, uint64(navSize)))
	read := func(ds Dataset, start, n int, st, ss []int) {
		t.Helper()
		got, err := ds.Read(ctx, start, n, st, ss)
		if err != nil {
			t.Fatalf("Read(%d, %d, %v, %v): %v", start, n, st, ss, err)
		}
		if st == nil {
			st, ss = make([]int, len(sig)), sig
		}
		if err := sameArray(got, oracleRead(t, data, sigDims, start, n, st, ss)); err != nil {
			t.Fatalf("Read(%d, %d, %v, %v): %v", start, n, st, ss, err)
		}
	}
	// Whole frames, random ranges and sig regions.
	read(ds, 0, navSize, nil, nil)
	for range 25 {
		start := rng.IntN(navSize + 1)
		n := rng.IntN(navSize - start + 1)
		st, ss := make([]int, len(sig)), make([]int, len(sig))
		for i, s := range sig {
			st[i] = rng.IntN(s + 1)
			ss[i] = rng.IntN(s - st[i] + 1)
		}
		read(ds, start, n, st, ss)
	}
	// Partitions × tiles, through Read and, as a partition task reads
	// them, through a task reader of the partition (told its last frame
	// when it reads ahead).
	for _, p := range []int{1, 2, 7} {
		b := Partitions(navSize, p)
		for _, target := range []int{1, 64, 1000, 1 << 20} {
			ts, depth := TileShape(sig, ds.DType(), target, 0)
			for i := range p {
				tiles, err := TileRegions(b[i], b[i+1], sig, ts, depth)
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range tiles {
					read(ds, tl.Start, tl.N, tl.SigStart, tl.SigShape)
				}
				rd := taskReader(ds)
				if h, ok := rd.(frameHinter); ok {
					h.hintFrames(b[i+1])
				}
				for _, tl := range tiles {
					got, err := rd.Read(ctx, tl.Start, tl.N, tl.SigStart, tl.SigShape)
					if err != nil {
						t.Fatalf("task reader: Read(%d, %d, %v, %v): %v", tl.Start, tl.N, tl.SigStart, tl.SigShape, err)
					}
					if err := sameArray(got, oracleRead(t, data, sigDims, tl.Start, tl.N, tl.SigStart, tl.SigShape)); err != nil {
						t.Fatalf("task reader: Read(%d, %d, %v, %v): %v", tl.Start, tl.N, tl.SigStart, tl.SigShape, err)
					}
				}
				if c, ok := rd.(io.Closer); ok && rd != Dataset(ds) {
					c.Close()
				}
			}
		}
	}
	// Out of range.
	for _, c := range []struct {
		start, n int
		st, ss   []int
	}{
		{-1, 1, nil, nil}, {navSize, 1, nil, nil}, {0, navSize + 1, nil, nil},
		{0, 1, make([]int, len(sig)+1), nil},
		{0, 1, make([]int, len(sig)), append([]int{sig[0] + 1}, sig[1:]...)},
	} {
		if _, err := ds.Read(ctx, c.start, c.n, c.st, c.ss); err == nil {
			t.Errorf("Read(%d, %d, %v, %v): no error", c.start, c.n, c.st, c.ss)
		}
	}
	// Spec round trip: the reopened dataset reads the same.
	spec, err := ds.Spec()
	if err != nil {
		t.Fatal(err)
	}
	ds2, err := OpenSpec(spec)
	if err != nil {
		t.Fatalf("OpenSpec: %v", err)
	}
	spec2, err := ds2.Spec()
	if err != nil || spec2.Kind != spec.Kind || !bytes.Equal(spec2.Params, spec.Params) {
		t.Fatalf("spec round trip: %v %q, want %q (%v)", spec2.Kind, spec2.Params, spec.Params, err)
	}
	read(ds2, navSize/3, navSize-navSize/3, nil, nil)
}

func writeRaw(t testing.TB, path string, data *nd.Array, offset int) {
	t.Helper()
	b := make([]byte, offset)
	for i := range b {
		b[i] = 0xAB
	}
	b = data.AppendBytes(b, false)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRawDataset(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range testDTypes {
		for _, c := range []struct {
			name   string
			shape  []int
			sig    int
			offset int
		}{
			{"4d", []int{3, 5, 6, 7}, 2, 0},
			{"4d offset", []int{4, 3, 8, 4}, 2, 37},
			{"3d, one sig dim", []int{2, 9, 11}, 1, 5},
			{"nav 1d, sig 3d", []int{7, 2, 3, 4}, 3, 0},
		} {
			t.Run(fmt.Sprintf("%v/%s", dt, c.name), func(t *testing.T) {
				data := formulaArray(t, dt, c.shape)
				path := filepath.Join(dir, strings.ReplaceAll(fmt.Sprintf("%v-%s.raw", dt, c.name), " ", "_"))
				writeRaw(t, path, data, c.offset)
				nav, sig := c.shape[:len(c.shape)-c.sig], c.shape[len(c.shape)-c.sig:]
				ds, err := OpenRaw(path, dt, nav, sig, int64(c.offset))
				if err != nil {
					t.Fatal(err)
				}
				checkDataset(t, ds, data, c.sig)
			})
		}
	}
}

func TestRawErrors(t *testing.T) {
	dir := t.TempDir()
	data := formulaArray(t, nd.Float32, []int{4, 4, 8, 8})
	path := filepath.Join(dir, "short.raw")
	writeRaw(t, path, data, 16)
	// Truncated: one byte short of offset + data.
	full := int64(16 + data.Nbytes())
	if err := os.Truncate(path, full-1); err != nil {
		t.Fatal(err)
	}
	_, err := OpenRaw(path, nd.Float32, []int{4, 4}, []int{8, 8}, 16)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprint(full-1)) || !strings.Contains(err.Error(), fmt.Sprint(full)) {
		t.Errorf("truncated file: error %v, want one naming %s, %d and %d", err, path, full-1, full)
	}
	// Truncated after open: Read fails naming the file, no partial result.
	if err := os.Truncate(path, full); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Float32, []int{4, 4}, []int{8, 8}, 16)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, full/2); err != nil {
		t.Fatal(err)
	}
	got, err := ds.Read(context.Background(), 0, 16, nil, nil)
	if err == nil || got != nil || !strings.Contains(err.Error(), path) {
		t.Errorf("read of a file truncated after open: %v, %v", got, err)
	}
	// Unknown path.
	missing := filepath.Join(dir, "nope.raw")
	if _, err := OpenRaw(missing, nd.Float32, []int{4}, []int{8}, 0); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
	// Bad shapes and dtype.
	if _, err := OpenRaw(path, nd.Float32, nil, []int{8}, 0); err == nil {
		t.Error("empty nav: no error")
	}
	if _, err := OpenRaw(path, nd.Float32, []int{4}, []int{8}, -1); err == nil {
		t.Error("negative offset: no error")
	}
	// Unknown kind.
	if _, err := OpenSpec(DatasetSpec{Kind: "nosuchkind"}); err == nil || !strings.Contains(err.Error(), "nosuchkind") {
		t.Errorf("unknown kind: %v", err)
	}
}

// TestRawReadsTiles checks that Read never reads more than the tile: a
// file of 1 GiB declared but sparse (holes) opens and reads one frame
// quickly without allocating the whole file.
func TestRawReadsTiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.raw")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const nav, side = 4096, 256 // 4096 frames of 256×256 float64: 2 GiB
	if err := f.Truncate(nav * side * side * 8); err != nil {
		t.Skip("sparse file:", err)
	}
	f.Close()
	ds, err := OpenRaw(path, nd.Float64, []int{64, 64}, []int{side, side}, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ds.Read(context.Background(), 4095, 1, []int{10, 0}, []int{2, side})
	if err != nil {
		t.Fatal(err)
	}
	if a.Nbytes() != 2*side*8 {
		t.Errorf("read %d bytes", a.Nbytes())
	}
}
