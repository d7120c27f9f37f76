package workloads

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr"
	"github.com/tessera-go/tessera/sched"
)

// The zarr group of bench/dask/dask_bench.py: an uncompressed int32 store of
// n×n values 0–99 in chunks c×c, read, cast to int64, squared and summed.
//
// The store is written once into the system's temporary folder, under a
// name that says n and c, and reused by later runs (and by the child
// processes of tessera chunktune): a 10000² store is 400 MB, too much to
// write again for every benchmark run or to leave behind once per run. A
// marker file, written last, holds the exact sum of squares and says the
// store is complete; a store without it is written again.

// zarrStores serialises the writing of stores within a process: a cache
// keyed by path, the package's only mutable state.
var zarrStores sync.Mutex

// ZarrStore returns the path of the n×n int32 store with c×c chunks,
// writing it if needed, and the exact sum of the squares of its values.
// The values are chunkarray.Random(0).Integers(0, 100, …) cast to int32.
// While writing, each chunk's squares are summed with package nd directly
// (int64 multiply and sum on the chunk), a code path independent of the
// lazy astype, pow and tree sum that the workload times.
func ZarrStore(n, c int) (string, int64, error) {
	zarrStores.Lock()
	defer zarrStores.Unlock()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tessera-bench-zarr-i4-%d-c%d.zarr", n, c))
	marker := filepath.Join(path, "tessera-sum-of-squares")
	if b, err := os.ReadFile(marker); err == nil {
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			return path, v, nil
		}
	}
	if err := os.RemoveAll(path); err != nil {
		return "", 0, err
	}
	z, err := zarr.Create(path, zarr.Meta{Shape: []int{n, n}, Chunks: []int{c, c}, DType: nd.Int32})
	if err != nil {
		return "", 0, err
	}
	src := chunkarray.Random(0).Integers(0, 100, []int{n, n}, c).AsType(nd.Int32)
	t := &sumSqTarget{z: z, c: c}
	if err := src.Store(context.Background(), t, chunkarray.WithScheduler(sched.Threaded{})); err != nil {
		return "", 0, fmt.Errorf("writing %s: %w", path, err)
	}
	want := t.sum.Load()
	if err := os.WriteFile(marker, []byte(strconv.FormatInt(want, 10)+"\n"), 0o644); err != nil {
		return "", 0, err
	}
	return path, want, nil
}

// sumSqTarget writes each block as one zarr chunk and adds up its squares.
type sumSqTarget struct {
	z   *zarr.Array
	c   int
	sum atomic.Int64
}

func (t *sumSqTarget) WriteRegion(start []int, b *nd.Array) error {
	idx := make([]int, len(start))
	for i, s := range start {
		idx[i] = s / t.c
	}
	if err := t.z.WriteChunk(idx, b); err != nil {
		return err
	}
	w, err := b.AsType(nd.Int64)
	if err != nil {
		return err
	}
	sq, err := nd.Binary(nd.Mul, w, w)
	if err != nil {
		return err
	}
	s, err := nd.Reduce(nd.Sum, sq, nil, false)
	if err != nil {
		return err
	}
	v, err := nd.Values[int64](s)
	if err != nil {
		return err
	}
	t.sum.Add(v[0])
	return nil
}

// ZarrSqSum is (from_zarr(path).astype(int64) ** 2).sum() over the store
// ZarrStore(n, c) writes; it returns the exact expected sum as well.
func ZarrSqSum(n, c int) (*chunkarray.Array, int64, error) {
	path, want, err := ZarrStore(n, c)
	if err != nil {
		return nil, 0, err
	}
	return chunkarray.FromZarr(path).AsType(nd.Int64).Pow(2).Sum(), want, nil
}

// checkInt64 checks a one-element int64 result exactly.
func checkInt64(want int64) func([]any) error {
	return func(vals []any) error {
		if len(vals) != 1 {
			return fmt.Errorf("got %d values, want 1", len(vals))
		}
		a, ok := vals[0].(*nd.Array)
		if !ok || a.Size() != 1 || a.DType() != nd.Int64 {
			return fmt.Errorf("got %v, want a one-element int64 array", vals[0])
		}
		v, _ := nd.Values[int64](a)
		if v[0] != want {
			return fmt.Errorf("got %d, want %d", v[0], want)
		}
		return nil
	}
}

// zarrSqSumWorkload is the zarr group's workload. Build writes the store
// if needed and records the sum that Check then expects.
func zarrSqSumWorkload() *Workload {
	w := &Workload{
		Name:      "array-zarr-sq-sum",
		BenchName: "zarr_1e4_sq_sum",
		Doc: "(from_zarr(path).astype(int64) ** 2).sum() over an uncompressed int32 10000×10000 store, " +
			"chunks 1000×1000, values 0–99 (written to the temporary folder once)",
	}
	var want atomic.Int64
	w.Build = func() (*graph.Graph, []graph.Key, error) {
		a, sum, err := ZarrSqSum(10000, 1000)
		if err != nil {
			return nil, nil, err
		}
		want.Store(sum)
		return arrayGraph(a)
	}
	w.Check = func(vals []any) error { return checkInt64(want.Load())(vals) }
	return w
}
