package graph

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// The one table of value kinds. Each row says, for one kind of value, its
// codec tag, its Go type, how the codec writes and reads it, its JSON form
// and when two values of it are equal. The codec (EncodeValue,
// DecodeValue), the wire form of nodes (which carries literals in the
// codec), the JSON form, NodesEqual and Tokenize all dispatch through it,
// so that adding a kind is one row and the five cannot disagree.
//
// Tokenize hashes the codec's bytes (see Hasher) of every built-in kind, so
// equal values have equal tokens and values of different kinds differ in
// their tag: int64(1),
// uint64(1) and float64(1) never share a token. Equality is "same kind and
// same codec bytes" for the built-in kinds: NaN equals NaN, a nil slice
// equals an empty one, and 0.0 differs from -0.0, exactly as their tokens
// do.
//
// The first version wrote each kind six times (a type switch each in the
// encoder, the decoder, the JSON writer and reader, equality and the
// tokenizer, plus a hand copy of the tokenizer in delayed) with a second tag
// numbering for tokens; the copies drifted (the tokenizer knew []bool and
// []Key, the codec did not). The codec's numbering is the one kept, so the
// bytes of every value encoded before the table still decode.

// Codec tags, one numbering for the codec and for tokens. The order is the
// wire format: append, never renumber.
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
	tagBools
	tagKeys
	// Token-only tags: Tokenize writes them for Tokenizers and Ops, which
	// are not values the codec carries; DecodeValue rejects them.
	tagToken
	tagOp
)

// encState is what an encoder passes down to nested values.
type encState struct {
	depth int
	token bool // Tokenize: Tokenizers and Ops are allowed
}

// kind is one row of the table.
type kind struct {
	name string       // the JSON "t", and the kind's name in tests
	tags []byte       // the tags the kind owns; bool owns tagFalse and tagTrue
	typ  reflect.Type // nil for nil, registered types and token-only kinds
	// enc appends the tag and the payload of v.
	enc func(b []byte, v any, e encState) ([]byte, error)
	// dec reads the payload that follows tag t.
	dec func(d *decoder, t byte, depth int) any
	// toJSON gives the JSON "v" of v; ok is false when the kind has no
	// JSON form for v (a string that is not UTF-8), which then travels as
	// {"t": "codec"}. A nil toJSON means always the codec form.
	toJSON   func(v any) (raw json.RawMessage, ok bool, err error)
	fromJSON func(raw json.RawMessage, depth int) (any, error)
	// eq reports whether a and b, both of this kind, are equal.
	eq func(a, b any) bool
}

// kinds is the table, in tag order. Registered types and the token-only
// kinds are not found by Go type: lookupKind returns nil for them and the
// encoder falls back to the registry (and, for tokens, to Tokenizer and Op).
var kinds = []kind{
	{name: "nil", tags: []byte{tagNil},
		enc:      func(b []byte, _ any, _ encState) ([]byte, error) { return append(b, tagNil), nil },
		dec:      func(*decoder, byte, int) any { return nil },
		toJSON:   func(any) (json.RawMessage, bool, error) { return nil, true, nil },
		fromJSON: func(json.RawMessage, int) (any, error) { return nil, nil },
		eq:       func(a, b any) bool { return true }},
	{name: "bool", tags: []byte{tagFalse, tagTrue}, typ: reflect.TypeFor[bool](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			if v.(bool) {
				return append(b, tagTrue), nil
			}
			return append(b, tagFalse), nil
		},
		dec:    func(_ *decoder, t byte, _ int) any { return t == tagTrue },
		toJSON: func(v any) (json.RawMessage, bool, error) { return raw(v), true, nil },
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			var x bool
			err := json.Unmarshal(r, &x)
			return x, err
		},
		eq: func(a, b any) bool { return a == b }},
	intKind[int](tagInt, "int", 8, true),
	intKind[int8](tagInt8, "int8", 1, true),
	intKind[int16](tagInt16, "int16", 2, true),
	intKind[int32](tagInt32, "int32", 4, true),
	intKind[int64](tagInt64, "int64", 8, true),
	intKind[uint](tagUint, "uint", 8, false),
	intKind[uint8](tagUint8, "uint8", 1, false),
	intKind[uint16](tagUint16, "uint16", 2, false),
	intKind[uint32](tagUint32, "uint32", 4, false),
	intKind[uint64](tagUint64, "uint64", 8, false),
	floatKind[float32](tagFloat32, "float32", 32),
	floatKind[float64](tagFloat64, "float64", 64),
	complexKind[complex64](tagComplex64, "complex64", 32),
	complexKind[complex128](tagComplex128, "complex128", 64),
	textKind[string](tagString, "string", func(s string) any { return s }),
	{name: "bytes", tags: []byte{tagBytes}, typ: reflect.TypeFor[[]byte](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			x := v.([]byte)
			return append(appendLen(b, tagBytes, len(x)), x...), nil
		},
		dec: func(d *decoder, _ byte, _ int) any {
			if p := d.take(uint64(d.count(1))); p != nil {
				return append([]byte{}, p...)
			}
			return nil
		},
		toJSON: func(v any) (json.RawMessage, bool, error) {
			x := v.([]byte)
			if x == nil {
				x = []byte{}
			}
			return raw(x), true, nil
		},
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			var x []byte
			if err := json.Unmarshal(r, &x); err != nil {
				return nil, fmt.Errorf("bytes value: %w", err)
			}
			if x == nil {
				x = []byte{}
			}
			return x, nil
		},
		eq: func(a, b any) bool { return bytes.Equal(a.([]byte), b.([]byte)) }},
	textKind[Key](tagKey, "key", func(s string) any { return Key(s) }),
	{name: "list", tags: []byte{tagList}, typ: reflect.TypeFor[[]any](),
		enc: func(b []byte, v any, e encState) ([]byte, error) {
			x := v.([]any)
			b = appendLen(b, tagList, len(x))
			e.depth++
			for _, el := range x {
				var err error
				if b, err = encodeValue(b, el, e); err != nil {
					return nil, err
				}
			}
			return b, nil
		},
		dec: func(d *decoder, _ byte, depth int) any {
			n := d.count(1)
			out := make([]any, 0, prealloc(n))
			for i := 0; i < n && d.err == nil; i++ {
				out = append(out, d.value(depth+1))
			}
			return out
		},
		toJSON:   listToJSON,
		fromJSON: listFromJSON,
		eq: func(a, b any) bool {
			x, y := a.([]any), b.([]any)
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !valuesEqual(x[i], y[i]) {
					return false
				}
			}
			return true
		}},
	sliceKind(tagInts, "ints", 8, func(b []byte, x int) []byte { return binary.LittleEndian.AppendUint64(b, uint64(x)) },
		func(d *decoder) int { return int(d.u64()) }, eqOf[int]),
	sliceKind(tagFloat64s, "float64s", 8, func(b []byte, x float64) []byte { return binary.LittleEndian.AppendUint64(b, math.Float64bits(x)) },
		func(d *decoder) float64 { return math.Float64frombits(d.u64()) },
		func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }),
	sliceKind(tagStrings, "strings", 1, func(b []byte, x string) []byte { return append(binary.AppendUvarint(b, uint64(len(x))), x...) },
		func(d *decoder) string { return d.str() }, eqOf[string]),
	{name: "map", tags: []byte{tagMap}, typ: reflect.TypeFor[map[string]any](),
		enc: func(b []byte, v any, e encState) ([]byte, error) {
			x := v.(map[string]any)
			keys := sortedKeys(x)
			b = appendLen(b, tagMap, len(keys))
			e.depth++
			for _, k := range keys {
				b = append(binary.AppendUvarint(b, uint64(len(k))), k...)
				var err error
				if b, err = encodeValue(b, x[k], e); err != nil {
					return nil, err
				}
			}
			return b, nil
		},
		dec: func(d *decoder, _ byte, depth int) any {
			n := d.count(2)
			out := make(map[string]any, prealloc(n))
			for i := 0; i < n && d.err == nil; i++ {
				k := d.str()
				out[k] = d.value(depth + 1)
			}
			return out
		},
		eq: func(a, b any) bool {
			x, y := a.(map[string]any), b.(map[string]any)
			if len(x) != len(y) {
				return false
			}
			for k, xv := range x {
				yv, ok := y[k]
				if !ok || !valuesEqual(xv, yv) {
					return false
				}
			}
			return true
		}},
	{name: "registered", tags: []byte{tagRegistered}, dec: decodeRegistered},
	sliceKind(tagInt64s, "int64s", 8, func(b []byte, x int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(x)) },
		func(d *decoder) int64 { return int64(d.u64()) }, eqOf[int64]),
	sliceKind(tagBools, "bools", 1, func(b []byte, x bool) []byte {
		if x {
			return append(b, 1)
		}
		return append(b, 0)
	}, func(d *decoder) bool {
		c := d.byte1()
		if c > 1 {
			d.fail(fmt.Sprintf("bool byte %d", c), nil)
		}
		return c == 1
	}, eqOf[bool]),
	sliceKind(tagKeys, "keys", 1, func(b []byte, x Key) []byte { return append(binary.AppendUvarint(b, uint64(len(x))), x...) },
		func(d *decoder) Key { return Key(d.str()) }, eqOf[Key]),
	{name: "token", tags: []byte{tagToken}},
	{name: "op", tags: []byte{tagOp}},
}

var (
	kindNil    *kind
	kindByType = map[reflect.Type]*kind{}
	kindByTag  [256]*kind
	kindByName = map[string]*kind{}
)

// init indexes the table; the indexes are read-only afterwards.
func init() {
	kindNil = &kinds[0]
	for i := range kinds {
		k := &kinds[i]
		if k.typ != nil {
			kindByType[k.typ] = k
		}
		for _, t := range k.tags {
			if kindByTag[t] != nil {
				panic(fmt.Sprintf("graph: tag %d owned by %s and %s", t, kindByTag[t].name, k.name))
			}
			kindByTag[t] = k
		}
		kindByName[k.name] = k
	}
}

// lookupKind returns the row of v's built-in kind, or nil for registered,
// token-only and unknown types.
func lookupKind(v any) *kind {
	if v == nil {
		return kindNil
	}
	return kindByType[reflect.TypeOf(v)]
}

// appendLen appends a tag and a uvarint length: the head of every
// variable-length kind. Hasher writes the same head for strings and keys.
func appendLen(b []byte, tag byte, n int) []byte {
	return binary.AppendUvarint(append(b, tag), uint64(n))
}

type integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// intKind is the row of an integer type written as size little-endian
// bytes (int and uint always as 8, whatever the platform).
func intKind[T integer](tag byte, name string, size int, signed bool) kind {
	bits := 8 * int(reflect.TypeFor[T]().Size()) // JSON parses T's own width
	return kind{name: name, tags: []byte{tag}, typ: reflect.TypeFor[T](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			return appendLE(append(b, tag), uint64(v.(T)), size), nil
		},
		dec: func(d *decoder, _ byte, _ int) any { return T(d.le(size)) },
		toJSON: func(v any) (json.RawMessage, bool, error) {
			if signed {
				return strconv.AppendInt(nil, int64(v.(T)), 10), true, nil
			}
			return strconv.AppendUint(nil, uint64(v.(T)), 10), true, nil
		},
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			var n json.Number
			if err := json.Unmarshal(r, &n); err != nil {
				return nil, fmt.Errorf("%s value: %w", name, err)
			}
			if signed {
				x, err := strconv.ParseInt(n.String(), 10, bits)
				return T(x), err
			}
			x, err := strconv.ParseUint(n.String(), 10, bits)
			return T(x), err
		},
		eq: func(a, b any) bool { return a == b }}
}

// floatKind is the row of float32 or float64, written as its IEEE bits;
// equal means equal bits, so NaN equals NaN and 0 differs from -0.
func floatKind[T float32 | float64](tag byte, name string, bits int) kind {
	toBits := func(x T) uint64 {
		if bits == 32 {
			return uint64(math.Float32bits(float32(x)))
		}
		return math.Float64bits(float64(x))
	}
	return kind{name: name, tags: []byte{tag}, typ: reflect.TypeFor[T](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			return appendLE(append(b, tag), toBits(v.(T)), bits/8), nil
		},
		dec: func(d *decoder, _ byte, _ int) any { return T(floatFromBits(d.le(bits/8), bits)) },
		toJSON: func(v any) (json.RawMessage, bool, error) {
			x := v.(T)
			if x != x && toBits(x) != toBits(T(math.NaN())) {
				return nil, false, nil // JSON's "NaN" would lose the payload
			}
			return floatJSON(float64(x), bits), true, nil
		},
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			f, err := floatFromJSON(r, bits)
			return T(f), err
		},
		eq: func(a, b any) bool { return toBits(a.(T)) == toBits(b.(T)) }}
}

func floatFromBits(u uint64, bits int) float64 {
	if bits == 32 {
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}

// complexKind is the row of complex64 or complex128: the real part's bits,
// then the imaginary part's.
func complexKind[T complex64 | complex128](tag byte, name string, bits int) kind {
	parts := func(v any) (re, im float64) {
		c := complex128(v.(T))
		return real(c), imag(c)
	}
	toBits := func(f float64) uint64 {
		if bits == 32 {
			return uint64(math.Float32bits(float32(f)))
		}
		return math.Float64bits(f)
	}
	return kind{name: name, tags: []byte{tag}, typ: reflect.TypeFor[T](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			re, im := parts(v)
			b = appendLE(append(b, tag), toBits(re), bits/8)
			return appendLE(b, toBits(im), bits/8), nil
		},
		dec: func(d *decoder, _ byte, _ int) any {
			re := floatFromBits(d.le(bits/8), bits)
			return T(complex(re, floatFromBits(d.le(bits/8), bits)))
		},
		toJSON: func(v any) (json.RawMessage, bool, error) {
			re, im := parts(v)
			nan := toBits(math.NaN())
			if re != re && toBits(re) != nan || im != im && toBits(im) != nan {
				return nil, false, nil // JSON's "NaN" would lose the payload
			}
			return json.RawMessage("[" + string(floatJSON(re, bits)) + "," + string(floatJSON(im, bits)) + "]"), true, nil
		},
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			var ps []json.RawMessage
			if err := json.Unmarshal(r, &ps); err != nil || len(ps) != 2 {
				return nil, fmt.Errorf("%s value: want [re, im]", name)
			}
			re, err := floatFromJSON(ps[0], bits)
			if err != nil {
				return nil, err
			}
			im, err := floatFromJSON(ps[1], bits)
			if err != nil {
				return nil, err
			}
			return T(complex(re, im)), nil
		},
		eq: func(a, b any) bool {
			ra, ia := parts(a)
			rb, ib := parts(b)
			return toBits(ra) == toBits(rb) && toBits(ia) == toBits(ib)
		}}
}

// textKind is the row of string or Key: a length, then the bytes. Its JSON
// form is a JSON string when the text is UTF-8 and the codec form when not.
func textKind[T ~string](tag byte, name string, mk func(string) any) kind {
	return kind{name: name, tags: []byte{tag}, typ: reflect.TypeFor[T](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			x := v.(T)
			return append(appendLen(b, tag, len(x)), x...), nil
		},
		dec: func(d *decoder, _ byte, _ int) any { return mk(d.str()) },
		toJSON: func(v any) (json.RawMessage, bool, error) {
			x := string(v.(T))
			if !utf8.ValidString(x) {
				return nil, false, nil
			}
			return raw(x), true, nil
		},
		fromJSON: func(r json.RawMessage, _ int) (any, error) {
			var s string
			if err := json.Unmarshal(r, &s); err != nil {
				return nil, fmt.Errorf("%s value: %w", name, err)
			}
			return mk(s), nil
		},
		eq: func(a, b any) bool { return a == b }}
}

// sliceKind is the row of a slice of one element type: a count, then each
// element; min is the fewest bytes an element takes, which bounds the
// count a decoder believes; same compares two elements as their encodings
// would. A nil slice is written as, and equal to, an empty one. Its JSON
// form is the codec form.
func sliceKind[E any](tag byte, name string, min uint64, put func([]byte, E) []byte, get func(*decoder) E, same func(a, b E) bool) kind {
	return kind{name: name, tags: []byte{tag}, typ: reflect.TypeFor[[]E](),
		enc: func(b []byte, v any, _ encState) ([]byte, error) {
			x := v.([]E)
			b = appendLen(b, tag, len(x))
			for _, e := range x {
				b = put(b, e)
			}
			return b, nil
		},
		dec: func(d *decoder, _ byte, _ int) any {
			n := d.count(min)
			out := make([]E, 0, prealloc(n))
			for i := 0; i < n && d.err == nil; i++ {
				out = append(out, get(d))
			}
			return out
		},
		eq: func(a, b any) bool {
			x, y := a.([]E), b.([]E)
			if len(x) != len(y) {
				return false
			}
			for i := range x {
				if !same(x[i], y[i]) {
					return false
				}
			}
			return true
		}}
}

func eqOf[E comparable](a, b E) bool { return a == b }

func appendLE(b []byte, u uint64, size int) []byte {
	for i := range size {
		b = append(b, byte(u>>(8*i)))
	}
	return b
}

// encodeValue appends v's tag and payload.
func encodeValue(b []byte, v any, e encState) ([]byte, error) {
	if e.depth > maxDepth {
		return nil, &CodecError{Op: "encode", Msg: "nested too deeply"}
	}
	if k := lookupKind(v); k != nil {
		return k.enc(b, v, e)
	}
	if e.token {
		switch x := v.(type) {
		case Tokenizer:
			tok := x.Token()
			return append(appendLen(b, tagToken, len(tok)), tok...), nil
		case Op:
			return appendTokenOp(b, x)
		}
		// A registered type (an n-d array) has no cheap token: hashing its
		// bytes would cost a copy and a pass over, say, a gigabyte on every
		// call that takes it, where the callers' fallback, an impure token,
		// is what dask.array.from_array(name=False) gives. A registered type
		// that has a cheap token implements Tokenizer.
		return nil, fmt.Errorf("graph: cannot tokenize value of type %T: %w", v, ErrUnregisteredType)
	}
	return encodeRegistered(b, v)
}

// appendTokenOp writes an op for Tokenize: its name and, for a ParamOp, its
// parameters, as the wire form writes an op; unregistered ops tokenize too.
func appendTokenOp(b []byte, op Op) ([]byte, error) {
	name := op.Name()
	b = append(appendLen(b, tagOp, len(name)), name...)
	p, ok := op.(ParamOp)
	if !ok {
		return append(b, 0), nil
	}
	params, err := p.Params()
	if err != nil {
		return nil, fmt.Errorf("graph: tokenize op %s: %w", name, err)
	}
	b = binary.AppendUvarint(append(b, 1), uint64(len(params)))
	return append(b, params...), nil
}

// valuesEqual compares literals so that a graph equals its decoded copy:
// built-in kinds by the table (same kind, same codec bytes), other values
// by reflect.DeepEqual, with a nil slice or map equal to an empty one of
// the same type.
func valuesEqual(a, b any) bool {
	ka, kb := lookupKind(a), lookupKind(b)
	if ka != nil || kb != nil {
		return ka == kb && ka.eq(a, b)
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() == vb.Type() && (va.Kind() == reflect.Slice || va.Kind() == reflect.Map) && va.Len() == 0 && vb.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
