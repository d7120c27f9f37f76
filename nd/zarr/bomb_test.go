package zarr

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// zstdBomb is a valid zstd frame header that declares a content size of
// claim bytes, followed by one raw block of four bytes: a few bytes that
// a decoder trusting the header would answer with a claim-sized buffer.
func zstdBomb(claim uint64) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd} // magic, little-endian 0xFD2FB528
	// Frame header descriptor: 8-byte content size (bits 7-6 = 3), not
	// single segment, no checksum, no dictionary; then a window
	// descriptor of 1 KiB, so that the window is small and only the
	// content size is large (a single-segment frame's window is its
	// content size, which the decoder's window limit already refuses).
	b = append(b, 0xc0, 0x00)
	b = binary.LittleEndian.AppendUint64(b, claim)
	// Block header: last block, raw, 4 bytes: 1 | 0<<1 | 4<<3.
	b = append(b, 0x21, 0x00, 0x00)
	return append(b, 1, 2, 3, 4)
}

// rawBlock is a zstd block header (3 bytes, little-endian: last bit, block
// type 0 = raw, size) for a raw block of n bytes.
func rawBlock(last bool, n int) []byte {
	v := n << 3
	if last {
		v |= 1
	}
	return []byte{byte(v), byte(v >> 8), byte(v >> 16)}
}

// A zstd chunk whose header claims 15 GiB (for a 64-byte chunk) is an error
// naming the size, and decoding it allocates nothing near the claim:
// TotalAlloc, the bytes the runtime handed out, grows by under 1 MiB.
// The same for a frame that declares the right size but whose data runs
// on past it, and for a frame without a declared size.
func TestZstdDecodeCapped(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.zarr")
	a, err := Create(path, Meta{Shape: []int{8}, Chunks: []int{8}, DType: nd.Float64, Compressor: "zstd"})
	if err != nil {
		t.Fatal(err)
	}
	zeros, err := nd.Zeros(nd.Float64, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk([]int{0}, zeros); err != nil {
		t.Fatal(err)
	}
	chunk := filepath.Join(path, "0")
	if _, err := os.Stat(chunk); err != nil {
		t.Fatal(err)
	}
	// A 64-byte frame that says 64 bytes but carries 68 (two raw blocks).
	over := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 64}
	over = append(over, rawBlock(false, 64)...)
	over = append(over, make([]byte, 64)...)
	over = append(over, rawBlock(true, 4)...)
	over = append(over, 1, 2, 3, 4)
	// No content size (descriptor 0x00 needs a window descriptor byte).
	noFCS := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50}
	noFCS = append(noFCS, rawBlock(true, 200)...)
	noFCS = append(noFCS, make([]byte, 200)...)
	for _, tc := range []struct {
		name  string
		bytes []byte
	}{
		{"claims 15 GiB", zstdBomb(15 << 30)},
		{"claims 2^63", zstdBomb(1 << 63)},
		{"decodes past its size", over},
		{"no size, decodes past the chunk", noFCS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(chunk, tc.bytes, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = r.ReadChunk([]int{0})
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("ReadChunk: no error")
			}
			if testing.Verbose() {
				t.Log(err)
			}
			if !strings.Contains(err.Error(), "zstd") {
				t.Errorf("error %q does not name the codec", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
				t.Errorf("decoding allocated %d bytes", grew)
			}
		})
	}
}
