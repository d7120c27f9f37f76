package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"sync"
)

// The value codec: a tag byte, then the payload. Lengths are uvarints;
// numbers are little-endian. Arrays register themselves (nd) as a
// small header plus raw little-endian bytes, never as per-element encodings.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagInt8
	tagInt16
	tagInt32
	tagInt64
	tagUint
	tagUint8
	tagUint16
	tagUint32
	tagUint64
	tagFloat32
	tagFloat64
	tagComplex64
	tagComplex128
	tagString
	tagBytes
	tagKey
	tagList
	tagInts
	tagFloat64s
	tagStrings
	tagMap
	tagRegistered
	tagInt64s
)

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
	return encodeValue(dst, v, 0)
}

const maxDepth = 64

func encodeValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, &CodecError{Op: "encode", Msg: "nested too deeply"}
	}
	u64 := func(tag byte, x uint64) []byte {
		b = append(b, tag)
		return binary.LittleEndian.AppendUint64(b, x)
	}
	str := func(tag byte, s string) []byte {
		b = append(b, tag)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	switch x := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int:
		return u64(tagInt, uint64(x)), nil
	case int8:
		return append(b, tagInt8, byte(x)), nil
	case int16:
		return binary.LittleEndian.AppendUint16(append(b, tagInt16), uint16(x)), nil
	case int32:
		return binary.LittleEndian.AppendUint32(append(b, tagInt32), uint32(x)), nil
	case int64:
		return u64(tagInt64, uint64(x)), nil
	case uint:
		return u64(tagUint, uint64(x)), nil
	case uint8:
		return append(b, tagUint8, x), nil
	case uint16:
		return binary.LittleEndian.AppendUint16(append(b, tagUint16), x), nil
	case uint32:
		return binary.LittleEndian.AppendUint32(append(b, tagUint32), x), nil
	case uint64:
		return u64(tagUint64, x), nil
	case float32:
		return binary.LittleEndian.AppendUint32(append(b, tagFloat32), math.Float32bits(x)), nil
	case float64:
		return u64(tagFloat64, math.Float64bits(x)), nil
	case complex64:
		b = binary.LittleEndian.AppendUint32(append(b, tagComplex64), math.Float32bits(real(x)))
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(imag(x))), nil
	case complex128:
		b = u64(tagComplex128, math.Float64bits(real(x)))
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(imag(x))), nil
	case string:
		return str(tagString, x), nil
	case []byte:
		if x == nil {
			x = []byte{}
		}
		return str(tagBytes, string(x)), nil
	case Key:
		return str(tagKey, string(x)), nil
	case []any:
		b = append(b, tagList)
		b = binary.AppendUvarint(b, uint64(len(x)))
		for _, e := range x {
			var err error
			if b, err = encodeValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case []int:
		b = append(b, tagInts)
		b = binary.AppendUvarint(b, uint64(len(x)))
		for _, e := range x {
			b = binary.LittleEndian.AppendUint64(b, uint64(e))
		}
		return b, nil
	case []int64:
		b = append(b, tagInt64s)
		b = binary.AppendUvarint(b, uint64(len(x)))
		for _, e := range x {
			b = binary.LittleEndian.AppendUint64(b, uint64(e))
		}
		return b, nil
	case []float64:
		b = append(b, tagFloat64s)
		b = binary.AppendUvarint(b, uint64(len(x)))
		for _, e := range x {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e))
		}
		return b, nil
	case []string:
		b = append(b, tagStrings)
		b = binary.AppendUvarint(b, uint64(len(x)))
		for _, e := range x {
			b = binary.AppendUvarint(b, uint64(len(e)))
			b = append(b, e...)
		}
		return b, nil
	case map[string]any:
		keys := sortedKeys(x)
		b = append(b, tagMap)
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			var err error
			if b, err = encodeValue(b, x[k], depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	typeRegistry.RLock()
	c := typeRegistry.byType[reflect.TypeOf(v)]
	typeRegistry.RUnlock()
	if c == nil {
		return nil, &CodecError{Op: "encode", Msg: fmt.Sprintf("type %T", v), Err: ErrUnregisteredType}
	}
	if c.Append != nil {
		n, err := c.Size(v)
		if err != nil {
			return nil, &CodecError{Op: "encode", Msg: c.Name, Err: err}
		}
		b = str(tagRegistered, c.Name)
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
	b = str(tagRegistered, c.Name)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...), nil
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

func (d *decoder) u16() uint16 {
	if p := d.take(2); p != nil {
		return binary.LittleEndian.Uint16(p)
	}
	return 0
}
func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}
func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) str() string { return string(d.take(uint64(d.count(1)))) }

func (d *decoder) value(depth int) any {
	if depth > maxDepth {
		d.fail("nested too deeply", nil)
		return nil
	}
	t := d.take(1)
	if t == nil {
		return nil
	}
	switch t[0] {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return int(d.u64())
	case tagInt8:
		if p := d.take(1); p != nil {
			return int8(p[0])
		}
		return nil
	case tagInt16:
		return int16(d.u16())
	case tagInt32:
		return int32(d.u32())
	case tagInt64:
		return int64(d.u64())
	case tagUint:
		return uint(d.u64())
	case tagUint8:
		if p := d.take(1); p != nil {
			return p[0]
		}
		return nil
	case tagUint16:
		return d.u16()
	case tagUint32:
		return d.u32()
	case tagUint64:
		return d.u64()
	case tagFloat32:
		return math.Float32frombits(d.u32())
	case tagFloat64:
		return math.Float64frombits(d.u64())
	case tagComplex64:
		re := math.Float32frombits(d.u32())
		return complex(re, math.Float32frombits(d.u32()))
	case tagComplex128:
		re := math.Float64frombits(d.u64())
		return complex(re, math.Float64frombits(d.u64()))
	case tagString:
		return d.str()
	case tagBytes:
		p := d.take(uint64(d.count(1)))
		if p == nil {
			return nil
		}
		return append([]byte{}, p...)
	case tagKey:
		return Key(d.str())
	case tagList:
		n := d.count(1)
		out := make([]any, 0, prealloc(n))
		for i := 0; i < n && d.err == nil; i++ {
			out = append(out, d.value(depth+1))
		}
		return out
	case tagInts, tagInt64s:
		n := d.count(8)
		if t[0] == tagInts {
			out := make([]int, n)
			for i := range out {
				out[i] = int(d.u64())
			}
			return out
		}
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(d.u64())
		}
		return out
	case tagFloat64s:
		n := d.count(8)
		out := make([]float64, n)
		for i := range out {
			out[i] = math.Float64frombits(d.u64())
		}
		return out
	case tagStrings:
		n := d.count(1)
		out := make([]string, 0, prealloc(n))
		for i := 0; i < n && d.err == nil; i++ {
			out = append(out, d.str())
		}
		return out
	case tagMap:
		n := d.count(2)
		out := make(map[string]any, prealloc(n))
		for i := 0; i < n && d.err == nil; i++ {
			k := d.str()
			out[k] = d.value(depth + 1)
		}
		return out
	case tagRegistered:
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
	d.fail(fmt.Sprintf("unknown tag %d", t[0]), nil)
	return nil
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
