package chunkarray

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// liveTracker counts the chunk-sized values alive in a run: a value is
// born when its task finishes (Posttask) and dies when the scheduler
// releases it (Release).
type liveTracker struct {
	mu        sync.Mutex
	minElems  int
	live      map[graph.Key]bool
	peak, all int
}

func newLiveTracker(minElems int) *liveTracker {
	return &liveTracker{minElems: minElems, live: map[graph.Key]bool{}}
}

func (lt *liveTracker) callbacks() *sched.Callbacks {
	return &sched.Callbacks{
		Posttask: func(k graph.Key, v any, err error, _ int) {
			a, ok := v.(*nd.Array)
			if !ok || a.Size() < lt.minElems || isConst(a) {
				return
			}
			lt.mu.Lock()
			lt.live[k] = true
			lt.all++
			lt.peak = max(lt.peak, len(lt.live))
			lt.mu.Unlock()
		},
		Release: func(k graph.Key) {
			lt.mu.Lock()
			delete(lt.live, k)
			lt.mu.Unlock()
		},
	}
}

// A sum over many random chunks keeps only a few chunks alive at a time:
// the threaded scheduler runs each chunk's reduction (which Order ranks
// before the next root) as soon as the chunk exists, and releases the
// chunk then. Unfused, the peak is bounded by the workers, not by the
// number of chunks; fused, no chunk-sized value exists at all.
//
//	random-0  random-1 ... random-255     (roots, 40 000 elements each)
//	    |         |            |
//	 chunk-0   chunk-1  ... chunk-255      (1-element partials)
//	      \     |    /  ...   |
//	       partial (split_every 4) ... -> aggregate
func TestStreamingSumLiveChunksBounded(t *testing.T) {
	const workers = 4
	const nchunks = 256
	x := Random(11).Uniform(0, 1, []int{nchunks, 200, 200}, []int{1, 200, 200})
	for _, tc := range []struct {
		name     string
		optimize bool
		maxPeak  int
	}{
		{"unfused", false, 3 * workers},
		{"fused", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lt := newLiveTracker(200 * 200)
			got, err := x.Sum().Compute(context.Background(), WithScheduler(sched.Threaded{Workers: workers}),
				WithOptimize(tc.optimize), WithCallbacks(lt.callbacks()))
			if err != nil {
				t.Fatal(err)
			}
			if tc.optimize == false && lt.all != nchunks {
				t.Errorf("saw %d chunk-sized values, want %d", lt.all, nchunks)
			}
			if lt.peak > tc.maxPeak {
				t.Errorf("peak %d live chunks of %d, want ≤ %d (workers %d)", lt.peak, nchunks, tc.maxPeak, workers)
			}
			if v := f64(t, got)[0]; math.Abs(v-nchunks*200*200/2.0) > 6*math.Sqrt(nchunks*200*200/12.0) {
				t.Errorf("sum %v, want about %v", v, nchunks*200*200/2)
			}
			t.Logf("peak live chunks %d of %d", lt.peak, nchunks)
		})
	}
}

// vmHWM returns the process's peak resident set (VmHWM) in bytes.
func vmHWM(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// resetHWM resets the peak RSS (Linux's clear_refs "5").
func resetHWM() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// A 4 GiB random float64 array summed chunk by chunk stays under 1 GiB of
// peak RSS, fused (chunks never exist) and unfused (64 MiB chunks,
// released as soon as they are summed). Run by hand:
//
//	TESSERA_BIG=1 go test ./chunkarray/ -run BigSumPeakRSS -v
func TestBigSumPeakRSS(t *testing.T) {
	if os.Getenv("TESSERA_BIG") != "1" {
		t.Skip("set TESSERA_BIG=1 to sum a 4 GiB array and check peak RSS < 1 GiB")
	}
	const limit = 1 << 30
	n := 1 << 29 // 4 GiB of float64
	x := Random(5).Uniform(0, 1, []int{n / (1 << 20), 1 << 20}, []int{8, 1 << 20})
	for _, tc := range []struct {
		name     string
		optimize bool
	}{{"fused", true}, {"unfused", false}} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			debug.FreeOSMemory()
			if !resetHWM() {
				t.Log("cannot reset VmHWM; the figure is the process's peak so far")
			}
			got, err := x.Sum().Compute(context.Background(), WithScheduler(sched.Threaded{}), WithOptimize(tc.optimize))
			if err != nil {
				t.Fatal(err)
			}
			hwm := vmHWM(t)
			v := f64(t, got)[0]
			t.Logf("%s: sum %.6g of %d elements, peak RSS %.1f MiB (GOMAXPROCS %d)", tc.name, v, n, float64(hwm)/(1<<20), runtime.GOMAXPROCS(0))
			if hwm >= limit {
				t.Errorf("peak RSS %d bytes, want < %d", hwm, limit)
			}
			if math.Abs(v-float64(n)/2) > 6*math.Sqrt(float64(n)/12) {
				t.Errorf("sum %v, want about %v", v, fmt.Sprint(n/2))
			}
		})
	}
}
