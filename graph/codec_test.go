package graph_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// sameValue is the codec's oracle: same dynamic types, floats compared bit
// for bit (so NaN equals NaN and -0 differs from +0). Nil and empty slices
// are equal, because the codec decodes a nil slice as an empty one; that is
// its documented contract, not an accident.
func sameValue(a, b any) bool {
	return sameReflect(reflect.ValueOf(a), reflect.ValueOf(b))
}

func sameReflect(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float()) ||
			(a.Kind() == reflect.Float32 && math.Float32bits(float32(a.Float())) == math.Float32bits(float32(b.Float())))
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return sameReflect(reflect.ValueOf(real(x)), reflect.ValueOf(real(y))) &&
			sameReflect(reflect.ValueOf(imag(x)), reflect.ValueOf(imag(y)))
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !sameReflect(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !sameReflect(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameReflect(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !sameReflect(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return a.Interface() == b.Interface()
}

var negZero = math.Copysign(0, -1)

// codecValues holds one or more values of every type the codec supports.
var codecValues = []struct {
	name string
	v    any
}{
	{"nil", nil},
	{"true", true},
	{"false", false},
	{"int-zero", 0},
	{"int-min", math.MinInt},
	{"int-max", math.MaxInt},
	{"int8-min", int8(math.MinInt8)},
	{"int8-max", int8(math.MaxInt8)},
	{"int16", int16(math.MinInt16)},
	{"int32", int32(math.MaxInt32)},
	{"int64-min", int64(math.MinInt64)},
	{"uint-max", uint(math.MaxUint)},
	{"uint8-max", uint8(255)},
	{"uint16", uint16(65535)},
	{"uint32", uint32(math.MaxUint32)},
	{"uint64-max", uint64(math.MaxUint64)},
	{"float32", float32(1.5)},
	{"float32-nan", float32(math.NaN())},
	{"float32-inf", float32(math.Inf(1))},
	{"float32-neg-zero", float32(negZero)},
	{"float32-denormal", math.SmallestNonzeroFloat32},
	{"float64", 0.1},
	{"float64-nan", math.NaN()},
	{"float64-nan-payload", math.Float64frombits(0x7ff8_0000_dead_beef)},
	{"float64-pos-inf", math.Inf(1)},
	{"float64-neg-inf", math.Inf(-1)},
	{"float64-neg-zero", negZero},
	{"float64-denormal", math.SmallestNonzeroFloat64},
	{"float64-max", math.MaxFloat64},
	{"complex64", complex64(complex(1.5, -2))},
	{"complex64-nan", complex(float32(math.NaN()), float32(math.Inf(-1)))},
	{"complex128", complex(negZero, math.NaN())},
	{"string-empty", ""},
	{"string", "héllo, 世界"},
	{"string-not-utf8", "\xff\xfe"},
	{"bytes-nil", []byte(nil)},
	{"bytes-empty", []byte{}},
	{"bytes", []byte{0, 1, 255}},
	{"key", graph.Key("sum-3fa1[0,2]")},
	{"list-nil", []any(nil)},
	{"list-empty", []any{}},
	{"list", []any{1, "a", nil, 2.5}},
	{"list-nested", []any{[]any{[]any{}, []any{math.NaN()}}, []int{1}, map[string]any{"k": []any{true}}}},
	{"ints-nil", []int(nil)},
	{"ints", []int{math.MinInt, 0, math.MaxInt}},
	{"int64s-empty", []int64{}},
	{"int64s", []int64{-1, 1 << 40}},
	{"float64s-nil", []float64(nil)},
	{"float64s", []float64{math.NaN(), negZero, math.Inf(1), 1e-300}},
	{"strings-empty", []string{}},
	{"strings", []string{"", "a", "\xff"}},
	{"map-empty", map[string]any{}},
	{"map-nil", map[string]any(nil)},
	{"map", map[string]any{"": 1, "b": []any{2.0}, "a": map[string]any{"x": nil}}},
	{"bools-nil", []bool(nil)},
	{"bools", []bool{true, false, true}},
	{"keys-empty", []graph.Key{}},
	{"keys", []graph.Key{"a", "", "sum-3fa1[0,2]"}},
	{"registered", point{X: 1, Y: -2}},
	{"registered-in-list", []any{point{}, point{X: math.MaxInt32, Y: math.MinInt32}}},
	{"registered-in-map", map[string]any{"p": point{X: 3}}},
}

func TestCodecRoundTrip(t *testing.T) {
	for _, tt := range codecValues {
		t.Run(tt.name, func(t *testing.T) {
			b, err := graph.Marshal(tt.v)
			if err != nil {
				t.Fatalf("Marshal(%#v): %v", tt.v, err)
			}
			got, err := graph.Unmarshal(b)
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !sameValue(got, tt.v) {
				t.Errorf("round trip: got %#v, want %#v", got, tt.v)
			}
			// DecodeValue leaves what follows the value alone.
			tail := []byte{0xde, 0xad}
			v, rest, err := graph.DecodeValue(append(append([]byte{}, b...), tail...))
			if err != nil || !sameValue(v, tt.v) || string(rest) != string(tail) {
				t.Errorf("DecodeValue with a tail = %#v, %x, %v; want %#v, %x", v, rest, err, tt.v, tail)
			}
			// EncodeValue appends.
			pre := []byte("pre")
			app, err := graph.EncodeValue(pre, tt.v)
			if err != nil || string(app) != "pre"+string(b) {
				t.Errorf("EncodeValue did not append the same encoding")
			}
		})
	}
}

func TestCodecDeterministic(t *testing.T) {
	// Maps encode in sorted-key order, so equal maps give equal bytes
	// whatever Go's iteration order.
	m := map[string]any{}
	for i := 0; i < 50; i++ {
		m[fmt.Sprint(i)] = i
	}
	want, err := graph.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		got, _ := graph.Marshal(m)
		if string(got) != string(want) {
			t.Fatal("two encodings of one map differ")
		}
	}
}

func TestCodecTruncated(t *testing.T) {
	for _, tt := range codecValues {
		b, err := graph.Marshal(tt.v)
		if err != nil {
			t.Fatal(err)
		}
		// The encoding is self-delimiting, so no strict prefix decodes.
		for n := 0; n < len(b); n++ {
			v, err := graph.Unmarshal(b[:n:n])
			var ce *graph.CodecError
			if !errors.As(err, &ce) {
				t.Fatalf("%s: Unmarshal of %d of %d bytes = %#v, %v; want *CodecError", tt.name, n, len(b), v, err)
			}
			if ce.Op != "decode" {
				t.Errorf("%s: CodecError.Op = %q, want decode", tt.name, ce.Op)
			}
		}
		if _, err := graph.Unmarshal(append(b, 0)); err == nil {
			t.Errorf("%s: trailing byte accepted", tt.name)
		}
	}
}

func TestCodecEncodeErrors(t *testing.T) {
	type unregistered struct{}
	deep := any(1)
	for i := 0; i < 100; i++ {
		deep = []any{deep}
	}
	tests := []struct {
		name         string
		v            any
		unregistered bool
	}{
		{"unregistered", unregistered{}, true},
		{"unregistered-in-list", []any{1, unregistered{}}, true},
		{"unregistered-in-map", map[string]any{"a": unregistered{}}, true},
		{"pointer", new(int), true},
		{"typed-slice", []float32{1}, true},
		{"too-deep", deep, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := graph.Marshal(tt.v)
			var ce *graph.CodecError
			if !errors.As(err, &ce) || ce.Op != "encode" {
				t.Fatalf("Marshal = %x, %v; want an encode *CodecError", b, err)
			}
			if got := errors.Is(err, graph.ErrUnregisteredType); got != tt.unregistered {
				t.Errorf("errors.Is(err, ErrUnregisteredType) = %v, want %v", got, tt.unregistered)
			}
		})
	}
}

func TestCodecDecodeErrors(t *testing.T) {
	uv := func(x uint64) []byte { return binary.AppendUvarint(nil, x) }
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	named := func(s string) []byte { return cat(uv(uint64(len(s))), []byte(s)) }
	// Tags as the codec numbers them; the test only needs a few.
	const (
		tagString     = 17
		tagList       = 20
		tagMap        = 24
		tagRegistered = 25
	)
	deep := []byte{}
	for i := 0; i < 200; i++ {
		deep = append(deep, tagList, 1)
	}
	deep = append(deep, 0)
	tests := []struct {
		name         string
		b            []byte
		unregistered bool
	}{
		{"empty", nil, false},
		{"unknown-tag", []byte{200}, false},
		{"bad-uvarint", []byte{tagString, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, false},
		{"unknown-type", cat([]byte{tagRegistered}, named("graphtest.nope"), uv(0)), true},
		{"registered-decoder-fails", cat([]byte{tagRegistered}, named("graphtest.point"), uv(3), []byte{1, 2, 3}), false},
		{"too-deep", deep, false},
		{"map-truncated-value", cat([]byte{tagMap}, uv(1), named("k")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := graph.Unmarshal(tt.b)
			var ce *graph.CodecError
			if !errors.As(err, &ce) || ce.Op != "decode" {
				t.Fatalf("Unmarshal = %#v, %v; want a decode *CodecError", v, err)
			}
			if got := errors.Is(err, graph.ErrUnregisteredType); got != tt.unregistered {
				t.Errorf("errors.Is(err, ErrUnregisteredType) = %v, want %v", got, tt.unregistered)
			}
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestCodecForgedLengths(t *testing.T) {
	huge := binary.AppendUvarint(nil, 1<<62)
	withLen := func(tag byte, extra ...byte) []byte {
		return append(append([]byte{tag}, huge...), extra...)
	}
	// Nested lists, each claiming as many elements as there are bytes left:
	// without a cap on preallocation each level would reserve 16 bytes per
	// input byte.
	var nested []byte
	const size = 1 << 18
	for i := 0; i < 60; i++ {
		nested = append(nested, 20)
		nested = binary.AppendUvarint(nested, uint64(size-len(nested)-3))
	}
	nested = append(nested, make([]byte, size-len(nested))...)
	tests := []struct {
		name string
		b    []byte
	}{
		{"string", withLen(17, 'a')},
		{"bytes", withLen(18, 'a')},
		{"key", withLen(19, 'a')},
		{"list", withLen(20, 0, 0)},
		{"ints", withLen(21, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"float64s", withLen(22, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"strings", withLen(23, 0, 0)},
		{"map", withLen(24, 0, 0)},
		{"registered-name", withLen(25, 'a')},
		{"registered-payload", append(append([]byte{25, 1, 'p'}, huge...), 0)},
		{"int64s", withLen(26, 0, 0, 0, 0, 0, 0, 0, 0)},
		{"nested-lists", nested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = graph.Unmarshal(tt.b) })
			if err == nil {
				t.Fatalf("forged length accepted")
			}
			// A valid list of n nils legitimately decodes to 16n bytes, and
			// append's growth allocates a few times the final slice; what
			// must not happen is each nesting level reserving its own.
			if limit := uint64(1<<20 + 128*len(tt.b)); n > limit {
				t.Errorf("decoding %d bytes allocated %d bytes, want at most %d", len(tt.b), n, limit)
			}
		})
	}
}

func FuzzDecodeValue(f *testing.F) {
	for _, tt := range codecValues {
		b, err := graph.Marshal(tt.v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{20, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := graph.Unmarshal(b)
		if err != nil {
			var ce *graph.CodecError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T) is not a *CodecError", err, err)
			}
			return
		}
		enc, err := graph.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal of a decoded value %#v: %v", v, err)
		}
		v2, err := graph.Unmarshal(enc)
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(v)): %v", err)
		}
		if !sameValue(v, v2) {
			t.Fatalf("round trip changed %#v into %#v", v, v2)
		}
		// Tokens hash the codec's bytes: a value and its copy agree, or
		// both are refused (registered types have no token).
		t1, err1 := graph.Tokenize(v)
		t2, err2 := graph.Tokenize(v2)
		if (err1 != nil) != (err2 != nil) || t1 != t2 {
			t.Fatalf("Tokenize of %#v and its copy: %s, %v and %s, %v", v, t1, err1, t2, err2)
		}
	})
}
