package udfbridge

import (
	"fmt"
	"slices"
)

// A PartitionAligner is a Dataset that moves a run's partition bounds
// (floor(i·n/P), Partitions) to suit its storage: AlignPartitions returns
// P+1 non-decreasing bounds from 0 to n, where some partitions may be
// empty (they get no task). An HDF5 dataset aligns them to its chunks,
// as LiberTEM's does, so that no chunk is decompressed by two tasks.
type PartitionAligner interface {
	AlignPartitions(bounds []int) []int
}

// alignPartitions returns ds's aligned bounds, or the bounds unchanged
// when ds is no PartitionAligner; aligned bounds that are not P+1
// non-decreasing bounds from 0 to n are an error naming the dataset.
func alignPartitions(ds Dataset, bounds []int) ([]int, error) {
	a, ok := ds.(PartitionAligner)
	if !ok {
		return bounds, nil
	}
	out := a.AlignPartitions(slices.Clone(bounds))
	p := len(bounds) - 1
	if len(out) != p+1 || out[0] != 0 || out[p] != bounds[p] || !slices.IsSorted(out) {
		return nil, fmt.Errorf("udfbridge: %v: aligned partition bounds %v, want %d non-decreasing bounds from 0 to %d", ds, out, p+1, bounds[p])
	}
	return out, nil
}
