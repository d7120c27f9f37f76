package workloads

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
)

// The scale group of tessera bench and bench/dask/dask_bench.py: how the
// cost grows with the size of the graph and of the data.
//
//   - scale_delayed_1e3 … scale_delayed_1e6: delayed-tree graphs of 10^k - 1
//     tasks (10^k / 2 leaves); the figure is µs per task, which should stay
//     flat as the graph grows.
//   - randint500^3_sum_chunks100 … chunks10: the same 500³ integers in
//     125 … 125,000 chunks (the chunks group's workload at smaller chunks).
//   - scale_stream_sum: lazily generated uniform float64 values, by default
//     4 GiB in 64 MiB chunks, summed; the figure beside the time is the
//     peak resident memory against the bound chunk bytes × workers.

// scaleDelayedSizes are the task counts (rounded: the tree has one task
// fewer) of the scale group's delayed workloads.
var scaleDelayedSizes = [...]int{1e3, 1e4, 1e5, 1e6}

// Stream workload defaults: 4 GiB of float64 in 64 MiB chunks. Both are
// flags of tessera bench (-stream-gib, -stream-chunk-mib) and environment
// variables of both bench programs (SCALE_STREAM_GIB,
// SCALE_STREAM_CHUNK_MIB).
const (
	DefaultStreamBytes      = 4 << 30
	DefaultStreamChunkBytes = 64 << 20
	// StreamSumName is the bench name of the stream workload, whatever
	// its size: bench/compare.sh pairs rows by name, and the row says the
	// size (array_bytes, chunk_bytes).
	StreamSumName = "scale_stream_sum"
)

// MemoryBound describes a workload whose peak memory is part of its
// figure: tessera bench runs it in a fresh child process, so that the
// process's peak resident set (VmHWM) is this workload's, and reports it
// beside ChunkBytes × workers.
type MemoryBound struct {
	ArrayBytes int64 // bytes of the whole (lazy) array
	ChunkBytes int64 // bytes of one chunk
}

// scaleDelayedWorkload is a delayed tree of tasks-1 tasks.
func scaleDelayedWorkload(tasks int) *Workload {
	leaves := tasks / 2
	exp := int(math.Round(math.Log10(float64(tasks))))
	return &Workload{
		Name:      fmt.Sprintf("delayed-tree-1e%d", exp),
		BenchName: fmt.Sprintf("scale_delayed_1e%d", exp),
		Doc:       fmt.Sprintf("a binary tree of impure additions over add(i, 1) for i < %d: %d tasks", leaves, 2*leaves-1),
		Build: func() (*graph.Graph, []graph.Key, error) {
			return delayedGraph(Tree(leaves))
		},
		// Σ_{i<n} (i+1) = n(n+1)/2.
		Check: func(vals []any) error { return checkInt(vals, leaves*(leaves+1)/2) },
		Tasks: 2*leaves - 1,
	}
}

func scaleDelayedWorkloads() []*Workload {
	out := make([]*Workload, len(scaleDelayedSizes))
	for i, n := range scaleDelayedSizes {
		out[i] = scaleDelayedWorkload(n)
	}
	return out
}

// StreamSum returns the stream workload at a size of its own: the sum
// of arrayBytes/8 uniform [0, 1) float64 values, lazily generated in
// chunks of chunkBytes/8 values (the last may be shorter). The name is
// StreamSumName whatever the size.
func StreamSum(arrayBytes, chunkBytes int64) (*Workload, error) {
	n, c := arrayBytes/8, chunkBytes/8
	if n < 1 || c < 1 {
		return nil, fmt.Errorf("workload %s: array of %d bytes in chunks of %d bytes: want at least one float64 of each", StreamSumName, arrayBytes, chunkBytes)
	}
	if n > math.MaxInt/8 {
		return nil, fmt.Errorf("workload %s: array of %d bytes is too large", StreamSumName, arrayBytes)
	}
	c = min(c, n)
	nchunks := int((n + c - 1) / c)
	if nchunks > chunkarray.MaxBlocks {
		return nil, fmt.Errorf("workload %s: %d chunks, more than chunkarray.MaxBlocks (%d)", StreamSumName, nchunks, chunkarray.MaxBlocks)
	}
	return &Workload{
		Name:      "array-stream-sum",
		BenchName: StreamSumName,
		Doc:       fmt.Sprintf("uniform(0, 1, %d float64 (%s), chunks of %s).sum(), generated lazily", n, byteSize(n*8), byteSize(c*8)),
		Build: func() (*graph.Graph, []graph.Key, error) {
			return arrayGraph(chunkarray.Random(7).Uniform(0, 1, []int{int(n)}, int(c)).Sum())
		},
		// A sum of n uniform [0, 1) values: mean n/2, variance n/12;
		// within 6σ.
		Check: func(vals []any) error {
			v, err := scalarOf(vals)
			if err != nil {
				return err
			}
			mean, sd := float64(n)/2, math.Sqrt(float64(n)/12)
			if math.Abs(v-mean) > 6*sd {
				return fmt.Errorf("sum %v, want %v ± %v", v, mean, 6*sd)
			}
			return nil
		},
		NChunks: nchunks,
		Memory:  &MemoryBound{ArrayBytes: n * 8, ChunkBytes: c * 8},
	}, nil
}

func streamSumWorkload() *Workload {
	w, err := StreamSum(DefaultStreamBytes, DefaultStreamChunkBytes)
	if err != nil {
		panic(err) // the defaults are valid
	}
	return w
}

// byteSize writes b in the largest binary unit that leaves a number ≥ 1.
func byteSize(b int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(b), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.4g %s", f, units[i])
}
