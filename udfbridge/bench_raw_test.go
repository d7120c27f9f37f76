package udfbridge

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// BenchmarkRawSumSigSum runs SumSigUDF and SumUDF in one pass over a raw
// uint16 file of nav×nav × sig×sig and reports GB/s and the fraction of
// a streaming-sum reference measured in the same benchmark (a plain loop
// summing uint16 from memory, on all cores: what reading the bytes
// costs at best once the file is in the page cache).
//
// Sizes: TESSERA_RAW_NAV and TESSERA_RAW_SIG (default 64 and 256: 512
// MiB), TESSERA_BIG=1 for LiberTEM's 256×256 × 256×256 (8 GiB). The
// file is written once into $TMPDIR and kept for later runs.
func BenchmarkRawSumSigSum(b *testing.B) {
	nav, sig := envInt("TESSERA_RAW_NAV", 64), envInt("TESSERA_RAW_SIG", 256)
	if os.Getenv("TESSERA_BIG") == "1" {
		nav, sig = 256, 256
	}
	path, err := rawBenchFile(nav, sig)
	if err != nil {
		b.Fatal(err)
	}
	ds, err := OpenRaw(path, nd.Uint16, []int{nav, nav}, []int{sig, sig}, 0)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(nav * nav * sig * sig * 2)
	ref := streamingSumGBs(64 << 20)
	ctx := context.Background()
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := Run(ctx, ds, []UDF{&SumSigUDF{}, &SumUDF{}}, WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
	gbs := float64(size) * float64(b.N) / time.Since(start).Seconds() / 1e9
	b.ReportMetric(gbs, "GB/s")
	b.ReportMetric(ref, "ref-GB/s")
	b.ReportMetric(gbs/ref, "of-ref")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// rawBenchFile writes (once) a raw uint16 file of nav×nav frames of
// sig×sig, values i mod 65521, 4 MiB at a time.
func rawBenchFile(nav, sig int) (string, error) {
	n := int64(nav) * int64(nav) * int64(sig) * int64(sig)
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tessera-bench-raw-u16-%dx%dx%dx%d.raw", nav, nav, sig, sig))
	if fi, err := os.Stat(path); err == nil && fi.Size() == 2*n {
		return path, nil
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return "", err
	}
	buf := make([]byte, 4<<20)
	for i := int64(0); i < n; {
		m := min(int64(len(buf)/2), n-i)
		for j := range m {
			binary.LittleEndian.PutUint16(buf[2*j:], uint16((i+j)%65521))
		}
		if _, err := f.Write(buf[:2*m]); err != nil {
			f.Close()
			return "", err
		}
		i += m
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return path, os.Rename(path+".tmp", path)
}

// streamingSumGBs measures a plain sum over n bytes of uint16 in memory,
// split over GOMAXPROCS goroutines, best of 5: the reference bandwidth.
func streamingSumGBs(n int) float64 {
	v := make([]uint16, n/2)
	for i := range v {
		v[i] = uint16(i)
	}
	best := 0.0
	for range 5 {
		t0 := time.Now()
		parallelSum(v)
		if g := float64(n) / time.Since(t0).Seconds() / 1e9; g > best {
			best = g
		}
	}
	return best
}

var sinkSum uint64

func parallelSum(v []uint16) {
	p := max(1, runtimeProcs())
	done := make(chan uint64, p)
	for k := range p {
		part := v[k*len(v)/p : (k+1)*len(v)/p]
		go func() {
			var s uint64
			for _, x := range part {
				s += uint64(x)
			}
			done <- s
		}()
	}
	var s uint64
	for range p {
		s += <-done
	}
	sinkSum += s
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
