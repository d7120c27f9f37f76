package udfbridge

// How often Merge runs, and with which parameters: a linear chain and
// RunIter merge each partition once (LiberTEM's main node does), a tree
// of P >= 2 leaves makes 2(P-1) calls (every node merges its two
// children into fresh buffers), merge_all's fallback P. RunIter merges a
// partition with the parameters in force when it was processed.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

var mergeCalls atomic.Int64

// tCountMerge: nav "v" = K per frame (processed with K), merged as
// dest = src·K (the K of the merge) and the single "k" summed: so a
// partition processed and merged with K holds K², and re-merging it with
// another K would show.
type tCountMerge struct{ K float64 }

func (u tCountMerge) Name() string            { return "test.countmerge" }
func (u tCountMerge) Params() ([]byte, error) { return json.Marshal(u) }
func (u tCountMerge) Buffers(*Meta) ([]BufferDecl, error) {
	return []BufferDecl{NavBuffer("v", nd.Float64), SingleBuffer("n", nd.Float64)}, nil
}
func (u tCountMerge) ProcessFrame(c *Ctx, _ *nd.Array) error {
	if err := setAll(c.Buf("v"), nd.Scalar(u.K)); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, c.Buf("n"), c.Buf("n"), nd.Scalar(1.0))
}
func (u tCountMerge) Merge(c *MergeCtx, dest, src map[string]*nd.Array) error {
	mergeCalls.Add(1)
	var p tCountMerge
	if err := json.Unmarshal(c.Params(), &p); err != nil {
		return err
	}
	if err := nd.BinaryInto(nd.Mul, dest["v"], src["v"], nd.Scalar(p.K)); err != nil {
		return err
	}
	return nd.BinaryInto(nd.Add, dest["n"], dest["n"], src["n"])
}

func init() {
	RegisterUDF("test.countmerge", func(p []byte) (UDF, error) {
		var u tCountMerge
		return u, json.Unmarshal(p, &u)
	})
}

func TestMergeCallCount(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	for _, P := range []int{1, 2, 3, 5, 8} {
		for _, c := range []struct {
			ms   MergeStrategy
			want int
		}{{MergeLinear, P}, {MergeTree, max(2*(P-1), 1)}, {MergeAllNode, P}} {
			mergeCalls.Store(0)
			res, err := Run(context.Background(), ds, []UDF{tCountMerge{K: 2}}, WithPartitions(P), WithMerge(c.ms), WithScheduler(sched.Sync{}))
			if err != nil {
				t.Fatal(err)
			}
			if got := mergeCalls.Load(); got != int64(c.want) {
				t.Errorf("P=%d merge=%d: %d Merge calls, want %d", P, c.ms, got, c.want)
			}
			// Values: a chain and merge_all merge each partition once
			// (v = K·K = 4); a tree merges a frame once per level it
			// climbs, so only the count of frames is the same.
			nn, _ := res[0].Data("n")
			if v, _ := nd.Values[float64](nn.Contiguous()); v[0] != float64(n) {
				t.Errorf("P=%d merge=%d: n = %v, want %d", P, c.ms, v, n)
			}
			if c.ms != MergeTree {
				v, _ := res[0].Data("v")
				vals, _ := nd.Values[float64](v.Contiguous())
				for i, x := range vals {
					if x != 4 {
						t.Fatalf("P=%d merge=%d: v[%d] = %v, want 4 (merged once)", P, c.ms, i, x)
					}
				}
			}
		}
	}
}

func TestIterMergesOncePerPartition(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Float32)
	n := shapeProd(nav)
	const P = 4
	bounds := Partitions(n, P)
	mergeCalls.Store(0)
	it, err := RunIter(ds, []UDF{tCountMerge{K: 1}}, WithPartitions(P), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	step := 0
	for it.Next(context.Background()) {
		step++
		if got := mergeCalls.Load(); got != int64(step) {
			t.Fatalf("after step %d: %d Merge calls, want %d (one per partition)", step, got, step)
		}
		// Partition j was processed and merged with K = j+1: v = (j+1)².
		v, err := it.Partial().Results[0].RawData("v")
		if err != nil {
			t.Fatal(err)
		}
		vals, _ := nd.Values[float64](v.Contiguous())
		for j := 0; j < step; j++ {
			for f := bounds[j]; f < bounds[j+1]; f++ {
				if want := float64((j + 1) * (j + 1)); vals[f] != want {
					t.Fatalf("step %d: v[%d] (partition %d) = %v, want %v: merged with the parameters of its own step, once", step, f, j, vals[f], want)
				}
			}
		}
		if err := it.UpdateUDF(0, tCountMerge{K: float64(step + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if step != P {
		t.Fatalf("%d steps, want %d", step, P)
	}
}

// A chain's values equal the tree's for an associative merge (sums), on
// every scheduler and ROI: the chain's copied target changes nothing.
func TestChainEqualsTree(t *testing.T) {
	ds, nav, _ := coreMemDS(t, nd.Uint16)
	n := shapeProd(nav)
	for roiName, roi := range roiCases(n, nav[1], 31) {
		var opts []RunOption
		if roi != nil {
			r, _ := nd.FromSlice(roi, nav...)
			opts = append(opts, WithROI(r))
		}
		for _, P := range []int{1, 3, 7} {
			run := func(ms MergeStrategy) []*Results {
				res, err := Run(context.Background(), ds, []UDF{tNavSum{}, tSigSum{}}, append(opts, WithPartitions(P), WithMerge(ms), WithScheduler(sched.Threaded{Workers: 2}))...)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			tree, chain := run(MergeTree), run(MergeLinear)
			for u, name := range []string{"intensity", "sum"} {
				a, _ := tree[u].Data(name)
				b, _ := chain[u].Data(name)
				coreSame(t, fmt.Sprintf("roi=%s P=%d %s", roiName, P, name), b, a)
			}
		}
	}
}
