// Package cudaops runs tessera's array kernels on an NVIDIA GPU through
// gorgonia.org/cu (the CUDA driver API), behind the `cuda` build tag. It is
// the only package that imports gorgonia.org/cu; it depends on
// nd only.
//
// # Builds
//
// Every file with device code comes in a pair with identical exported
// signatures:
//
//	//go:build cuda && cgo     the real one (device_cuda.go, ...)
//	//go:build !cuda || !cgo   every function returns ErrNoCUDA
//
// so that `go build ./...` and `go test ./...` need no CUDA (that is CI),
// and callers write one code path:
//
//	d, err := cudaops.Open(0)
//	if errors.Is(err, cudaops.ErrNoCUDA) { /* CPU path */ }
//
// The mask product uses cuBLAS (cublasSgemm/cublasDgemm) when the second
// tag `cublas` is set as well (`-tags cuda,cublas`); without it, the plain
// kernel maskdot_f32/_f64. cuBLAS is a tag of its own because its library
// version is fixed at link time. HaveCUBLAS reports which.
//
// A `cuda` build is for GPU machines only: gorgonia.org/cu calls cuInit in
// its package init and, when that fails (no driver, no device, or the stub
// libcuda.so of the toolkit), prints "Error in initialization" and calls
// os.Exit(1) (cu.go, v0.9.6) — before main or any test runs, so even the
// fence tests cannot report ErrNoCUDA there. That is why the real files
// sit behind a tag rather than deciding at run time.
//
// # Building the cuda-tagged tests without a GPU
//
// internal/cudaops/tools/fetch-cuda.sh unpacks Debian bookworm's CUDA 11.8
// (headers, stub libraries, nvcc) under .cuda/ (ignored by git), with a
// private apt configuration. tools/build-gpu-test.sh then builds
// out/cudaops/cudaops.test (-tags cuda) and cudaops-cublas.test
// (-tags cuda,cublas) against the stubs: CGO_CFLAGS/CGO_LDFLAGS point
// there, since gorgonia.org/cu's own #cgo flags name /usr/local/cuda and
// friends, which do not exist here (the linker only warns about missing -L
// directories, and the environment's flags come first). The cublas binary
// names the cuBLAS soname of the GPU machine (libcublas.so.13 by default,
// through a generated link stub), cuBLAS's version being fixed at link
// time. tools/run-on-gpu.sh runs both there: the machine needs the driver,
// not Go or a toolkit. Running a cuda binary without a GPU shows the exit
// described above: with the toolkit's stub libcuda.so.1 on the library
// path it prints "Error in initialization ... UnknownErrorCode:34"
// (CUDA_ERROR_STUB_LIBRARY) and exits with status 1.
//
// # Model
//
// A Device is one GPU: its primary context, one stream, the kernels'
// module. CUDA contexts are bound to OS threads, so a Device owns one
// goroutine locked to an OS thread and every call is a closure run there,
// in call order; Device methods are safe for concurrent use. Rejected: the
// caller's goroutine calling runtime.LockOSThread (every caller would need
// to, and udfbridge tasks run on scheduler goroutines it does not own) and
// gorgonia's cu.Ctx (the same design, but its methods park errors in the
// context instead of returning them).
//
// An Array is device memory (cuMemAlloc; not managed memory, so no page
// faults blur the timings and the host copy is explicit) holding a
// C-contiguous float32 or float64 array: Device.Upload copies an nd.Array
// in, Array.Download copies it out, Array.Free releases it (Device.Close
// releases everything still allocated). Array.Rows is a view of rows of
// the first axis (a tile's rows of a nav buffer), sharing the memory.
// Shared(ordinal) is a Device opened once per process and never closed,
// what udfbridge's CUDA partitions and chunkarray's device reductions use.
// KernelDType tells, in every build, whether the kernels take a dtype.
//
// Kernels (kernels/kernels.cu, compiled to kernels/kernels.ptx by
// tools/gen-ptx.sh, embedded, loaded with cu.LoadData) work on frames: a
// stack whose trailing sigDims axes are the signal, read as an (n, m)
// matrix of n frames of m pixels:
//
//	Binary, BinaryScalar, ScalarBinary   dst = a op b, a op s, s op a (add, sub, mul, div)
//	SumOverNav   dst (sig) = the sum of the frames   (LiberTEM's SumUDF)
//	SumOverSig   dst (nav) = each frame's sum        (SumSigUDF)
//	MaskDot      dst (nav, k) = frames · masksᵀ      (ApplyMasksUDF)
//	Reduce       sum, max or min of a whole block    (chunk reductions)
//
// The sums accumulate with dst when asked (tile after tile into one
// buffer). They are deterministic: fixed launch shapes, no atomics, the
// partial sums of a two-pass reduction combined in order. Sums accumulate in
// double for float32 data too, which costs nothing on a bandwidth-bound
// kernel and keeps the result within float32 rounding of the CPU's.
//
// Launches are asynchronous on the Device's stream; Download and
// Synchronize wait, and report errors of the kernels before them.
//
// # Accuracy (the conformance tests' tolerances)
//
//   - elementwise float64 and float32: exact (one IEEE operation per element,
//     as nd does; the GPU does not fuse a*b+c here).
//   - sums (SumOverNav, SumOverSig, Reduce Sum, MaskDot kernel), float32:
//     |gpu − cpu| ≤ 1e-5 · Σ|terms| (plus a float32 ulp of the result);
//     float64: 1e-12 · Σ|terms|. The orders of summation differ.
//   - MaskDot through cuBLAS, float32: 1e-4 · Σ|terms| (cuBLAS accumulates
//     in float32; TF32 stays off, cuBLAS's default math mode).
//   - max, min: exact, NaN propagating as in numpy.
//
// # Users
//
// udfbridge runs SumUDF, SumSigUDF and ApplyMasksUDF (dense masks) on the
// device on the partitions of a BackendCUDA run, their Where: Device
// buffers staying device arrays for the partition (udfbridge/device.go);
// chunkarray runs the chunk stage of Sum, Max and Min on the device with
// ReduceOpts{Device: "cuda"}, those tasks asking for GPU=1
// (chunkarray/device.go). Both use Shared(0).
//
// # Still to run on a GPU
//
// None of the device code has run on a GPU yet: the sessions that wrote it
// had none. Everything below compiles here (tools/build-gpu-test.sh: vet
// of internal/cudaops, udfbridge and chunkarray under -tags cuda and
// cuda,cublas, go build -tags cuda ./..., five test binaries), and every
// CPU path and the fence are tested in the default build. What is left, on
// a machine with an NVIDIA driver (run(command="out/cudaops/run-on-gpu.sh",
// carry=["out/cudaops"]) after build-gpu-test.sh; split with TESTS=0,
// BENCH=0 and BENCH=<pattern> to stay under the device tool's 10 minutes):
//
//  1. out/cudaops/cudaops.test (-tags cuda), all tests: that the driver
//     JIT-compiles kernels.ptx (nvcc 11.8, PTX ISA 7.8) and Open resolves
//     every kernel; TestOpenBadOrdinal, TestLifecycle, TestUploadStrided,
//     TestErrors, TestConcurrent, TestLargeIndex (> 2^31 elements),
//     TestRows, and TestConformance's device half (device vs nd within the
//     tolerances above).
//  2. out/cudaops/cudaops-cublas.test (-tags cuda,cublas; linked for
//     libcublas.so.13): Conformance, LargeIndex, Errors through cuBLAS.
//  3. out/cudaops/udfbridge.test and udfbridge-cublas.test, -run
//     'Device|Backend': TestDeviceBuiltins (SumUDF, SumSigUDF,
//     ApplyMasksUDF, SumMergeAllUDF with BackendCUDA vs the CPU run:
//     uint16/float32/float64 data, 1 and 3 partitions, a ROI with 5-frame
//     tiles), TestDeviceBuffers (a Preprocess-seeded Device buffer, one
//     upload and one download per partition), TestDevicePlan,
//     TestBackend*.
//  4. out/cudaops/chunkarray.test -run Device: TestDeviceReduce (Sum, Max,
//     Min over all axes, Sum over leading and trailing axes, keepdims or
//     not, float32 and float64, against the CPU reduction).
//  5. The benchmarks, on 256×256 nav × 256×256 sig float32 (16 GiB):
//     cudaops's BenchmarkSum, BenchmarkSumSig, BenchmarkApplyMasks (data
//     resident on the device: GB/s against peak-GB/s, the device's memory
//     bandwidth; device-kernel vs cuBLAS for ApplyMasks; the CPU path) and
//     udfbridge's BenchmarkDeviceUDFSum, ...SumSig, ...ApplyMasks (whole
//     Run calls from host memory, BackendCUDA vs CPU, host-to-device
//     copies included). These are the figures the issue asks to report.
package cudaops

//go:generate tools/gen-ptx.sh
