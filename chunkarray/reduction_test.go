package chunkarray

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Tests of reduction.go, cumulative.go and quantile.go beyond the numpy
// goldens (parity_reduce_test.go): user-defined reductions against nd's
// eager reductions, the approximate percentile against its stated error
// bound, the two scans against one running accumulation, and the depth of
// their graphs.

func sumSqChunk(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error) {
	sq, err := nd.Binary(nd.Mul, x, x)
	if err != nil {
		return nil, err
	}
	return nd.Reduce(nd.Sum, sq, axes, keepdims)
}

func sumAgg(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error) {
	return nd.Reduce(nd.Sum, x, axes, keepdims)
}

// minMaxAgg keeps the minimum and the maximum along the one reduced axis
// (an OutputSize of 2).
func minMaxAgg(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error) {
	lo, err := nd.Reduce(nd.Min, x, axes, true)
	if err != nil {
		return nil, err
	}
	hi, err := nd.Reduce(nd.Max, x, axes, true)
	if err != nil {
		return nil, err
	}
	return concatGrid([]*nd.Array{lo, hi}, keepShape(ones(x.NDim()), axes, 2))
}

func badShapeAgg(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error) { return x, nil }

func init() {
	mustRegister(RegisterReduction("test.sumsq", ReductionFuncs{Chunk: sumSqChunk, Aggregate: sumAgg}))
	mustRegister(RegisterReduction("test.minmax", ReductionFuncs{Chunk: minMaxAgg, Combine: minMaxAgg, Aggregate: minMaxAgg}))
	mustRegister(RegisterReduction("test.bad", ReductionFuncs{Chunk: sumSqChunk, Aggregate: badShapeAgg}))
}

func seededNormal(t testing.TB, shape ...int) *nd.Array {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, prod(shape))
	for i := range v {
		v[i] = r.NormFloat64()
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestReductionUserDefined(t *testing.T) {
	x := seededNormal(t, 7, 9, 5)
	ctx := context.Background()
	for _, chunks := range []any{-1, 2, []int{3, 4, 1}, [][]int{{0, 7}, {2, 0, 7}, {5}}} {
		for _, axes := range [][]int{nil, {0}, {1, 2}, {-1}} {
			for _, keep := range []bool{false, true} {
				a := FromNDArray(x, chunks)
				got, err := Reduction(a, "test.sumsq", axes, ReductionOpts{Keepdims: keep, SplitEvery: 2}).Compute(ctx)
				if err != nil {
					t.Fatalf("%v %v: %v", chunks, axes, err)
				}
				sq, _ := nd.Binary(nd.Mul, x, x)
				want, _ := nd.Reduce(nd.Sum, sq, axes, keep)
				if d := compareGolden(got, want); d != "" {
					t.Errorf("sumsq %v %v keepdims %v: %s", chunks, axes, keep, d)
				}
				// the graph through JSON, as a worker process gets it
				viaJSON, err := computeThroughJSON(Reduction(a, "test.sumsq", axes, ReductionOpts{Keepdims: keep}))
				if err != nil {
					t.Fatal(err)
				}
				if d := compareGolden(viaJSON, want); d != "" {
					t.Errorf("sumsq through JSON: %s", d)
				}
			}
		}
		// OutputSize 2: min and max along axis 1
		got, err := Reduction(FromNDArray(x, chunks), "test.minmax", []int{1}, ReductionOpts{Keepdims: true, OutputSize: 2, SplitEvery: 3}).Compute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := minMaxAgg(x, []int{1}, true)
		if d := compareGolden(got, want); d != "" {
			t.Errorf("minmax %v: %s", chunks, d)
		}
	}
}

func TestReductionErrors(t *testing.T) {
	a := FromNDArray(seededNormal(t, 4, 6), 2)
	if err := RegisterReduction("test.sumsq", ReductionFuncs{Chunk: sumSqChunk, Aggregate: sumAgg}); err != nil {
		t.Errorf("registering the same functions again: %v", err)
	}
	if err := RegisterReduction("test.sumsq", ReductionFuncs{Chunk: sumAgg, Aggregate: sumAgg}); err == nil {
		t.Error("other functions under a taken name: no error")
	}
	if err := RegisterReduction("", ReductionFuncs{Chunk: sumAgg, Aggregate: sumAgg}); err == nil {
		t.Error("empty name: no error")
	}
	_, err := auditRun(t, func() *Array { return Reduction(a, "test.unknown", nil, ReductionOpts{}) })
	wantAuditErr(t, err, "reduction")
	_, err = auditRun(t, func() *Array { return Reduction(a, "test.bad", []int{0}, ReductionOpts{}) })
	wantAuditErr(t, err, "test.bad")
	_, err = auditRun(t, func() *Array { return Reduction(a, "test.sumsq", []int{2}, ReductionOpts{}) })
	wantAuditErr(t, err, "test.sumsq")
	_, err = auditRun(t, func() *Array { return Reduction(a, "test.minmax", []int{1}, ReductionOpts{OutputSize: 2}) })
	wantAuditErr(t, err, "test.minmax")
	// an int8 input's sums are int64: declared or an error
	i8 := a.AsType(nd.Int8)
	_, err = auditRun(t, func() *Array { return Reduction(i8, "test.sumsq", nil, ReductionOpts{}) })
	wantAuditErr(t, err, "declared int8")
	if r, err := auditRun(t, func() *Array { return Reduction(i8, "test.sumsq", nil, ReductionOpts{DType: nd.Int64}) }); err != nil || r.DType() != nd.Int64 {
		t.Errorf("with DType int64: %v, %v", r, err)
	}
	// built-in reductions are not Reduction's to name
	_, err = auditRun(t, func() *Array { return Reduction(a, "chunkarray.topk", nil, ReductionOpts{}) })
	wantAuditErr(t, err, "reduction")
}

func TestReduceArgErrors(t *testing.T) {
	x := FromNDArray(seededNormal(t, 4, 6), 2)
	for name, build := range map[string]func() *Array{
		"median":     func() *Array { return x.Median(nil, false) },
		"nanmedian":  func() *Array { return x.AsType(nd.Complex128).NanMedian([]int{0}, false) },
		"percentile": func() *Array { return x.Percentile([]float64{50}, PercentileOpts{}) }, // 2-d
		"quantile":   func() *Array { return x.Reshape(-1).Quantile([]float64{0.5}, PercentileOpts{Method: "lower"}) },
		"topk":       func() *Array { return x.TopK(0, 1, ReduceOpts{}) },
		"argtopk":    func() *Array { return x.ArgTopK(2, 1, ReduceOpts{Keepdims: true}) },
		"cumsum":     func() *Array { return x.Cumsum(0, false, CumOpts{Method: "parallel"}) },
		"nanmax":     func() *Array { return x.NanMax(nil, ReduceOpts{DType: nd.Float32}) },
		"nanmean":    func() *Array { return x.NanMean(nil, ReduceOpts{DType: nd.Int64}) },
		"average": func() *Array {
			a, _ := x.Average([]int{1}, AverageOpts{Weights: Ones([]int{5}, nd.Float64, 2)})
			return a
		},
		"corrcoef": func() *Array { return Corrcoef(x.AsType(nd.Complex64), CovOpts{}) },
		"cov":      func() *Array { return Cov(Ones([]int{2, 3, 4}, nd.Float64, 2), CovOpts{}) },
	} {
		t.Run(name, func(t *testing.T) {
			_, err := auditRun(t, build)
			wantAuditErr(t, err, name)
		})
	}
}

// TestPercentileApproxBound checks the approximate percentile across
// chunks against the bound of quantile.go: for the estimate x̂ of the
// q-quantile, the fraction of elements below x̂ is at least q - ε and the
// fraction at or below it at most q + ε, ε = 1/M + 1/n_min (M =
// sketchPoints, n_min the shortest chunk). The extremes are exact, and
// the tree's fan-in does not change the result.
func TestPercentileApproxBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n = 3000
	data := make([]float64, n)
	for i := range data {
		switch i % 3 {
		case 0:
			data[i] = r.NormFloat64()
		case 1:
			data[i] = r.ExpFloat64() * 3
		default:
			data[i] = float64(r.IntN(40)) // ties
		}
	}
	x, _ := nd.FromSlice(data, n)
	sorted := slices.Clone(data)
	slices.Sort(sorted)
	qs := []float64{0, 0.5, 1, 5, 10, 25, 37.5, 50, 75, 90, 95, 99, 99.5, 100}
	for _, chunks := range []any{250, 37, 1000, [][]int{{5, 2995}}, [][]int{{1500, 1, 1499}}, [][]int{{2000, 0, 1000}}} {
		a := FromNDArray(x, chunks)
		if err := a.Err(); err != nil {
			t.Fatal(err)
		}
		nmin := n
		for _, c := range a.Chunks()[0] {
			if c > 0 {
				nmin = min(nmin, c)
			}
		}
		eps := 1.0/sketchPoints + 1.0/float64(nmin)
		got, err := a.Percentile(qs, PercentileOpts{}).Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		est, err := nd.Values[float64](got)
		if err != nil || len(est) != len(qs) {
			t.Fatalf("chunks %v: %v %v %v", chunks, got.DType(), got.Shape(), err)
		}
		for i, q := range qs {
			below := float64(sort.SearchFloat64s(sorted, est[i])) / n
			atOrBelow := float64(sort.Search(n, func(j int) bool { return sorted[j] > est[i] })) / n
			if below > q/100+eps || atOrBelow < q/100-eps {
				t.Errorf("chunks %v: q %v: estimate %v has rank [%v, %v], want q within ε %v", chunks, q, est[i], below, atOrBelow, eps)
			}
		}
		if est[0] != sorted[0] || est[len(qs)-1] != sorted[n-1] {
			t.Errorf("chunks %v: extremes %v, %v, want %v, %v", chunks, est[0], est[len(qs)-1], sorted[0], sorted[n-1])
		}
		other, err := a.Percentile(qs, PercentileOpts{SplitEvery: 2}).Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if d := compareGolden(other, got); d != "" {
			t.Errorf("chunks %v: split_every 2 differs: %s", chunks, d)
		}
	}
	// one chunk: numpy's exact linear percentile (its formula)
	got, err := FromNDArray(x, -1).Percentile([]float64{37.5}, PercentileOpts{}).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	v := 0.375 * (n - 1)
	lo := math.Floor(v)
	want := sorted[int(lo)] + (sorted[int(lo)+1]-sorted[int(lo)])*(v-lo)
	if g, _ := nd.Values[float64](got); math.Abs(g[0]-want) > 1e-12*math.Abs(want) {
		t.Errorf("one chunk: got %v, want %v", g[0], want)
	}
}

// TestCumulativeMethods compares both scans with one running sum and
// product of the whole array (cumLocalBlock, exact for integers) for
// every number of blocks from 1 to 40 along the axis, with empty chunks
// among them.
func TestCumulativeMethods(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const rows, n = 3, 40
	v := make([]int64, rows*n)
	for i := range v {
		v[i] = r.Int64N(2001) - 1000
	}
	x, _ := nd.FromSlice(v, rows, n)
	for _, prodOp := range []bool{false, true} {
		want, err := cumLocalBlock(x, 1, prodOp)
		if err != nil {
			t.Fatal(err)
		}
		for nb := 1; nb <= n; nb++ {
			ch := splitAxis(n, (n+nb-1)/nb)
			if nb%7 == 3 {
				ch = append([]int{0}, append(ch, 0)...)
			}
			for _, method := range []string{"sequential", "blelloch"} {
				a := FromNDArray(x, []any{2, ch})
				var c *Array
				if prodOp {
					c = a.Cumprod(1, false, CumOpts{Method: method})
				} else {
					c = a.Cumsum(1, false, CumOpts{Method: method})
				}
				for _, opt := range []Option{WithScheduler(sched.Sync{}), WithScheduler(sched.Threaded{Workers: 2})} {
					got, err := c.Compute(context.Background(), opt)
					if err != nil {
						t.Fatalf("%s chunks %v: %v", method, ch, err)
					}
					if d := compareGolden(got, want); d != "" {
						t.Fatalf("%s prod=%v chunks %v: %s", method, prodOp, ch, d)
					}
				}
			}
		}
	}
}

// TestCumulativeDepth checks the shape of the scans' graphs over 64
// blocks: the sequential carries form a chain as long as the blocks, the
// Blelloch ones at most 2·log2(64) deep with fewer than 2·64 combines.
func TestCumulativeDepth(t *testing.T) {
	const n = 64
	x := Arange(0, n, 1, nd.Float64, 1)
	for _, tc := range []struct {
		method         string
		minD, maxD     int
		maxCombineTask int
	}{
		{"sequential", n - 1, n + 2, n},
		{"blelloch", 6, 2*6 + 3, 2 * n},
	} {
		g, err := x.Cumsum(0, false, CumOpts{Method: tc.method}).Graph(WithOptimize(false))
		if err != nil {
			t.Fatal(err)
		}
		deps, err := g.Dependencies()
		if err != nil {
			t.Fatal(err)
		}
		depth := make([]int, g.Len())
		var longest func(i int) int
		longest = func(i int) int {
			if depth[i] > 0 {
				return depth[i]
			}
			d := 1
			for _, j := range deps.Of(i) {
				d = max(d, longest(int(j))+1)
			}
			depth[i] = d
			return d
		}
		maxD, combines := 0, 0
		for i := range g.Len() {
			maxD = max(maxD, longest(i))
			k := string(g.Key(i))
			if strings.Contains(k, "-carry") || strings.Contains(k, "-up") || strings.Contains(k, "-down") {
				combines++
			}
		}
		if maxD < tc.minD || maxD > tc.maxD || combines > tc.maxCombineTask {
			t.Errorf("%s: depth %d (want %d..%d), %d combines (want ≤ %d)", tc.method, maxD, tc.minD, tc.maxD, combines, tc.maxCombineTask)
		}
	}
}

func TestNanArgAllNaNError(t *testing.T) {
	x, _ := nd.FromSlice([]float64{1, math.NaN(), math.NaN(), math.NaN()}, 2, 2)
	_, err := FromNDArray(x, 1).NanArgMax(1, false, ReduceOpts{}).Compute(context.Background())
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "All-NaN slice") || e.Op != "nanargmax" {
		t.Errorf("got %v, want an *Error naming nanargmax and the all-NaN slice", err)
	}
}

// TestTopKTiesAndLargeK compares TopK and ArgTopK with a stable sort of
// each row (ties by the smaller index) on data with many ties and NaNs,
// for small k (the insertion path) and k beyond 64 (the sorting path),
// across chunkings.
func TestTopKTiesAndLargeK(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const rows, n = 3, 150
	v := make([]float64, rows*n)
	for i := range v {
		v[i] = float64(r.IntN(12))
		if r.IntN(25) == 0 {
			v[i] = math.NaN()
		}
	}
	x, _ := nd.FromSlice(v, rows, n)
	for _, k := range []int{3, -3, 100, -100, n} {
		m := max(k, -k)
		wantV := make([]float64, 0, rows*m)
		wantI := make([]int64, 0, rows*m)
		for row := range rows {
			lane := v[row*n : (row+1)*n]
			order := make([]int, n)
			for j := range order {
				order[j] = j
			}
			slices.SortStableFunc(order, func(i, j int) int {
				c := cmpNaN(lane[i], lane[j])
				if k > 0 {
					c = -c
				}
				return c
			})
			for _, j := range order[:m] {
				wantV = append(wantV, lane[j])
				wantI = append(wantI, int64(j))
			}
		}
		wv, _ := nd.FromSlice(wantV, rows, m)
		wi, _ := nd.FromSlice(wantI, rows, m)
		for _, chunks := range []any{-1, []int{2, 7}, []int{3, 64}} {
			a := FromNDArray(x, chunks)
			gv, err := a.TopK(k, 1, ReduceOpts{SplitEvery: 3}).Compute(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			gi, err := a.ArgTopK(k, 1, ReduceOpts{}).Compute(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if d := compareGolden(gv, wv); d != "" {
				t.Errorf("topk k=%d chunks %v: %s", k, chunks, d)
			}
			if d := compareGolden(gi, wi); d != "" {
				t.Errorf("argtopk k=%d chunks %v: %s", k, chunks, d)
			}
		}
	}
}

func TestPlanLevel(t *testing.T) {
	for _, tc := range []struct {
		name       string
		chunks     [][]int
		red        []bool
		fan, out   int
		wantGroups [][][2]int
		wantCh     [][]int
		wantDone   bool
	}{
		{"combine", [][]int{{1, 1, 1, 1, 1}, {3, 2}}, []bool{true, false}, 2, 1,
			[][][2]int{{{0, 2}, {2, 4}, {4, 5}}, {{0, 1}, {1, 2}}}, [][]int{{1, 1, 1}, {3, 2}}, false},
		{"aggregate", [][]int{{1, 1}, {4}}, []bool{true, false}, 2, 1,
			[][][2]int{{{0, 2}}, {{0, 1}}}, [][]int{{1}, {4}}, true},
		{"output size", [][]int{{1, 1, 1}}, []bool{true}, 4, 5,
			[][][2]int{{{0, 3}}}, [][]int{{5}}, true},
		{"two axes, one still wide", [][]int{{1, 1}, {1, 1, 1}}, []bool{true, true}, 2, 1,
			[][][2]int{{{0, 2}}, {{0, 2}, {2, 3}}}, [][]int{{1}, {1, 1}}, false},
	} {
		shape := make([]int, len(tc.chunks))
		for i, c := range tc.chunks {
			shape[i] = sum(c)
		}
		g, ch, sh, done := planLevel(tc.chunks, shape, tc.red, tc.fan, tc.out)
		if done != tc.wantDone || !slices.EqualFunc(g, tc.wantGroups, slices.Equal) || !slices.EqualFunc(ch, tc.wantCh, slices.Equal) {
			t.Errorf("%s: got groups %v chunks %v done %v, want %v %v %v", tc.name, g, ch, done, tc.wantGroups, tc.wantCh, tc.wantDone)
		}
		for i, c := range ch {
			if sh[i] != sum(c) {
				t.Errorf("%s: shape %v for chunks %v", tc.name, sh, ch)
			}
		}
	}
}

// TestConcatGrid assembles a 2×3 grid of pieces of different lengths and
// compares with the array they were cut from.
func TestConcatGrid(t *testing.T) {
	whole := seededNormal(t, 5, 6)
	rows, cols := [][2]int{{0, 2}, {2, 5}}, [][2]int{{0, 1}, {1, 1}, {1, 6}}
	var pieces []*nd.Array
	for _, r := range rows {
		for _, c := range cols {
			p, err := whole.Slice(nd.Slice1{Start: r[0], Stop: r[1], Step: 1}, nd.Slice1{Start: c[0], Stop: c[1], Step: 1})
			if err != nil {
				t.Fatal(err)
			}
			pieces = append(pieces, p)
		}
	}
	got, err := concatGrid(pieces, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := compareGolden(got, whole); d != "" {
		t.Error(d)
	}
	if _, err := concatGrid(pieces[:2], []int{2, 1}); err == nil {
		t.Error("pieces that do not tile: no error")
	}
}

// TestNanPercentileApprox: NanPercentile across chunks, one of them all
// NaN, within the bound of TestPercentileApproxBound over the non-NaN
// elements (n_min over the chunks that have any).
func TestNanPercentileApprox(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n = 2000
	data := make([]float64, n)
	var kept []float64
	for i := range data {
		switch {
		case i >= 500 && i < 700, i%10 == 3:
			data[i] = math.NaN()
		default:
			data[i] = r.NormFloat64()*2 + 1
			kept = append(kept, data[i])
		}
	}
	slices.Sort(kept)
	x, _ := nd.FromSlice(data, n)
	a := FromNDArray(x, 200) // chunk 3 (500..700) is all NaN; the others hold 180 values
	qs := []float64{0, 3, 50, 81, 100}
	got, err := a.NanPercentile(qs, PercentileOpts{}).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	est, _ := nd.Values[float64](got)
	eps := 1.0/sketchPoints + 1.0/180
	m := float64(len(kept))
	for i, q := range qs {
		below := float64(sort.SearchFloat64s(kept, est[i])) / m
		atOrBelow := float64(sort.Search(len(kept), func(j int) bool { return kept[j] > est[i] })) / m
		if below > q/100+eps || atOrBelow < q/100-eps {
			t.Errorf("q %v: estimate %v has rank [%v, %v], want q within %v", q, est[i], below, atOrBelow, eps)
		}
	}
	allNaN := FromNDArray(x, 200).Index(Range(500, 700)).NanPercentile([]float64{50}, PercentileOpts{})
	v, err := allNaN.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := nd.Values[float64](v); !math.IsNaN(f[0]) {
		t.Errorf("all-NaN: got %v, want NaN", f[0])
	}
}

// TestReduceNilReceivers: every entry point of this area on a nil or
// zero Array returns an error, never panics.
func TestReduceNilReceivers(t *testing.T) {
	var z Array
	for _, a := range []*Array{nil, &z} {
		for name, build := range map[string]func() *Array{
			"nansum":        func() *Array { return a.NanSum(nil, ReduceOpts{}) },
			"nanprod":       func() *Array { return a.NanProd(nil, ReduceOpts{}) },
			"nanmin":        func() *Array { return a.NanMin(nil, ReduceOpts{}) },
			"nanmax":        func() *Array { return a.NanMax(nil, ReduceOpts{}) },
			"nanmean":       func() *Array { return a.NanMean(nil, ReduceOpts{}) },
			"nanvar":        func() *Array { return a.NanVar(nil, ReduceOpts{}) },
			"nanstd":        func() *Array { return a.NanStd(nil, ReduceOpts{}) },
			"nanargmin":     func() *Array { return a.NanArgMin(0, true, ReduceOpts{}) },
			"nanargmax":     func() *Array { return a.NanArgMax(0, false, ReduceOpts{}) },
			"ptp":           func() *Array { return a.Ptp(nil, false) },
			"count_nonzero": func() *Array { return a.CountNonzero(nil, false) },
			"average":       func() *Array { r, _ := a.Average(nil, AverageOpts{}); return r },
			"average_w":     func() *Array { r, _ := Ones([]int{2}, nd.Float64, 1).Average(nil, AverageOpts{Weights: a}); return r },
			"median":        func() *Array { return a.Median([]int{0}, false) },
			"nanmedian":     func() *Array { return a.NanMedian([]int{0}, false) },
			"percentile":    func() *Array { return a.Percentile([]float64{1}, PercentileOpts{}) },
			"nanquantile":   func() *Array { return a.NanQuantile([]float64{1}, PercentileOpts{}) },
			"cumsum":        func() *Array { return a.Cumsum(0, false, CumOpts{}) },
			"nancumprod":    func() *Array { return a.NanCumprod(0, true, CumOpts{}) },
			"topk":          func() *Array { return a.TopK(1, 0, ReduceOpts{}) },
			"argtopk":       func() *Array { return a.ArgTopK(1, 0, ReduceOpts{}) },
			"cov":           func() *Array { return Cov(a, CovOpts{}) },
			"cov_y":         func() *Array { return Cov(Ones([]int{2}, nd.Float64, 1), CovOpts{Y: a}) },
			"corrcoef":      func() *Array { return Corrcoef(a, CovOpts{}) },
			"reduction":     func() *Array { return Reduction(a, "test.sumsq", nil, ReductionOpts{}) },
		} {
			if a == nil && (name == "average_w" || name == "cov_y") {
				continue // nil weights or y: none
			}
			_, err := auditRun(t, build)
			if err == nil {
				t.Errorf("%s (%p): no error", name, a)
			}
		}
	}
}

// TestQuantileSelect compares the selection path of one quantile with the
// sorted path for every method, lane lengths 1 to 40 with ties, and q
// across [0, 1].
func TestQuantileSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for n := 1; n <= 40; n++ {
		lane := make([]int32, n)
		for i := range lane {
			lane[i] = int32(r.IntN(n/2 + 1))
		}
		sorted := slices.Clone(lane)
		slices.Sort(sorted)
		for _, method := range append([]string{"median"}, quantileMethods...) {
			for _, q := range []float64{0, 0.01, 0.25, 0.5, 0.5 + 1e-9, 0.75, 0.9, 1} {
				if method == "median" && q != 0.5 {
					continue
				}
				want := quantileSorted(sorted, q, method)
				got := quantileSelect(slices.Clone(lane), q, method)
				if got != want {
					t.Fatalf("n %d %s q %v: select %v, sorted %v (lane %v)", n, method, q, got, want, lane)
				}
			}
		}
	}
}

// TestFusedReduceEmptyBlock: a fused expression reduced over a block of
// size 0 (here (3, 0, 1), of an empty array chunked along its first axis)
// gives the identity; it panicked in the fused evaluator.
func TestFusedReduceEmptyBlock(t *testing.T) {
	x, _ := nd.Zeros(nd.Float32, 6, 0, 1)
	a := FromNDArray(x, [][]int{{3, 2, 1}, {0}, {1, 0}})
	for name, e := range map[string]*Array{
		"mul-sum":   a.Mul(a).Sum(),
		"where-sum": Where(a.NotEqual(a), 0, a).Reduce(nd.Sum, []int{0}, ReduceOpts{}),
		"nanvar":    a.NanVar([]int{1}, ReduceOpts{}),
	} {
		got, err := e.Compute(context.Background())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %v", name, got)
	}
}

// TestReshapeMergeZeroChunk: merging axes whose chunks number as many as
// the axis's length, but not all of length 1 ((1, 2, 0) of 3), rechunks;
// it was taken for chunks of one, and the blocks did not fit.
func TestReshapeMergeZeroChunk(t *testing.T) {
	x := seededNormal(t, 1, 3, 2)
	got, err := FromNDArray(x, [][]int{{1}, {1, 2, 0}, {2}}).Reshape(-1).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := x.Reshape(6)
	if d := compareGolden(got, want); d != "" {
		t.Error(d)
	}
}
