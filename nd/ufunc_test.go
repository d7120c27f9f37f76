package nd

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

// The values of the ufuncs are checked against numpy by chunkarray's
// parity_ufunc goldens; here, the tables themselves.

func TestUfuncNamesRoundTrip(t *testing.T) {
	for op := ufuncUnaryBase; op < ufuncUnaryEnd; op++ {
		got, err := ParseUnaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseUnaryOp(%q) = %v, %v; want %d", op.String(), got, err, op)
		}
	}
	for op := ufuncBinaryBase; op < ufuncBinaryEnd; op++ {
		got, err := ParseBinaryOp(op.String())
		if err != nil || got != op {
			t.Errorf("ParseBinaryOp(%q) = %v, %v; want %d", op.String(), got, err, op)
		}
	}
	if _, err := ParseUnaryOp("no_such_op"); err == nil {
		t.Error("ParseUnaryOp accepted an unknown name")
	}
	if s := UnaryOp(ufuncUnaryEnd).String(); s != fmt.Sprintf("UnaryOp(%d)", ufuncUnaryEnd) {
		t.Errorf("String of an op past the table: %q", s)
	}
}

func TestUfuncTypeErrors(t *testing.T) {
	c, _ := Zeros(Complex128, 3)
	f, _ := Zeros(Float64, 3)
	b, _ := Zeros(Bool, 3)
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"floor complex", func() error { _, err := Unary(Floor, c); return err }},
		{"sign bool", func() error { _, err := Unary(Sign, b); return err }},
		{"invert float", func() error { _, err := Unary(Invert, f); return err }},
		{"bitwise_and float", func() error { _, err := Binary(BitwiseAnd, f, f); return err }},
		{"hypot complex", func() error { _, err := Binary(Hypot, c, f); return err }},
		{"invalid unary", func() error { _, err := Unary(ufuncUnaryEnd, f); return err }},
		{"invalid binary", func() error { _, err := Binary(ufuncBinaryEnd, f, f); return err }},
	} {
		err := tc.err()
		var te *TypeError
		if err == nil || (tc.name[:7] != "invalid" && !errors.As(err, &te)) {
			t.Errorf("%s: got %v, want a *TypeError", tc.name, err)
		}
	}
}

// TestUfuncStrided runs kernels on strided and broadcast operands (the
// gather path of runUnary and runBinary) against the contiguous result.
func TestUfuncStrided(t *testing.T) {
	vals := make([]float64, 24)
	for i := range vals {
		vals[i] = math.Sin(float64(i)) * 3
	}
	a, _ := FromSlice(vals, 4, 6)
	at, _ := a.Transpose()
	for _, op := range []UnaryOp{Floor, Rint, Sign, Tanh, IsNaN} {
		got, err := Unary(op, at)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Unary(op, at.Contiguous())
		if !ufuncEqualArrays(got, want) {
			t.Errorf("%s on a transposed operand differs from the contiguous one", op)
		}
	}
	row, _ := a.Slice(Slice1{Start: 1, Stop: 2, Step: 1}, Slice1{Start: 0, Stop: 6, Step: 1})
	for _, op := range []BinaryOp{Hypot, Fmax, Logaddexp, Copysign} {
		got, err := Binary(op, at.Contiguous(), row.Contiguous().view([]int{6}, []int{1}, 0))
		_ = got
		if err == nil {
			t.Errorf("%s: shapes (6,4) and (6,) broadcast?", op)
		}
		got, err = Binary(op, a, row)
		if err != nil {
			t.Fatal(err)
		}
		rb, _ := row.BroadcastTo(4, 6)
		want, _ := Binary(op, a, rb.Contiguous())
		if !ufuncEqualArrays(got, want) {
			t.Errorf("%s with a broadcast row differs from the materialised one", op)
		}
	}
}

func ufuncEqualArrays(a, b *Array) bool {
	if a.DType() != b.DType() || a.Size() != b.Size() {
		return false
	}
	x, _ := a.Contiguous().AsType(Complex128)
	y, _ := b.Contiguous().AsType(Complex128)
	xv, _ := Values[complex128](x)
	yv, _ := Values[complex128](y)
	for i := range xv {
		if xv[i] != yv[i] && !(xv[i] != xv[i] && yv[i] != yv[i]) {
			return false
		}
	}
	return true
}

func BenchmarkUfunc(b *testing.B) {
	n := 1 << 14
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i%1000)/100 - 5
	}
	x, _ := FromSlice(vals, n)
	dst, _ := Zeros(Float64, n)
	for _, op := range []UnaryOp{Floor, Rint, Tanh, Log1p} {
		b.Run(op.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				if err := UnaryInto(op, dst, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, op := range []BinaryOp{Hypot, Fmax, Logaddexp} {
		b.Run(op.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				if err := BinaryInto(op, dst, x, x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
