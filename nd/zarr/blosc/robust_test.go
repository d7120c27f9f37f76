package blosc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// encodeBlosc frames data as a blosc1 lz4 buffer the way c-blosc 1.21 does
// (shuffle, split rule, raw streams when compression does not pay): the
// second code path for round trips and benchmarks.
func encodeBlosc(data []byte, ts, blocksize int, doShuffle, split bool) []byte {
	nbytes := len(data)
	nblocks := (nbytes + blocksize - 1) / blocksize
	flags := byte(codecLZ4 << 5)
	if doShuffle {
		flags |= flagShuffle
	}
	if !split {
		flags |= flagDontSplit
	}
	out := make([]byte, headerSize+4*nblocks)
	out[0], out[1], out[2], out[3] = formatVersion, codecVersion, flags, byte(ts)
	binary.LittleEndian.PutUint32(out[4:], uint32(nbytes))
	binary.LittleEndian.PutUint32(out[8:], uint32(blocksize))
	tmp := make([]byte, blocksize)
	for b := range nblocks {
		block := data[b*blocksize : min(nbytes, (b+1)*blocksize)]
		binary.LittleEndian.PutUint32(out[headerSize+4*b:], uint32(len(out)))
		if doShuffle && ts > 1 {
			shuffle(tmp[:len(block)], block, ts)
			block = tmp[:len(block)]
		}
		nsplits := 1
		if split && ts <= maxSplits && len(block)/ts >= minBufferSize && len(block) == blocksize {
			nsplits = ts
		}
		neblock := len(block) / nsplits
		for j := range nsplits {
			s := block[j*neblock : (j+1)*neblock]
			c := encodeLZ4(s)
			if len(c) >= len(s) {
				c = s
			}
			out = binary.LittleEndian.AppendUint32(out, uint32(len(c)))
			out = append(out, c...)
		}
	}
	binary.LittleEndian.PutUint32(out[12:], uint32(len(out)))
	return out
}

// shuffle is blosc's byte shuffle, the inverse of unshuffle.
func shuffle(dst, src []byte, ts int) {
	n := len(src) / ts
	for i := range n {
		for j := range ts {
			dst[j*n+i] = src[i*ts+j]
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}

func TestUnshuffle(t *testing.T) {
	for _, ts := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 255} {
		for _, n := range []int{0, 1, ts - 1, ts, 3*ts + 1, 1000} {
			if n < 0 {
				continue
			}
			src := payload(1, n)
			for i := range src {
				src[i] = byte(i*7 + i/251)
			}
			sh := make([]byte, n)
			shuffle(sh, src, ts)
			got := make([]byte, n)
			unshuffle(got, sh, ts)
			if !bytes.Equal(got, src) {
				t.Errorf("ts %d, %d bytes: unshuffle(shuffle(x)) != x, first difference at %d", ts, n, firstDiff(got, src))
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name      string
		nbytes    int
		ts, bsize int
		shuffle   bool
		split     bool
	}{
		{"t8 shuffle split 3 blocks and leftover", 3*8192 + 100, 8, 8192, true, true},
		{"t4 shuffle unsplit", 50000, 4, 16384, true, false},
		{"t2 no shuffle", 40000, 2, 4096, false, true},
		{"t3 shuffle split ragged", 30001, 3, 3072, true, true},
		{"t16 shuffle split", 65536, 16, 32768, true, true},
		{"t1", 10000, 1, 1024, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := payload(min(tt.ts, 8), tt.nbytes)
			enc := encodeBlosc(data, tt.ts, tt.bsize, tt.shuffle, tt.split)
			got, err := Decompress(enc)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("Decompress(encode(x)) = %d bytes, %v; want x (%d bytes; first diff %d)", len(got), err, len(data), firstDiff(got, data))
			}
		})
	}
}

// header builds a blosc1 header.
func header(version, lz, flags, ts byte, nbytes, blocksize, cbytes int32) []byte {
	h := []byte{version, lz, flags, ts, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(h[4:], uint32(nbytes))
	binary.LittleEndian.PutUint32(h[8:], uint32(blocksize))
	binary.LittleEndian.PutUint32(h[12:], uint32(cbytes))
	return h
}

func TestHeaderErrors(t *testing.T) {
	good := readFixture(t, "lz4_shuffle_t8_small.blosc")
	mod := func(f func(b []byte)) []byte {
		b := bytes.Clone(good)
		f(b)
		return b
	}
	stored := append(header(2, 1, flagMemcpyed, 1, 4, 4, 20), 1, 2, 3, 4)
	tests := []struct {
		name string
		src  []byte
		kind error
		part string
	}{
		{"empty", nil, ErrCorrupt, "shorter than the 16-byte header"},
		{"15 bytes", good[:15], ErrCorrupt, "shorter than the 16-byte header"},
		{"blosc2 chunk", mod(func(b []byte) { b[0] = 4 }), ErrUnsupported, "blosc2"},
		{"blosc2 frame", append([]byte{0x90 + 14, 0xa8}, []byte("b2frame\x00\x00\x00\x00\x00\x00\x00\x00")...), ErrUnsupported, "blosc2 frame"},
		{"format version 1", mod(func(b []byte) { b[0] = 1 }), ErrUnsupported, "format version 1"},
		{"lz4 format version 2", mod(func(b []byte) { b[1] = 2 }), ErrUnsupported, "lz4 format version 2"},
		{"reserved flag", mod(func(b []byte) { b[2] |= flagReserved }), ErrUnsupported, "flag 0x08"},
		{"bit shuffle", mod(func(b []byte) { b[2] |= flagBitShuffle }), ErrUnsupported, "bit-shuffle is not supported"},
		{"blosclz", mod(func(b []byte) { b[2] = b[2]&0x1f | codecBloscLZ<<5 }), ErrUnsupported, "codec blosclz"},
		{"snappy", mod(func(b []byte) { b[2] = b[2]&0x1f | codecSnappy<<5 }), ErrUnsupported, "codec snappy"},
		{"codec 6", mod(func(b []byte) { b[2] = b[2]&0x1f | 6<<5 }), ErrUnsupported, "unknown codec code 6"},
		{"negative nbytes", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[4:], 0x80000000) }), ErrCorrupt, "out of range"},
		{"cbytes past the end", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[12:], uint32(len(good)+1)) }), ErrCorrupt, "truncated"},
		{"type size 0", mod(func(b []byte) { b[3] = 0 }), ErrCorrupt, "type size 0"},
		{"block size 0", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 0) }), ErrCorrupt, "block size 0"},
		{"too many blocks", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[8:], 1) }), ErrCorrupt, "blocks do not fit"},
		{"gigabytes from a few bytes", append(header(2, 1, codecLZ4<<5, 1, 1<<29, 1<<29, 24), 20, 0, 0, 0, 0, 0, 0, 0), ErrCorrupt, "cannot come from"},
		{"stored with wrong cbytes", append(header(2, 1, flagMemcpyed, 1, 4, 4, 19), 1, 2, 3), ErrCorrupt, "want nbytes+16"},
		{"block start inside the offsets", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[16:], 3) }), ErrCorrupt, "block 0 starts at 3"},
		{"stream size past the end", mod(func(b []byte) { binary.LittleEndian.PutUint32(b[20:], 1<<20) }), ErrCorrupt, "run past the end"},
	}
	if _, err := Decompress(stored); err != nil {
		t.Fatalf("stored buffer: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decompress(tt.src)
			if err == nil {
				t.Fatalf("Decompress = %d bytes, nil error; want %v containing %q", len(got), tt.kind, tt.part)
			}
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.part) {
				t.Fatalf("Decompress error = %v (%T); want *Error, %v, containing %q", err, err, tt.kind, tt.part)
			}
		})
	}
}

func TestEmptyAndShortDst(t *testing.T) {
	empty := header(2, 1, codecLZ4<<5|flagShuffle, 8, 0, 0, 16)
	got, err := Decompress(empty)
	if err != nil || len(got) != 0 {
		t.Fatalf("Decompress(empty) = %d bytes, %v; want 0, nil", len(got), err)
	}
	src := readFixture(t, "zstd_shuffle_t4_small.blosc")
	n, err := DecompressInto(make([]byte, 3999), src)
	if !errors.Is(err, ErrShortDst) || n != 0 {
		t.Fatalf("DecompressInto(3999 bytes) = %d, %v; want 0, ErrShortDst", n, err)
	}
}

// robustFixtures are the fixtures the truncation and bit-flip tests mangle:
// one per codec and path, small enough for every prefix.
var robustFixtures = []string{
	"lz4_shuffle_t8_small", "lz4_noshuffle_t2_small", "zstd_shuffle_t4_small",
	"zlib_shuffle_t8_small", "lz4hc_shuffle_t4_blocks2k", "noise_lz4", "lz4_shuffle_t8_tiny",
}

// TestTruncated decodes every proper prefix of a few fixtures: each must
// give an error (the header's cbytes no longer fits), and none may panic.
func TestTruncated(t *testing.T) {
	for _, name := range robustFixtures {
		src := readFixture(t, name+".blosc")
		for n := range len(src) {
			if got, err := Decompress(src[:n]); err == nil {
				t.Fatalf("%s cut to %d of %d bytes: Decompress = %d bytes, nil error", name, n, len(src), len(got))
			}
		}
	}
}

// TestTruncatedStreams keeps the header consistent with the cut (cbytes set
// to the new length), so that the cut reaches the block and stream checks
// and the codecs.
func TestTruncatedStreams(t *testing.T) {
	for _, name := range robustFixtures {
		src := readFixture(t, name+".blosc")
		for n := headerSize; n < len(src); n++ {
			b := bytes.Clone(src[:n])
			binary.LittleEndian.PutUint32(b[12:], uint32(n))
			if got, err := Decompress(b); err == nil && !bytes.Equal(got, mustDecompress(t, src)) {
				t.Fatalf("%s cut to %d bytes: wrong output and no error", name, n)
			}
		}
	}
}

func mustDecompress(t testing.TB, src []byte) []byte {
	t.Helper()
	b, err := Decompress(src)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestByteFlips flips random bytes. A flip in the payload may decode to other
// bytes; what must hold is no panic and, without an error, exactly nbytes
// of output.
func TestByteFlips(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range robustFixtures {
		src := readFixture(t, name+".blosc")
		for range 2000 {
			b := bytes.Clone(src)
			for range 1 + rng.IntN(3) {
				b[rng.IntN(len(b))] ^= byte(1 + rng.IntN(255))
			}
			checkDecode(t, b)
		}
	}
}

// checkDecode runs both entry points and checks the properties that hold for
// any input.
func checkDecode(t *testing.T, src []byte) {
	t.Helper()
	out, err := Decompress(src)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %T (%v) is not *Error", err, err)
		}
		return
	}
	h, herr := ReadInfo(src)
	if herr != nil || len(out) != h.NBytes {
		t.Fatalf("Decompress = %d bytes, nil error; header says %d (%v)", len(out), h.NBytes, herr)
	}
	dst := make([]byte, h.NBytes+3)
	n, err := DecompressInto(dst, src)
	if err != nil || n != h.NBytes || !bytes.Equal(dst[:n], out) {
		t.Fatalf("DecompressInto = %d, %v; Decompress gave %d bytes", n, err, len(out))
	}
}

func FuzzDecompress(f *testing.F) {
	for _, row := range readManifest(f, "manifest.tsv") {
		if row.nbytes <= 1<<16 {
			f.Add(readFixture(f, row.name+".blosc"))
		}
	}
	f.Add(encodeBlosc(payload(4, 5000), 4, 1024, true, true))
	lying := encodeBlosc(payload(4, 1000), 4, 1000, true, false)
	binary.LittleEndian.PutUint32(lying[8:], 600<<20) // blocksize far over nbytes
	f.Add(lying)
	f.Fuzz(func(t *testing.T, src []byte) {
		// Keep allocations small: headers claiming large outputs are
		// decoded into a bounded destination only.
		h, err := ReadInfo(src)
		if err == nil && h.NBytes <= 1<<20 {
			// What a header declares is all Decompress may allocate,
			// besides scratch no larger than that.
			grew := allocDuring(func() { Decompress(src) })
			if limit := uint64(2*h.NBytes + 64<<10); grew > limit {
				t.Fatalf("Decompress of %d bytes declaring %d allocated %d (limit %d)", len(src), h.NBytes, grew, limit)
			}
			checkDecode(t, src)
			return
		}
		dst := make([]byte, 1<<16)
		var n int
		grew := allocDuring(func() { n, err = DecompressInto(dst, src) })
		if err == nil && n > len(dst) {
			t.Fatalf("DecompressInto = %d bytes into %d", n, len(dst))
		}
		if grew > 2*uint64(len(dst))+64<<10 {
			t.Fatalf("DecompressInto %d bytes allocated %d", len(dst), grew)
		}
	})
}

// TestBlocksOutOfOrder stores the blocks of a buffer in reverse order, as
// c-blosc's threads may, with the offset table pointing at them: the output
// must not change.
func TestBlocksOutOfOrder(t *testing.T) {
	data := payload(4, 5*4096+300)
	enc := encodeBlosc(data, 4, 4096, true, true)
	nblocks := (len(data) + 4095) / 4096
	start := func(b int) int { return int(binary.LittleEndian.Uint32(enc[headerSize+4*b:])) }
	out := bytes.Clone(enc[:headerSize+4*nblocks])
	for b := nblocks - 1; b >= 0; b-- {
		end := len(enc)
		if b+1 < nblocks {
			end = start(b + 1)
		}
		binary.LittleEndian.PutUint32(out[headerSize+4*b:], uint32(len(out)))
		out = append(out, enc[start(b):end]...)
	}
	if bytes.Equal(out, enc) {
		t.Fatal("reordering left the buffer unchanged")
	}
	got, err := Decompress(out)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Decompress(reordered) = %d bytes, %v; want the %d original bytes (first diff %d)", len(got), err, len(data), firstDiff(got, data))
	}
}
