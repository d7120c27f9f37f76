package udfbridge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestTileLoopAllocatesNothing runs the partition task of a run of one
// partition of 8 and of 64 tiles (4 frames each) through SumUDF,
// SumSigUDF, MaxUDF and ApplyMasksUDF (5 dense float32 masks), from datasets of every task reader (a memory
// dataset of float32, one of uint16 that is converted tile by tile, a
// raw file, a lazy chunkarray computed into the reader's block buffer),
// with a free list in its context as a run gives it, and checks that both
// tasks make the same number of allocations (testing.AllocsPerRun,
// exact): the tile loop allocates nothing, and a task's count does not
// grow with its data.
func TestTileLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	const depth, sig = 4, 24
	datasets := []struct {
		name string
		open func(t *testing.T, frames int) Dataset
	}{
		{"memory-f32", func(t *testing.T, frames int) Dataset {
			return memDataset(t, frames, sig, nd.Float32)
		}},
		{"memory-u16", func(t *testing.T, frames int) Dataset {
			return memDataset(t, frames, sig, nd.Uint16)
		}},
		{"raw-u16", func(t *testing.T, frames int) Dataset {
			m := memDataset(t, frames, sig, nd.Uint16)
			path := filepath.Join(t.TempDir(), "d.raw")
			writeRaw(t, path, m.Array(), 0)
			d, err := OpenRaw(path, nd.Uint16, []int{frames}, []int{sig, sig}, 0)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
		{"chunkarray", func(t *testing.T, frames int) Dataset {
			a := chunkarray.Random(1).Uniform(0, 1, []int{frames, sig, sig}, []int{frames, sig, sig}).AsType(nd.Float32)
			d, err := FromChunkArray(a, 2)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}},
	}
	mv := make([]float32, 5*sig*sig)
	for i := range mv {
		mv[i] = float32(i%7) / 4
	}
	ma, err := nd.FromSlice(mv, 5, sig, sig)
	if err != nil {
		t.Fatal(err)
	}
	masks, err := DenseMasks(ma, []int{sig, sig})
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range datasets {
		t.Run(ds.name, func(t *testing.T) {
			count := func(tiles int) float64 {
				frames := tiles * depth
				p, err := plan(ds.open(t, frames), []UDF{&SumUDF{}, &SumSigUDF{}, &MaxUDF{}, ApplyMasks(masks)},
					[]RunOption{WithPartitions(1), WithTileShape(depth, nil), WithScheduler(sched.Sync{})})
				if err != nil {
					t.Fatal(err)
				}
				op := &partOp{ri: p.ri, Part: 0, Start: 0, Stop: frames}
				ctx := freelist.NewContext(context.Background(), freelist.NewAuto(2))
				return minAllocs(func() {
					if _, err := op.Run(ctx, nil); err != nil {
						t.Fatal(err)
					}
				})
			}
			if few, many := count(8), count(64); few != many {
				t.Fatalf("8 tiles: %v allocations, 64 tiles: %v: %.2f per tile", few, many, (many-few)/56)
			}
		})
	}
}

func memDataset(t *testing.T, frames, sig int, dt nd.DType) *MemoryDataset {
	v := make([]float64, frames*sig*sig)
	for i := range v {
		v[i] = float64(i % 1009)
	}
	a, err := nd.FromSlice(v, frames, sig, sig)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	d, err := NewMemoryDataset(a, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// minAllocs is the least of a few testing.AllocsPerRun counts of f: a
// collection during a run empties graph's sync.Pool of key scratch and
// adds an allocation that is not f's; the least count has none.
func minAllocs(f func()) float64 {
	n := testing.AllocsPerRun(3, f)
	for range 3 {
		n = min(n, testing.AllocsPerRun(3, f))
	}
	return n
}
