package udfbridge

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// readPartition is the registered op of ToChunkArray's blocks: reopen the
// dataset from its spec (kind, parameters) and read frames rng[0]..rng[1].
// Every argument is a literal that the graph codec encodes, so the blocks
// run unchanged in another process. It is Pure: reading the same frames of
// the same dataset twice gives the same block keys, so the arrays of two
// ToChunkArray calls on one dataset merge.
var readPartition = delayed.Fn3E("udfbridge.read_partition",
	func(kind string, params []byte, rng []int) (*nd.Array, error) {
		if len(rng) != 2 {
			return nil, fmt.Errorf("udfbridge: read_partition: range %v is not [start, stop)", rng)
		}
		ds, err := OpenSpec(DatasetSpec{Kind: kind, Params: params})
		if err != nil {
			return nil, err
		}
		return ds.Read(context.Background(), rng[0], rng[1]-rng[0], nil, nil)
	}, delayed.Pure())

// ToChunkArray returns ds as a lazy chunkarray.Array with one block per
// partition (boundaries as Partitions, aligned as a run aligns them for a
// PartitionAligner such as an HDF5 dataset; partitions <= 0: the default count),
// LiberTEM's make_dask_array. The array's shape is the flat nav axis then
// the sig axes, (prod(nav),)+sig, the shape of the partitions a run
// reads; Reshape gives nav+sig when wanted. Empty partitions (more
// partitions than frames) get no block.
//
// The map tells where each block's bytes live, keyed by block key: "path
// bytes [lo, hi)" for raw files (and C-order npy files), the dataset and its
// frames otherwise. LiberTEM maps blocks to workers with the data on local
// storage; tessera has no workers yet, so the map names the storage and a
// distributed scheduler can match it to its workers.
//
// Each block is a task of the registered op "udfbridge.read_partition" whose
// arguments are the dataset's spec and the frame range, then chunkarray's
// shape check: the dataset must have a Spec.
func ToChunkArray(ds Dataset, partitions int) (*chunkarray.Array, map[graph.Key]string, error) {
	if ds == nil {
		return nil, nil, fmt.Errorf("udfbridge: ToChunkArray: nil dataset")
	}
	spec, err := ds.Spec()
	if err != nil {
		return nil, nil, fmt.Errorf("udfbridge: ToChunkArray: %w", err)
	}
	nav, sig, dt := ds.NavShape(), ds.SigShape(), ds.DType()
	n := dsProd(nav)
	if partitions <= 0 {
		partitions = DefaultPartitionCount(n, dsProd(sig)*dt.Size())
	}
	b, err := alignPartitions(ds, Partitions(n, partitions))
	if err != nil {
		return nil, nil, fmt.Errorf("udfbridge: ToChunkArray: %w", err)
	}
	var parts []*chunkarray.Array
	var ranges [][2]int
	for i := range partitions {
		lo, hi := b[i], b[i+1]
		if hi == lo && !(len(parts) == 0 && i == partitions-1) {
			continue
		}
		d := readPartition(delayed.Lit(spec.Kind), delayed.Lit(spec.Params), delayed.Lit([]int{lo, hi}))
		parts = append(parts, chunkarray.FromDelayed(d, append([]int{hi - lo}, sig...), dt))
		ranges = append(ranges, [2]int{lo, hi})
	}
	a := chunkarray.Concatenate(parts, 0)
	if err := a.Err(); err != nil {
		return nil, nil, fmt.Errorf("udfbridge: ToChunkArray: %w", err)
	}
	where := make(map[graph.Key]string, len(ranges))
	zeros := make([]int, len(sig))
	for i, r := range ranges {
		where[a.Key(append([]int{i}, zeros...)...)] = locate(ds, r[0], r[1])
	}
	return a, where, nil
}

// locate describes where frames [lo, hi) of ds are stored.
func locate(ds Dataset, lo, hi int) string {
	switch d := ds.(type) {
	case *RawDataset:
		a, b := d.ByteRange(lo, hi-lo)
		return fmt.Sprintf("%s bytes [%d, %d)", d.path, a, b)
	case *NPYDataset:
		if d.raw != nil {
			a, b := d.raw.ByteRange(lo, hi-lo)
			return fmt.Sprintf("%s bytes [%d, %d)", d.path, a, b)
		}
	}
	return fmt.Sprintf("%v frames [%d, %d)", ds, lo, hi)
}
