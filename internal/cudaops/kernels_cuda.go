//go:build cuda && cgo

package cudaops

import (
	"math"
	"unsafe"

	"github.com/tessera-go/tessera/nd"
	"gorgonia.org/cu"
)

// arg is one kernel parameter in an 8-byte slot: gorgonia.org/cu's Launch
// copies 8 bytes from each parameter pointer, whatever the parameter's
// size, so a Go int32 or float32 would be read past its end. The kernels
// take 8-byte parameters (pointers, long long, double) or float, whose
// 4 bytes the driver takes from the slot's low half (little endian).
type arg = uint64

func ptrArg(a *Array) arg { return arg(a.ptr) }
func intArg(n int) arg    { return arg(int64(n)) }
func boolArg(b bool) arg {
	if b {
		return 1
	}
	return 0
}
func f64Arg(x float64) arg { return math.Float64bits(x) }
func f32Arg(x float32) arg { return arg(math.Float32bits(x)) }

// launch enqueues kernel name (with the dtype suffix already on it) on the
// stream, grid gx×gy blocks of blockSize threads; on the device goroutine.
func (d *Device) launch(name string, gx, gy int, args ...arg) error {
	fn, ok := d.fns[name]
	if !ok {
		return errorf("launch", "no kernel %s", name)
	}
	params := make([]unsafe.Pointer, len(args))
	for i := range args {
		params[i] = unsafe.Pointer(&args[i])
	}
	return fn.Launch(gx, gy, 1, blockSize, 1, 1, 0, d.stream, params)
}

// same is an error unless every array is live, on one device, of one
// kernel dtype; it returns that device.
func same(op string, arrays ...*Array) (*Device, error) {
	var d *Device
	for _, a := range arrays {
		if err := a.check(op); err != nil {
			return nil, err
		}
		if d == nil {
			d = a.dev
		} else if a.dev != d {
			return nil, errorf(op, "arrays on devices %d and %d", d.ordinal, a.dev.ordinal)
		}
		if a.dtype != arrays[0].dtype {
			return nil, errorf(op, "dtypes %v and %v: cast first", arrays[0].dtype, a.dtype)
		}
	}
	return d, nil
}

// Binary sets dst = a op b elementwise; op is nd.Add, Sub, Mul or Div. All
// three have one shape and dtype (no broadcasting; dst may be a or b).
func Binary(op nd.BinaryOp, dst, a, b *Array) error {
	const name = "Binary"
	code, ok := binaryCode(op, false)
	if !ok {
		return errorf(name, "operator %v: the kernels do add, subtract, multiply, divide", op)
	}
	d, err := same(name, dst, a, b)
	if err != nil {
		return err
	}
	if err := sameShape(name, "a", dst.shape, a.shape); err != nil {
		return err
	}
	if err := sameShape(name, "b", dst.shape, b.shape); err != nil {
		return err
	}
	if dst.size == 0 {
		return nil
	}
	return d.do(name, func() error {
		return d.launch("binary"+suffix(dst.dtype), gridFor(dst.size, d.sms), 1,
			arg(code), ptrArg(dst), ptrArg(a), ptrArg(b), intArg(dst.size))
	})
}

// BinaryScalar sets dst = a op s elementwise (s rounded to the arrays'
// dtype).
func BinaryScalar(op nd.BinaryOp, dst, a *Array, s float64) error {
	return scalar("BinaryScalar", op, false, dst, a, s)
}

// ScalarBinary sets dst = s op a elementwise (s rounded to the arrays'
// dtype).
func ScalarBinary(op nd.BinaryOp, dst *Array, s float64, a *Array) error {
	return scalar("ScalarBinary", op, true, dst, a, s)
}

func scalar(name string, op nd.BinaryOp, reverse bool, dst, a *Array, s float64) error {
	code, ok := binaryCode(op, reverse)
	if !ok {
		return errorf(name, "operator %v: the kernels do add, subtract, multiply, divide", op)
	}
	d, err := same(name, dst, a)
	if err != nil {
		return err
	}
	if err := sameShape(name, "a", dst.shape, a.shape); err != nil {
		return err
	}
	if dst.size == 0 {
		return nil
	}
	sv := f64Arg(s)
	if dst.dtype == nd.Float32 {
		sv = f32Arg(float32(s))
	}
	return d.do(name, func() error {
		return d.launch("scalar"+suffix(dst.dtype), gridFor(dst.size, d.sms), 1,
			arg(code), ptrArg(dst), ptrArg(a), sv, intArg(dst.size))
	})
}

// frameShape checks a frames argument against dst: dst's shape must be want(nav, sig).
func frameShape(name string, dst, f *Array, sigDims int, want func(nav, sig []int) []int) (n, m int, err error) {
	if n, m, err = frameDims(name, f.shape, sigDims); err != nil {
		return 0, 0, err
	}
	k := len(f.shape) - sigDims
	return n, m, sameShape(name, "dst", want(f.shape[:k], f.shape[k:]), dst.shape)
}

// SumOverNav sets (or, with accumulate, adds to) dst the sum of the frames
// of f, whose trailing sigDims axes are the signal: dst has the sig shape.
// This is LiberTEM's SumUDF. Two passes: partial column sums over chunks of
// rows (in double, in a scratch buffer), then their sum in order.
func SumOverNav(dst, frames *Array, sigDims int, accumulate bool) error {
	const name = "SumOverNav"
	d, err := same(name, dst, frames)
	if err != nil {
		return err
	}
	n, m, err := frameShape(name, dst, frames, sigDims, func(_, sig []int) []int { return sig })
	if err != nil || m == 0 {
		return err
	}
	r := colsumChunks(n, m)
	rows := (n + r - 1) / max(r, 1)
	return d.do(name, func() error {
		part, err := cu.MemAlloc(int64(r) * int64(m) * 8)
		if err != nil {
			return err
		}
		defer func() {
			d.stream.Synchronize()
			cu.MemFree(part)
		}()
		if n == 0 { // empty nav: zero partials
			if err := cu.MemsetD8Async(part, 0, int64(r)*int64(m)*8, d.stream); err != nil {
				return err
			}
		} else if err := d.launch("colsum_partial"+suffix(frames.dtype), (m+blockSize-1)/blockSize, r,
			ptrArg(frames), arg(part), intArg(n), intArg(m), intArg(rows)); err != nil {
			return err
		}
		return d.launch("colsum_final"+suffix(frames.dtype), gridFor(m, d.sms), 1,
			ptrArg(dst), arg(part), intArg(r), intArg(m), boolArg(accumulate))
	})
}

// SumOverSig sets (or adds to) dst the sum of each frame of f: dst has the
// nav shape (f's shape without its sigDims trailing axes). This is
// LiberTEM's SumSigUDF. One block per frame.
func SumOverSig(dst, frames *Array, sigDims int, accumulate bool) error {
	const name = "SumOverSig"
	d, err := same(name, dst, frames)
	if err != nil {
		return err
	}
	n, m, err := frameShape(name, dst, frames, sigDims, func(nav, _ []int) []int { return nav })
	if err != nil || n == 0 {
		return err
	}
	return d.do(name, func() error {
		return d.launch("rowsum"+suffix(frames.dtype), min(n, 1<<20), 1,
			ptrArg(dst), ptrArg(frames), intArg(n), intArg(m), boolArg(accumulate))
	})
}

// MaskDot sets (or adds to) dst the product of each frame of f with each
// of k masks: masks has shape (k,)+sig, dst nav+(k,). This is LiberTEM's
// ApplyMasksUDF (dense masks). With the cublas tag it is one cuBLAS gemm;
// without, MaskDotKernel.
func MaskDot(dst, frames, masks *Array, sigDims int, accumulate bool) error {
	n, m, k, err := maskDims("MaskDot", dst, frames, masks, sigDims)
	if err != nil || n == 0 || k == 0 {
		return err
	}
	if HaveCUBLAS() && m > 0 { // cuBLAS wants leading dimensions ≥ 1
		d := frames.dev
		return d.do("MaskDot", func() error { return d.gemmMaskDot(dst, frames, masks, n, m, k, accumulate) })
	}
	return maskDotKernel(dst, frames, masks, n, m, k, accumulate)
}

// MaskDotKernel is MaskDot through the plain kernel maskdot_f32/_f64,
// whatever the build tags: one block per frame, masks in groups of 8, sums
// in double.
func MaskDotKernel(dst, frames, masks *Array, sigDims int, accumulate bool) error {
	n, m, k, err := maskDims("MaskDotKernel", dst, frames, masks, sigDims)
	if err != nil || n == 0 || k == 0 {
		return err
	}
	return maskDotKernel(dst, frames, masks, n, m, k, accumulate)
}

func maskDims(name string, dst, f, masks *Array, sigDims int) (n, m, k int, err error) {
	if _, err = same(name, dst, f, masks); err != nil {
		return
	}
	if len(masks.shape) != sigDims+1 {
		return 0, 0, 0, errorf(name, "masks of shape %s: want (k,)+sig, %d sig axes", nd.FormatShape(masks.shape), sigDims)
	}
	k = masks.shape[0]
	n, m, err = frameShape(name, dst, f, sigDims, func(nav, sig []int) []int { return append(append([]int{}, nav...), k) })
	if err != nil {
		return
	}
	err = sameShape(name, "masks", append([]int{k}, f.shape[len(f.shape)-sigDims:]...), masks.shape)
	return
}

func maskDotKernel(dst, f, masks *Array, n, m, k int, accumulate bool) error {
	d := f.dev
	return d.do("MaskDotKernel", func() error {
		return d.launch("maskdot"+suffix(f.dtype), min(n, 1<<20), 1,
			ptrArg(dst), ptrArg(f), ptrArg(masks), intArg(n), intArg(m), intArg(k), boolArg(accumulate))
	})
}

// Reduce returns the sum, maximum or minimum (op nd.Sum, Max, Min) of all
// of a's elements, as a float64 (a float32 array's sum is accumulated in
// double, not rounded to float32). Max and Min propagate NaN as numpy's do
// and are an error on an empty array; the sum of nothing is 0. It waits
// for the result.
func Reduce(op nd.ReduceOp, a *Array) (float64, error) {
	const name = "Reduce"
	code, ok := reduceCode(op)
	if !ok {
		return 0, errorf(name, "reduction %v: the kernels do sum, max, min", op)
	}
	d, err := same(name, a)
	if err != nil {
		return 0, err
	}
	if a.size == 0 {
		if op == nd.Sum {
			return 0, nil
		}
		return 0, errorf(name, "%v of an empty array", op)
	}
	g := gridFor(a.size, d.sms)
	var out float64
	err = d.do(name, func() error {
		part, err := cu.MemAlloc(int64(g+1) * 8) // g partials, then the result
		if err != nil {
			return err
		}
		defer func() {
			d.stream.Synchronize()
			cu.MemFree(part)
		}()
		res := part + cu.DevicePtr(8*g)
		if err := d.launch("reduce"+suffix(a.dtype), g, 1, arg(code), arg(part), ptrArg(a), intArg(a.size)); err != nil {
			return err
		}
		if err := d.launch("reduce_f64", 1, 1, arg(code), arg(res), arg(part), intArg(g)); err != nil {
			return err
		}
		if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&out), res, 8, d.stream); err != nil {
			return err
		}
		return d.stream.Synchronize()
	})
	return out, err
}
