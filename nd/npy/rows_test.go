package npy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
)

// rowsFixtures are numpy-written files (testdata/gen.py): Fortran order
// of 2 to 5 axes in every dtype, big-endian, an empty axis, and C order.
func rowsFixtures() []string {
	var files []string
	for _, d := range nd.DTypes {
		files = append(files, d.String()+"_4d_f.npy", d.String()+"_f.npy")
	}
	return append(files, "complex128_4d_fbig.npy", "uint16_5d_f.npy", "float32_empty_f.npy",
		"float32_3d_f.npy", "int32_3d_c.npy", "int16_1d.npy", "float64_big.npy", "float64_0d.npy")
}

// TestReadRowsInto reads every range of rows, for every number of leading
// axes, of each fixture, and compares it with the whole file read by
// ReadFile (nd.ReadRaw with Fortran strides: another code path), made C
// order, reshaped to rows and sliced. The chunk and gap sizes vary so
// that small files take every path: one matrix row per chunk, columns
// read one segment each (no gap read), and dense chunks.
func TestReadRowsInto(t *testing.T) {
	tunings := []struct {
		name       string
		chunk, gap int
	}{
		{"default", rowsChunkBytes, rowsGapBytes},
		{"row per chunk, no gaps", 1, 0},
		{"small chunks, small gaps", 64, 8},
		{"mapped", 0, 0}, // readRowsMapped, where the file can be mapped
	}
	for _, file := range rowsFixtures() {
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
			h := f.Header()
			shape := h.Shape
			for lead := 0; lead <= len(shape); lead++ {
				L, T := 1, 1
				for _, d := range shape[:lead] {
					L *= d
				}
				for _, d := range shape[lead:] {
					T *= d
				}
				flat, err := whole.Contiguous().Reshape(append([]int{L}, shape[lead:]...)...)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rowRanges(L) {
					start, count := r[0], r[1]
					{
						want, err := flat.Slice(nd.Slice1{Start: start, Stop: start + count, Step: 1})
						if err != nil {
							t.Fatal(err)
						}
						sh := append([]int{count}, shape[lead:]...)
						for _, tu := range tunings {
							dst := make([]byte, count*T*h.DType.Size())
							if tu.name == "mapped" {
								ok, err := f.readRowsMapped(dst, lead, start, count)
								if err != nil {
									t.Fatalf("lead %d rows [%d, %d) mapped: %v", lead, start, start+count, err)
								}
								applies := h.Fortran && len(shape) > 1 && lead >= 1 && lead < len(shape) && count > 0 && T > 0 && (count*mapMinFraction >= L || f.isMapped())
								if ok != (applies && canMap) {
									t.Fatalf("lead %d rows [%d, %d): mapped read used %v, want %v", lead, start, start+count, ok, applies && canMap)
								}
								if !ok {
									continue
								}
							} else if err := f.readRows(dst, lead, start, count, tu.chunk, tu.gap); err != nil {
								t.Fatalf("lead %d rows [%d, %d) %s: %v", lead, start, start+count, tu.name, err)
							}
							got, err := nd.FromBytes(h.DType, sh, dst, false, h.BigEndian)
							if err != nil {
								t.Fatal(err)
							}
							if msg := sameArray(got, want); msg != "" {
								t.Fatalf("lead %d rows [%d, %d) %s: %s", lead, start, start+count, tu.name, msg)
							}
						}
					}
				}
			}
		})
	}
}

// TestReadRowsIntoTiles reads files large enough for whole 8×8 tiles in
// both passes (the numpy fixtures are smaller than a tile along most
// axes), written in Fortran order by WriteFile, against ReadFile.
func TestReadRowsIntoTiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		d     nd.DType
		shape []int
	}{
		{nd.Uint16, []int{5, 9, 19, 21}},
		{nd.Float32, []int{11, 3, 17, 10}},
		{nd.Complex128, []int{3, 10, 9, 12}},
		{nd.Int8, []int{9, 8, 3, 16, 9}},
		{nd.Float64, []int{17, 24}},
	} {
		path := filepath.Join(dir, fmt.Sprintf("%s%v.npy", c.d, c.shape))
		if err := WriteFile(path, formula(t, c.d, c.shape...), true); err != nil {
			t.Fatal(err)
		}
		whole, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for lead := 0; lead <= len(c.shape); lead++ {
			L, T := 1, 1
			for _, d := range c.shape[:lead] {
				L *= d
			}
			for _, d := range c.shape[lead:] {
				T *= d
			}
			flat, err := whole.Contiguous().Reshape(append([]int{L}, c.shape[lead:]...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rowRanges(L) {
				want, _ := flat.Slice(nd.Slice1{Start: r[0], Stop: r[0] + r[1], Step: 1})
				for _, chunk := range []int{rowsChunkBytes, 100} {
					dst := make([]byte, r[1]*T*c.d.Size())
					if err := f.readRows(dst, lead, r[0], r[1], chunk, rowsGapBytes); err != nil {
						t.Fatal(err)
					}
					got, err := nd.FromBytes(c.d, append([]int{r[1]}, c.shape[lead:]...), dst, false, false)
					if err != nil {
						t.Fatal(err)
					}
					if msg := sameArray(got, want); msg != "" {
						t.Fatalf("%v lead %d rows %v chunk %d: %s", c.shape, lead, r, chunk, msg)
					}
				}
			}
		}
		f.Close()
	}
}

// rowRanges returns every range of rows of n rows when n is small, else
// ranges starting at the ends and inside, of lengths 0, 1, 2, odd, half
// and to the end.
func rowRanges(n int) [][2]int {
	var out [][2]int
	if n <= 24 {
		for s := 0; s <= n; s++ {
			for c := 0; s+c <= n; c++ {
				out = append(out, [2]int{s, c})
			}
		}
		return out
	}
	for _, s := range []int{0, 1, 7, n / 3, n/2 + 1, n - 2, n - 1, n} {
		for _, c := range []int{0, 1, 2, 13, n / 2, n - s} {
			if s+c <= n {
				out = append(out, [2]int{s, c})
			}
		}
	}
	return out
}

// TestReadRowsIntoMisaligned reads into byte slices that start at odd
// addresses: the typed scatter cannot view them and copies bytes.
func TestReadRowsIntoMisaligned(t *testing.T) {
	for _, file := range []string{"complex128_4d_fbig.npy", "uint16_4d_f.npy", "float64_4d_f.npy"} {
		f, err := OpenFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		h := f.Header()
		n := h.Shape[2] * h.Shape[3] * h.DType.Size()
		aligned := make([]byte, 4*n)
		odd := make([]byte, 4*n+1)[1:]
		if err := f.ReadRowsInto(aligned, 2, 3, 4); err != nil {
			t.Fatal(err)
		}
		if err := f.ReadRowsInto(odd, 2, 3, 4); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(aligned, odd) {
			t.Errorf("%s: misaligned destination read other bytes", file)
		}
		f.Close()
	}
}

func TestReadRowsIntoErrors(t *testing.T) {
	path := filepath.Join("testdata", "uint16_4d_f.npy")
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := 5 * 6 * 2
	for _, c := range []struct {
		lead, start, count, bytes int
		want                      string
	}{
		{-1, 0, 1, 3 * 4 * row, "leading axes"},
		{5, 0, 1, 2, "leading axes"},
		{2, -1, 1, row, "out of range"},
		{2, 0, 13, 13 * row, "out of range"},
		{2, 12, 1, row, "out of range"},
		{2, 0, 2, row, "want"},
	} {
		err := f.ReadRowsInto(make([]byte, c.bytes), c.lead, c.start, c.count)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadRowsInto(lead %d, %d, %d): err %v, want one naming %s and %q", c.lead, c.start, c.count, err, path, c.want)
		}
	}
}

// BenchmarkReadRowsInto reads a 20 MiB float32 array of shape
// (16, 20, 128, 128), the leading two axes as rows, from a C-order and a
// Fortran-order file, in windows of 320 rows (all), 160 and 40.
func BenchmarkReadRowsInto(b *testing.B) {
	shape := []int{16, 20, 128, 128}
	v := make([]float32, 16*20*128*128)
	for i := range v {
		v[i] = float32(i % 4093)
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		b.Fatal(err)
	}
	for _, fortran := range []bool{false, true} {
		path := filepath.Join(b.TempDir(), fmt.Sprintf("f%v.npy", fortran))
		if err := WriteFile(path, a, fortran); err != nil {
			b.Fatal(err)
		}
		f, err := OpenFile(path)
		if err != nil {
			b.Fatal(err)
		}
		for _, window := range []int{320, 160, 40} {
			b.Run(fmt.Sprintf("fortran=%v/window=%d", fortran, window), func(b *testing.B) {
				dst := make([]byte, window*128*128*4)
				b.SetBytes(int64(len(v) * 4))
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					for s := 0; s < 320; s += window {
						if err := f.ReadRowsInto(dst, 2, s, window); err != nil {
							b.Fatal(err)
						}
					}
				}
				// CPU time of the process per op: on a loaded machine the
				// wall time also counts the time the goroutine waited.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
		f.Close()
	}
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// canMap reports whether this system maps files (mmap_linux.go).
var canMap = runtime.GOOS == "linux"

// A Fortran-order file truncated by someone else after it was opened (and
// mapped) gives an error on the next read, not a crash of the process; so
// does a read after Close.
func TestReadRowsIntoMappedTruncated(t *testing.T) {
	if !canMap {
		t.Skip("no file mapping on " + runtime.GOOS)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "f.npy")
	vals := make([]float32, 32*32*64)
	for i := range vals {
		vals[i] = float32(i)
	}
	a, err := nd.FromSlice(vals, 32, 32, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, a, true); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 4*32*64*4)
	if err := f.ReadRowsInto(dst, 1, 4, 4); err != nil {
		t.Fatal(err)
	}
	want, _ := a.Slice(nd.Slice1{Start: 4, Stop: 8, Step: 1})
	got, err := nd.FromBytes(nd.Float32, []int{4, 32, 64}, dst, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if msg := sameArray(got, want); msg != "" {
		t.Fatal(msg)
	}
	if err := os.Truncate(path, 128); err != nil {
		t.Fatal(err)
	}
	err = f.ReadRowsInto(dst, 1, 4, 4)
	var e *Error
	if !errors.As(err, &e) || e.File != path {
		t.Fatalf("read of a truncated mapped file: %v, want *Error naming %s", err, path)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.ReadRowsInto(dst, 1, 4, 4); err == nil {
		t.Fatal("read after Close: no error")
	}
}
