package graph

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strconv"
	"strings"
	"sync"
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
// give equal tokens in every process and every run. The token is FNV-128a
// over the codec's encoding of each argument (see Hasher), so it
// understands every built-in kind of the codec (nil, booleans, numbers,
// strings, byte slices, Keys, the slices and maps of the table of kinds),
// and in addition Ops (by name and parameters) and Tokenizers, anywhere in
// a list or map. For any other value, registered types included (an n-d
// array has no cheap token unless it implements Tokenizer), it returns an
// error; callers that cannot tokenize fall back to an impure token.
func Tokenize(parts ...any) (string, error) {
	h := NewHasher()
	for _, p := range parts {
		if err := h.Value(p); err != nil {
			return "", err
		}
	}
	return h.Token(), nil
}

// Hasher computes a Tokenize token incrementally: h.Value(a); h.Value(b)
// gives Tokenize(a, b). It hashes the codec's bytes, so a token and the
// codec cannot disagree; String and Key hash a string or a key without
// boxing it or copying it into a buffer, which keeps the builders of large
// graphs (delayed) free of allocations per key. A Hasher is a value of two
// words: copy it to fork a token.
type Hasher struct{ hi, lo uint64 }

// NewHasher returns a Hasher at FNV-128a's offset basis.
func NewHasher() Hasher { return Hasher{hi: 0x6c62272e07bb0142, lo: 0x62b821756295c58d} }

// write hashes p: FNV-128a, xor then multiply by the 128-bit prime
// 2^88 + 0x13b, written as two 64-bit words.
func (h *Hasher) write(p []byte) {
	hi, lo := h.hi, h.lo
	for _, c := range p {
		lo ^= uint64(c)
		s0, s1 := bits.Mul64(0x13b, lo)
		s0 += lo<<24 + 0x13b*hi
		hi, lo = s0, s1
	}
	h.hi, h.lo = hi, lo
}

func (h *Hasher) writeString(s string) {
	hi, lo := h.hi, h.lo
	for i := 0; i < len(s); i++ {
		lo ^= uint64(s[i])
		s0, s1 := bits.Mul64(0x13b, lo)
		s0 += lo<<24 + 0x13b*hi
		hi, lo = s0, s1
	}
	h.hi, h.lo = hi, lo
}

// String hashes s as Value(s) does, without allocating.
func (h *Hasher) String(s string) { h.text(tagString, s) }

// Key hashes k as Value(k) does, without allocating.
func (h *Hasher) Key(k Key) { h.text(tagKey, string(k)) }

// text hashes the string and key rows' encoding: appendLen's head, then
// the bytes.
func (h *Hasher) text(tag byte, s string) {
	var head [1 + binary.MaxVarintLen64]byte
	h.write(appendLen(head[:0], tag, len(s)))
	h.writeString(s)
}

// scratch holds the buffers Value encodes into: the table's encoders are
// called through function values, so a buffer on Value's stack would
// escape to the heap on every call. A sync.Pool is kept here, unlike for
// the block buffers of package freelist: these are 256-byte buffers, and
// a collection that empties the pool costs one small allocation.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// Value hashes the codec's encoding of v; Tokenizers and Ops, which the
// codec does not carry, hash their token or their name and parameters.
func (h *Hasher) Value(v any) error {
	switch x := v.(type) {
	case string:
		h.String(x)
		return nil
	case Key:
		h.Key(x)
		return nil
	}
	bp := scratch.Get().(*[]byte)
	b, err := encodeValue((*bp)[:0], v, encState{token: true})
	if err != nil {
		scratch.Put(bp)
		return err
	}
	h.write(b)
	// Keep small buffers only: a long list's encoding may be large.
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		scratch.Put(bp)
	}
	return nil
}

// Sum returns the 16 bytes of the hash, big-endian.
func (h *Hasher) Sum() [16]byte {
	var sum [16]byte
	binary.BigEndian.PutUint64(sum[:8], h.hi)
	binary.BigEndian.PutUint64(sum[8:], h.lo)
	return sum
}

// AppendToken appends the token, 32 lower-case hex digits, to dst.
func (h *Hasher) AppendToken(dst []byte) []byte {
	sum := h.Sum()
	return hex.AppendEncode(dst, sum[:])
}

// Token returns the token, as Tokenize does.
func (h *Hasher) Token() string {
	var buf [32]byte
	return string(h.AppendToken(buf[:0]))
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
