package nd

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
)

// Matrix decompositions of 2-d float arrays with gonum's LAPACK (pure Go,
// row-major): QR (Dgeqrf, Dorgqr), SVD (Dgesvd), LU with partial pivoting
// (Dgetrf), inverse (Dgetri), solve (Dgetrs), Cholesky (Dpotrf) and
// triangular solve (Dtrtrs). They compute in float64: float32 operands
// give float32 results (numpy.linalg's rule), integers and bools float64.
// gonum has no complex LAPACK: Inv, Solve and SVDVals take complex
// matrices through their real embedding (below); the others refuse them
// with a *LinAlgError naming the op, as they do singular and
// non-positive-definite matrices (numpy's LinAlgError).

// LinAlgError is numpy.linalg.LinAlgError: a matrix the operation cannot
// handle (singular, not positive definite, not square, complex).
type LinAlgError struct {
	Op     string
	Reason string
}

func (e *LinAlgError) Error() string { return "nd: " + e.Op + ": " + e.Reason }

var lapackImpl lapackgo.Implementation

// LinalgType returns the dtype numpy.linalg gives for an operand of dtype
// d (float32 stays, other reals float64) and an error for complex and
// invalid dtypes, which gonum's LAPACK cannot factor.
func LinalgType(op string, d DType) (DType, error) {
	switch {
	case d == Float32:
		return Float32, nil
	case d.IsComplex():
		return Invalid, &LinAlgError{Op: op, Reason: "complex matrices are not supported (gonum has no complex LAPACK)"}
	case d.Valid():
		return Float64, nil
	}
	return Invalid, &LinAlgError{Op: op, Reason: fmt.Sprintf("invalid dtype %s", d)}
}

// LinalgTypeComplex is LinalgType for the operations that take complex
// matrices too (Inv, Solve, SVDVals): complex64 and complex128 stay.
func LinalgTypeComplex(op string, d DType) (DType, error) {
	if d == Complex64 || d == Complex128 {
		return d, nil
	}
	return LinalgType(op, d)
}

// Complex matrices go through their real embedding: M = X + iY acts on
// (u + iv) as the real [[X, -Y], [Y, X]] acts on [u; v], so a complex
// solve or inverse is a real one of twice the size, and the singular
// values of M are those of the embedding, each appearing twice. gonum's
// LAPACK has no complex routines; the embedding costs 8x the flops of a
// complex routine and keeps LAPACK's real backward stability.

// embed returns the real 2m×2n embedding of the complex m×n matrix a.
func embed(a *Array) ([]float64, int, int) {
	c, _ := a.AsType(Complex128)
	v, _ := Values[complex128](c)
	m, n := a.shape[0], a.shape[1]
	w := 2 * n
	out := make([]float64, 4*m*n)
	for i := range m {
		for j := range n {
			x, y := real(v[i*n+j]), imag(v[i*n+j])
			out[i*w+j], out[i*w+n+j] = x, -y
			out[(m+i)*w+j], out[(m+i)*w+n+j] = y, x
		}
	}
	return out, 2 * m, 2 * n
}

func complexMatrix(op string, a *Array) error {
	if err := checkArrays(op, a); err != nil {
		return err
	}
	if a.NDim() != 2 {
		return &LinAlgError{Op: op, Reason: fmt.Sprintf("%d-dimensional array given. Array must be two-dimensional", a.NDim())}
	}
	return nil
}

// fromParts returns re + i·im (row-major, m×n) as dtype dt.
func fromParts(re, im []float64, dt DType, m, n int) (*Array, error) {
	v := make([]complex128, m*n)
	for i := range v {
		v[i] = complex(re[i], im[i])
	}
	a, err := FromSlice(v, m, n)
	if err != nil || dt == Complex128 {
		return a, err
	}
	return a.AsType(dt)
}

// SVDVals is numpy.linalg.svd(a, compute_uv=False): a's singular values,
// descending; float32 for float32 and complex64, float64 otherwise.
func SVDVals(a *Array) (*Array, error) {
	if err := complexMatrix("svd", a); err != nil {
		return nil, err
	}
	if !a.dtype.IsComplex() {
		_, s, _, err := SVD(a)
		return s, err
	}
	dt := Float64
	if a.dtype == Complex64 {
		dt = Float32
	}
	v, m, n := embed(a)
	if err := finite("svd", v); err != nil {
		return nil, err
	}
	_, s2, _, ok := svdRaw(v, m, n)
	if !ok {
		return nil, &LinAlgError{Op: "svd", Reason: "SVD did not converge"}
	}
	s := make([]float64, len(s2)/2)
	for i := range s {
		s[i] = s2[2*i]
	}
	return fromMatrix(s, dt, len(s))
}

// matrix returns a's elements as a fresh row-major float64 slice, with m
// and n; a must be 2-d.
func matrix(op string, a *Array) ([]float64, int, int, DType, error) {
	if err := checkArrays(op, a); err != nil {
		return nil, 0, 0, Invalid, err
	}
	if a.NDim() != 2 {
		return nil, 0, 0, Invalid, &LinAlgError{Op: op, Reason: fmt.Sprintf("%d-dimensional array given. Array must be two-dimensional", a.NDim())}
	}
	dt, err := LinalgType(op, a.dtype)
	if err != nil {
		return nil, 0, 0, Invalid, err
	}
	c, err := a.AsType(Float64)
	if err != nil {
		return nil, 0, 0, Invalid, err
	}
	v, err := Values[float64](c)
	if err != nil {
		return nil, 0, 0, Invalid, err
	}
	if a.dtype == Float64 {
		v = append([]float64(nil), v...) // LAPACK writes in place
	}
	return v, a.shape[0], a.shape[1], dt, nil
}

// fromMatrix wraps row-major data of shape m×n as an Array of dtype dt.
func fromMatrix(data []float64, dt DType, shape ...int) (*Array, error) {
	a, err := FromSlice(data, shape...)
	if err != nil {
		return nil, err
	}
	if dt == Float64 {
		return a, nil
	}
	return a.AsType(dt)
}

func finite(op string, v []float64) error {
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return &LinAlgError{Op: op, Reason: "array must not contain infs or NaNs"}
		}
	}
	return nil
}

// QR is numpy.linalg.qr(a) (mode "reduced"): q (m×k) with orthonormal
// columns and upper-triangular r (k×n), k = min(m, n), a = q·r. Signs are
// LAPACK's (numpy's too: both call dgeqrf), not normalised.
func QR(a *Array) (q, r *Array, err error) {
	v, m, n, dt, err := matrix("qr", a)
	if err != nil {
		return nil, nil, err
	}
	qd, rd := qrRaw(v, m, n)
	k := min(m, n)
	if q, err = fromMatrix(qd, dt, m, k); err != nil {
		return nil, nil, err
	}
	r, err = fromMatrix(rd, dt, k, n)
	return q, r, err
}

// qrRaw factors the row-major m×n matrix v (overwritten) and returns q
// (m×k) and r (k×n), k = min(m, n).
func qrRaw(v []float64, m, n int) (q, r []float64) {
	k := min(m, n)
	r = make([]float64, k*n)
	q = make([]float64, m*k)
	if k == 0 {
		return q, r
	}
	lda := max(n, 1)
	tau := make([]float64, k)
	work := []float64{0}
	lapackImpl.Dgeqrf(m, n, v, lda, tau, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapackImpl.Dgeqrf(m, n, v, lda, tau, work, len(work))
	for i := range k {
		for j := i; j < n; j++ {
			r[i*n+j] = v[i*lda+j]
		}
	}
	// Dorgqr wants an m×k matrix holding the reflectors.
	for i := range m {
		copy(q[i*k:i*k+k], v[i*lda:i*lda+k])
	}
	lapackImpl.Dorgqr(m, k, k, q, k, tau, work[:1], -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	lapackImpl.Dorgqr(m, k, k, q, k, tau, work, len(work))
	return q, r
}

// SVD is numpy.linalg.svd(a, full_matrices=False): u (m×k), s (k,)
// descending, vh (k×n), a = u·diag(s)·vh. The signs of singular vectors
// are LAPACK's and may differ from numpy's (a pair of columns of u and
// rows of vh can both flip).
func SVD(a *Array) (u, s, vh *Array, err error) {
	v, m, n, dt, err := matrix("svd", a)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := finite("svd", v); err != nil {
		return nil, nil, nil, err
	}
	ud, sd, vd, ok := svdRaw(v, m, n)
	if !ok {
		return nil, nil, nil, &LinAlgError{Op: "svd", Reason: "SVD did not converge"}
	}
	k := min(m, n)
	if u, err = fromMatrix(ud, dt, m, k); err != nil {
		return nil, nil, nil, err
	}
	if s, err = fromMatrix(sd, dt, k); err != nil {
		return nil, nil, nil, err
	}
	vh, err = fromMatrix(vd, dt, k, n)
	return u, s, vh, err
}

func svdRaw(v []float64, m, n int) (u, s, vt []float64, ok bool) {
	k := min(m, n)
	u, s, vt = make([]float64, m*k), make([]float64, k), make([]float64, k*n)
	if k == 0 {
		return u, s, vt, true
	}
	work := []float64{0}
	lapackImpl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, v, n, s, u, k, vt, n, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	ok = lapackImpl.Dgesvd(lapack.SVDStore, lapack.SVDStore, m, n, v, n, s, u, k, vt, n, work, len(work))
	return u, s, vt, ok
}

func square(op string, m, n int) error {
	if m != n {
		return &LinAlgError{Op: op, Reason: "Last 2 dimensions of the array must be square"}
	}
	return nil
}

// LU factors a square or rectangular a as scipy.linalg.lu (dask's lu):
// a = p·l·u with p a permutation matrix, l unit lower triangular (m×k) and
// u upper triangular (k×n), k = min(m, n), by partial pivoting (Dgetrf).
// A zero pivot is no error (scipy's neither).
func LU(a *Array) (p, l, u *Array, err error) {
	v, m, n, dt, err := matrix("lu", a)
	if err != nil {
		return nil, nil, nil, err
	}
	k := min(m, n)
	ipiv := make([]int, k)
	if k > 0 {
		lapackImpl.Dgetrf(m, n, v, n, ipiv)
	}
	perm := make([]int, m) // row i of p·(l·u) comes from row perm[i] of l·u
	for i := range perm {
		perm[i] = i
	}
	for i := range k {
		perm[i], perm[ipiv[i]] = perm[ipiv[i]], perm[i]
	}
	pd := make([]float64, m*m)
	for i, r := range perm {
		pd[r*m+i] = 1 // a = P·L·U with P[perm[i], i] = 1
	}
	ld := make([]float64, m*k)
	ud := make([]float64, k*n)
	for i := range m {
		for j := range k {
			switch {
			case j < i:
				ld[i*k+j] = v[i*n+j]
			case j == i:
				ld[i*k+j] = 1
			}
		}
	}
	for i := range k {
		for j := i; j < n; j++ {
			ud[i*n+j] = v[i*n+j]
		}
	}
	if p, err = fromMatrix(pd, dt, m, m); err != nil {
		return nil, nil, nil, err
	}
	if l, err = fromMatrix(ld, dt, m, k); err != nil {
		return nil, nil, nil, err
	}
	u, err = fromMatrix(ud, dt, k, n)
	return p, l, u, err
}

// Inv is numpy.linalg.inv of a square 2-d a (complex through the real
// embedding); a singular matrix is a *LinAlgError ("Singular matrix"), as
// numpy's.
func Inv(a *Array) (*Array, error) {
	if err := complexMatrix("inv", a); err != nil {
		return nil, err
	}
	if a.dtype.IsComplex() {
		if err := square("inv", a.shape[0], a.shape[1]); err != nil {
			return nil, err
		}
		n := a.shape[0]
		v, n2, _ := embed(a)
		if err := invRaw(v, n2); err != nil {
			return nil, err
		}
		re, im := make([]float64, n*n), make([]float64, n*n)
		for i := range n {
			copy(re[i*n:(i+1)*n], v[i*n2:i*n2+n])
			copy(im[i*n:(i+1)*n], v[(n+i)*n2:(n+i)*n2+n])
		}
		return fromParts(re, im, a.dtype, n, n)
	}
	v, m, n, dt, err := matrix("inv", a)
	if err != nil {
		return nil, err
	}
	if err := square("inv", m, n); err != nil {
		return nil, err
	}
	if err := invRaw(v, n); err != nil {
		return nil, err
	}
	return fromMatrix(v, dt, n, n)
}

// invRaw inverts the row-major n×n v in place.
func invRaw(v []float64, n int) error {
	if n == 0 {
		return nil
	}
	ipiv := make([]int, n)
	if !lapackImpl.Dgetrf(n, n, v, n, ipiv) {
		return &LinAlgError{Op: "inv", Reason: "Singular matrix"}
	}
	work := []float64{0}
	lapackImpl.Dgetri(n, v, n, ipiv, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	lapackImpl.Dgetri(n, v, n, ipiv, work, len(work))
	return nil
}

// Solve is numpy.linalg.solve for a square 2-d a and a 1-d or 2-d b:
// x with a·x = b (complex through the real embedding). The dtype is
// LinalgTypeComplex of the two dtypes' ResultType.
func Solve(a, b *Array) (*Array, error) {
	if err := checkArrays("solve", a, b); err != nil {
		return nil, err
	}
	if a.dtype.IsComplex() || b.dtype.IsComplex() {
		return solveComplex(a, b)
	}
	v, m, n, _, err := matrix("solve", a)
	if err != nil {
		return nil, err
	}
	if err := square("solve", m, n); err != nil {
		return nil, err
	}
	dt, err := LinalgType("solve", ResultType(a.dtype, b.dtype))
	if err != nil {
		return nil, err
	}
	b2 := b
	if b.NDim() == 1 {
		b2, _ = b.Reshape(b.shape[0], 1)
	}
	if b2.NDim() != 2 || b2.shape[0] != n {
		return nil, &ShapeError{Op: "solve", Shapes: [][]int{a.shape, b.shape}, Reason: "b must be (M,) or (M, K) with a (M, M)"}
	}
	bv, _, nrhs, _, err := matrix("solve", b2)
	if err != nil {
		return nil, err
	}
	if n > 0 && nrhs > 0 {
		ipiv := make([]int, n)
		if !lapackImpl.Dgetrf(n, n, v, n, ipiv) {
			return nil, &LinAlgError{Op: "solve", Reason: "Singular matrix"}
		}
		lapackImpl.Dgetrs(blas.NoTrans, n, nrhs, v, n, ipiv, bv, nrhs)
	} else if n > 0 {
		ipiv := make([]int, n)
		if !lapackImpl.Dgetrf(n, n, v, n, ipiv) {
			return nil, &LinAlgError{Op: "solve", Reason: "Singular matrix"}
		}
	}
	return fromMatrix(bv, dt, b.shape...)
}

// Cholesky is numpy.linalg.cholesky (lower: a = l·lᵀ) or, with lower
// false, the upper factor u (a = uᵀ·u, scipy's and dask's lower=False).
// Only the triangle named is read. A matrix that is not positive definite
// is a *LinAlgError.
func Cholesky(a *Array, lower bool) (*Array, error) {
	v, m, n, dt, err := matrix("cholesky", a)
	if err != nil {
		return nil, err
	}
	if err := square("cholesky", m, n); err != nil {
		return nil, err
	}
	ul := blas.Upper
	if lower {
		ul = blas.Lower
	}
	if n > 0 && !lapackImpl.Dpotrf(ul, n, v, n) {
		return nil, &LinAlgError{Op: "cholesky", Reason: "Matrix is not positive definite"}
	}
	for i := range n {
		for j := range n {
			if (lower && j > i) || (!lower && j < i) {
				v[i*n+j] = 0
			}
		}
	}
	return fromMatrix(v, dt, n, n)
}

// SolveTriangular solves a·x = b for a square triangular a (upper, or
// lower with lower true) and a 1-d or 2-d b, as
// scipy.linalg.solve_triangular; a zero on the diagonal is a
// *LinAlgError.
func SolveTriangular(a, b *Array, lower bool) (*Array, error) {
	if err := checkArrays("solve_triangular", a, b); err != nil {
		return nil, err
	}
	v, m, n, _, err := matrix("solve_triangular", a)
	if err != nil {
		return nil, err
	}
	if err := square("solve_triangular", m, n); err != nil {
		return nil, err
	}
	dt, err := LinalgType("solve_triangular", ResultType(a.dtype, b.dtype))
	if err != nil {
		return nil, err
	}
	b2 := b
	if b.NDim() == 1 {
		b2, _ = b.Reshape(b.shape[0], 1)
	}
	if b2.NDim() != 2 || b2.shape[0] != n {
		return nil, &ShapeError{Op: "solve_triangular", Shapes: [][]int{a.shape, b.shape}, Reason: "b must be (M,) or (M, K) with a (M, M)"}
	}
	bv, _, nrhs, _, err := matrix("solve_triangular", b2)
	if err != nil {
		return nil, err
	}
	ul := blas.Upper
	if lower {
		ul = blas.Lower
	}
	if n > 0 && nrhs > 0 && !lapackImpl.Dtrtrs(ul, blas.NoTrans, blas.NonUnit, n, nrhs, v, n, bv, nrhs) {
		return nil, &LinAlgError{Op: "solve_triangular", Reason: "Singular matrix"}
	}
	return fromMatrix(bv, dt, b.shape...)
}

// solveComplex solves a complex system through the real embedding.
func solveComplex(a, b *Array) (*Array, error) {
	if err := complexMatrix("solve", a); err != nil {
		return nil, err
	}
	if err := square("solve", a.shape[0], a.shape[1]); err != nil {
		return nil, err
	}
	dt, err := LinalgTypeComplex("solve", ResultType(a.dtype, b.dtype))
	if err != nil {
		return nil, err
	}
	if !dt.IsComplex() {
		dt = Complex128
	}
	n := a.shape[0]
	b2 := b
	if b.NDim() == 1 {
		b2, _ = b.Reshape(b.shape[0], 1)
	}
	if b2.NDim() != 2 || b2.shape[0] != n {
		return nil, &ShapeError{Op: "solve", Shapes: [][]int{a.shape, b.shape}, Reason: "b must be (M,) or (M, K) with a (M, M)"}
	}
	k := b2.shape[1]
	v, n2, _ := embed(a)
	bc, _ := b2.AsType(Complex128)
	bv, _ := Values[complex128](bc)
	rhs := make([]float64, n2*k)
	for i := range n {
		for j := range k {
			rhs[i*k+j] = real(bv[i*k+j])
			rhs[(n+i)*k+j] = imag(bv[i*k+j])
		}
	}
	if n > 0 {
		ipiv := make([]int, n2)
		if !lapackImpl.Dgetrf(n2, n2, v, n2, ipiv) {
			return nil, &LinAlgError{Op: "solve", Reason: "Singular matrix"}
		}
		if k > 0 {
			lapackImpl.Dgetrs(blas.NoTrans, n2, k, v, n2, ipiv, rhs, k)
		}
	}
	x, err := fromParts(rhs[:n*k], rhs[n*k:], dt, n, k)
	if err != nil || b.NDim() == 2 {
		return x, err
	}
	return x.Reshape(n)
}
