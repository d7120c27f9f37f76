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
// gonum has no complex LAPACK, so complex operands are a *LinAlgError
// naming the op; so are singular and non-positive-definite matrices, as
// numpy's LinAlgError.

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

// Inv is numpy.linalg.inv of a square 2-d a; a singular matrix is a
// *LinAlgError ("Singular matrix"), as numpy's.
func Inv(a *Array) (*Array, error) {
	v, m, n, dt, err := matrix("inv", a)
	if err != nil {
		return nil, err
	}
	if err := square("inv", m, n); err != nil {
		return nil, err
	}
	if n > 0 {
		ipiv := make([]int, n)
		if !lapackImpl.Dgetrf(n, n, v, n, ipiv) {
			return nil, &LinAlgError{Op: "inv", Reason: "Singular matrix"}
		}
		work := []float64{0}
		lapackImpl.Dgetri(n, v, n, ipiv, work, -1)
		work = make([]float64, max(int(work[0]), 1))
		lapackImpl.Dgetri(n, v, n, ipiv, work, len(work))
	}
	return fromMatrix(v, dt, n, n)
}

// Solve is numpy.linalg.solve for a square 2-d a and a 1-d or 2-d b:
// x with a·x = b. The dtype is LinalgType of the two dtypes' ResultType.
func Solve(a, b *Array) (*Array, error) {
	if err := checkArrays("solve", a, b); err != nil {
		return nil, err
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
