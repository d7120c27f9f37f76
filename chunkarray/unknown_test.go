package chunkarray

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

func init() {
	must(RegisterBlockFunc("unknown.add_start", func(info BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		return nd.Binary(nd.Add, b[0], nd.Scalar(float64(info.Location[0][0])))
	}))
}

// unknownFixture is x (7×9 float64, 0..62, chunked 3) masked by x%3 == 0
// into a 1-d Array of Unknown length (21 elements, in 9 chunks), and
// rows, x's rows whose first element is even: (Unknown, 9).
func unknownFixture(t *testing.T) (x, flat, rows *Array, want []float64) {
	t.Helper()
	v := make([]float64, 63)
	for i := range v {
		v[i] = float64(i)
		if i%3 == 0 {
			want = append(want, v[i])
		}
	}
	n, err := nd.FromSlice(v, 7, 9)
	if err != nil {
		t.Fatal(err)
	}
	x = FromNDArray(n, 3)
	flat = x.Index(Mask(x.Mod(3).Equal(0)))
	rows = x.Index(Mask(x.Index(All(), At(0)).Mod(2).Equal(0)))
	return x, flat, rows, want
}

func TestUnknownShapeAndChunks(t *testing.T) {
	x, flat, rows, _ := unknownFixture(t)
	if got := flat.Shape(); !slices.Equal(got, []int{Unknown}) {
		t.Errorf("Shape() = %v, want [%d]", got, Unknown)
	}
	if flat.Known() || rows.Known() {
		t.Error("Known() = true for a masked array")
	}
	if flat.Size() != Unknown || flat.Nbytes() != Unknown {
		t.Errorf("Size, Nbytes = %d, %d, want Unknown", flat.Size(), flat.Nbytes())
	}
	if got := rows.Chunks(); !slices.Equal(got[1], []int{3, 3, 3}) || !slices.Equal(got[0], []int{Unknown, Unknown, Unknown}) {
		t.Errorf("rows' chunks = %v", got)
	}
	if n := flat.NumTasks(); n != x.Reshape(-1).NumTasks() {
		t.Errorf("NumTasks = %d, want 7 (one per block of x.Reshape(-1): whole rows)", n)
	}
}

// TestUnknownComputeChunkSizes checks the learned chunks against the
// mask counted here, and that the result behaves as a known array.
func TestUnknownComputeChunkSizes(t *testing.T) {
	ctx := context.Background()
	_, flat, rows, want := unknownFixture(t)
	for _, run := range []Option{WithOptimize(true), WithOptimize(false)} {
		k, err := flat.ComputeChunkSizes(ctx, run, WithScheduler(sched.Threaded{Workers: 2}))
		if err != nil {
			t.Fatal(err)
		}
		if !k.Known() || k.Shape()[0] != len(want) || sum(k.Chunks()[0]) != len(want) {
			t.Fatalf("chunks %v, shape %v: want known, %d in all", k.Chunks(), k.Shape(), len(want))
		}
		r, err := k.Reshape(3, 7).T().Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := nd.Values[float64](r.Contiguous())
		for i := range 7 {
			for j := range 3 {
				if got[i*3+j] != want[j*7+i] {
					t.Fatalf("Reshape(3, 7).T()[%d, %d] = %v, want %v", i, j, got[i*3+j], want[j*7+i])
				}
			}
		}
	}
	k, err := rows.ComputeChunkSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// rows 0, 2, 4, 6 start with 0, 18, 36, 54: chunks of 3 rows hold
	// 2 (rows 0, 2), 1 (row 4) and 1 (row 6).
	if got := k.Chunks(); !slices.Equal(got[0], []int{2, 1, 1}) || !slices.Equal(k.Shape(), []int{4, 9}) {
		t.Errorf("chunks %v, shape %v: want [[2 1 1] [3 3 3]], [4 9]", got, k.Shape())
	}
	if same, err := k.ComputeChunkSizes(ctx); err != nil || same != k {
		t.Errorf("ComputeChunkSizes of a known array: %v, %v; want it back as is", same, err)
	}
}

// TestUnknownNeedKnownErrors: every operation that needs chunk sizes
// refuses an array without them with an *Error wrapping
// ErrUnknownChunks that names the operation and ComputeChunkSizes.
func TestUnknownNeedKnownErrors(t *testing.T) {
	ctx := context.Background()
	x, flat, rows, _ := unknownFixture(t)
	x2 := x.Rechunk(map[int]any{0: 2})
	rows4 := x2.Index(Mask(x2.Index(All(), At(0)).Greater(20))) // 4 unknown chunks, rows' 3
	dir := t.TempDir()
	dst, _ := nd.Zeros(nd.Float64, 3)
	builds := []struct {
		name, op string
		build    func() error
	}{
		{"Reshape", "reshape", func() error { return flat.Reshape(-1, 1).Err() }},
		{"Rechunk", "rechunk", func() error { return flat.Rechunk(2).Err() }},
		{"Rechunk unknown axis", "rechunk", func() error { return rows.Rechunk(map[int]any{0: -1}).Err() }},
		{"Rechunk auto", "rechunk", func() error { return rows.Rechunk("auto").Err() }},
		{"Index range", "getitem", func() error { return flat.Index(Range(0, 2)).Err() }},
		{"Index at", "getitem", func() error { return rows.Index(At(0)).Err() }},
		{"Take", "getitem", func() error { return flat.Take(0, []int{0}).Err() }},
		{"TakeFlat", "take", func() error { return rows.TakeFlat([]int{0}).Err() }},
		{"Compress", "compress", func() error { return flat.Compress([]bool{true}, 0).Err() }},
		{"CompressFlat", "compress", func() error { return rows.CompressFlat([]bool{true}).Err() }},
		{"Squeeze", "squeeze", func() error { return rows.Squeeze(0).Err() }},
		{"Dot other chunks", "dot", func() error { return Dot(rows.T(), rows4).Err() }},
		{"Dot known", "dot", func() error { return Dot(rows.T(), x).Err() }},
		{"Matmul batch", "matmul", func() error { return Matmul(rows.ExpandDims(2), x.Index(Range(0, 4)).ExpandDims(1)).Err() }},
		{"Tensordot", "tensordot", func() error { return Tensordot(rows, rows4, []int{0}, []int{0}).Err() }},
		{"MapBlocks other chunks", "blockwise", func() error { return MapBlocks("conformance.add", BlockOpts{}, rows, rows4).Err() }},
		{"MapOverlap", "map_overlap", func() error { return MapOverlap("conformance.add", flat, []int{1}, BoundaryNone, BlockOpts{}).Err() }},
		{"ArgMin along it", "argmin", func() error { return flat.ArgMin(0, false).Err() }},
		{"ArgMax flat", "argmax", func() error { return rows.ArgMax(0, true).Err() }},
		{"Mean dtype", "mean", func() error { return flat.Reduce(nd.Mean, nil, ReduceOpts{DType: nd.Int64}).Err() }},
		{"Add other chunks", "add", func() error { return rows.Add(rows4).Err() }},
		{"Add known", "add", func() error { return flat.Add(x.Index(At(0))).Err() }},
		{"Concatenate other axis", "concatenate", func() error {
			return Concatenate([]*Array{rows, rows4}, 1).Err()
		}},
		{"Flatnonzero", "flatnonzero", func() error { return Flatnonzero(rows).Err() }},
		{"Unique index", "unique", func() error { return flat.Unique(UniqueOpts{Index: true}).Index.Err() }},
		{"Unique 2-d inverse", "unique", func() error { return rows.Unique(UniqueOpts{Inverse: true}).Inverse.Err() }},
		{"Mask 2-d", "getitem", func() error { return rows.Index(Mask(rows.Greater(3))).Err() }},
		{"ToNPY", "to npy", func() error { return flat.ToNPY(ctx, filepath.Join(dir, "a.npy")) }},
		{"ToZarr", "to zarr", func() error { return flat.ToZarr(ctx, filepath.Join(dir, "a.zarr"), ZarrOptions{}) }},
		{"Store", "store", func() error { return flat.Store(ctx, NDTarget(dst)) }},
		{"ComputeBlockInto", "ComputeBlockInto", func() error { return flat.ComputeBlockInto(ctx, []int{0}, dst) }},
	}
	for _, c := range builds {
		t.Run(c.name, func(t *testing.T) {
			err, perr := protect(func() (error, error) { return c.build(), nil })
			if perr != nil {
				t.Fatal(perr)
			}
			var e *Error
			if !errors.Is(err, ErrUnknownChunks) || !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error wrapping ErrUnknownChunks", err, err)
			}
			if e.Op != c.op || !strings.Contains(err.Error(), "ComputeChunkSizes") {
				t.Errorf("error %q: want op %q and the advice to call ComputeChunkSizes", err, c.op)
			}
		})
	}
}

// TestUnknownMismatchAtRun: arrays whose Unknown chunks look alike when
// built but differ when computed fail then, with an error (Dask's
// behaviour), never with wrong values.
func TestUnknownMismatchAtRun(t *testing.T) {
	x, flat, rows, _ := unknownFixture(t)
	other := x.Index(Mask(x.Greater(5)))
	otherRows := x.Index(Mask(x.Index(All(), At(0)).Greater(20)))
	for name, a := range map[string]*Array{
		"Add":         flat.Add(other),
		"Where":       Where(flat.Greater(3), flat, other),
		"Concatenate": Concatenate([]*Array{rows.T(), otherRows.T()}, 0),
	} {
		for _, fuse := range []bool{true, false} {
			_, err := protect(func() (*nd.Array, error) { return a.Compute(context.Background(), WithOptimize(fuse)) })
			if err == nil || strings.Contains(err.Error(), "panic") {
				t.Errorf("%s (fused %v): %v, want an error", name, fuse, err)
			}
		}
	}
}

// TestUnknownOperations: what works on unknown sizes gives what the same
// operations give on the known values (a second code path: numpy's
// boolean indexing done here with nd.Values).
func TestUnknownOperations(t *testing.T) {
	ctx := context.Background()
	_, flat, rows, want := unknownFixture(t)
	sum, sq := 0.0, make([]float64, len(want))
	for i, v := range want {
		sum += v
		sq[i] = v*v + 1
	}
	check := func(name string, a *Array, want []float64) {
		t.Helper()
		for _, opts := range [][]Option{nil, {WithOptimize(false)}, {WithScheduler(sched.Sync{})}} {
			r, err := a.Compute(ctx, opts...)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := nd.Values[float64](r.Contiguous())
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s = %v (%v), want %v", name, got, err, want)
			}
		}
	}
	check("Mask", flat, want)
	check("x*x + 1", flat.Mul(flat).Add(1), sq)
	check("Sum", flat.Sum(), []float64{sum})
	twice := make([]float64, len(want))
	for i, v := range want {
		twice[i] = 2 * v
	}
	check("MapBlocks add", MapBlocks("conformance.add", BlockOpts{}, flat, flat), twice)
	// BlockInfo.Location is Unknown along the unknown axis: start added.
	minus1 := make([]float64, len(want))
	for i, v := range want {
		minus1[i] = v - 1
	}
	check("MapBlocks location", MapBlocks("unknown.add_start", BlockOpts{}, flat), minus1)
	plus1, clip := make([]float64, len(want)), make([]float64, len(want))
	for i, v := range want {
		plus1[i], clip[i] = v+1, v
		if v <= 30 {
			clip[i] = -1
		}
	}
	check("x + Ones(1)", flat.Add(Ones([]int{1}, nd.Float64, 1)), plus1)
	check("Where(x > 30, x, -1)", Where(flat.Greater(30), flat, -1.0), clip)
	check("Sum(x + Ones(1))", flat.Add(Ones([]int{1}, nd.Float64, 1)).Sum(), []float64{sum + float64(len(want))})
	check("Max", flat.Max(), []float64{want[len(want)-1]})
	check("Mean", flat.Mean(), []float64{sum / float64(len(want))})
	check("Concatenate", Concatenate([]*Array{flat, flat.Neg()}, 0), append(slices.Clone(want), neg(want)...))
	check("ExpandDims then broadcast", flat.ExpandDims(1).Add(Zeros([]int{1, 2}, nd.Float64, 1)).Index(All(), At(1)), want)
	// rows: 0, 2, 4, 6 of x; column sums and the second column.
	var colSum []float64
	for j := range 9 {
		colSum = append(colSum, float64(0+18+36+54+4*j))
	}
	check("rows Sum(0)", rows.Sum(0), colSum)
	var rowVals []float64
	for _, r := range []int{0, 2, 4, 6} {
		for j := range 9 {
			rowVals = append(rowVals, float64(9*r+j))
		}
	}
	check("rows Unique", rows.Unique(UniqueOpts{}).Values, rowVals)
	h, _ := Histogram(rows, HistOpts{Bins: 4, Range: []float64{0, 72}, Weights: rows.Mul(0).Add(0.5)})
	check("rows Histogram", h, []float64{4.5, 4.5, 4.5, 4.5})
	h, e := Histogram(rows, HistOpts{Bins: 2})
	check("rows Histogram, range found", h.AsType(nd.Float64), []float64{18, 18})
	check("rows Histogram edges", e, []float64{0, 31, 62})
	// Products: unknown axes kept, or contracted against the same chunks.
	dotFlat := 0.0
	for _, v := range want {
		dotFlat += v * v
	}
	check("Dot(flat, flat)", Dot(flat, flat), []float64{dotFlat})
	var rowDots, gram []float64
	for _, i := range []float64{0, 2, 4, 6} {
		for _, j := range []float64{0, 2, 4, 6} {
			g := 0.0
			for k := range 9 {
				g += (9*i + float64(k)) * (9*j + float64(k))
			}
			gram = append(gram, g)
		}
		s := 0.0
		for k := range 9 {
			s += (9*i + float64(k)) * float64(k)
		}
		rowDots = append(rowDots, s)
	}
	check("Matmul(rows, arange(9))", Matmul(rows, Arange(0, 9, 1, nd.Float64, 4)), rowDots)
	check("Dot(rows, rows.T)", Dot(rows, rows.T()), gram)
	check("Tensordot(rows, rows, [1], [1])", Tensordot(rows, rows, []int{1}, []int{1}), gram)
	check("rows column", rows.Index(All(), At(1)), []float64{1, 19, 37, 55})
	check("rows gathered", rows.Index(All(), Ints(8, 0)), []float64{8, 0, 26, 18, 44, 36, 62, 54})
	// A separated advanced index goes first: (2, Unknown, 1).
	sep := rows.ExpandDims(1).Index(All(), At(0), NewAxis(), Ints(8, 0))
	if got := sep.Shape(); !slices.Equal(got, []int{2, Unknown, 1}) {
		t.Errorf("separated index shape %v, want [2 %d 1]", got, Unknown)
	}
	check("rows separated", sep, []float64{8, 26, 44, 62, 0, 18, 36, 54})
	// Rechunking the known axis keeps the unknown one's chunks.
	r9 := rows.Rechunk(map[int]any{1: []int{2, 7}})
	if got := r9.Chunks(); !slices.Equal(got[0], rows.Chunks()[0]) || !slices.Equal(got[1], []int{2, 7}) {
		t.Errorf("Rechunk({1: [2 7]}) chunks = %v", got)
	}
	check("rows rechunked, column", r9.Add(rows).Index(All(), At(1)), []float64{2, 38, 74, 110})
	p, err := rows.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	check("rows persisted, T", p.T().Index(At(2)), []float64{2, 20, 38, 56})
	// An empty unknown chunk: Min skips it, and all empty is numpy's error.
	none := flat.Index(Mask(flat.Greater(1000)))
	if _, err := none.Min().Compute(ctx); err == nil || !strings.Contains(err.Error(), "zero-size") {
		t.Errorf("Min of nothing: %v, want numpy's zero-size error", err)
	}
	check("Sum of nothing", none.Sum(), []float64{0})
}

func neg(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = -x
	}
	return out
}

// TestSortuBadInputs: nil and zero Arrays and bad arguments give typed
// errors naming the operation, never a panic.
func TestSortuBadInputs(t *testing.T) {
	var nilA *Array
	x := Ones([]int{4, 6}, nd.Float64, 2)
	v := Ones([]int{6}, nd.Int64, 2)
	bins, _ := nd.FromSlice([]float64{0, 1}, 2)
	cases := []struct {
		name  string
		build func() *Array
		op    string
	}{
		{"Sort nil", func() *Array { return nilA.Sort(0) }, "nil Array"},
		{"ArgSort zero", func() *Array { return (&Array{}).ArgSort(0) }, "zero Array"},
		{"Sort chunked axis", func() *Array { return x.Sort(1) }, "sort"},
		{"Unique nil", func() *Array { return nilA.Unique(UniqueOpts{Counts: true}).Counts }, "nil Array"},
		{"Bincount nil", func() *Array { return Bincount(nilA, nil, 0) }, "nil Array"},
		{"Bincount weights length", func() *Array { return Bincount(v, Ones([]int{5}, nd.Float64, 2), 0) }, "bincount"},
		{"Bincount complex weights", func() *Array { return Bincount(v, Ones([]int{6}, nd.Complex128, 2), 0) }, "bincount"},
		{"Histogram nil", func() *Array { h, _ := Histogram(nilA, HistOpts{Bins: 2}); return h }, "nil Array"},
		{"Histogram both", func() *Array {
			h, _ := Histogram(x, HistOpts{Bins: 2, Range: []float64{0, 1}, Edges: []float64{0, 1}})
			return h
		}, "histogram"},
		{"Histogram one edge", func() *Array { h, _ := Histogram(x, HistOpts{Edges: []float64{0}}); return h }, "histogram"},
		{"Histogram complex", func() *Array { h, _ := Histogram(x.AsType(nd.Complex64), HistOpts{Bins: 2}); return h }, "histogram"},
		{"HistogramDD none", func() *Array { h, _ := HistogramDD(nil, HistDDOpts{}); return h }, "histogramdd"},
		{"HistogramDD 2-d coordinate", func() *Array { h, _ := HistogramDD([]*Array{x}, HistDDOpts{Bins: []int{2}}); return h }, "histogramdd"},
		{"HistogramDD no bins", func() *Array { h, _ := HistogramDD([]*Array{v}, HistDDOpts{}); return h }, "histogramdd"},
		{"HistogramDD bins count", func() *Array { h, _ := HistogramDD([]*Array{v}, HistDDOpts{Bins: []int{2, 3}}); return h }, "histogramdd"},
		{"HistogramDD lengths", func() *Array {
			h, _ := HistogramDD([]*Array{v, Ones([]int{5}, nd.Float64, 2)}, HistDDOpts{Bins: []int{2, 2}, Ranges: [][]float64{{0, 1}, {0, 1}}})
			return h
		}, "histogramdd"},
		{"Histogram2D nil", func() *Array { h, _, _ := Histogram2D(nilA, v, HistDDOpts{}); return h }, "nil Array"},
		{"Digitize nil bins", func() *Array { return Digitize(x, nil, false) }, "digitize"},
		{"Digitize 2-d bins", func() *Array { b, _ := nd.Zeros(nd.Float64, 2, 2); return Digitize(x, b, false) }, "digitize"},
		{"SearchSorted 2-d", func() *Array { return SearchSorted(x, v, false) }, "searchsorted"},
		{"SearchSorted nil", func() *Array { return SearchSorted(v, nilA, false) }, "nil Array"},
		{"IsIn nil test", func() *Array { return IsIn(x, nilA, false) }, "nil Array"},
		{"IsIn string test", func() *Array { return IsIn(x, "a", false) }, "isin"},
		{"IsIn nil nd test", func() *Array { var n *nd.Array; return IsIn(x, n, false) }, "isin"},
		{"Flatnonzero nil", func() *Array { return Flatnonzero(nilA) }, "nil Array"},
		{"Argwhere nil", func() *Array { return Argwhere(nilA) }, "nil Array"},
		{"Nonzero nil", func() *Array { return Nonzero(nilA)[0] }, "nil Array"},
		{"Mask nil", func() *Array { return x.Index(Mask(nilA)) }, "nil Array"},
		{"Mask float", func() *Array { return x.Index(Mask(x)) }, "getitem"},
		{"Mask with another Sel", func() *Array { return x.Index(Mask(x.Greater(0)), All()) }, "getitem"},
		{"Mask 0-d", func() *Array { return x.Index(Mask(Ones([]int{}, nd.Bool, -1))) }, "getitem"},
		{"Digitize bins", func() *Array { return Digitize(x, bins, false).Index(Mask(v.Greater(0))) }, "getitem"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := auditRun(t, c.build)
			wantAuditErr(t, err, c.op)
		})
	}
	if _, err := (*Array)(nil).ComputeChunkSizes(context.Background()); err == nil {
		t.Error("ComputeChunkSizes of a nil Array: no error")
	}
}
