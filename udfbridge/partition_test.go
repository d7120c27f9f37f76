package udfbridge

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestPartitionsNumpy holds Partitions to numpy's
// linspace(0, n, P+1, dtype=int), computed by /usr/bin/python3 with numpy
// 1.24.2 into testdata/partitions.json.
func TestPartitionsNumpy(t *testing.T) {
	b, err := os.ReadFile("testdata/partitions.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			N, P   int
			Bounds []int
		}
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 50 {
		t.Fatalf("only %d cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		if got := Partitions(c.N, c.P); !slices.Equal(got, c.Bounds) {
			t.Errorf("Partitions(%d, %d) = %v, want %v", c.N, c.P, got, c.Bounds)
		}
	}
}

func TestPartitionCount(t *testing.T) {
	for _, c := range []struct {
		name                            string
		nav, frame, target, cores, want int
	}{
		{"small dataset: one per core", 100, 1024, 512 << 20, 4, 4},
		{"fewer frames than cores", 3, 1024, 512 << 20, 8, 3},
		{"empty", 0, 1024, 512 << 20, 8, 1},
		{"large: 512 MiB each", 256 * 256, 256 * 256 * 2, 512 << 20, 2, 16},
		{"large, rounds up", 256*256 + 1, 256 * 256 * 2, 512 << 20, 2, 17},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := partitionCount(c.nav, c.frame, c.target, c.cores); got != c.want {
				t.Errorf("got %d, want %d", got, c.want)
			}
		})
	}
	if p := DefaultPartitionCount(10, 4); p < 1 || p > 10 {
		t.Errorf("DefaultPartitionCount(10, 4) = %d", p)
	}
}

func TestTileShape(t *testing.T) {
	for _, c := range []struct {
		name      string
		sig       []int
		dt        nd.DType
		target    int
		maxDepth  int
		wantSig   []int
		wantDepth int
	}{
		{"whole frames", []int{128, 128}, nd.Float32, 1 << 20, 0, []int{128, 128}, 16},
		{"whole frames, depth capped", []int{128, 128}, nd.Float32, 1 << 20, 4, []int{128, 128}, 4},
		{"frame larger than target: rows", []int{1024, 1024}, nd.Float64, 1 << 20, 0, []int{128, 1024}, 1},
		{"row larger than target: split second axis", []int{4, 1 << 20}, nd.Uint16, 1 << 20, 0, []int{1, 1 << 19}, 1},
		{"default target", []int{256, 256}, nd.Uint16, 0, 0, []int{256, 256}, 8},
		{"tiny target", []int{8, 8}, nd.Complex128, 1, 0, []int{1, 1}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			sig, depth := TileShape(c.sig, c.dt, c.target, c.maxDepth)
			if !slices.Equal(sig, c.wantSig) || depth != c.wantDepth {
				t.Errorf("got %v depth %d, want %v depth %d", sig, depth, c.wantSig, c.wantDepth)
			}
		})
	}
}

// TestTileRegionsCover checks that tiles cover frames × sig exactly once.
func TestTileRegionsCover(t *testing.T) {
	sig := []int{5, 7}
	for _, ts := range [][]int{{5, 7}, {2, 7}, {1, 3}, {3, 2}, {5, 1}} {
		for _, depth := range []int{1, 2, 5} {
			tiles, err := TileRegions(3, 11, sig, ts, depth)
			if err != nil {
				t.Fatal(err)
			}
			seen := make([]int, 11*35)
			for _, tl := range tiles {
				for f := tl.Start; f < tl.Start+tl.N; f++ {
					for y := tl.SigStart[0]; y < tl.SigStart[0]+tl.SigShape[0]; y++ {
						for x := tl.SigStart[1]; x < tl.SigStart[1]+tl.SigShape[1]; x++ {
							seen[f*35+y*7+x]++
						}
					}
				}
			}
			for i, s := range seen {
				want := 0
				if i >= 3*35 {
					want = 1
				}
				if s != want {
					t.Fatalf("tile %v depth %d: element %d covered %d times", ts, depth, i, s)
				}
			}
		}
	}
	if _, err := TileRegions(0, 1, sig, []int{1}, 1); err == nil {
		t.Error("mismatched tile shape: no error")
	}
}
