package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"sync"
)

// The value codec: a tag byte, then the payload. Lengths are uvarints;
// numbers are little-endian. Arrays register themselves (nd) as a
// small header plus raw little-endian bytes, never as per-element encodings.
// The tags and the payload of every built-in kind are rows of the table in
// kinds.go.

// TypeCodec encodes values of one registered type.
type TypeCodec struct {
	Name   string
	Type   reflect.Type
	Encode func(v any) ([]byte, error)
	Decode func(b []byte) (any, error)
	// Size and Append, when set (RegisterTypeAppend), encode straight into
	// the destination: Size says how many payload bytes Append will add.
	Size   func(v any) (int, error)
	Append func(dst []byte, v any) ([]byte, error)
}

var typeRegistry = struct {
	sync.RWMutex
	byName map[string]*TypeCodec
	byType map[reflect.Type]*TypeCodec
}{byName: map[string]*TypeCodec{}, byType: map[reflect.Type]*TypeCodec{}}

// RegisterType makes values of type T encodable under name. Like
// RegisterOp it is meant for init functions and panics on a duplicate name
// or type, a programmer error.
func RegisterType[T any](name string, enc func(T) ([]byte, error), dec func([]byte) (T, error)) {
	t := reflect.TypeFor[T]()
	c := &TypeCodec{
		Name: name,
		Type: t,
		Encode: func(v any) ([]byte, error) {
			x, ok := v.(T)
			if !ok {
				return nil, fmt.Errorf("graph: codec %s: got %T", name, v)
			}
			return enc(x)
		},
		Decode: func(b []byte) (any, error) { return dec(b) },
	}
	typeRegistry.Lock()
	defer typeRegistry.Unlock()
	if _, dup := typeRegistry.byName[name]; dup {
		panic(fmt.Sprintf("graph: type name %q registered twice", name))
	}
	if _, dup := typeRegistry.byType[t]; dup {
		panic(fmt.Sprintf("graph: type %v registered twice", t))
	}
	typeRegistry.byName[name] = c
	typeRegistry.byType[t] = c
}

// RegisterTypeAppend is RegisterType for large values (n-d arrays): size
// returns the exact payload length and appendEnc appends the payload to
// dst, so that EncodeValue writes a value once, straight into its
// destination, with no intermediate payload. The decoder, as for every
// registered type, must not keep b: callers reuse their buffers.
func RegisterTypeAppend[T any](name string, size func(T) (int, error), appendEnc func(dst []byte, v T) ([]byte, error), dec func([]byte) (T, error)) {
	RegisterType[T](name, func(v T) ([]byte, error) { return appendEnc(nil, v) }, dec)
	typeRegistry.Lock()
	defer typeRegistry.Unlock()
	c := typeRegistry.byName[name]
	c.Size = func(v any) (int, error) {
		x, ok := v.(T)
		if !ok {
			return 0, fmt.Errorf("graph: codec %s: got %T", name, v)
		}
		return size(x)
	}
	c.Append = func(dst []byte, v any) ([]byte, error) { return appendEnc(dst, v.(T)) }
}

// CodecError reports a value that cannot be encoded or bytes that cannot be
// decoded.
type CodecError struct {
	Op  string // "encode" or "decode"
	Msg string
	Err error
}

func (e *CodecError) Error() string {
	s := "graph: " + e.Op + " value: " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *CodecError) Unwrap() error { return e.Err }

// EncodeValue appends the encoding of v to dst.
func EncodeValue(dst []byte, v any) ([]byte, error) {
	return encodeValue(dst, v, encState{})
}

const maxDepth = 64

// encodeRegistered appends a value of a registered type: tagRegistered,
// the type's name, the payload's length and the payload.
func encodeRegistered(b []byte, v any) ([]byte, error) {
	typeRegistry.RLock()
	c := typeRegistry.byType[reflect.TypeOf(v)]
	typeRegistry.RUnlock()
	if c == nil {
		return nil, &CodecError{Op: "encode", Msg: fmt.Sprintf("type %T", v), Err: ErrUnregisteredType}
	}
	b = append(appendLen(b, tagRegistered, len(c.Name)), c.Name...)
	if c.Append != nil {
		n, err := c.Size(v)
		if err != nil {
			return nil, &CodecError{Op: "encode", Msg: c.Name, Err: err}
		}
		b = binary.AppendUvarint(b, uint64(n))
		start := len(b)
		if b, err = c.Append(b, v); err != nil {
			return nil, &CodecError{Op: "encode", Msg: c.Name, Err: err}
		}
		if got := len(b) - start; got != n {
			return nil, &CodecError{Op: "encode", Msg: fmt.Sprintf("%s: payload of %d bytes, size said %d", c.Name, got, n)}
		}
		return b, nil
	}
	payload, err := c.Encode(v)
	if err != nil {
		return nil, &CodecError{Op: "encode", Msg: c.Name, Err: err}
	}
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...), nil
}

// decodeRegistered reads what encodeRegistered wrote.
func decodeRegistered(d *decoder, _ byte, _ int) any {
	name := d.str()
	payload := d.take(uint64(d.count(1)))
	if d.err != nil {
		return nil
	}
	typeRegistry.RLock()
	c := typeRegistry.byName[name]
	typeRegistry.RUnlock()
	if c == nil {
		d.fail(fmt.Sprintf("type %q", name), ErrUnregisteredType)
		return nil
	}
	v, err := c.Decode(payload)
	if err != nil {
		d.fail(name, err)
		return nil
	}
	return v
}

// DecodeValue decodes one value from b, returning it and the rest of b.
// Truncated or malformed input is a *CodecError; it never panics. A nil
// slice or map was encoded as an empty one and decodes as such.
func DecodeValue(b []byte) (any, []byte, error) {
	d := decoder{b: b}
	v := d.value(0)
	if d.err != nil {
		return nil, b, d.err
	}
	return v, d.b, nil
}

// Unmarshal decodes exactly one value from b.
func Unmarshal(b []byte) (any, error) {
	v, rest, err := DecodeValue(b)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, &CodecError{Op: "decode", Msg: fmt.Sprintf("%d trailing bytes", len(rest))}
	}
	return v, nil
}

// Marshal encodes v into a new slice.
func Marshal(v any) ([]byte, error) { return EncodeValue(nil, v) }

type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated input")

func (d *decoder) fail(msg string, err error) {
	if d.err == nil {
		d.err = &CodecError{Op: "decode", Msg: msg, Err: err}
	}
}

func (d *decoder) take(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if uint64(len(d.b)) < n {
		d.fail(fmt.Sprintf("need %d bytes, have %d", n, len(d.b)), errShort)
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad length", errShort)
		return 0
	}
	d.b = d.b[n:]
	return x
}

// count reads a length and checks that at least min bytes per element
// remain, so that a forged length cannot make us allocate gigabytes.
func (d *decoder) count(min uint64) int {
	n := d.uvarint()
	if d.err != nil {
		return 0
	}
	if min > 0 && n > uint64(len(d.b))/min {
		d.fail(fmt.Sprintf("length %d exceeds input", n), errShort)
		return 0
	}
	return int(n)
}

// prealloc caps the room reserved for n elements whose encodings have not
// been read yet. count only proves one byte per element is left, and an
// element takes 16 or more bytes once decoded; nested lists could each claim
// the whole rest of the input, so a 1 MB input would reserve gigabytes.
// Beyond the cap, append grows with what is actually decoded.
func prealloc(n int) int { return min(n, 1024) }

// le reads a little-endian number of size bytes.
func (d *decoder) le(size int) uint64 {
	p := d.take(uint64(size))
	var u uint64
	for i, c := range p {
		u |= uint64(c) << (8 * i)
	}
	return u
}

func (d *decoder) u64() uint64 { return d.le(8) }

func (d *decoder) byte1() byte {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) str() string { return string(d.take(uint64(d.count(1)))) }

// value decodes one value: its tag picks the row of the table of kinds.
func (d *decoder) value(depth int) any {
	if depth > maxDepth {
		d.fail("nested too deeply", nil)
		return nil
	}
	t := d.take(1)
	if t == nil {
		return nil
	}
	k := kindByTag[t[0]]
	if k == nil || k.dec == nil {
		d.fail(fmt.Sprintf("unknown tag %d", t[0]), nil)
		return nil
	}
	return k.dec(d, t[0], depth)
}

// RegisteredTypes returns the names of the registered value types, sorted.
func RegisteredTypes() []string {
	typeRegistry.RLock()
	defer typeRegistry.RUnlock()
	out := make([]string, 0, len(typeRegistry.byName))
	for n := range typeRegistry.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
