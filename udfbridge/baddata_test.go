package udfbridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/nd/zarr"
)

// allocDuring returns the bytes the runtime handed out while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// npyHeaderOnly is a .npy file with the header dict and no data.
func npyHeaderOnly(dict string) []byte {
	pre := []byte("\x93NUMPY\x01\x00")
	total := len(pre) + 2 + len(dict) + 1
	dict += strings.Repeat(" ", (total+63)/64*64-total) + "\n"
	b := binary.LittleEndian.AppendUint16(pre, uint16(len(dict)))
	return append(b, dict...)
}

// TestBadDatasetsRefused opens raw, npy and zarr datasets whose declared
// shapes the files cannot hold or whose sizes overflow: each is a
// *DatasetError naming the file, and the failed open allocates under
// 1 MiB whatever the shape claims.
func TestBadDatasetsRefused(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.raw")
	if err := os.WriteFile(small, make([]byte, 200), 0o644); err != nil {
		t.Fatal(err)
	}
	hugeNPY := filepath.Join(dir, "huge.npy")
	if err := os.WriteFile(hugeNPY, append(npyHeaderOnly("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 4, 4), }"), make([]byte, 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	zarrStore := func(name, meta string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, ".zarray"), []byte(meta), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zmeta := func(shape, chunks string) string {
		return `{"zarr_format": 2, "shape": ` + shape + `, "chunks": ` + chunks + `, "dtype": "<f8", "compressor": null, "fill_value": 0, "order": "C", "filters": null}`
	}
	// A valid empty array (no element) of 2^40 chunks along axis 1: its
	// chunk boundary table alone would be 8 TiB.
	fineGrid := zarrStore("fine.zarr", zmeta("[0, 1099511627776]", "[1, 1]"))
	overflow := zarrStore("overflow.zarr", zmeta("[4611686018427387904, 4611686018427387904]", "[1, 1]"))
	axes65 := make([]int, 64)
	for i := range axes65 {
		axes65[i] = 1
	}
	tests := []struct {
		name  string
		path  string
		open  func() error
		want  string
		cause error // errors.Is, if set
		as    any   // errors.As target, if set
	}{
		{"raw shape exceeds file", small, func() error {
			_, err := OpenRaw(small, nd.Float64, []int{1 << 20, 1 << 20}, []int{256, 256}, 0)
			return err
		}, "shorter than", io.ErrUnexpectedEOF, nil},
		// nav × sig × 8 is 2^64: it wrapped to 0, which 200 bytes satisfy,
		// and reading frame 0 then allocated 16 GiB.
		{"raw nav × sig overflows", small, func() error {
			_, err := OpenRaw(small, nd.Float64, []int{1 << 33}, []int{1 << 31}, 0)
			return err
		}, "overflows", nil, nil},
		{"raw empty sig, nav overflows", small, func() error {
			_, err := OpenRaw(small, nd.Uint8, []int{1 << 62, 4}, []int{0}, 0)
			return err
		}, "overflows", nil, nil},
		// offset + data overflows int64: a sum wraps negative and passed.
		{"raw offset + data overflows", small, func() error {
			_, err := OpenRaw(small, nd.Uint8, []int{100}, []int{1}, math.MaxInt64-10)
			return err
		}, "shorter than", io.ErrUnexpectedEOF, nil},
		{"raw 65 axes", small, func() error {
			_, err := OpenRaw(small, nd.Uint8, []int{1}, axes65, 0)
			return err
		}, "more than 64", nil, nil},
		{"raw through its spec", small, func() error {
			p, _ := json.Marshal(rawParams{Path: small, DType: "<f8", Nav: []int{1 << 33}, Sig: []int{1 << 31}})
			_, err := OpenSpec(DatasetSpec{Kind: KindRaw, Params: p})
			return err
		}, "overflows", nil, nil},
		{"npy 2^44 elements in 228 bytes", hugeNPY, func() error {
			_, err := OpenNPY(hugeNPY, 2)
			return err
		}, "data shorter", io.ErrUnexpectedEOF, new(*npy.Error)},
		{"zarr grid of 2^40 chunks", fineGrid, func() error {
			_, err := OpenZarr(fineGrid, 1)
			return err
		}, "more than 1048576 chunks", nil, nil},
		{"zarr shape overflows", overflow, func() error {
			_, err := OpenZarr(overflow, 1)
			return err
		}, "too many elements", nil, new(*zarr.Error)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			grew := allocDuring(func() { err = tt.open() })
			var de *DatasetError
			if !errors.As(err, &de) {
				t.Fatalf("error %T %v, want a *DatasetError", err, err)
			}
			if de.Path != tt.path {
				t.Errorf("error names %q, want %q", de.Path, tt.path)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("error %v is not %v", err, tt.cause)
			}
			if tt.as != nil && !errors.As(err, tt.as) {
				t.Errorf("error %v does not wrap a %T", err, tt.as)
			}
			if grew > 1<<20 {
				t.Errorf("the failed open allocated %d bytes", grew)
			}
		})
	}
}

// TestRawReadOverflowingRange asks a raw dataset for frames [1, 1+MaxInt):
// start+n wraps negative and passed the range check.
func TestRawReadOverflowingRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.raw")
	if err := os.WriteFile(path, make([]byte, 4*8*8), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Uint8, []int{4}, []int{8, 8}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []TileReader{ds, ds.TaskReader()} {
		var got *nd.Array
		grew := allocDuring(func() { got, err = r.Read(context.Background(), 1, math.MaxInt, nil, nil) })
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("%T.Read(1, MaxInt) = %v, %v; want an out-of-range error", r, got, err)
		}
		if grew > 64<<10 {
			t.Errorf("%T: the failed read allocated %d bytes", r, grew)
		}
	}
}

// TestNPYEmptySigHugeNav opens a Fortran-order .npy of 2^40 frames of an
// empty sig: a valid file of no element (numpy writes it in 128 bytes).
// Reading frames allocated a boundary table of one int per frame (8 TiB);
// now it reads empty arrays of the right shape.
func TestNPYEmptySigHugeNav(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.npy")
	if err := os.WriteFile(path, npyHeaderOnly("{'descr': '>f8', 'fortran_order': True, 'shape': (1099511627776, 0), }"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ds *NPYDataset
	var err error
	grew := allocDuring(func() { ds, err = OpenNPY(path, 1) })
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var got *nd.Array
	grew += allocDuring(func() { got, err = ds.Read(context.Background(), 1<<39, 10, nil, nil) })
	if err != nil {
		t.Fatal(err)
	}
	if s := nd.FormatShape(got.Shape()); s != "(10, 0)" {
		t.Errorf("Read shape %s, want (10, 0)", s)
	}
	if grew > 1<<20 {
		t.Errorf("open and read allocated %d bytes", grew)
	}
}

// TestNPYRowBlocks checks the blocks of rows a Fortran or big-endian file
// is read in, and that reads spanning several blocks give the file's
// values (the in-memory array is the oracle).
func TestNPYRowBlocks(t *testing.T) {
	tests := []struct {
		shape    []int
		itemsize int
		want     []int
	}{
		{[]int{10, 4}, 8, []int{0, 10}},                    // 32-byte rows: one block
		{[]int{5, 2, 200000}, 1, []int{0, 2, 4, 5}},        // 400 KB rows: 2 per block
		{[]int{3, 600000}, 2, []int{0, 1, 2, 3}},           // rows over 1 MiB: one each
		{[]int{1 << 40, 0}, 8, []int{0, 1 << 40}},          // empty rows: one block
		{[]int{0, 7}, 4, []int{0}},                         // no row
		{[]int{4}, 8, []int{0, 4}},                         // 0-d frames
		{[]int{1 << 21, 1}, 1, []int{0, 1 << 20, 2 << 20}}, // 1-byte rows
		{[]int{3 << 19, 1}, 1, []int{0, 1 << 20, 3 << 19}}, // a short last block
		{[]int{2, 3, 4}, 4, []int{0, 2}},                   // the other axes whole
	}
	for _, tt := range tests {
		got := rowBlocks(tt.shape, tt.itemsize)
		if !slices.Equal(got[0], tt.want) {
			t.Errorf("rowBlocks(%v, %d)[0] = %v, want %v", tt.shape, tt.itemsize, got[0], tt.want)
		}
		for i, s := range tt.shape[1:] {
			if !slices.Equal(got[i+1], []int{0, s}) {
				t.Errorf("rowBlocks(%v, %d)[%d] = %v, want [0 %d]", tt.shape, tt.itemsize, i+1, got[i+1], s)
			}
		}
	}

	data := formulaArray(t, nd.Complex128, []int{5, 2, 12500}) // 400 KB rows: blocks of 2
	path := filepath.Join(t.TempDir(), "f.npy")
	if err := npy.WriteFile(path, data, true); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenNPY(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, r := range []struct {
		start, n int
		st, ss   []int
	}{
		{0, 10, nil, nil},
		{1, 6, nil, nil},
		{3, 4, []int{1000}, []int{50}},
		{9, 1, []int{12490}, []int{10}},
	} {
		got, err := ds.Read(context.Background(), r.start, r.n, r.st, r.ss)
		if err != nil {
			t.Fatalf("Read(%d, %d, %v, %v): %v", r.start, r.n, r.st, r.ss, err)
		}
		st, ss := r.st, r.ss
		if st == nil {
			st, ss = []int{0}, []int{12500}
		}
		if err := sameArray(got, oracleRead(t, data, 1, r.start, r.n, st, ss)); err != nil {
			t.Errorf("Read(%d, %d, %v, %v): %v", r.start, r.n, r.st, r.ss, err)
		}
	}
}

// FuzzOpenRaw opens a 256-byte file with fuzzed shapes and offset: it is
// refused with a *DatasetError or opens, and an open dataset reads its
// first frames, with bounded allocation either way (the frames are in the
// file, so a read that succeeds allocates at most about the file).
func FuzzOpenRaw(f *testing.F) {
	path := filepath.Join(f.TempDir(), "f.raw")
	file := make([]byte, 256)
	for i := range file {
		file[i] = byte(i)
	}
	if err := os.WriteFile(path, file, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add(int64(4), int64(2), int64(8), int64(4), int64(0), uint8(0))
	f.Add(int64(1<<33), int64(1), int64(1<<31), int64(1), int64(0), uint8(3))
	f.Add(int64(1<<62), int64(4), int64(0), int64(1), int64(0), uint8(0))
	f.Add(int64(100), int64(1), int64(1), int64(1), int64(math.MaxInt64-10), uint8(0))
	dtypes := []nd.DType{nd.Uint8, nd.Uint16, nd.Float32, nd.Float64, nd.Complex128}
	f.Fuzz(func(t *testing.T, nav0, nav1, sig0, sig1, offset int64, d uint8) {
		dt := dtypes[int(d)%len(dtypes)]
		nav, sig := []int{int(nav0), int(nav1)}, []int{int(sig0), int(sig1)}
		var ds *RawDataset
		var err error
		grew := allocDuring(func() { ds, err = OpenRaw(path, dt, nav, sig, offset) })
		if grew > 64<<10 {
			t.Fatalf("OpenRaw(%v, %v, %d) allocated %d bytes", nav, sig, offset, grew)
		}
		if err != nil {
			var de *DatasetError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("OpenRaw: %T %v, want a *DatasetError naming the file", err, err)
			}
			return
		}
		n := min(int(nav0*nav1), 2)
		var got *nd.Array
		grew = allocDuring(func() { got, err = ds.Read(context.Background(), 0, n, nil, nil) })
		if err != nil {
			t.Fatalf("Read(0, %d) of an open dataset: %v", n, err)
		}
		if grew > 2*256+64<<10 {
			t.Fatalf("Read(0, %d) allocated %d bytes", n, grew)
		}
		// The oracle: the file's bytes at offset, as the dtype.
		want, err := nd.FromBytes(dt, append([]int{n}, sig...), file[offset:offset+int64(got.Nbytes())], false, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameArray(got, want); err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
	})
}

// FuzzOpenNPY opens arbitrary bytes as a .npy dataset with one sig axis:
// refused with an error naming the file, or opened, and then its first
// frames equal those of npy.ReadFile, with bounded allocation.
func FuzzOpenNPY(f *testing.F) {
	dir := f.TempDir()
	for _, fortran := range []bool{false, true} {
		var b bytes.Buffer
		if err := npy.Write(&b, formulaArray(f, nd.Uint16, []int{3, 4, 5}), fortran); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add(npyHeaderOnly("{'descr': '>f8', 'fortran_order': True, 'shape': (1099511627776, 0), }"))
	f.Add(npyHeaderOnly("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 4, 4), }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ds *NPYDataset
		var err error
		grew := allocDuring(func() { ds, err = OpenNPY(path, 1) })
		if grew > 64<<10+uint64(len(b)) {
			t.Fatalf("OpenNPY of %d bytes allocated %d", len(b), grew)
		}
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		defer ds.Close()
		n := min(dsProd(ds.NavShape()), 2)
		var got *nd.Array
		grew = allocDuring(func() { got, err = ds.Read(context.Background(), 0, n, nil, nil) })
		if err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
		if limit := uint64(4*len(b)) + 2<<20; grew > limit {
			t.Fatalf("Read(0, %d) of a %d-byte file allocated %d", n, len(b), grew)
		}
		whole, err := npy.ReadFile(path)
		if err != nil {
			t.Fatalf("OpenNPY opened what npy.ReadFile refuses: %v", err)
		}
		sig := ds.SigShape()
		if err := sameArray(got, oracleRead(t, whole, 1, 0, n, []int{0}, sig)); err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
	})
}

// FuzzOpenZarr opens a zarr dataset (one sig axis) of fuzzed .zarray and
// no chunk file: refused with a *DatasetError naming the store, or opened
// within a bounded allocation, and then its first frames (when they are
// small) read as the fill value, the oracle for chunks never written.
func FuzzOpenZarr(f *testing.F) {
	dir := f.TempDir()
	meta := func(shape, chunks string) []byte {
		return []byte(`{"zarr_format": 2, "shape": ` + shape + `, "chunks": ` + chunks + `, "dtype": "<i2", "compressor": null, "fill_value": 7, "order": "C", "filters": null}`)
	}
	f.Add(meta("[4, 6]", "[2, 4]"))
	f.Add(meta("[0, 1099511627776]", "[1, 1]"))
	f.Add(meta("[3, 2, 5]", "[1, 2, 2]"))
	f.Add(meta("[9223372036854775807, 1]", "[100, 1]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, ".zarray"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ds *ZarrDataset
		var err error
		grew := allocDuring(func() { ds, err = OpenZarr(dir, 1) })
		if limit := uint64(8*maxZarrBounds + 64<<10 + 8*len(b)); grew > limit {
			t.Fatalf("OpenZarr allocated %d bytes (limit %d); err %v", grew, limit, err)
		}
		if err != nil {
			var de *DatasetError
			if !strings.Contains(err.Error(), dir) || errors.As(err, &de) && de.Path != dir {
				t.Fatalf("error %v does not name the store %s", err, dir)
			}
			return
		}
		sig := ds.SigShape()
		n := min(dsProd(ds.NavShape()), 2)
		if sig[0] > (1<<20)/max(n*ds.DType().Size(), 1) {
			return // a valid, large, sparse array: reading it is the caller's choice
		}
		got, err := ds.Read(context.Background(), 0, n, nil, nil)
		if err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
		want, err := nd.Full(ds.DType(), ds.z.Fill(), append([]int{n}, sig...)...)
		if ds.z.Fill() == nil {
			want, err = nd.Zeros(ds.DType(), append([]int{n}, sig...)...)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := sameArray(got.Contiguous(), want.Contiguous()); err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
	})
}
