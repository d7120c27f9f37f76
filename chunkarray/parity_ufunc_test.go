package chunkarray

// The numpy goldens of the ufuncs (testdata/parity_ufunc, written by
// testdata/gen_parity_ufunc.py with numpy 1.24), each evaluated with the
// chunkarray expression of ufuncExprs by the parity harness (runLayouts
// over the conformance chunkings: Sync and Threaded(2), fused and unfused,
// persisted, through JSON) and compared by compareGolden.

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

const parityUfuncDir = "testdata/parity_ufunc"

func ufuncF64p(v float64) *float64 { return &v }

var ufuncExprs = map[string]confExpr{
	"u_floor_empty": func(in []*Array) *Array { return Floor(in[0]) },
	"u_isnan_empty": func(in []*Array) *Array { return IsNaN(in[0]) },
	"u_rint_0d":     func(in []*Array) *Array { return in[0].Rint() },

	"alias_radians":     func(in []*Array) *Array { return Deg2Rad(in[0]) },
	"alias_degrees":     func(in []*Array) *Array { return Rad2Deg(in[0]) },
	"alias_bitwise_not": func(in []*Array) *Array { return Invert(in[0]) },

	"sc_u8_and_256":         func(in []*Array) *Array { return BitwiseAnd(in[0], 256) },
	"sc_u8_fmod_256":        func(in []*Array) *Array { return Fmod(in[0], 256) },
	"sc_u8_fmax_256":        func(in []*Array) *Array { return Fmax(in[0], 256) },
	"sc_u8_fmin_neg1":       func(in []*Array) *Array { return Fmin(in[0], -1) },
	"sc_u8_lshift_2":        func(in []*Array) *Array { return LeftShift(in[0], 2) },
	"sc_i8_or_200":          func(in []*Array) *Array { return BitwiseOr(in[0], 200) },
	"sc_u16_xor_65536":      func(in []*Array) *Array { return BitwiseXor(in[0], 65536) },
	"sc_f32_hypot_2_5":      func(in []*Array) *Array { return Hypot(in[0], 2.5) },
	"sc_f32_copysign_neg1":  func(in []*Array) *Array { return Copysign(in[0], -1.0) },
	"sc_f64_heaviside_half": func(in []*Array) *Array { return Heaviside(in[0], 0.5) },
	"sc_i64_hypot_3":        func(in []*Array) *Array { return Hypot(in[0], 3) },
	"sc_bool_fmax_true":     func(in []*Array) *Array { return Fmax(in[0], true) },

	"round_f32_40":    func(in []*Array) *Array { return in[0].Round(40) },
	"round_f64_m400":  func(in []*Array) *Array { return Around(in[0], -400) },
	"round_fused":     func(in []*Array) *Array { return Around(in[0].Mul(3.3).Add(in[1]), 1) },
	"clip_f64":        func(in []*Array) *Array { return in[0].Clip(-1, 1.5) },
	"clip_f64_lo":     func(in []*Array) *Array { return Clip(in[0], -0.5, nil) },
	"clip_f64_hi":     func(in []*Array) *Array { return Clip(in[0], nil, 0.5) },
	"clip_f64_none":   func(in []*Array) *Array { return Clip(in[0], nil, nil) },
	"clip_f32":        func(in []*Array) *Array { return Clip(in[0], 0, 2) },
	"clip_i8_300":     func(in []*Array) *Array { return Clip(in[0], 0, 300) },
	"clip_u8_neg":     func(in []*Array) *Array { return Clip(in[0], -1, 100) },
	"clip_i64_arrays": func(in []*Array) *Array { return Clip(in[0], in[1], in[2].Add(4)) },
	"clip_f64_row":    func(in []*Array) *Array { return Clip(in[0], in[1], 2) },
	"clip_c128":       func(in []*Array) *Array { return Clip(in[0], complex(-1, 0), complex(1, 0.5)) },
	"clip_bool":       func(in []*Array) *Array { return Clip(in[0], false, true) },
	"n2n_f64":         func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{}) },
	"n2n_f64_args": func(in []*Array) *Array {
		return NanToNum(in[0], NanToNumOpts{Nan: -1, PosInf: ufuncF64p(9), NegInf: ufuncF64p(-9)})
	},
	"n2n_f32":     func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{}) },
	"n2n_f32_big": func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{PosInf: ufuncF64p(1e300)}) },
	"n2n_c128":    func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{}) },
	"n2n_c64_args": func(in []*Array) *Array {
		return NanToNum(in[0], NanToNumOpts{Nan: 5, PosInf: ufuncF64p(6), NegInf: ufuncF64p(-6)})
	},
	"n2n_i64":          func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{}) },
	"n2n_bool":         func(in []*Array) *Array { return NanToNum(in[0], NanToNumOpts{}) },
	"angle_c128":       func(in []*Array) *Array { return Angle(in[0], false) },
	"angle_c64_deg":    func(in []*Array) *Array { return Angle(in[0], true) },
	"angle_f64":        func(in []*Array) *Array { return Angle(in[0], false) },
	"angle_f32_deg":    func(in []*Array) *Array { return Angle(in[0], true) },
	"angle_i64":        func(in []*Array) *Array { return Angle(in[0], false) },
	"angle_bool":       func(in []*Array) *Array { return Angle(in[0], false) },
	"isclose_f64":      func(in []*Array) *Array { return IsClose(in[0], in[1]) },
	"isclose_self":     func(in []*Array) *Array { return IsClose(in[0], in[0].Add(1e-9)) },
	"isclose_self_nan": func(in []*Array) *Array { return IsClose(in[0], in[0], IsCloseOpts{1e-5, 1e-8, true}) },
	"isclose_tol":      func(in []*Array) *Array { return IsClose(in[0], in[1], IsCloseOpts{Rtol: 0.5, Atol: 0.3}) },
	"isclose_tol_nan": func(in []*Array) *Array {
		return IsClose(in[0], in[1], IsCloseOpts{Rtol: 0.5, Atol: 0.3, EqualNaN: true})
	},
	"isclose_f32":     func(in []*Array) *Array { return IsClose(in[0], in[1], IsCloseOpts{Rtol: 1, Atol: 1e-8}) },
	"isclose_i64":     func(in []*Array) *Array { return IsClose(in[0], in[1], IsCloseOpts{Rtol: 1e-5, Atol: 3}) },
	"isclose_i64_f64": func(in []*Array) *Array { return IsClose(in[0], in[1], IsCloseOpts{Rtol: 1e-5, Atol: 1}) },
	"isclose_row":     func(in []*Array) *Array { return IsClose(in[0], in[1], IsCloseOpts{Rtol: 1e-5, Atol: 0.5}) },
	"isclose_c128": func(in []*Array) *Array {
		return IsClose(in[0], in[1], IsCloseOpts{Rtol: 1e-5, Atol: 1, EqualNaN: true})
	},
	"isclose_bool":        func(in []*Array) *Array { return IsClose(in[0], in[1]) },
	"isclose_0d":          func(in []*Array) *Array { return IsClose(in[0], in[1]) },
	"isclose_shapes":      func(in []*Array) *Array { return IsClose(in[0], in[1]) },
	"allclose_f64":        func(in []*Array) *Array { return AllClose(in[0], in[1]) },
	"allclose_self_nan":   func(in []*Array) *Array { return AllClose(in[0], in[0].Add(1e-12), IsCloseOpts{1e-5, 1e-8, true}) },
	"allclose_self":       func(in []*Array) *Array { return AllClose(in[0], in[0]) },
	"allclose_i64":        func(in []*Array) *Array { return AllClose(in[0], in[1], IsCloseOpts{Rtol: 1e-5, Atol: 20}) },
	"array_equal_same":    func(in []*Array) *Array { return ArrayEqual(in[0], in[0], false) },
	"array_equal_nan":     func(in []*Array) *Array { return ArrayEqual(in[0], in[0], true) },
	"array_equal_diff":    func(in []*Array) *Array { return ArrayEqual(in[0], in[1], false) },
	"array_equal_shape":   func(in []*Array) *Array { return ArrayEqual(in[0], in[1], false) },
	"array_equal_i64_f32": func(in []*Array) *Array { return ArrayEqual(in[0], in[1], false) },
	"array_equal_c128_nan": func(in []*Array) *Array {
		return ArrayEqual(in[0], in[0], true)
	},
	"fused_chain": func(in []*Array) *Array {
		return Floor(Tanh(in[0]).Mul(4)).Add(Hypot(in[0], in[1]).Mul(Sign(in[1])))
	},
	"fused_sum": func(in []*Array) *Array { return Logaddexp(in[0], 1.0).Sum(0) },
}

// ufuncUnaryNames, ufuncBinaryNames, ... are the rows the script makes per
// op and dtype (those numpy computes in float16 are left out there).
var (
	ufuncUnaryList = []string{"floor", "ceil", "trunc", "rint", "sign", "reciprocal", "cbrt", "log10", "log2",
		"log1p", "expm1", "exp2", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
		"arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "conjugate", "isnan", "isinf",
		"isfinite", "signbit", "invert", "real", "imag", "isposinf", "isneginf", "fabs", "nan_to_num"}
	ufuncUnaryDTypes = []string{"f64", "f32", "i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64", "bool", "c128", "c64", "c128nan", "c64nan", "unit"}
	ufuncBinaryList  = []string{"hypot", "fmod", "fmax", "fmin", "copysign", "heaviside", "logaddexp", "logaddexp2",
		"bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"}
	ufuncPairs = []string{"f64", "f32", "f64row", "f32f64", "i64", "i32", "i8", "u8", "u8i8", "i32u64", "bool", "c128", "i64f32", "counts", "counts_i8"}
)

func init() {
	for _, name := range ufuncUnaryList {
		op, err := nd.ParseUnaryOp(name)
		if err != nil {
			panic(err)
		}
		for _, d := range ufuncUnaryDTypes {
			ufuncExprs["u_"+name+"_"+d] = func(in []*Array) *Array { return Unary(op, in[0]) }
		}
	}
	for _, name := range ufuncBinaryList {
		op, err := nd.ParseBinaryOp(name)
		if err != nil {
			panic(err)
		}
		for _, p := range ufuncPairs {
			ufuncExprs["b_"+name+"_"+p] = bin(op)
		}
	}
	for _, d := range []string{"f64", "f32", "c128", "c64", "i64", "i32", "u8", "u64", "i8", "bool"} {
		for _, dec := range []int{0, 1, 2, -1, -2} {
			n := strings.ReplaceAll("round_"+d+"_"+ufuncItoa(dec), "-", "m")
			ufuncExprs[n] = func(in []*Array) *Array { return Round(in[0], dec) }
		}
	}
}

func ufuncItoa(i int) string {
	if i < 0 {
		return "-" + ufuncItoa(-i)
	}
	return string(rune('0' + i))
}

// ufuncGenerated reports whether name is one of init's rows per op and
// dtype, which the script may leave out (float16 results).
func ufuncGenerated(name string) bool {
	return strings.HasPrefix(name, "u_") || strings.HasPrefix(name, "b_") || strings.HasPrefix(name, "round_")
}

func TestParityUfunc(t *testing.T) { runParity(t, parityUfuncDir, confCases(ufuncExprs)) }

// TestUfuncDTypes checks nd's result dtypes of the ufuncs for every dtype
// and pair of dtypes against numpy's (testdata/parity_ufunc/dtypes.json):
// the same dtype, an error where numpy raises, and float32 where numpy
// computes in float16.
func TestUfuncDTypes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(parityUfuncDir, "dtypes.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Unary  map[string]map[string]string `json:"unary"`
		Binary map[string]map[string]string `json:"binary"`
		Scalar map[string]map[string]string `json:"scalar"`
	}
	if err := json.Unmarshal(b, &table); err != nil {
		t.Fatal(err)
	}
	check := func(what, want string, got nd.DType, err error) {
		t.Helper()
		switch {
		case want == "error":
			var te *nd.TypeError
			if !errors.As(err, &te) {
				t.Errorf("%s: got %v, %v; numpy raises", what, got, err)
			}
		case err != nil:
			t.Errorf("%s: %v; numpy gives %s", what, err, want)
		case want == "float16" && got != nd.Float32, want != "float16" && got.String() != want:
			t.Errorf("%s: got %s, numpy gives %s", what, got, want)
		}
	}
	n := 0
	for name, row := range table.Unary {
		op, err := nd.ParseUnaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		for dn, want := range row {
			d, _, err := nd.ParseDType(dn)
			if err != nil {
				t.Fatal(err)
			}
			got, err := nd.UnaryResultType(op, d)
			check(name+"("+dn+")", want, got, err)
			n++
		}
	}
	for name, row := range table.Binary {
		op, err := nd.ParseBinaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		for pair, want := range row {
			an, bn, _ := strings.Cut(pair, ",")
			a, _, err1 := nd.ParseDType(an)
			b, _, err2 := nd.ParseDType(bn)
			if err := errors.Join(err1, err2); err != nil {
				t.Fatal(err)
			}
			got, err := nd.BinaryResultType(op, a, b)
			check(name+"("+pair+")", want, got, err)
			n++
		}
	}
	scalars := map[string]any{"int1": 1, "int300": 300, "intm1": -1, "int70000": 70000, "int2e40": 1 << 40,
		"f2_5": 2.5, "f1e300": 1e300, "true": true, "c1j": 1i}
	for name, row := range table.Scalar {
		op, err := nd.ParseBinaryOp(name)
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range row {
			parts := strings.Split(key, ",")
			d, _, err := nd.ParseDType(parts[0])
			if err != nil {
				t.Fatal(err)
			}
			arr, _ := nd.Zeros(d, 2)
			sc, err := nd.ScalarOf(scalars[parts[1]])
			if err != nil {
				t.Fatal(err)
			}
			var got nd.DType
			if parts[2] == "r" {
				got, err = nd.BinaryResultTypeOf(op, arr, sc)
			} else {
				got, err = nd.BinaryResultTypeOf(op, sc, arr)
			}
			check(name+"("+key+")", want, got, err)
			n++
		}
	}
	if n < 2000 {
		t.Fatalf("only %d rows in dtypes.json", n)
	}
}

// TestParityUfuncGoldensCurrent checks that testdata/parity_ufunc is what
// gen_parity_ufunc.py writes now.
func TestParityUfuncGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_ufunc.py", parityUfuncDir)
}

// TestParityUfuncExprsHaveCases keeps the expression table and the
// manifest in step (the generated rows aside).
func TestParityUfuncExprsHaveCases(t *testing.T) {
	names := map[string]bool{}
	for _, c := range loadCases(t, parityUfuncDir) {
		names[c.Name] = true
		if _, ok := ufuncExprs[c.Name]; !ok {
			t.Errorf("case %q has no expression", c.Name)
		}
	}
	for name := range ufuncExprs {
		if !names[name] && !ufuncGenerated(name) {
			t.Errorf("expression %q has no case in %s/cases.json", name, parityUfuncDir)
		}
	}
}
