//go:build cuda && cgo

package udfbridge

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// Benchmarks of the built-in UDFs through udfbridge on the issue's
// dataset, 256×256 nav × 256×256 sig float32 (16 GiB) in host memory (a
// MemoryDataset), with BackendCUDA ("cuda": every tile is copied to the
// device, then SumOverNav / SumOverSig / MaskDot) and with the CPU backend
// ("cpu"), the default scheduler and partitioning. GB/s counts the
// dataset's bytes once per run. Unlike internal/cudaops's benchmarks
// (data resident on the device, against its memory bandwidth), these
// include the host-to-device copy of every frame, which bounds the device
// path (PCIe or NVLink-C2C, from pageable memory), and the whole run:
// partition tasks, merges, results.

const (
	udfBenchNav   = 256
	udfBenchSig   = 256
	udfBenchMasks = 8
)

var udfBench struct {
	once  sync.Once
	err   error
	ds    *MemoryDataset
	masks *Masks
}

func udfBenchData(b *testing.B) {
	udfBench.once.Do(func() {
		n := udfBenchNav * udfBenchNav * udfBenchSig * udfBenchSig
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
		a, err := nd.FromSlice(v, udfBenchNav, udfBenchNav, udfBenchSig, udfBenchSig)
		if err != nil {
			udfBench.err = err
			return
		}
		if udfBench.ds, udfBench.err = NewMemoryDataset(a, 2); udfBench.err != nil {
			return
		}
		mv := make([]float32, udfBenchMasks*udfBenchSig*udfBenchSig)
		for i := range mv {
			mv[i] = float32(i%7) - 3
		}
		m, err := nd.FromSlice(mv, udfBenchMasks, udfBenchSig, udfBenchSig)
		if err != nil {
			udfBench.err = err
			return
		}
		udfBench.masks, udfBench.err = DenseMasks(m, []int{udfBenchSig, udfBenchSig})
	})
	if udfBench.err != nil {
		b.Fatal(udfBench.err)
	}
}

func benchUDF(b *testing.B, mk func() UDF) {
	udfBenchData(b)
	for _, be := range []Backend{BackendCUDA, BackendCPU} {
		name := "cpu"
		if be == BackendCUDA {
			name = "cuda"
		}
		b.Run(name, func(b *testing.B) {
			bytes := int64(udfBenchNav * udfBenchNav * udfBenchSig * udfBenchSig * 4)
			b.SetBytes(bytes)
			b.ReportAllocs()
			run := func() {
				if _, err := Run(context.Background(), udfBench.ds, []UDF{mk()}, WithBackend(be)); err != nil {
					b.Fatal(err)
				}
			}
			run() // warm-up: the shared device's Open, page faults
			for b.Loop() {
				run()
			}
			b.ReportMetric(float64(bytes)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			if be == BackendCUDA && cudaops.HaveCUBLAS() {
				b.ReportMetric(1, "cublas") // ApplyMasks through cuBLAS
			}
		})
	}
}

func BenchmarkDeviceUDFSum(b *testing.B)    { benchUDF(b, func() UDF { return &SumUDF{} }) }
func BenchmarkDeviceUDFSumSig(b *testing.B) { benchUDF(b, func() UDF { return &SumSigUDF{} }) }
func BenchmarkDeviceUDFApplyMasks(b *testing.B) {
	benchUDF(b, func() UDF { return ApplyMasks(udfBench.masks) })
}
