package nd_test

import (
	"archive/zip"
	"encoding/json"
	"math"
	"math/cmplx"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// goldenCase is one row of testdata/reduce_cases.json, written by
// testdata/gen_reduce.py from numpy 1.24.
type goldenCase struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Op        string `json:"op"`
	Inputs    []string
	Axes      []int `json:"axes"`
	AxesA     []int `json:"axesA"`
	AxesB     []int `json:"axesB"`
	Keepdims  bool  `json:"keepdims"`
	Transpose bool  `json:"transpose"`
	Ddof      int   `json:"ddof"`
	Flat      bool  `json:"flat"`
	Axis      int   `json:"axis"`
	Error     string
	Ref       string
	Shape     []int
}

type golden struct {
	cases  []goldenCase
	arrays map[string]*nd.Array
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	raw, err := os.ReadFile("testdata/reduce_cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	g := &golden{arrays: map[string]*nd.Array{}}
	for _, r := range doc.Cases {
		// axes: absent or null means all axes (nil); [] means none.
		var c goldenCase
		if err := json.Unmarshal(r, &c); err != nil {
			t.Fatal(err)
		}
		var probe struct {
			Axes *[]int `json:"axes"`
		}
		json.Unmarshal(r, &probe)
		if probe.Axes != nil && *probe.Axes != nil && len(*probe.Axes) == 0 {
			c.Axes = []int{}
		}
		g.cases = append(g.cases, c)
	}
	z, err := zip.OpenReader("testdata/reduce_golden.npz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		a, err := npy.Read(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		g.arrays[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	return g
}

func (g *golden) input(t *testing.T, c goldenCase, i int) *nd.Array {
	a, ok := g.arrays["in_"+c.Inputs[i]]
	if !ok {
		t.Fatalf("no input %s", c.Inputs[i])
	}
	if c.Transpose {
		a, _ = a.Transpose()
	}
	return a
}

func runGolden(c goldenCase, g *golden, in func(int) *nd.Array) (*nd.Array, error) {
	switch c.Kind {
	case "reduce":
		op, err := nd.ParseReduceOp(c.Op)
		if err != nil {
			return nil, err
		}
		if c.Ddof != 0 {
			return nd.VarStd(in(0), c.Axes, c.Keepdims, c.Ddof, op == nd.Std)
		}
		return nd.Reduce(op, in(0), c.Axes, c.Keepdims)
	case "arg":
		op := nd.ArgMin
		if c.Op == "argmax" {
			op = nd.ArgMax
		}
		return nd.ArgReduce(op, in(0), c.Axis, c.Flat)
	case "matmul":
		return nd.Matmul(in(0), in(1))
	case "dot":
		return nd.Dot(in(0), in(1))
	case "tensordot":
		return nd.Tensordot(in(0), in(1), c.AxesA, c.AxesB)
	}
	return nil, nil
}

func TestReduceGolden(t *testing.T) {
	g := loadGolden(t)
	if len(g.cases) < 100 {
		t.Fatalf("only %d golden cases", len(g.cases))
	}
	for _, c := range g.cases {
		t.Run(c.Name, func(t *testing.T) {
			got, err := runGolden(c, g, func(i int) *nd.Array { return g.input(t, c, i) })
			if c.Error != "" {
				if err == nil {
					t.Fatalf("got %v, want error like %q", got.Shape(), c.Error)
				}
				for _, phrase := range []string{"zero-size array to reduction operation", "empty sequence"} {
					if strings.Contains(c.Error, phrase) && !strings.Contains(err.Error(), phrase) {
						t.Fatalf("error %q, want one saying %q", err, phrase)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("error %v", err)
			}
			ref := c.Name
			if c.Ref != "" {
				ref = c.Ref
			}
			want, ok := g.arrays["out_"+ref]
			if !ok {
				t.Fatalf("no golden output %s", ref)
			}
			if c.Ref != "" {
				want, err = want.Reshape(c.Shape...)
				if err != nil {
					t.Fatal(err)
				}
			}
			compareArrays(t, got, want)
		})
	}
}

// compareArrays fails unless got has want's dtype and shape and its
// values: exactly for integers and bools, within 1e-12 relative for
// float64 and complex128, 1e-5 for float32 and complex64; NaN matches NaN.
func compareArrays(t *testing.T, got, want *nd.Array) {
	t.Helper()
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		t.Fatalf("got %s%v, want %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	tol := 1e-12
	if d := want.DType(); d == nd.Float32 || d == nd.Complex64 {
		tol = 1e-5
	}
	gv, wv := asComplex(t, got), asComplex(t, want)
	for i := range wv {
		if !closeTo(gv[i], wv[i], tol, want.DType().IsInteger() || want.DType().IsBool()) {
			t.Fatalf("element %d: got %v, want %v (tol %g)", i, gv[i], wv[i], tol)
		}
	}
}

func closeTo(g, w complex128, tol float64, exact bool) bool {
	if cmplx.IsNaN(w) {
		return cmplx.IsNaN(g)
	}
	if exact || cmplx.IsInf(w) {
		return g == w
	}
	return cmplx.Abs(g-w) <= tol*math.Max(cmplx.Abs(w), 1e-300)
}

// asComplex returns the elements in C order as complex128 (uint64 values
// above 2^53 lose bits, so the test data keep them below 2^62 and compare
// with the integer path too).
func asComplex(t *testing.T, a *nd.Array) []complex128 {
	t.Helper()
	if a.DType() == nd.Uint64 {
		v, _ := nd.Values[uint64](a)
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex(float64(x), float64(x%1024))
		}
		return out
	}
	if a.DType() == nd.Int64 {
		v, _ := nd.Values[int64](a)
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex(float64(x), float64(x%1024))
		}
		return out
	}
	c, err := a.AsType(nd.Complex128)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := nd.Values[complex128](c)
	return v
}
