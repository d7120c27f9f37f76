package blosc

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestDecodeLZ4Hand decodes blocks built by hand, byte by byte, from the
// LZ4 block format: a token (literal length << 4 | match length - 4),
// extra length bytes, literals, a little-endian offset.
func TestDecodeLZ4Hand(t *testing.T) {
	lits := func(n int) []byte { // n literal bytes 'a', 'b', ...
		b := make([]byte, n)
		for i := range b {
			b[i] = 'a' + byte(i%26)
		}
		return b
	}
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	tests := []struct {
		name    string
		src     []byte
		dstLen  int
		want    []byte // nil when an error is expected
		errPart string
	}{
		{"empty token only", []byte{0x00}, 0, []byte{}, ""},
		{"literals only", cat([]byte{0x50}, []byte("hello")), 5, []byte("hello"), ""},
		{"15 literals need a length byte of 0", cat([]byte{0xF0, 0x00}, lits(15)), 15, lits(15), ""},
		{"300 literals: 15+255+30", cat([]byte{0xF0, 0xFF, 30}, lits(300)), 300, lits(300), ""},
		{"match offset 1 repeats one byte", []byte{0x13, 'x', 1, 0, 0x00}, 8, []byte("xxxxxxxx"), ""},
		{"offset 2 shorter than the match", []byte{0x24, 'a', 'b', 2, 0, 0x00}, 10, []byte("abababababab")[:10], ""},
		{"offset 3 with 19+4 match via a length byte", []byte{0x3F, 'a', 'b', 'c', 3, 0, 4, 0x00}, 26, []byte(strings.Repeat("abc", 9)[:26]), ""},
		{"non-overlapping match then literals", cat([]byte{0x80}, []byte("abcdefgh"), []byte{8, 0}, []byte{0x20, 'X', 'Y'}), 18, []byte("abcdefghabcdXY"), ""},
		{"match copies from inside earlier output", cat([]byte{0x60}, []byte("012345"), []byte{4, 0}, []byte{0x00}), 10, []byte("0123452345"), ""},
		{"long run 4+15+255+255+10", []byte{0x1F, 'z', 1, 0, 255, 255, 10, 0x00}, 1 + 4 + 15 + 255 + 255 + 10, bytes.Repeat([]byte{'z'}, 1+4+15+255+255+10), ""},
		{"last sequence may carry literals after a match", []byte{0x10, 'q', 1, 0, 0x30, 'e', 'n', 'd'}, 8, []byte("qqqqqend"), ""},

		{"empty input", []byte{}, 10, nil, "before a token"},
		{"block ends after a match", []byte{0x10, 'a', 1, 0}, 5, nil, "before a token"},
		{"block ends inside the offset", []byte{0x10, 'a', 1}, 5, nil, "inside a match offset"},
		{"offset 0", []byte{0x10, 'a', 0, 0, 0x00}, 5, nil, "offset 0"},
		{"offset before the start", []byte{0x10, 'a', 2, 0, 0x00}, 5, nil, "before the output start"},
		{"literals past the input", []byte{0x50, 'a', 'b'}, 5, nil, "past the input end"},
		{"literal length bytes run out", []byte{0xF0, 0xFF, 0xFF}, 1000, nil, "inside a literal length"},
		{"match length bytes run out", []byte{0x1F, 'a', 1, 0, 0xFF}, 1000, nil, "inside a match length"},
		{"literals overflow the output", cat([]byte{0x50}, []byte("hello")), 4, nil, "overflow the output"},
		{"match overflows the output", []byte{0x1F, 'a', 1, 0, 200, 0x00}, 100, nil, "overflows the output"},
		{"huge literal length", cat([]byte{0xF0}, bytes.Repeat([]byte{0xFF}, 100), []byte{0}), 1 << 20, nil, "past the input end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, tt.dstLen)
			n, err := decodeLZ4(dst, tt.src)
			if tt.want == nil {
				if err == nil || !strings.Contains(err.Error(), tt.errPart) {
					t.Fatalf("decodeLZ4 = %d, %v; want an error containing %q", n, err, tt.errPart)
				}
				return
			}
			if err != nil {
				t.Fatalf("decodeLZ4: %v", err)
			}
			if got := dst[:n]; !bytes.Equal(got, tt.want) {
				t.Fatalf("decodeLZ4 = %q, want %q", got, tt.want)
			}
		})
	}
}

// encodeLZ4 is a plain greedy LZ4 block compressor, a second code path for
// round trips and benchmarks (the package itself only decodes). It keeps the
// format's end rules: the last match starts at least 12 bytes before the
// end, the last 5 bytes are literals.
func encodeLZ4(src []byte) []byte {
	const (
		hashBits = 14
		mfLimit  = 12
		lastLits = 5
	)
	var table [1 << hashBits]int32 // position + 1, 0 = empty
	var out []byte
	emit := func(lit []byte, off, ml int) {
		tok := len(lit)
		if tok > 15 {
			tok = 15
		}
		m := 0
		if ml > 0 {
			m = min(ml-4, 15)
		}
		out = append(out, byte(tok<<4|m))
		if len(lit) >= 15 {
			n := len(lit) - 15
			for ; n >= 255; n -= 255 {
				out = append(out, 255)
			}
			out = append(out, byte(n))
		}
		out = append(out, lit...)
		if ml == 0 {
			return
		}
		out = append(out, byte(off), byte(off>>8))
		if ml-4 >= 15 {
			n := ml - 4 - 15
			for ; n >= 255; n -= 255 {
				out = append(out, 255)
			}
			out = append(out, byte(n))
		}
	}
	anchor, i := 0, 0
	for i+mfLimit <= len(src) {
		seq := binary.LittleEndian.Uint32(src[i:])
		h := (seq * 2654435761) >> (32 - hashBits)
		ref := int(table[h]) - 1
		table[h] = int32(i + 1)
		if ref >= 0 && i-ref < 1<<16 && binary.LittleEndian.Uint32(src[ref:]) == seq {
			ml := 4
			for i+ml < len(src)-lastLits && src[ref+ml] == src[i+ml] {
				ml++
			}
			emit(src[anchor:i], i-ref, ml)
			i += ml
			anchor = i
			continue
		}
		i++
	}
	emit(src[anchor:], 0, 0)
	return out
}

func TestEncodeLZ4RoundTrip(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"short", []byte("abc")},
		{"zeros", make([]byte, 100000)},
		{"formula", payload(4, 200001)},
		{"text", bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog. "), 500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := encodeLZ4(tt.data)
			got := make([]byte, len(tt.data))
			n, err := decodeLZ4(got, enc)
			if err != nil || n != len(tt.data) || !bytes.Equal(got, tt.data) {
				t.Fatalf("decode(encode(x)) = %d bytes, %v; want %d bytes equal to x (first diff %d)", n, err, len(tt.data), firstDiff(got[:n], tt.data))
			}
		})
	}
}
