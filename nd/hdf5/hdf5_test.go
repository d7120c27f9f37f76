package hdf5_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
	"github.com/tessera-go/tessera/nd/npy"
)

func TestNotBuilt(t *testing.T) {
	if hdf5.Enabled {
		t.Skip("this build has HDF5 support")
	}
	_, err := hdf5.Open("some.h5", "/data")
	var e *hdf5.Error
	if !errors.As(err, &e) || !errors.Is(err, hdf5.ErrNotBuilt) || e.Path != "some.h5" || e.Dataset != "/data" {
		t.Fatalf("Open = %v, want an *Error naming the file and dataset wrapping ErrNotBuilt", err)
	}
	for _, want := range []string{"some.h5", "/data", "-tags hdf5", "libhdf5-dev"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// dtypes are the numpy dtype strings of the interop cases, both byte
// orders, and the nd dtype each reads as.
var dtypes = []struct {
	np string
	dt nd.DType
}{
	{"|b1", nd.Bool}, {"|i1", nd.Int8}, {"|u1", nd.Uint8},
	{"<i2", nd.Int16}, {">u2", nd.Uint16}, {">i4", nd.Int32}, {"<u4", nd.Uint32},
	{"<i8", nd.Int64}, {">u8", nd.Uint64},
	{"<f4", nd.Float32}, {">f4", nd.Float32}, {"<f8", nd.Float64}, {">f8", nd.Float64},
	{"<c8", nd.Complex64}, {">c16", nd.Complex128},
}

type layoutCase struct {
	name    string
	shape   []int
	chunks  []int
	comp    string
	shuffle bool
	filters []string
}

var layouts = []layoutCase{
	{"contiguous", []int{3, 5, 6, 7}, nil, "", false, nil},
	{"chunked", []int{3, 5, 6, 7}, []int{2, 2, 4, 3}, "", false, nil},
	{"gzip", []int{3, 5, 6, 7}, []int{1, 5, 6, 7}, "gzip", false, []string{"deflate"}},
	{"shuffle-gzip", []int{4, 4, 5, 5}, []int{3, 1, 5, 2}, "gzip", true, []string{"shuffle", "deflate"}},
}

// TestH5pyInterop has h5py write datasets of every numeric dtype in both
// byte orders, contiguous and chunked, with and without gzip, and checks
// what Open reports and that whole reads, random regions (ReadRegion,
// ReadInto, Read) and concurrent reads give what h5py reads back.
func TestH5pyInterop(t *testing.T) {
	dir := t.TempDir()
	var cases []hdf5test.Case
	for _, l := range layouts {
		for _, d := range dtypes {
			cases = append(cases, hdf5test.Case{File: l.name + ".h5", Dataset: "/entry/" + strings.Trim(d.np, "<>|"+"="),
				DType: d.np, Shape: l.shape, Chunks: l.chunks, Compression: l.comp, Shuffle: l.shuffle})
		}
	}
	// Dataset names differ per byte order.
	for i := range cases {
		if strings.HasPrefix(cases[i].DType, ">") {
			cases[i].Dataset += "_be"
		}
	}
	hdf5test.Write(t, dir, cases...)
	for i, c := range cases {
		l := layouts[i/len(dtypes)]
		want := dtypes[i%len(dtypes)]
		t.Run(l.name+c.Dataset, func(t *testing.T) {
			d, err := hdf5.Open(hdf5test.Path(dir, c), c.Dataset)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			oracle, err := npy.ReadFile(hdf5test.Oracle(dir, c))
			if err != nil {
				t.Fatal(err)
			}
			layout := hdf5.Contiguous
			if c.Chunks != nil {
				layout = hdf5.Chunked
			}
			if !slices.Equal(d.Shape(), c.Shape) || d.DType() != want.dt || d.BigEndian() != strings.HasPrefix(c.DType, ">") ||
				d.Layout() != layout || !slices.Equal(d.Chunks(), c.Chunks) || !slices.Equal(d.Filters(), l.filters) {
				t.Fatalf("shape %v dtype %v big-endian %v layout %v chunks %v filters %v, want %v %v %v %v %v %v",
					d.Shape(), d.DType(), d.BigEndian(), d.Layout(), d.Chunks(), d.Filters(),
					c.Shape, want.dt, strings.HasPrefix(c.DType, ">"), layout, c.Chunks, l.filters)
			}
			checkRegions(t, d, oracle)
		})
	}
}

// region returns the region start/count of a.
func region(t *testing.T, a *nd.Array, start, count []int) *nd.Array {
	t.Helper()
	sl := make([]nd.Slice1, len(start))
	for i := range start {
		sl[i] = nd.Slice1{Start: start[i], Stop: start[i] + count[i], Step: 1}
	}
	v, err := a.Slice(sl...)
	if err != nil {
		t.Fatal(err)
	}
	return v.Contiguous()
}

func checkRegions(t *testing.T, d *hdf5.Dataset, oracle *nd.Array) {
	t.Helper()
	shape := d.Shape()
	whole, err := d.Read(make([]int, len(shape)), shape)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(whole.AppendBytes(nil, false), oracle.AppendBytes(nil, false)) {
		t.Fatalf("whole read differs from h5py's")
	}
	rng := rand.New(rand.NewPCG(3, uint64(len(shape))))
	var reused *nd.Array
	for range 30 {
		start, count := make([]int, len(shape)), make([]int, len(shape))
		for i, s := range shape {
			start[i] = rng.IntN(s + 1)
			count[i] = rng.IntN(s - start[i] + 1)
		}
		want := region(t, oracle, start, count).AppendBytes(nil, false)
		buf := make([]byte, len(want))
		if err := d.ReadRegion(buf, start, count); err != nil {
			t.Fatalf("ReadRegion(%v, %v): %v", start, count, err)
		}
		if !bytes.Equal(buf, want) {
			t.Fatalf("ReadRegion(%v, %v) differs from h5py's", start, count)
		}
		// ReadInto a reused buffer's view.
		if reused == nil || reused.Size() < len(want)/max(d.DType().Size(), 1) {
			if reused, err = nd.Zeros(d.DType(), max(len(want)/d.DType().Size(), 1)); err != nil {
				t.Fatal(err)
			}
		}
		v, err := reused.Slice(nd.Slice1{Start: 0, Stop: len(want) / d.DType().Size(), Step: 1})
		if err != nil {
			t.Fatal(err)
		}
		if v, err = v.Reshape(count...); err != nil {
			t.Fatal(err)
		}
		if err := d.ReadInto(v, start); err != nil {
			t.Fatalf("ReadInto(%v, %v): %v", start, count, err)
		}
		if !bytes.Equal(v.AppendBytes(nil, false), want) {
			t.Fatalf("ReadInto(%v, %v) differs from h5py's", start, count)
		}
	}
	// Concurrent reads of frames of one dataset.
	var wg sync.WaitGroup
	errs := make([]error, shape[0])
	for k := range shape[0] {
		wg.Go(func() {
			start := make([]int, len(shape))
			start[0] = k
			count := slices.Clone(shape)
			count[0] = 1
			got, err := d.Read(start, count)
			if err == nil && !bytes.Equal(got.AppendBytes(nil, false), region(t, oracle, start, count).AppendBytes(nil, false)) {
				err = fmt.Errorf("row %d differs from h5py's", k)
			}
			errs[k] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// TestScalarAndVector reads a 0-d and a 1-d dataset.
func TestScalarAndVector(t *testing.T) {
	dir := t.TempDir()
	cases := []hdf5test.Case{
		{File: "s.h5", Dataset: "scalar", DType: "<f8", Shape: []int{}},
		{File: "s.h5", Dataset: "vector", DType: ">i2", Shape: []int{11}},
		{File: "s.h5", Dataset: "empty", DType: "<u2", Shape: []int{0, 4}},
	}
	hdf5test.Write(t, dir, cases...)
	for _, c := range cases {
		d, err := hdf5.Open(hdf5test.Path(dir, c), c.Dataset)
		if err != nil {
			t.Fatal(err)
		}
		oracle, err := npy.ReadFile(hdf5test.Oracle(dir, c))
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Read(make([]int, len(c.Shape)), c.Shape)
		if err != nil {
			t.Fatalf("%s: %v", c.Dataset, err)
		}
		if !slices.Equal(got.Shape(), c.Shape) || !bytes.Equal(got.AppendBytes(nil, false), oracle.AppendBytes(nil, false)) {
			t.Errorf("%s: read %v, want %v", c.Dataset, got, oracle)
		}
		d.Close()
	}
}

// TestErrors checks that bad files, names, types and regions give an
// *Error naming the file and the dataset, with HDF5's stack where HDF5
// failed and the sentinel where one applies, and that nothing is printed.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	good := hdf5test.Case{File: "good.h5", Dataset: "/data", DType: "<u2", Shape: []int{4, 3, 8, 8}, Chunks: []int{1, 3, 8, 8}, Compression: "gzip"}
	str := hdf5test.Case{File: "good.h5", Dataset: "/names", DType: "S4", Shape: []int{5}}
	hdf5test.Write(t, dir, good, str)
	path := hdf5test.Path(dir, good)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notHDF5 := write("not.h5", bytes.Repeat([]byte("not an hdf5 file "), 200))
	badMagic := write("magic.h5", append([]byte("\x89HDF\r\n\x1a\x0b"), raw[8:]...))
	truncated := write("truncated.h5", raw[:len(raw)/3])
	for _, c := range []struct {
		name, path, dataset string
		is                  error
		stack               bool
	}{
		{"missing file", filepath.Join(dir, "missing.h5"), "/data", fs.ErrNotExist, false},
		{"missing dataset", path, "/nope", hdf5.ErrNotFound, true},
		{"missing group", path, "/a/b/c", hdf5.ErrNotFound, true},
		{"not hdf5", notHDF5, "/data", nil, true},
		{"bad magic", badMagic, "/data", nil, true},
		{"truncated", truncated, "/data", nil, true},
		{"string type", path, "/names", hdf5.ErrUnsupported, false},
		{"a group", path, "/", nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := hdf5.Open(c.path, c.dataset)
			if err == nil {
				d.Close()
				t.Fatal("no error")
			}
			var e *hdf5.Error
			if !errors.As(err, &e) || e.Path != c.path || e.Dataset != c.dataset || e.Op != "open" {
				t.Fatalf("%v (%T): want an *Error of op open naming %s and %s", err, err, c.path, c.dataset)
			}
			if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.dataset) {
				t.Errorf("%q does not name the file and the dataset", err)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v is not %v", err, c.is)
			}
			if c.stack != (len(e.Stack) > 0) {
				t.Errorf("stack %v, want one: %v", e.Stack, c.stack)
			}
		})
	}

	d, err := hdf5.Open(path, "/data")
	if err != nil {
		t.Fatal(err)
	}
	sh := d.Shape()
	for _, c := range []struct {
		name         string
		start, count []int
		buf          int
	}{
		{"rank", []int{0, 0}, []int{1, 1}, 2},
		{"negative start", []int{-1, 0, 0, 0}, []int{1, 1, 1, 1}, 2},
		{"past the end", []int{3, 0, 0, 0}, []int{2, 1, 1, 1}, 4},
		{"count overflows", []int{0, 0, 0, 0}, []int{1 << 62, 1 << 62, 1, 1}, 2},
		{"short buffer", []int{0, 0, 0, 0}, sh, 10},
	} {
		err := d.ReadRegion(make([]byte, c.buf), c.start, c.count)
		var e *hdf5.Error
		if !errors.As(err, &e) || e.Op != "read" || e.Path != path || e.Dataset != "/data" {
			t.Errorf("%s: ReadRegion = %v, want a read *Error naming the file and dataset", c.name, err)
		}
	}
	f64, err := nd.Zeros(nd.Float64, 1, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.ReadInto(f64, make([]int, 4)); err == nil {
		t.Errorf("ReadInto a float64 array of a uint16 dataset: no error")
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := d.ReadRegion(make([]byte, 2), make([]int, 4), []int{1, 1, 1, 1}); !errors.Is(err, hdf5.ErrClosed) {
		t.Errorf("read after Close: %v, want ErrClosed", err)
	}
}

// TestReadRegionAllocs checks that a region read allocates nothing: one
// hyperslab read into the caller's buffer.
func TestReadRegionAllocs(t *testing.T) {
	dir := t.TempDir()
	c := hdf5test.Case{File: "a.h5", Dataset: "d", DType: ">f4", Shape: []int{8, 16, 16}, Chunks: []int{2, 16, 16}}
	hdf5test.Write(t, dir, c)
	d, err := hdf5.Open(hdf5test.Path(dir, c), c.Dataset)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	buf := make([]byte, 2*16*16*4)
	start, count := []int{2, 0, 0}, []int{2, 16, 16}
	n := testing.AllocsPerRun(20, func() {
		if err := d.ReadRegion(buf, start, count); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Errorf("ReadRegion: %v allocations, want 0", n)
	}
}

// TestCorruptChunkShape opens testdata/example.h5 with one byte of its
// layout message changed so that the chunks are 1×3×4×35844 in a
// dataset of fixed shape 2×3×4×4: libhdf5 1.10 opens such a file and
// overruns a buffer reading it (h5py crashes on it too; a fuzz run of
// mutated copies found it), so Open refuses it.
func TestCorruptChunkShape(t *testing.T) {
	if !hdf5.Enabled {
		t.Skip("built without HDF5 support: run with -tags hdf5")
	}
	b, err := os.ReadFile("testdata/example.h5")
	if err != nil {
		t.Fatal(err)
	}
	const at = 2040 // the second byte of the last chunk dimension
	if b[at-1] != 4 || b[at] != 0 {
		t.Fatalf("testdata/example.h5 changed: bytes %d-%d are %x, want 04 00", at-1, at, b[at-1:at+1])
	}
	b[at] = 0x8c
	path := filepath.Join(t.TempDir(), "corrupt.h5")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := hdf5.Open(path, "/entry/data")
	if err == nil {
		d.Close()
		t.Fatal("Open of a dataset with chunks larger than its fixed shape: no error")
	}
	if !errors.Is(err, hdf5.ErrUnsupported) || !strings.Contains(err.Error(), "corrupt") || !strings.Contains(err.Error(), path) {
		t.Errorf("%v: want ErrUnsupported saying corrupt and naming the file", err)
	}
}
