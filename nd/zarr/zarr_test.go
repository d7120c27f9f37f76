package zarr

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// chunkSlices returns the slices that select chunk idx of a.
func chunkSlices(a *Array, idx []int) []nd.Slice1 {
	sl := make([]nd.Slice1, len(idx))
	for i, v := range idx {
		c := a.Chunks()[i]
		sl[i] = nd.Slice1{Start: v * c, Stop: min((v+1)*c, a.Shape()[i]), Step: 1}
	}
	return sl
}

// forEachChunk calls fn with every chunk index of a in C order.
func forEachChunk(a *Array, fn func(idx []int)) {
	n := a.NumChunks()
	for _, c := range n {
		if c == 0 {
			return
		}
	}
	idx := make([]int, len(n))
	for {
		fn(slices.Clone(idx))
		ax := len(n) - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < n[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// cbytes returns the C-order little-endian bytes of x.
func cbytes(x *nd.Array) []byte { return x.AppendBytes(nil, false) }

// checkChunks reads every chunk of a and compares it with the matching
// block of want, or with fill where the chunk file is missing (fill nil:
// no chunk may be missing). It returns the number of missing chunks.
func checkChunks(t *testing.T, a *Array, want *nd.Array, fill any) int {
	t.Helper()
	missing := 0
	forEachChunk(a, func(idx []int) {
		got, err := a.ReadChunk(idx)
		if err != nil {
			t.Fatalf("ReadChunk(%v): %v", idx, err)
		}
		w, err := want.Slice(chunkSlices(a, idx)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(a.ChunkPath(idx)); err != nil {
			if fill == nil {
				t.Fatalf("chunk %v: %v", idx, err)
			}
			missing++
			w, _ = nd.Full(a.DType(), fill, w.Shape()...)
		}
		if got.DType() != w.DType() || !slices.Equal(got.Shape(), w.Shape()) {
			t.Fatalf("chunk %v: %s %v, want %s %v", idx, got.DType(), got.Shape(), w.DType(), w.Shape())
		}
		if gb, wb := cbytes(got), cbytes(w); !bytes.Equal(gb, wb) {
			g, _ := got.AsType(nd.Complex128)
			ww, _ := w.AsType(nd.Complex128)
			gv, _ := nd.Values[complex128](g)
			wv, _ := nd.Values[complex128](ww)
			t.Fatalf("chunk %v:\ngot  %v\nwant %v", idx, gv, wv)
		}
	})
	return missing
}

func TestReadPythonFixtures(t *testing.T) {
	tests := []struct {
		store      string
		d          nd.DType
		shape      []int
		chunks     []int
		compressor string
		order      string
		fill       any // Fill() wanted; for partial stores also the missing chunks' value
		partial    bool
	}{
		{"float64_none", nd.Float64, []int{5, 7}, []int{2, 3}, "", "C", 0.0, false},
		{"int32_zlib", nd.Int32, []int{5, 7}, []int{2, 3}, "zlib", "C", int32(0), false},
		{"int16_gzip", nd.Int16, []int{5, 7}, []int{2, 3}, "gzip", "C", int16(0), false},
		{"float32_zstd", nd.Float32, []int{5, 7}, []int{2, 3}, "zstd", "C", float32(0), false},
		{"float64_blosc_lz4_shuffle", nd.Float64, []int{5, 7}, []int{2, 3}, "blosc", "C", 0.0, false},
		{"int32_blosc_lz4_noshuffle", nd.Int32, []int{5, 7}, []int{2, 3}, "blosc", "C", int32(0), false},
		{"float64_blosc_zstd_shuffle", nd.Float64, []int{5, 7}, []int{2, 3}, "blosc", "C", 0.0, false},
		{"int64_blosc_zlib_shuffle", nd.Int64, []int{5, 7}, []int{2, 3}, "blosc", "C", int64(0), false},
		{"uint16_blosc_zstd_noshuffle", nd.Uint16, []int{5, 7}, []int{2, 3}, "blosc", "C", uint16(0), false},
		{"uint16_F_zlib", nd.Uint16, []int{5, 7}, []int{2, 3}, "zlib", "F", uint16(0), false},
		{"float32_3d_F", nd.Float32, []int{4, 3, 5}, []int{3, 2, 2}, "", "F", float32(0), false},
		{"int64_slash", nd.Int64, []int{5, 7}, []int{2, 3}, "zstd", "C", int64(0), false},
		{"bool_none", nd.Bool, []int{5, 7}, []int{2, 3}, "", "C", false, false},
		{"uint8_none", nd.Uint8, []int{5, 7}, []int{5, 7}, "", "C", uint8(0), false},
		{"int8_gzip", nd.Int8, []int{5, 7}, []int{2, 3}, "gzip", "C", int8(0), false},
		{"uint64_none", nd.Uint64, []int{5, 7}, []int{2, 3}, "", "C", uint64(0), false},
		{"uint32_none", nd.Uint32, []int{5, 7}, []int{2, 3}, "", "C", uint32(0), false},
		{"complex64_none", nd.Complex64, []int{5, 7}, []int{2, 3}, "", "C", complex64(1 + 2i), false},
		{"complex128_zlib", nd.Complex128, []int{5, 7}, []int{2, 3}, "zlib", "C", complex128(0), false},
		{"float64_big", nd.Float64, []int{5, 7}, []int{2, 3}, "", "C", 0.0, false},
		{"int32_0d", nd.Int32, []int{}, []int{}, "", "C", int32(0), false},
		{"float64_empty_0x0", nd.Float64, []int{0, 0}, []int{1, 1}, "", "C", 0.0, false},
		{"int32_empty_0x5", nd.Int32, []int{0, 5}, []int{2, 2}, "zlib", "C", int32(0), false},
		{"partial_float64_fill", nd.Float64, []int{5, 7}, []int{2, 3}, "", "C", 42.5, true},
		{"partial_float32_nan", nd.Float32, []int{5, 7}, []int{2, 3}, "zstd", "C", float32(math.NaN()), true},
		{"partial_int16_F_fill", nd.Int16, []int{5, 7}, []int{2, 3}, "", "F", int16(-7), true},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			a, err := Open(filepath.Join("testdata", tt.store))
			if err != nil {
				t.Fatal(err)
			}
			m := a.Meta()
			if a.DType() != tt.d || !slices.Equal(a.Shape(), tt.shape) || !slices.Equal(a.Chunks(), tt.chunks) ||
				m.Compressor != tt.compressor || m.Order != tt.order || m.Version != 2 {
				t.Fatalf("meta %+v, want %s %v chunks %v compressor %q order %s", m, tt.d, tt.shape, tt.chunks, tt.compressor, tt.order)
			}
			if fmt.Sprint(a.Fill()) != fmt.Sprint(tt.fill) || fmt.Sprintf("%T", a.Fill()) != fmt.Sprintf("%T", tt.fill) {
				t.Errorf("Fill() = %T %v, want %T %v", a.Fill(), a.Fill(), tt.fill, tt.fill)
			}
			var fill any
			if tt.partial {
				fill = tt.fill
			}
			missing := checkChunks(t, a, formula(t, tt.d, tt.shape...), fill)
			if tt.partial && missing == 0 {
				t.Errorf("no chunk file is missing in a partial store")
			}
		})
	}
}

// TestRoundTrip writes arrays with Go and reads them back, for every
// format, compressor, order, separator and dtype.
func TestRoundTrip(t *testing.T) {
	type config struct {
		version    int
		compressor string
		order      string
		sep        string
		v2keys     bool
	}
	var configs []config
	for _, c := range []string{"", "zlib", "gzip", "zstd"} {
		for _, o := range []string{"C", "F"} {
			configs = append(configs, config{2, c, o, ".", false})
			if c != "zlib" {
				configs = append(configs, config{3, c, o, "", false})
			}
		}
	}
	configs = append(configs, config{2, "zstd", "C", "/", false}, config{3, "gzip", "F", ".", false}, config{3, "", "C", "", true})
	shapes := []struct{ shape, chunks []int }{
		{[]int{5, 7}, []int{2, 3}},
		{[]int{4, 3, 5}, []int{3, 2, 2}},
		{[]int{10}, []int{4}},
		{[]int{}, []int{}},
		{[]int{0, 3}, []int{2, 2}},
	}
	for _, cfg := range configs {
		for _, d := range []nd.DType{nd.Float64, nd.Int16, nd.Uint8, nd.Complex64, nd.Bool} {
			for _, sh := range shapes {
				name := fmt.Sprintf("v%d-%s-%s-%q-%v/%s/%s", cfg.version, cfg.compressor, cfg.order, cfg.sep, cfg.v2keys, d, nd.FormatShape(sh.shape))
				t.Run(name, func(t *testing.T) {
					dir := filepath.Join(t.TempDir(), "a.zarr")
					a, err := Create(dir, Meta{Shape: sh.shape, Chunks: sh.chunks, DType: d, Order: cfg.order,
						Compressor: cfg.compressor, Level: 1, Version: cfg.version, Separator: cfg.sep, V2Keys: cfg.v2keys})
					if err != nil {
						t.Fatal(err)
					}
					want := formula(t, d, sh.shape...)
					forEachChunk(a, func(idx []int) {
						blk, _ := want.Slice(chunkSlices(a, idx)...)
						if err := a.WriteChunk(idx, blk); err != nil {
							t.Fatal(err)
						}
					})
					b, err := Open(dir)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(b.Shape(), sh.shape) || b.DType() != d || b.Meta().Version != cfg.version || b.Meta().Compressor != cfg.compressor {
						t.Fatalf("reopened meta %+v", b.Meta())
					}
					checkChunks(t, b, want, nil)
				})
			}
		}
	}
}

func TestChunkPath(t *testing.T) {
	tests := []struct {
		name string
		meta Meta
		idx  []int
		want string
	}{
		{"v2-dot", Meta{Shape: []int{10, 10}, Chunks: []int{5, 5}}, []int{0, 1}, "0.1"},
		{"v2-slash", Meta{Shape: []int{10, 10}, Chunks: []int{5, 5}, Separator: "/"}, []int{1, 0}, "1/0"},
		{"v2-0d", Meta{}, []int{}, "0"},
		{"v3-default", Meta{Shape: []int{10, 10}, Chunks: []int{5, 5}, Version: 3}, []int{0, 1}, "c/0/1"},
		{"v3-default-dot", Meta{Shape: []int{10, 10}, Chunks: []int{5, 5}, Version: 3, Separator: "."}, []int{0, 1}, "c.0.1"},
		{"v3-0d", Meta{Version: 3}, []int{}, "c"},
		{"v3-v2keys", Meta{Shape: []int{10, 10}, Chunks: []int{5, 5}, Version: 3, V2Keys: true}, []int{1, 1}, "1.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.meta.DType = nd.Int8
			a, err := Create(dir, tt.meta)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := a.ChunkPath(tt.idx), filepath.Join(dir, filepath.FromSlash(tt.want)); got != want {
				t.Errorf("ChunkPath(%v) = %s, want %s", tt.idx, got, want)
			}
		})
	}
}

// TestWriteEdgePadding checks that an edge chunk is stored full-size,
// padded with the fill value, as zarr-python stores it.
func TestWriteEdgePadding(t *testing.T) {
	dir := t.TempDir()
	a, err := Create(dir, Meta{Shape: []int{3, 3}, Chunks: []int{2, 2}, DType: nd.Int16, Fill: 9})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := nd.FromSlice([]int16{1, 2}, 2, 1)
	if err := a.WriteChunk([]int{0, 1}, x); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(a.ChunkPath([]int{0, 1}))
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 0, 9, 0, 2, 0, 9, 0}; !bytes.Equal(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

func TestErrors(t *testing.T) {
	src := filepath.Join("testdata", "int32_zlib")
	tests := []struct {
		name  string
		setup func(dir string) // dir starts as a copy of src
		op    func(a *Array) error
		want  string // substring; the error must also name a file under dir
	}{
		{"missing-metadata", func(dir string) { os.Remove(filepath.Join(dir, ".zarray")) }, nil, "not a zarr array"},
		{"bad-json", func(dir string) {
			os.WriteFile(filepath.Join(dir, ".zarray"), []byte(`{"zarr_format": 2, "shape": [5,`), 0o644)
		}, nil, "bad JSON"},
		{"unsupported-dtype", func(dir string) { patchMeta(dir, `"<i4"`, `"<U5"`) }, nil, "unsupported dtype"},
		{"float16", func(dir string) { patchMeta(dir, `"<i4"`, `"<f2"`) }, nil, "unsupported dtype"},
		{"filters", func(dir string) { patchMeta(dir, `"filters": null`, `"filters": [{"id": "delta"}]`) }, nil, "filters"},
		{"compressor", func(dir string) { patchMeta(dir, `"id": "zlib"`, `"id": "lzma"`) }, nil, `compressor "lzma" is not supported`},
		{"order", func(dir string) { patchMeta(dir, `"order": "C"`, `"order": "K"`) }, nil, "order"},
		{"corrupt-chunk", func(dir string) { os.WriteFile(filepath.Join(dir, "0.0"), []byte("not zlib at all"), 0o644) },
			func(a *Array) error { _, err := a.ReadChunk([]int{0, 0}); return err }, "corrupt chunk"},
		{"truncated-chunk", func(dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, "1.1"))
			os.WriteFile(filepath.Join(dir, "1.1"), b[:len(b)-5], 0o644)
		}, func(a *Array) error { _, err := a.ReadChunk([]int{1, 1}); return err }, "corrupt chunk"},
		{"index-out-of-range", nil, func(a *Array) error { _, err := a.ReadChunk([]int{3, 0}); return err }, "out of range"},
		{"index-axes", nil, func(a *Array) error { _, err := a.ReadChunk([]int{0}); return err }, "has 1 axes"},
		{"write-dtype-mismatch", nil, func(a *Array) error {
			x, _ := nd.Zeros(nd.Float64, 2, 3)
			return a.WriteChunk([]int{0, 0}, x)
		}, "dtype mismatch: chunk is float64, the array int32"},
		{"write-shape-mismatch", nil, func(a *Array) error {
			x, _ := nd.Zeros(nd.Int32, 3, 3)
			return a.WriteChunk([]int{0, 0}, x)
		}, "shape mismatch"},
		{"write-out-of-range", nil, func(a *Array) error {
			x, _ := nd.Zeros(nd.Int32, 2, 3)
			return a.WriteChunk([]int{0, -1}, x)
		}, "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s.zarr")
			copyDir(t, src, dir)
			if tt.setup != nil {
				tt.setup(dir)
			}
			a, err := Open(dir)
			if tt.op != nil {
				if err != nil {
					t.Fatal(err)
				}
				err = tt.op(a)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *zarr.Error", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(e.Path, dir) {
				t.Errorf("err = %q, want it to contain %q and name a path in %s", err, tt.want, dir)
			}
		})
	}
}

func TestCreateErrors(t *testing.T) {
	tests := []struct {
		name string
		meta Meta
		want string
	}{
		{"blosc", Meta{Shape: []int{4}, Chunks: []int{2}, DType: nd.Int8, Compressor: "blosc"}, "writing blosc is not supported; use zstd or zlib"},
		{"lz4", Meta{Shape: []int{4}, Chunks: []int{2}, DType: nd.Int8, Compressor: "lz4"}, "not supported"},
		{"v3-zlib", Meta{Shape: []int{4}, Chunks: []int{2}, DType: nd.Int8, Compressor: "zlib", Version: 3}, "zlib is not a zarr v3 codec"},
		{"zero-chunk", Meta{Shape: []int{4}, Chunks: []int{0}, DType: nd.Int8}, "positive"},
		{"rank", Meta{Shape: []int{4, 4}, Chunks: []int{2}, DType: nd.Int8}, "differ in length"},
		{"dtype", Meta{Shape: []int{4}, Chunks: []int{2}}, "invalid dtype"},
		{"version", Meta{Shape: []int{4}, Chunks: []int{2}, DType: nd.Int8, Version: 4}, "version 4"},
		{"fill", Meta{Shape: []int{4}, Chunks: []int{2}, DType: nd.Int8, Fill: "x"}, "fill value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Create(t.TempDir(), tt.meta)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func patchMeta(dir, old, new string) {
	p := filepath.Join(dir, ".zarray")
	b, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestParseFill(t *testing.T) {
	tests := []struct {
		json string
		d    nd.DType
		want string // fmt %T:%v of the result, or "error"
	}{
		{`0`, nd.Float64, "float64:0"},
		{`"NaN"`, nd.Float32, "float32:NaN"},
		{`"Infinity"`, nd.Float64, "float64:+Inf"},
		{`"-Infinity"`, nd.Float64, "float64:-Inf"},
		{`"0x7fc00000"`, nd.Float32, "float32:NaN"},
		{`"0x3ff0000000000000"`, nd.Float64, "float64:1"},
		{`[1.5, "NaN"]`, nd.Complex128, "complex128:(1.5+NaNi)"},
		{`18446744073709551615`, nd.Uint64, "uint64:18446744073709551615"},
		{`-128`, nd.Int8, "int8:-128"},
		{`128`, nd.Int8, "error"},
		{`1.5`, nd.Int32, "error"},
		{`true`, nd.Bool, "bool:true"},
		{`"x"`, nd.Float64, "error"},
		{`null`, nd.Float64, "<nil>:<nil>"},
	}
	for _, tt := range tests {
		t.Run(tt.d.String()+tt.json, func(t *testing.T) {
			v, err := parseFill([]byte(tt.json), tt.d, true)
			got := fmt.Sprintf("%T:%v", v, v)
			if err != nil {
				got = "error"
			}
			if got != tt.want {
				t.Errorf("parseFill(%s, %s) = %s (%v), want %s", tt.json, tt.d, got, err, tt.want)
			}
		})
	}
}

func FuzzParseMetadataV2(f *testing.F) {
	for _, s := range []string{"float64_none", "uint16_F_zlib", "complex64_none", "partial_float32_nan", "int32_0d", "int64_slash", "float64_blosc_lz4_shuffle"} {
		b, err := os.ReadFile(filepath.Join("testdata", s, ".zarray"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, sc := range [][2]string{{"[9223372036854775807]", "[100]"}, {"[0, 4611686018427387904, 3]", "[1, 1, 1]"}, {"[65536, 65536]", "[32768, 8192]"}} {
		f.Add([]byte(`{"zarr_format": 2, "shape": ` + sc[0] + `, "chunks": ` + sc[1] + `, "dtype": "|u1", "compressor": null, "fill_value": 0, "order": "C", "filters": null}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, c, err := parseMetaV2(b)
		if err != nil {
			return
		}
		openBounded(t, m, c)
		if c.compressor == "blosc" || c.bigEndian {
			return // not writable as such
		}
		enc, err := encodeMetaV2(m)
		if err != nil {
			t.Fatalf("encode %+v: %v", m, err)
		}
		m2, c2, err := parseMetaV2(enc)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", enc, err)
		}
		if fmt.Sprintf("%+v %+v", m, c) != fmt.Sprintf("%+v %+v", m2, c2) {
			t.Fatalf("round trip:\n%+v %+v\n%+v %+v", m, c, m2, c2)
		}
	})
}

func FuzzParseMetadataV3(f *testing.F) {
	for _, cfg := range []Meta{
		{Shape: []int{5, 7}, Chunks: []int{2, 3}, DType: nd.Float64, Version: 3, Separator: "/"},
		{Shape: []int{5, 7}, Chunks: []int{2, 3}, DType: nd.Complex64, Fill: complex64(1 + 2i), Version: 3, Compressor: "zstd", Order: "F", Separator: "."},
		{Shape: []int{}, Chunks: []int{}, DType: nd.Bool, Fill: true, Version: 3, Compressor: "gzip", Separator: ".", V2Keys: true},
	} {
		c := codecChain{compressor: cfg.Compressor}
		if cfg.Order == "F" {
			c.perm = reversed(len(cfg.Shape))
		}
		b, err := encodeMetaV3(cfg, c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(v3TransposeJSON))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, c, err := parseMetaV3(b)
		if err != nil {
			return
		}
		openBounded(t, m, c)
		if c.compressor == "blosc" {
			return
		}
		enc, err := encodeMetaV3(m, c)
		if err != nil {
			t.Fatalf("encode %+v: %v", m, err)
		}
		m2, c2, err := parseMetaV3(enc)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", enc, err)
		}
		if fmt.Sprintf("%+v %+v", m, c) != fmt.Sprintf("%+v %+v", m2, c2) {
			t.Fatalf("round trip:\n%+v %+v\n%+v %+v", m, c, m2, c2)
		}
	})
}

// pythonZarr returns /usr/bin/python3 if it has zarr and numpy, or skips.
func pythonZarr(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if out, err := exec.Command(py, "-c", "import numpy, zarr").CombinedOutput(); err != nil {
		t.Skipf("skipping interop with zarr-python: %s -c 'import numpy, zarr' failed (%v: %s); install python3-zarr python3-numpy", py, err, bytes.TrimSpace(out))
	}
	return py
}

// TestInteropZarrPython has zarr-python read stores that Go wrote (and
// check them against gen.py's formula), then write stores that Go reads.
func TestInteropZarrPython(t *testing.T) {
	py := pythonZarr(t)
	dir := t.TempDir()
	type store struct {
		name, compressor, order, sep string
		d                            nd.DType
		shape, chunks                []int
	}
	stores := []store{
		{"none", "", "C", ".", nd.Float64, []int{5, 7}, []int{2, 3}},
		{"zlib", "zlib", "F", ".", nd.Int32, []int{5, 7}, []int{2, 3}},
		{"gzip", "gzip", "C", "/", nd.Uint16, []int{6, 4, 3}, []int{4, 3, 2}},
		{"zstd", "zstd", "C", ".", nd.Complex128, []int{9}, []int{4}},
		{"bool", "zstd", "F", ".", nd.Bool, []int{3, 5}, []int{2, 2}},
		{"empty", "", "C", ".", nd.Float64, []int{0, 0}, []int{1, 1}},
		{"empty3", "zlib", "C", ".", nd.Int32, []int{4, 0, 3}, []int{2, 2, 2}},
	}
	var names []string
	for _, s := range stores {
		a, err := Create(filepath.Join(dir, s.name), Meta{Shape: s.shape, Chunks: s.chunks, DType: s.d, Order: s.order, Compressor: s.compressor, Separator: s.sep, Fill: 3})
		if err != nil {
			t.Fatal(err)
		}
		want := formula(t, s.d, s.shape...)
		forEachChunk(a, func(idx []int) {
			blk, _ := want.Slice(chunkSlices(a, idx)...)
			if err := a.WriteChunk(idx, blk); err != nil {
				t.Fatal(err)
			}
		})
		names = append(names, fmt.Sprintf("(%q, %q)", s.name, s.d.String()))
	}
	gen, _ := filepath.Abs(filepath.Join("testdata", "gen.py"))
	script := `
import sys, numpy as np, zarr, numcodecs
src = open(sys.argv[1]).read().split("\ndef store(")[0]
ns = {}
exec(src, ns)
d = sys.argv[2]
bad = 0
for name, dt in [` + strings.Join(names, ", ") + `]:
    z = zarr.open(d + "/" + name, mode="r")
    want = ns["formula"](dt, z.shape)
    got = z[...]
    if got.dtype != np.dtype(dt) or not np.array_equal(got, want) or z.fill_value != np.dtype(dt).type(3):
        print("mismatch", name, got, want, z.fill_value); bad += 1
z = zarr.open(d + "/py", mode="w", shape=(7, 5), chunks=(3, 2), dtype="<i8", compressor=numcodecs.Zstd(level=2), order="F", fill_value=-1)
z[:6, :] = ns["formula"]("int64", (7, 5))[:6, :]
sys.exit(1 if bad else 0)
`
	out, err := exec.Command(py, "-c", script, gen, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("zarr-python check of Go's stores failed: %v\n%s", err, out)
	}
	a, err := Open(filepath.Join(dir, "py"))
	if err != nil {
		t.Fatal(err)
	}
	if checkChunks(t, a, formula(t, nd.Int64, 7, 5), int64(-1)) == 0 {
		t.Error("zarr-python wrote every chunk; want the last row missing")
	}
}

// v3TransposeJSON is a v3 array written by hand from the specification:
// a transpose codec with an explicit permutation, big-endian bytes, gzip,
// default chunk keys and a hex NaN fill value.
const v3TransposeJSON = `{
  "zarr_format": 3,
  "node_type": "array",
  "shape": [3, 4, 5],
  "data_type": "float32",
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 4, 3]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": "0x7fc00000",
  "codecs": [
    {"name": "transpose", "configuration": {"order": [2, 0, 1]}},
    {"name": "bytes", "configuration": {"endian": "big"}},
    {"name": "gzip", "configuration": {"level": 1}}
  ],
  "attributes": {"note": "hand-written"},
  "dimension_names": ["z", "y", "x"]
}`

// TestWriteBigEndianStore writes into a store zarr-python made with a
// big-endian dtype: chunks must stay big-endian, edge padding included.
func TestWriteBigEndianStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big.zarr")
	copyDir(t, filepath.Join("testdata", "float64_big"), dir)
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := formula(t, nd.Float64, 5, 7)
	neg, _ := nd.FromSlice([]float64{-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -15, -16, -17, -18, -19, -20, -21, -22, -23, -24, -25, -26, -27, -28, -29, -30, -31, -32, -33, -34, -35}, 5, 7)
	for _, idx := range [][]int{{0, 0}, {2, 2}} {
		blk, _ := neg.Slice(chunkSlices(a, idx)...)
		if err := a.WriteChunk(idx, blk); err != nil {
			t.Fatal(err)
		}
	}
	raw, _ := os.ReadFile(a.ChunkPath([]int{2, 2}))
	// Chunk (2, 2) holds -35 at its corner and the fill (0) elsewhere, big-endian.
	if len(raw) != 48 || raw[0] != 0xc0 || raw[8] != 0 {
		t.Fatalf("stored edge chunk % x", raw)
	}
	forEachChunk(a, func(idx []int) {
		got, err := a.ReadChunk(idx)
		if err != nil {
			t.Fatal(err)
		}
		src := want
		if slices.Equal(idx, []int{0, 0}) || slices.Equal(idx, []int{2, 2}) {
			src = neg
		}
		w, _ := src.Slice(chunkSlices(a, idx)...)
		if !bytes.Equal(cbytes(got), cbytes(w)) {
			t.Errorf("chunk %v differs after writing", idx)
		}
	})
}
