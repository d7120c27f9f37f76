package udfbridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

// BenchmarkNPYOrder runs SumSigUDF and SumUDF over the same float32
// array of nav 16×20, sig 128×128 (20 MiB) stored as a C-order and as a
// Fortran-order .npy file: the Fortran file's frames are spread over the
// whole file (its nav axes vary fastest), so its reader reads large runs
// and transposes them in memory. Each file is run in one partition and
// in the default partitions (one per core here). The files are written
// once into $TMPDIR and kept for later runs.
func BenchmarkNPYOrder(b *testing.B) {
	shape := []int{16, 20, 128, 128}
	for _, order := range []string{"C", "F"} {
		// Opened once, outside b.Run, which may call its function more
		// than once: runs of a closed dataset's token would find it.
		path, err := npyBenchFile(shape, order == "F")
		if err != nil {
			b.Fatal(err)
		}
		ds, err := OpenNPY(path, 2)
		if err != nil {
			b.Fatal(err)
		}
		defer ds.Close()
		for _, parts := range []int{1, 0} {
			name := order
			var opts []RunOption
			if parts > 0 {
				name += fmt.Sprintf("/partitions=%d", parts)
				opts = append(opts, WithPartitions(parts))
			}
			b.Run(name, func(b *testing.B) {
				ctx := context.Background()
				b.SetBytes(int64(prod(shape) * 4))
				b.ReportAllocs()
				cpu0 := processCPU()
				for b.Loop() {
					if _, err := Run(ctx, ds, []UDF{&SumSigUDF{}, &SumUDF{}}, append(opts, WithScheduler(sched.Threaded{}))...); err != nil {
						b.Fatal(err)
					}
				}
				// CPU time of the process per op, all threads: on a loaded
				// machine the wall time also counts waiting for a core.
				b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// npyBenchFile writes (once) a float32 .npy of shape, values i mod 4093
// in C order, stored in Fortran order when fortran is set.
func npyBenchFile(shape []int, fortran bool) (string, error) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tessera-bench-npy-%v-fortran=%v.npy", shape, fortran))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	v := make([]float32, prod(shape))
	for i := range v {
		v[i] = float32(i % 4093)
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		return "", err
	}
	if err := npy.WriteFile(path+".tmp", a, fortran); err != nil {
		return "", err
	}
	return path, os.Rename(path+".tmp", path)
}

// processCPU returns the user and system CPU time of the process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
