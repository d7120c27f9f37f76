package npy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/ndtest"
)

// formula is the values testdata/gen.py writes (see ndtest.Formula).
func formula(t testing.TB, d nd.DType, shape ...int) *nd.Array {
	t.Helper()
	return ndtest.Formula(t, d, shape...)
}

// sameArray reports how got differs from want (dtype, shape, values in C
// order), or "".
func sameArray(got, want *nd.Array) string {
	if got.DType() != want.DType() {
		return fmt.Sprintf("dtype %s, want %s", got.DType(), want.DType())
	}
	if nd.FormatShape(got.Shape()) != nd.FormatShape(want.Shape()) {
		return fmt.Sprintf("shape %v, want %v", got.Shape(), want.Shape())
	}
	if !bytes.Equal(got.Copy().AppendBytes(nil, false), want.Copy().AppendBytes(nil, false)) {
		g, _ := got.AsType(nd.Complex128)
		w, _ := want.AsType(nd.Complex128)
		gv, _ := nd.Values[complex128](g)
		wv, _ := nd.Values[complex128](w)
		return fmt.Sprintf("values %v, want %v", gv, wv)
	}
	return ""
}

func TestReadFixtures(t *testing.T) {
	type fixture struct {
		file    string
		d       nd.DType
		shape   []int
		fortran bool
		big     bool
		major   int
	}
	var tests []fixture
	for _, d := range nd.DTypes {
		tests = append(tests,
			fixture{d.String() + "_c.npy", d, []int{3, 4}, false, false, 1},
			fixture{d.String() + "_f.npy", d, []int{3, 4}, true, false, 1},
			fixture{d.String() + "_big.npy", d, []int{3, 4}, false, d.Size() > 1, 1},
			fixture{d.String() + "_4d_f.npy", d, []int{3, 4, 5, 6}, true, false, 1})
	}
	tests = append(tests,
		fixture{"float64_0d.npy", nd.Float64, []int{}, false, false, 1},
		fixture{"float64_empty.npy", nd.Float64, []int{0, 3}, false, false, 1},
		fixture{"int16_1d.npy", nd.Int16, []int{5}, false, false, 1},
		fixture{"float32_3d_f.npy", nd.Float32, []int{2, 3, 4}, true, false, 1},
		fixture{"int32_3d_c.npy", nd.Int32, []int{4, 3, 2}, false, false, 1},
		fixture{"float64_v2.npy", nd.Float64, []int{2, 3}, false, false, 2},
		fixture{"float64_v3.npy", nd.Float64, []int{2, 3}, false, false, 3},
		fixture{"complex128_4d_fbig.npy", nd.Complex128, []int{3, 4, 5, 2}, true, true, 1},
		fixture{"uint16_5d_f.npy", nd.Uint16, []int{2, 3, 4, 5, 3}, true, false, 1},
		fixture{"float32_empty_f.npy", nd.Float32, []int{3, 0, 4}, false, false, 1}, // numpy saves an empty array in C order
	)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			a, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if msg := sameArray(a, formula(t, tt.d, tt.shape...)); msg != "" {
				t.Fatal(msg)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, err := ReadHeader(f)
			if err != nil {
				t.Fatal(err)
			}
			if h.Fortran != tt.fortran || h.BigEndian != tt.big || h.Major != tt.major || h.DataOffset%64 != 0 {
				t.Errorf("header %+v, want fortran %v big-endian %v version %d, aligned data", h, tt.fortran, tt.big, tt.major)
			}
		})
	}
}

// TestWriteMatchesNumpy checks that Write produces the very bytes np.save
// wrote for the fixtures.
func TestWriteMatchesNumpy(t *testing.T) {
	var files []string
	for _, d := range nd.DTypes {
		files = append(files, d.String()+"_c.npy", d.String()+"_f.npy", d.String()+"_4d_f.npy")
	}
	files = append(files, "float64_0d.npy", "float64_empty.npy", "int16_1d.npy", "float32_3d_f.npy", "int32_3d_c.npy")
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			a, err := Read(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, a, strings.HasSuffix(file, "_f.npy")); err != nil {
				t.Fatal(err)
			}
			if got := buf.Bytes(); !bytes.Equal(got, want) {
				t.Errorf("Write differs from np.save:\ngot  %q\nwant %q", head(got), head(want))
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 140)] }

func TestRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {0}, {5}, {2, 0, 3}, {3, 4}, {2, 3, 4}}
	for _, d := range nd.DTypes {
		for _, sh := range shapes {
			for _, fortran := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/fortran=%v", d, nd.FormatShape(sh), fortran)
				t.Run(name, func(t *testing.T) {
					want := formula(t, d, sh...)
					var buf bytes.Buffer
					if err := Write(&buf, want, fortran); err != nil {
						t.Fatal(err)
					}
					got, err := Read(&buf)
					if err != nil {
						t.Fatal(err)
					}
					if msg := sameArray(got, want); msg != "" {
						t.Fatal(msg)
					}
					if buf.Len() != 0 {
						t.Errorf("%d bytes left unread", buf.Len())
					}
				})
			}
		}
	}
}

// TestWriteViews writes non-contiguous views: the file holds the view's
// elements, not its backing.
func TestWriteViews(t *testing.T) {
	base := formula(t, nd.Int32, 4, 5)
	tr, _ := base.Transpose()
	sl, _ := base.Slice(nd.Slice1{Start: 3, Stop: -1, Step: -2}, nd.Slice1{Start: 1, Stop: 5, Step: 2})
	full, _ := nd.Full(nd.Float32, 2.5, 3, 2)
	for name, a := range map[string]*nd.Array{"transpose": tr, "slice": sl, "broadcast": full} {
		for _, fortran := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/fortran=%v", name, fortran), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "v.npy")
				if err := WriteFile(path, a, fortran); err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if msg := sameArray(got, a); msg != "" {
					t.Fatal(msg)
				}
			})
		}
	}
}

func TestReadErrors(t *testing.T) {
	good, err := os.ReadFile(filepath.Join("testdata", "float64_c.npy"))
	if err != nil {
		t.Fatal(err)
	}
	v2, err := os.ReadFile(filepath.Join("testdata", "float64_v2.npy"))
	if err != nil {
		t.Fatal(err)
	}
	patch := func(b []byte, at int, s string) []byte {
		c := bytes.Clone(b)
		copy(c[at:], s)
		return c
	}
	tests := []struct {
		name string
		data []byte
		want string // substring of the error
	}{
		{"empty", nil, "truncated header"},
		{"bad-magic", patch(good, 0, "\x93NUMPZ"), "bad magic"},
		{"not-npy", []byte("hello, this is a text file"), "bad magic"},
		{"version-4", patch(good, 6, "\x04"), "unsupported format version 4.0"},
		{"version-1.1", patch(good, 7, "\x01"), "unsupported format version 1.1"},
		{"truncated-length", good[:9], "truncated header"},
		{"truncated-dict", good[:60], "truncated header"},
		{"v2-huge-length", patch(v2, 8, "\xff\xff\xff\x7f"), "exceeds"},
		{"bad-dict", patch(good, 10, "["), "bad header dict"},
		{"bad-descr", patch(good, 21, "<x8"), "unsupported dtype"},
		{"bad-bool", patch(good, 44, "Flase"), "want True or False"},
		{"short-data", good[:len(good)-1], "data shorter than the shape (3, 4) of float64"},
		{"no-data", good[:128], "data shorter than the shape"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name+".npy")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFile(path)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *npy.Error", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %q, want it to contain %q and the path", err, tt.want)
			}
			if _, err := Read(bytes.NewReader(tt.data)); err == nil {
				t.Errorf("Read: no error")
			}
		})
	}
}

func TestUnsupportedDTypes(t *testing.T) {
	for _, file := range []string{"unsupported_U5.npy", "unsupported_O.npy", "unsupported_f2.npy", "unsupported_struct.npy"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", file)
			_, err := ReadFile(path)
			var de *nd.DTypeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want an nd.DTypeError inside", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("err = %q does not name the file", err)
			}
		})
	}
}

func TestReadRange(t *testing.T) {
	for _, file := range []string{"int32_3d_c.npy", "float32_3d_f.npy", "float64_f.npy", "int16_1d.npy", "complex128_big.npy",
		"int8_4d_f.npy", "complex128_4d_fbig.npy", "uint16_5d_f.npy", "float32_empty_f.npy"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", file)
			whole, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := OpenFile(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n := f.Header().Shape[0]
			for start := 0; start <= n; start++ {
				for count := 0; start+count <= n; count++ {
					got, err := f.ReadRange(start, count)
					if err != nil {
						t.Fatal(err)
					}
					want, _ := whole.Slice(nd.Slice1{Start: start, Stop: start + count, Step: 1})
					if msg := sameArray(got, want); msg != "" {
						t.Fatalf("ReadRange(%d, %d): %s", start, count, msg)
					}
				}
			}
			for _, r := range [][2]int{{-1, 1}, {0, n + 1}, {n + 1, 0}, {1, -1}} {
				if _, err := f.ReadRange(r[0], r[1]); err == nil {
					t.Errorf("ReadRange(%d, %d): no error", r[0], r[1])
				}
			}
		})
	}
}

func TestOpenFileErrors(t *testing.T) {
	good, _ := os.ReadFile(filepath.Join("testdata", "float64_c.npy"))
	dir := t.TempDir()
	short := filepath.Join(dir, "short.npy")
	os.WriteFile(short, good[:len(good)-8], 0o644)
	if _, err := OpenFile(short); err == nil || !strings.Contains(err.Error(), "short.npy") || !strings.Contains(err.Error(), "data shorter") {
		t.Errorf("short file: err = %v", err)
	}
	if _, err := OpenFile(filepath.Join(dir, "missing.npy")); err == nil || !strings.Contains(err.Error(), "missing.npy") {
		t.Errorf("missing file: err = %v", err)
	}
	f, err := OpenFile(filepath.Join("testdata", "float64_0d.npy"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadRange(0, 1); err == nil {
		t.Error("ReadRange on 0-d: no error")
	}
}

func TestParseHeader(t *testing.T) {
	tests := []struct {
		name, dict string
		want       Header // zero DType: an error is wanted
	}{
		{"numpy", "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", Header{DType: nd.Float64, Shape: []int{3, 4}}},
		{"double-quotes-no-trailing-comma", `{"descr": ">i2", "shape": (7,), "fortran_order": True}`, Header{DType: nd.Int16, BigEndian: true, Fortran: true, Shape: []int{7}}},
		{"py2-long", "{'descr': '|u1', 'fortran_order': False, 'shape': (2L, 3L), }", Header{DType: nd.Uint8, Shape: []int{2, 3}}},
		{"0-d", "{'descr': '|b1', 'fortran_order': False, 'shape': (), }   \n", Header{DType: nd.Bool, Shape: []int{}}},
		{"missing-shape", "{'descr': '<f8', 'fortran_order': False}", Header{}},
		{"extra-key", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", Header{}},
		{"repeated-key", "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", Header{}},
		{"not-tuple", "{'descr': '<f8', 'fortran_order': False, 'shape': (1)}", Header{}},
		{"negative", "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", Header{}},
		{"overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}", Header{}},
		{"structured", "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,)}", Header{}},
		{"trailing", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x", Header{}},
		{"unterminated", "{'descr': '<f8", Header{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHeader(tt.dict)
			if tt.want.DType == nd.Invalid {
				if err == nil {
					t.Fatalf("no error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != tt.want.DType || got.BigEndian != tt.want.BigEndian || got.Fortran != tt.want.Fortran || nd.FormatShape(got.Shape) != nd.FormatShape(tt.want.Shape) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func FuzzParseHeader(f *testing.F) {
	f.Add("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }")
	f.Add("{'descr': '>c16', 'fortran_order': True, 'shape': (), }")
	f.Add(`{"descr": "|b1", "shape": (0,), "fortran_order": False}`)
	f.Add("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,)}")
	f.Fuzz(func(t *testing.T, dict string) {
		h, err := ParseHeader(dict)
		if err != nil {
			return
		}
		// Round trip: what parses formats back to the same header.
		h2, err := ParseHeader(formatHeader(h))
		if err != nil {
			t.Fatalf("formatted header %q does not parse: %v", formatHeader(h), err)
		}
		if h2.DType != h.DType || h2.BigEndian != h.BigEndian || h2.Fortran != h.Fortran || nd.FormatShape(h2.Shape) != nd.FormatShape(h.Shape) {
			t.Fatalf("round trip %+v -> %+v", h, h2)
		}
	})
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"float64_c.npy", "int16_1d.npy", "float64_v3.npy", "bool_f.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(badFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }"))
	f.Add(badFile("{'descr': '|u1', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// No input may make a read allocate much more than it holds,
		// whatever its header claims: from a reader of known length the
		// data is checked against the length first, and a stream is
		// read in pieces of 1 MiB that double only as data arrives.
		var a *nd.Array
		var err error
		grew := allocDuring(func() { a, err = Read(bytes.NewReader(b)) })
		if limit := uint64(4*len(b) + 1<<20); grew > limit {
			t.Fatalf("Read of %d bytes allocated %d (limit %d); err %v", len(b), grew, limit, err)
		}
		var sa *nd.Array
		var serr error
		grew = allocDuring(func() { sa, serr = Read(io.MultiReader(bytes.NewReader(b))) })
		if limit := uint64(4*len(b) + 2<<20); grew > limit {
			t.Fatalf("Read of a stream of %d bytes allocated %d (limit %d); err %v", len(b), grew, limit, serr)
		}
		if (err == nil) != (serr == nil) {
			t.Fatalf("Read from a bytes.Reader: %v; from a stream: %v", err, serr)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *npy.Error", err, err)
			}
			return
		}
		if msg := sameArray(sa, a); msg != "" {
			t.Fatalf("stream read differs: %s", msg)
		}
		var buf bytes.Buffer
		if err := Write(&buf, a, false); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameArray(back, a); msg != "" {
			t.Fatal(msg)
		}
	})
}

// python returns the path of a python3 with numpy, or skips the test.
func python(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("skipping interop with numpy: %s -c 'import numpy' failed (%v); install python3-numpy", py, err)
	}
	return py
}

// TestInteropNumpy writes every dtype with Go and has numpy check the
// values against its own formula, then has numpy write and Go read.
func TestInteropNumpy(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	for _, d := range nd.DTypes {
		for _, fortran := range []bool{false, true} {
			name := fmt.Sprintf("%s_%v.npy", d, fortran)
			if err := WriteFile(filepath.Join(dir, name), formula(t, d, 3, 2, 4), fortran); err != nil {
				t.Fatal(err)
			}
		}
	}
	gen, err := filepath.Abs(filepath.Join("testdata", "gen.py"))
	if err != nil {
		t.Fatal(err)
	}
	script := `
import sys, numpy as np
src = open(sys.argv[1]).read().split("\nfor d in DTYPES:")[0]
ns = {}
exec(src, ns)
bad = 0
for d in ns["DTYPES"]:
    for f in (False, True):
        a = np.load(f"{sys.argv[2]}/{d}_{str(f).lower()}.npy")
        want = ns["formula"](d, (3, 2, 4))
        if a.dtype != np.dtype(d) or a.shape != want.shape or not np.array_equal(a, want) or a.flags.f_contiguous != f:
            print("mismatch", d, f, a.dtype, a.shape, a.flags.f_contiguous); bad += 1
np.save(sys.argv[2] + "/from_numpy.npy", ns["formula"]("complex64", (2, 5)))
np.save(sys.argv[2] + "/from_numpy_f.npy", np.asfortranarray(ns["formula"]("uint16", (4, 3))))
sys.exit(1 if bad else 0)
`
	out, err := exec.Command(py, "-c", script, gen, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy check of Go's files failed: %v\n%s", err, out)
	}
	for _, c := range []struct {
		file  string
		want  *nd.Array
		order string
	}{
		{"from_numpy.npy", formula(t, nd.Complex64, 2, 5), "C"},
		{"from_numpy_f.npy", formula(t, nd.Uint16, 4, 3), "F"},
	} {
		got, err := ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		if msg := sameArray(got, c.want); msg != "" {
			t.Errorf("%s: %s", c.file, msg)
		}
	}
}

func benchmarkNPY(b *testing.B, write bool) {
	const n = 100 << 20 / 8
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	a, _ := nd.FromSlice(v)
	path := filepath.Join(b.TempDir(), "bench.npy")
	if err := WriteFile(path, a, false); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if write {
			err = WriteFile(path, a, false)
		} else {
			_, err = ReadFile(path)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(a.Nbytes())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

// BenchmarkReadFile100MB and BenchmarkWriteFile100MB read and write a
// 100 MB float64 file (in the page cache: this measures the library, not
// the disk).
func BenchmarkReadFile100MB(b *testing.B)  { benchmarkNPY(b, false) }
func BenchmarkWriteFile100MB(b *testing.B) { benchmarkNPY(b, true) }

// TestHugeShapeShortData checks that a header claiming far more data than
// the input holds fails without allocating it, from a file, a reader of
// known length and a plain stream.
func TestHugeShapeShortData(t *testing.T) {
	var buf bytes.Buffer
	buf.Write(encodeHeader(Header{DType: nd.Float64, Shape: []int{1 << 40}}))
	buf.WriteString("only a few bytes")
	data := buf.Bytes()
	path := filepath.Join(t.TempDir(), "huge.npy")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "data shorter") {
		t.Errorf("ReadFile: err = %v", err)
	}
	if _, err := Read(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "data shorter") {
		t.Errorf("Read(bytes.Reader): err = %v", err)
	}
	if _, err := Read(io.MultiReader(bytes.NewReader(data))); err == nil || !strings.Contains(err.Error(), "data shorter") {
		t.Errorf("Read(stream): err = %v", err)
	}
	// A large array of unknown length read in pieces still comes out whole.
	want := formula(t, nd.Int32, 5, 1<<22) // 80 MiB, over bigUnknown
	var big bytes.Buffer
	if err := Write(&big, want, false); err != nil {
		t.Fatal(err)
	}
	got, err := Read(io.MultiReader(&big))
	if err != nil {
		t.Fatal(err)
	}
	if msg := sameArray(got, want); msg != "" {
		t.Error(msg)
	}
}

// TestEncodeHeader checks that EncodeHeader's length is the data offset
// ReadHeader finds, and that a 1-d Fortran request is written as C order.
func TestEncodeHeader(t *testing.T) {
	for _, h := range []Header{
		{DType: nd.Float64, Shape: []int{3, 4}},
		{DType: nd.Uint8, Shape: []int{7}, Fortran: true},
		{DType: nd.Complex64, Shape: []int{2, 3, 4}, Fortran: true},
		{DType: nd.Bool, Shape: []int{}},
	} {
		b := EncodeHeader(h)
		got, err := ReadHeader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		wantF := h.Fortran && len(h.Shape) > 1
		if got.DataOffset != int64(len(b)) || got.DataOffset%64 != 0 || got.Fortran != wantF || got.DType != h.DType {
			t.Errorf("EncodeHeader(%+v) reads back as %+v (len %d)", h, got, len(b))
		}
	}
}
