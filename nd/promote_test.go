package nd

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// promoteTable is testdata/promote_table.json, written by gen_promote.py.
type promoteTable struct {
	Numpy      string                         `json:"numpy"`
	DTypes     []string                       `json:"dtypes"`
	ResultType map[string][]string            `json:"result_type"`
	Binary     map[string]map[string][]string `json:"binary"`
	Unary      map[string]map[string]string   `json:"unary"`
	Scalar     [][]string                     `json:"scalar"`
}

func loadPromoteTable(t *testing.T) *promoteTable {
	t.Helper()
	b, err := os.ReadFile("testdata/promote_table.json")
	if err != nil {
		t.Fatal(err)
	}
	var tab promoteTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	return &tab
}

// numpyDType parses a dtype name from the table; float16, which tessera
// lacks, stands for float32 (see promote.go).
func numpyDType(t *testing.T, s string) DType {
	t.Helper()
	if s == "float16" {
		return Float32
	}
	d, _, err := ParseDType(s)
	if err != nil {
		t.Fatalf("table dtype %q: %v", s, err)
	}
	return d
}

func TestResultTypeTable(t *testing.T) {
	tab := loadPromoteTable(t)
	n := 0
	for _, as := range tab.DTypes {
		for j, bs := range tab.DTypes {
			a, b := numpyDType(t, as), numpyDType(t, bs)
			want := numpyDType(t, tab.ResultType[as][j])
			if got := ResultType(a, b); got != want {
				t.Errorf("ResultType(%s, %s) = %s, numpy %s", a, b, got, want)
			}
			n++
		}
	}
	if n != 169 {
		t.Errorf("table has %d pairs, want 169", n)
	}
}

func TestResultTypeEdges(t *testing.T) {
	tests := []struct {
		name string
		in   []DType
		want DType
	}{
		{"none", nil, Invalid},
		{"one", []DType{Int16}, Int16},
		{"three", []DType{Int8, Uint8, Float32}, Float32},
		{"uint64-int", []DType{Uint64, Int8, Bool}, Float64},
		{"invalid", []DType{Int8, Invalid}, Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ResultType(tt.in...); got != tt.want {
				t.Errorf("ResultType(%v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestBinaryResultTypeTable(t *testing.T) {
	tab := loadPromoteTable(t)
	for name, rows := range tab.Binary {
		op, err := ParseBinaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		if op.String() != name {
			t.Errorf("ParseBinaryOp(%q).String() = %q", name, op.String())
		}
		for _, as := range tab.DTypes {
			for j, bs := range tab.DTypes {
				a, b := numpyDType(t, as), numpyDType(t, bs)
				wantS := rows[as][j]
				got, err := BinaryResultType(op, a, b)
				if wantS == "error" {
					var te *TypeError
					if !errors.As(err, &te) {
						t.Errorf("%s(%s, %s) = %s, %v; numpy raises TypeError", op, a, b, got, err)
					}
					continue
				}
				if want := numpyDType(t, wantS); err != nil || got != want {
					t.Errorf("%s(%s, %s) = %s, %v; numpy %s", op, a, b, got, err, wantS)
				}
			}
		}
	}
}

func TestUnaryResultTypeTable(t *testing.T) {
	tab := loadPromoteTable(t)
	for name, row := range tab.Unary {
		op, err := ParseUnaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		if op.String() != name {
			t.Errorf("ParseUnaryOp(%q).String() = %q", name, op.String())
		}
		for _, as := range tab.DTypes {
			a := numpyDType(t, as)
			got, err := UnaryResultType(op, a)
			if row[as] == "error" {
				var te *TypeError
				if !errors.As(err, &te) {
					t.Errorf("%s(%s) = %s, %v; numpy raises TypeError", op, a, got, err)
				}
				continue
			}
			if want := numpyDType(t, row[as]); err != nil || got != want {
				t.Errorf("%s(%s) = %s, %v; numpy %s", op, a, got, err, row[as])
			}
		}
	}
}

// scalarFromRepr builds the 0-d array of dtype d holding Python's repr v.
func scalarFromRepr(t *testing.T, d DType, v string) *Array {
	t.Helper()
	var x any
	switch {
	case d == Bool:
		x = v == "True"
	case d.IsComplex():
		c, err := strconv.ParseComplex(strings.ReplaceAll(v, "j", "i"), 128)
		if err != nil {
			t.Fatalf("complex %q: %v", v, err)
		}
		x = c
	case d.IsFloat():
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("float %q: %v", v, err)
		}
		x = f
	case d.IsUnsigned():
		u, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("uint %q: %v", v, err)
		}
		x = u
	default:
		i, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("int %q: %v", v, err)
		}
		x = i
	}
	s, err := Full(d, x)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestValueBasedCasting checks numpy 1.x's value-based casting of 0-d
// operands, both as the result dtype and as the dtype Binary computes.
func TestValueBasedCasting(t *testing.T) {
	tab := loadPromoteTable(t)
	for _, row := range tab.Scalar {
		opName, as, ss, val, want1, want2 := row[0], row[1], row[2], row[3], row[4], row[5]
		op, err := ParseBinaryOp(opName)
		if err != nil {
			t.Fatal(err)
		}
		arr, _ := Zeros(numpyDType(t, as), 2)
		sc := scalarFromRepr(t, numpyDType(t, ss), val)
		for k, c := range []struct {
			a, b *Array
			want string
		}{{arr, sc, want1}, {sc, arr, want2}} {
			if c.want == "valueerror" {
				if r, err := Binary(op, c.a, c.b); err == nil {
					t.Errorf("%s(%s array, %s(%s)) order %d = %s; numpy raises ValueError", op, as, ss, val, k, r)
				}
				continue
			}
			got, err := BinaryResultTypeOf(op, c.a, c.b)
			if c.want == "error" {
				if err == nil {
					t.Errorf("%s(%s array, %s(%s)) order %d = %s; numpy raises", op, as, ss, val, k, got)
				}
				continue
			}
			want := numpyDType(t, c.want)
			if err != nil || got != want {
				t.Errorf("%s(%s array, %s(%s)) order %d = %s, %v; numpy %s", op, as, ss, val, k, got, err, c.want)
				continue
			}
			r, err := Binary(op, c.a, c.b)
			if err != nil || r.DType() != want {
				t.Errorf("Binary %s(%s array, %s(%s)) order %d: %v, %v; want dtype %s", op, as, ss, val, k, r, err, want)
			}
		}
	}
	// Both 0-d: plain promotion, as numpy does for scalars alone.
	got, _ := BinaryResultTypeOf(Add, Scalar(int32(1)), Scalar(int64(1)))
	if got != Int64 {
		t.Errorf("int32 0-d + int64 0-d = %s, want int64", got)
	}
	if rt := ResultTypeOf(Scalar(math.Pi)); rt != Float64 {
		t.Errorf("ResultTypeOf(0-d float64) = %s", rt)
	}
}
