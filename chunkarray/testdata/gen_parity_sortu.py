#!/usr/bin/python3
"""Writes chunkarray's numpy-parity goldens for sorting, counting and
unknown chunk sizes with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_sortu.py

The format of gen_parity.py: every case is a name, the names of its inputs
and a numpy expression; inputs are saved once each as
parity_sortu/in_<input>.npy, each result as parity_sortu/<case>.npy, and
parity_sortu/cases.json lists the cases in order with their inputs, or
"error" where numpy raises (the Go side must fail too, with a typed error).
parity_sortu_test.go evaluates the same expression with the chunkarray API
over the conformance chunkings (Sync and Threaded(2), fused and unfused,
persisted, through JSON) and compares with compareGolden. A function with
several results (unique's values, index, inverse and counts; histogram's
counts and edges) has one case per result. Sorting is numpy's
kind="stable" (chunkarray's Sort and ArgSort are stable).
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_sortu")

warnings.simplefilter("ignore")

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")


cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


t = np.arange(63)
# float64 7x9: ties, zeros, negatives, NaN and infinities
F = np.round(3 * np.sin(t * 0.7), 1).reshape(7, 9)
F[0, 0] = nan
F[2, 3] = inf
F[4, 4] = -inf
F[5, 1] = nan
F[6, 8] = 0.0
inp("f64", F)
inp("i64", ((t * 37) % 23 - 11).reshape(7, 9).astype(np.int64))  # ties, negatives
inp("f32", (np.cos(np.arange(20) * 1.1) * 4).astype(np.float32).reshape(4, 5))
inp("u8", ((np.arange(17) * 53) % 256).astype(np.uint8))
C = np.array([2 + 1j, 1 - 1j, complex(nan, 1), 1, complex(1, nan), complex(nan, 0), 2 + 1j, -3j, 1, 0, complex(1, nan), 5 - 2j])
inp("c128", C)
inp("bool79", ((t * 7) % 5 < 2).reshape(7, 9))
inp("e0", np.zeros(0))
inp("e03", np.zeros((0, 3)))
inp("d0", np.array(2.5))
inp("x3", (np.arange(60) % 7 - 3).astype(np.float64).reshape(3, 4, 5))
inp("m34", (np.arange(12) % 3 == 1).reshape(3, 4))
inp("m7", np.array([True, False, True, True, False, False, True]))
inp("f64b", np.linspace(-4, 4, 63).reshape(7, 9))

# ------------------------------------------------------------ sort, argsort
case("sort_f64_1", ["f64"], lambda x: np.sort(x, axis=1, kind="stable"))
case("sort_f64_0", ["f64"], lambda x: np.sort(x, axis=0, kind="stable"))
case("sort_i64_neg", ["i64"], lambda x: np.sort(x, axis=-1, kind="stable"))
case("sort_f32_0", ["f32"], lambda x: np.sort(x, axis=0, kind="stable"))
case("sort_c128", ["c128"], lambda x: np.sort(x, kind="stable"))
case("sort_u8", ["u8"], lambda x: np.sort(x, kind="stable"))
case("sort_e03_0", ["e03"], lambda x: np.sort(x, axis=0, kind="stable"))
case("sort_0d", ["d0"], lambda x: np.sort(x, kind="stable"))  # AxisError
case("sort_axis_out", ["f64"], lambda x: np.sort(x, axis=2, kind="stable"))  # AxisError
case("argsort_f64_1", ["f64"], lambda x: np.argsort(x, axis=1, kind="stable"))
case("argsort_i64_0", ["i64"], lambda x: np.argsort(x, axis=0, kind="stable"))
case("argsort_c128", ["c128"], lambda x: np.argsort(x, kind="stable"))
case("argsort_u8", ["u8"], lambda x: np.argsort(x, kind="stable"))
case("argsort_bool_1", ["bool79"], lambda x: np.argsort(x, axis=1, kind="stable"))

# ------------------------------------------------------------------ unique
for nm in ["f64", "i64", "c128"]:
    case(f"unique_{nm}", [nm], lambda x: np.unique(x))
    case(f"unique_{nm}_index", [nm], lambda x: np.unique(x, return_index=True)[1])
    case(f"unique_{nm}_inverse", [nm], lambda x: np.unique(x, return_inverse=True)[1])
    case(f"unique_{nm}_counts", [nm], lambda x: np.unique(x, return_counts=True)[1])
case("unique_bool", ["bool79"], lambda x: np.unique(x))
case("unique_e0", ["e0"], lambda x: np.unique(x))
case("unique_u8_counts", ["u8"], lambda x: np.unique(x, return_counts=True)[1])
case("unique_mask", ["f64", "bool79"], lambda x, m: np.unique(x[m]))

# ---------------------------------------------------------------- bincount
inp("nn20", (np.arange(20) * 7) % 11)
inp("w20", np.linspace(-1, 3, 20))
inp("i32w20", (np.arange(20) % 4).astype(np.int32))
inp("neg5", np.array([1, 2, -1, 0, 3]))
inp("ei64", np.zeros(0, dtype=np.int64))
case("bincount", ["nn20"], lambda x: np.bincount(x))
case("bincount_weights", ["nn20", "w20"], lambda x, w: np.bincount(x, weights=w))
case("bincount_int_weights", ["nn20", "i32w20"], lambda x, w: np.bincount(x, weights=w))
case("bincount_minlength", ["nn20"], lambda x: np.bincount(x, minlength=15))
case("bincount_minlength_short", ["nn20"], lambda x: np.bincount(x, minlength=3))
case("bincount_u8", ["u8"], lambda x: np.bincount(x))
case("bincount_bool", ["m7"], lambda x: np.bincount(x))
case("bincount_empty", ["ei64"], lambda x: np.bincount(x))
case("bincount_empty_min", ["ei64"], lambda x: np.bincount(x, minlength=4))
case("bincount_neg", ["neg5"], lambda x: np.bincount(x))  # ValueError
case("bincount_float", ["w20"], lambda x: np.bincount(x))  # TypeError
case("bincount_2d", ["i64"], lambda x: np.bincount(x))  # ValueError: too deep
case("bincount_neg_minlength", ["nn20"], lambda x: np.bincount(x, minlength=-1))  # ValueError

# --------------------------------------------------------------- histogram
E1 = [-3, -1, 0, 0.5, 2, 3]
case("hist_range", ["f64"], lambda x: np.histogram(x, bins=5, range=(-2, 3))[0])
case("hist_range_edges", ["f64"], lambda x: np.histogram(x, bins=5, range=(-2, 3))[1])
case("hist_edges", ["f64"], lambda x: np.histogram(x, bins=E1)[0])
case("hist_edges_dup", ["i64"], lambda x: np.histogram(x, bins=[-11, -5, -5, 0, 11])[0])
case("hist_f32", ["f32"], lambda x: np.histogram(x, bins=7, range=(-3.3, 3.1))[0])
case("hist_f32_edges", ["f32"], lambda x: np.histogram(x, bins=7, range=(-3.3, 3.1))[1])
case("hist_i64", ["i64"], lambda x: np.histogram(x, bins=6, range=(-11, 11))[0])
case("hist_i64_edges", ["i64"], lambda x: np.histogram(x, bins=6, range=(-11, 11))[1])
case("hist_weights", ["f64", "f64b"], lambda x, w: np.histogram(x, bins=4, range=(-3, 3), weights=w)[0])
case("hist_int_weights", ["f64", "i64"], lambda x, w: np.histogram(x, bins=E1, weights=w)[0])
case("hist_density", ["f64"], lambda x: np.histogram(x, bins=5, range=(-2, 3), density=True)[0])
case("hist_density_edges", ["f64", "f64b"], lambda x, w: np.histogram(x, bins=E1, weights=w, density=True)[0])
case("hist_density_f32", ["f32"], lambda x: np.histogram(x, bins=4, range=(-4, 4), density=True)[0])
case("hist_lo_eq_hi", ["i64"], lambda x: np.histogram(x, bins=3, range=(1, 1))[0])
case("hist_lo_eq_hi_edges", ["i64"], lambda x: np.histogram(x, bins=3, range=(1, 1))[1])
case("hist_empty", ["e0"], lambda x: np.histogram(x, bins=3, range=(0, 1))[0])
# no range: numpy finds it in the data (min, max)
inp("const5", np.full(5, 2.5, dtype=np.float32))
case("hist_auto", ["f64b"], lambda x: np.histogram(x, bins=6)[0])
case("hist_auto_edges", ["f64b"], lambda x: np.histogram(x, bins=6)[1])
case("hist_auto_f32", ["f32"], lambda x: np.histogram(x, bins=5)[0])
case("hist_auto_f32_edges", ["f32"], lambda x: np.histogram(x, bins=5)[1])
case("hist_auto_i64", ["i64"], lambda x: np.histogram(x, bins=7)[0])
case("hist_auto_i64_edges", ["i64"], lambda x: np.histogram(x, bins=7)[1])
case("hist_auto_const", ["const5"], lambda x: np.histogram(x, bins=4)[0])
case("hist_auto_const_edges", ["const5"], lambda x: np.histogram(x, bins=4)[1])
case("hist_auto_empty_edges", ["e0"], lambda x: np.histogram(x, bins=2)[1])
case("hist_auto_density", ["f64b"], lambda x: np.histogram(x, bins=3, weights=np.abs(x), density=True)[0])
case("hist_auto_mask", ["f64b", "bool79"], lambda x, m: np.histogram(x[m], bins=5)[0])
case("hist_auto_nan", ["f64"], lambda x: np.histogram(x, bins=3))  # ValueError: range not finite
case("hist_bad_range", ["f64"], lambda x: np.histogram(x, bins=3, range=(2, 1)))  # ValueError
case("hist_inf_range", ["f64"], lambda x: np.histogram(x, bins=3, range=(0, inf)))  # ValueError
case("hist_zero_bins", ["f64"], lambda x: np.histogram(x, bins=0, range=(0, 1)))  # ValueError
case("hist_nonmono", ["f64"], lambda x: np.histogram(x, bins=[0, 2, 1]))  # ValueError
case("hist_weights_shape", ["f64", "w20"], lambda x, w: np.histogram(x, bins=2, range=(0, 1), weights=w))  # ValueError

# ----------------------------------------------------- histogram2d and dd
inp("px", np.round(np.sin(np.arange(40) * 0.9) * 2, 1))
inp("py", np.round(np.cos(np.arange(40) * 1.7) * 3, 1))
inp("pz", np.arange(40) % 5 - 0.5)
inp("pw", np.linspace(0.5, 2, 40))
case("hist2d", ["px", "py"], lambda x, y: np.histogram2d(x, y, bins=(3, 4), range=[[-2, 2], [-3, 3]])[0])
case("hist2d_xedges", ["px", "py"], lambda x, y: np.histogram2d(x, y, bins=(3, 4), range=[[-2, 2], [-3, 3]])[1])
case("hist2d_yedges", ["px", "py"], lambda x, y: np.histogram2d(x, y, bins=(3, 4), range=[[-2, 2], [-3, 3]])[2])
case("hist2d_edges_w_density", ["px", "py", "pw"],
     lambda x, y, w: np.histogram2d(x, y, bins=[[-2, -0.5, 0, 2], [-3, 0, 1, 3]], weights=w, density=True)[0])
case("histdd3", ["px", "py", "pz"], lambda x, y, z: np.histogramdd([x, y, z], bins=(2, 3, 4), range=[(-2, 2), (-3, 3), (-1, 4)])[0])
case("histdd3_w", ["px", "py", "pz", "pw"],
     lambda x, y, z, w: np.histogramdd([x, y, z], bins=(2, 3, 4), range=[(-1, 1), (-3, 3), (-1, 4)], weights=w)[0])
# no range: found per coordinate in the data
inp("pf32", (np.arange(40) % 6 * 0.7).astype(np.float32))
case("hist2d_auto", ["px", "py"], lambda x, y: np.histogram2d(x, y, bins=(3, 4))[0])
case("hist2d_auto_xedges", ["px", "py"], lambda x, y: np.histogram2d(x, y, bins=(3, 4))[1])
case("hist2d_auto_density", ["px", "py", "pw"], lambda x, y, w: np.histogram2d(x, y, bins=5, weights=w, density=True)[0])
case("histdd_auto_mixed", ["px", "py", "pz"],
     lambda x, y, z: np.histogramdd([x, y, z], bins=[2, [-3, 0, 3], 3], range=[None, None, (0, 4)])[0])
case("histdd_auto_f32", ["pf32", "pz"], lambda x, z: np.histogramdd([x, z], bins=(4, 2))[0])
case("histdd_auto_f32_edges", ["pf32", "pz"], lambda x, z: np.histogramdd([x, z], bins=(4, 2))[1][0])
case("histdd_auto_nan", ["f64"], lambda x: np.histogramdd([x.ravel()], bins=2))  # ValueError
case("histdd_nonmono", ["px"], lambda x: np.histogramdd([x], bins=[[0, 1, 0.5]]))  # ValueError

# ---------------------------------------------------------------- digitize
case("digitize_inc", ["f64"], lambda x: np.digitize(x, [-1, 0, 0.5, 2]))
case("digitize_inc_right", ["f64"], lambda x: np.digitize(x, [-1, 0, 0.5, 2], right=True))
case("digitize_dec", ["f64"], lambda x: np.digitize(x, [2, 0.5, 0, -1]))
case("digitize_dec_right", ["f64"], lambda x: np.digitize(x, [2, 0.5, 0, -1], right=True))
case("digitize_int_x", ["i64"], lambda x: np.digitize(x, [-5.5, 0, 3, 3, 7]))
case("digitize_nonmono", ["f64"], lambda x: np.digitize(x, [0, 2, 1]))  # ValueError
case("digitize_complex", ["c128"], lambda x: np.digitize(x, [0, 1]))  # TypeError

# ------------------------------------------------------------ searchsorted
inp("sorted9", np.array([-inf, -2, -1, -1, 0, 0.5, 3, inf, nan]))
inp("sortedi", np.array([-10, -3, 0, 0, 0, 4, 9]))
case("searchsorted_left", ["sorted9", "f64"], lambda a, v: np.searchsorted(a, v))
case("searchsorted_right", ["sorted9", "f64"], lambda a, v: np.searchsorted(a, v, side="right"))
case("searchsorted_int", ["sortedi", "i64"], lambda a, v: np.searchsorted(a, v, side="right"))
case("searchsorted_mixed", ["sortedi", "f64"], lambda a, v: np.searchsorted(a, v))

# -------------------------------------------------------------------- isin
inp("test5", np.array([0, 1.5, -2.1, nan, inf]))
inp("testi", np.array([[3, -11], [0, 7]]))
case("isin_f64", ["f64", "test5"], lambda x, s: np.isin(x, s))
case("isin_invert", ["f64", "test5"], lambda x, s: np.isin(x, s, invert=True))
case("isin_i64_f64", ["i64", "test5"], lambda x, s: np.isin(x, s))
case("isin_i64_2d", ["i64", "testi"], lambda x, s: np.isin(x, s))
case("isin_c128", ["c128", "test5"], lambda x, s: np.isin(x, s))

# ------------------------------- nonzero, argwhere, flatnonzero, where(cond)
case("flatnonzero_f64", ["f64"], lambda x: np.flatnonzero(x))  # NaN is nonzero
case("flatnonzero_1d", ["u8"], lambda x: np.flatnonzero(x))
case("argwhere_i64", ["i64"], lambda x: np.argwhere(x))
case("argwhere_3d", ["x3"], lambda x: np.argwhere(x > 1))
case("argwhere_empty", ["e03"], lambda x: np.argwhere(x))
case("nonzero_0", ["bool79"], lambda x: np.nonzero(x)[0])
case("nonzero_1", ["bool79"], lambda x: np.nonzero(x)[1])
case("where1_1", ["x3"], lambda x: np.where(x < 0)[1])
case("where1_2", ["x3"], lambda x: np.where(x < 0)[2])

# ------------------------------------- boolean indexing by a lazy mask
case("mask_same", ["f64", "bool79"], lambda x, m: x[m])
case("mask_self", ["f64"], lambda x: x[x > 0.5])
case("mask_rows", ["f64", "m7"], lambda x, m: x[m])
case("mask_lead2", ["x3", "m34"], lambda x, m: x[m])
case("mask_ops", ["f64", "f64b", "bool79"], lambda x, y, m: x[m] * 2 + np.sqrt(np.abs(y[m])))
case("mask_sum", ["f64b", "bool79"], lambda x, m: np.sum(x[m]))
case("mask_mean", ["f64b", "bool79"], lambda x, m: np.mean(x[m]))
case("mask_max", ["f64b", "bool79"], lambda x, m: np.max(x[m]))
case("mask_var", ["f64b", "bool79"], lambda x, m: np.var(x[m]))
case("mask_rows_sum0", ["f64b", "m7"], lambda x, m: np.sum(x[m], axis=0))
case("mask_rows_min1", ["f64b", "m7"], lambda x, m: np.min(x[m], axis=1))
case("mask_rows_T", ["f64b", "m7"], lambda x, m: x[m].T * 3)
case("mask_rows_col", ["f64b", "m7"], lambda x, m: x[m][:, 2])
case("mask_rows_bcast", ["f64b", "m7"], lambda x, m: x[m] - x[m][:, :1])
case("mask_concat", ["f64b", "bool79"], lambda x, m: np.concatenate([x[m], x[~m], x[m]]))
case("mask_none_max", ["f64b"], lambda x: np.max(x[x > 100]))  # ValueError: zero-size
case("mask_none_sum", ["f64b"], lambda x: np.sum(x[x > 100]))
case("mask_reshape", ["f64b", "bool79"], lambda x, m: x[m].reshape(-1, 1))  # Go: ComputeChunkSizes first
case("mask_unique_sort", ["i64", "bool79"], lambda x, m: np.sort(x[m], kind="stable"))
case("mask_bad_shape", ["f64", "m34"], lambda x, m: x[m])  # IndexError
# the counting functions on a masked (unknown-length) input
case("unique_mask_counts", ["i64", "bool79"], lambda x, m: np.unique(x[m], return_counts=True)[1])
case("hist_mask", ["f64", "bool79"], lambda x, m: np.histogram(x[m], bins=4, range=(-3, 3))[0])
case("hist_mask_weights", ["f64", "f64b", "bool79"], lambda x, w, m: np.histogram(x[m], bins=E1, weights=w[m])[0])
case("bincount_mask", ["nn20"], lambda x: np.bincount(x[x > 3]))
case("bincount_mask_weights", ["nn20", "w20"], lambda x, w: np.bincount(x[x > 3], weights=w[x > 3]))
case("digitize_mask", ["f64", "bool79"], lambda x, m: np.digitize(x[m], [-1, 0, 0.5, 2]))
case("searchsorted_mask", ["sorted9", "f64", "bool79"], lambda a, v, m: np.searchsorted(a, v[m]))
case("isin_mask", ["i64", "bool79", "testi"], lambda x, m, s: np.isin(x[m], s))

# ------------------------------------------------------------------- write
goldens.write(OUT, cases, inputs)
