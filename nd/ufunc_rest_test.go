package nd

import (
	"errors"
	"math"
	"testing"
)

// The values of these operations are checked against numpy by
// chunkarray's parity_rest goldens; here, the tables and the edge values
// that C's functions define and Go's math package does not give.

func TestRestNamesRoundTrip(t *testing.T) {
	for op := restUnaryBase; op < restUnaryEnd; op++ {
		got, err := ParseUnaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseUnaryOp(%q) = %v, %v; want %d", op.String(), got, err, op)
		}
	}
	for op := restBinaryBase; op < restBinaryEnd; op++ {
		got, err := ParseBinaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseBinaryOp(%q) = %v, %v; want %d", op.String(), got, err, op)
		}
	}
	if s := restUnaryEnd.String(); s != "UnaryOp(136)" {
		t.Errorf("String of an op past the table: %q", s)
	}
	f, _ := Zeros(Float64, 2)
	if _, err := Unary(restUnaryEnd, f); err == nil {
		t.Error("an op past the table computed")
	}
	if _, err := Binary(restBinaryEnd, f, f); err == nil {
		t.Error("a binary op past the table computed")
	}
}

func TestRestTypes(t *testing.T) {
	for _, tc := range []struct {
		op   UnaryOp
		in   DType
		want DType // Invalid: a *TypeError
	}{
		{Positive, Bool, Invalid}, {Positive, Uint16, Uint16}, {Positive, Complex64, Complex64},
		{Sinc, Int8, Float64}, {Sinc, Bool, Float64}, {Sinc, Float32, Float32}, {Sinc, Complex64, Complex64},
		{I0, Int16, Float64}, {I0, Float32, Float32}, {I0, Complex128, Invalid},
		{Spacing, Int16, Float32}, {Spacing, Int8, Float32}, {Spacing, Uint64, Float64}, {Spacing, Complex64, Invalid},
		{ModfFrac, Int32, Float64}, {ModfInt, Complex128, Invalid},
		{FrexpMantissa, Float32, Float32}, {FrexpExponent, Float32, Int32}, {FrexpExponent, Uint8, Int32}, {FrexpExponent, Complex64, Invalid},
	} {
		got, err := UnaryResultType(tc.op, tc.in)
		var te *TypeError
		switch {
		case tc.want == Invalid && !errors.As(err, &te):
			t.Errorf("%s(%s): %v, %v; want a *TypeError", tc.op, tc.in, got, err)
		case tc.want != Invalid && (err != nil || got != tc.want):
			t.Errorf("%s(%s): %v, %v; want %s", tc.op, tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ a, b, want DType }{
		{Float32, Float32, Float32}, {Float32, Float64, Float64}, {Int16, Int16, Float32},
		{Int64, Float32, Float64}, {Int8, Uint8, Float32}, {Complex64, Float32, Invalid},
	} {
		got, err := BinaryResultType(Nextafter, tc.a, tc.b)
		if (tc.want == Invalid) != (err != nil) || (err == nil && got != tc.want) {
			t.Errorf("nextafter(%s, %s): %v, %v; want %s", tc.a, tc.b, got, err, tc.want)
		}
	}
}

func TestRestEdgeValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	x, _ := FromSlice([]float64{inf, -inf, -0.5, nan, 0, math.MaxFloat64, -5e-324}, 7)
	run := func(op UnaryOp) []float64 {
		t.Helper()
		r, err := Unary(op, x)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := Values[float64](r)
		return v
	}
	same := func(a, b float64) bool {
		return a == b && math.Signbit(a) == math.Signbit(b) || a != a && b != b
	}
	check := func(name string, got, want []float64) {
		t.Helper()
		for i := range want {
			if !same(got[i], want[i]) {
				t.Errorf("%s[%d]: got %v, want %v", name, i, got[i], want[i])
			}
		}
	}
	// C's modf: ±Inf splits into ±0 and ±Inf.
	check("modf frac", run(ModfFrac), []float64{0, math.Copysign(0, -1), -0.5, nan, 0, 0, -5e-324})
	check("modf int", run(ModfInt), []float64{inf, -inf, math.Copysign(0, -1), nan, 0, math.MaxFloat64, math.Copysign(0, -1)})
	check("spacing", run(Spacing), []float64{nan, nan, -math.Nextafter(0.5, 1) + 0.5, nan, 5e-324, inf, -5e-324})
	check("frexp m", run(FrexpMantissa), []float64{inf, -inf, -0.5, nan, 0, math.Nextafter(1, 0), -0.5})
	check("i0", run(I0), []float64{nan, nan, 1.0634833707413234, nan, 1, inf, 1}) // numpy's values
	check("sinc", run(Sinc), []float64{nan, nan, 2 / math.Pi, nan, 1, nan, 1})    // π·max overflows: sin(Inf)/Inf
	e, _ := Unary(FrexpExponent, x)
	ev, _ := Values[int32](e)
	for i, w := range []int32{0, 0, 0, 0, 0, 1024, -1073} {
		if ev[i] != w {
			t.Errorf("frexp exponent[%d]: got %d, want %d", i, ev[i], w)
		}
	}
	// nextafter(x, x) is its second operand: -0 towards +0 gives +0.
	a, _ := FromSlice([]float32{float32(math.Copysign(0, -1)), 1, 0}, 3)
	b, _ := FromSlice([]float32{0, 2, -1}, 3)
	r, _ := Binary(Nextafter, a, b)
	rv, _ := Values[float32](r)
	if math.Signbit(float64(rv[0])) || rv[1] != math.Nextafter32(1, 2) || rv[2] != -math.Float32frombits(1) {
		t.Errorf("nextafter float32: %v", rv)
	}
}

// TestExpTopOfRange: exp near its overflow is finite as numpy's (the amd64
// assembly of math.Exp gives +Inf from 709.437 on), within 2 ulps of
// exp(700)·exp(x-700) computed in two steps the other way.
func TestExpTopOfRange(t *testing.T) {
	x, _ := FromSlice([]float64{709.5, 709.78, 709.7827, 709.79, 710, 500}, 6)
	r, err := Unary(Exp, x)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := Values[float64](r)
	for i, in := range []float64{709.5, 709.78, 709.7827, 709.79, 710, 500} {
		want := math.Exp(700) * math.Exp(in-700)
		if in < 709.7828 && (math.IsInf(v[i], 0) || math.Abs(v[i]-want) > 4e-16*want) {
			t.Errorf("exp(%v) = %v, want %v", in, v[i], want)
		}
		if in > 709.79 && !math.IsInf(v[i], 1) {
			t.Errorf("exp(%v) = %v, want +Inf", in, v[i])
		}
	}
}

func BenchmarkExpKernel(b *testing.B) {
	vals := make([]float64, 1<<16)
	for i := range vals {
		vals[i] = math.Sin(float64(i)) * 50
	}
	x, _ := FromSlice(vals, len(vals))
	dst, _ := Zeros(Float64, len(vals))
	b.ReportAllocs()
	b.SetBytes(int64(len(vals) * 8))
	for b.Loop() {
		if err := UnaryInto(Exp, dst, x); err != nil {
			b.Fatal(err)
		}
	}
}
