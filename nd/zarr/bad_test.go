package zarr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

	"github.com/tessera-go/tessera/nd"
)

// allocDuring returns the bytes the runtime handed out while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBadMetadataRefused opens stores whose metadata gives sizes that
// overflow or make no sense: each is an *Error naming the metadata file,
// and the failed Open allocates under 1 MiB.
func TestBadMetadataRefused(t *testing.T) {
	v2 := func(shape, chunks, dtype string) string {
		return `{"zarr_format": 2, "shape": ` + shape + `, "chunks": ` + chunks + `, "dtype": "` + dtype +
			`", "compressor": null, "fill_value": 0, "order": "C", "filters": null}`
	}
	v3 := func(shape, chunks, dtype string) string {
		return `{"zarr_format": 3, "node_type": "array", "shape": ` + shape + `, "data_type": "` + dtype +
			`", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": ` + chunks +
			`}}, "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`
	}
	axes65 := "[" + strings.Repeat("1, ", 64) + "1]"
	tests := []struct {
		name string
		v2   string // .zarray, or "" for zarr.json
		v3   string
		want string
	}{
		{"v2 elements overflow int", v2("[4611686018427387904, 4611686018427387904]", "[1, 1]", "<f8"), "", "too many elements"},
		{"v2 bytes overflow int64", v2("[4611686018427387904]", "[1]", "<f8"), "", "too large"},
		// No element, but a grid of 2^124 chunks.
		{"v2 empty with huge axes", v2("[0, 4611686018427387904, 4611686018427387904]", "[1, 1, 1]", "|u1"), "", "too large"},
		{"v2 zero chunk", v2("[10]", "[0]", "<f8"), "", "must be positive"},
		{"v2 negative chunk", v2("[10]", "[-2]", "<f8"), "", "must be positive"},
		{"v2 negative shape", v2("[-10]", "[2]", "<f8"), "", "negative dimension"},
		{"v2 chunk of 32 GiB", v2("[65536, 65536]", "[65536, 65536]", "<f8"), "", "a chunk exceeds"},
		{"v2 chunk elements overflow", v2("[4, 4]", "[4611686018427387904, 4611686018427387904]", "<f8"), "", "a chunk exceeds"},
		{"v2 65 axes", v2(axes65, axes65, "<f8"), "", "more than 64"},
		{"v2 shape and chunks differ", v2("[4, 4]", "[4]", "<f8"), "", "differ in length"},
		{"v3 bytes overflow int64", "", v3("[4611686018427387904]", "[1]", "float64"), "too large"},
		{"v3 empty with huge axes", "", v3("[0, 4611686018427387904, 4611686018427387904]", "[1, 1, 1]", "uint8"), "too large"},
		{"v3 zero chunk", "", v3("[10]", "[0]", "float64"), "must be positive"},
		{"v3 chunk of 32 GiB", "", v3("[65536, 65536]", "[65536, 65536]", "float64"), "a chunk exceeds"},
		{"v3 65 axes", "", v3(axes65, axes65, "float64"), "more than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ".zarray")
			text := tt.v2
			if text == "" {
				file, text = filepath.Join(dir, "zarr.json"), tt.v3
			}
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			grew := allocDuring(func() { _, err = Open(dir) })
			var ze *Error
			if !errors.As(err, &ze) {
				t.Fatalf("Open: %T %v, want an *Error", err, err)
			}
			if ze.Path != file {
				t.Errorf("error names %q, want the metadata file %q", ze.Path, file)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if grew > 1<<20 {
				t.Errorf("the failed Open allocated %d bytes", grew)
			}
		})
	}
}

// TestHugeGridNoOverflow opens a store of MaxInt64 one-byte elements in
// chunks of 100: the grid is ceil(MaxInt64/100) chunks, which (s+c-1)/c
// got negative. Its last chunk is missing and reads as the fill value.
func TestHugeGridNoOverflow(t *testing.T) {
	dir := t.TempDir()
	meta := `{"zarr_format": 2, "shape": [9223372036854775807], "chunks": [100], "dtype": "|u1", "compressor": null, "fill_value": 7, "order": "C", "filters": null}`
	if err := os.WriteFile(filepath.Join(dir, ".zarray"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// 9223372036854775807 = 100 * 92233720368547758 + 7.
	const want = 92233720368547759
	if got := a.NumChunks()[0]; got != want {
		t.Fatalf("NumChunks = %d, want %d", got, want)
	}
	c, err := a.ReadChunk([]int{want - 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := nd.FormatShape(c.Shape()); got != "(7,)" {
		t.Errorf("last chunk shape %s, want (7,)", got)
	}
}

// TestBadChunksRefused reads chunks that do not decode to the size the
// metadata gives, or whose files cannot be chunks of this array: each is
// an *Error naming the chunk file, and the failed read allocates under
// 256 KiB (the chunk is 48 bytes; the lies claim up to 2 GiB).
func TestBadChunksRefused(t *testing.T) {
	const chunkBytes = 2 * 3 * 8 // float64 chunks of (2, 3)
	zl := func(n int) []byte {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write(make([]byte, n))
		w.Close()
		return b.Bytes()
	}
	gz := func(n int) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(make([]byte, n))
		w.Close()
		return b.Bytes()
	}
	// bloscStored is a stored (memcpyed) blosc buffer of n zero bytes
	// whose header says nbytes.
	bloscStored := func(n, nbytes int) []byte {
		b := []byte{2, 1, 0x02 | 0x01, 8}
		b = binary.LittleEndian.AppendUint32(b, uint32(nbytes))
		b = binary.LittleEndian.AppendUint32(b, uint32(max(n, 1)))
		b = binary.LittleEndian.AppendUint32(b, uint32(n+16))
		return append(b, make([]byte, n)...)
	}
	tests := []struct {
		name       string
		compressor string // "" none; "blosc" uses a copy of a fixture store
		chunk      []byte
		want       string
	}{
		{"raw chunk too short", "", make([]byte, chunkBytes-1), "want 48"},
		{"raw chunk too long", "", make([]byte, 1<<20), "want 48"},
		{"zlib decodes to more", "zlib", zl(1 << 20), "more than 48"},
		{"zlib decodes to less", "zlib", zl(chunkBytes - 8), "decompressed to 40 bytes"},
		{"gzip decodes to more", "gzip", gz(1 << 20), "more than 48"},
		{"gzip decodes to less", "gzip", gz(8), "decompressed to 8 bytes"},
		{"zstd claims 2 GiB", "zstd", zstdBomb(2 << 30), "zstd"},
		{"zstd file of 1 MiB", "zstd", append(zstdBomb(48), make([]byte, 1<<20)...), "more than any zstd encoding"},
		{"blosc header claims 2 GiB", "blosc", bloscStored(chunkBytes, 1<<31-1), "blosc"},
		{"blosc header claims less", "blosc", bloscStored(chunkBytes, 40), "want nbytes+16"},
		{"blosc buffer of another size", "blosc", bloscStored(40, 40), "decompresses to 40 bytes, want 48"},
		{"blosc blocks hold less", "blosc", bloscStored(40, chunkBytes), "blosc"},
		{"blosc file of 1 MiB", "blosc", append(bloscStored(chunkBytes, chunkBytes), make([]byte, 1<<20)...), "more than any blosc encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a.zarr")
			if tt.compressor == "blosc" {
				src := filepath.Join("testdata", "float64_blosc_lz4_shuffle", ".zarray")
				b, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".zarray"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if _, err := Create(dir, Meta{Shape: []int{5, 7}, Chunks: []int{2, 3}, DType: nd.Float64, Compressor: tt.compressor}); err != nil {
				t.Fatal(err)
			}
			a, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			file := a.ChunkPath([]int{0, 0})
			if err := os.WriteFile(file, tt.chunk, 0o644); err != nil {
				t.Fatal(err)
			}
			grew := allocDuring(func() { _, err = a.ReadChunk([]int{0, 0}) })
			var ze *Error
			if !errors.As(err, &ze) {
				t.Fatalf("ReadChunk: %T %v, want an *Error", err, err)
			}
			if ze.Path != file {
				t.Errorf("error names %q, want the chunk file %q", ze.Path, file)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
			if grew > 256<<10 {
				t.Errorf("the failed read allocated %d bytes", grew)
			}
		})
	}
}

// TestZstdLargeWindowSmallChunk reads a valid zstd chunk whose frame
// declares a 512 MiB window (the decoder's limit) for 48 bytes: it decodes
// to its bytes without allocating the window.
func TestZstdLargeWindowSmallChunk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a.zarr")
	a, err := Create(dir, Meta{Shape: []int{6}, Chunks: []int{6}, DType: nd.Float64, Compressor: "zstd"})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 48)
	for i := range want {
		want[i] = byte(i)
	}
	// No content size; window descriptor 0x98: exponent 19, 2^29 bytes.
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x98}
	frame = append(frame, rawBlock(true, len(want))...)
	frame = append(frame, want...)
	if err := os.WriteFile(a.ChunkPath([]int{0}), frame, 0o644); err != nil {
		t.Fatal(err)
	}
	var c *nd.Array
	grew := allocDuring(func() { c, err = a.ReadChunk([]int{0}) })
	if err != nil {
		t.Fatal(err)
	}
	if got := c.AppendBytes(nil, false); !bytes.Equal(got, want) {
		t.Errorf("chunk bytes %v, want %v", got, want)
	}
	if grew > 1<<20 {
		t.Errorf("decoding allocated %d bytes", grew)
	}
}

// openBounded is what Open does after parsing metadata that parsed: the
// array is built, or refused with an *Error, and either way with little
// memory whatever the shape and chunks say (the metadata fuzz targets call
// it on every input that parses).
func openBounded(t *testing.T, m Meta, c codecChain) {
	t.Helper()
	var err error
	var a *Array
	grew := allocDuring(func() { a, err = newArray("fuzz", "fuzz/meta", m, c) })
	if err != nil {
		var ze *Error
		if !errors.As(err, &ze) || ze.Path != "fuzz/meta" {
			t.Fatalf("newArray(%+v): %T %v, want an *Error naming the metadata", m, err, err)
		}
	} else {
		for i, k := range a.NumChunks() {
			// ceil(s/c) in arbitrary precision: (s + c - 1) / c.
			s, c := big.NewInt(int64(m.Shape[i])), big.NewInt(int64(m.Chunks[i]))
			want := new(big.Int).Quo(new(big.Int).Add(s, new(big.Int).Sub(c, big.NewInt(1))), c)
			if !want.IsInt64() || want.Int64() != int64(k) {
				t.Fatalf("shape %v chunks %v: grid %v, want %v on axis %d", m.Shape, m.Chunks, a.NumChunks(), want, i)
			}
		}
	}
	if grew > 1<<20 {
		t.Fatalf("newArray(%+v) allocated %d bytes", m, grew)
	}
}

// fuzzCompressors are the compressors FuzzReadChunk reads chunks of.
var fuzzCompressors = []string{"", "zlib", "gzip", "zstd", "blosc"}

// FuzzReadChunk reads arbitrary bytes as a chunk of a (5, 7) float64 array
// in (2, 3) chunks, compressed by each codec: the read gives the chunk's
// shape or an *Error naming the chunk file, and allocates at most about
// twice the file plus the codec's state, whatever the bytes claim. The
// bytes, cut or padded to a chunk, are also written and read back through
// each codec that tessera writes: decode(encode(x)) == x.
func FuzzReadChunk(f *testing.F) {
	dir := f.TempDir()
	arrays := make([]*Array, len(fuzzCompressors))
	for i, comp := range fuzzCompressors {
		path := filepath.Join(dir, "c"+comp)
		if comp == "blosc" {
			b, err := os.ReadFile(filepath.Join("testdata", "float64_blosc_lz4_shuffle", ".zarray"))
			if err != nil {
				f.Fatal(err)
			}
			if err := os.MkdirAll(path, 0o755); err != nil {
				f.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(path, ".zarray"), b, 0o644); err != nil {
				f.Fatal(err)
			}
		} else if _, err := Create(path, Meta{Shape: []int{5, 7}, Chunks: []int{2, 3}, DType: nd.Float64, Compressor: comp}); err != nil {
			f.Fatal(err)
		}
		a, err := Open(path)
		if err != nil {
			f.Fatal(err)
		}
		arrays[i] = a
	}
	for i, comp := range fuzzCompressors {
		if comp == "blosc" {
			b, err := os.ReadFile(filepath.Join("testdata", "float64_blosc_lz4_shuffle", "0.0"))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), b)
			continue
		}
		x, err := nd.FromSlice([]float64{0, 1, 2, 3, 4, 5}, 2, 3)
		if err != nil {
			f.Fatal(err)
		}
		raw, err := compress(arrays[i].codec, x.AppendBytes(nil, false))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), raw)
	}
	f.Add(uint8(3), zstdBomb(2<<30))
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		i := int(which) % len(arrays)
		a := arrays[i]
		file := a.ChunkPath([]int{0, 0})
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var got *nd.Array
		var err error
		grew := allocDuring(func() { got, err = a.ReadChunk([]int{0, 0}) })
		if limit := uint64(2*len(data) + 256<<10); grew > limit {
			t.Fatalf("%s: reading a %d-byte chunk allocated %d (limit %d); err %v", fuzzCompressors[i], len(data), grew, limit, err)
		}
		if err != nil {
			var ze *Error
			if !errors.As(err, &ze) || ze.Path != file {
				t.Fatalf("%s: %T %v, want an *Error naming %s", fuzzCompressors[i], err, err, file)
			}
		} else if s := nd.FormatShape(got.Shape()); s != "(2, 3)" {
			t.Fatalf("%s: chunk shape %s, want (2, 3)", fuzzCompressors[i], s)
		}
		if fuzzCompressors[i] == "blosc" {
			return // tessera does not write blosc
		}
		raw := make([]byte, 48)
		copy(raw, data)
		x, err := nd.FromBytes(nd.Float64, []int{2, 3}, raw, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteChunk([]int{0, 0}, x); err != nil {
			t.Fatal(err)
		}
		back, err := a.ReadChunk([]int{0, 0})
		if err != nil {
			t.Fatalf("%s: reading back a chunk just written: %v", fuzzCompressors[i], err)
		}
		if !bytes.Equal(back.Contiguous().AppendBytes(nil, false), raw) {
			t.Fatalf("%s: decode(encode(x)) != x", fuzzCompressors[i])
		}
	})
}

// TestEndlessMetadata opens a store whose .zarray is a link to /dev/zero:
// an *Error naming the file after reading at most maxMetaBytes, not an
// endless read.
func TestEndlessMetadata(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	meta := filepath.Join(dir, ".zarray")
	if err := os.Symlink("/dev/zero", meta); err != nil {
		t.Skip(err)
	}
	_, err := Open(dir)
	var ze *Error
	if !errors.As(err, &ze) || ze.Path != meta || !strings.Contains(err.Error(), "over 16777216 bytes") {
		t.Fatalf("Open: %v, want an *Error naming %s that says the file is too long", err, meta)
	}
}
