package npy

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// allocDuring returns the bytes the runtime handed out while f ran:
// TotalAlloc counts every allocation, freed or not, so a read that
// allocated what a lying header claims shows here even if the GC ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// badFile is a .npy file of 200 bytes or so whose header says dict.
func badFile(dict string) []byte {
	h := []byte(magic + "\x01\x00")
	n := len(dict) + 1
	pad := (len(h)+2+n+63)/64*64 - (len(h) + 2 + n)
	dict += strings.Repeat(" ", pad) + "\n"
	h = append(h, byte(len(dict)), byte(len(dict)>>8))
	h = append(h, dict...)
	return append(h, make([]byte, 200-len(h)%200)...)
}

// TestBadFilesRefused reads crafted files whose headers lie about their
// size, through every entry point: each is an *Error naming the file (or,
// for a stream, an *Error), and the failed read allocates under 2 MiB
// whatever the header claims.
func TestBadFilesRefused(t *testing.T) {
	tests := []struct {
		name string
		dict string
		want string // in the error
	}{
		{"2^40 elements in 200 bytes", "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", "data shorter"},
		{"2^40 elements, Fortran", "{'descr': '<i4', 'fortran_order': True, 'shape': (1024, 1073741824), }", "data shorter"},
		{"bytes overflow int64", "{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", "too large"},
		{"elements overflow int", "{'descr': '|u1', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", "too many elements"},
		// No element, but numpy refuses it: the other axes' strides overflow.
		{"empty with huge axes", "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }", "too large"},
		// offset + nbytes overflows int64: a check that adds them wraps
		// negative and passes.
		{"offset plus data overflows", "{'descr': '|u1', 'fortran_order': False, 'shape': (9223372036854775800,), }", "data shorter"},
		{"65 axes", "{'descr': '|u1', 'fortran_order': False, 'shape': (" + strings.Repeat("1, ", 65) + "), }", "more than 64 dimensions"},
		{"dimension overflows int", "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999,), }", "dimension"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := badFile(tt.dict)
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".npy")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			entries := []struct {
				name string
				file bool
				read func() error
			}{
				{"ReadFile", true, func() error { _, err := ReadFile(path); return err }},
				{"OpenFile", true, func() error {
					f, err := OpenFile(path)
					if err == nil {
						f.Close()
					}
					return err
				}},
				{"Read(bytes.Reader)", false, func() error { _, err := Read(bytes.NewReader(data)); return err }},
				{"Read(stream)", false, func() error { _, err := Read(io.MultiReader(bytes.NewReader(data))); return err }},
			}
			for _, e := range entries {
				var err error
				grew := allocDuring(func() { err = e.read() })
				if err == nil {
					t.Fatalf("%s: no error", e.name)
				}
				var ne *Error
				if !errors.As(err, &ne) {
					t.Fatalf("%s: error %T %v is not an *npy.Error", e.name, err, err)
				}
				if e.file && ne.File != path {
					t.Errorf("%s: error names file %q, want %q", e.name, ne.File, path)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: error %q does not say %q", e.name, err, tt.want)
				}
				if grew > 2<<20 {
					t.Errorf("%s: the failed read allocated %d bytes", e.name, grew)
				}
			}
		})
	}
}

func TestExtent(t *testing.T) {
	tests := []struct {
		shape    []int
		itemsize int
		want     int64
		ok       bool
	}{
		{[]int{}, 8, 8, true},
		{[]int{3, 4}, 8, 96, true},
		{[]int{0, 5}, 4, 20, true},
		{[]int{1 << 31, 1 << 31}, 2, 0, false},
		{[]int{math.MaxInt64}, 1, math.MaxInt64, true},
		{[]int{1 << 30, 1 << 30}, 4, 1 << 62, true},
		{[]int{0, 1 << 62, 1 << 62}, 1, 0, false},
		{[]int{-1}, 1, 0, false},
	}
	for _, tt := range tests {
		got, ok := extent(tt.shape, tt.itemsize)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("extent(%v, %d) = %d, %v; want %d, %v", tt.shape, tt.itemsize, got, ok, tt.want, tt.ok)
		}
	}
}

// TestHeaderLengthLie reads files that declare a header longer than they
// are: a truncated-header *Error, without allocating the declared length
// (64 KiB in version 1.0, 1 MiB in 2.0) for a 10- or 12-byte file.
func TestHeaderLengthLie(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"v1 claims 65328 bytes", []byte("\x93NUMPY\x01\x000\xff")},
		{"v2 claims 1 MiB", []byte("\x93NUMPY\x02\x00\x00\x00\x10\x00")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".npy")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			grew := allocDuring(func() { _, err = ReadFile(path) })
			var ne *Error
			if !errors.As(err, &ne) || ne.File != path || !strings.Contains(err.Error(), "truncated header") {
				t.Fatalf("ReadFile: %v, want a truncated-header *Error naming %s", err, path)
			}
			if grew > 16<<10 {
				t.Errorf("the failed read allocated %d bytes", grew)
			}
		})
	}
}
