//go:build cuda && cgo && cublas

package cudaops

// cuBLAS is called through cgo here rather than through gorgonia.org/cu/blas:
// that package implements gonum's blas.Float32 interface, whose Sgemm takes
// Go slices and checks their lengths, so device memory would have to be
// disguised as forged []float32 headers. Two gemm calls do not need it.

/*
#cgo LDFLAGS: -lcublas
#include <cublas_v2.h>

// Device addresses travel as integers (CUdeviceptr) and become pointers
// here, so that Go never holds a non-Go address as a pointer.
static cublasStatus_t sgemm_tn(cublasHandle_t h, int m, int n, int k, float alpha,
		unsigned long long a, int lda, unsigned long long b, int ldb, float beta,
		unsigned long long c, int ldc) {
	return cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, (const float *)a, lda,
		(const float *)b, ldb, &beta, (float *)c, ldc);
}
static cublasStatus_t dgemm_tn(cublasHandle_t h, int m, int n, int k, double alpha,
		unsigned long long a, int lda, unsigned long long b, int ldb, double beta,
		unsigned long long c, int ldc) {
	return cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, (const double *)a, lda,
		(const double *)b, ldb, &beta, (double *)c, ldc);
}
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/tessera-go/tessera/nd"
)

// HaveCUBLAS reports whether MaskDot uses cuBLAS (the cublas tag).
func HaveCUBLAS() bool { return true }

type blasHandle struct{ h C.cublasHandle_t }

type cublasError C.cublasStatus_t

func (e cublasError) Error() string { return fmt.Sprintf("cuBLAS status %d", int(e)) }

func cublasErr(s C.cublasStatus_t) error {
	if s == C.CUBLAS_STATUS_SUCCESS {
		return nil
	}
	return cublasError(s)
}

// blasSetup creates the handle on the device goroutine (cuBLAS uses the
// context current there: the primary context) and binds it to the stream.
func (d *Device) blasSetup() error {
	if err := cublasErr(C.cublasCreate(&d.blas.h)); err != nil {
		return fmt.Errorf("cublasCreate: %w", err)
	}
	if err := cublasErr(C.cublasSetStream(d.blas.h, C.cudaStream_t(unsafe.Pointer(d.stream.C())))); err != nil {
		return fmt.Errorf("cublasSetStream: %w", err)
	}
	return nil
}

func (d *Device) blasTeardown() error {
	if d.blas.h == nil {
		return nil
	}
	err := cublasErr(C.cublasDestroy(d.blas.h))
	d.blas.h = nil
	return err
}

// gemmMaskDot computes dst (n×k) = f (n×m) · masksᵀ (m×k), all row-major,
// (+ dst with accumulate), on the device goroutine. cuBLAS is column-major:
// row-major f is column-major fᵀ (m×n, ld m), masks is masksᵀ (m×k, ld m)
// and dst is dstᵀ (k×n, ld k), so dstᵀ = (masksᵀ)ᵀ · fᵀ: gemm(T, N, k, n, m).
func (d *Device) gemmMaskDot(dst, f, masks *Array, n, m, k int, accumulate bool) error {
	beta := 0.0
	if accumulate {
		beta = 1
	}
	if n > math.MaxInt32 || m > math.MaxInt32 || k > math.MaxInt32 {
		return fmt.Errorf("cublas gemm: %d frames of %d pixels, %d masks: past cuBLAS's int32 sizes", n, m, k)
	}
	var s C.cublasStatus_t
	A, B, Cp := C.ulonglong(masks.ptr), C.ulonglong(f.ptr), C.ulonglong(dst.ptr)
	switch f.dtype {
	case nd.Float32:
		s = C.sgemm_tn(d.blas.h, C.int(k), C.int(n), C.int(m), 1, A, C.int(m), B, C.int(m), C.float(beta), Cp, C.int(k))
	default:
		s = C.dgemm_tn(d.blas.h, C.int(k), C.int(n), C.int(m), 1, A, C.int(m), B, C.int(m), C.double(beta), Cp, C.int(k))
	}
	if err := cublasErr(s); err != nil {
		return fmt.Errorf("cublas gemm (%d×%d · %d×%d): %w", n, m, m, k, err)
	}
	return nil
}
