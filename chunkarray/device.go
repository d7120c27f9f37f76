package chunkarray

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// Device reductions: ReduceOpts{Device: DeviceCUDA} runs the chunk stage
// of a reduction (one task per input block, where the data are) on a CUDA
// device through internal/cudaops; the combine and aggregate stages, on
// one element or row per block, stay on the CPU. The chunk tasks ask for
// the resource GPU=1 (graph.Node.Resources), so that sched/distributed
// places them on workers that offer a GPU, and they are never fused with
// the expression that makes their input (the block is materialised and
// uploaded whole) nor with tasks asking for other resources.
//
// Supported: Sum, Max and Min of float32 and float64 arrays over all axes
// (cudaops.Reduce), and Sum over leading axes (cudaops.SumOverNav) or
// trailing axes (cudaops.SumOverSig). Anything else with Device cuda is an
// error naming what is not supported, when the reduction is built.
//
// Errors are reported when the graph is built: Reduce returns an Array
// whose Err wraps cudaops.ErrNoCUDA in a build without CUDA (no `cuda`
// tag), or names "no CUDA device" when the build has CUDA but the machine
// none. Chosen over compute time so that a program learns before any work
// that its reduction cannot run; a graph built on a CUDA machine and run
// by a worker without CUDA fails in that task, with cudaops.ErrNoCUDA.
//
// Results agree with the CPU reduction within cudaops's tolerances (a
// float32 sum: 1e-5 of the sum of magnitudes; the device sums in double),
// not bit for bit; max and min are exact.

// The devices of ReduceOpts.Device.
const (
	DeviceCPU  = "cpu"
	DeviceCUDA = "cuda"
)

// gpuResource is the resource a device chunk task asks its worker for.
const gpuResource = "GPU"

// cudaDevices counts the devices at graph-build time; a variable so that
// tests can stand in for a GPU.
var cudaDevices = cudaops.Count

// deviceAxes says how the chunk stage reduces axes ax (sorted) of an
// ndim-array on the device: all axes, leading ones (Sum only) or trailing
// ones (Sum only); an error for anything else.
func deviceCheck(op nd.ReduceOp, dt nd.DType, ax []int, ndim int) error {
	if op != nd.Sum && op != nd.Max && op != nd.Min {
		return fmt.Errorf("device %q: %v is not a device reduction (sum, max, min)", DeviceCUDA, op)
	}
	if !cudaops.KernelDType(dt) {
		return fmt.Errorf("device %q: dtype %v (the kernels take float32 and float64)", DeviceCUDA, dt)
	}
	if len(ax) == ndim {
		return nil
	}
	if op != nd.Sum {
		return fmt.Errorf("device %q: %v over axes %v of %d: only over all axes", DeviceCUDA, op, ax, ndim)
	}
	lead, trail := true, true
	for i, a := range ax {
		lead = lead && a == i
		trail = trail && a == ndim-len(ax)+i
	}
	if !lead && !trail {
		return fmt.Errorf("device %q: sum over axes %v of %d: only all, leading or trailing axes", DeviceCUDA, ax, ndim)
	}
	return nil
}

// checkDevice is the build-time check of ReduceOpts.Device.
func checkDevice(dev string, op nd.ReduceOp, kind int, dt nd.DType, ax []int, ndim int) error {
	switch dev {
	case "", DeviceCPU:
		return nil
	case DeviceCUDA:
	default:
		return fmt.Errorf("unknown device %q (want %q or %q)", dev, DeviceCPU, DeviceCUDA)
	}
	if kind != pkPlain {
		return fmt.Errorf("device %q: %v is not a device reduction (sum, max, min)", DeviceCUDA, op)
	}
	if err := deviceCheck(op, dt, ax, ndim); err != nil {
		return err
	}
	n, err := cudaDevices()
	if err != nil {
		return fmt.Errorf("device %q: %w", DeviceCUDA, err)
	}
	if n == 0 {
		return fmt.Errorf("device %q: no CUDA device", DeviceCUDA)
	}
	return nil
}

// deviceReduce is the chunk stage on the device: b reduced over p.Axes
// with keepdims, as nd.Reduce(p.Op, b, p.Axes, true) would.
func deviceReduce(p reduceP, b *nd.Array) (*nd.Array, error) {
	if err := deviceCheck(p.Op, b.DType(), p.Axes, b.NDim()); err != nil {
		return nil, err
	}
	d, err := cudaops.Shared(0)
	if err != nil {
		return nil, err
	}
	g, err := d.Upload(b)
	if err != nil {
		return nil, err
	}
	defer g.Free()
	sh := b.Shape()
	keep := slices.Clone(sh)
	for _, a := range p.Axes {
		keep[a] = 1
	}
	if len(p.Axes) == len(sh) {
		v, err := cudaops.Reduce(p.Op, g)
		if err != nil {
			return nil, err
		}
		if b.DType() == nd.Float32 {
			return nd.FromSlice([]float32{float32(v)}, keep...)
		}
		return nd.FromSlice([]float64{v}, keep...)
	}
	k := len(p.Axes)
	var kept []int
	var sum func(dst *cudaops.Array) error
	if p.Axes[0] == 0 { // leading: what remains is each "pixel" summed over the "frames"
		kept = sh[k:]
		sum = func(dst *cudaops.Array) error { return cudaops.SumOverNav(dst, g, len(sh)-k, false) }
	} else { // trailing
		kept = sh[:len(sh)-k]
		sum = func(dst *cudaops.Array) error { return cudaops.SumOverSig(dst, g, k, false) }
	}
	dst, err := d.Alloc(b.DType(), kept...)
	if err != nil {
		return nil, err
	}
	defer dst.Free()
	if err := sum(dst); err != nil {
		return nil, err
	}
	r, err := dst.Download()
	if err != nil {
		return nil, err
	}
	return r.Reshape(keep...)
}
