package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

func TestBlockKeyRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		idx  []int
	}{
		{"one-dim", []int{0}},
		{"two-dim", []int{0, 2}},
		{"negative", []int{-1, 3}},
		{"large", []int{math.MaxInt, math.MinInt}},
		{"no-index", []int{}},
		{"sum-3fa1c0de12345678", []int{4, 5, 6}},
		{"name[with]brackets", []int{7}},
		{"name[", []int{1}},
		{"name]", []int{2, 3}},
		{"a[1]", []int{2}},
		{"dash-", []int{9}},
		{"-", []int{0}},
		{"comma,name", []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := graph.BlockKey(tt.name, tt.idx...)
			name, idx, ok := k.Block()
			if !ok || name != tt.name || !slices.Equal(idx, tt.idx) {
				t.Fatalf("BlockKey(%q, %v).Block() = %q, %v, %v; want %q, %v, true", tt.name, tt.idx, name, idx, ok, tt.name, tt.idx)
			}
			if got := k.Name(); got != tt.name {
				t.Errorf("Name() = %q, want %q", got, tt.name)
			}
			// The key is the name, then the index printed as Dask prints a
			// tuple's tail: an independent spelling of the format.
			parts := make([]string, len(tt.idx))
			for i, x := range tt.idx {
				parts[i] = fmt.Sprint(x)
			}
			if want := tt.name + "[" + strings.Join(parts, ",") + "]"; string(k) != want {
				t.Errorf("BlockKey = %q, want %q", k, want)
			}
		})
	}
}

func TestPlainKeyBlock(t *testing.T) {
	tests := []struct {
		name string
		key  graph.Key
	}{
		{"plain", "x"},
		{"dashed", "load-data"},
		{"ends-in-bracket-text", "x[abc]"},
		{"ends-in-bracket-only", "]"},
		{"only-brackets", "[1]"},
		{"plus-sign", "a[+1]"},
		{"leading-zero", "a[01]"},
		{"negative-zero", "a[-0]"},
		{"space", "a[ 1]"},
		{"empty-element", "a[1,]"},
		{"overflow", "a[99999999999999999999999]"},
		{"open-in-middle", "a[1]b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, idx, ok := tt.key.Block()
			if ok || idx != nil || name != string(tt.key) {
				t.Fatalf("%q.Block() = %q, %v, %v; want the key itself, nil, false", tt.key, name, idx, ok)
			}
			if got := tt.key.Name(); got != string(tt.key) {
				t.Errorf("Name() = %q, want %q", got, tt.key)
			}
		})
	}
}

func TestBlockCanonical(t *testing.T) {
	// Whenever Block accepts a key, BlockKey of its parts gives the key back.
	keys := []graph.Key{"a[1]", "a[-1,2]", "a[]", "a[b][3]", "x[0,0,0]", "a[+1]", "a[01]", "[2]", "a[1,,2]"}
	for _, k := range keys {
		name, idx, ok := k.Block()
		if !ok {
			continue
		}
		if back := graph.BlockKey(name, idx...); back != k {
			t.Errorf("%q.Block() = %q, %v but BlockKey of those is %q", k, name, idx, back)
		}
	}
}

func TestPrefix(t *testing.T) {
	tok, err := graph.Tokenize("x")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		key  graph.Key
		want string
	}{
		{"plain", "x", "x"},
		{"tokenized", graph.Key("add-" + tok), "add"},
		{"tokenized-block", graph.BlockKey("sum-"+tok, 0, 2), "sum"},
		{"dashed-name", graph.Key("load-data-" + tok), "load-data"},
		{"impure", graph.Key("rand-" + graph.ImpureToken()), "rand"},
		{"short-suffix", "add-3fa1", "add-3fa1"},
		{"non-hex-suffix", "load-datafile", "load-datafile"},
		{"upper-hex", "add-3FA1C0DE", "add-3FA1C0DE"},
		{"leading-dash", "-3fa1c0de", "-3fa1c0de"},
		{"block-no-token", graph.BlockKey("ones", 1), "ones"},
		{"dash-in-block-name", graph.BlockKey("a-b", 1), "a-b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.key.Prefix(); got != tt.want {
				t.Errorf("%q.Prefix() = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}

type tokenized string

func (t tokenized) Token() string { return string(t) }

type failingParams struct{}

func (failingParams) Name() string                            { return "graphtest.failing" }
func (failingParams) Run(context.Context, []any) (any, error) { return nil, nil }
func (failingParams) Params() ([]byte, error)                 { return nil, errors.New("no params today") }

func TestTokenizeDeterministic(t *testing.T) {
	inputs := [][]any{
		{},
		{nil},
		{true, false},
		{1, int8(-2), int16(3), int32(-4), int64(5), uint(6), uint8(7), uint16(8), uint32(9), uint64(10)},
		{float32(1.5), 2.5, complex64(1 + 2i), complex(3, 4), math.NaN(), math.Inf(-1)},
		{"s", []byte("b"), graph.Key("k")},
		{[]any{1, "a", []any{2.0}}, []int{1, 2}, []int64{3}, []float64{4}, []string{"x"}, []graph.Key{"y"}, []bool{true, false}},
		{map[string]any{"b": 2, "a": 1, "c": []any{3}}},
		{addOp{}, scaleOp{Factor: 3}, binOp{C: 1}},
		{tokenized("custom")},
	}
	for i, in := range inputs {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			a, err := graph.Tokenize(in...)
			if err != nil {
				t.Fatalf("Tokenize(%v): %v", in, err)
			}
			b, err := graph.Tokenize(in...)
			if err != nil {
				t.Fatal(err)
			}
			if a != b {
				t.Errorf("Tokenize(%v) gave %s then %s", in, a, b)
			}
			if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" {
				t.Errorf("token %q is not 32 lower-case hex digits", a)
			}
		})
	}
}

func TestTokenizeMapOrder(t *testing.T) {
	// Build the same map in two insertion orders; Go also randomises each
	// range over a map, so repeated calls exercise many iteration orders.
	fwd, rev := map[string]any{}, map[string]any{}
	for i := 0; i < 64; i++ {
		fwd[fmt.Sprint("k", i)] = i
	}
	for i := 63; i >= 0; i-- {
		rev[fmt.Sprint("k", i)] = i
	}
	want, err := graph.Tokenize(fwd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		for _, m := range []map[string]any{fwd, rev} {
			got, err := graph.Tokenize(m)
			if err != nil || got != want {
				t.Fatalf("Tokenize(map) = %s, %v; want %s", got, err, want)
			}
		}
	}
}

func TestTokenizeDistinguishes(t *testing.T) {
	tests := []struct {
		name string
		a, b []any
	}{
		{"int-vs-int64", []any{1}, []any{int64(1)}},
		{"int-vs-float", []any{1}, []any{1.0}},
		{"string-vs-key", []any{"a"}, []any{graph.Key("a")}},
		{"string-vs-bytes", []any{"a"}, []any{[]byte("a")}},
		{"concatenation", []any{"ab", "c"}, []any{"a", "bc"}},
		{"list-boundary", []any{[]any{1, 2}, 3}, []any{[]any{1}, 2, 3}},
		{"list-vs-flat", []any{[]any{1}}, []any{1}},
		{"nil-vs-false", []any{nil}, []any{false}},
		{"true-vs-false", []any{true}, []any{false}},
		{"zero-vs-negative-zero", []any{0.0}, []any{math.Copysign(0, -1)}},
		{"order", []any{1, 2}, []any{2, 1}},
		{"map-value", []any{map[string]any{"a": 1}}, []any{map[string]any{"a": 2}}},
		{"map-key", []any{map[string]any{"a": 1}}, []any{map[string]any{"b": 1}}},
		{"op-params", []any{scaleOp{Factor: 2}}, []any{scaleOp{Factor: 3}}},
		{"op-name", []any{addOp{}}, []any{listOp{}}},
		{"op-vs-name", []any{addOp{}}, []any{"graphtest.add"}},
		{"ints-vs-int64s", []any{[]int{1}}, []any{[]int64{1}}},
		{"empty-vs-none", []any{[]any{}}, []any{}},
		{"tokenizer-vs-string", []any{tokenized("x")}, []any{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := graph.Tokenize(tt.a...)
			if err != nil {
				t.Fatal(err)
			}
			b, err := graph.Tokenize(tt.b...)
			if err != nil {
				t.Fatal(err)
			}
			if a == b {
				t.Errorf("Tokenize(%#v) == Tokenize(%#v) == %s", tt.a, tt.b, a)
			}
		})
	}
}

func TestTokenizeOpsByNameAndParams(t *testing.T) {
	// Two distinct op values with the same name and parameters are the same
	// computation: their tokens agree.
	a, _ := graph.Tokenize(scaleOp{Factor: 2}, 1)
	b, _ := graph.Tokenize(&scaleOp{Factor: 2}, 1)
	if a != b {
		t.Errorf("scaleOp and *scaleOp with equal params: %s != %s", a, b)
	}
	f1 := &graph.FuncOp{OpName: "graphtest.f", Fn: func(context.Context, []any) (any, error) { return 1, nil }}
	f2 := &graph.FuncOp{OpName: "graphtest.f", Fn: func(context.Context, []any) (any, error) { return 2, nil }}
	c, _ := graph.Tokenize(f1)
	d, _ := graph.Tokenize(f2)
	if c != d {
		t.Errorf("FuncOps of one name: %s != %s", c, d)
	}
}

func TestTokenizeUnsupported(t *testing.T) {
	type custom struct{ X int }
	tests := []struct {
		name string
		in   []any
	}{
		{"struct", []any{custom{1}}},
		{"struct-in-list", []any{1, []any{"a", custom{1}}}},
		{"struct-in-map", []any{map[string]any{"a": custom{1}}}},
		{"int-map", []any{map[int]int{1: 2}}},
		{"channel", []any{make(chan int)}},
		{"pointer", []any{new(int)}},
		{"failing-params", []any{failingParams{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := graph.Tokenize(tt.in...)
			if err == nil {
				t.Fatalf("Tokenize(%#v) = %s, want an error", tt.in, tok)
			}
			if tok != "" {
				t.Errorf("token %q returned with error", tok)
			}
		})
	}
}

func TestImpureTokenUnique(t *testing.T) {
	const goroutines, each = 8, 2000
	var mu sync.Mutex
	seen := make(map[string]bool, goroutines*each)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]string, each)
			for i := range local {
				local[i] = graph.ImpureToken()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range local {
				if seen[s] {
					t.Errorf("ImpureToken repeated %s", s)
				}
				seen[s] = true
			}
		}()
	}
	wg.Wait()
	if len(seen) != goroutines*each {
		t.Errorf("got %d distinct tokens, want %d", len(seen), goroutines*each)
	}
	for s := range seen {
		if len(s) != 32 || strings.Trim(s, "0123456789abcdef") != "" {
			t.Fatalf("impure token %q is not 32 lower-case hex digits", s)
		}
		break
	}
}
