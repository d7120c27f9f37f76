package graph

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
)

// Key identifies a node of a graph. A plain key is any non-empty string; a
// block key, made by BlockKey, is a name followed by a bracketed block index,
// as in "sum-3fa1[0,2]".
type Key string

// BlockKey returns the key of block idx of the collection name.
func BlockKey(name string, idx ...int) Key {
	b := make([]byte, 0, len(name)+2+4*len(idx))
	b = append(b, name...)
	b = append(b, '[')
	for i, x := range idx {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	b = append(b, ']')
	return Key(b)
}

// Block splits a block key into its name and block index. For a plain key
// it returns the key itself, nil and false.
func (k Key) Block() (name string, idx []int, ok bool) {
	s := string(k)
	if !strings.HasSuffix(s, "]") {
		return s, nil, false
	}
	open := strings.LastIndexByte(s, '[')
	if open <= 0 {
		return s, nil, false
	}
	inner := s[open+1 : len(s)-1]
	if inner == "" {
		return s[:open], []int{}, true
	}
	parts := strings.Split(inner, ",")
	idx = make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		// Only the canonical form BlockKey writes is a block index: "a[+1]"
		// or "a[01]" would otherwise parse to a block whose key is "a[1]".
		if err != nil || strconv.Itoa(n) != p {
			return s, nil, false
		}
		idx[i] = n
	}
	return s[:open], idx, true
}

// Name returns the collection name of a block key, or the whole key.
func (k Key) Name() string {
	name, _, _ := k.Block()
	return name
}

// Prefix returns the part of the key's name before its token: "add" for
// "add-3fa1c0de..." and for "add-3fa1c0de...[0]". Dask calls it the key
// split; viz labels nodes with it.
func (k Key) Prefix() string {
	name := k.Name()
	if i := strings.LastIndexByte(name, '-'); i > 0 && isToken(name[i+1:]) {
		return name[:i]
	}
	return name
}

func isToken(s string) bool {
	if len(s) < 8 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// Tokenizer is implemented by values that know how to hash themselves for
// Tokenize; the token must be the same for equal values in every process.
type Tokenizer interface {
	Token() string
}

// Tokenize returns a deterministic hex token for its arguments: equal inputs
// give equal tokens in every process and every run. It understands nil,
// booleans, integers, floats, complex numbers, strings, byte slices, Keys,
// slices ([]any, []int, []int64, []float64, []bool, []string, []Key) and
// maps of those (maps in sorted-key order), Ops (by name and parameters)
// and Tokenizers. For any other value it returns an error;
// callers that cannot tokenize fall back to an impure token.
func Tokenize(parts ...any) (string, error) {
	h := fnv.New128a()
	for _, p := range parts {
		if err := tokenizeInto(h, p); err != nil {
			return "", err
		}
	}
	var sum [16]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

func tokenizeInto(h hash.Hash, v any) error {
	var buf [17]byte
	w := func(tag byte, u uint64) {
		buf[0] = tag
		binary.LittleEndian.PutUint64(buf[1:], u)
		h.Write(buf[:9])
	}
	ws := func(tag byte, s string) {
		w(tag, uint64(len(s)))
		h.Write([]byte(s))
	}
	switch x := v.(type) {
	case nil:
		w(0, 0)
	case bool:
		if x {
			w(1, 1)
		} else {
			w(1, 0)
		}
	case int:
		w(2, uint64(x))
	case int8:
		w(3, uint64(x))
	case int16:
		w(4, uint64(x))
	case int32:
		w(5, uint64(x))
	case int64:
		w(6, uint64(x))
	case uint:
		w(7, uint64(x))
	case uint8:
		w(8, uint64(x))
	case uint16:
		w(9, uint64(x))
	case uint32:
		w(10, uint64(x))
	case uint64:
		w(11, x)
	case float32:
		w(12, uint64(math.Float32bits(x)))
	case float64:
		w(13, math.Float64bits(x))
	case complex64:
		w(14, uint64(math.Float32bits(real(x))))
		w(14, uint64(math.Float32bits(imag(x))))
	case complex128:
		w(15, math.Float64bits(real(x)))
		w(15, math.Float64bits(imag(x)))
	case string:
		ws(16, x)
	case []byte:
		w(17, uint64(len(x)))
		h.Write(x)
	case Key:
		ws(18, string(x))
	case Tokenizer:
		ws(19, x.Token())
	case Op:
		ws(20, x.Name())
		if p, ok := x.(ParamOp); ok {
			b, err := p.Params()
			if err != nil {
				return fmt.Errorf("graph: tokenize op %s: %w", x.Name(), err)
			}
			w(21, uint64(len(b)))
			h.Write(b)
		}
	case []any:
		w(22, uint64(len(x)))
		for _, e := range x {
			if err := tokenizeInto(h, e); err != nil {
				return err
			}
		}
	case []int:
		w(23, uint64(len(x)))
		for _, e := range x {
			w(2, uint64(e))
		}
	case []int64:
		w(24, uint64(len(x)))
		for _, e := range x {
			w(6, uint64(e))
		}
	case []float64:
		w(25, uint64(len(x)))
		for _, e := range x {
			w(13, math.Float64bits(e))
		}
	case []bool:
		w(29, uint64(len(x)))
		for _, e := range x {
			if e {
				w(1, 1)
			} else {
				w(1, 0)
			}
		}
	case []string:
		w(26, uint64(len(x)))
		for _, e := range x {
			ws(16, e)
		}
	case []Key:
		w(27, uint64(len(x)))
		for _, e := range x {
			ws(18, string(e))
		}
	case map[string]any:
		keys := sortedKeys(x)
		w(28, uint64(len(keys)))
		for _, k := range keys {
			ws(16, k)
			if err := tokenizeInto(h, x[k]); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("graph: cannot tokenize value of type %T", v)
	}
	return nil
}

var (
	impureSeed    = randomSeed()
	impureCounter atomic.Uint64
)

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on supported platforms; fall back to a
		// constant rather than panic, keys stay unique within the process.
		return 0x9e3779b97f4a7c15
	}
	return binary.LittleEndian.Uint64(b[:])
}

// ImpureToken returns a token that is unique in this process and, with
// overwhelming probability, across processes: Dask's uuid for pure=False.
func ImpureToken() string {
	n := impureCounter.Add(1)
	// splitmix64 of seed+n: cheap, and distinct for distinct n.
	z := impureSeed + n*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], z)
	binary.BigEndian.PutUint64(b[8:], n^impureSeed)
	return hex.EncodeToString(b[:])
}
