package chunkarray

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/nd/zarr"
	"github.com/tessera-go/tessera/sched"
)

// TestRegionRuns checks the runs of a region against a second path: the
// offsets of the region's elements walked one by one with ForEachOffset.
func TestRegionRuns(t *testing.T) {
	tests := []struct {
		name                 string
		shape, start, shape2 []int
	}{
		{"0-d", []int{}, []int{}, []int{}},
		{"1-d middle", []int{10}, []int{3}, []int{4}},
		{"rows", []int{6, 5}, []int{2, 0}, []int{3, 5}},
		{"tile", []int{6, 5}, []int{2, 1}, []int{3, 2}},
		{"3-d whole trailing", []int{4, 3, 5}, []int{1, 0, 0}, []int{2, 3, 5}},
		{"3-d inner tile", []int{4, 3, 5}, []int{1, 1, 2}, []int{2, 2, 3}},
		{"3-d partial middle", []int{4, 3, 5}, []int{0, 1, 0}, []int{4, 1, 5}},
		{"empty", []int{4, 0}, []int{0, 0}, []int{4, 0}},
		{"whole", []int{2, 3}, []int{0, 0}, []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const es = 4
			var got []int64
			err := regionRuns(tt.shape, tt.start, tt.shape2, es, func(off, n int64) error {
				for b := off; b < off+n; b += es {
					got = append(got, b/es)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			str := nd.CStrides(tt.shape)
			base := 0
			for i, s := range tt.start {
				base += s * str[i]
			}
			empty := false
			for _, s := range tt.shape2 {
				empty = empty || s == 0
			}
			if !empty {
				nd.ForEachOffset(tt.shape2, str, base, func(off, n, step int) {
					for k := 0; k < n; k++ {
						want = append(want, int64(off+k*step))
					}
				})
			}
			if !slices.Equal(got, want) {
				t.Errorf("element offsets: got %v, want %v", got, want)
			}
		})
	}
}

// TestFromNPYFixtures reads numpy's files (C, Fortran, big-endian, 0-d,
// empty) block by block and compares with npy.ReadFile's whole read.
func TestFromNPYFixtures(t *testing.T) {
	files, _ := filepath.Glob("../nd/npy/testdata/*.npy")
	if len(files) == 0 {
		t.Fatal("no npy fixtures under ../nd/npy/testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := npy.ReadFile(f)
			if err != nil {
				t.Skipf("npy.ReadFile: %v (a fixture for error tests)", err)
			}
			for _, chunks := range []any{nil, 1, 2, 3} {
				got, err := FromNPY(f, chunks).Compute(context.Background(), WithScheduler(sched.Sync{}))
				if err != nil {
					t.Fatalf("chunks %v: %v", chunks, err)
				}
				if d := diff(want, got, 0); d != "" {
					t.Fatalf("chunks %v: %s", chunks, d)
				}
			}
		})
	}
}

func testArray(t *testing.T, d nd.DType, shape ...int) *nd.Array {
	t.Helper()
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64((i*7919)%201) - 100
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(d); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestNPYRoundTrip writes arrays block by block with ToNPY, reads them
// back whole with package npy and block by block with FromNPY.
func TestNPYRoundTrip(t *testing.T) {
	tests := []struct {
		name           string
		d              nd.DType
		shape          []int
		wchunk, rchunk any
	}{
		{"f64 tiles", nd.Float64, []int{13, 7}, []int{4, 3}, []int{5, 2}},
		{"i32 rows", nd.Int32, []int{10, 6}, []int{3, -1}, 4},
		{"u8 3d", nd.Uint8, []int{5, 4, 3}, 2, []int{1, 4, 3}},
		{"bool", nd.Bool, []int{9}, 4, 2},
		{"c128", nd.Complex128, []int{4, 4}, 3, 2},
		{"0-d", nd.Float32, []int{}, nil, nil},
		{"empty", nd.Int64, []int{0, 3}, 2, 2},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := testArray(t, tt.d, tt.shape...)
			path := filepath.Join(dir, strconv.Itoa(i)+".npy")
			for _, s := range schedulers {
				if err := FromNDArray(want, tt.wchunk).ToNPY(context.Background(), path, WithScheduler(s.s)); err != nil {
					t.Fatalf("%s: ToNPY: %v", s.name, err)
				}
				got, err := npy.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if d := diff(want, got, 0); d != "" {
					t.Fatalf("%s: npy.ReadFile after ToNPY: %s", s.name, d)
				}
				back, err := FromNPY(path, tt.rchunk).Compute(context.Background(), WithScheduler(s.s))
				if err != nil {
					t.Fatal(err)
				}
				if d := diff(want, back, 0); d != "" {
					t.Fatalf("%s: FromNPY: %s", s.name, d)
				}
			}
			// The same bytes as npy.Write (numpy's np.save layout).
			var whole strings.Builder
			if err := npy.Write(&whole, want, false); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != whole.String() {
				t.Errorf("ToNPY file differs from npy.Write's bytes (%d vs %d bytes)", len(b), whole.Len())
			}
		})
	}
}

// TestZarrRoundTrip writes with ToZarr (aligned and unaligned chunks,
// compressors, v2 and v3) and reads back chunk by chunk with package zarr
// and with FromZarr.
func TestZarrRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		d     nd.DType
		shape []int
		chunk any
		zo    ZarrOptions
	}{
		{"aligned default", nd.Float64, []int{10, 7}, []int{4, 3}, ZarrOptions{}},
		{"blocks of two store chunks", nd.Int32, []int{12, 6}, []int{6, 6}, ZarrOptions{Chunks: []int{3, 2}}},
		{"unaligned rechunked", nd.Int16, []int{11, 5}, []int{4, 5}, ZarrOptions{Chunks: []int{3, 2}, Compressor: "zlib"}},
		{"irregular", nd.Float32, []int{9}, [][]int{{2, 5, 2}}, ZarrOptions{Compressor: "zstd"}},
		{"v3 gzip F", nd.Uint16, []int{5, 6}, 4, ZarrOptions{Version: 3, Compressor: "gzip", Order: "F"}},
		{"bool", nd.Bool, []int{7, 3}, 2, ZarrOptions{}},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := testArray(t, tt.d, tt.shape...)
			path := filepath.Join(dir, strconv.Itoa(i)+".zarr")
			if err := FromNDArray(want, tt.chunk).ToZarr(context.Background(), path, tt.zo, WithScheduler(sched.Threaded{Workers: 3})); err != nil {
				t.Fatalf("ToZarr: %v", err)
			}
			z, err := zarr.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			whole, err := nd.Zeros(tt.d, tt.shape...)
			if err != nil {
				t.Fatal(err)
			}
			var rerr error
			forBlocks(z.NumChunks(), func(idx []int) {
				c, err := z.ReadChunk(idx)
				if err != nil {
					rerr = err
					return
				}
				sl := make([]nd.Slice1, len(idx))
				for ax, x := range idx {
					cs := z.Chunks()[ax]
					sl[ax] = nd.Slice1{Start: x * cs, Stop: x*cs + c.Shape()[ax], Step: 1}
				}
				if err := copyRegion(whole, sl, c); err != nil {
					rerr = err
				}
			})
			if rerr != nil {
				t.Fatal(rerr)
			}
			if d := diff(want, whole, 0); d != "" {
				t.Fatalf("zarr.ReadChunk after ToZarr: %s", d)
			}
			in := FromZarr(path)
			if !slices.Equal(in.chunkSize(), z.Chunks()) {
				t.Errorf("FromZarr chunks %v, want the store's %v", in.Chunks(), z.Chunks())
			}
			back := computeAll(t, in)
			if d := diff(want, back, 0); d != "" {
				t.Fatalf("FromZarr: %s", d)
			}
		})
	}
}

// TestStoreND stores into an in-memory array: a second code path for
// Store, against Compute.
func TestStoreND(t *testing.T) {
	a := Random(3).Uniform(0, 1, []int{17, 9}, []int{5, 4}).Mul(2).Add(1)
	want, err := a.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range schedulers {
		dst, _ := nd.Zeros(nd.Float64, 17, 9)
		if err := a.Store(context.Background(), NDTarget(dst), WithScheduler(s.s)); err != nil {
			t.Fatal(err)
		}
		if d := diff(want, dst, 0); d != "" {
			t.Fatalf("%s: %s", s.name, d)
		}
	}
	bad, _ := nd.Zeros(nd.Float64, 3, 3)
	if err := a.Store(context.Background(), NDTarget(bad)); err == nil {
		t.Error("store into a smaller target: no error")
	}
}

func TestIOErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.npy")
	os.WriteFile(bad, []byte("\x93NUMPY\x01\x00garbage"), 0o644)
	trunc := filepath.Join(dir, "trunc.npy")
	a := testArray(t, nd.Float64, 4, 4)
	if err := npy.WriteFile(trunc, a, false); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(trunc)
	os.WriteFile(trunc, b[:len(b)-8], 0o644)
	tests := []struct {
		name string
		a    *Array
		want string
	}{
		{"missing npy", FromNPY(filepath.Join(dir, "nope.npy"), nil), "nope.npy"},
		{"bad header", FromNPY(bad, nil), "bad.npy"},
		{"truncated npy", FromNPY(trunc, 2), "trunc.npy"},
		{"missing zarr", FromZarr(filepath.Join(dir, "nope.zarr")), "nope.zarr"},
		{"bad chunks", FromNPY("../nd/npy/testdata/float64_c.npy", "big"), "chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.a.Err() == nil {
				t.Fatal("no sticky error")
			}
			if _, err := tt.a.Compute(context.Background()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
	// A chunk file damaged after FromZarr: the task's error names it.
	zp := filepath.Join(dir, "d.zarr")
	if err := FromNDArray(a, 2).ToZarr(context.Background(), zp, ZarrOptions{}); err != nil {
		t.Fatal(err)
	}
	in := FromZarr(zp)
	os.WriteFile(filepath.Join(zp, "1.0"), []byte{1, 2, 3}, 0o644)
	_, err := in.Sum().Compute(context.Background())
	var ze *zarr.Error
	if !errors.As(err, &ze) || !strings.Contains(err.Error(), filepath.Join(zp, "1.0")) {
		t.Errorf("damaged chunk: error %v, want a *zarr.Error naming the chunk file", err)
	}
	if err := FromNDArray(a, 2).ToZarr(context.Background(), filepath.Join(dir, "e.zarr"), ZarrOptions{Chunks: []int{2}}); err == nil {
		t.Error("ToZarr with chunks of the wrong rank: no error")
	}
}

// liveBytes tracks the bytes of the *nd.Array values a computation holds
// (computed and not yet released), and their maximum.
type liveBytes struct {
	mu        sync.Mutex
	held      map[graph.Key]int
	cur, peak int
}

func (l *liveBytes) callbacks() *sched.Callbacks {
	l.held = map[graph.Key]int{}
	return &sched.Callbacks{
		Posttask: func(k graph.Key, v any, err error, _ int) {
			a, ok := v.(*nd.Array)
			if !ok || err != nil {
				return
			}
			l.mu.Lock()
			l.held[k] = a.Nbytes()
			l.cur += a.Nbytes()
			l.peak = max(l.peak, l.cur)
			l.mu.Unlock()
		},
		Release: func(k graph.Key) {
			l.mu.Lock()
			l.cur -= l.held[k]
			delete(l.held, k)
			l.mu.Unlock()
		},
	}
}

// TestFromZarrStreams checks that FromZarr → Sum holds a few chunks at a
// time, not the store: 64 chunks, at most 2 per worker plus partials.
func TestFromZarrStreams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.zarr")
	const n, c = 256, 32 // 8×8 chunks of 8 KiB (int64)
	src := Random(1).Integers(0, 100, []int{n, n}, c)
	if err := src.ToZarr(context.Background(), path, ZarrOptions{}); err != nil {
		t.Fatal(err)
	}
	want, err := src.Sum().Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	chunkBytes := c * c * 8
	for _, s := range schedulers {
		for _, opt := range []bool{true, false} {
			var lb liveBytes
			got, err := FromZarr(path).Sum().Compute(context.Background(), WithScheduler(s.s), WithOptimize(opt), WithCallbacks(lb.callbacks()))
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(want, got, 0); d != "" {
				t.Fatalf("%s optimize=%v: %s", s.name, opt, d)
			}
			workers := 1
			if th, ok := s.s.(sched.Threaded); ok {
				workers = th.Workers
			}
			if limit := 2 * workers * chunkBytes; lb.peak > limit {
				t.Errorf("%s optimize=%v: peak %d bytes held, want at most %d (%d chunks of %d)", s.name, opt, lb.peak, limit, 2*workers, chunkBytes)
			}
			t.Logf("%s optimize=%v: peak %d bytes = %.1f chunks", s.name, opt, lb.peak, float64(lb.peak)/float64(chunkBytes))
		}
	}
}

// python runs code with Debian's /usr/bin/python3, skipping the test when
// numpy (and zarr, if needed) cannot be imported.
func python(t *testing.T, needZarr bool, code string, args ...string) string {
	t.Helper()
	imp := "import numpy"
	if needZarr {
		imp += ", zarr"
	}
	if err := exec.Command("/usr/bin/python3", "-c", imp).Run(); err != nil {
		t.Skipf("/usr/bin/python3 cannot %q (apt install python3-numpy python3-zarr): %v", imp, err)
	}
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", code}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestPythonReadsGo: files written by ToNPY and ToZarr, read by numpy and
// zarr-python, which print the dtype, shape and exact sum of each.
func TestPythonReadsGo(t *testing.T) {
	dir := t.TempDir()
	a := Random(5).Integers(-50, 50, []int{37, 23}, []int{10, 6}).AsType(nd.Int32)
	want, err := a.Sum().Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wv, _ := want.At()
	if err := a.ToNPY(context.Background(), filepath.Join(dir, "a.npy")); err != nil {
		t.Fatal(err)
	}
	if err := a.ToZarr(context.Background(), filepath.Join(dir, "a.zarr"), ZarrOptions{Compressor: "zlib"}); err != nil {
		t.Fatal(err)
	}
	got := python(t, true, `
import sys, numpy, zarr
d = sys.argv[1]
x = numpy.load(d + "/a.npy")
z = zarr.open(d + "/a.zarr", mode="r")
print(x.dtype, x.shape, int(x.sum()), z.dtype, z.shape, z.chunks, int(z[:].astype("int64").sum()), bool((z[:] == x).all()))
`, dir)
	wantLine := "int32 (37, 23) " + strconv.FormatInt(wv.(int64), 10) + " int32 (37, 23) (10, 6) " + strconv.FormatInt(wv.(int64), 10) + " True"
	if got != wantLine {
		t.Errorf("python read:\n got %s\nwant %s", got, wantLine)
	}
}

// TestGoReadsPython: numpy and zarr-python write (an npy file, a zarr
// store with zarr's default blosc compressor and one uncompressed), Go
// reads them and compares with the values python prints.
func TestGoReadsPython(t *testing.T) {
	dir := t.TempDir()
	out := python(t, true, `
import sys, numpy, zarr
d = sys.argv[1]
x = (numpy.arange(30 * 17, dtype="float64").reshape(30, 17) * 0.5 - 3)
numpy.save(d + "/p.npy", x)
zarr.save_array(d + "/blosc.zarr", x.astype("int16"), chunks=(8, 5))
z = zarr.open(d + "/raw.zarr", mode="w", shape=x.shape, chunks=(7, 17), dtype="<f4", compressor=None)
z[:] = x
print(repr(float(x.sum())), int(x.astype("int16").sum()), repr(float(x.astype("float32").sum(dtype="float64"))))
`, dir)
	f := strings.Fields(out)
	if len(f) != 3 {
		t.Fatalf("python printed %q", out)
	}
	check := func(name string, a *Array, want string) {
		t.Helper()
		s, err := a.AsType(nd.Float64).Sum().Compute(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		v, _ := s.At()
		w, _ := strconv.ParseFloat(want, 64)
		if v.(float64) != w {
			t.Errorf("%s: sum %v, python says %v", name, v, w)
		}
	}
	check("p.npy", FromNPY(filepath.Join(dir, "p.npy"), []int{7, 4}), f[0])
	check("blosc.zarr", FromZarr(filepath.Join(dir, "blosc.zarr")), f[1])
	check("raw.zarr", FromZarr(filepath.Join(dir, "raw.zarr")), f[2])
}

// TestFromZarrChunks reads a store written from parity's numpy input
// f64a (7×9×5, stored in 3×4×5 chunks) with a chunks option: the values
// are numpy's, the chunks the spec's, a map's missing axes keep the
// stored chunks; two specs are an error.
func TestFromZarrChunks(t *testing.T) {
	want, err := npy.ReadFile(filepath.Join(parityDir, "in_f64a.npy"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "a.zarr")
	if err := FromNDArray(want, []int{3, 4, 5}).ToZarr(context.Background(), path, ZarrOptions{Chunks: []int{3, 4, 5}}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		spec   any
		chunks [][]int
	}{
		{map[int]any{0: -1}, [][]int{{7}, {4, 4, 1}, {5}}},
		{map[int]any{1: 2, 2: "auto"}, [][]int{{3, 3, 1}, {2, 2, 2, 2, 1}, {5}}},
		{[]int{6, 9, 2}, [][]int{{6, 1}, {9}, {2, 2, 1}}},
		{"auto", [][]int{{7}, {9}, {5}}},
	} {
		a := FromZarr(path, tt.spec)
		if err := a.Err(); err != nil {
			t.Fatalf("FromZarr(%v): %v", tt.spec, err)
		}
		if !slices.EqualFunc(a.Chunks(), tt.chunks, slices.Equal) {
			t.Errorf("FromZarr(%v) chunks %v, want %v", tt.spec, a.Chunks(), tt.chunks)
		}
		if d := diff(want, computeAll(t, a), 0); d != "" {
			t.Errorf("FromZarr(%v): %s", tt.spec, d)
		}
	}
	if err := FromZarr(path, 2, 3).Err(); err == nil || !strings.Contains(err.Error(), "2 chunk specs") {
		t.Errorf("two specs: %v", err)
	}
	if err := FromZarr(path, map[int]any{5: 1}).Err(); err == nil || !strings.Contains(err.Error(), "axis 5 is out of bounds") {
		t.Errorf("bad axis: %v", err)
	}
}

// TestFromNPYFortranThinBlocks reads a Fortran-order file in blocks thin
// along axis 0 (runs of a few elements a few elements apart, which the
// reader merges into larger reads) and in blocks cut along every axis,
// against npy.ReadFile's whole read.
func TestFromNPYFortranThinBlocks(t *testing.T) {
	for _, c := range []struct {
		d     nd.DType
		shape []int
	}{
		{nd.Float32, []int{6, 50, 40}},
		{nd.Uint16, []int{9, 5, 7, 11}},
		{nd.Complex128, []int{4, 300, 3}},
	} {
		path := filepath.Join(t.TempDir(), "f.npy")
		if err := npy.WriteFile(path, testArray(t, c.d, c.shape...), true); err != nil {
			t.Fatal(err)
		}
		want, err := npy.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		thin := append([]int{1}, c.shape[1:]...)
		cut := make([]int, len(c.shape))
		for i, s := range c.shape {
			cut[i] = max(1, s/3)
		}
		for _, chunks := range [][]int{thin, cut} {
			got, err := FromNPY(path, chunks).Compute(context.Background(), WithScheduler(sched.Sync{}))
			if err != nil {
				t.Fatalf("%v chunks %v: %v", c.shape, chunks, err)
			}
			if d := diff(want, got, 0); d != "" {
				t.Fatalf("%v chunks %v: %s", c.shape, chunks, d)
			}
		}
	}
}
