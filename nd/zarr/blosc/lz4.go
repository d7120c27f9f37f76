package blosc

import "fmt"

// lz4Error describes why an LZ4 block could not be decoded; the caller wraps
// it in an *Error naming the block and stream.
type lz4Error struct {
	at     int // input offset where decoding stopped
	reason string
}

func (e *lz4Error) Error() string {
	return fmt.Sprintf("lz4: %s at input byte %d", e.reason, e.at)
}

// decodeLZ4 decodes one LZ4 block (the raw block format, no frame) from src
// into dst and returns the number of bytes written. It never writes past
// len(dst) and never reads past len(src): every length is checked before the
// copy it governs, so malformed input gives an error, not a panic.
//
// A block is a series of sequences: a token byte (high nibble: literal
// length, low nibble: match length - 4; 15 means "more length bytes follow",
// each adding 0-255 and a byte below 255 ending the run), the literals, a
// 2-byte little-endian offset (1-65535) and the match, copied from offset
// bytes back in the output. The last sequence is literals only: the block
// ends right after its literals. The compressor-side rules (the last five
// bytes are literals, the last match starts twelve bytes before the end) are
// not checked, as liblz4's LZ4_decompress_safe does not check them either.
func decodeLZ4(dst, src []byte) (int, error) {
	d, s := 0, 0
	for {
		if s >= len(src) {
			return d, &lz4Error{s, "input ends before a token"}
		}
		tok := src[s]
		s++

		// Literals.
		lit := int(tok >> 4)
		if lit == 15 {
			for {
				if s >= len(src) {
					return d, &lz4Error{s, "input ends inside a literal length"}
				}
				b := src[s]
				s++
				lit += int(b)
				if b != 255 {
					break
				}
			}
		}
		if lit > len(src)-s {
			return d, &lz4Error{s, fmt.Sprintf("%d literals run past the input end (%d bytes left)", lit, len(src)-s)}
		}
		if lit > len(dst)-d {
			return d, &lz4Error{s, fmt.Sprintf("%d literals overflow the output (%d bytes left)", lit, len(dst)-d)}
		}
		copy(dst[d:d+lit], src[s:s+lit])
		d += lit
		s += lit
		if s == len(src) {
			return d, nil // the last sequence has no match
		}

		// Match.
		if len(src)-s < 2 {
			return d, &lz4Error{s, "input ends inside a match offset"}
		}
		off := int(src[s]) | int(src[s+1])<<8
		s += 2
		if off == 0 {
			return d, &lz4Error{s - 2, "match offset 0"}
		}
		if off > d {
			return d, &lz4Error{s - 2, fmt.Sprintf("match offset %d reaches before the output start (%d bytes written)", off, d)}
		}
		ml := int(tok & 15)
		if ml == 15 {
			for {
				if s >= len(src) {
					return d, &lz4Error{s, "input ends inside a match length"}
				}
				b := src[s]
				s++
				ml += int(b)
				if b != 255 {
					break
				}
			}
		}
		ml += 4
		if ml > len(dst)-d {
			return d, &lz4Error{s, fmt.Sprintf("match of %d bytes overflows the output (%d bytes left)", ml, len(dst)-d)}
		}
		if off >= ml {
			// The source run ends before the destination starts: one memmove.
			copy(dst[d:d+ml], dst[d-off:d-off+ml])
		} else {
			// Overlapping: the match repeats the last off bytes. copy() would
			// move the original bytes (memmove semantics), not the repeated
			// ones, so copy the period once and then double the filled run;
			// each copy is non-overlapping and the run stays a whole number
			// of periods: log2(ml/off) copies instead of a byte loop's ml
			// steps, which matters for offset 1 (runs of one byte, common in
			// shuffled numeric data).
			w := dst[d : d+ml]
			filled := copy(w, dst[d-off:d])
			for filled < ml {
				filled += copy(w[filled:], w[:filled])
			}
		}
		d += ml
	}
}
