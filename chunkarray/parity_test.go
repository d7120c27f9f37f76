package chunkarray

// The numpy-parity table of issue 13 ("Defects to fix"): every case of
// testdata/parity/cases.json (written by testdata/gen_parity.py with numpy
// 1.24) is evaluated with the chunkarray expression in parityExprs, as the
// conformance table's cases are (runLayouts: Sync and Threaded(2), fused
// and unfused, persisted, through JSON), over the conformance chunkings or
// over the chunkings the case names (zero-length chunks), and compared with
// numpy's result by compareGolden (integers exactly; float64 within 1e-12
// and float32 within 1e-5 of the element plus the largest finite magnitude;
// NaN equal to NaN; infinities exact).

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

const parityDir = "testdata/parity"

// parityCase is a case's chunkarray expression and, when it needs
// particular chunkings, the layouts of its inputs (nil: the conformance
// chunkings).
type parityCase struct {
	expr    confExpr
	layouts []confLayout
}

func pc(expr confExpr) parityCase { return parityCase{expr: expr} }

var parityExprs = map[string]parityCase{
	// 1. advanced indexing: separated advanced indices go first
	"adv_at_slice_ints":          pc(func(in []*Array) *Array { return in[0].Index(At(0), All(), Ints(1, 2)) }),
	"adv_bools_ellipsis_at":      pc(func(in []*Array) *Array { return in[0].Index(All(), Bools(m9...), Ellipsis(), At(1)) }),
	"adv_ints_empty_ellipsis_at": pc(func(in []*Array) *Array { return in[0].Index(All(), Ints(0, 1), Ellipsis(), At(1)) }),
	"adv_at_newaxis_ints":        pc(func(in []*Array) *Array { return in[0].Index(At(0), NewAxis(), Ints(1, 2)) }),
	"adv_ints_newaxis_at":        pc(func(in []*Array) *Array { return in[0].Index(All(), Ints(0, 1), NewAxis(), At(1)) }),
	"adv_at_step_ints":           pc(func(in []*Array) *Array { return in[0].Index(At(-1), RangeStep(2, 7, 2), Ints(4, -5, 0)) }),
	"adv_ints_slice_at":          pc(func(in []*Array) *Array { return in[0].Index(Ints(6, 0, 3, 3), All(), At(4)) }),
	"adv_at_rev_bools":           pc(func(in []*Array) *Array { return in[0].Index(At(3), Step(-2), Bools(true, false, true, true, false)) }),
	"adv_at_slice_empty_ints":    pc(func(in []*Array) *Array { return in[0].Index(At(0), All(), Ints()) }),
	"adv_adjacent_at_ints":       pc(func(in []*Array) *Array { return in[0].Index(All(), At(0), Ints(1, 2)) }),
	"adv_adjacent_ints_at":       pc(func(in []*Array) *Array { return in[0].Index(Ints(1, 2), At(0)) }),
	"adv_adjacent_at_ints_at":    pc(func(in []*Array) *Array { return in[0].Index(At(1), Ints(4, 0, 4), At(2)) }),
	"adv_adjacent_slice_at_bools": pc(func(in []*Array) *Array {
		return in[0].Index(Range(2, 5), At(8), Bools(false, true, true, false, true))
	}),

	// 2. zero-length chunks (the min, max and arg cases are added by init)
	"zc_sum_all": zc(red(nd.Sum, nil, ReduceOpts{SplitEvery: 3})),
	"zc_prod_1":  zc(red(nd.Prod, []int{1}, ReduceOpts{})),
	"zc_mean_0":  zc(red(nd.Mean, []int{0}, ReduceOpts{})),
	"zc_var_all": zc(red(nd.Var, nil, ReduceOpts{})),
	"zc_any_1":   zc(func(in []*Array) *Array { return in[0].Greater(9).Any(1) }),
	"zc_max_empty": {expr: red(nd.Max, nil, ReduceOpts{}), layouts: []confLayout{
		{name: "zero-empty", specs: []any{[][]int{{0, 0}, {1, 0, 3}}}, every: true}}},
	"zc_argmin_empty": {expr: func(in []*Array) *Array { return in[0].ArgMin(0, false) }, layouts: []confLayout{
		{name: "zero-empty", specs: []any{[][]int{{0, 0, 0}, {4}}}, every: true}}},
	"zcb_row":           {expr: bin(nd.Mul), layouts: pairs("bcast", x79, row19)},
	"zcb_col":           {expr: bin(nd.Add), layouts: pairs("bcast", col71, x79)},
	"zcb_one":           {expr: bin(nd.Sub), layouts: pairs("bcast", x79, one11)},
	"zcb_where":         {expr: func(in []*Array) *Array { return Where(in[0].Greater(1), in[1], in[2]) }, layouts: pairs("bcast", col71, x79, row19)},
	"zcb_both":          {expr: bin(nd.Sub), layouts: pairs("zero", x79, []any{[][]int{{3, 0, 4}, {0, 0, 9}}, [][]int{{0, 0, 7}, {5, 4, 0}}})},
	"zcb_row_sum":       {expr: func(in []*Array) *Array { return in[0].Mul(in[1]).Sum(0) }, layouts: pairs("bcast", x79, row19)},
	"zcb_mapblocks_add": {expr: func(in []*Array) *Array { return MapBlocks("conformance.add", BlockOpts{}, in[0], in[1]) }, layouts: pairs("bcast", x79, row19)},
	"zcb_matmul_batch": {expr: func(in []*Array) *Array { return Matmul(in[0], in[1]) }, layouts: pairs("bcast",
		[]any{2, [][]int{{0, 3}, {2, 0, 2}, {5}}},
		[]any{[][]int{{1, 0}, {5}, {2}}, [][]int{{0, 1}, {2, 0, 3}, {0, 2}}})},
	"names_squeeze_pair": {expr: func(in []*Array) *Array { return in[0].Squeeze(0).Add(in[0].Squeeze(1).Mul(2)) },
		layouts: layouts("zero", []any{[][]int{{1, 0}, {1}, {3}}}, []any{[][]int{{0, 1}, {1, 0}, {2, 1}}})},
	"names_expand_pair": {expr: func(in []*Array) *Array { return in[0].ExpandDims(0).Sub(in[0].ExpandDims(1).Mul(3)) },
		layouts: layouts("zero", []any{[][]int{{1, 0}, {3}}}, []any{[][]int{{0, 1}, {1, 0, 2}}})},
	"zc_reshape_flat":    zc(func(in []*Array) *Array { return in[0].Reshape(-1) }),
	"zc_reshape_split":   zc(func(in []*Array) *Array { return in[0].Reshape(7, 3, 3) }),
	"zc_reshape_regroup": zc(func(in []*Array) *Array { return in[0].Reshape(9, 7) }),
	"zc_transpose_sum":   zc(func(in []*Array) *Array { return in[0].T().Mul(2).Sum(1) }),
	"zc_slice_take":      zc(func(in []*Array) *Array { return in[0].Index(Range(1, 6), Ints(8, 0, 2)) }),
	"zc_concat":          zc(func(in []*Array) *Array { return Concatenate([]*Array{in[0], in[0].Index(Step(-1))}, 1) }),
	// 3. values
	"val_dot_0_inf":           pc(func(in []*Array) *Array { return Dot(in[0], in[1]) }),
	"val_dot_0_nan":           pc(func(in []*Array) *Array { return Dot(in[0], in[1]) }),
	"val_dot_2_inf":           pc(func(in []*Array) *Array { return Dot(in[0], in[1]) }),
	"val_matmul_0_inf":        pc(func(in []*Array) *Array { return Matmul(in[0], in[1]) }),
	"val_matmul_inf_first":    pc(func(in []*Array) *Array { return Matmul(in[0].T(), in[1].T()) }),
	"val_tensordot_0_inf":     pc(func(in []*Array) *Array { return Tensordot(in[0], in[1], []int{1}, []int{0}) }),
	"val_dot_c128_0_inf":      pc(func(in []*Array) *Array { return Dot(in[0], in[1]) }),
	"val_matmul_f32_0_inf":    pc(func(in []*Array) *Array { return Matmul(in[0], in[1]) }),
	"val_mean_inf":            pc(red(nd.Mean, nil, ReduceOpts{})),
	"val_mean_inf_neg":        pc(red(nd.Mean, nil, ReduceOpts{})),
	"val_mean_inf_inf":        pc(red(nd.Mean, nil, ReduceOpts{SplitEvery: 2})),
	"val_var_inf":             pc(red(nd.Var, nil, ReduceOpts{})),
	"val_std_inf":             pc(red(nd.Std, nil, ReduceOpts{})),
	"val_mean_minf_0":         pc(red(nd.Mean, []int{0}, ReduceOpts{})),
	"val_mean_minf_1_k":       pc(red(nd.Mean, []int{1}, ReduceOpts{Keepdims: true})),
	"val_var_minf_0":          pc(red(nd.Var, []int{0}, ReduceOpts{})),
	"val_std_minf_1":          pc(red(nd.Std, []int{1}, ReduceOpts{Ddof: 1})),
	"val_mean_f32_inf":        pc(red(nd.Mean, nil, ReduceOpts{})),
	"val_mean_c128_inf":       pc(red(nd.Mean, nil, ReduceOpts{})),
	"val_mean_c128_infim":     pc(red(nd.Mean, nil, ReduceOpts{})),
	"val_mean_fused_inf":      pc(func(in []*Array) *Array { return in[0].Mul(2).Add(1).Mean(0) }),
	"val_cpow_grid":           pc(bin(nd.Pow)),
	"val_cpow_grid_c64":       pc(bin(nd.Pow)),
	"val_cpow_scalar_inf":     pc(func(in []*Array) *Array { return in[0].Pow(math.Inf(1)) }),
	"val_cpow_scalar_neg_inf": pc(func(in []*Array) *Array { return in[0].Pow(math.Inf(-1)) }),
	"val_cpow_scalar_2":       pc(func(in []*Array) *Array { return in[0].Pow(2) }),
	// 4. dtypes of scalar operands
	"sc_u8_floordiv_256":    pc(func(in []*Array) *Array { return in[0].FloorDiv(256) }),
	"sc_u8_mod_256":         pc(func(in []*Array) *Array { return in[0].Mod(256) }),
	"sc_u8_pow_256":         pc(func(in []*Array) *Array { return in[0].Pow(256) }),
	"sc_u8_add_256":         pc(func(in []*Array) *Array { return in[0].Add(256) }),
	"sc_u8_rfloordiv_256":   pc(func(in []*Array) *Array { return FloorDiv(256, in[0].Add(1)) }),
	"sc_u8_mod_40000":       pc(func(in []*Array) *Array { return in[0].Mod(40000) }),
	"sc_u8_pow_2":           pc(func(in []*Array) *Array { return in[0].Pow(2) }),
	"sc_u16_floordiv_65536": pc(func(in []*Array) *Array { return in[0].FloorDiv(65536) }),
	"sc_u16_mod_70000":      pc(func(in []*Array) *Array { return in[0].Mod(70000) }),
	"sc_u16_pow_256":        pc(func(in []*Array) *Array { return in[0].Pow(256) }),
	"sc_u32_floordiv_2e32":  pc(func(in []*Array) *Array { return in[0].FloorDiv(1 << 32) }),
	"sc_u32_mod_2e32":       pc(func(in []*Array) *Array { return in[0].Mod(1<<32 + 3) }),
	"sc_u32_pow_2e32":       pc(func(in []*Array) *Array { return in[0].Pow(1 << 32) }),
	"sc_f32_add_3_4e38":     pc(func(in []*Array) *Array { return in[0].Add(3.4e38) }),
	"sc_f32_mul_neg_3_4e38": pc(func(in []*Array) *Array { return in[0].Mul(-3.4e38) }),
	"sc_f32_add_below":      pc(func(in []*Array) *Array { return in[0].Add(math.Nextafter(3.4e38, 0)) }),
	"sc_f32_add_inf":        pc(func(in []*Array) *Array { return in[0].Add(math.Inf(1)) }),
	"sc_c64_add_3_4e38":     pc(func(in []*Array) *Array { return in[0].Add(complex(3.4e38, 0)) }),
	"sc_c64_mul_inf":        pc(func(in []*Array) *Array { return in[0].Mul(complex(math.Inf(1), 0)) }),
	"sc_f32_add_c_inf":      pc(func(in []*Array) *Array { return in[0].Add(complex(math.Inf(1), 0)) }),
	"d0_u16_sub_i8":         pc(bin(nd.Sub)),
	"d0_i8_sub_u16_both":    pc(bin(nd.Sub)),
	"d0_u8_floordiv_i64":    pc(bin(nd.FloorDiv)),
	"d0_f32_add_f64":        pc(bin(nd.Add)),
	"d0_plus_go_scalar":     pc(func(in []*Array) *Array { return in[0].Add(300) }),
	"d0_chain":              pc(func(in []*Array) *Array { return in[0].Sub(in[1].Mul(2)) }),
	"d0_where":              pc(func(in []*Array) *Array { return Where(in[0], in[1], in[2]) }),
	"d0_sum":                pc(func(in []*Array) *Array { return in[0].Add(in[1]).Sum() }),
	// 5. options
	"opt_compress_long_false": pc(compressWith(0)),
	"opt_compress_long_list": pc(func(in []*Array) *Array {
		return in[0].Compress([]bool{true, false, true, false, false, true, false, false, false, false, false}, 2)
	}),
	"opt_compress_long_true": pc(compressWith(0)),
	"opt_take_flat":          pc(func(in []*Array) *Array { return in[0].TakeFlat([]int{0, 314, -1, 44, 44, 5}) }),
	"opt_take_flat_empty":    pc(func(in []*Array) *Array { return in[0].TakeFlat([]int{}) }),
	"opt_take_flat_out":      pc(func(in []*Array) *Array { return in[0].TakeFlat([]int{315}) }),
	"opt_take_flat_2d":       pc(func(in []*Array) *Array { return in[0].TakeFlat([]int{62, 0, 9, 10, 11, 12}) }),
	"opt_compress_flat": pc(func(in []*Array) *Array {
		m, err := in[1].Compute(context.Background())
		if err != nil {
			return errArray(err)
		}
		return in[0].CompressFlat(m)
	}),
	"opt_compress_flat_long": pc(func(in []*Array) *Array {
		c := make([]bool, 67)
		for i := range 63 {
			c[i] = i%5 == 1
		}
		return in[0].CompressFlat(c)
	}),
	"opt_compress_flat_true_beyond": pc(func(in []*Array) *Array {
		c := make([]bool, 64)
		c[63] = true
		return in[0].CompressFlat(c)
	}),
	"opt_expand_dims_03":         pc(func(in []*Array) *Array { return in[0].ExpandDims(0, 3) }),
	"opt_expand_dims_neg":        pc(func(in []*Array) *Array { return in[0].ExpandDims(-1, 0) }),
	"opt_expand_dims_mid":        pc(func(in []*Array) *Array { return in[0].ExpandDims(1, 2, 5) }),
	"opt_expand_dims_repeat":     pc(func(in []*Array) *Array { return in[0].ExpandDims(0, 0) }),
	"opt_expand_dims_repeat_neg": pc(func(in []*Array) *Array { return in[0].ExpandDims(3, -1) }),
	"opt_expand_dims_out":        pc(func(in []*Array) *Array { return in[0].ExpandDims(0, 4) }),
	"opt_argmax_1_k":             pc(func(in []*Array) *Array { return in[0].ArgReduce(nd.ArgMax, 1, false, ReduceOpts{Keepdims: true}) }),
	"opt_argmin_0_k": pc(func(in []*Array) *Array {
		return in[0].ArgReduce(nd.ArgMin, 0, false, ReduceOpts{Keepdims: true, SplitEvery: 2})
	}),
	"opt_argmin_neg_k":  pc(func(in []*Array) *Array { return in[0].ArgReduce(nd.ArgMin, -1, false, ReduceOpts{Keepdims: true}) }),
	"opt_argmax_flat_k": pc(func(in []*Array) *Array { return in[0].ArgReduce(nd.ArgMax, 0, true, ReduceOpts{Keepdims: true}) }),
	"opt_argmin_flat_k": pc(func(in []*Array) *Array {
		return in[0].ArgReduce(nd.ArgMin, 0, true, ReduceOpts{Keepdims: true, SplitEvery: 3})
	}),
	"opt_argmax_flat_k_zc": zc(func(in []*Array) *Array { return in[0].ArgReduce(nd.ArgMax, 0, true, ReduceOpts{Keepdims: true}) }),
	"dt_sum_f32":           pc(red(nd.Sum, []int{1}, ReduceOpts{DType: nd.Float32})),
	"dt_sum_i8_wrap":       pc(red(nd.Sum, []int{0}, ReduceOpts{DType: nd.Int8})),
	"dt_sum_u8_bool":       pc(red(nd.Sum, []int{1}, ReduceOpts{DType: nd.Bool})),
	"dt_sum_f64_i32":       pc(func(in []*Array) *Array { return in[0].Mul(10).Reduce(nd.Sum, nil, ReduceOpts{DType: nd.Int32}) }),
	"dt_sum_c128_f64":      pc(red(nd.Sum, []int{0}, ReduceOpts{DType: nd.Float64})),
	"dt_sum_i8_f64_k":      pc(red(nd.Sum, []int{1}, ReduceOpts{DType: nd.Float64, Keepdims: true})),
	"dt_prod_i8_i16": pc(func(in []*Array) *Array {
		return in[0].Index(All(), Range(0, 3)).Reduce(nd.Prod, []int{1}, ReduceOpts{DType: nd.Int16})
	}),
	"dt_prod_f32":    pc(red(nd.Prod, []int{2}, ReduceOpts{DType: nd.Float32})),
	"dt_mean_i8_f32": pc(red(nd.Mean, []int{0}, ReduceOpts{DType: nd.Float32})),
	"dt_mean_f64_i64": pc(func(in []*Array) *Array {
		return in[0].Mul(10).Reduce(nd.Mean, []int{0, 2}, ReduceOpts{DType: nd.Int64})
	}),
	"dt_mean_i8_i8_wrap": pc(red(nd.Mean, []int{1}, ReduceOpts{DType: nd.Int8})),
	"dt_mean_u8_bool_k":  pc(red(nd.Mean, []int{0}, ReduceOpts{DType: nd.Bool, Keepdims: true})),
	"dt_mean_f64_c128":   pc(red(nd.Mean, nil, ReduceOpts{DType: nd.Complex128})),
	"dt_var_f32":         pc(red(nd.Var, []int{1}, ReduceOpts{DType: nd.Float32})),
	"dt_var_i8_i64":      pc(red(nd.Var, []int{0}, ReduceOpts{DType: nd.Int64})),
	"dt_var_f64_i8_wrap": pc(func(in []*Array) *Array { return in[0].Mul(10).Reduce(nd.Var, []int{2}, ReduceOpts{DType: nd.Int8}) }),
	"dt_var_c128_f64":    pc(red(nd.Var, []int{1}, ReduceOpts{DType: nd.Float64})),
	"dt_var_f64_c128":    pc(red(nd.Var, []int{0}, ReduceOpts{DType: nd.Complex128, Ddof: 1})),
	"dt_std_f32_ddof":    pc(red(nd.Std, []int{1}, ReduceOpts{DType: nd.Float32, Ddof: 1})),
	"dt_std_i64_all":     pc(func(in []*Array) *Array { return in[0].Mul(10).Reduce(nd.Std, nil, ReduceOpts{DType: nd.Int64}) }),
	"dt_std_i64_axis":    pc(red(nd.Std, []int{0}, ReduceOpts{DType: nd.Int64})),
	"dt_min":             pc(red(nd.Min, nil, ReduceOpts{DType: nd.Float32})),
	"opt_rechunk_map": pc(func(in []*Array) *Array {
		return in[0].Rechunk(map[int]any{0: -1, 1: 2, -1: "auto"}).Rechunk(map[int]int{1: 4})
	}),
	"opt_rechunk_list_auto": pc(func(in []*Array) *Array {
		return in[0].Rechunk([]any{"auto", []int{1, 0, 8}, nil}).Rechunk([]any{3, "auto", "auto"})
	}),
	"opt_rechunk_map_sum": pc(func(in []*Array) *Array { return in[0].Rechunk(map[int]any{1: 1, 2: nil}).Sum(1) }),
	"zcb_col_max":         {expr: func(in []*Array) *Array { return in[0].Mul(in[1]).Max(1) }, layouts: pairs("bcast", col71, x79)},
}

// zeroChunks7x9 are layouts of a 7×9 input with empty chunks at the
// start, in the middle and at the end of each axis, and one where a whole
// row of blocks is empty.
var zeroChunks7x9 = []confLayout{
	{name: "zero-a", specs: []any{[][]int{{0, 3, 0, 4, 0}, {2, 0, 7}}}, every: true},
	{name: "zero-b", specs: []any{[][]int{{7, 0}, {0, 9}}}, every: true},
	{name: "zero-c", specs: []any{[][]int{{1, 0, 0, 1, 0, 5}, {0, 1, 1, 0, 3, 0, 4}}}, every: true},
	{name: "zero-d", specs: []any{[][]int{{0, 7}, {4, 0, 0, 0, 5}}}, every: true},
}

// zc is a case over the zero-chunk layouts of its 7×9 input.
func zc(expr confExpr) parityCase { return parityCase{expr: expr, layouts: zeroChunks7x9} }

func init() {
	for _, op := range []nd.ReduceOp{nd.Min, nd.Max} {
		n := op.String()
		parityExprs["zc_"+n+"_all"] = zc(red(op, nil, ReduceOpts{}))
		parityExprs["zc_"+n+"_0"] = zc(red(op, []int{0}, ReduceOpts{SplitEvery: 2}))
		parityExprs["zc_"+n+"_1_k"] = zc(red(op, []int{1}, ReduceOpts{Keepdims: true}))
		parityExprs["zc_"+n+"_i64_0"] = zc(red(op, []int{0}, ReduceOpts{}))
		parityExprs["zc_"+n+"_fused"] = zc(func(in []*Array) *Array {
			return in[0].Sin().Mul(2).Reduce(op, []int{0}, ReduceOpts{})
		})
	}
	for _, op := range []nd.ArgOp{nd.ArgMin, nd.ArgMax} {
		n := op.String()
		parityExprs["zc_"+n+"_0"] = zc(func(in []*Array) *Array { return in[0].argReduce(op, 0, false) })
		parityExprs["zc_"+n+"_1"] = zc(func(in []*Array) *Array { return in[0].argReduce(op, 1, false) })
		parityExprs["zc_"+n+"_flat"] = zc(func(in []*Array) *Array { return in[0].argReduce(op, 0, true) })
	}
}

// layouts names one layout per list of input chunk specs, each run on
// every run.
func layouts(prefix string, specs ...[]any) []confLayout {
	out := make([]confLayout, len(specs))
	for i, s := range specs {
		out[i] = confLayout{name: fmt.Sprintf("%s-%d", prefix, i), specs: s, every: true}
	}
	return out
}

// Chunkings of a 7×9 operand (some with empty chunks), and of (1, 9),
// (7, 1) and (1, 1) operands whose size-1 axes have an empty chunk
// before or after their element.
var (
	x79   = []any{2, [][]int{{0, 3, 0, 4, 0}, {2, 0, 7}}, [][]int{{7, 0}, {0, 9}}}
	row19 = []any{[][]int{{1, 0}, {9}}, [][]int{{0, 1}, {4, 0, 5}}, [][]int{{1, 0, 0}, {0, 9, 0}}}
	col71 = []any{[][]int{{7}, {1, 0}}, [][]int{{3, 0, 4}, {0, 1}}, [][]int{{0, 7}, {0, 1, 0}}}
	one11 = []any{[][]int{{1, 0}, {0, 1}}, [][]int{{0, 1}, {1, 0}}}
)

// pairs returns the layouts of two or three inputs taking the i-th spec
// of each list (cycling through the shorter ones).
func pairs(prefix string, lists ...[]any) []confLayout {
	n := 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	specs := make([][]any, n)
	for i := range specs {
		for _, l := range lists {
			specs[i] = append(specs[i], l[i%len(l)])
		}
	}
	return layouts(prefix, specs...)
}

// compressWith compresses in[0] along axis with the computed mask in[1].
func compressWith(axis int) confExpr {
	return func(in []*Array) *Array {
		m, err := in[1].Compute(context.Background())
		if err != nil {
			return errArray(err)
		}
		return in[0].Compress(m, axis)
	}
}

var m9 = []bool{true, false, true, false, false, false, false, false, false}

func TestParity(t *testing.T) { runParity(t, parityDir, parityExprs) }

// runParity runs every case of the goldens in dir (written by one of the
// gen_parity*.py scripts) with its expression in exprs, over the case's
// own layouts or the conformance chunkings of its inputs, and compares
// with numpy's result.
func runParity(t *testing.T, dir string, exprs map[string]parityCase) {
	inputs := map[string]*nd.Array{}
	for _, c := range loadCases(t, dir) {
		t.Run(c.Name, func(t *testing.T) {
			pcase, ok := exprs[c.Name]
			if !ok {
				t.Fatalf("no chunkarray expression for case %q", c.Name)
			}
			var in []*nd.Array
			for _, name := range c.Inputs {
				a, ok := inputs[name]
				if !ok {
					var err error
					if a, err = npy.ReadFile(filepath.Join(dir, "in_"+name+".npy")); err != nil {
						t.Fatal(err)
					}
					inputs[name] = a
				}
				in = append(in, a)
			}
			var want *nd.Array
			if c.Error == "" {
				var err error
				if want, err = npy.ReadFile(filepath.Join(dir, c.Name+".npy")); err != nil {
					t.Fatal(err)
				}
			}
			layouts := pcase.layouts
			if layouts == nil {
				layouts = confLayouts(in)
			} else if len(in) > 1 && len(layouts) > 0 && len(layouts[0].specs) < len(in) {
				t.Fatalf("case %q: layouts for %d inputs, the case has %d", c.Name, len(layouts[0].specs), len(in))
			}
			if failure := runLayouts(c, pcase.expr, in, want, layouts); failure != "" {
				t.Error(failure)
			}
		})
	}
}

// checkExprsHaveCases keeps an expression table and the manifest of the
// goldens in dir in step, both ways.
func checkExprsHaveCases[V any](t *testing.T, dir string, exprs map[string]V) {
	names := map[string]bool{}
	for _, c := range loadCases(t, dir) {
		names[c.Name] = true
		if _, ok := exprs[c.Name]; !ok {
			t.Errorf("case %q of %s has no expression", c.Name, dir)
		}
	}
	for name := range exprs {
		if !names[name] {
			t.Errorf("expression %q has no case in %s/cases.json", name, dir)
		}
	}
}

// confCases wraps a table of plain expressions (conformance chunkings).
func confCases(m map[string]confExpr) map[string]parityCase {
	out := make(map[string]parityCase, len(m))
	for k, e := range m {
		out[k] = pc(e)
	}
	return out
}

// TestParityGoldensCurrent checks that testdata/parity is what
// gen_parity.py writes now (see TestConformanceGoldensCurrent).
func TestParityGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity.py", parityDir)
}

// TestParityExprsHaveCases keeps the expression table and the manifest in
// step.
func TestParityExprsHaveCases(t *testing.T) { checkExprsHaveCases(t, parityDir, parityExprs) }
