package chunkarray

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Properties of the decompositions that the numpy goldens do not reach:
// empty row blocks, chunkings that differ along one einsum label,
// chunk-independence of the randomised SVD, nil and bad inputs.

func laCompute(t *testing.T, a *Array) *nd.Array {
	t.Helper()
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	r, err := a.Compute(context.Background(), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// maxDiff is the largest |got - want| over the elements.
func laMaxDiff(t *testing.T, got, want *nd.Array) float64 {
	t.Helper()
	if len(got.Shape()) != len(want.Shape()) || got.Size() != want.Size() {
		t.Fatalf("shapes %v and %v", got.Shape(), want.Shape())
	}
	g, _ := got.AsType(nd.Complex128)
	w, _ := want.AsType(nd.Complex128)
	gv, _ := nd.Values[complex128](g)
	wv, _ := nd.Values[complex128](w)
	d := 0.0
	for i := range gv {
		d = max(d, cmplx.Abs(gv[i]-wv[i]))
	}
	return d
}

func TestTSQREmptyAndOneRowBlocks(t *testing.T) {
	a := laWave(t, 13, 5)
	for _, rows := range [][]int{{0, 5, 0, 8}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {13}, {2, 11, 0}} {
		x := FromNDArray(a, [][]int{rows, {5}})
		q, r := TSQR(x)
		if got := q.Chunks()[0]; len(got) != len(rows) {
			t.Errorf("%v: q's row chunks %v", rows, got)
		}
		if d := laMaxDiff(t, laCompute(t, Matmul(q, r)), a); d > 1e-12 {
			t.Errorf("%v: q·r off a by %g", rows, d)
		}
		eye, _ := nd.Zeros(nd.Float64, 5, 5)
		for i := range 5 {
			eye.Data().([]float64)[i*5+i] = 1
		}
		if d := laMaxDiff(t, laCompute(t, Matmul(q.T(), q)), eye); d > 1e-12 {
			t.Errorf("%v: qᵀq off I by %g", rows, d)
		}
		rv, _ := nd.Values[float64](laCompute(t, r))
		for i := range 5 {
			for j := range i {
				if rv[i*5+j] != 0 {
					t.Errorf("%v: r[%d,%d] = %g, want 0", rows, i, j, rv[i*5+j])
				}
			}
		}
	}
}

func TestEinsumLabelChunkings(t *testing.T) {
	a := laWave(t, 4, 4)
	b := laWave(t, 4, 6)
	for name, tc := range map[string]struct {
		sub  string
		ins  []*Array
		eval func() (*nd.Array, error)
	}{
		"trace-two-chunkings": {"ii", []*Array{FromNDArray(a, [][]int{{2, 2}, {1, 3}})},
			func() (*nd.Array, error) { return nd.Einsum("ii", a) }},
		"diag-empty-chunk": {"ii->i", []*Array{FromNDArray(a, [][]int{{0, 4}, {3, 0, 1}})},
			func() (*nd.Array, error) { return nd.Einsum("ii->i", a) }},
		"matmul-j-differs": {"ij,jk->ik", []*Array{FromNDArray(a, [][]int{{4}, {1, 3}}), FromNDArray(b, [][]int{{2, 2}, {5, 1}})},
			func() (*nd.Array, error) { return nd.Matmul(a, b) }},
		"sum-all-many-blocks": {"ij,jk->", []*Array{FromNDArray(a, 1), FromNDArray(b, 1)},
			func() (*nd.Array, error) { m, _ := nd.Matmul(a, b); return nd.Reduce(nd.Sum, m, nil, false) }},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := tc.eval()
			if err != nil {
				t.Fatal(err)
			}
			if d := laMaxDiff(t, laCompute(t, Einsum(tc.sub, tc.ins...)), want); d > 1e-12 {
				t.Errorf("off by %g", d)
			}
		})
	}
}

// The randomised SVD draws its test matrix from a chunk-independent
// stream, so its result does not depend on a's chunking (beyond
// rounding), even where it only approximates a.
func TestSVDCompressedChunkIndependent(t *testing.T) {
	a := laWave(t, 30, 9) // full rank: rank-4 is an approximation
	var first *nd.Array
	for _, ch := range []any{-1, 7, [][]int{{1, 29}, {4, 5}}, [][]int{{10, 10, 10}, {9}}} {
		u, s, vh := SVDCompressed(FromNDArray(a, ch), 4, SVDCompressedOpts{Seed: 3, NPowerIter: 1})
		got := laCompute(t, Matmul(u.Mul(s), vh))
		if first == nil {
			first = got
			continue
		}
		if d := laMaxDiff(t, got, first); d > 1e-10 {
			t.Errorf("chunks %v: differs from the one-block result by %g", ch, d)
		}
	}
	// and it is the best rank-4 approximation to within the oversampling's
	// accuracy: its error is near numpy's (from nd.SVD) tail
	_, sv, _, err := nd.SVD(a)
	if err != nil {
		t.Fatal(err)
	}
	svv, _ := nd.Values[float64](sv)
	tail := 0.0
	for _, x := range svv[4:] {
		tail += x * x
	}
	diff := 0.0
	av, _ := nd.Values[float64](a)
	fv, _ := nd.Values[float64](first)
	for i := range av {
		diff += (av[i] - fv[i]) * (av[i] - fv[i])
	}
	if math.Sqrt(diff) > 1.01*math.Sqrt(tail)+1e-9 {
		t.Errorf("Frobenius error %g, the best rank-4 error is %g", math.Sqrt(diff), math.Sqrt(tail))
	}
}

func TestLinalgNilAndBadInput(t *testing.T) {
	var nilA *Array
	x := FromNDArray(laWave(t, 4, 4), 2)
	first := func(as ...*Array) *Array { return as[0] }
	for name, build := range map[string]func() *Array{
		"einsum-nil":    func() *Array { return Einsum("ij", nilA) },
		"einsum-none":   func() *Array { return Einsum("") },
		"fft-nil":       func() *Array { return FFT(nilA, 0, -1, "") },
		"fftn-nil":      func() *Array { return FFTN(nilA, nil, nil, "") },
		"fftshift-nil":  func() *Array { return FFTShift(nilA) },
		"fftfreq-0":     func() *Array { return FFTFreq(0, 1, -1) },
		"qr-nil":        func() *Array { q, _ := QR(nilA); return q },
		"svd-nil":       func() *Array { u, _, _ := SVD(nilA); return u },
		"svdc-nil":      func() *Array { u, _, _ := SVDCompressed(nilA, 1, SVDCompressedOpts{}); return u },
		"svdc-k":        func() *Array { u, _, _ := SVDCompressed(x, 9, SVDCompressedOpts{}); return u },
		"svdc-1d":       func() *Array { u, _, _ := SVDCompressed(x.Index(At(0)), 1, SVDCompressedOpts{}); return u },
		"inv-nil":       func() *Array { return Inv(nilA) },
		"inv-1d":        func() *Array { return Inv(x.Index(At(0))) },
		"solve-nil-b":   func() *Array { return Solve(x, nilA) },
		"solve-3d-b":    func() *Array { return Solve(x, x.ExpandDims(0)) },
		"solve-tri-nil": func() *Array { return SolveTriangular(nilA, x, true) },
		"cholesky-nil":  func() *Array { return Cholesky(nilA, true) },
		"lu-nil":        func() *Array { p, _, _ := LU(nilA); return p },
		"lu-wide":       func() *Array { p, _, _ := LU(x.Index(Range(0, 2))); return p },
		"lstsq-nil":     func() *Array { return first(func() (a, b, c, d *Array) { return Lstsq(nilA, x) }()) },
		"lstsq-wide": func() *Array {
			return first(func() (a, b, c, d *Array) { return Lstsq(tallCols(x.Index(Range(0, 2))), x.Index(Range(0, 2))) }())
		},
		"norm-nil":         func() *Array { return Norm(nilA, nil, nil, false) },
		"norm-ord-type":    func() *Array { return Norm(x, []int{1}, nil, false) },
		"norm-ord-string":  func() *Array { return Norm(x, "max", nil, false) },
		"norm-axis-range":  func() *Array { return Norm(x, nil, []int{2}, false) },
		"norm-3-axes":      func() *Array { return Norm(x.ExpandDims(0), nil, []int{0, 1, 2}, false) },
		"norm-nuc-3d":      func() *Array { return Norm(x.ExpandDims(0), "nuc", []int{1, 2}, false) },
		"cholesky-complex": func() *Array { return Cholesky(FromNDArray(laWave(t, 2, 2), -1).AsType(nd.Complex64), true) },
	} {
		t.Run(name, func(t *testing.T) {
			a, err := protect(func() (*Array, error) { return build(), nil })
			if err != nil {
				t.Fatal(err)
			}
			if a.Err() == nil {
				t.Fatalf("no error")
			}
		})
	}
}

func BenchmarkTSQR(b *testing.B) {
	v := make([]float64, 4096*16)
	for i := range v {
		v[i] = math.Sin(float64(i) * 0.37)
	}
	a, _ := nd.FromSlice(v, 4096, 16)
	x := FromNDArray(a, []int{512, -1})
	b.ReportAllocs()
	for b.Loop() {
		q, r := TSQR(x)
		if _, err := Matmul(q, r).Compute(context.Background(), WithScheduler(sched.Sync{})); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEinsumChunked(b *testing.B) {
	v := make([]float64, 256*256)
	for i := range v {
		v[i] = math.Cos(float64(i) * 0.11)
	}
	a, _ := nd.FromSlice(v, 256, 256)
	x := FromNDArray(a, 64)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Einsum("ij,jk->ik", x, x).Compute(context.Background(), WithScheduler(sched.Sync{})); err != nil {
			b.Fatal(err)
		}
	}
}

// The blocked Cholesky and triangular solves against nd's one-block
// factorizations, over chunkings with several blocks per side (including
// row and column chunks that differ).
func TestBlockedCholeskyAndTriangular(t *testing.T) {
	w := laWave(t, 17, 17)
	wt, _ := w.Transpose()
	spd, _ := nd.Matmul(w, wt)
	eye, _ := nd.Zeros(nd.Float64, 17, 17)
	for i := range 17 {
		eye.Data().([]float64)[i*17+i] = 17
	}
	spd, _ = nd.Binary(nd.Add, spd, eye)
	wantL, err := nd.Cholesky(spd, true)
	if err != nil {
		t.Fatal(err)
	}
	b := laWave(t, 17, 4)
	for _, ch := range []any{5, 1, [][]int{{3, 0, 14}, {17}}, [][]int{{8, 9}, {2, 6, 9}}} {
		a := FromNDArray(spd, ch)
		l := Cholesky(a, true)
		if n := l.NumTasks(); n < 1 {
			t.Fatalf("%v: no tasks", ch)
		}
		if d := laMaxDiff(t, laCompute(t, l), wantL); d > 1e-10 {
			t.Errorf("%v: lower factor off by %g", ch, d)
		}
		u := Cholesky(a, false)
		if d := laMaxDiff(t, laCompute(t, Matmul(u.T(), u)), spd); d > 1e-9 {
			t.Errorf("%v: uᵀ·u off a by %g", ch, d)
		}
		for _, lower := range []bool{true, false} {
			tri := l
			if !lower {
				tri = l.T()
			}
			for _, rhs := range []*Array{FromNDArray(b, []int{4, 3}), FromNDArray(b, 6).Index(All(), At(1))} {
				x := SolveTriangular(tri, rhs, lower)
				back := laCompute(t, Matmul(tri, x))
				want := laCompute(t, rhs)
				if d := laMaxDiff(t, back, want); d > 1e-9 {
					t.Errorf("%v lower=%v b%v: t·x off b by %g", ch, lower, rhs.Shape(), d)
				}
			}
		}
	}
	// not positive definite: an error from the diagonal block that fails
	neg, _ := nd.Binary(nd.Mul, spd, nd.Scalar(-1.0))
	if _, err := Cholesky(FromNDArray(neg, 5), true).Compute(context.Background()); err == nil {
		t.Error("cholesky of a negative definite matrix: no error")
	}
}
