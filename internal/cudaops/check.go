package cudaops

import (
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// This file holds the shape and dtype rules of the kernels, in plain Go and
// in both builds, so that the tests of the default build check them too.

// blockSize is the number of threads per block of every kernel
// (kernels.cu's block_reduce needs a multiple of 32).
const blockSize = 256

// kernelDType reports whether the kernels handle dtype d: float32 and
// float64 only (the "_f32"/"_f64" kernels); other dtypes go through the CPU
// path, or are cast first.
func kernelDType(d nd.DType) bool { return d == nd.Float32 || d == nd.Float64 }

// KernelDType reports whether the kernels take dtype d (float32 and
// float64), in every build: callers choose between the device and the CPU
// path with it before they touch a device.
func KernelDType(d nd.DType) bool { return kernelDType(d) }

// suffix is the kernel-name suffix of dtype d.
func suffix(d nd.DType) string {
	if d == nd.Float64 {
		return "_f64"
	}
	return "_f32"
}

// binaryCode maps an nd operator to kernels.cu's OP_* code; reverse is
// for scalar-on-the-left variants (s - x, s / x).
func binaryCode(op nd.BinaryOp, reverse bool) (int64, bool) {
	switch op {
	case nd.Add:
		return 0, true
	case nd.Mul:
		return 2, true
	case nd.Sub:
		if reverse {
			return 4, true
		}
		return 1, true
	case nd.Div:
		if reverse {
			return 5, true
		}
		return 3, true
	}
	return 0, false
}

// reduceCode maps an nd reduction to kernels.cu's RED_* code.
func reduceCode(op nd.ReduceOp) (int64, bool) {
	switch op {
	case nd.Sum:
		return 0, true
	case nd.Max:
		return 1, true
	case nd.Min:
		return 2, true
	}
	return 0, false
}

// frameDims splits shape into nav and sig parts, sigDims trailing axes
// being sig, and returns n (frames: the product of the nav axes) and m
// (pixels per frame: the product of the sig axes). A 4-D stack
// (ny, nx, sy, sx) with sigDims 2 is n = ny·nx frames of m = sy·sx.
func frameDims(op string, shape []int, sigDims int) (n, m int, err error) {
	if sigDims < 1 || sigDims > len(shape) {
		return 0, 0, errorf(op, "sigDims %d for shape %s", sigDims, nd.FormatShape(shape))
	}
	n, m = 1, 1
	for _, s := range shape[:len(shape)-sigDims] {
		n *= s
	}
	for _, s := range shape[len(shape)-sigDims:] {
		m *= s
	}
	return n, m, nil
}

// sameShape is an error naming op unless a and b have equal shapes.
func sameShape(op, what string, want, got []int) error {
	if !slices.Equal(want, got) {
		return errorf(op, "%s has shape %s, want %s", what, nd.FormatShape(got), nd.FormatShape(want))
	}
	return nil
}

// gridFor is the number of blocks of a grid-stride launch over n elements:
// enough to fill the device (blocksPerSM resident blocks on each of sms
// multiprocessors), fewer when n is small, at least 1.
func gridFor(n, sms int) int {
	const blocksPerSM = 8
	g := (n + blockSize - 1) / blockSize
	if limit := max(sms, 1) * blocksPerSM; g > limit {
		g = limit
	}
	return max(g, 1)
}

// colsumChunks is the number R of row chunks of the two-pass column sum
// (SumOverNav) of an (n, m) matrix: enough columns×chunks threads to fill
// the device (about 2^21), at most n and at most 65535 (gridDim.y).
func colsumChunks(n, m int) int {
	const threads = 1 << 21
	r := (threads + m - 1) / max(m, 1)
	return max(1, min(r, n, 65535))
}
