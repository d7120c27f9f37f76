package delayed

import (
	"encoding/hex"
	"math"
	"math/bits"

	"github.com/tessera-go/tessera/graph"
)

// callHash computes graph.Tokenize(opName, parts...) for the argument
// kinds that dominate graph building (keys and small scalars) without
// graph.Tokenize's allocations: a hash.Hash, a []byte per string and an
// interface per part. It is FNV-128a over exactly the bytes tokenizeInto
// writes (a tag byte, a little-endian uint64, then string bytes);
// TestTokenMatchesGraph keeps the two code paths in step. Anything else
// makes the caller fall back to graph.Tokenize.
type callHash struct{ hi, lo uint64 }

func newCallHash() callHash {
	return callHash{hi: 0x6c62272e07bb0142, lo: 0x62b821756295c58d}
}

func (h *callHash) byte(c byte) {
	h.lo ^= uint64(c)
	s0, s1 := bits.Mul64(0x13b, h.lo)
	s0 += h.lo<<24 + 0x13b*h.hi
	h.hi, h.lo = s0, s1
}

func (h *callHash) word(tag byte, u uint64) {
	h.byte(tag)
	for i := 0; i < 8; i++ {
		h.byte(byte(u >> (8 * i)))
	}
}

func (h *callHash) str(tag byte, s string) {
	h.word(tag, uint64(len(s)))
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
}

// lit hashes a literal argument, reporting false for a type it leaves to
// graph.Tokenize. The tags are tokenizeInto's.
func (h *callHash) lit(v any) bool {
	switch x := v.(type) {
	case nil:
		h.word(0, 0)
	case bool:
		if x {
			h.word(1, 1)
		} else {
			h.word(1, 0)
		}
	case int:
		h.word(2, uint64(x))
	case int64:
		h.word(6, uint64(x))
	case float64:
		h.word(13, math.Float64bits(x))
	case string:
		h.str(16, x)
	case graph.Key:
		h.str(18, string(x))
	default:
		return false
	}
	return true
}

// appendKey appends prefix-token to dst, the token as 32 hex digits.
func (h *callHash) appendKey(dst []byte, prefix string) []byte {
	var sum [16]byte
	for i := 0; i < 8; i++ {
		sum[i] = byte(h.hi >> (56 - 8*i))
		sum[8+i] = byte(h.lo >> (56 - 8*i))
	}
	dst = append(dst, prefix...)
	dst = append(dst, '-')
	return hex.AppendEncode(dst, sum[:])
}

// callKey returns prefix-token for a call of opName on args, where the
// token is graph.Tokenize(opName, a1, a2, …) with ai the key of a
// reference and the value of a literal; ok is false when an argument is
// neither or a literal cannot be tokenized.
func callKey(prefix, opName string, args []graph.Arg) (graph.Key, bool) {
	h := newCallHash()
	h.str(16, opName)
	for i := range args {
		switch a := &args[i]; a.Kind {
		case graph.ArgRef:
			h.str(18, string(a.Ref))
		case graph.ArgLit:
			if !h.lit(a.Lit) {
				return slowCallKey(prefix, opName, args)
			}
		default:
			return "", false
		}
	}
	buf := make([]byte, 0, len(prefix)+33)
	return graph.Key(h.appendKey(buf, prefix)), true
}

func slowCallKey(prefix, opName string, args []graph.Arg) (graph.Key, bool) {
	parts := make([]any, 0, len(args)+1)
	parts = append(parts, opName)
	for i := range args {
		switch a := &args[i]; a.Kind {
		case graph.ArgRef:
			parts = append(parts, a.Ref)
		case graph.ArgLit:
			parts = append(parts, a.Lit)
		default:
			return "", false
		}
	}
	tok, err := graph.Tokenize(parts...)
	if err != nil {
		return "", false
	}
	return graph.Key(prefix + "-" + tok), true
}
