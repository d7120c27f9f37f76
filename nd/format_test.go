package nd

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// reprCase is one array of testdata/repr.json with numpy's repr and str of
// it (testdata/gen_repr.py).
type reprCase struct {
	Name   string            `json:"name"`
	DType  string            `json:"dtype"`
	Shape  []int             `json:"shape"`
	Values []json.RawMessage `json:"values"`
	Repr   string            `json:"repr"`
	Str    string            `json:"str"`
}

func jsonFloat(t *testing.T, raw json.RawMessage) float64 {
	t.Helper()
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "nan":
			return math.NaN()
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		}
		t.Fatalf("value %q", s)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// build makes the case's array from its values, through float64 or
// complex128 and AsType, or exactly for integers and bools.
func (c reprCase) build(t *testing.T) *Array {
	t.Helper()
	dt, _, err := ParseDType(c.DType)
	if err != nil {
		t.Fatal(err)
	}
	var a *Array
	switch dt {
	case Bool:
		v := make([]bool, len(c.Values))
		for i, r := range c.Values {
			json.Unmarshal(r, &v[i])
		}
		a, err = FromSlice(v, c.Shape...)
	case Complex64, Complex128:
		v := make([]complex128, len(c.Values))
		for i, r := range c.Values {
			var pair []json.RawMessage
			if err := json.Unmarshal(r, &pair); err != nil {
				t.Fatal(err)
			}
			v[i] = complex(jsonFloat(t, pair[0]), jsonFloat(t, pair[1]))
		}
		a, err = FromSlice(v, c.Shape...)
	case Float32, Float64:
		v := make([]float64, len(c.Values))
		for i, r := range c.Values {
			v[i] = jsonFloat(t, r)
		}
		a, err = FromSlice(v, c.Shape...)
	case Uint64:
		v := make([]uint64, len(c.Values))
		for i, r := range c.Values {
			json.Unmarshal(r, &v[i])
		}
		a, err = FromSlice(v, c.Shape...)
	default:
		v := make([]int64, len(c.Values))
		for i, r := range c.Values {
			json.Unmarshal(r, &v[i])
		}
		a, err = FromSlice(v, c.Shape...)
	}
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	return a
}

// String and Str print as numpy 1.24 prints, byte for byte.
func TestPrintLikeNumpy(t *testing.T) {
	b, err := os.ReadFile("testdata/repr.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []reprCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			a := c.build(t)
			if got := a.String(); got != c.Repr {
				t.Errorf("repr:\ngot  %s\nwant %s", got, c.Repr)
			}
			if got := fmt.Sprint(a); got != c.Str {
				t.Errorf("str:\ngot  %s\nwant %s", got, c.Str)
			}
			if got := fmt.Sprintf("%#v", a); got != c.Repr {
				t.Errorf("%%#v:\ngot  %s\nwant %s", got, c.Repr)
			}
		})
	}
}

// Views print their own elements, not their backing slice: a transpose,
// a strided slice, a zero-stride broadcast and an empty view whose offset
// lies beyond its backing slice. A nil array prints an error, no panic.
func TestPrintViews(t *testing.T) {
	a, _ := FromSlice([]int64{1, 2, 3, 4, 5, 6}, 2, 3)
	tr, _ := a.Transpose()
	if got, want := tr.String(), "array([[1, 4],\n       [2, 5],\n       [3, 6]])"; got != want {
		t.Errorf("transpose: %q, want %q", got, want)
	}
	step := 2
	row, _ := a.Index(0, 1)
	sl, _ := row.Slice(Slice1{Start: 0, Stop: 3, Step: step})
	if got, want := sl.String(), "array([4, 6])"; got != want {
		t.Errorf("strided: %q, want %q", got, want)
	}
	one, _ := FromSlice([]float64{2.5}, 1)
	bc, _ := one.BroadcastTo(2, 2)
	if got, want := bc.String(), "array([[2.5, 2.5],\n       [2.5, 2.5]])"; got != want {
		t.Errorf("broadcast: %q, want %q", got, want)
	}
	empty, _ := a.Slice(Slice1{Start: 2, Stop: 2, Step: 1}, Slice1{Start: 3, Stop: 3, Step: 1})
	if got, want := empty.String(), "array([], shape=(0, 0), dtype=int64)"; got != want {
		t.Errorf("empty view: %q, want %q", got, want)
	}
	if v, err := Values[int64](empty); err != nil || len(v) != 0 {
		t.Errorf("Values of an empty view: %v, %v", v, err)
	}
	var nilArr *Array
	if got := nilArr.String(); got != "nd.Array(invalid: nd: String: nil array)" {
		t.Errorf("nil: %q", got)
	}
}
