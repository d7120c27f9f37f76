package udfbridge

import (
	"context"
	"errors"
	"fmt"
	"math/cmplx"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
	"github.com/tessera-go/tessera/nd/hdf5/hdf5test"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

// hdf5Cases are the layouts of the HDF5 dataset tests: contiguous, chunks
// of whole nav rows (aligned partitions), frame chunks, chunks that cut
// the nav and sig axes, gzip.
var hdf5Cases = []struct {
	name   string
	shape  []int
	chunks []int
	comp   string
}{
	{"contiguous", []int{6, 5, 6, 7}, nil, ""},
	{"row chunks gzip", []int{6, 5, 6, 7}, []int{2, 5, 6, 7}, "gzip"},
	{"frame chunks", []int{4, 4, 5, 5}, []int{1, 1, 5, 5}, ""},
	{"odd chunks gzip", []int{5, 5, 6, 7}, []int{2, 2, 4, 3}, "gzip"},
	{"3d", []int{13, 6, 7}, []int{4, 6, 7}, "gzip"},
}

var hdf5DTypes = []string{"<u2", ">f4", "<c16", ">i4"}

func writeHDF5Cases(t *testing.T) (dir string, cases []hdf5test.Case) {
	t.Helper()
	dir = t.TempDir()
	for _, c := range hdf5Cases {
		for _, dt := range hdf5DTypes {
			cases = append(cases, hdf5test.Case{File: strings.ReplaceAll(c.name, " ", "-") + ".h5",
				Dataset: "/scan/" + strings.Trim(dt, "<>"), DType: dt, Shape: c.shape, Chunks: c.chunks, Compression: c.comp})
		}
	}
	hdf5test.Write(t, dir, cases...)
	return dir, cases
}

// TestHDF5Dataset runs the dataset suite (checkDataset: random reads,
// partitions × tiles through Read and the task reader, errors, Spec) on
// HDF5 files written by h5py, against what h5py reads back.
func TestHDF5Dataset(t *testing.T) {
	dir, cases := writeHDF5Cases(t)
	for _, c := range cases {
		t.Run(c.File+c.Dataset, func(t *testing.T) {
			data, err := npy.ReadFile(hdf5test.Oracle(dir, c))
			if err != nil {
				t.Fatal(err)
			}
			sigDims := 2
			ds, err := OpenHDF5(hdf5test.Path(dir, c), c.Dataset, sigDims)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			if !slices.Equal(ds.Chunks(), c.Chunks) {
				t.Errorf("chunks %v, want %v", ds.Chunks(), c.Chunks)
			}
			checkDataset(t, ds, data, sigDims)
		})
	}
}

// TestHDF5Runs runs SumUDF and SumSigUDF over HDF5 datasets and over
// memory datasets of what h5py reads back, on Sync and Threaded, with
// several partition counts, with and without a ROI: the results agree
// (the values are small integers and halves, whose float sums are exact,
// so any summation order gives the same numbers).
func TestHDF5Runs(t *testing.T) {
	dir, cases := writeHDF5Cases(t)
	ctx := context.Background()
	for _, c := range cases {
		if c.DType == ">i4" {
			continue // int32 → float64 input: covered by the suite's reads
		}
		data, err := npy.ReadFile(hdf5test.Oracle(dir, c))
		if err != nil {
			t.Fatal(err)
		}
		ds, err := OpenHDF5(hdf5test.Path(dir, c), c.Dataset, 2)
		if err != nil {
			t.Fatal(err)
		}
		mem, err := NewMemoryDataset(data, len(c.Shape)-2)
		if err != nil {
			t.Fatal(err)
		}
		nav := ds.NavShape()
		roi := make([]bool, dsProd(nav))
		for i := range roi {
			roi[i] = i%5 != 2 && i != 3
		}
		roiA, err := nd.FromSlice(roi, nav...)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []struct {
			name string
			s    sched.Scheduler
		}{{"sync", sched.Sync{}}, {"threaded", sched.Threaded{Workers: 3}}} {
			for _, p := range []int{0, 1, 3, 7} {
				for _, withROI := range []bool{false, true} {
					opts := []RunOption{WithScheduler(s.s)}
					if p > 0 {
						opts = append(opts, WithPartitions(p))
					}
					if withROI {
						opts = append(opts, WithROI(roiA))
					}
					name := fmt.Sprintf("%s%s/%s/p=%d/roi=%v", c.File, c.Dataset, s.name, p, withROI)
					t.Run(name, func(t *testing.T) {
						got, err := Run(ctx, ds, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
						if err != nil {
							t.Fatal(err)
						}
						want, err := Run(ctx, mem, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
						if err != nil {
							t.Fatal(err)
						}
						for i := range got {
							sameResults(t, fmt.Sprint(i), got[i], want[i], "intensity")
						}
					})
				}
			}
		}
		ds.Close()
	}
}

// sameResults compares a buffer of two runs' results within a relative
// tolerance of 1e-6 (NaN outside the ROI equal to NaN).
func sameResults(t *testing.T, what string, got, want *Results, name string) {
	t.Helper()
	g, err := got.Data(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := want.Data(name)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Shape(), w.Shape()) || g.DType() != w.DType() {
		t.Fatalf("%s: %v %v, want %v %v", what, g.Shape(), g.DType(), w.Shape(), w.DType())
	}
	gv, wv := c128(t, g), c128(t, w)
	for i := range gv {
		if cmplx.IsNaN(gv[i]) && cmplx.IsNaN(wv[i]) {
			continue
		}
		if cmplx.Abs(gv[i]-wv[i]) > 1e-6*max(1, cmplx.Abs(wv[i])) {
			t.Fatalf("%s: %s[%d] = %v, want %v", what, name, i, gv[i], wv[i])
		}
	}
}

// TestHDF5RunIter checks that a run's partitions are aligned to the
// chunks (chunks of 8 nav rows of 3 frames: units of 24 frames, so 3
// partitions of 12 frames become [0, 0), [0, 24), [24, 36)) and that
// RunIter takes one step per non-empty aligned partition, the first
// merging frames [0, 24), and ends with the result of Run.
func TestHDF5RunIter(t *testing.T) {
	dir := t.TempDir()
	c := hdf5test.Case{File: "it.h5", Dataset: "d", DType: "<u2", Shape: []int{12, 3, 4, 4}, Chunks: []int{8, 3, 4, 4}, Compression: "gzip"}
	hdf5test.Write(t, dir, c)
	ds, err := OpenHDF5(hdf5test.Path(dir, c), c.Dataset, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if got := ds.AlignPartitions(Partitions(36, 3)); !slices.Equal(got, []int{0, 0, 24, 36}) {
		t.Errorf("AlignPartitions(%v) = %v, want [0 0 24 36]", Partitions(36, 3), got)
	}
	ctx := context.Background()
	it, err := RunIter(ds, []UDF{&SumUDF{}}, WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	steps := 0
	var last []*Results
	for it.Next(ctx) {
		steps++
		p := it.Partial()
		last = p.Results
		if steps == 1 {
			dmg, _ := nd.Values[bool](p.Damage.Contiguous())
			if k := slices.Index(dmg, false); k != 24 {
				t.Errorf("first step merged frames [0, %d), want [0, 24)", k)
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if steps != 2 {
		t.Errorf("%d steps, want 2", steps)
	}
	want, err := Run(ctx, ds, []UDF{&SumUDF{}}, WithPartitions(3))
	if err != nil {
		t.Fatal(err)
	}
	sameResults(t, "iter", last[0], want[0], "intensity")
	// ToChunkArray cuts the same partitions: blocks of 24 and 12 frames.
	a, _, err := ToChunkArray(ds, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Chunks()[0]; !slices.Equal(got, []int{24, 12}) {
		t.Errorf("ToChunkArray blocks %v along the frames, want [24 12]", got)
	}
}

func TestAlignBounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		bounds []int
		u      int
		want   []int
	}{
		{"no chunks", []int{0, 5, 10}, 0, []int{0, 5, 10}},
		{"one partition", []int{0, 10}, 3, []int{0, 10}},
		{"round to nearest", []int{0, 33, 66, 100}, 10, []int{0, 30, 70, 100}},
		{"ties down", []int{0, 15, 30}, 10, []int{0, 10, 30}},
		{"aligned already", []int{0, 12, 24, 36}, 12, []int{0, 12, 24, 36}},
		{"units larger than partitions", []int{0, 2, 5, 7, 10}, 3, []int{0, 3, 6, 6, 10}},
		{"unit of the whole scan", []int{0, 25, 50, 75, 100}, 100, []int{0, 0, 0, 100, 100}},
		{"frame unit", []int{0, 3, 7}, 1, []int{0, 3, 7}},
		{"six", []int{0, 8, 16, 25, 33, 41, 50}, 8, []int{0, 8, 16, 24, 32, 40, 50}},
		{"last stays n", []int{0, 16, 33, 50}, 16, []int{0, 16, 32, 50}},
		{"empty partitions", []int{0, 3, 6, 9, 12}, 3, []int{0, 3, 6, 9, 12}},
		{"collapse", []int{0, 4, 8, 12, 16, 20}, 4, []int{0, 4, 8, 12, 16, 20}},
	} {
		got := alignBounds(c.bounds, c.u)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: alignBounds(%v, %d) = %v, want %v", c.name, c.bounds, c.u, got, c.want)
		}
	}
}

// TestChunkUnit holds chunkUnit to the partition shapes LiberTEM's HDF5
// dataset derives from chunks (its _partition_shape_for_chunking and
// _have_contig_chunks examples), in frames.
func TestChunkUnit(t *testing.T) {
	for _, c := range []struct {
		nav, chunks []int
		u           int
		runs        bool
	}{
		{[]int{64, 64}, []int{1, 4, 32, 32}, 4, true},
		{[]int{64, 64}, []int{2, 4, 32, 32}, 128, false},
		{[]int{64, 64}, []int{2, 64, 32, 32}, 128, true},
		{[]int{64, 64}, []int{64, 1, 32, 32}, 4096, false},
		{[]int{16, 64, 64}, []int{1, 1, 2, 32, 32}, 2, true},
		{[]int{16, 64, 64}, []int{1, 2, 1, 32, 32}, 128, false},
		{[]int{16, 64, 64}, []int{2, 1, 1, 32, 32}, 8192, false},
		{[]int{8, 8}, []int{1, 1, 4, 4}, 1, true},
		{[]int{8, 8}, []int{16, 8, 4, 4}, 64, true}, // a chunk over the extent
		{[]int{8, 8}, nil, 0, false},
	} {
		u, runs := chunkUnit(c.nav, c.chunks)
		if u != c.u || runs != c.runs {
			t.Errorf("chunkUnit(%v, %v) = %d, %v, want %d, %v", c.nav, c.chunks, u, runs, c.u, c.runs)
		}
	}
}

// TestBoxes checks the boxes of random runs of frames against the frames
// themselves: in order, each box's frames (enumerated in C order from
// its start and count) are the next frames of the run, and a run has at
// most 2·dims−1 boxes.
func TestBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var b boxes
	for range 2000 {
		nav := make([]int, 1+rng.IntN(4))
		for i := range nav {
			nav[i] = 1 + rng.IntN(5)
		}
		n := dsProd(nav)
		start := rng.IntN(n + 1)
		cnt := rng.IntN(n - start + 1)
		next := start
		count := 0
		b.reset(nav, start, cnt)
		for b.next() {
			count++
			if b.first != next {
				t.Fatalf("nav %v [%d, %d): box starts at %d, want %d", nav, start, start+cnt, b.first, next)
			}
			frames := 0
			idx := slices.Clone(b.bst)
			for {
				flat := 0
				for i := range nav {
					flat = flat*nav[i] + idx[i]
				}
				if flat != next {
					t.Fatalf("nav %v [%d, %d): box %v+%v holds frame %d, want %d", nav, start, start+cnt, b.bst, b.bct, flat, next)
				}
				next++
				frames++
				i := len(nav) - 1
				for ; i >= 0; i-- {
					idx[i]++
					if idx[i] < b.bst[i]+b.bct[i] {
						break
					}
					idx[i] = b.bst[i]
				}
				if i < 0 {
					break
				}
			}
			if frames != b.frames {
				t.Fatalf("nav %v: box %v+%v has %d frames, says %d", nav, b.bst, b.bct, frames, b.frames)
			}
		}
		if next != start+cnt {
			t.Fatalf("nav %v [%d, %d): boxes end at %d", nav, start, start+cnt, next)
		}
		if count > max(2*len(nav)-1, 1) {
			t.Errorf("nav %v [%d, %d): %d boxes, more than %d", nav, start, start+cnt, count, 2*len(nav)-1)
		}
	}
}

// TestHDF5Errors checks that files that are not what they are opened as
// give a *DatasetError naming the file and the dataset, and that a build
// without HDF5 says how to get it.
func TestHDF5Errors(t *testing.T) {
	dir := t.TempDir()
	if !hdf5.Enabled {
		_, err := OpenHDF5(filepath.Join(dir, "a.h5"), "/data", 2)
		var de *DatasetError
		if !errors.As(err, &de) || !errors.Is(err, hdf5.ErrNotBuilt) || !strings.Contains(err.Error(), "-tags hdf5") {
			t.Fatalf("OpenHDF5 without HDF5: %v, want a *DatasetError wrapping hdf5.ErrNotBuilt", err)
		}
	}
	c := hdf5test.Case{File: "e.h5", Dataset: "/data", DType: "<f4", Shape: []int{4, 4, 4}, Chunks: []int{2, 4, 4}, Compression: "gzip"}
	hdf5test.Write(t, dir, c)
	path := hdf5test.Path(dir, c)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	trunc := filepath.Join(dir, "trunc.h5")
	if err := os.WriteFile(trunc, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.h5")
	if err := os.WriteFile(junk, []byte(strings.Repeat("junk", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		name, path, dataset string
		sigDims             int
	}{
		{"missing file", filepath.Join(dir, "missing.h5"), "/data", 2},
		{"missing dataset", path, "/nope", 2},
		{"truncated", trunc, "/data", 2},
		{"not hdf5", junk, "/data", 2},
		{"no nav axis", path, "/data", 3},
	} {
		_, err := OpenHDF5(e.path, e.dataset, e.sigDims)
		if err == nil || !strings.Contains(err.Error(), e.path) || !strings.Contains(err.Error(), e.dataset) {
			t.Errorf("%s: %v, want an error naming %s and %s", e.name, err, e.path, e.dataset)
		}
		var de *DatasetError
		if e.name != "no nav axis" && !errors.As(err, &de) {
			t.Errorf("%s: %T, want a *DatasetError", e.name, err)
		}
	}
	// A file truncated after the dataset was opened fails the read, naming
	// the file and the dataset, where the chunks are gone.
	cp := filepath.Join(dir, "later.h5")
	if err := os.WriteFile(cp, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := OpenHDF5(cp, "/data", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if err := os.Truncate(cp, 1200); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), ds, []UDF{&SumUDF{}}, WithScheduler(sched.Sync{}))
	if err == nil || !strings.Contains(err.Error(), cp) || !strings.Contains(err.Error(), "/data") {
		t.Errorf("run over a file truncated after open: %v, want an error naming %s and /data", err, cp)
	}
}

// TestHDF5LiveTileLoopAllocatesNothing is TestTileLoopAllocatesNothing
// for the HDF5 and live task readers: a partition task of 8 tiles and one
// of 64 make the same number of allocations.
func TestHDF5LiveTileLoopAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not exact under the race detector")
	}
	const depth, sig = 4, 24
	count := func(t *testing.T, ds Dataset, frames int) float64 {
		p, err := plan(ds, []UDF{&SumUDF{}, &SumSigUDF{}, &MaxUDF{}},
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
	t.Run("live", func(t *testing.T) {
		n := map[int]float64{}
		for _, tiles := range []int{8, 64} {
			m := memDataset(t, tiles*depth, sig, nd.Uint16)
			addr, sent := serve(t, func(c net.Conn) error { return SendFrames(c, m.Array(), 1, true) })
			ds, err := DialLive(context.Background(), addr, LiveOptions{Timeout: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if err := <-sent; err != nil {
				t.Fatal(err)
			}
			n[tiles] = count(t, ds, tiles*depth)
			ds.Close()
		}
		if n[8] != n[64] {
			t.Fatalf("8 tiles: %v allocations, 64 tiles: %v", n[8], n[64])
		}
	})
	t.Run("hdf5", func(t *testing.T) {
		dir := t.TempDir()
		var cases []hdf5test.Case
		for _, tiles := range []int{8, 64} {
			cases = append(cases, hdf5test.Case{File: "a.h5", Dataset: fmt.Sprint(tiles), DType: ">u2",
				Shape: []int{tiles * depth, sig, sig}, Chunks: []int{depth, sig, sig}, Compression: "gzip"})
		}
		hdf5test.Write(t, dir, cases...)
		n := map[int]float64{}
		for i, tiles := range []int{8, 64} {
			ds, err := OpenHDF5(hdf5test.Path(dir, cases[i]), cases[i].Dataset, 2)
			if err != nil {
				t.Fatal(err)
			}
			n[tiles] = count(t, ds, tiles*depth)
			ds.Close()
		}
		if n[8] != n[64] {
			t.Fatalf("8 tiles: %v allocations, 64 tiles: %v", n[8], n[64])
		}
	})
}
