package chunkarray

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

// TestFromNPYStackDask reads the stacks Dask wrote (testdata/npystack_dask,
// by gen_npystack_dask.py: pickle protocol 4, a zero-length block, a
// big-endian dtype) and compares them with the arrays numpy saved beside
// them, chunks included.
func TestFromNPYStackDask(t *testing.T) {
	dir := filepath.Join("testdata", "npystack_dask")
	b, err := os.ReadFile(filepath.Join(dir, "chunks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var chunks map[string][][]int
	if err := json.Unmarshal(b, &chunks); err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 7 {
		t.Fatalf("%d stacks", len(chunks))
	}
	for name, want := range chunks {
		t.Run(name, func(t *testing.T) {
			x := FromNPYStack(filepath.Join(dir, name))
			if err := x.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(x.Chunks(), want, slices.Equal[[]int]) {
				t.Errorf("chunks %v, want %v", x.Chunks(), want)
			}
			w, err := npy.ReadFile(filepath.Join(dir, name+".npy"))
			if err != nil {
				t.Fatal(err)
			}
			for _, sch := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
				got, err := x.Compute(context.Background(), WithScheduler(sch))
				if err != nil {
					t.Fatal(err)
				}
				if d := compareGolden(got, w); d != "" {
					t.Error(d)
				}
			}
		})
	}
}

// npyStackCases are arrays and chunkings for the round trips.
func npyStackCases(t *testing.T) []struct {
	name   string
	a      *Array
	axis   int
	chunks [][]int
} {
	f := make([]float64, 63)
	for i := range f {
		f[i] = float64(i)*0.5 - 7
	}
	m, _ := nd.FromSlice(f, 7, 9)
	c := make([]complex64, 20)
	for i := range c {
		c[i] = complex(float32(i), -float32(i)/3)
	}
	cm, _ := nd.FromSlice(c, 4, 5)
	u := make([]uint16, 24)
	for i := range u {
		u[i] = uint16(i * 2731)
	}
	um, _ := nd.FromSlice(u, 2, 3, 4)
	bl := []bool{true, false, false, true, true, false, true}
	bm, _ := nd.FromSlice(bl, 7)
	e, _ := nd.Zeros(nd.Int32, 0, 3)
	type tc = struct {
		name   string
		a      *Array
		axis   int
		chunks [][]int
	}
	return []tc{
		{"f64_ax0", FromNDArray(m, []int{3, 4}), 0, [][]int{{3, 3, 1}, {9}}},
		{"f64_ax1_neg", FromNDArray(m, []int{3, 4}), -1, [][]int{{7}, {4, 4, 1}}},
		{"c64_zero_chunks", FromNDArray(cm, [][]int{{2, 0, 2, 0}, {5}}), 0, [][]int{{2, 0, 2, 0}, {5}}},
		{"u16_3d_ax1", FromNDArray(um, []int{1, 2, 3}), 1, [][]int{{2}, {2, 1}, {4}}},
		{"bool_1d", FromNDArray(bm, 3), 0, [][]int{{3, 3, 1}}},
		{"empty", FromNDArray(e, []int{1, 2}), 1, [][]int{{0}, {2, 1}}},
		{"fused_expr", Sinc(FromNDArray(m, []int{2, 9}).Mul(0.1)), 0, [][]int{{2, 2, 2, 1}, {9}}},
	}
}

// TestNPYStackRoundTrip writes stacks with ToNPYStack and reads them back
// with FromNPYStack: the values, the dtype and the chunks along the axis.
func TestNPYStackRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, c := range npyStackCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.a.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, sch := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
				dir := filepath.Join(t.TempDir(), "stack") // created by ToNPYStack
				if err := ToNPYStack(ctx, dir, c.a, c.axis, WithScheduler(sch)); err != nil {
					t.Fatal(err)
				}
				x := FromNPYStack(dir)
				if err := x.Err(); err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(x.Chunks(), c.chunks, slices.Equal[[]int]) {
					t.Errorf("chunks %v, want %v", x.Chunks(), c.chunks)
				}
				got, err := x.Compute(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if d := compareGolden(got, want); d != "" {
					t.Error(d)
				}
				files, _ := os.ReadDir(dir)
				if len(files) != len(c.chunks[(c.axis+c.a.NDim())%c.a.NDim()])+1 {
					t.Errorf("%d files for %v", len(files), c.chunks)
				}
			}
		})
	}
}

// TestNPYStackDaskInterop: Dask reads the stacks written here (its
// from_npy_stack, then numpy's result saved and compared), and writes one
// that is read here; skipped without /usr/bin/python3 and dask.
func TestNPYStackDaskInterop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import dask.array").Run(); err != nil {
		t.Skipf("%s with dask is not available: %v", py, err)
	}
	ctx := context.Background()
	for _, c := range npyStackCases(t) {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := filepath.Join(tmp, "stack")
			if err := ToNPYStack(ctx, dir, c.a, c.axis); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(tmp, "out.npy")
			script := `import sys, json, numpy as np, dask.array as da
x = da.from_npy_stack(sys.argv[1])
np.save(sys.argv[2], x.compute())
print(json.dumps([[int(v) for v in c] for c in x.chunks], separators=(',', ':')), x.dtype.str)`
			msg, err := exec.Command(py, "-c", script, dir, out).CombinedOutput()
			if err != nil {
				t.Fatalf("dask: %v\n%s", err, msg)
			}
			fields := strings.Fields(string(msg))
			var chunks [][]int
			if len(fields) != 2 || json.Unmarshal([]byte(fields[0]), &chunks) != nil {
				t.Fatalf("dask printed %q", msg)
			}
			if !slices.EqualFunc(chunks, c.chunks, slices.Equal[[]int]) {
				t.Errorf("dask reads chunks %v, want %v", chunks, c.chunks)
			}
			if fields[1] != c.a.DType().Descr() {
				t.Errorf("dask reads dtype %s, want %s", fields[1], c.a.DType().Descr())
			}
			got, err := npy.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			want, err := c.a.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d := compareGolden(got, want); d != "" {
				t.Error(d)
			}
		})
	}
	// Dask writes with the newest pickle protocol, a list of chunks.
	tmp := t.TempDir()
	script := `import sys, pickle, numpy as np, dask.array as da
x = da.from_array(np.arange(30, dtype=np.int64).reshape(5, 6) * 3, chunks=(5, (1, 0, 5)))
da.to_npy_stack(sys.argv[1], x, axis=1)
with open(sys.argv[1] + "/info", "wb") as f:
    pickle.dump({"chunks": ((5,), (1, 0, 5)), "dtype": x.dtype, "axis": 1}, f, protocol=pickle.HIGHEST_PROTOCOL)`
	if msg, err := exec.Command(py, "-c", script, tmp).CombinedOutput(); err != nil {
		t.Fatalf("dask: %v\n%s", err, msg)
	}
	x := FromNPYStack(tmp)
	got, err := x.Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := nd.Values[int64](got)
	for i, g := range v {
		if g != int64(i*3) {
			t.Fatalf("element %d: %d", i, g)
		}
	}
	if !slices.EqualFunc(x.Chunks(), [][]int{{5}, {1, 0, 5}}, slices.Equal[[]int]) {
		t.Errorf("chunks %v", x.Chunks())
	}
}

// TestNPYStackErrors: bad stacks and bad calls are typed errors naming the
// operation or the file, never panics.
func TestNPYStackErrors(t *testing.T) {
	ctx := context.Background()
	good := filepath.Join("testdata", "npystack_dask", "f64_ax0")
	info, err := os.ReadFile(filepath.Join(good, "info"))
	if err != nil {
		t.Fatal(err)
	}
	var ce *Error
	// A missing folder or info file.
	if err := FromNPYStack(filepath.Join(t.TempDir(), "none")).Err(); !errors.As(err, &ce) {
		t.Errorf("missing folder: %v", err)
	}
	// Every truncation of a good pickle fails cleanly.
	for n := range len(info) - 1 {
		if _, err := decodeNPYStackInfo("info", info[:n]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", n)
		}
	}
	// A global other than numpy.dtype is refused, not called.
	evil := []byte("\x80\x02cos\nsystem\nX\x04\x00\x00\x00echoq\x00\x85R.")
	if _, err := decodeNPYStackInfo("info", evil); err == nil || !strings.Contains(err.Error(), "os.system") {
		t.Errorf("os.system: %v", err)
	}
	var pe *npy.Error
	if _, err := decodeNPYStackInfo("info", []byte("\x80\x02K\x01.")); !errors.As(err, &pe) || pe.File != "info" {
		t.Errorf("not a dict: %v", err)
	}
	// Info and files that disagree.
	bad := t.TempDir()
	for _, f := range []string{"0.npy", "1.npy", "2.npy"} {
		b, _ := os.ReadFile(filepath.Join(good, f))
		if err := os.WriteFile(filepath.Join(bad, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		info npyStackInfo
	}{
		{"shape", npyStackInfo{Chunks: [][]int{{3, 3, 2}, {9}}, DType: nd.Float64}},
		{"dtype", npyStackInfo{Chunks: [][]int{{3, 3, 1}, {9}}, DType: nd.Float32}},
		{"missing file", npyStackInfo{Chunks: [][]int{{3, 3, 1, 0}, {9}}, DType: nd.Float64}},
		{"axis", npyStackInfo{Chunks: [][]int{{3, 3, 1}, {9}}, DType: nd.Float64, Axis: 2}},
		{"split other axis", npyStackInfo{Chunks: [][]int{{3, 3, 1}, {4, 5}}, DType: nd.Float64}},
	} {
		if err := os.WriteFile(filepath.Join(bad, "info"), encodeNPYStackInfo(tc.info), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := FromNPYStack(bad).Err(); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// Bad calls.
	s, _ := nd.ScalarOf(1.5)
	if err := ToNPYStack(ctx, t.TempDir(), FromNDArray(s, 1), 0); !errors.As(err, &ce) {
		t.Errorf("0-d: %v", err)
	}
	m, _ := nd.Zeros(nd.Float64, 3, 4)
	if err := ToNPYStack(ctx, t.TempDir(), FromNDArray(m, 2), 2); err == nil {
		t.Error("axis 2 of a 2-d array: no error")
	}
	if err := ToNPYStack(ctx, t.TempDir(), nil, 0); !errors.As(err, &ce) {
		t.Errorf("nil: %v", err)
	}
	unk := FromNDArray(m, 2).Index(Mask(FromNDArray(m, 2).Greater(0).Index(All(), At(0))))
	if err := ToNPYStack(ctx, t.TempDir(), unk, 0); !errors.Is(err, ErrUnknownChunks) {
		t.Errorf("unknown chunks: %v", err)
	}
}

// TestNPYStackInfoRoundTrip: the pickle written here decodes to what was
// encoded, large and negative-free integers included.
func TestNPYStackInfoRoundTrip(t *testing.T) {
	for _, d := range []nd.DType{nd.Bool, nd.Int8, nd.Uint16, nd.Int64, nd.Float32, nd.Complex128} {
		in := npyStackInfo{Chunks: [][]int{{3}, {0, 255, 256, 65535, 65536, 1 << 31, 1 << 40}, {1}}, DType: d, Axis: 1}
		got, err := decodeNPYStackInfo("info", encodeNPYStackInfo(in))
		if err != nil {
			t.Fatal(err)
		}
		if got.DType != d || got.Axis != 1 || !slices.EqualFunc(got.Chunks, in.Chunks, slices.Equal[[]int]) {
			t.Errorf("%s: got %+v", d, got)
		}
	}
}

// TestNPYStackDaskGoldensCurrent checks that testdata/npystack_dask is
// what gen_npystack_dask.py writes now (byte for byte); skipped without
// /usr/bin/python3 and dask.
func TestNPYStackDaskGoldensCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs python")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import dask.array").Run(); err != nil {
		t.Skipf("%s with dask is not available: %v", py, err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(py, filepath.Join("testdata", "gen_npystack_dask.py"))
	cmd.Env = append(os.Environ(), "CONFORMANCE_OUT="+tmp)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	committed := filepath.Join("testdata", "npystack_dask")
	n := 0
	err := filepath.WalkDir(tmp, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(tmp, path)
		fresh, _ := os.ReadFile(path)
		old, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil || string(old) != string(fresh) {
			t.Errorf("%s/%s is not what gen_npystack_dask.py writes now (%v): regenerate", committed, rel, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m := 0
	_ = filepath.WalkDir(committed, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			m++
		}
		return nil
	})
	if n != m || n < 20 {
		t.Errorf("the script writes %d files, %s holds %d", n, committed, m)
	}
}
