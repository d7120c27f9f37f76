package zarr

import (
	"bytes"
	"encoding/binary"
	"errors"
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
