package udfbridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
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

// TestNPYWindows reads a Fortran-order and a big-endian Fortran-order file through a
// task's reader whose windows hold a few frames, as a partition task
// does (tiles in order, some straddling a window's end, a hinted last
// frame) and out of order, and through Read: the in-memory array is the
// oracle.
func TestNPYWindows(t *testing.T) {
	data := formulaArray(t, nd.Complex128, []int{5, 4, 3, 7})
	dir := t.TempDir()
	pathF := filepath.Join(dir, "f.npy")
	if err := npy.WriteFile(pathF, data, true); err != nil {
		t.Fatal(err)
	}
	pathB := filepath.Join(dir, "big.npy")
	raw := data.AppendBytes(nil, true) // Fortran order, swapped to big-endian
	nd.SwapBytes(raw, 8)
	hdr := npyHeaderOnly("{'descr': '>c16', 'fortran_order': True, 'shape': (5, 4, 3, 7), }")
	if err := os.WriteFile(pathB, append(hdr, raw...), 0o644); err != nil {
		t.Fatal(err)
	}
	frame := 3 * 7 * 16
	for _, path := range []string{pathF, pathB} {
		ds, err := OpenNPY(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		check := func(what string, got *nd.Array, start, n int, st, ss []int) {
			t.Helper()
			if st == nil {
				st, ss = []int{0, 0}, []int{3, 7}
			}
			if err := sameArray(got, oracleRead(t, data, 2, start, n, st, ss)); err != nil {
				t.Fatalf("%s %s: %v", path, what, err)
			}
		}
		for _, window := range []int{1, 3 * frame, 3*frame + 5, 64 * frame} {
			r := &npyReader{d: ds, end: 20, windowBytes: window}
			r.hintFrames(17)
			reach := 17 // the window may go no further than the hint or a read
			for _, c := range []struct {
				start, n int
				st, ss   []int
			}{
				{0, 2, nil, nil}, {2, 2, nil, nil}, {4, 1, []int{1, 2}, []int{2, 4}}, {5, 4, nil, nil},
				{9, 8, nil, nil}, {1, 1, nil, nil}, {16, 1, []int{2, 6}, []int{1, 1}}, {17, 3, nil, nil},
				{0, 20, nil, nil}, {3, 0, nil, nil},
			} {
				got, err := r.Read(context.Background(), c.start, c.n, c.st, c.ss)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("window %d: Read(%d, %d, %v, %v)", window, c.start, c.n, c.st, c.ss), got, c.start, c.n, c.st, c.ss)
				reach = max(reach, c.start+c.n)
				if w := r.window.Shape()[0]; r.w0+w > reach {
					t.Errorf("window %d: frames [%d, %d) read beyond the hinted end 17 and the reads", window, r.w0, r.w0+w)
				}
			}
			if _, err := r.Read(context.Background(), 19, 2, nil, nil); err == nil {
				t.Errorf("window %d: read beyond the frames: no error", window)
			}
		}
		for _, c := range [][2]int{{0, 20}, {3, 9}, {19, 1}} {
			got, err := ds.Read(context.Background(), c[0], c[1], nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("Read", got, c[0], c[1], nil, nil)
		}
		ds.Close()
	}
}

// TestNPYRunPartitions runs SumUDF and SumSigUDF over a Fortran-order,
// a big-endian and a C-order file of the same float32 values, in several
// partitions: the results agree bit for bit (the tiles are the same).
// A partition task used to close the dataset's file when it finished
// (the dataset was its own reader), so the next task of a Fortran file
// failed with "file already closed".
func TestNPYRunPartitions(t *testing.T) {
	data := formulaArray(t, nd.Float32, []int{6, 5, 9, 11})
	dir := t.TempDir()
	pathC, pathF := filepath.Join(dir, "c.npy"), filepath.Join(dir, "f.npy")
	if err := npy.WriteFile(pathC, data, false); err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(pathF, data, true); err != nil {
		t.Fatal(err)
	}
	pathB := filepath.Join(dir, "b.npy")
	hdr := npyHeaderOnly("{'descr': '>f4', 'fortran_order': False, 'shape': (6, 5, 9, 11), }")
	raw := data.AppendBytes(nil, false)
	nd.SwapBytes(raw, 4)
	if err := os.WriteFile(pathB, append(hdr, raw...), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(path string, opts ...RunOption) []*Results {
		t.Helper()
		ds, err := OpenNPY(path, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		res, err := Run(context.Background(), ds, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res
	}
	for _, opts := range [][]RunOption{
		{WithPartitions(3)},
		{WithPartitions(4), WithTileShape(4, nil)},
		{WithPartitions(2), WithTileShape(1, []int{2, 11})},
	} {
		want := run(pathC, opts...)
		for _, path := range []string{pathF, pathB} {
			got := run(path, opts...)
			for i := range got {
				sameResultBits(t, path, got[i], want[i], "intensity")
			}
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
