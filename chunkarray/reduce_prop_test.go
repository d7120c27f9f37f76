package chunkarray

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestReduceChunkIndependence is a randomized differential test of the
// reductions of this area: random shapes (0 to 3 axes, lengths 0 to 7),
// dtypes, NaNs, chunkings (with empty chunks) and parameters, each
// result compared with the same reduction of the array in one block
// (compareGolden's tolerances), which takes the tree's one-partial path
// and no carries. Both fail alike or succeed alike. Seeds are fixed, the
// count bounded.
func TestReduceChunkIndependence(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 60
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 99))
		x := randomInput(r)
		name, expr := randomReduction(r, x.NDim())
		spec := randomChunks(r, x.Shape())
		want, werr := protect(func() (*nd.Array, error) {
			return expr(FromNDArray(x, -1)).Compute(context.Background(), WithScheduler(sched.Sync{}))
		})
		got, gerr := protect(func() (*nd.Array, error) {
			return expr(FromNDArray(x, spec)).Compute(context.Background(), WithScheduler(sched.Threaded{Workers: 2}))
		})
		where := fmt.Sprintf("seed %d: %s of %s%v chunked %v", seed, name, x.DType(), x.Shape(), spec)
		for _, err := range []error{werr, gerr} {
			if err != nil && strings.Contains(err.Error(), "panic") {
				t.Fatalf("%s: %v", where, err)
			}
		}
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: one block: %v; chunked: %v", where, werr, gerr)
		}
		if werr != nil {
			continue
		}
		if d := compareGolden(got, want); d != "" {
			t.Fatalf("%s: %s", where, d)
		}
	}
}

func randomInput(r *rand.Rand) *nd.Array {
	nd0 := r.IntN(4)
	shape := make([]int, nd0)
	for i := range shape {
		shape[i] = r.IntN(8)
		if r.IntN(6) == 0 {
			shape[i] = 0
		}
	}
	v := make([]float64, prod(shape))
	for i := range v {
		v[i] = math.Round(r.NormFloat64()*40) / 8
		if r.IntN(8) == 0 {
			v[i] = math.NaN()
		}
	}
	a, _ := nd.FromSlice(v, shape...)
	switch r.IntN(4) {
	case 0:
		a, _ = a.AsType(nd.Float32)
	case 1:
		for i := range v {
			if math.IsNaN(v[i]) {
				v[i] = 3
			}
		}
		a, _ = nd.FromSlice(v, shape...)
		a, _ = a.AsType(nd.Int16)
	}
	return a
}

func randomChunks(r *rand.Rand, shape []int) any {
	spec := make([][]int, len(shape))
	for i, s := range shape {
		left := s
		for left > 0 {
			c := 1 + r.IntN(left)
			spec[i] = append(spec[i], c)
			left -= c
			if r.IntN(5) == 0 {
				spec[i] = append(spec[i], 0)
			}
		}
		if len(spec[i]) == 0 {
			spec[i] = []int{0}
		}
	}
	return spec
}

// randomReduction picks a reduction and its parameters for an input of
// ndim axes.
func randomReduction(r *rand.Rand, ndim int) (string, func(*Array) *Array) {
	axis := 0
	if ndim > 0 {
		axis = r.IntN(ndim)
	}
	var axes []int
	if ndim > 0 && r.IntN(3) > 0 {
		for ax := range ndim {
			if r.IntN(2) == 0 {
				axes = append(axes, ax)
			}
		}
		if len(axes) == 0 {
			axes = []int{axis}
		}
	}
	o := ReduceOpts{Keepdims: r.IntN(2) == 0, SplitEvery: 2 + r.IntN(3)}
	vo := o
	vo.Ddof = r.IntN(2)
	flat := ndim == 0 || r.IntN(4) == 0
	k := 1 + r.IntN(3)
	if r.IntN(2) == 0 {
		k = -k
	}
	method := []string{"sequential", "blelloch"}[r.IntN(2)]
	ops := []struct {
		name string
		f    func(*Array) *Array
	}{
		{"nansum", func(a *Array) *Array { return a.NanSum(axes, o) }},
		{"nanprod", func(a *Array) *Array { return a.NanProd(axes, o) }},
		{"nanmin", func(a *Array) *Array { return a.NanMin(axes, o) }},
		{"nanmax", func(a *Array) *Array { return a.NanMax(axes, o) }},
		{"nanmean", func(a *Array) *Array { return a.NanMean(axes, o) }},
		{"nanvar", func(a *Array) *Array { return a.NanVar(axes, vo) }},
		{"nanstd", func(a *Array) *Array { return a.NanStd(axes, vo) }},
		{"nanargmin", func(a *Array) *Array { return a.NanArgMin(axis, flat, o) }},
		{"nanargmax", func(a *Array) *Array { return a.NanArgMax(axis, flat, o) }},
		{"ptp", func(a *Array) *Array { return a.Ptp(axes, o.Keepdims) }},
		{"count_nonzero", func(a *Array) *Array { return a.CountNonzero(axes, o.Keepdims) }},
		{"median", func(a *Array) *Array { return a.Median(axes, o.Keepdims) }},
		{"nanmedian", func(a *Array) *Array { return a.NanMedian(axes, o.Keepdims) }},
		{"cumsum", func(a *Array) *Array { return a.Cumsum(axis, flat, CumOpts{Method: method}) }},
		{"nancumprod", func(a *Array) *Array { return a.NanCumprod(axis, flat, CumOpts{Method: method}) }},
		{"topk", func(a *Array) *Array { return a.TopK(k, axis, ReduceOpts{SplitEvery: o.SplitEvery}) }},
		{"argtopk", func(a *Array) *Array { return a.ArgTopK(k, axis, ReduceOpts{SplitEvery: o.SplitEvery}) }},
		{"percentile-axis", func(a *Array) *Array {
			return a.Percentile([]float64{0, 33, 50, 100}, PercentileOpts{Axis: &axis})
		}},
		{"cumprod", func(a *Array) *Array { return a.Cumprod(axis, flat, CumOpts{Method: method}) }},
		{"nancumsum", func(a *Array) *Array { return a.NanCumsum(axis, flat, CumOpts{Method: method}) }},
		{"nanpercentile-axis", func(a *Array) *Array {
			return a.NanPercentile([]float64{10, 50, 99}, PercentileOpts{Axis: &axis, Method: "nearest"})
		}},
		{"cov", func(a *Array) *Array { return Cov(a, CovOpts{ColVars: o.Keepdims}) }},
		{"weighted average", func(a *Array) *Array {
			w := Linspace(0.5, 2, max(1, a.Size()), true, 3)
			if a.NDim() > 0 {
				w = w.Index(Range(0, a.Size())).Reshape(a.Shape()...)
			}
			avg, sw := a.Average(axes, AverageOpts{Weights: w, Keepdims: o.Keepdims})
			return avg.Add(sw)
		}},
		{"average", func(a *Array) *Array { avg, _ := a.Average(axes, AverageOpts{Keepdims: o.Keepdims}); return avg }},
	}
	op := ops[r.IntN(len(ops))]
	return fmt.Sprintf("%s(axes %v axis %d flat %v k %d %+v %s)", op.name, axes, axis, flat, k, vo, method), op.f
}
