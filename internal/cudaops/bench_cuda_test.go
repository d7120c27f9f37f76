//go:build cuda && cgo

package cudaops

import (
	"runtime"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Benchmarks of the built-in UDFs' kernels on the dataset: 256×256
// nav × 256×256 sig float32 (16 GiB), on the device (data resident there:
// the figure to hold against the device's memory bandwidth, reported as
// peak-GB/s) and on the CPU path (nd, what the UDFs run without CUDA).
// GB/s counts the bytes of the frames read once per operation.
//
//	Sum         SumOverNav   (LiberTEM SumUDF: frames → sig image)
//	SumSig      SumOverSig   (SumSigUDF: frames → nav image)
//	ApplyMasks  MaskDot with benchMasks masks (cuBLAS with the cublas tag),
//	            MaskDotKernel, and nd.Tensordot on the CPU

const (
	benchNav   = 256
	benchSig   = 256
	benchMasks = 8
)

var bench struct {
	once   sync.Once
	err    error
	host   *nd.Array // (nav, nav, sig, sig) float32
	masks  *nd.Array // (benchMasks, sig, sig)
	d      *Device
	frames *Array
	dmasks *Array
	peak   float64
}

// benchData builds the dataset once per process (a deterministic pattern,
// filled in parallel) and uploads it.
func benchData(b *testing.B) {
	bench.once.Do(func() {
		n := benchNav * benchNav * benchSig * benchSig
		v := make([]float32, n)
		var wg sync.WaitGroup
		w := runtime.GOMAXPROCS(0)
		for g := range w {
			wg.Go(func() {
				for i := g * n / w; i < (g+1)*n/w; i++ {
					v[i] = float32(i%251) * (1.0 / 256)
				}
			})
		}
		wg.Wait()
		if bench.host, bench.err = nd.FromSlice(v, benchNav, benchNav, benchSig, benchSig); bench.err != nil {
			return
		}
		mv := make([]float32, benchMasks*benchSig*benchSig)
		for i := range mv {
			mv[i] = float32(i%7) - 3
		}
		if bench.masks, bench.err = nd.FromSlice(mv, benchMasks, benchSig, benchSig); bench.err != nil {
			return
		}
		if bench.d, bench.err = Open(0); bench.err != nil {
			return
		}
		if bench.peak, bench.err = bench.d.peakBandwidth(); bench.err != nil {
			return
		}
		if bench.frames, bench.err = bench.d.Upload(bench.host); bench.err != nil {
			return
		}
		bench.dmasks, bench.err = bench.d.Upload(bench.masks)
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
}

// run times f over the frames and reports GB/s (and the device's peak for
// device runs).
func run(b *testing.B, device bool, f func() error) {
	bytes := bench.host.Nbytes()
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	if err := f(); err != nil { // warm-up: JIT, cuBLAS heuristics, page faults
		b.Fatal(err)
	}
	if device {
		if err := bench.d.Synchronize(); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
		if device {
			if err := bench.d.Synchronize(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
	if device {
		b.ReportMetric(bench.peak/1e9, "peak-GB/s")
	}
}

func devOut(b *testing.B, shape ...int) *Array {
	a, err := bench.d.Alloc(nd.Float32, shape...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Free() })
	return a
}

func BenchmarkSum(b *testing.B) {
	benchData(b)
	b.Run("device", func(b *testing.B) {
		dst := devOut(b, benchSig, benchSig)
		run(b, true, func() error { return SumOverNav(dst, bench.frames, 2, false) })
	})
	b.Run("cpu", func(b *testing.B) {
		run(b, false, func() error { _, err := nd.Reduce(nd.Sum, bench.host, []int{0, 1}, false); return err })
	})
}

func BenchmarkSumSig(b *testing.B) {
	benchData(b)
	b.Run("device", func(b *testing.B) {
		dst := devOut(b, benchNav, benchNav)
		run(b, true, func() error { return SumOverSig(dst, bench.frames, 2, false) })
	})
	b.Run("cpu", func(b *testing.B) {
		run(b, false, func() error { _, err := nd.Reduce(nd.Sum, bench.host, []int{2, 3}, false); return err })
	})
}

func BenchmarkApplyMasks(b *testing.B) {
	benchData(b)
	b.Run("device", func(b *testing.B) { // cuBLAS when built with it
		dst := devOut(b, benchNav, benchNav, benchMasks)
		run(b, true, func() error { return MaskDot(dst, bench.frames, bench.dmasks, 2, false) })
	})
	b.Run("device-kernel", func(b *testing.B) {
		dst := devOut(b, benchNav, benchNav, benchMasks)
		run(b, true, func() error { return MaskDotKernel(dst, bench.frames, bench.dmasks, 2, false) })
	})
	b.Run("cpu", func(b *testing.B) {
		run(b, false, func() error {
			_, err := nd.Tensordot(bench.host, bench.masks, []int{2, 3}, []int{1, 2})
			return err
		})
	})
}
