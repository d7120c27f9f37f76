package chunkarray

// The numpy goldens of the last dask.array functions of issue 13
// (testdata/parity_rest, written by testdata/gen_parity_rest.py with numpy
// 1.24 and pandas for notnull), each evaluated with the chunkarray
// expression of restExprs by the shared parity runner (the conformance
// chunkings, Sync and Threaded(2), fused and unfused, persisted, through
// JSON) and compared by compareGolden.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

const parityRestDir = "testdata/parity_rest"

var restExprs = map[string]confExpr{
	"i0_big":      func(in []*Array) *Array { return I0(in[0]) },
	"sinc_big":    func(in []*Array) *Array { return Sinc(in[0]) },
	"spacing_big": func(in []*Array) *Array { return Spacing(in[0]) },
	"frexp_m_big": func(in []*Array) *Array { m, _ := Frexp(in[0]); return m },
	"frexp_e_big": func(in []*Array) *Array { _, e := Frexp(in[0]); return e },

	"float_power_c64f32":   func(in []*Array) *Array { return FloatPower(in[0], in[1]) },
	"float_power_i64_m2":   func(in []*Array) *Array { return FloatPower(in[0], -2) },
	"float_power_f64_half": func(in []*Array) *Array { return FloatPower(in[0], 0.5) },
	"float_power_2_i8":     func(in []*Array) *Array { return FloatPower(2, in[0]) },
	"float_power_f32_1j":   func(in []*Array) *Array { return FloatPower(in[0], 1i) },
	"nextafter_f32_1":      func(in []*Array) *Array { return Nextafter(in[0], 1.0) },
	"nextafter_f64_minf":   func(in []*Array) *Array { return Nextafter(in[0], math.Inf(-1)) },
	"divmod_q_i64_3":       func(in []*Array) *Array { q, _ := Divmod(in[0], 3); return q },
	"divmod_r_f64_m1_5":    func(in []*Array) *Array { _, r := Divmod(in[0], -1.5); return r },
	"divmod_r_u8_256":      func(in []*Array) *Array { _, r := Divmod(in[0], 256); return r },

	"ldexp_f64_i64":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f32_i64":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f32_i32":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_i64_i8":   func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_i16_u16":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f64_bool": func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f64_u64":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f64_f32":  func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_c128_i64": func(in []*Array) *Array { return Ldexp(in[0], in[1]) },
	"ldexp_f64_3":    func(in []*Array) *Array { return Ldexp(in[0], 3) },
	"ldexp_f32_2e40": func(in []*Array) *Array { return Ldexp(in[0], int64(1)<<40) },
	"ldexp_2_i32":    func(in []*Array) *Array { return Ldexp(2.0, in[0]) },

	"moment_2_all": func(in []*Array) *Array { return Moment(in[0], 2, nil, ReduceOpts{}) },
	"moment_3_ax0": func(in []*Array) *Array { return Moment(in[0], 3, []int{0}, ReduceOpts{SplitEvery: 2}) },
	"moment_4_ax1_keep_ddof1": func(in []*Array) *Array {
		return Moment(in[0], 4, []int{1}, ReduceOpts{Keepdims: true, Ddof: 1})
	},
	"moment_2_f32_ax1": func(in []*Array) *Array { return Moment(in[0], 2, []int{-1}, ReduceOpts{}) },
	"moment_3_i64_ax0": func(in []*Array) *Array { return Moment(in[0], 3, []int{0}, ReduceOpts{}) },
	"moment_2_bool":    func(in []*Array) *Array { return Moment(in[0], 2, nil, ReduceOpts{}) },
	"moment_2_axes":    func(in []*Array) *Array { return Moment(in[0], 2, []int{0, 1}, ReduceOpts{}) },
	"moment_0_ax1":     func(in []*Array) *Array { return Moment(in[0], 0, []int{1}, ReduceOpts{}) },
	"moment_1_all":     func(in []*Array) *Array { return Moment(in[0], 1, nil, ReduceOpts{}) },
	"moment_neg":       func(in []*Array) *Array { return Moment(in[0], -1, nil, ReduceOpts{}) },
	"moment_c128":      func(in []*Array) *Array { return Moment(in[0], 2, nil, ReduceOpts{}) },
	"moment_2_empty":   func(in []*Array) *Array { return Moment(in[0], 2, []int{0}, ReduceOpts{}) },
	"moment_5_nan":     func(in []*Array) *Array { return Moment(in[0], 5, []int{1}, ReduceOpts{}) },

	"extract_f64":       func(in []*Array) *Array { return Extract(in[0].Greater(0.5), in[0]) },
	"extract_bool_c128": func(in []*Array) *Array { return Extract(in[0], in[1]) },
	"extract_i64_cond": func(in []*Array) *Array {
		return Extract(in[0].Index(All(), Range(0, 4)), in[1].Index(Range(0, 4), Range(0, 4)))
	},
	"extract_short": func(in []*Array) *Array { return Extract(in[0], in[1]) },
	"extract_long":  func(in []*Array) *Array { return Extract(in[0], in[1]) },
	"extract_empty": func(in []*Array) *Array { return Extract(in[0].Greater(0), in[0]) },

	"union1d_f64":     func(in []*Array) *Array { return Union1D(in[0], in[1]) },
	"union1d_i32_i64": func(in []*Array) *Array { return Union1D(in[0], in[1]) },
	"union1d_bool_i8": func(in []*Array) *Array { return Union1D(in[0], in[1]) },
	"union1d_empty":   func(in []*Array) *Array { return Union1D(in[0], in[1]) },

	"chain_sinc_i0": func(in []*Array) *Array {
		return Sinc(in[0].Mul(0.3)).Add(I0(in[1]).Mul(Spacing(in[0])))
	},
	"chain_modf_sum": func(in []*Array) *Array {
		f, _ := Modf(in[0].Mul(3))
		_, e := Frexp(in[0])
		return f.Mul(e).Sum(0)
	},
}

// The rows gen_parity_rest.py makes per function and dtype (or pair).
var (
	restUnaryDTypes = []string{"f64", "f32", "i64", "i32", "i16", "i8", "u8", "u16", "u64", "bool", "c128", "c64", "e0x4", "d0"}
	restUnary       = map[string]confExpr{
		"positive":  func(in []*Array) *Array { return Positive(in[0]) },
		"notnull":   func(in []*Array) *Array { return NotNull(in[0]) },
		"iscomplex": func(in []*Array) *Array { return IsComplex(in[0]) },
		"isreal":    func(in []*Array) *Array { return IsReal(in[0]) },
		"sinc":      func(in []*Array) *Array { return Sinc(in[0]) },
		"i0":        func(in []*Array) *Array { return I0(in[0]) },
		"spacing":   func(in []*Array) *Array { return Spacing(in[0]) },
		"modf_frac": func(in []*Array) *Array { f, _ := Modf(in[0]); return f },
		"modf_int":  func(in []*Array) *Array { _, i := Modf(in[0]); return i },
		"frexp_m":   func(in []*Array) *Array { m, _ := Frexp(in[0]); return m },
		"frexp_e":   func(in []*Array) *Array { _, e := Frexp(in[0]); return e },
	}
	restPairs  = []string{"f64", "f32", "f32f64", "i64", "i32", "i8", "u8", "u8i8", "bool", "c128", "i64f32"}
	restBinary = map[string]confExpr{
		"nextafter":   func(in []*Array) *Array { return Nextafter(in[0], in[1]) },
		"divmod_q":    func(in []*Array) *Array { q, _ := Divmod(in[0], in[1]); return q },
		"divmod_r":    func(in []*Array) *Array { _, r := Divmod(in[0], in[1]); return r },
		"float_power": func(in []*Array) *Array { return FloatPower(in[0], in[1]) },
	}
	// restFloat16 are the generated rows numpy computes in float16, which
	// the script leaves out.
	restFloat16 = map[string]bool{}
)

func init() {
	for name, e := range restUnary {
		for _, d := range restUnaryDTypes {
			restExprs[name+"_"+d] = e
		}
	}
	for name, e := range restBinary {
		for _, p := range restPairs {
			restExprs[name+"_"+p] = e
		}
	}
	for _, fn := range []string{"spacing", "modf_frac", "modf_int", "frexp_m"} {
		for _, d := range []string{"i8", "u8", "bool"} {
			restFloat16[fn+"_"+d] = true
		}
	}
	for _, p := range []string{"i8", "u8", "u8i8", "bool"} {
		restFloat16["nextafter_"+p] = true
	}
}

func TestParityRest(t *testing.T) { runParity(t, parityRestDir, confCases(restExprs)) }

// TestParityRestGoldensCurrent checks that testdata/parity_rest is what
// gen_parity_rest.py writes now.
func TestParityRestGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_rest.py", parityRestDir)
}

// TestParityRestExprsHaveCases keeps the expression table and the manifest
// in step, both ways, but for the float16 rows the script leaves out.
func TestParityRestExprsHaveCases(t *testing.T) {
	exprs := map[string]confExpr{}
	for k, v := range restExprs {
		if !restFloat16[k] {
			exprs[k] = v
		}
	}
	checkExprsHaveCases(t, parityRestDir, exprs)
}

// TestRestFloat16Rows: the rows left out are those whose result numpy
// computes in float16, which tessera gives as float32.
func TestRestFloat16Rows(t *testing.T) {
	for name := range restFloat16 {
		in := map[string]nd.DType{"i8": nd.Int8, "u8": nd.Uint8, "u8i8": nd.Uint8, "bool": nd.Bool}
		var d nd.DType
		for suffix, dt := range in {
			if len(name) > len(suffix) && name[len(name)-len(suffix)-1:] == "_"+suffix {
				d = dt
			}
		}
		z, _ := nd.Zeros(d, 2)
		x := restExprs[name]([]*Array{FromNDArray(z, 1), FromNDArray(z, 1)})
		if x.DType() != nd.Float32 {
			t.Errorf("%s: %s, want float32 (numpy: float16)", name, x.DType())
		}
	}
}

// TestI0Float64Exact: I0 of float64 is numpy's within 1e-15 of each
// element (relative), beyond compareGolden's tolerance of the largest
// magnitude: both series, the switch at 8, the edge of exp's range.
func TestI0Float64Exact(t *testing.T) {
	for _, c := range [][2]string{{"f64i0", "i0_big"}, {"f64", "i0_f64"}, {"i64", "i0_i64"}} {
		in, err := npy.ReadFile(filepath.Join(parityRestDir, "in_"+c[0]+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := npy.ReadFile(filepath.Join(parityRestDir, c[1]+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := nd.Unary(nd.I0, in)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := nd.Values[float64](got.Contiguous())
		w, _ := nd.Values[float64](want)
		if len(g) != len(w) || len(w) < 20 {
			t.Fatalf("%s: %d values, want %d", c[1], len(g), len(w))
		}
		for i := range w {
			switch {
			case math.IsNaN(w[i]) || math.IsInf(w[i], 0):
				if !(math.IsNaN(g[i]) && math.IsNaN(w[i])) && g[i] != w[i] {
					t.Errorf("%s[%d]: got %v, want %v", c[1], i, g[i], w[i])
				}
			case math.Abs(g[i]-w[i]) > 1e-15*math.Abs(w[i]):
				t.Errorf("%s[%d]: got %v, want %v (relative %.2g)", c[1], i, g[i], w[i], math.Abs(g[i]-w[i])/math.Abs(w[i]))
			}
		}
	}
}

// TestRestFuse: the elementwise functions of rest.go collect into as many
// tasks as one elementwise operation (one per block).
func TestRestFuse(t *testing.T) {
	vals := make([]float64, 8*12)
	for i := range vals {
		vals[i] = math.Sin(float64(i)) * 4
	}
	m, _ := nd.FromSlice(vals, 8, 12)
	x := FromNDArray(m, 4)
	count := func(a *Array) int {
		t.Helper()
		g, _, err := BuildGraph([]*Array{a})
		if err != nil {
			t.Fatal(err)
		}
		return g.Len()
	}
	one := count(x.Add(1))
	f, _ := Modf(Sinc(x))
	_, e := Frexp(I0(f))
	q, _ := Divmod(Spacing(x), 0.5)
	chain := Where(NotNull(x).LogicalAnd(IsReal(x)), FloatPower(Nextafter(x, 0.0), 2).Add(e), Positive(q))
	if err := chain.Err(); err != nil {
		t.Fatal(err)
	}
	if n := count(chain); n != one {
		t.Errorf("the chain collects into %d tasks, one operation into %d", n, one)
	}
}

func BenchmarkRestKernels(b *testing.B) {
	vals := make([]float64, 256*256)
	for i := range vals {
		vals[i] = math.Sin(float64(i)*0.01) * 20
	}
	m, _ := nd.FromSlice(vals, 256, 256)
	dst, _ := nd.Zeros(nd.Float64, 256, 256)
	for _, op := range []nd.UnaryOp{nd.I0, nd.Sinc, nd.Spacing, nd.ModfFrac, nd.FrexpMantissa} {
		b.Run(op.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(vals) * 8))
			for b.Loop() {
				if err := nd.UnaryInto(op, dst, m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRestDTypes checks the result dtypes of the functions of rest.go for
// every dtype and pair of dtypes against numpy's
// (testdata/parity_rest/dtypes.json): the same dtype, an error where numpy
// raises, and float32 where numpy computes in float16.
func TestRestDTypes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(parityRestDir, "dtypes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Unary  map[string]map[string]string `json:"unary"`
		Binary map[string]map[string]string `json:"binary"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	check := func(what, want string, got *Array) {
		t.Helper()
		err := got.Err()
		switch {
		case want == "error":
			if err == nil {
				t.Errorf("%s: got %s; numpy raises", what, got.DType())
			}
		case err != nil:
			t.Errorf("%s: %v; numpy gives %s", what, err, want)
		case want == "float16" && got.DType() != nd.Float32, want != "float16" && got.DType().String() != want:
			t.Errorf("%s: got %s, numpy gives %s", what, got.DType(), want)
		}
	}
	arr := func(name string) *Array {
		d, _, err := nd.ParseDType(name)
		if err != nil {
			t.Fatal(err)
		}
		z, _ := nd.Zeros(d, 2)
		return FromNDArray(z, 1)
	}
	binary := map[string]func(a, b any) *Array{
		"nextafter": Nextafter, "ldexp": Ldexp, "float_power": FloatPower,
		"divmod": func(a, b any) *Array { q, _ := Divmod(a, b); return q },
	}
	n := 0
	for name, row := range table.Unary {
		op, err := nd.ParseUnaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		for dn, want := range row {
			x := Unary(op, arr(dn))
			if name == "positive" {
				x = Positive(arr(dn))
			}
			check(name+"("+dn+")", want, x)
			n++
		}
	}
	for name, row := range table.Binary {
		f, ok := binary[name]
		if !ok {
			t.Fatalf("no function for %s", name)
		}
		for pair, want := range row {
			an, bn, _ := strings.Cut(pair, ",")
			check(name+"("+pair+")", want, f(arr(an), arr(bn)))
			n++
		}
	}
	if n != 8*13+4*169 {
		t.Fatalf("%d rows in dtypes.json", n)
	}
}
