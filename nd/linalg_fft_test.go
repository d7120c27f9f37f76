package nd

import (
	"errors"
	"math"
	"math/cmplx"
	"slices"
	"testing"
)

// Oracles here are independent of the code under test: a naive O(n²) DFT
// for the transforms, Matmul and Tensordot (gonum BLAS) for Einsum, and
// reconstruction plus structure (orthonormal, triangular, permutation)
// for the factorizations. The numpy goldens are in chunkarray's
// parity_linalg tests.

func wave(m, n int) *Array {
	v := make([]float64, m*n)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.77) + float64((i*37)%11)/5
	}
	a, _ := FromSlice(v, m, n)
	return a
}

func maxAbsDiff(t *testing.T, got, want *Array) float64 {
	t.Helper()
	g, _ := got.AsType(Complex128)
	w, _ := want.AsType(Complex128)
	gv, err := Values[complex128](g)
	if err != nil {
		t.Fatal(err)
	}
	wv, err := Values[complex128](w)
	if err != nil {
		t.Fatal(err)
	}
	if len(gv) != len(wv) {
		t.Fatalf("sizes %d and %d", len(gv), len(wv))
	}
	d := 0.0
	for i := range gv {
		d = max(d, cmplx.Abs(gv[i]-wv[i]))
	}
	return d
}

func naiveDFT(x []complex128, n int, inverse bool) []complex128 {
	out := make([]complex128, n)
	sign := -1.0
	if inverse {
		sign = 1
	}
	for k := range n {
		var s complex128
		for j := 0; j < min(n, len(x)); j++ {
			s += x[j] * cmplx.Exp(complex(0, sign*2*math.Pi*float64(j*k)/float64(n)))
		}
		out[k] = s
	}
	return out
}

func TestFFTAgainstNaiveDFT(t *testing.T) {
	x := []complex128{1, 2 - 1i, 0.5i, -3, 4 + 2i, 0.25, -1i}
	a, _ := FromSlice(x, len(x))
	for _, tc := range []struct {
		name    string
		n       int
		norm    string
		inverse bool
	}{
		{"same", 7, "", false}, {"pad", 12, "", false}, {"trunc", 4, "ortho", false},
		{"inverse", 7, "backward", true}, {"inverse-forward", 9, "forward", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kind := FFTForward
			if tc.inverse {
				kind = FFTInverse
			}
			got, err := FFTN(a, kind, []int{tc.n}, []int{0}, tc.norm)
			if err != nil {
				t.Fatal(err)
			}
			w := naiveDFT(x, tc.n, tc.inverse)
			scale := fftScale(tc.inverse, tc.n, tc.norm)
			for i := range w {
				w[i] *= complex(scale, 0)
			}
			want, _ := FromSlice(w, tc.n)
			if d := maxAbsDiff(t, got, want); d > 1e-12 {
				t.Errorf("max |got - want| = %g", d)
			}
		})
	}
}

func TestRFFTRoundTrip(t *testing.T) {
	a := wave(3, 10)
	for _, n := range []int{10, 11} {
		r, err := FFTN(a, FFTReal, []int{n}, []int{1}, "ortho")
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Shape()[1]; got != n/2+1 {
			t.Fatalf("rfft length %d, want %d", got, n/2+1)
		}
		back, err := FFTN(r, FFTRealInv, []int{n}, []int{1}, "ortho")
		if err != nil {
			t.Fatal(err)
		}
		want := a
		if n > 10 {
			want, _ = Zeros(Float64, 3, n)
			v, _ := want.Slice(Slice1{0, 3, 1}, Slice1{0, 10, 1})
			_ = Assign(v, a)
		}
		if d := maxAbsDiff(t, back, want); d > 1e-12 {
			t.Errorf("n=%d: round trip off by %g", n, d)
		}
	}
}

func TestFFTErrors(t *testing.T) {
	a := wave(2, 3)
	for name, f := range map[string]func() error{
		"n0":       func() error { _, err := FFTN(a, FFTForward, []int{0}, []int{0}, ""); return err },
		"norm":     func() error { _, err := FFTN(a, FFTForward, nil, nil, "bogus"); return err },
		"axis":     func() error { _, err := FFTN(a, FFTForward, nil, []int{2}, ""); return err },
		"s-axes":   func() error { _, err := FFTN(a, FFTForward, []int{2, 2}, []int{0}, ""); return err },
		"irfft-m1": func() error { _, err := FFTN(wave(2, 1), FFTRealInv, nil, nil, ""); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestEinsumAgainstBLAS(t *testing.T) {
	a, b := wave(4, 6), wave(6, 5)
	mm, _ := Matmul(a, b)
	for _, sub := range []string{"ij,jk->ik", "ij,jk", "ik,kj"} {
		got, err := Einsum(sub, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(t, got, mm); d > 1e-12 {
			t.Errorf("%s: off by %g", sub, d)
		}
	}
	// transposed output: (a·b)ᵀ
	got, err := Einsum("ij,jk->ki", a, b)
	if err != nil {
		t.Fatal(err)
	}
	mt, _ := mm.Transpose()
	if d := maxAbsDiff(t, got, mt); d > 1e-12 {
		t.Errorf("->ki: off by %g", d)
	}
	// a contraction over two axes: tensordot
	x, _ := wave(4, 6).Reshape(2, 2, 6)
	y, _ := wave(2, 6).Reshape(2, 6)
	td, _ := Tensordot(x, y, []int{0, 2}, []int{0, 1})
	got, err = Einsum("abc,ac->b", x, y)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(t, got, td); d > 1e-12 {
		t.Errorf("abc,ac->b: off by %g", d)
	}
}

// TestEinsumPairAgainstLoop checks the Tensordot path of two-operand
// contractions against the one-loop evaluation, over dtypes.
func TestEinsumPairAgainstLoop(t *testing.T) {
	x, _ := wave(4, 6).Reshape(2, 2, 6)
	y := wave(6, 3)
	for _, dt := range []DType{Float64, Float32, Int8, Uint16, Bool, Complex128} {
		a, _ := Binary(Mul, x, Scalar(7.0))
		a, _ = a.AsType(dt)
		b, _ := Binary(Mul, y, Scalar(-5.0))
		b, _ = b.AsType(dt)
		for _, sub := range []string{"abc,cd->abd", "abc,cd->dba", "abc,cd->", "abc,cd", "abc,de->abcde", "abc,cb->a"} {
			nds := []int{3, 2}
			spec, err := ParseEinsum(sub, nds)
			if err != nil {
				t.Fatal(err)
			}
			ops := []*Array{a, b}
			if sub == "abc,cb->a" {
				bb, _ := b.Slice(Slice1{0, 6, 1}, Slice1{0, 2, 1})
				ops[1] = bb
			}
			got, err := einsumEval(spec, ops, true)
			if err != nil {
				t.Fatalf("%s %s: %v", dt, sub, err)
			}
			want, err := einsumEval(spec, ops, false)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
				t.Fatalf("%s %s: %s%v, want %s%v", dt, sub, got.DType(), got.Shape(), want.DType(), want.Shape())
			}
			tol := 1e-9
			if dt == Float32 {
				tol = 1e-3
			}
			if d := maxAbsDiff(t, got, want); d > tol {
				t.Errorf("%s %s: off by %g", dt, sub, d)
			}
		}
	}
}

func TestEinsumErrors(t *testing.T) {
	a := wave(3, 4)
	for _, sub := range []string{"ij,jk", "i1", "ijk", "ij->iz", "ij->ii", "ij->->i", "ii", "i...->i"} {
		if _, err := Einsum(sub, a); err == nil {
			t.Errorf("%q: no error", sub)
		}
	}
}

func TestQRSVDStructure(t *testing.T) {
	for _, sh := range [][2]int{{9, 4}, {4, 9}, {5, 5}, {0, 3}} {
		a := wave(sh[0], sh[1])
		q, r, err := QR(a)
		if err != nil {
			t.Fatal(err)
		}
		qr, _ := Matmul(q, r)
		if d := maxAbsDiff(t, qr, a); d > 1e-12 {
			t.Errorf("%v: q·r off by %g", sh, d)
		}
		qt, _ := q.Transpose()
		qtq, _ := Matmul(qt, q)
		k := min(sh[0], sh[1])
		eye := make([]float64, k*k)
		for i := range k {
			eye[i*k+i] = 1
		}
		e, _ := FromSlice(eye, k, k)
		if d := maxAbsDiff(t, qtq, e); d > 1e-12 {
			t.Errorf("%v: qᵀq off I by %g", sh, d)
		}
		u, s, vh, err := SVD(a)
		if err != nil {
			t.Fatal(err)
		}
		s2, _ := s.Reshape(1, k)
		us, _ := Binary(Mul, u, s2)
		usv, _ := Matmul(us, vh)
		if d := maxAbsDiff(t, usv, a); d > 1e-12 {
			t.Errorf("%v: u·s·vh off by %g", sh, d)
		}
	}
}

func TestLUCholeskyInvSolve(t *testing.T) {
	a := wave(6, 6)
	p, l, u, err := LU(a)
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := Matmul(p, l)
	plu, _ := Matmul(pl, u)
	if d := maxAbsDiff(t, plu, a); d > 1e-12 {
		t.Errorf("p·l·u off by %g", d)
	}
	lv, _ := Values[float64](l)
	uv, _ := Values[float64](u)
	for i := range 6 {
		if lv[i*6+i] != 1 {
			t.Errorf("l[%d,%d] = %g, want 1", i, i, lv[i*6+i])
		}
		for j := range 6 {
			if j > i && lv[i*6+j] != 0 || j < i && uv[i*6+j] != 0 {
				t.Errorf("l or u not triangular at %d,%d", i, j)
			}
			if j < i && math.Abs(lv[i*6+j]) > 1 {
				t.Errorf("|l[%d,%d]| = %g > 1: not partial pivoting", i, j, lv[i*6+j])
			}
		}
	}
	inv, err := Inv(a)
	if err != nil {
		t.Fatal(err)
	}
	ai, _ := Matmul(a, inv)
	eye, _ := Zeros(Float64, 6, 6)
	ev := eye.Data().([]float64)
	for i := range 6 {
		ev[i*6+i] = 1
	}
	if d := maxAbsDiff(t, ai, eye); d > 1e-10 {
		t.Errorf("a·inv(a) off I by %g", d)
	}
	b := wave(6, 2)
	x, err := Solve(a, b)
	if err != nil {
		t.Fatal(err)
	}
	ax, _ := Matmul(a, x)
	if d := maxAbsDiff(t, ax, b); d > 1e-10 {
		t.Errorf("a·solve(a, b) off b by %g", d)
	}
	at, _ := a.Transpose()
	spd, _ := Matmul(a, at)
	for _, lower := range []bool{true, false} {
		c, err := Cholesky(spd, lower)
		if err != nil {
			t.Fatal(err)
		}
		ct, _ := c.Transpose()
		var cc *Array
		if lower {
			cc, _ = Matmul(c, ct)
		} else {
			cc, _ = Matmul(ct, c)
		}
		if d := maxAbsDiff(t, cc, spd); d > 1e-10 {
			t.Errorf("lower=%v: reconstruction off by %g", lower, d)
		}
	}
	// errors: singular, not positive definite, complex, not square
	z, _ := Zeros(Float64, 3, 3)
	c, _ := Zeros(Complex128, 2, 2)
	var le *LinAlgError
	for name, f := range map[string]func() error{
		"inv-singular":   func() error { _, err := Inv(z); return err },
		"solve-singular": func() error { _, err := Solve(z, wave(3, 1)); return err },
		"cholesky-notpd": func() error { _, err := Cholesky(z, true); return err },
		"chol-complex":   func() error { _, err := Cholesky(c, true); return err },
		"inv-nonsquare":  func() error { _, err := Inv(wave(2, 3)); return err },
	} {
		if err := f(); !errors.As(err, &le) {
			t.Errorf("%s: got %v, want a *LinAlgError", name, err)
		}
	}
}

func BenchmarkEinsumMatmul64(b *testing.B) {
	x, y := wave(64, 64), wave(64, 64)
	spec, err := ParseEinsum("ij,jk->ik", []int{2, 2})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EinsumSpecOf(spec, x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(64*64*64)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmul-add/s")
}

func BenchmarkEinsumBatchLoop(b *testing.B) {
	x, _ := wave(64, 64).Reshape(4, 16, 64)
	y, _ := wave(64, 64).Reshape(4, 64, 16)
	spec, err := ParseEinsum("bij,bjk->bik", []int{3, 3})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EinsumSpecOf(spec, x, y); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(4*16*64*16)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mmul-add/s")
}

func BenchmarkFFTLanes(b *testing.B) {
	x := wave(64, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(x.Nbytes()))
	for b.Loop() {
		if _, err := FFTN(x, FFTReal, nil, []int{1}, ""); err != nil {
			b.Fatal(err)
		}
	}
}

// numpy.fft.fftfreq(8), fftfreq(5, d=0.5), rfftfreq(7, d=2) (printed by
// numpy 1.24).
func TestFFTFreq(t *testing.T) {
	for name, tc := range map[string]struct{ got, want []float64 }{
		"fftfreq-8":    {FFTFreq(8, 1), []float64{0, 0.125, 0.25, 0.375, -0.5, -0.375, -0.25, -0.125}},
		"fftfreq-5":    {FFTFreq(5, 0.5), []float64{0, 0.4, 0.8, -0.8, -0.4}},
		"rfftfreq-7-2": {RFFTFreq(7, 2), []float64{0, 1.0 / 14, 2.0 / 14, 3.0 / 14}},
	} {
		if len(tc.got) != len(tc.want) {
			t.Fatalf("%s: %v, want %v", name, tc.got, tc.want)
		}
		for i := range tc.want {
			if math.Abs(tc.got[i]-tc.want[i]) > 1e-15 {
				t.Errorf("%s: %v, want %v", name, tc.got, tc.want)
				break
			}
		}
	}
}
