package chunkarray

// The numpy-parity table of sorting, counting and unknown chunk sizes
// (issue 13): every case of testdata/parity_sortu/cases.json (written by
// testdata/gen_parity_sortu.py with numpy 1.24) is evaluated with the
// chunkarray expression in paritySortuExprs over the conformance
// chunkings, on Sync and Threaded(2), fused and unfused, persisted and
// through JSON (runLayouts), and compared with numpy's result by
// compareGolden. Results of Unknown length (Unique, Bincount, Nonzero,
// Mask) are compared like any other: Compute learns their shape.

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

const paritySortuDir = "testdata/parity_sortu"

// whole returns x with axis in one chunk (Sort's requirement).
func whole(x *Array, axis int) *Array { return x.Rechunk(map[int]any{axis: -1}) }

func ndf(v ...float64) *nd.Array {
	a, err := nd.FromSlice(v, len(v))
	if err != nil {
		panic(err)
	}
	return a
}

// h1 is Histogram's counts (edges false) or edges.
func h1(edges bool, o func(in []*Array) HistOpts) confExpr {
	return func(in []*Array) *Array {
		h, e := Histogram(in[0], o(in))
		if edges {
			return e
		}
		return h
	}
}

var (
	e1    = []float64{-3, -1, 0, 0.5, 2, 3}
	r2d   = [][]float64{{-2, 2}, {-3, 3}}
	dbins = ndf(-1, 0, 0.5, 2)
)

func uniq(o UniqueOpts, part int) confExpr {
	return func(in []*Array) *Array {
		r := in[0].Unique(o)
		return []*Array{r.Values, r.Index, r.Inverse, r.Counts}[part]
	}
}

var paritySortuExprs = map[string]confExpr{
	// sort, argsort
	"sort_f64_1":     func(in []*Array) *Array { return whole(in[0], 1).Sort(1) },
	"sort_f64_0":     func(in []*Array) *Array { return whole(in[0], 0).Sort(0) },
	"sort_i64_neg":   func(in []*Array) *Array { return whole(in[0], 1).Sort(-1) },
	"sort_f32_0":     func(in []*Array) *Array { return whole(in[0], 0).Sort(0) },
	"sort_c128":      func(in []*Array) *Array { return whole(in[0], 0).Sort(0) },
	"sort_u8":        func(in []*Array) *Array { return whole(in[0], 0).Sort(-1) },
	"sort_e03_0":     func(in []*Array) *Array { return whole(in[0], 0).Sort(0) },
	"sort_0d":        func(in []*Array) *Array { return in[0].Sort(-1) },
	"sort_axis_out":  func(in []*Array) *Array { return in[0].Sort(2) },
	"argsort_f64_1":  func(in []*Array) *Array { return whole(in[0], 1).ArgSort(1) },
	"argsort_i64_0":  func(in []*Array) *Array { return whole(in[0], 0).ArgSort(0) },
	"argsort_c128":   func(in []*Array) *Array { return whole(in[0], 0).ArgSort(0) },
	"argsort_u8":     func(in []*Array) *Array { return whole(in[0], 0).ArgSort(-1) },
	"argsort_bool_1": func(in []*Array) *Array { return whole(in[0], 1).ArgSort(1) },
	// unique
	"unique_bool":      uniq(UniqueOpts{}, 0),
	"unique_e0":        uniq(UniqueOpts{}, 0),
	"unique_u8_counts": uniq(UniqueOpts{Counts: true}, 3),
	"unique_mask":      func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Unique(UniqueOpts{}).Values },
	// bincount
	"bincount":                 func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_weights":         func(in []*Array) *Array { return Bincount(in[0], in[1], 0) },
	"bincount_int_weights":     func(in []*Array) *Array { return Bincount(in[0], in[1], 0) },
	"bincount_minlength":       func(in []*Array) *Array { return Bincount(in[0], nil, 15) },
	"bincount_minlength_short": func(in []*Array) *Array { return Bincount(in[0], nil, 3) },
	"bincount_u8":              func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_bool":            func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_empty":           func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_empty_min":       func(in []*Array) *Array { return Bincount(in[0], nil, 4) },
	"bincount_neg":             func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_float":           func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_2d":              func(in []*Array) *Array { return Bincount(in[0], nil, 0) },
	"bincount_neg_minlength":   func(in []*Array) *Array { return Bincount(in[0], nil, -1) },
	// histogram
	"hist_range":       h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 5, Range: []float64{-2, 3}} }),
	"hist_range_edges": h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 5, Range: []float64{-2, 3}} }),
	"hist_edges":       h1(false, func([]*Array) HistOpts { return HistOpts{Edges: e1} }),
	"hist_edges_dup":   h1(false, func([]*Array) HistOpts { return HistOpts{Edges: []float64{-11, -5, -5, 0, 11}} }),
	"hist_f32":         h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 7, Range: []float64{-3.3, 3.1}} }),
	"hist_f32_edges":   h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 7, Range: []float64{-3.3, 3.1}} }),
	"hist_i64":         h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 6, Range: []float64{-11, 11}} }),
	"hist_i64_edges":   h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 6, Range: []float64{-11, 11}} }),
	"hist_weights": h1(false, func(in []*Array) HistOpts {
		return HistOpts{Bins: 4, Range: []float64{-3, 3}, Weights: in[1]}
	}),
	"hist_int_weights": h1(false, func(in []*Array) HistOpts { return HistOpts{Edges: e1, Weights: in[1]} }),
	"hist_density": h1(false, func([]*Array) HistOpts {
		return HistOpts{Bins: 5, Range: []float64{-2, 3}, Density: true}
	}),
	"hist_density_edges": h1(false, func(in []*Array) HistOpts { return HistOpts{Edges: e1, Weights: in[1], Density: true} }),
	"hist_density_f32": h1(false, func([]*Array) HistOpts {
		return HistOpts{Bins: 4, Range: []float64{-4, 4}, Density: true}
	}),
	"hist_lo_eq_hi":         h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 3, Range: []float64{1, 1}} }),
	"hist_lo_eq_hi_edges":   h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 3, Range: []float64{1, 1}} }),
	"hist_empty":            h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 3, Range: []float64{0, 1}} }),
	"hist_auto":             h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 6} }),
	"hist_auto_edges":       h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 6} }),
	"hist_auto_f32":         h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 5} }),
	"hist_auto_f32_edges":   h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 5} }),
	"hist_auto_i64":         h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 7} }),
	"hist_auto_i64_edges":   h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 7} }),
	"hist_auto_const":       h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 4} }),
	"hist_auto_const_edges": h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 4} }),
	"hist_auto_empty_edges": h1(true, func([]*Array) HistOpts { return HistOpts{Bins: 2} }),
	"hist_auto_density": h1(false, func(in []*Array) HistOpts {
		return HistOpts{Bins: 3, Weights: in[0].Abs(), Density: true}
	}),
	"hist_auto_mask": func(in []*Array) *Array {
		h, _ := Histogram(in[0].Index(Mask(in[1])), HistOpts{Bins: 5})
		return h
	},
	"hist_auto_nan":  h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 3} }),
	"hist_bad_range": h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 3, Range: []float64{2, 1}} }),
	"hist_inf_range": h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 3, Range: []float64{0, math.Inf(1)}} }),
	"hist_zero_bins": h1(false, func([]*Array) HistOpts { return HistOpts{Bins: 0, Range: []float64{0, 1}} }),
	"hist_nonmono":   h1(false, func([]*Array) HistOpts { return HistOpts{Edges: []float64{0, 2, 1}} }),
	"hist_weights_shape": h1(false, func(in []*Array) HistOpts {
		return HistOpts{Bins: 2, Range: []float64{0, 1}, Weights: in[1]}
	}),
	// histogram2d, histogramdd
	"hist2d": func(in []*Array) *Array {
		h, _, _ := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{3, 4}, Ranges: r2d})
		return h
	},
	"hist2d_xedges": func(in []*Array) *Array {
		_, x, _ := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{3, 4}, Ranges: r2d})
		return x
	},
	"hist2d_yedges": func(in []*Array) *Array {
		_, _, y := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{3, 4}, Ranges: r2d})
		return y
	},
	"hist2d_edges_w_density": func(in []*Array) *Array {
		h, _, _ := Histogram2D(in[0], in[1], HistDDOpts{Edges: [][]float64{{-2, -0.5, 0, 2}, {-3, 0, 1, 3}}, Weights: in[2], Density: true})
		return h
	},
	"histdd3": func(in []*Array) *Array {
		h, _ := HistogramDD(in, HistDDOpts{Bins: []int{2, 3, 4}, Ranges: [][]float64{{-2, 2}, {-3, 3}, {-1, 4}}})
		return h
	},
	"histdd3_w": func(in []*Array) *Array {
		h, _ := HistogramDD(in[:3], HistDDOpts{Bins: []int{2, 3, 4}, Ranges: [][]float64{{-1, 1}, {-3, 3}, {-1, 4}}, Weights: in[3]})
		return h
	},
	"hist2d_auto": func(in []*Array) *Array {
		h, _, _ := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{3, 4}})
		return h
	},
	"hist2d_auto_xedges": func(in []*Array) *Array {
		_, x, _ := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{3, 4}})
		return x
	},
	"hist2d_auto_density": func(in []*Array) *Array {
		h, _, _ := Histogram2D(in[0], in[1], HistDDOpts{Bins: []int{5, 5}, Weights: in[2], Density: true})
		return h
	},
	"histdd_auto_mixed": func(in []*Array) *Array {
		h, _ := HistogramDD(in, HistDDOpts{Bins: []int{2, 0, 3}, Edges: [][]float64{nil, {-3, 0, 3}, nil}, Ranges: [][]float64{nil, nil, {0, 4}}})
		return h
	},
	"histdd_auto_f32": func(in []*Array) *Array {
		h, _ := HistogramDD(in, HistDDOpts{Bins: []int{4, 2}})
		return h
	},
	"histdd_auto_f32_edges": func(in []*Array) *Array {
		_, e := HistogramDD(in, HistDDOpts{Bins: []int{4, 2}})
		if len(e) == 0 {
			return errArray(errors.New("no edges"))
		}
		return e[0]
	},
	"histdd_auto_nan": func(in []*Array) *Array {
		h, _ := HistogramDD([]*Array{in[0].Reshape(-1)}, HistDDOpts{Bins: []int{2}})
		return h
	},
	"histdd_nonmono": func(in []*Array) *Array {
		h, _ := HistogramDD(in, HistDDOpts{Edges: [][]float64{{0, 1, 0.5}}})
		return h
	},
	// digitize
	"digitize_inc":       func(in []*Array) *Array { return Digitize(in[0], dbins, false) },
	"digitize_inc_right": func(in []*Array) *Array { return Digitize(in[0], dbins, true) },
	"digitize_dec":       func(in []*Array) *Array { return Digitize(in[0], ndf(2, 0.5, 0, -1), false) },
	"digitize_dec_right": func(in []*Array) *Array { return Digitize(in[0], ndf(2, 0.5, 0, -1), true) },
	"digitize_int_x":     func(in []*Array) *Array { return Digitize(in[0], ndf(-5.5, 0, 3, 3, 7), false) },
	"digitize_nonmono":   func(in []*Array) *Array { return Digitize(in[0], ndf(0, 2, 1), false) },
	"digitize_complex":   func(in []*Array) *Array { return Digitize(in[0], ndf(0, 1), false) },
	// searchsorted
	"searchsorted_left":  func(in []*Array) *Array { return SearchSorted(in[0], in[1], false) },
	"searchsorted_right": func(in []*Array) *Array { return SearchSorted(in[0], in[1], true) },
	"searchsorted_int":   func(in []*Array) *Array { return SearchSorted(in[0], in[1], true) },
	"searchsorted_mixed": func(in []*Array) *Array { return SearchSorted(in[0], in[1], false) },
	// isin
	"isin_f64":     func(in []*Array) *Array { return IsIn(in[0], in[1], false) },
	"isin_invert":  func(in []*Array) *Array { return IsIn(in[0], in[1], true) },
	"isin_i64_f64": func(in []*Array) *Array { return IsIn(in[0], in[1], false) },
	"isin_i64_2d":  func(in []*Array) *Array { return IsIn(in[0], in[1], false) },
	"isin_c128":    func(in []*Array) *Array { return IsIn(in[0], in[1], false) },
	// nonzero, argwhere, flatnonzero, where(cond)
	"flatnonzero_f64": func(in []*Array) *Array { return Flatnonzero(in[0]) },
	"flatnonzero_1d":  func(in []*Array) *Array { return Flatnonzero(in[0]) },
	"argwhere_i64":    func(in []*Array) *Array { return Argwhere(in[0]) },
	"argwhere_3d":     func(in []*Array) *Array { return Argwhere(in[0].Greater(1)) },
	"argwhere_empty":  func(in []*Array) *Array { return Argwhere(in[0]) },
	"nonzero_0":       func(in []*Array) *Array { return Nonzero(in[0])[0] },
	"nonzero_1":       func(in []*Array) *Array { return Nonzero(in[0])[1] },
	"where1_1":        func(in []*Array) *Array { return WhereIndices(in[0].Less(0))[1] },
	"where1_2":        func(in []*Array) *Array { return WhereIndices(in[0].Less(0))[2] },
	// boolean indexing by a lazy mask, and what follows on unknown sizes
	"mask_same":  func(in []*Array) *Array { return in[0].Index(Mask(in[1])) },
	"mask_self":  func(in []*Array) *Array { return in[0].Index(Mask(in[0].Greater(0.5))) },
	"mask_rows":  func(in []*Array) *Array { return in[0].Index(Mask(in[1])) },
	"mask_lead2": func(in []*Array) *Array { return in[0].Index(Mask(in[1])) },
	"mask_ops": func(in []*Array) *Array {
		return in[0].Index(Mask(in[2])).Mul(2).Add(in[1].Index(Mask(in[2])).Abs().Sqrt())
	},
	"mask_sum":       func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Sum() },
	"mask_mean":      func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Mean() },
	"mask_max":       func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Max() },
	"mask_var":       func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Var() },
	"mask_rows_sum0": func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Sum(0) },
	"mask_rows_min1": func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Min(1) },
	"mask_rows_T":    func(in []*Array) *Array { return in[0].Index(Mask(in[1])).T().Mul(3) },
	"mask_rows_col":  func(in []*Array) *Array { return in[0].Index(Mask(in[1])).Index(All(), At(2)) },
	"mask_rows_bcast": func(in []*Array) *Array {
		s := in[0].Index(Mask(in[1]))
		return s.Sub(s.Index(All(), Range(0, 1)))
	},
	"mask_concat": func(in []*Array) *Array {
		m := in[0].Index(Mask(in[1]))
		return Concatenate([]*Array{m, in[0].Index(Mask(in[1].LogicalNot())), m}, 0)
	},
	"mask_none_max": func(in []*Array) *Array { return in[0].Index(Mask(in[0].Greater(100))).Max() },
	"mask_none_sum": func(in []*Array) *Array { return in[0].Index(Mask(in[0].Greater(100))).Sum() },
	"mask_reshape": func(in []*Array) *Array {
		k, err := in[0].Index(Mask(in[1])).ComputeChunkSizes(context.Background())
		if err != nil {
			return errArray(err)
		}
		return k.Reshape(-1, 1)
	},
	"mask_unique_sort": func(in []*Array) *Array {
		k, err := in[0].Index(Mask(in[1])).ComputeChunkSizes(context.Background())
		if err != nil {
			return errArray(err)
		}
		return whole(k, 0).Sort(0)
	},
	"mask_bad_shape": func(in []*Array) *Array { return in[0].Index(Mask(in[1])) },
	// the counting functions on a masked (unknown-length) input
	"unique_mask_counts": func(in []*Array) *Array {
		return in[0].Index(Mask(in[1])).Unique(UniqueOpts{Counts: true}).Counts
	},
	"hist_mask": func(in []*Array) *Array {
		h, _ := Histogram(in[0].Index(Mask(in[1])), HistOpts{Bins: 4, Range: []float64{-3, 3}})
		return h
	},
	"hist_mask_weights": func(in []*Array) *Array {
		h, _ := Histogram(in[0].Index(Mask(in[2])), HistOpts{Edges: e1, Weights: in[1].Index(Mask(in[2]))})
		return h
	},
	"bincount_mask": func(in []*Array) *Array { return Bincount(in[0].Index(Mask(in[0].Greater(3))), nil, 0) },
	"bincount_mask_weights": func(in []*Array) *Array {
		// Masking both the same way gives the same unknown chunks when
		// they start from the same chunks (else: unknownError, as Dask).
		m := in[0].Greater(3)
		return Bincount(in[0].Index(Mask(m)), in[1].Rechunk(in[0].Chunks()).Index(Mask(m)), 0)
	},
	"digitize_mask":     func(in []*Array) *Array { return Digitize(in[0].Index(Mask(in[1])), dbins, false) },
	"searchsorted_mask": func(in []*Array) *Array { return SearchSorted(in[0], in[1].Index(Mask(in[2])), false) },
	"isin_mask":         func(in []*Array) *Array { return IsIn(in[0].Index(Mask(in[1])), in[2], false) },
}

func init() {
	for _, nm := range []string{"f64", "i64", "c128"} {
		paritySortuExprs["unique_"+nm] = uniq(UniqueOpts{}, 0)
		paritySortuExprs["unique_"+nm+"_index"] = uniq(UniqueOpts{Index: true}, 1)
		paritySortuExprs["unique_"+nm+"_inverse"] = uniq(UniqueOpts{Inverse: true}, 2)
		paritySortuExprs["unique_"+nm+"_counts"] = uniq(UniqueOpts{Counts: true}, 3)
	}
}

func TestParitySortu(t *testing.T) { runParity(t, paritySortuDir, confCases(paritySortuExprs)) }

// TestParitySortuGoldensCurrent checks that testdata/parity_sortu is
// what gen_parity_sortu.py writes now.
func TestParitySortuGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_sortu.py", paritySortuDir)
}

func TestParitySortuExprsHaveCases(t *testing.T) {
	checkExprsHaveCases(t, paritySortuDir, paritySortuExprs)
}
