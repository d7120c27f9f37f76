package graph

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
	"testing"
)

// kindsTestVal is a registered type, the table's "registered" row.
type kindsTestVal struct{ A uint16 }

func init() {
	RegisterType("graph.kindstest.val",
		func(v kindsTestVal) ([]byte, error) { return binary.LittleEndian.AppendUint16(nil, v.A), nil },
		func(b []byte) (kindsTestVal, error) {
			if len(b) != 2 {
				return kindsTestVal{}, errors.New("want 2 bytes")
			}
			return kindsTestVal{binary.LittleEndian.Uint16(b)}, nil
		})
}

// kindCases has, for every row of the table a value can take, values that
// are pairwise different. TestKindsCovered keeps it complete.
var kindCases = []struct {
	kind   string
	values []any
}{
	{"nil", []any{nil}},
	{"bool", []any{false, true}},
	{"int", []any{0, 1, -1, math.MaxInt64, math.MinInt64}},
	{"int8", []any{int8(0), int8(1), int8(-128), int8(127)}},
	{"int16", []any{int16(1), int16(-32768)}},
	{"int32", []any{int32(1), int32(-1 << 31)}},
	{"int64", []any{int64(0), int64(1), int64(math.MinInt64)}},
	{"uint", []any{uint(0), uint(1), uint(math.MaxUint64)}},
	{"uint8", []any{uint8(1), uint8(255)}},
	{"uint16", []any{uint16(1), uint16(65535)}},
	{"uint32", []any{uint32(1), uint32(math.MaxUint32)}},
	{"uint64", []any{uint64(0), uint64(1), uint64(math.MaxUint64)}},
	{"float32", []any{float32(1), float32(-0.0) * -1, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1))}},
	{"float64", []any{1.0, 0.0, math.Copysign(0, -1), math.NaN(), math.Inf(-1), math.Float64frombits(0x7ff8dead00000001)}},
	{"complex64", []any{complex64(1), complex64(complex(1, 2)), complex(float32(math.NaN()), 1)}},
	{"complex128", []any{complex(1, 0), complex(1, -2), complex(math.Inf(1), math.NaN())}},
	{"string", []any{"", "1", "a", "héllo", "\xff\xfe"}},
	{"bytes", []any{[]byte{}, []byte("1"), []byte("a"), []byte{0xff}}},
	{"key", []any{Key(""), Key("a"), Key("x-1[0,2]"), Key("\xff")}},
	{"list", []any{[]any{}, []any{1}, []any{int64(1)}, []any{1, "a", []any{2.5, nil}}, []any{[]any{}}}},
	{"ints", []any{[]int{}, []int{1}, []int{1, 2}}},
	{"float64s", []any{[]float64{}, []float64{1}, []float64{math.NaN(), math.Copysign(0, -1)}}},
	{"strings", []any{[]string{}, []string{"a"}, []string{"a", ""}}},
	{"map", []any{map[string]any{}, map[string]any{"a": 1}, map[string]any{"a": 1.0}, map[string]any{"b": []any{1}, "a": nil}}},
	{"registered", []any{kindsTestVal{1}, kindsTestVal{258}}},
	{"int64s", []any{[]int64{}, []int64{1}, []int64{-1, 2}}},
	{"bools", []any{[]bool{}, []bool{true}, []bool{false, true}}},
	{"keys", []any{[]Key{}, []Key{"a"}, []Key{"a", "b[0]"}}},
}

// TestKindsCovered fails when a row of the table has no case above: a new
// kind must be tested through every path.
func TestKindsCovered(t *testing.T) {
	for _, k := range kinds {
		if k.name == "token" || k.name == "op" {
			continue // not values; TestTokenizeDistinguishes covers them
		}
		if !slices.ContainsFunc(kindCases, func(c struct {
			kind   string
			values []any
		}) bool {
			return c.kind == k.name
		}) {
			t.Errorf("kind %q has no row in kindCases", k.name)
		}
	}
}

// fnvToken is the oracle for Tokenize: the standard library's FNV-128a
// over the codec's bytes.
func fnvToken(t *testing.T, parts ...any) string {
	t.Helper()
	h := fnv.New128a()
	for _, p := range parts {
		b, err := Marshal(p)
		if err != nil {
			t.Fatalf("Marshal(%#v): %v", p, err)
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestKindsRoundTrip sends every value of every kind through the codec, the
// wire form, JSON, equality and Tokenize.
func TestKindsRoundTrip(t *testing.T) {
	op := registeredTestOp(t)
	for _, c := range kindCases {
		for i, v := range c.values {
			t.Run(fmt.Sprintf("%s/%d", c.kind, i), func(t *testing.T) {
				if k := lookupKind(v); c.kind != "registered" && (k == nil || k.name != c.kind) {
					t.Fatalf("lookupKind(%#v) = %v, want row %q", v, k, c.kind)
				}
				lit := Literal(v)
				if !NodesEqual(&lit, &lit) {
					t.Errorf("%#v is not equal to itself", v)
				}

				b, err := Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if want := kindByName[c.kind].tags; !slices.Contains(want, b[0]) {
					t.Errorf("tag %d, want one of %v", b[0], want)
				}
				got, err := Unmarshal(b)
				if err != nil {
					t.Fatal(err)
				}
				check := func(path string, got any) {
					t.Helper()
					if v != nil && reflect.TypeOf(got) != reflect.TypeOf(v) {
						t.Errorf("%s: got %T, want %T", path, got, v)
					}
					g := Literal(got)
					if !NodesEqual(&g, &lit) {
						t.Errorf("%s: got %#v, want %#v", path, got, v)
					}
					tokGot, err1 := Tokenize(got)
					tokWant, err2 := Tokenize(v)
					if c.kind == "registered" {
						if err1 == nil || err2 == nil {
							t.Errorf("%s: Tokenize of a registered type: %v, %v; want errors", path, err1, err2)
						}
						return
					}
					if err1 != nil || err2 != nil || tokGot != tokWant {
						t.Errorf("%s: token %s, %v of the copy; want %s, %v", path, tokGot, err1, tokWant, err2)
					}
				}
				check("codec", got)

				task := Task(op, Lit(v), List(Lit(v)))
				for _, n := range []Node{lit, task} {
					wb, err := EncodeNode(nil, &n)
					if err != nil {
						t.Fatal(err)
					}
					dn, err := DecodeNode(wb)
					if err != nil {
						t.Fatal(err)
					}
					if !NodesEqual(&dn, &n) {
						t.Errorf("wire %v: got %+v, want %+v", n.Kind, dn, n)
					}
					if n.Kind == KindLiteral {
						check("wire", dn.Value)
					}
				}

				g := New(2)
				if err := g.AddLiteral("v", v); err != nil {
					t.Fatal(err)
				}
				if err := g.Set("t", task); err != nil {
					t.Fatal(err)
				}
				js, err := g.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				var back Graph
				if err := back.UnmarshalJSON(js); err != nil {
					t.Fatalf("%v in %s", err, js)
				}
				if !Equal(g, &back) {
					t.Errorf("JSON round trip differs: %s", js)
				}
				jn, _ := back.Get("v")
				check("json", jn.Value)

				if c.kind == "registered" {
					return
				}
				tok, err := Tokenize(v)
				if err != nil {
					t.Fatal(err)
				}
				if want := fnvToken(t, v); tok != want {
					t.Errorf("Tokenize = %s, want FNV-128a of the codec bytes %s", tok, want)
				}
				h := NewHasher()
				if err := h.Value(v); err != nil || h.Token() != tok {
					t.Errorf("Hasher.Value: %s, %v; want %s", h.Token(), err, tok)
				}
			})
		}
	}
}

// TestKindsDistinct checks that every value of kindCases differs from every
// other, in equality and in token: different kinds with the same bytes
// (int64(1), uint64(1), float64(1)) never collide.
func TestKindsDistinct(t *testing.T) {
	var all []any
	for _, c := range kindCases {
		if c.kind != "registered" { // not tokenized
			all = append(all, c.values...)
		}
	}
	seen := map[string]int{}
	for i, v := range all {
		tok, err := Tokenize(v)
		if err != nil {
			t.Fatal(err)
		}
		if j, dup := seen[tok]; dup {
			t.Errorf("Tokenize(%#v) == Tokenize(%#v)", v, all[j])
		}
		seen[tok] = i
		for j, w := range all[:i] {
			if valuesEqual(v, w) || valuesEqual(w, v) {
				t.Errorf("values %d %#v and %d %#v compare equal", i, v, j, w)
			}
		}
	}
	same := []struct {
		name string
		a, b any
	}{
		{"nil-slice", []int(nil), []int{}},
		{"nil-bytes", []byte(nil), []byte{}},
		{"nil-list", []any(nil), []any{}},
		{"nil-map", map[string]any(nil), map[string]any{}},
		{"nil-bools", []bool(nil), []bool{}},
		{"nan", math.NaN(), math.NaN()},
		{"map-order", map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2, "a": 1}},
	}
	for _, tt := range same {
		ta, _ := Tokenize(tt.a)
		tb, _ := Tokenize(tt.b)
		if !valuesEqual(tt.a, tt.b) || ta != tb {
			t.Errorf("%s: equal %v, tokens %s %s; want equal values and tokens", tt.name, valuesEqual(tt.a, tt.b), ta, tb)
		}
	}
}

// TestHasherTextPaths checks the allocation-free String and Key against
// Value, which goes through the table's encoder, and that they allocate
// nothing.
func TestHasherTextPaths(t *testing.T) {
	for _, s := range []string{"", "add", string(make([]byte, 300))} {
		a, b := NewHasher(), NewHasher()
		a.String(s)
		a.Key(Key(s))
		if err := b.Value(s); err != nil {
			t.Fatal(err)
		}
		enc, _ := Marshal(Key(s))
		b.write(enc)
		if a.Token() != b.Token() {
			t.Errorf("String+Key(%q) = %s, Value = %s", s, a.Token(), b.Token())
		}
		if want := fnvToken(t, s, Key(s)); a.Token() != want {
			t.Errorf("String+Key(%q) = %s, want %s", s, a.Token(), want)
		}
	}
	h := NewHasher()
	k := Key("add-0123456789abcdef")
	var dst [64]byte
	if n := testing.AllocsPerRun(100, func() {
		h = NewHasher()
		h.String("add")
		h.Key(k)
		h.AppendToken(dst[:0])
	}); n != 0 {
		t.Errorf("String, Key and AppendToken allocate %v times, want 0", n)
	}
}

// TestDecodeRejectsTokenTags: the token-only tags are not values.
func TestDecodeRejectsTokenTags(t *testing.T) {
	for _, tag := range []byte{tagToken, tagOp, 0xff} {
		if v, err := Unmarshal([]byte{tag, 0}); err == nil {
			t.Errorf("Unmarshal(tag %d) = %#v, want an error", tag, v)
		}
	}
	if v, err := Unmarshal([]byte{tagBools, 1, 2}); err == nil {
		t.Errorf("Unmarshal(bools [2]) = %#v, want an error", v)
	}
}
