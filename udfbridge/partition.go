package udfbridge

import (
	"fmt"
	"runtime"

	"github.com/tessera-go/tessera/nd"
)

// Partitioning and tiling.
//
// A run cuts the flat nav axis into P partitions, one task each, with
// boundaries floor(i*n/P) for i = 0..P, as LiberTEM does (numpy's
// linspace(0, n, P+1, dtype=int); TestPartitionsNumpy holds Partitions to
// values numpy computed, testdata/partitions.json). Inside a partition the
// task reads tiles: a run of frames restricted to a region of the sig
// dimensions, sized by TileShape.

// DefaultPartitionBytes is the target size of one partition, LiberTEM's
// default (about 512 MiB of stored data per partition).
const DefaultPartitionBytes = 512 << 20

// DefaultTileBytesPerCore is the default tile budget of TileShape: about
// 1 MiB per core, so that a tile and the buffers a UDF derives from it stay
// in the core's share of the L2/L3 cache.
const DefaultTileBytesPerCore = 1 << 20

// Partitions returns the P+1 partition boundaries of a flat nav axis of
// length n: bounds[i] = floor(i*n/P). Partitions may be empty when P > n.
// p < 1 is treated as 1, n < 0 as 0.
func Partitions(n, p int) []int {
	if p < 1 {
		p = 1
	}
	if n < 0 {
		n = 0
	}
	b := make([]int, p+1)
	for i := range b {
		// i*n cannot overflow for any dataset that fits in memory
		// address space (n < 2^40, p < 2^20); compute in 128 bits
		// anyway would cost more than it saves.
		b[i] = int(int64(i) * int64(n) / int64(p))
	}
	return b
}

// DefaultPartitionCount picks the number of partitions of a dataset of
// navSize frames of frameBytes bytes each, as LiberTEM does: enough
// partitions that none exceeds DefaultPartitionBytes, and at least one per
// core (runtime.GOMAXPROCS) so that every core has a task, but never more
// partitions than frames (and at least one).
//
// LiberTEM's rule was kept rather than "one partition per core": with
// datasets of hundreds of GiB a partition per core would hold tens of GiB,
// too coarse for progress reports (RunIter) and load balance.
func DefaultPartitionCount(navSize, frameBytes int) int {
	return partitionCount(navSize, frameBytes, DefaultPartitionBytes, runtime.GOMAXPROCS(0))
}

func partitionCount(navSize, frameBytes, target, cores int) int {
	if navSize <= 0 {
		return 1
	}
	if frameBytes < 1 {
		frameBytes = 1
	}
	total := float64(navSize) * float64(frameBytes)
	p := int((total + float64(target) - 1) / float64(target))
	if p < cores {
		p = cores
	}
	if p > navSize {
		p = navSize
	}
	if p < 1 {
		p = 1
	}
	return p
}

// TileShape chooses the sig part of a tile and its depth (frames per tile)
// for frames of shape sig and dtype dt, so that one tile holds about
// targetBytes (targetBytes <= 0: DefaultTileBytesPerCore):
//
//   - when a whole frame fits, the tile is whole frames, depth =
//     targetBytes / frameBytes (at least 1, at most maxDepth when
//     maxDepth > 0);
//   - otherwise the tile is one frame deep and the sig is split along its
//     first axes: the leading axis is cut into rows so that the tile holds
//     about targetBytes, and when a single row of the leading axis is still
//     too large, the next axis is cut as well, and so on.
//
// The returned sig shape divides nothing exactly: the last tile along an
// axis may be shorter (see TileRegions). Splitting the leading axes (rather than
// the last ones) keeps each tile a contiguous run of bytes of the frame, so
// that a raw or npy file reads a tile with one ReadAt per frame.
func TileShape(sig []int, dt nd.DType, targetBytes, maxDepth int) (tileSig []int, depth int) {
	if targetBytes <= 0 {
		targetBytes = DefaultTileBytesPerCore
	}
	item := max(dt.Size(), 1)
	frame := item
	for _, s := range sig {
		frame *= max(s, 1)
	}
	tileSig = append([]int(nil), sig...)
	if frame <= targetBytes {
		depth = targetBytes / frame
		if maxDepth > 0 && depth > maxDepth {
			depth = maxDepth
		}
		return tileSig, max(depth, 1)
	}
	// Bytes of one index of axis i: product of the later axes.
	inner := frame
	for i := range tileSig {
		inner /= max(sig[i], 1)
		if inner <= targetBytes {
			tileSig[i] = max(targetBytes/inner, 1)
			tileSig[i] = min(tileSig[i], sig[i])
			return tileSig, 1
		}
		tileSig[i] = 1
	}
	return tileSig, 1
}

// TileRegion is one piece of a partition: frames [Start, Start+N) of the flat nav
// axis, sig region SigStart with shape SigShape.
type TileRegion struct {
	Start, N           int
	SigStart, SigShape []int
}

// TileRegions cuts frames [start, stop) and the sig shape into tiles of at most
// depth frames and at most tileSig along each sig axis, in order: frames
// outermost, then the sig regions in C order. Together the tiles cover
// [start, stop) × sig exactly once.
func TileRegions(start, stop int, sig, tileSig []int, depth int) ([]TileRegion, error) {
	if len(tileSig) != len(sig) {
		return nil, fmt.Errorf("udfbridge: tile shape %v does not match sig shape %v", tileSig, sig)
	}
	if depth < 1 {
		return nil, fmt.Errorf("udfbridge: tile depth %d < 1", depth)
	}
	for i, t := range tileSig {
		if t < 1 && sig[i] > 0 {
			return nil, fmt.Errorf("udfbridge: tile shape %v has an axis < 1", tileSig)
		}
	}
	// Sig regions in C order.
	var regions [][2][]int
	counts := make([]int, len(sig))
	for i, s := range sig {
		if s == 0 {
			counts[i] = 0
		} else {
			counts[i] = (s + tileSig[i] - 1) / tileSig[i]
		}
	}
	total := 1
	for _, c := range counts {
		total *= c
	}
	idx := make([]int, len(sig))
	for r := 0; r < total; r++ {
		st := make([]int, len(sig))
		sh := make([]int, len(sig))
		for i := range sig {
			st[i] = idx[i] * tileSig[i]
			sh[i] = min(tileSig[i], sig[i]-st[i])
		}
		regions = append(regions, [2][]int{st, sh})
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < counts[i] {
				break
			}
			idx[i] = 0
		}
	}
	var out []TileRegion
	for f := start; f < stop; f += depth {
		n := min(depth, stop-f)
		for _, rg := range regions {
			out = append(out, TileRegion{Start: f, N: n, SigStart: rg[0], SigShape: rg[1]})
		}
	}
	return out, nil
}
