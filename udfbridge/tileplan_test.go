package udfbridge

import (
	"slices"
	"testing"
)

// planTiles against hand-written plans: depth, ROI gaps, dataset block
// starts, and the frame / partition methods.
func TestPlanTiles(t *testing.T) {
	rng := func(a, b int) []int {
		var f []int
		for i := a; i < b; i++ {
			f = append(f, i)
		}
		return f
	}
	sig := []int{4, 6}
	cases := []struct {
		name             string
		frames           []int
		sigTile          []int
		depth            int
		anyFrame, anyPar bool
		cuts             []int
		wantBlocks       []tileBlock
		wantDepth        int
		wantRegions      int
	}{
		{"depth cuts", rng(10, 17), []int{4, 6}, 3, false, false, nil, []tileBlock{{0, 3}, {3, 3}, {6, 1}}, 3, 1},
		{"exact depth", rng(0, 6), []int{4, 6}, 3, false, false, nil, []tileBlock{{0, 3}, {3, 3}}, 3, 1},
		{"roi gaps", []int{0, 1, 3, 4, 5, 9}, []int{4, 6}, 8, false, false, nil, []tileBlock{{0, 2}, {2, 3}, {5, 1}}, 8, 1},
		{"block starts", rng(0, 8), []int{4, 6}, 8, false, false, []int{0, 3, 5}, []tileBlock{{0, 3}, {3, 2}, {5, 3}}, 8, 1},
		{"gaps and starts", []int{2, 3, 4, 6, 7}, []int{4, 6}, 2, false, false, []int{4}, []tileBlock{{0, 2}, {2, 1}, {3, 2}}, 2, 1},
		{"sig tiles", rng(0, 2), []int{2, 4}, 4, false, false, nil, []tileBlock{{0, 2}}, 4, 4},
		{"frame method: whole frames", rng(0, 2), []int{2, 4}, 4, true, false, nil, []tileBlock{{0, 2}}, 4, 1},
		{"partition method: one block", rng(0, 9), []int{2, 4}, 2, false, true, nil, []tileBlock{{0, 9}}, 9, 1},
		{"partition method, roi gap", []int{0, 1, 5}, []int{4, 6}, 2, false, true, nil, []tileBlock{{0, 2}, {2, 1}}, 3, 1},
		{"empty", nil, []int{4, 6}, 3, false, false, nil, []tileBlock{}, 3, 1},
		{"empty, partition method", nil, []int{4, 6}, 3, false, true, nil, []tileBlock{}, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := planTiles(c.frames, sig, c.sigTile, c.depth, c.anyFrame, c.anyPar, c.cuts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.blocks, c.wantBlocks) || p.depth != c.wantDepth || len(p.regions) != c.wantRegions {
				t.Errorf("blocks %v depth %d regions %d, want %v %d %d", p.blocks, p.depth, len(p.regions), c.wantBlocks, c.wantDepth, c.wantRegions)
			}
			// Invariants: blocks cover the frames in order, each a run of
			// consecutive frames no deeper than the depth, none crossing a cut.
			k := 0
			for _, b := range p.blocks {
				if b.k != k || b.m < 1 || b.m > p.depth {
					t.Fatalf("block %v after row %d (depth %d)", b, k, p.depth)
				}
				for j := b.k + 1; j < b.k+b.m; j++ {
					if c.frames[j] != c.frames[j-1]+1 || isCut(c.cuts, c.frames[j]) {
						t.Fatalf("block %v crosses a gap or cut at frame %d", b, c.frames[j])
					}
				}
				k += b.m
			}
			if k != len(c.frames) {
				t.Fatalf("blocks cover %d rows, want %d", k, len(c.frames))
			}
		})
	}
	if _, err := planTiles([]int{0}, sig, []int{4}, 1, false, false, nil); err == nil {
		t.Error("tile shape of the wrong rank: no error")
	}
}
