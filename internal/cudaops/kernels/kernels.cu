// kernels.cu: the CUDA kernels of internal/cudaops, compiled to PTX
// (kernels.ptx, committed next to this file) and loaded at run time with
// cu.LoadData; the driver JIT-compiles the PTX for the device at hand.
//
// Regenerate (CUDA 11.8 from Debian bookworm, see ../tools/fetch-cuda.sh):
//
//	../tools/gen-ptx.sh   (go generate ./internal/cudaops runs it)
//
// which runs
//
//	nvcc -ptx -arch=compute_80 -O3 -std=c++14 -o kernels.ptx kernels.cu
//
// compute_80 (Ampere) PTX runs on sm_80 and every later device (the
// H100/H200 are sm_90) through the driver's JIT.
//
// Conventions, shared with the Go side (kernels_cuda.go):
//   - Every parameter is 8 bytes wide (pointers, long long, double) or a
//     float (f32 scalars). gorgonia.org/cu's Launch copies 8 bytes from each
//     kernel-parameter pointer, so the Go side keeps every argument in a
//     uint64 slot (a float's bits in the low half).
//   - Sizes and indices are 64-bit: a 256x256 nav x 256x256 sig stack has
//     2^32 elements, past any 32-bit index.
//   - Blocks are 256 threads (a multiple of 32: block_reduce assumes it).
//   - Sums accumulate in double, for float32 data too: the kernels are
//     bound by memory bandwidth, and the result then matches the CPU path
//     to float32 rounding instead of drifting with the number of terms.
//   - Reductions are deterministic: a fixed launch shape, no atomics,
//     partial results combined in a fixed order by a second kernel.

#include <math_constants.h>

#define OP_ADD 0
#define OP_SUB 1
#define OP_MUL 2
#define OP_DIV 3
#define OP_RSUB 4 // s - x
#define OP_RDIV 5 // s / x

#define RED_SUM 0
#define RED_MAX 1
#define RED_MIN 2

#define GRID_STRIDE(i, n)                                                  \
	for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; \
	     i < (n); i += (long long)blockDim.x * gridDim.x)

template <typename T> __device__ __forceinline__ T apply(long long op, T a, T b) {
	switch (op) {
	case OP_ADD: return a + b;
	case OP_SUB: return a - b;
	case OP_MUL: return a * b;
	case OP_DIV: return a / b;
	case OP_RSUB: return b - a;
	case OP_RDIV: return b / a;
	}
	return a;
}

// combine is the reduction's binary op; max and min propagate NaN, as
// numpy's do (fmax/fmin would drop it).
__device__ __forceinline__ double combine(long long op, double a, double b) {
	switch (op) {
	case RED_MAX:
		if (a != a) return a;
		if (b != b) return b;
		return a > b ? a : b;
	case RED_MIN:
		if (a != a) return a;
		if (b != b) return b;
		return a < b ? a : b;
	}
	return a + b;
}

__device__ __forceinline__ double identity(long long op) {
	switch (op) {
	case RED_MAX: return -CUDART_INF;
	case RED_MIN: return CUDART_INF;
	}
	return 0.0;
}

__device__ __forceinline__ double warp_reduce(long long op, double v) {
	for (int o = 16; o > 0; o >>= 1)
		v = combine(op, v, __shfl_down_sync(0xffffffffu, v, o));
	return v;
}

// block_reduce combines v over the block; the result is valid in thread 0.
// Every thread of the block must call it (it synchronises); it may be
// called again in a loop.
__device__ double block_reduce(long long op, double v) {
	__shared__ double sh[32];
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
	v = warp_reduce(op, v);
	if (lane == 0) sh[w] = v;
	__syncthreads();
	int nw = (blockDim.x + 31) >> 5;
	v = threadIdx.x < nw ? sh[lane] : identity(op);
	__syncthreads(); // sh is free for the next call
	if (w == 0) v = warp_reduce(op, v);
	return v;
}

// ---- elementwise: dst[i] = a[i] op b[i], dst[i] = a[i] op s ----------------

#define BINARY(NAME, T)                                                              \
	extern "C" __global__ void NAME(long long op, T *dst, const T *a, const T *b,  \
	                                long long n) {                                 \
		GRID_STRIDE(i, n) dst[i] = apply<T>(op, a[i], b[i]);                   \
	}
BINARY(binary_f32, float)
BINARY(binary_f64, double)

#define SCALAR(NAME, T)                                                              \
	extern "C" __global__ void NAME(long long op, T *dst, const T *a, T s,         \
	                                long long n) {                                 \
		GRID_STRIDE(i, n) dst[i] = apply<T>(op, a[i], s);                      \
	}
SCALAR(scalar_f32, float)
SCALAR(scalar_f64, double)

// ---- sum over nav: x is (n, m) row-major, dst (m,) the column sums ---------
//
// Pass 1: grid (ceil(m/256), R); block (bx, r) sums rows [r*rows, (r+1)*rows)
// of its 256 columns (consecutive threads read consecutive columns: the
// loads coalesce) into part[r*m + j]. Pass 2 adds the R partials per column
// in order and writes (or adds to) dst.

#define COLSUM_PARTIAL(NAME, T)                                                      \
	extern "C" __global__ void NAME(const T *x, double *part, long long n,          \
	                                long long m, long long rows) {                 \
		long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;          \
		if (j >= m) return;                                                      \
		long long r0 = (long long)blockIdx.y * rows, r1 = r0 + rows;             \
		if (r1 > n) r1 = n;                                                      \
		double acc = 0;                                                          \
		for (long long r = r0; r < r1; r++) acc += (double)x[r * m + j];        \
		part[(long long)blockIdx.y * m + j] = acc;                               \
	}
COLSUM_PARTIAL(colsum_partial_f32, float)
COLSUM_PARTIAL(colsum_partial_f64, double)

#define COLSUM_FINAL(NAME, T)                                                        \
	extern "C" __global__ void NAME(T *dst, const double *part, long long R,        \
	                                long long m, long long accumulate) {           \
		GRID_STRIDE(j, m) {                                                      \
			double acc = 0;                                                  \
			for (long long r = 0; r < R; r++) acc += part[r * m + j];        \
			dst[j] = accumulate ? (T)((double)dst[j] + acc) : (T)acc;        \
		}                                                                        \
	}
COLSUM_FINAL(colsum_final_f32, float)
COLSUM_FINAL(colsum_final_f64, double)

// ---- sum over sig: x is (n, m) row-major, dst (n,) the row sums ------------
//
// One block per row (grid-stride over rows), threads strided over the row.

#define ROWSUM(NAME, T)                                                              \
	extern "C" __global__ void NAME(T *dst, const T *x, long long n, long long m,   \
	                                long long accumulate) {                        \
		for (long long r = blockIdx.x; r < n; r += gridDim.x) {                  \
			const T *row = x + r * m;                                        \
			double acc = 0;                                                  \
			for (long long j = threadIdx.x; j < m; j += blockDim.x)          \
				acc += (double)row[j];                                   \
			acc = block_reduce(RED_SUM, acc);                                \
			if (threadIdx.x == 0)                                            \
				dst[r] = accumulate ? (T)((double)dst[r] + acc) : (T)acc; \
		}                                                                        \
	}
ROWSUM(rowsum_f32, float)
ROWSUM(rowsum_f64, double)

// ---- mask dot product: x (n, m), masks (k, m), dst (n, k) ------------------
//
// dst[r, q] = sum_j x[r, j] * masks[q, j]. One block per row (grid-stride);
// masks go in groups of MASK_GROUP so that a row is read ceil(k/MASK_GROUP)
// times, each element once per group, with one accumulator per mask in
// registers. The fallback when cuBLAS is not built in (tag cublas).

#define MASK_GROUP 8

#define MASKDOT(NAME, T)                                                             \
	extern "C" __global__ void NAME(T *dst, const T *x, const T *masks,            \
	                                long long n, long long m, long long k,         \
	                                long long accumulate) {                        \
		for (long long r = blockIdx.x; r < n; r += gridDim.x) {                  \
			const T *row = x + r * m;                                        \
			for (long long q0 = 0; q0 < k; q0 += MASK_GROUP) {               \
				int g = k - q0 < MASK_GROUP ? (int)(k - q0) : MASK_GROUP; \
				double acc[MASK_GROUP];                                  \
				_Pragma("unroll") for (int t = 0; t < MASK_GROUP; t++) acc[t] = 0; \
				for (long long j = threadIdx.x; j < m; j += blockDim.x) { \
					double v = (double)row[j];                       \
					_Pragma("unroll") for (int t = 0; t < MASK_GROUP; t++) \
						if (t < g) acc[t] += v * (double)masks[(q0 + t) * m + j]; \
				}                                                        \
				for (int t = 0; t < g; t++) {                            \
					double s = block_reduce(RED_SUM, acc[t]);        \
					if (threadIdx.x == 0) {                          \
						T *d = dst + r * k + q0 + t;             \
						*d = accumulate ? (T)((double)*d + s) : (T)s; \
					}                                                \
				}                                                        \
			}                                                                \
		}                                                                        \
	}
MASKDOT(maskdot_f32, float)
MASKDOT(maskdot_f64, double)

// ---- reduction of a whole block: sum, max or min of x (n,) -----------------
//
// Pass 1 (G blocks): part[b] = the block's partial, in double. Pass 2 runs
// reduce_f64 with one block over the G partials into out[0].

#define REDUCE(NAME, T)                                                              \
	extern "C" __global__ void NAME(long long op, double *out, const T *x,          \
	                                long long n) {                                 \
		double acc = identity(op);                                               \
		GRID_STRIDE(i, n) acc = combine(op, acc, (double)x[i]);                  \
		acc = block_reduce(op, acc);                                             \
		if (threadIdx.x == 0) out[blockIdx.x] = acc;                             \
	}
REDUCE(reduce_f32, float)
REDUCE(reduce_f64, double)
