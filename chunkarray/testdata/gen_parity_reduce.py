#!/usr/bin/python3
"""Writes the numpy goldens of chunkarray's reductions of issue 13 (Debian's numpy 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_reduce.py

The format of gen_parity.py: every case is a name, its inputs and a numpy
expression; inputs are saved as parity_reduce/in_<input>.npy, results as
parity_reduce/<case>.npy, and parity_reduce/cases.json lists the cases with
"error" where numpy raises. parity_reduce_test.go evaluates the chunkarray
expression of each case over several chunkings, on Sync and Threaded(2),
fused and unfused, and compares with compareGolden (integers exactly,
float64 within 1e-12 and float32 within 1e-5 of the element plus the
largest finite magnitude, NaN equal to NaN).
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_reduce")

warnings.simplefilter("ignore")  # all-NaN slices, degrees of freedom

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")


cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


t = np.arange(63.0)
# float64 7x9: mixed signs, NaNs scattered, an all-NaN column (3), an inf
# and a -inf, a zero
fn = (2 * np.cos(t * 0.37) + 0.3 * np.sin(t * 1.7)).reshape(7, 9)
fn[:, 3] = nan
fn[0, 0] = nan
fn[2, 5] = nan
fn[6, 8] = nan
fn[4, 1] = 0.0
inp("f64n", fn)
# the same without the all-NaN column and infinities: nanargmin along 0
fk = fn.copy()
fk[:, 3] = np.linspace(-1, 1, 7)
fk[3, 3] = nan
inp("f64k", fk)
fi = fk.copy()
fi[1, 2] = inf
fi[5, 6] = -inf
inp("f64i", fi)
t3 = np.arange(120.0)
f3 = (np.sin(t3 * 0.91) * 5).reshape(4, 5, 6).astype(np.float32)
f3[1, 2, :] = nan
f3[0, 0, 0] = nan
f3[3, 4, 5] = nan
inp("f32n", f3)
c = (np.cos(t * 0.5) + 1j * np.sin(t * 0.23)).reshape(7, 9)
c[1, 1] = complex(nan, 0)
c[4, 7] = complex(0, nan)
inp("c128n", c)
inp("i16m", ((np.arange(63) * 37) % 41 - 20).reshape(7, 9).astype(np.int16))
inp("i8m", ((np.arange(63) * 29) % 255 - 127).reshape(7, 9).astype(np.int8))
inp("u8m", ((np.arange(63) * 53) % 256).reshape(7, 9).astype(np.uint8))
inp("b79", ((np.arange(63) * 7) % 5 < 2).reshape(7, 9))
inp("e0x4", np.zeros((0, 4)))
inp("en0x4", np.full((3, 4), nan))

# ------------------------------------------------------------ nan reductions
case("nansum_all", ["f64n"], lambda x: np.nansum(x))
case("nansum_0", ["f64n"], lambda x: np.nansum(x, axis=0))
case("nansum_1_k", ["f64i"], lambda x: np.nansum(x, axis=1, keepdims=True))
case("nansum_f32_02", ["f32n"], lambda x: np.nansum(x, axis=(0, 2)))
case("nansum_c128", ["c128n"], lambda x: np.nansum(x, axis=1))
case("nansum_i16", ["i16m"], lambda x: np.nansum(x, axis=0))  # int64
case("nansum_dtype_f32", ["f64n"], lambda x: np.nansum(x, axis=1, dtype=np.float32))
case("nanprod_1", ["f64n"], lambda x: np.nanprod(x, axis=1))
case("nanprod_f32_all", ["f32n"], lambda x: np.nanprod(x[:, :2, :3]))
case("nanmin_0", ["f64n"], lambda x: np.nanmin(x, axis=0))  # NaN for the all-NaN column
case("nanmin_all", ["f64i"], lambda x: np.nanmin(x))
case("nanmax_1_k", ["f64n"], lambda x: np.nanmax(x, axis=1, keepdims=True))
case("nanmax_f32_2", ["f32n"], lambda x: np.nanmax(x, axis=2))
case("nanmax_i16_1", ["i16m"], lambda x: np.nanmax(x, axis=1))
case("nanmin_empty", ["e0x4"], lambda x: np.nanmin(x, axis=0))  # ValueError
case("nanmin_allnan", ["en0x4"], lambda x: np.nanmin(x, axis=1))  # NaN
case("nanmean_0", ["f64n"], lambda x: np.nanmean(x, axis=0))
case("nanmean_all", ["f64i"], lambda x: np.nanmean(x))
case("nanmean_f32_1_k", ["f32n"], lambda x: np.nanmean(x, axis=1, keepdims=True))
case("nanmean_c128_0", ["c128n"], lambda x: np.nanmean(x, axis=0))
case("nanmean_i16", ["i16m"], lambda x: np.nanmean(x, axis=1))
case("nanvar_0", ["f64n"], lambda x: np.nanvar(x, axis=0))
case("nanvar_1_ddof", ["f64k"], lambda x: np.nanvar(x, axis=1, ddof=1))
case("nanvar_ddof_big", ["f64n"], lambda x: np.nanvar(x, axis=0, ddof=6))  # NaN where count <= 6
case("nanvar_f32_02_k", ["f32n"], lambda x: np.nanvar(x, axis=(0, 2), keepdims=True))
case("nanvar_c128_1", ["c128n"], lambda x: np.nanvar(x, axis=1))
case("nanvar_inf", ["f64i"], lambda x: np.nanvar(x, axis=0))
case("nanstd_all", ["f64n"], lambda x: np.nanstd(x))
case("nanstd_f32_2_ddof", ["f32n"], lambda x: np.nanstd(x, axis=2, ddof=1))
case("nanstd_i16", ["i16m"], lambda x: np.nanstd(x, axis=0))
case("nanargmin_1", ["f64n"], lambda x: np.nanargmin(x, axis=1))
case("nanargmin_0", ["f64k"], lambda x: np.nanargmin(x, axis=0))
case("nanargmin_allnan", ["f64n"], lambda x: np.nanargmin(x, axis=0))  # ValueError
case("nanargmax_1", ["f64i"], lambda x: np.nanargmax(x, axis=1))
case("nanargmax_flat", ["f64n"], lambda x: np.nanargmax(x))
case("nanargmin_f32_2", ["f32n"], lambda x: np.nanargmin(x[[0, 2, 3]], axis=2))
case("nanargmax_i16_0", ["i16m"], lambda x: np.nanargmax(x, axis=0))
case("nanargmin_allnan_flat", ["en0x4"], lambda x: np.nanargmin(x))  # ValueError

# ------------------------------------------------------ ptp, count_nonzero
case("ptp_0", ["f64k"], lambda x: np.ptp(x, axis=0))
case("ptp_u8_1", ["u8m"], lambda x: np.ptp(x, axis=1))
case("ptp_i8_all_k", ["i8m"], lambda x: np.ptp(x, keepdims=True))  # wraps in int8
case("ptp_bool", ["b79"], lambda x: np.ptp(x))  # TypeError
case("count_nonzero_all", ["f64n"], lambda x: np.asarray(np.count_nonzero(x), dtype=np.int64))
case("count_nonzero_0", ["i16m"], lambda x: np.count_nonzero(x, axis=0))
case("count_nonzero_b_1_k", ["b79"], lambda x: np.count_nonzero(x, axis=1, keepdims=True))
case("count_nonzero_c", ["c128n"], lambda x: np.count_nonzero(x, axis=(0, 1)))

# ------------------------------------------------------------------ average
inp("w9", np.linspace(0.5, 3, 9))
inp("w79", (1 + (np.arange(63) % 4)).reshape(7, 9).astype(np.float32))
inp("w7z", np.array([1.0, -1, 2, -2, 0, 0, 0]))
inp("f64m", (2 * np.cos(t * 0.21) + 0.5).reshape(7, 9))
case("average_none", ["f64m"], lambda x: np.average(x, axis=0))
case("average_w1d", ["f64m", "w9"], lambda x, w: np.average(x, axis=1, weights=w))
case("average_w1d_ret", ["f64m", "w9"], lambda x, w: np.average(x, axis=1, weights=w, returned=True)[1])
case("average_w2d_all", ["f64m", "w79"], lambda x, w: np.average(x, weights=w))
case("average_w2d_0_k", ["i16m", "w79"], lambda x, w: np.average(x, axis=0, weights=w, keepdims=True))
case("average_w2d_ret", ["i16m", "w79"], lambda x, w: np.average(x, axis=0, weights=w, returned=True)[1])
case("average_zero", ["f64m", "w7z"], lambda x, w: np.average(x, axis=0, weights=w))  # ZeroDivisionError
case("average_noaxis_1d", ["f64m", "w9"], lambda x, w: np.average(x, weights=w))  # TypeError

# ----------------------------------------------------------------- medians
case("median_0", ["f64m"], lambda x: np.median(x, axis=0))
case("median_1_k", ["i16m"], lambda x: np.median(x, axis=1, keepdims=True))
case("median_nan", ["f64n"], lambda x: np.median(x, axis=1))
case("median_f32_02", ["f32n"], lambda x: np.median(x, axis=(0, 2)))
case("nanmedian_0", ["f64n"], lambda x: np.nanmedian(x, axis=0))
case("nanmedian_1", ["f64i"], lambda x: np.nanmedian(x, axis=1))
case("nanmedian_f32_2_k", ["f32n"], lambda x: np.nanmedian(x, axis=2, keepdims=True))

# ------------------------------------------------ percentiles (one chunk)
inp("f64v", np.sin(np.arange(23) * 1.3) * 4)
inp("i64v", ((np.arange(17) * 11) % 19 - 6).astype(np.int64))
inp("f32v", (np.cos(np.arange(12) * 0.7) * 3).astype(np.float32))
Q = [0, 10, 25, 50, 62.5, 90, 100]
for m in ["linear", "lower", "higher", "midpoint", "nearest"]:
    case(f"percentile_{m}", ["f64v"], lambda x, m=m: np.percentile(x, Q, method=m))
    case(f"percentile_i64_{m}", ["i64v"], lambda x, m=m: np.percentile(x, Q, method=m))
case("percentile_f32", ["f32v"], lambda x: np.percentile(x, [5, 50, 95]))
case("percentile_nan", ["f64k"], lambda x: np.percentile(x[3], [20, 70]))
case("quantile_linear", ["f64v"], lambda x: np.quantile(x, [0.1, 0.5, 0.99]))
case("percentile_axis1", ["f64n"], lambda x: np.percentile(x, [10, 50, 90], axis=1))  # (3, 7); NaN rows
case("percentile_axis0_lower", ["i16m"], lambda x: np.percentile(x, [30, 60], axis=0, method="lower"))
case("quantile_f32_axis2", ["f32n"], lambda x: np.quantile(x, [0.25, 0.75], axis=-1))
case("nanpercentile_axis1", ["f64n"], lambda x: np.nanpercentile(x, [10, 50, 90], axis=1))
case("nanpercentile_axis0", ["f64n"], lambda x: np.nanpercentile(x, [0, 35, 100], axis=0))  # an all-NaN column
case("nanquantile_1d", ["f64k"], lambda x: np.nanquantile(x[3], [0.2, 0.7]))
case("percentile_out", ["f64v"], lambda x: np.percentile(x, [101]))  # ValueError

# ------------------------------------------------------------- cumulative
for name in ["cumsum", "cumprod", "nancumsum", "nancumprod"]:
    f = getattr(np, name)
    case(f"{name}_0", ["f64k"], lambda x, f=f: f(x * 0.5, axis=0))
    case(f"{name}_1", ["f64n"], lambda x, f=f: f(x * 0.5, axis=1))
    case(f"{name}_flat", ["f64k"], lambda x, f=f: f(x * 0.5))
    case(f"{name}_f32_1", ["f32n"], lambda x, f=f: f(x * 0.5, axis=1))
case("cumsum_i8", ["i8m"], lambda x: np.cumsum(x, axis=1))  # int64
case("cumsum_u8_0", ["u8m"], lambda x: np.cumsum(x, axis=0))  # uint64
case("cumprod_i8_wrap", ["i8m"], lambda x: np.cumprod(x, axis=1, dtype=np.int8))  # wraps
case("cumsum_bool", ["b79"], lambda x: np.cumsum(x, axis=0))  # int64
case("cumsum_c128", ["c128n"], lambda x: np.cumsum(x, axis=0))
case("cumsum_neg_axis", ["f32n"], lambda x: np.cumsum(x, axis=-1))
case("cumsum_empty", ["e0x4"], lambda x: np.cumsum(x, axis=0))
case("cumsum_axis_out", ["f64k"], lambda x: np.cumsum(x, axis=2))  # AxisError

# -------------------------------------------------------------------- topk
u = np.sin(np.arange(63) * 2.399963) * 10  # no ties
inp("f64u", u.reshape(7, 9))
un = u.copy().reshape(7, 9)
un[2, 4] = nan
inp("f64un", un)
inp("i64u", (np.argsort(np.sin(np.arange(63) * 1.1)).reshape(7, 9) - 30).astype(np.int64))


def topk(x, k, axis):
    s = np.sort(x, axis=axis)
    s = np.moveaxis(s, axis, -1)
    r = s[..., ::-1][..., :k] if k > 0 else s[..., :-k]
    return np.moveaxis(r, -1, axis)


def argtopk(x, k, axis):
    y = np.moveaxis(x, axis, -1)
    i = np.argsort(-y if k > 0 else y, axis=-1, kind="stable")
    return np.moveaxis(i[..., :abs(k)], -1, axis)


case("topk_3_1", ["f64u"], lambda x: topk(x, 3, 1))
case("topk_neg2_0", ["f64u"], lambda x: topk(x, -2, 0))
case("topk_5_0_nan", ["f64un"], lambda x: topk(x, 5, 0))  # NaN counts as the largest
case("topk_i64_4_1", ["i64u"], lambda x: topk(x, 4, 1))
case("topk_all_0", ["f64u"], lambda x: topk(x, 7, 0))
case("argtopk_3_1", ["f64u"], lambda x: argtopk(x, 3, 1))
case("argtopk_neg4_0", ["f64u"], lambda x: argtopk(x, -4, 0))
case("argtopk_i64_2_0", ["i64u"], lambda x: argtopk(x, 2, 0))
case("topk_too_big", ["f64u"], lambda x: np.sort(x, axis=0)[10])  # IndexError; Go: k = 10 > 7

# ---------------------------------------------------------------- cov/corr
obs = np.vstack([np.sin(np.arange(8) * 0.9), np.cos(np.arange(8) * 0.4), np.arange(8) * 0.25 - 1])
inp("obs", obs)
inp("obs2", np.sin(np.arange(16) * 0.55).reshape(2, 8))
inp("obs_i", ((np.arange(24) * 7) % 11).reshape(8, 3).astype(np.int32))
case("cov_rows", ["obs"], lambda m: np.cov(m))
case("cov_y", ["obs", "obs2"], lambda m, y: np.cov(m, y))
case("cov_cols_bias", ["obs_i"], lambda m: np.cov(m, rowvar=False, bias=True))
case("cov_ddof", ["obs"], lambda m: np.cov(m, ddof=3))
case("cov_1d", ["f64v"], lambda m: np.cov(m))  # 0-d
case("corrcoef_rows", ["obs"], lambda m: np.corrcoef(m))
case("corrcoef_y_cols", ["obs_i", "obs2"], lambda m, y: np.corrcoef(m, y.T, rowvar=False))
case("corrcoef_1d", ["f64v"], lambda m: np.corrcoef(m))  # 0-d 1.0
case("cov_c128", ["c128n"], lambda m: np.cov(m[[0, 2, 3]], rowvar=True))
case("cov_c128_cols", ["c128n"], lambda m: np.cov(m[[0, 2, 3, 5]], rowvar=False, ddof=2))
case("cov_3d", ["f32n"], lambda m: np.cov(m))  # ValueError

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs)
