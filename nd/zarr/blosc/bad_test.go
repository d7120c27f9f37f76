package blosc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// allocDuring returns the bytes the runtime handed out while f ran.
func allocDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLyingHeadersBounded decodes buffers whose headers lie about their
// sizes. Each decodes to the bytes its blocks hold or fails with an *Error
// (ErrCorrupt), and neither allocates more than the output plus 64 KiB:
// nothing is sized by what the header claims beyond what ReadInfo bounds.
func TestLyingHeadersBounded(t *testing.T) {
	data := payload(4, 1000)
	// One unsplit block of 1000 bytes, shuffled: decoding it needs a
	// scratch block.
	good := encodeBlosc(data, 4, 1000, true, false)
	mod := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	tests := []struct {
		name string
		src  []byte
		want []byte // nil: an error is expected
		part string // in the error
	}{
		// c-blosc never writes a blocksize over nbytes; the scratch block
		// was sized by it, so these few bytes allocated 600 MiB.
		{"blocksize 600 MiB for 1000 bytes", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 600<<20) }), data, ""},
		{"nbytes larger than the blocks", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 2000) }), nil, "block 0 starts at"},
		{"nbytes smaller than the blocks", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 900) }), nil, "block 0"},
		{"nbytes 512 MiB from a kilobyte", mod(func(b []byte) {
			binary.LittleEndian.PutUint32(b[4:], 1<<29)
			binary.LittleEndian.PutUint32(b[8:], 1<<29)
		}), nil, "cannot come from"},
		{"nbytes 1 GiB in many blocks", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 1<<30) }), nil, "do not fit"},
		{"cbytes beyond the buffer", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[12:], 1<<30) }), nil, "truncated"},
		{"negative block offset", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 0xfffffff0) }), nil, "block 0 starts at"},
		{"negative stream size", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[20:], 0xfffffff0) }), nil, "run past the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			var err error
			grew := allocDuring(func() { got, err = Decompress(tt.src) })
			if tt.want != nil {
				if err != nil || !bytes.Equal(got, tt.want) {
					t.Fatalf("Decompress = %d bytes, %v; want the %d original bytes", len(got), err, len(tt.want))
				}
			} else {
				var e *Error
				if err == nil || !errors.As(err, &e) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.part) {
					t.Fatalf("Decompress = %d bytes, %v; want an *Error (ErrCorrupt) containing %q", len(got), err, tt.part)
				}
			}
			if limit := uint64(len(tt.want) + 64<<10); grew > limit {
				t.Errorf("Decompress allocated %d bytes, limit %d", grew, limit)
			}
			// Into a destination of the true size: no allocation beyond
			// pooled scratch either.
			dst := make([]byte, len(data))
			grew = allocDuring(func() { _, err = DecompressInto(dst, tt.src) })
			if grew > 64<<10 {
				t.Errorf("DecompressInto allocated %d bytes", grew)
			}
		})
	}
}

// FuzzDecodeLZ4 decodes arbitrary blocks into a bounded destination: no
// panic, never more than the destination, and the fuzzed bytes taken as
// data come back through encodeLZ4: decode(encode(x)) == x.
func FuzzDecodeLZ4(f *testing.F) {
	f.Add([]byte{0x40, 'a', 'b', 'c', 'd'}, uint16(4))
	f.Add(encodeLZ4(bytes.Repeat([]byte("tessera "), 40)), uint16(320))
	f.Add([]byte{0x1f, 'a', 1, 0, 255, 255, 255, 10}, uint16(2000))
	f.Fuzz(func(t *testing.T, src []byte, size uint16) {
		dst := make([]byte, size)
		n, err := decodeLZ4(dst, src)
		if n < 0 || n > len(dst) {
			t.Fatalf("decodeLZ4 wrote %d bytes into %d", n, len(dst))
		}
		var le *lz4Error
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %T %v is not an *lz4Error", err, err)
		}
		enc := encodeLZ4(src)
		back := make([]byte, len(src))
		if n, err := decodeLZ4(back, enc); err != nil || n != len(src) || !bytes.Equal(back, src) {
			t.Fatalf("decode(encode(x)) = %d bytes, %v; want the %d bytes of x", n, err, len(src))
		}
	})
}
