package nd

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveAdd is a second code path: element by element through At and
// float64 arithmetic, for operands whose values are small integers.
func naiveAdd(t *testing.T, a, b *Array, shape []int) []float64 {
	t.Helper()
	av, _ := a.BroadcastTo(shape...)
	bv, _ := b.BroadcastTo(shape...)
	af, _ := av.AsType(Float64)
	bf, _ := bv.AsType(Float64)
	x, _ := Values[float64](af)
	y, _ := Values[float64](bf)
	out := make([]float64, len(x))
	for i := range x {
		out[i] = x[i] + y[i]
	}
	return out
}

// TestBinaryLayouts adds operands of every layout the engine treats apart
// (contiguous, transposed, reversed, broadcast, 0-d, a Full constant) and
// checks the result against a naive second path.
func TestBinaryLayouts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base := make([]int32, 3*1100)
	for i := range base {
		base[i] = int32(r.IntN(200) - 100)
	}
	m, _ := FromSlice(base, 3, 1100)
	mt, _ := m.Transpose()
	rev, _ := m.Slice(Slice1{2, -1, -1}, Slice1{1099, -1, -2})
	col, _ := m.Slice(Slice1{0, 3, 1}, Slice1{5, 6, 1})
	full, _ := Full(Int16, 7, 3, 1100)
	tests := []struct {
		name string
		a, b *Array
	}{
		{"contiguous", m, m},
		{"transposed", mt, mt},
		{"transposed-contiguous", mt, ewReshape(t, m.Copy(), 1100, 3)},
		{"reversed-step2", rev, rev},
		{"column-broadcast", m, col},
		{"scalar-right", m, Scalar(int32(5))},
		{"scalar-left", Scalar(int64(-3)), m},
		{"full-constant", full, m},
		{"full-both", full, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Binary(Add, tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			want := naiveAdd(t, tt.a, tt.b, got.Shape())
			gf, _ := got.AsType(Float64)
			g, _ := Values[float64](gf)
			if !slices.Equal(g, want) {
				t.Errorf("got %v..., want %v...", g[:8], want[:8])
			}
		})
	}
}

func ewReshape(t *testing.T, a *Array, shape ...int) *Array {
	t.Helper()
	r, err := a.Reshape(shape...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBinaryIntoStridedAndAliased(t *testing.T) {
	a, _ := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b, _ := FromSlice([]float64{10, 20, 30}, 3)
	// dst: a transposed view of a (3,2) buffer, so not contiguous.
	buf, _ := Zeros(Float64, 3, 2)
	dst, _ := buf.Transpose()
	if err := BinaryInto(Mul, dst, a, b); err != nil {
		t.Fatal(err)
	}
	got, _ := Values[float64](buf)
	if want := []float64{10, 40, 40, 100, 90, 180}; !slices.Equal(got, want) {
		t.Errorf("strided dst: buffer %v, want %v", got, want)
	}
	// dst is a itself.
	ac := a.Copy()
	if err := BinaryInto(Sub, ac, ac, b); err != nil {
		t.Fatal(err)
	}
	got, _ = Values[float64](ac)
	if want := []float64{-9, -18, -27, -6, -15, -24}; !slices.Equal(got, want) {
		t.Errorf("in place: %v, want %v", got, want)
	}
	if err := UnaryInto(Neg, ac, ac); err != nil {
		t.Fatal(err)
	}
	got, _ = Values[float64](ac)
	if want := []float64{9, 18, 27, 6, 15, 24}; !slices.Equal(got, want) {
		t.Errorf("unary in place: %v, want %v", got, want)
	}
}

func TestElementwiseErrors(t *testing.T) {
	f23, _ := Zeros(Float64, 2, 3)
	f4, _ := Zeros(Float64, 4)
	i3, _ := Zeros(Int32, 3)
	i23, _ := Zeros(Int32, 2, 3) // float64 into int32: not same_kind
	var se *ShapeError
	var te *TypeError
	tests := []struct {
		name string
		err  error
		is   func(error) bool
	}{
		{"broadcast", second(Binary(Add, f23, f4)), func(e error) bool { return errors.As(e, &se) }},
		{"into-shape", BinaryInto(Add, f4, f23, i3), func(e error) bool { return errors.As(e, &se) }},
		{"into-dtype", BinaryInto(Add, i23, f23, i3), func(e error) bool { return errors.As(e, &te) }},
		{"unary-into-dtype", UnaryInto(Sqrt, f23, i3), func(e error) bool { return errors.As(e, &te) || errors.As(e, &se) }},
		{"nil", second(Binary(Add, nil, f4)), func(e error) bool { return e != nil }},
		{"where-shape", second(Where(i3, f23, f4)), func(e error) bool { return errors.As(e, &se) }},
		{"bad-op", second(Binary(BinaryOp(200), f4, f4)), func(e error) bool { return e != nil }},
		{"bad-unary", second(Unary(UnaryOp(200), f4)), func(e error) bool { return e != nil }},
		{"neg-pow", second(Binary(Pow, i3, Scalar(int64(-1)))), func(e error) bool { return errors.Is(e, ErrNegativeIntPower) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.is(tt.err) {
				t.Errorf("error %T %v", tt.err, tt.err)
			}
		})
	}
}

func second(_ *Array, err error) error { return err }

// TestFullStaysCompact checks that casting a constant (zero-stride) array
// for an operation does not materialise it.
func TestFullStaysCompact(t *testing.T) {
	big, _ := Full(Int32, 3, 1<<20, 1<<10) // 2^30 elements, one stored
	one, _ := Full(Float64, 0.5, 1, 1)
	// Where on broadcast operands of a huge shape would need GBs if the
	// cast copied; castCompact keeps one element.
	c := castCompact(big, Float64)
	if n := len(c.Data().([]float64)); n != 1 {
		t.Errorf("castCompact stored %d elements, want 1", n)
	}
	r, err := Binary(Mul, one, Scalar(int32(4)))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := r.At(0, 0); v != 2.0 {
		t.Errorf("0.5*4 = %v", v)
	}
}

func TestParseOps(t *testing.T) {
	for op := range numBinaryOps {
		got, err := ParseBinaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseBinaryOp(%q) = %v, %v", op.String(), got, err)
		}
	}
	for op := range numUnaryOps {
		got, err := ParseUnaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseUnaryOp(%q) = %v, %v", op.String(), got, err)
		}
	}
	for name, want := range map[string]BinaryOp{"true_divide": Div, "mod": Mod, "pow": Pow} {
		if got, _ := ParseBinaryOp(name); got != want {
			t.Errorf("ParseBinaryOp(%q) = %v, want %v", name, got, want)
		}
	}
	if _, err := ParseBinaryOp("no_such_ufunc"); err == nil {
		t.Error("ParseBinaryOp(no_such_ufunc): no error")
	}
	if _, err := ParseUnaryOp("no_such_ufunc"); err == nil {
		t.Error("ParseUnaryOp(no_such_ufunc): no error")
	}
}

func FuzzParseBinaryOp(f *testing.F) {
	f.Add("add")
	f.Add("true_divide")
	f.Fuzz(func(t *testing.T, s string) {
		op, err := ParseBinaryOp(s)
		if err == nil && (op >= numBinaryOps && op < ufuncBinaryBase || op >= ufuncBinaryEnd) {
			t.Errorf("ParseBinaryOp(%q) = invalid op %d", s, op)
		}
	})
}
