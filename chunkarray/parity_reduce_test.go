package chunkarray

// The numpy goldens of issue 13's reductions (testdata/parity_reduce,
// written by testdata/gen_parity_reduce.py with numpy 1.24): every case
// is evaluated with its chunkarray expression over the conformance
// chunkings (or its own), on Sync and Threaded(2), fused and unfused,
// persisted and through JSON (runLayouts), and compared with compareGolden.

import (
	"testing"

	"github.com/tessera-go/tessera/nd"
)

const parityReduceDir = "testdata/parity_reduce"

func keepOpts(keep bool) ReduceOpts { return ReduceOpts{Keepdims: keep} }

func oneChunk(expr confExpr) parityCase {
	return parityCase{expr: expr, layouts: []confLayout{{name: "one", specs: []any{-1}, every: true}}}
}

var parityReduceExprs = map[string]parityCase{
	"nansum_all":       pc(func(in []*Array) *Array { return in[0].NanSum(nil, ReduceOpts{SplitEvery: 2}) }),
	"nansum_0":         pc(func(in []*Array) *Array { return in[0].NanSum([]int{0}, keepOpts(false)) }),
	"nansum_1_k":       pc(func(in []*Array) *Array { return in[0].NanSum([]int{1}, keepOpts(true)) }),
	"nansum_f32_02":    pc(func(in []*Array) *Array { return in[0].NanSum([]int{0, 2}, keepOpts(false)) }),
	"nansum_c128":      pc(func(in []*Array) *Array { return in[0].NanSum([]int{1}, keepOpts(false)) }),
	"nansum_i16":       pc(func(in []*Array) *Array { return in[0].NanSum([]int{0}, keepOpts(false)) }),
	"nansum_dtype_f32": pc(func(in []*Array) *Array { return in[0].NanSum([]int{1}, ReduceOpts{DType: nd.Float32}) }),
	"nanprod_1":        pc(func(in []*Array) *Array { return in[0].NanProd([]int{1}, keepOpts(false)) }),
	"nanprod_f32_all": pc(func(in []*Array) *Array {
		return in[0].Index(All(), Range(0, 2), Range(0, 3)).NanProd(nil, keepOpts(false))
	}),
	"nanmin_0":          pc(func(in []*Array) *Array { return in[0].NanMin([]int{0}, keepOpts(false)) }),
	"nanmin_all":        pc(func(in []*Array) *Array { return in[0].NanMin(nil, ReduceOpts{SplitEvery: 3}) }),
	"nanmax_1_k":        pc(func(in []*Array) *Array { return in[0].NanMax([]int{1}, keepOpts(true)) }),
	"nanmax_f32_2":      pc(func(in []*Array) *Array { return in[0].NanMax([]int{2}, keepOpts(false)) }),
	"nanmax_i16_1":      pc(func(in []*Array) *Array { return in[0].NanMax([]int{1}, keepOpts(false)) }),
	"nanmin_empty":      pc(func(in []*Array) *Array { return in[0].NanMin([]int{0}, keepOpts(false)) }),
	"nanmin_allnan":     pc(func(in []*Array) *Array { return in[0].NanMin([]int{1}, keepOpts(false)) }),
	"nanmean_0":         pc(func(in []*Array) *Array { return in[0].NanMean([]int{0}, keepOpts(false)) }),
	"nanmean_all":       pc(func(in []*Array) *Array { return in[0].NanMean(nil, keepOpts(false)) }),
	"nanmean_f32_1_k":   pc(func(in []*Array) *Array { return in[0].NanMean([]int{1}, keepOpts(true)) }),
	"nanmean_c128_0":    pc(func(in []*Array) *Array { return in[0].NanMean([]int{0}, keepOpts(false)) }),
	"nanmean_i16":       pc(func(in []*Array) *Array { return in[0].NanMean([]int{1}, keepOpts(false)) }),
	"nanvar_0":          pc(func(in []*Array) *Array { return in[0].NanVar([]int{0}, keepOpts(false)) }),
	"nanvar_1_ddof":     pc(func(in []*Array) *Array { return in[0].NanVar([]int{1}, ReduceOpts{Ddof: 1}) }),
	"nanvar_ddof_big":   pc(func(in []*Array) *Array { return in[0].NanVar([]int{0}, ReduceOpts{Ddof: 6}) }),
	"nanvar_f32_02_k":   pc(func(in []*Array) *Array { return in[0].NanVar([]int{0, 2}, keepOpts(true)) }),
	"nanvar_c128_1":     pc(func(in []*Array) *Array { return in[0].NanVar([]int{1}, keepOpts(false)) }),
	"nanvar_inf":        pc(func(in []*Array) *Array { return in[0].NanVar([]int{0}, keepOpts(false)) }),
	"nanstd_all":        pc(func(in []*Array) *Array { return in[0].NanStd(nil, keepOpts(false)) }),
	"nanstd_f32_2_ddof": pc(func(in []*Array) *Array { return in[0].NanStd([]int{2}, ReduceOpts{Ddof: 1}) }),
	"nanstd_i16":        pc(func(in []*Array) *Array { return in[0].NanStd([]int{0}, keepOpts(false)) }),
	"nanargmin_1":       pc(func(in []*Array) *Array { return in[0].NanArgMin(1, false, keepOpts(false)) }),
	"nanargmin_0":       pc(func(in []*Array) *Array { return in[0].NanArgMin(0, false, ReduceOpts{SplitEvery: 2}) }),
	"nanargmin_allnan":  pc(func(in []*Array) *Array { return in[0].NanArgMin(0, false, keepOpts(false)) }),
	"nanargmax_1":       pc(func(in []*Array) *Array { return in[0].NanArgMax(1, false, keepOpts(false)) }),
	"nanargmax_flat":    pc(func(in []*Array) *Array { return in[0].NanArgMax(0, true, keepOpts(false)) }),
	"nanargmin_f32_2": pc(func(in []*Array) *Array {
		return in[0].Index(Ints(0, 2, 3)).NanArgMin(2, false, keepOpts(false))
	}),
	"nanargmax_i16_0":       pc(func(in []*Array) *Array { return in[0].NanArgMax(0, false, keepOpts(false)) }),
	"nanargmin_allnan_flat": pc(func(in []*Array) *Array { return in[0].NanArgMin(0, true, keepOpts(false)) }),

	"ptp_0":               pc(func(in []*Array) *Array { return in[0].Ptp([]int{0}, false) }),
	"ptp_u8_1":            pc(func(in []*Array) *Array { return in[0].Ptp([]int{1}, false) }),
	"ptp_i8_all_k":        pc(func(in []*Array) *Array { return in[0].Ptp(nil, true) }),
	"ptp_bool":            pc(func(in []*Array) *Array { return in[0].Ptp(nil, false) }),
	"count_nonzero_all":   pc(func(in []*Array) *Array { return in[0].CountNonzero(nil, false) }),
	"count_nonzero_0":     pc(func(in []*Array) *Array { return in[0].CountNonzero([]int{0}, false) }),
	"count_nonzero_b_1_k": pc(func(in []*Array) *Array { return in[0].CountNonzero([]int{1}, true) }),
	"count_nonzero_c":     pc(func(in []*Array) *Array { return in[0].CountNonzero([]int{0, 1}, false) }),

	"average_none":    pc(func(in []*Array) *Array { a, _ := in[0].Average([]int{0}, AverageOpts{}); return a }),
	"average_w1d":     pc(func(in []*Array) *Array { a, _ := in[0].Average([]int{1}, AverageOpts{Weights: in[1]}); return a }),
	"average_w1d_ret": pc(func(in []*Array) *Array { _, s := in[0].Average([]int{1}, AverageOpts{Weights: in[1]}); return s }),
	"average_w2d_all": pc(func(in []*Array) *Array { a, _ := in[0].Average(nil, AverageOpts{Weights: in[1]}); return a }),
	"average_w2d_0_k": pc(func(in []*Array) *Array {
		a, _ := in[0].Average([]int{0}, AverageOpts{Weights: in[1], Keepdims: true})
		return a
	}),
	"average_w2d_ret":   pc(func(in []*Array) *Array { _, s := in[0].Average([]int{0}, AverageOpts{Weights: in[1]}); return s }),
	"average_zero":      pc(func(in []*Array) *Array { a, _ := in[0].Average([]int{0}, AverageOpts{Weights: in[1]}); return a }),
	"average_noaxis_1d": pc(func(in []*Array) *Array { a, _ := in[0].Average(nil, AverageOpts{Weights: in[1]}); return a }),
	"median_0":          pc(func(in []*Array) *Array { return in[0].Median([]int{0}, false) }),
	"median_1_k":        pc(func(in []*Array) *Array { return in[0].Median([]int{1}, true) }),
	"median_nan":        pc(func(in []*Array) *Array { return in[0].Median([]int{1}, false) }),
	"median_f32_02":     pc(func(in []*Array) *Array { return in[0].Median([]int{0, 2}, false) }),
	"nanmedian_0":       pc(func(in []*Array) *Array { return in[0].NanMedian([]int{0}, false) }),
	"nanmedian_1":       pc(func(in []*Array) *Array { return in[0].NanMedian([]int{-1}, false) }),
	"nanmedian_f32_2_k": pc(func(in []*Array) *Array { return in[0].NanMedian([]int{2}, true) }),
	"percentile_f32":    oneChunk(func(in []*Array) *Array { return in[0].Percentile([]float64{5, 50, 95}, PercentileOpts{}) }),
	"percentile_nan": pc(func(in []*Array) *Array {
		return in[0].Index(At(3)).Rechunk(-1).Percentile([]float64{20, 70}, PercentileOpts{})
	}),
	"quantile_linear": oneChunk(func(in []*Array) *Array { return in[0].Quantile([]float64{0.1, 0.5, 0.99}, PercentileOpts{}) }),
	"percentile_axis1": pc(func(in []*Array) *Array {
		return in[0].Percentile([]float64{10, 50, 90}, PercentileOpts{Axis: intPtr(1)})
	}),
	"percentile_axis0_lower": pc(func(in []*Array) *Array {
		return in[0].Percentile([]float64{30, 60}, PercentileOpts{Axis: intPtr(0), Method: "lower"})
	}),
	"quantile_f32_axis2": pc(func(in []*Array) *Array {
		return in[0].Quantile([]float64{0.25, 0.75}, PercentileOpts{Axis: intPtr(-1)})
	}),
	"nanpercentile_axis1": pc(func(in []*Array) *Array {
		return in[0].NanPercentile([]float64{10, 50, 90}, PercentileOpts{Axis: intPtr(1)})
	}),
	"nanpercentile_axis0": pc(func(in []*Array) *Array {
		return in[0].NanPercentile([]float64{0, 35, 100}, PercentileOpts{Axis: intPtr(0)})
	}),
	"nanquantile_1d": pc(func(in []*Array) *Array {
		return in[0].Index(At(3)).Rechunk(-1).NanQuantile([]float64{0.2, 0.7}, PercentileOpts{})
	}),
	"percentile_out":  pc(func(in []*Array) *Array { return in[0].Percentile([]float64{101}, PercentileOpts{}) }),
	"cumsum_i8":       pc(cumExpr("cumsum", 1, false, CumOpts{})),
	"cumsum_u8_0":     pc(cumExpr("cumsum", 0, false, CumOpts{Method: "blelloch"})),
	"cumprod_i8_wrap": pc(cumExpr("cumprod", 1, false, CumOpts{DType: nd.Int8})),
	"cumsum_bool":     pc(cumExpr("cumsum", 0, false, CumOpts{Method: "blelloch"})),
	"cumsum_c128":     pc(cumExpr("cumsum", 0, false, CumOpts{})),
	"cumsum_neg_axis": pc(cumExpr("cumsum", -1, false, CumOpts{Method: "blelloch"})),
	"cumsum_empty":    pc(cumExpr("cumsum", 0, false, CumOpts{})),
	"cumsum_axis_out": pc(cumExpr("cumsum", 2, false, CumOpts{})),
	"topk_3_1":        pc(func(in []*Array) *Array { return in[0].TopK(3, 1, ReduceOpts{}) }),
	"topk_neg2_0":     pc(func(in []*Array) *Array { return in[0].TopK(-2, 0, ReduceOpts{SplitEvery: 2}) }),
	"topk_5_0_nan":    pc(func(in []*Array) *Array { return in[0].TopK(5, 0, ReduceOpts{}) }),
	"topk_i64_4_1":    pc(func(in []*Array) *Array { return in[0].TopK(4, -1, ReduceOpts{}) }),
	"topk_all_0":      pc(func(in []*Array) *Array { return in[0].TopK(7, 0, ReduceOpts{SplitEvery: 2}) }),
	"argtopk_3_1":     pc(func(in []*Array) *Array { return in[0].ArgTopK(3, 1, ReduceOpts{}) }),
	"argtopk_neg4_0":  pc(func(in []*Array) *Array { return in[0].ArgTopK(-4, 0, ReduceOpts{SplitEvery: 2}) }),
	"argtopk_i64_2_0": pc(func(in []*Array) *Array { return in[0].ArgTopK(2, 0, ReduceOpts{}) }),
	"topk_too_big":    pc(func(in []*Array) *Array { return in[0].TopK(10, 0, ReduceOpts{}) }),
	"cov_rows":        pc(func(in []*Array) *Array { return Cov(in[0], CovOpts{}) }),
	"cov_y":           pc(func(in []*Array) *Array { return Cov(in[0], CovOpts{Y: in[1]}) }),
	"cov_cols_bias":   pc(func(in []*Array) *Array { return Cov(in[0], CovOpts{ColVars: true, Bias: true}) }),
	"cov_ddof":        pc(func(in []*Array) *Array { d := 3; return Cov(in[0], CovOpts{Ddof: &d}) }),
	"cov_1d":          pc(func(in []*Array) *Array { return Cov(in[0], CovOpts{}) }),
	"corrcoef_rows":   pc(func(in []*Array) *Array { return Corrcoef(in[0], CovOpts{}) }),
	"corrcoef_y_cols": pc(func(in []*Array) *Array { return Corrcoef(in[0], CovOpts{Y: in[1].T(), ColVars: true}) }),
	"corrcoef_1d":     pc(func(in []*Array) *Array { return Corrcoef(in[0], CovOpts{}) }),
	"cov_c128":        pc(func(in []*Array) *Array { return Cov(in[0].Index(Ints(0, 2, 3)), CovOpts{}) }),
	"cov_c128_cols": pc(func(in []*Array) *Array {
		d := 2
		return Cov(in[0].Index(Ints(0, 2, 3, 5)), CovOpts{ColVars: true, Ddof: &d})
	}),
	"cov_3d": pc(func(in []*Array) *Array { return Cov(in[0], CovOpts{}) }),
}

func intPtr(i int) *int { return &i }

func cumExpr(name string, axis int, flat bool, o CumOpts) confExpr {
	return func(in []*Array) *Array {
		x := in[0]
		switch name {
		case "cumsum":
			return x.Cumsum(axis, flat, o)
		case "cumprod":
			return x.Cumprod(axis, flat, o)
		case "nancumsum":
			return x.NanCumsum(axis, flat, o)
		}
		return x.NanCumprod(axis, flat, o)
	}
}

func init() {
	for _, m := range quantileMethods {
		parityReduceExprs["percentile_"+m] = oneChunk(func(in []*Array) *Array {
			return in[0].Percentile([]float64{0, 10, 25, 50, 62.5, 90, 100}, PercentileOpts{Method: m})
		})
		parityReduceExprs["percentile_i64_"+m] = oneChunk(func(in []*Array) *Array {
			return in[0].Percentile([]float64{0, 10, 25, 50, 62.5, 90, 100}, PercentileOpts{Method: m})
		})
	}
	// each cumulative with both methods: sequential on even chunkings'
	// runs, Blelloch on the others, by the case's axis
	for _, name := range []string{"cumsum", "cumprod", "nancumsum", "nancumprod"} {
		parityReduceExprs[name+"_0"] = pc(func(in []*Array) *Array {
			return cumExpr(name, 0, false, CumOpts{Method: "blelloch"})([]*Array{in[0].Mul(0.5)})
		})
		parityReduceExprs[name+"_1"] = pc(func(in []*Array) *Array {
			return cumExpr(name, 1, false, CumOpts{})([]*Array{in[0].Mul(0.5)})
		})
		parityReduceExprs[name+"_flat"] = pc(func(in []*Array) *Array {
			return cumExpr(name, 0, true, CumOpts{Method: "blelloch"})([]*Array{in[0].Mul(0.5)})
		})
		parityReduceExprs[name+"_f32_1"] = pc(func(in []*Array) *Array {
			return cumExpr(name, 1, false, CumOpts{})([]*Array{in[0].Mul(0.5)})
		})
	}
}

func TestParityReduce(t *testing.T) { runParity(t, parityReduceDir, parityReduceExprs) }

// TestParityReduceGoldensCurrent checks that testdata/parity_reduce is
// what gen_parity_reduce.py writes now.
func TestParityReduceGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_reduce.py", parityReduceDir)
}

func TestParityReduceExprsHaveCases(t *testing.T) {
	checkExprsHaveCases(t, parityReduceDir, parityReduceExprs)
}
