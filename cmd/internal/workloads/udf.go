package workloads

import (
	"context"
	"fmt"
	"math"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/udfbridge"
)

// The udf group of bench/dask/dask_bench.py (group_udf): a SumUDF over a 4-D dataset,
// nav 64×64 (4096 frames, flat) × sig 128×128, float32, generated lazily
// (chunkarray.Random(…).Uniform(0, 1).AsType(float32), chunks of 256
// frames) so that generating it is timed, as on the Dask side; 16
// partitions, merged by a tree of pairwise merges or by one merge_all
// node. Each partition is one tile of 256 frames: the dataset's blocks
// are the partitions, and a tile smaller than a block would make each
// tile compute the block again (LiberTEM's dask dataset reads per chunk
// for the same reason). And two small pictures of a SumUDF run, as
// LiberTEM's Dask integration draws them: the wrapped merge and merge_all.

const (
	udfFrames = 64 * 64
	udfParts  = 16
	udfSeed   = 4
)

var udfSig = []int{128, 128}

// UDFSumData is the benchmark's lazily generated dataset as an array of
// (frames,)+sig, in parts blocks along the frames.
func UDFSumData(seed uint64, frames, parts int, sig []int) *chunkarray.Array {
	shape := append([]int{frames}, sig...)
	chunks := append([]int{frames / parts}, sig...)
	return chunkarray.Random(seed).Uniform(0, 1, shape, chunks).AsType(nd.Float32)
}

// UDFSum is the lazy "intensity" of a SumUDF run over a (frames,)+sig
// array: merged by a tree (mergeAll false) or by SumMergeAllUDF's one
// merge_all node.
func UDFSum(a *chunkarray.Array, parts int, mergeAll bool) (*chunkarray.Array, error) {
	ds, err := udfbridge.FromChunkArray(a, a.NDim()-1)
	if err != nil {
		return nil, err
	}
	var u udfbridge.UDF = &udfbridge.SumUDF{}
	m := udfbridge.MergeTree
	if mergeAll {
		u, m = &udfbridge.SumMergeAllUDF{}, udfbridge.MergeAllNode
	}
	res, err := udfbridge.RunLazy(ds, []udfbridge.UDF{u},
		udfbridge.WithPartitions(parts), udfbridge.WithMerge(m),
		udfbridge.WithTileShape(a.Shape()[0]/parts, nil))
	if err != nil {
		return nil, err
	}
	return res[0].Arrays["intensity"], nil
}

// checkUDFSum compares the computed sum with the direct sum over axis 0
// of the same lazily generated data (chunkarray's reduction, no UDF).
func checkUDFSum(vals []any) error {
	if len(vals) != 1 {
		return fmt.Errorf("got %d values, want 1", len(vals))
	}
	got, ok := vals[0].(*nd.Array)
	if !ok {
		return fmt.Errorf("got %T, want *nd.Array", vals[0])
	}
	want, err := UDFSumData(udfSeed, udfFrames, udfParts, udfSig).Sum(0).Compute(context.Background(), chunkarray.WithScheduler(sched.Threaded{}))
	if err != nil {
		return err
	}
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.Shape())
	}
	g, err := got.AsType(nd.Float64)
	if err != nil {
		return err
	}
	w, err := want.AsType(nd.Float64)
	if err != nil {
		return err
	}
	gv, _ := nd.Values[float64](g)
	wv, _ := nd.Values[float64](w)
	for i := range gv {
		// float32 sums of 4096 values near 0.5 in different orders
		if math.Abs(gv[i]-wv[i]) > 1e-4*math.Abs(wv[i]) {
			return fmt.Errorf("intensity[%d] = %v, want %v", i, gv[i], wv[i])
		}
	}
	return nil
}

// udfSumWorkload is the benchmark: merged by a pairwise tree, or by one
// merge_all node.
func udfSumWorkload(name, bench string, mergeAll bool) *Workload {
	how := "a pairwise tree"
	if mergeAll {
		how = "one merge_all node"
	}
	return &Workload{
		Name:      name,
		BenchName: bench,
		Doc:       "SumUDF over random float32 frames (4096 × 128×128, 16 partitions), merged by " + how,
		Build: func() (*graph.Graph, []graph.Key, error) {
			s, err := UDFSum(UDFSumData(udfSeed, udfFrames, udfParts, udfSig), udfParts, mergeAll)
			if err != nil {
				return nil, nil, err
			}
			return arrayGraph(s)
		},
		Check: checkUDFSum,
		Tasks: udfParts,
	}
}

// udfPictureWorkload is a small SumUDF run to draw, every operation its
// own task.
func udfPictureWorkload(name string, mergeAll bool) *Workload {
	how := "ordered pairwise merges in a tree"
	if mergeAll {
		how = "one merge_all node"
	}
	return &Workload{
		Name: name,
		Doc:  "a SumUDF run in 4 partitions (16 frames of 8×8) to draw: " + how,
		Build: func() (*graph.Graph, []graph.Key, error) {
			s, err := UDFSum(UDFSumData(udfSeed, 16, 4, []int{8, 8}), 4, mergeAll)
			if err != nil {
				return nil, nil, err
			}
			return pictureGraph(s)
		},
	}
}
