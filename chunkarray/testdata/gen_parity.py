#!/usr/bin/python3
"""Writes chunkarray's numpy-parity goldens with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity.py

The cases of issue 13 ("Defects to fix"), in the format of
gen_conformance.py: every case is a name, the names of its inputs and a
numpy expression; inputs are saved once each as parity/in_<input>.npy, each
result as parity/<case>.npy, and parity/cases.json lists the cases in order
with their inputs, or "error" where numpy raises (the Go side must fail
too). parity_test.go evaluates the same expression with the chunkarray API,
over the conformance chunkings or over chunkings of its own (zero-length
chunks), on Sync and Threaded(2), fused and unfused, and compares with
compareGolden: dtype and shape exactly, integers and bools exactly, float64
and complex128 within 1e-12 and float32 and complex64 within 1e-5 of the
element plus the largest finite magnitude of the result, NaN equal to NaN,
infinities exact.
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
# CONFORMANCE_OUT redirects the output (parity_test.go regenerates into a
# temporary folder to check that the committed files are current).
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity")

warnings.simplefilter("ignore")  # NaN, overflow and division warnings are expected

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")  # ascontiguousarray would make 0-d 1-d


N3 = 7 * 9 * 5
t = np.arange(N3, dtype=np.float64)
# float64, 7x9x5: mixed signs, no ties (gen_conformance.py's f64a)
inp("f64a", (3 * np.sin(t * 0.37) + 0.25 * np.cos(t * 1.3)).reshape(7, 9, 5))

cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


# ------------------------------------------------ 1. advanced indexing
# An integer beside an integer (or boolean) array is an advanced index too;
# separated advanced indices put their broadcast axes first, adjacent ones
# keep them in place.
M9 = [True, False, True, False, False, False, False, False, False]
case("adv_at_slice_ints", ["f64a"], lambda x: x[0, :, [1, 2]])  # (2, 9)
case("adv_bools_ellipsis_at", ["f64a"], lambda x: x[:, M9, ..., 1])  # (2, 7)
case("adv_ints_empty_ellipsis_at", ["f64a"], lambda x: x[:, [0, 1], ..., 1])  # (2, 7): ... for no axis
case("adv_at_newaxis_ints", ["f64a"], lambda x: x[0, None, [1, 2]])  # (2, 1, 5)
case("adv_ints_newaxis_at", ["f64a"], lambda x: x[:, [0, 1], None, 1])  # (2, 7, 1)
case("adv_at_step_ints", ["f64a"], lambda x: x[-1, 2:7:2, [4, -5, 0]])  # (3, 3)
case("adv_ints_slice_at", ["f64a"], lambda x: x[[6, 0, 3, 3], :, 4])  # (4, 9)
case("adv_at_rev_bools", ["f64a"], lambda x: x[3, ::-2, [True, False, True, True, False]])
case("adv_at_slice_empty_ints", ["f64a"], lambda x: x[0, :, []])  # (0, 9)
# adjacent: in place
case("adv_adjacent_at_ints", ["f64a"], lambda x: x[:, 0, [1, 2]])  # (7, 2)
case("adv_adjacent_ints_at", ["f64a"], lambda x: x[[1, 2], 0])  # (2, 5)
case("adv_adjacent_at_ints_at", ["f64a"], lambda x: x[1, [4, 0, 4], 2])  # (3,)
case("adv_adjacent_slice_at_bools", ["f64a"], lambda x: x[2:5, 8, [False, True, True, False, True]])

# ------------------------------------------------ 2. zero-length chunks
# The Go side chunks the inputs with empty chunks among the others
# (NormalizeChunks accepts them): reductions skip the empty blocks.
t2 = np.arange(63)
inp("f64m", 2 * np.cos(t2 * 0.21).reshape(7, 9) + 0.5)
inp("i64m", ((t2 * 37) % 23 - 11).reshape(7, 9).astype(np.int64))  # ties
inp("e0x4", np.zeros((0, 4)))
for op in ["min", "max"]:
    f = getattr(np, op)
    case(f"zc_{op}_all", ["f64m"], lambda x, f=f: f(x))
    case(f"zc_{op}_0", ["f64m"], lambda x, f=f: f(x, axis=0))
    case(f"zc_{op}_1_k", ["f64m"], lambda x, f=f: f(x, axis=1, keepdims=True))
    case(f"zc_{op}_i64_0", ["i64m"], lambda x, f=f: f(x, axis=0))
    case(f"zc_{op}_fused", ["f64m"], lambda x, f=f: f(np.sin(x) * 2, axis=0))
for op in ["argmin", "argmax"]:
    f = getattr(np, op)
    case(f"zc_{op}_0", ["f64m"], lambda x, f=f: f(x, axis=0))
    case(f"zc_{op}_1", ["i64m"], lambda x, f=f: f(x, axis=1))
    case(f"zc_{op}_flat", ["i64m"], lambda x, f=f: f(x))
case("zc_sum_all", ["f64m"], lambda x: np.sum(x))
case("zc_prod_1", ["f64m"], lambda x: np.prod(x, axis=1))
case("zc_mean_0", ["f64m"], lambda x: np.mean(x, axis=0))
case("zc_var_all", ["f64m"], lambda x: np.var(x))
case("zc_any_1", ["i64m"], lambda x: np.any(x > 9, axis=1))
case("zc_max_empty", ["e0x4"], lambda x: np.max(x))  # ValueError: the whole reduction is empty
case("zc_argmin_empty", ["e0x4"], lambda x: np.argmin(x, axis=0))  # ValueError
# Broadcasting against operands whose size-1 axes are chunked (1, 0) or
# (0, 1), and elementwise operations on operands with empty chunks.
inp("f64row", np.linspace(-1, 2, 9).reshape(1, 9))
inp("f64col", np.linspace(0.5, 3, 7).reshape(7, 1))
inp("f64one", np.array([[2.5]]))
inp("f64m2", np.linspace(-4, 4, 63).reshape(7, 9))
case("zcb_row", ["f64m", "f64row"], lambda x, r: x * r)
case("zcb_col", ["f64col", "f64m"], lambda c, x: c + x)
case("zcb_one", ["f64m", "f64one"], lambda x, o: x - o)
case("zcb_where", ["f64col", "f64m", "f64row"], lambda c, x, r: np.where(c > 1, x, r))
case("zcb_both", ["f64m", "f64m2"], lambda x, y: x - y)
case("zcb_row_sum", ["f64m", "f64row"], lambda x, r: np.sum(x * r, axis=0))
case("zcb_col_max", ["f64col", "f64m"], lambda c, x: np.max(c * x, axis=1))
case("zcb_mapblocks_add", ["f64m", "f64row"], lambda x, r: x + r)  # Go: MapBlocks
inp("f64bat", np.sin(np.arange(60) * 0.3).reshape(3, 4, 5))
inp("f64bat1", np.cos(np.arange(10) * 0.7).reshape(1, 5, 2))
case("zcb_matmul_batch", ["f64bat", "f64bat1"], lambda a, b: np.matmul(a, b))
# Two squeezes (expand_dims) of one input to one shape in one expression:
# with a size-1 axis chunked (1, 0) their chunks differ, so must their names.
inp("f64_113", np.array([[[1.5, -2, 4]]]))
inp("f64_13", np.array([[0.5, 3, -1]]))
case("names_squeeze_pair", ["f64_113"], lambda x: np.squeeze(x, 0) + 2 * np.squeeze(x, 1))
case("names_expand_pair", ["f64_13"], lambda v: np.expand_dims(v, 0) - 3 * np.expand_dims(v, 1))
case("zc_reshape_flat", ["f64m"], lambda x: x.reshape(-1))
case("zc_reshape_split", ["f64m"], lambda x: x.reshape(7, 3, 3))
case("zc_reshape_regroup", ["f64m"], lambda x: x.reshape(9, 7))
case("zc_transpose_sum", ["f64m"], lambda x: (x.T * 2).sum(axis=1))
case("zc_slice_take", ["f64m"], lambda x: x[1:6, [8, 0, 2]])
case("zc_concat", ["f64m"], lambda x: np.concatenate([x, x[::-1]], axis=1))

# ------------------------------------------------------------- 3. values
# Products: 0 * inf and 0 * nan are NaN and propagate (BLAS computes them;
# gonum's gemm skipped the products of zeros).
inp("v01", np.array([0.0, 1.0]))
inp("vinf", np.array([inf, 1.0]))
inp("vnan", np.array([nan, 1.0]))
inp("v21", np.array([2.0, 1.0]))
A0 = np.linspace(-1, 1, 12).reshape(3, 4)
A0[1, 2] = 0.0
A0[:, 0] = 0.0
B = np.cos(np.arange(8.0)).reshape(4, 2)
B[0, 0] = inf
B[2, 1] = nan
inp("m34zero", A0)
inp("m42inf", B)
inp("c34zero", (A0 + 0.5j * A0[::-1]).astype(np.complex128))
inp("c42inf", (B - 1j * B[::-1]).astype(np.complex128))
inp("f32m34zero", A0.astype(np.float32))
inp("f32m42inf", B.astype(np.float32))
case("val_dot_0_inf", ["v01", "vinf"], lambda a, b: np.dot(a, b))  # nan
case("val_dot_0_nan", ["v01", "vnan"], lambda a, b: np.dot(a, b))  # nan
case("val_dot_2_inf", ["v21", "vinf"], lambda a, b: np.dot(a, b))  # inf
case("val_matmul_0_inf", ["m34zero", "m42inf"], lambda a, b: np.matmul(a, b))
case("val_matmul_inf_first", ["m42inf", "m34zero"], lambda a, b: np.matmul(a.T, b.T))
case("val_tensordot_0_inf", ["m34zero", "m42inf"], lambda a, b: np.tensordot(a, b, axes=([1], [0])))
case("val_dot_c128_0_inf", ["c34zero", "c42inf"], lambda a, b: np.dot(a, b))
case("val_matmul_f32_0_inf", ["f32m34zero", "f32m42inf"], lambda a, b: np.matmul(a, b))

# Means across chunks with infinities: numpy's sum/n is inf (or nan for
# inf and -inf); the chunks' means merged as ma + (mb - ma)·nb/n gave
# inf - inf. Variances of data holding an infinity are nan.
inp("vinf7", np.array([inf, 1, 2, 3, 4, 5, 6.0]))
inp("vinfneg7", np.array([inf, 1, 2, -inf, 4, 5, 6.0]))
inp("vinfinf7", np.array([1, inf, 2, 3, inf, 5, 6.0]))
Minf = 2 * np.cos(t2 * 0.21).reshape(7, 9) + 0.5
Minf[0, 0] = inf
Minf[3, 4] = -inf
Minf[5, :] = inf
Minf[6, 2] = nan
inp("minf", Minf)
inp("f32inf7", np.array([inf, 1, 2, 3, 4, 5, 6], dtype=np.float32))
cinf = np.linspace(-1, 2, 7) + 1j * np.linspace(3, 0, 7)
cinf[2] = complex(inf, 1)
inp("cinf7", cinf)
cinfim = cinf.copy()
cinfim[2] = complex(1, -inf)
inp("cinfim7", cinfim)
case("val_mean_inf", ["vinf7"], lambda x: np.mean(x))
case("val_mean_inf_neg", ["vinfneg7"], lambda x: np.mean(x))
case("val_mean_inf_inf", ["vinfinf7"], lambda x: np.mean(x))
case("val_var_inf", ["vinf7"], lambda x: np.var(x))
case("val_std_inf", ["vinfinf7"], lambda x: np.std(x))
case("val_mean_minf_0", ["minf"], lambda x: np.mean(x, axis=0))
case("val_mean_minf_1_k", ["minf"], lambda x: np.mean(x, axis=1, keepdims=True))
case("val_var_minf_0", ["minf"], lambda x: np.var(x, axis=0))
case("val_std_minf_1", ["minf"], lambda x: np.std(x, axis=1, ddof=1))
case("val_mean_f32_inf", ["f32inf7"], lambda x: np.mean(x))
case("val_mean_c128_inf", ["cinf7"], lambda x: np.mean(x))  # inf+nanj
case("val_mean_c128_infim", ["cinfim7"], lambda x: np.mean(x))  # nan-infj
case("val_mean_fused_inf", ["minf"], lambda x: np.mean(x * 2 + 1, axis=0))

# Complex power at special values (inf, nan and zero bases and exponents,
# small integral exponents, which numpy unrolls): a grid of bases (rows)
# by exponents (columns).
BASES = [2, 0.5, -2, 1j, 1 + 1j, -0.5 - 0.5j, 0, -0.0, complex(0, -0.0), 1, -1, 1e300, 1e-300,
         complex(inf, 0), complex(-inf, 0), complex(inf, 1), complex(1, inf), complex(-inf, -inf),
         complex(nan, 0), complex(0, nan), complex(0, -3), complex(3, -4)]
EXPS = [0, -0.0, 1, 2, 3, 4, -1, -2, 99, -99, 100, 0.5, inf, -inf, nan, 1j, complex(0, inf),
        complex(1, inf), complex(inf, 1), complex(inf, inf), complex(-inf, 1), complex(nan, 0),
        complex(2, nan), 1e10, -1e10, complex(2, 1), complex(0, -0.0), complex(1, 0.5)]
inp("cbases", np.array(BASES, dtype=np.complex128).reshape(-1, 1))
inp("cexps", np.array(EXPS, dtype=np.complex128).reshape(1, -1))
# complex64: numpy computes in single precision, so where a large
# exponent takes the result beyond float32's range (or the phase b·arg(a)
# is huge) the part that should be 0 is float32 rounding noise times a huge
# modulus, whose sign and overflow single precision decides (tessera
# computes in complex128 and rounds the result): those exponents are left
# out.
inp("cbases64", np.array(BASES, dtype=np.complex64).reshape(-1, 1))
inp("cexps64", np.array([e for e in EXPS if abs(e) not in (99, 100, 1e10)], dtype=np.complex64).reshape(1, -1))
case("val_cpow_grid", ["cbases", "cexps"], lambda a, b: np.power(a, b))
case("val_cpow_grid_c64", ["cbases64", "cexps64"], lambda a, b: np.power(a, b))
case("val_cpow_scalar_inf", ["cbases"], lambda a: a ** inf)
case("val_cpow_scalar_neg_inf", ["cbases"], lambda a: a ** -inf)
case("val_cpow_scalar_2", ["cbases"], lambda a: a ** 2)

# ------------------------------------------ 4. dtypes of scalar operands
# numpy 1.24's value-based casting: floor_divide, remainder and power pick
# their loop by a linear search (uint8 // 256 is int16, uint8 + 256 is
# uint16); a Python float counts as float32 below 3.4e38 only.
inp("u8v", np.array([0, 1, 7, 100, 200, 255], dtype=np.uint8))
inp("u16v", np.array([0, 1, 7, 1000, 40000, 65535], dtype=np.uint16))
inp("u32v", np.array([0, 1, 7, 10**6, 3 * 10**9, 2**32 - 1], dtype=np.uint32))
inp("f32v", np.array([-2.5, 0, 1, 3e38, -1e-3, 7], dtype=np.float32))
inp("c64v", np.array([1 + 1j, -2, 0.5j, 3e38, 0, -1 - 1j], dtype=np.complex64))
case("sc_u8_floordiv_256", ["u8v"], lambda x: x // 256)  # int16
case("sc_u8_mod_256", ["u8v"], lambda x: x % 256)  # int16
case("sc_u8_pow_256", ["u8v"], lambda x: x ** 256)  # int16, wrapping
case("sc_u8_add_256", ["u8v"], lambda x: x + 256)  # uint16
case("sc_u8_rfloordiv_256", ["u8v"], lambda x: 256 // (x + 1))  # int16
case("sc_u8_mod_40000", ["u8v"], lambda x: x % 40000)  # uint16 (40000 does not fit int16)
case("sc_u8_pow_2", ["u8v"], lambda x: x ** 2)  # uint8
case("sc_u16_floordiv_65536", ["u16v"], lambda x: x // 65536)  # int32
case("sc_u16_mod_70000", ["u16v"], lambda x: x % 70000)  # int32
case("sc_u16_pow_256", ["u16v"], lambda x: x ** 256)  # uint16: 256 fits uint8
case("sc_u32_floordiv_2e32", ["u32v"], lambda x: x // 2**32)  # int64
case("sc_u32_mod_2e32", ["u32v"], lambda x: x % (2**32 + 3))  # int64
case("sc_u32_pow_2e32", ["u32v"], lambda x: x ** 2**32)  # int64
case("sc_f32_add_3_4e38", ["f32v"], lambda x: x + 3.4e38)  # float64
case("sc_f32_mul_neg_3_4e38", ["f32v"], lambda x: x * -3.4e38)  # float64
case("sc_f32_add_below", ["f32v"], lambda x: x + float(np.nextafter(3.4e38, 0)))  # float32
case("sc_f32_add_inf", ["f32v"], lambda x: x + inf)  # float32
case("sc_c64_add_3_4e38", ["c64v"], lambda x: x + complex(3.4e38, 0))  # complex128
case("sc_c64_mul_inf", ["c64v"], lambda x: x * complex(inf, 0))  # complex128
case("sc_f32_add_c_inf", ["f32v"], lambda x: x + complex(inf, 0))  # complex128

# A 0-d chunkarray Array operand is typed by its dtype alone, as an n-d
# array (Dask's rule: its value is lazy), never by value-based casting:
# numpy's result with the 0-d input as a 1-element array (then reshaped
# to 0-d where every operand is 0-d). A Go scalar or a 0-d *nd.Array
# operand keeps numpy's value-based casting.
inp("u16s7", np.array([7, 0, 65535], dtype=np.uint16))
inp("u8s", np.array([0, 5, 200, 255], dtype=np.uint8))
inp("f32s", np.array([1.5, -2, 3e38], dtype=np.float32))
inp("d0_i8_122", np.array(122, dtype=np.int8))
inp("d0_u16_7", np.array(7, dtype=np.uint16))
inp("d0_i64_5", np.array(5, dtype=np.int64))
inp("d0_i64_256", np.array(256, dtype=np.int64))
inp("d0_f64", np.array(1.5))
inp("d0_i32_1", np.array(1, dtype=np.int32))
inp("boolc4", np.array([True, False, True, False]))


def arr(x):
    return x.reshape(1) if x.ndim == 0 else x


case("d0_u16_sub_i8", ["u16s7", "d0_i8_122"], lambda x, y: x - arr(y))  # int32: -115 for 7
case("d0_i8_sub_u16_both", ["d0_u16_7", "d0_i8_122"], lambda x, y: (arr(x) - arr(y)).reshape(()))
case("d0_u8_floordiv_i64", ["u8s", "d0_i64_256"], lambda x, y: x // arr(y))  # int64
case("d0_f32_add_f64", ["f32s", "d0_f64"], lambda x, y: x + arr(y))  # float64
case("d0_plus_go_scalar", ["d0_i8_122"], lambda y: (arr(y) + 300).reshape(()))  # int16
case("d0_chain", ["u16s7", "d0_i8_122"], lambda x, y: x - arr(y) * 2)  # int8 wraps, then int32
case("d0_where", ["boolc4", "u8s", "d0_i64_5"], lambda c, x, y: np.where(c, x, arr(y)))  # int64
case("d0_sum", ["u8s", "d0_i32_1"], lambda x, y: np.sum(x + arr(y)))  # int64 of int32

# ------------------------------------------------------------ 5. options
# compress: a condition longer than the axis whose extra entries are all
# False is accepted; a True beyond the axis is an IndexError.
inp("cond11", np.array([False, True, True, False, False, False, True, False, False, False, False]))
inp("cond9x", np.array([True, False, False, False, False, False, False, True, True]))  # True at 7, 8
case("opt_compress_long_false", ["f64a", "cond11"], lambda x, c: np.compress(c, x, axis=0))
case("opt_compress_long_list", ["f64a"], lambda x: np.compress([True, False, True, False, False, True] + [False] * 5, x, axis=2))
case("opt_compress_long_true", ["f64a", "cond9x"], lambda x, c: np.compress(c, x, axis=0))  # IndexError
# take and compress with axis=None: on the flattened array
case("opt_take_flat", ["f64a"], lambda x: np.take(x, [0, 314, -1, 44, 44, 5]))
case("opt_take_flat_empty", ["f64a"], lambda x: np.take(x, []))
case("opt_take_flat_out", ["f64a"], lambda x: np.take(x, [315]))  # IndexError
case("opt_take_flat_2d", ["f64m"], lambda x: np.take(x, [62, 0, 9, 10, 11, 12]))
case("opt_compress_flat", ["f64m", "cond11"], lambda x, c: np.compress(c, x))
case("opt_compress_flat_long", ["f64m"], lambda x: np.compress([i % 5 == 1 for i in range(63)] + [False] * 4, x))
case("opt_compress_flat_true_beyond", ["f64m"], lambda x: np.compress([False] * 63 + [True], x))  # IndexError
# expand_dims with several axes (positions in the result)
case("opt_expand_dims_03", ["f64m"], lambda x: np.expand_dims(x, (0, 3)))
case("opt_expand_dims_neg", ["f64m"], lambda x: np.expand_dims(x, (-1, 0)))
case("opt_expand_dims_mid", ["f64a"], lambda x: np.expand_dims(x, (1, 2, 5)))
case("opt_expand_dims_repeat", ["f64m"], lambda x: np.expand_dims(x, (0, 0)))  # ValueError
case("opt_expand_dims_repeat_neg", ["f64m"], lambda x: np.expand_dims(x, (3, -1)))  # ValueError
case("opt_expand_dims_out", ["f64m"], lambda x: np.expand_dims(x, (0, 4)))  # AxisError
# argmin and argmax with keepdims
case("opt_argmax_1_k", ["f64a"], lambda x: np.argmax(x, axis=1, keepdims=True))
case("opt_argmin_0_k", ["f64a"], lambda x: np.argmin(x, axis=0, keepdims=True))
case("opt_argmin_neg_k", ["i64m"], lambda x: np.argmin(x, axis=-1, keepdims=True))
case("opt_argmax_flat_k", ["f64a"], lambda x: np.argmax(x, keepdims=True))  # (1, 1, 1)
case("opt_argmin_flat_k", ["i64m"], lambda x: np.argmin(x, keepdims=True))
case("opt_argmax_flat_k_zc", ["f64m"], lambda x: np.argmax(x, keepdims=True))
# reductions with dtype=
inp("i8m", ((t2 * 29) % 255 - 127).reshape(7, 9).astype(np.int8))
inp("u8m", ((t2 * 53) % 256).reshape(7, 9).astype(np.uint8))
inp("c128m", (2 * np.cos(t2 * 0.21) + 1j * np.linspace(-4, 4, 63)).reshape(7, 9))
inp("f64b", (0.5 + (np.arange(N3) % 17) / 4).reshape(7, 9, 5))
case("dt_sum_f32", ["f64a"], lambda x: np.sum(x, axis=1, dtype=np.float32))
case("dt_sum_i8_wrap", ["i8m"], lambda x: np.sum(x, axis=0, dtype=np.int8))
case("dt_sum_u8_bool", ["u8m"], lambda x: np.sum(x, axis=1, dtype=np.bool_))
case("dt_sum_f64_i32", ["f64a"], lambda x: np.sum(x * 10, dtype=np.int32))
case("dt_sum_c128_f64", ["c128m"], lambda x: np.sum(x, axis=0, dtype=np.float64))
case("dt_sum_i8_f64_k", ["i8m"], lambda x: np.sum(x, axis=1, keepdims=True, dtype=np.float64))
case("dt_prod_i8_i16", ["i8m"], lambda x: np.prod(x[:, :3], axis=1, dtype=np.int16))
case("dt_prod_f32", ["f64b"], lambda x: np.prod(x, axis=2, dtype=np.float32))
case("dt_mean_i8_f32", ["i8m"], lambda x: np.mean(x, axis=0, dtype=np.float32))
case("dt_mean_f64_i64", ["f64a"], lambda x: np.mean(x * 10, axis=(0, 2), dtype=np.int64))  # truncated
case("dt_mean_i8_i8_wrap", ["i8m"], lambda x: np.mean(x, axis=1, dtype=np.int8))
case("dt_mean_u8_bool_k", ["u8m"], lambda x: np.mean(x, axis=0, keepdims=True, dtype=np.bool_))
case("dt_mean_f64_c128", ["f64a"], lambda x: np.mean(x, dtype=np.complex128))
case("dt_var_f32", ["f64a"], lambda x: np.var(x, axis=1, dtype=np.float32))
case("dt_var_i8_i64", ["i8m"], lambda x: np.var(x, axis=0, dtype=np.int64))
case("dt_var_f64_i8_wrap", ["f64a"], lambda x: np.var(x * 10, axis=2, dtype=np.int8))
case("dt_var_c128_f64", ["c128m"], lambda x: np.var(x, axis=1, dtype=np.float64))
case("dt_var_f64_c128", ["f64a"], lambda x: np.var(x, axis=0, ddof=1, dtype=np.complex128))
case("dt_std_f32_ddof", ["f64a"], lambda x: np.std(x, axis=1, ddof=1, dtype=np.float32))
case("dt_std_i64_all", ["f64a"], lambda x: np.std(x * 10, dtype=np.int64))  # a 0-d int
case("dt_std_i64_axis", ["f64a"], lambda x: np.std(x, axis=0, dtype=np.int64))  # UFuncTypeError
case("dt_min", ["f64a"], lambda x: np.min(x, dtype=np.float32))  # TypeError: no dtype argument
# rechunk with a per-axis map ({0: -1, 1: 2, 2: "auto"}) and "auto" per
# axis: the values do not change
case("opt_rechunk_map", ["f64a"], lambda x: x.copy())
case("opt_rechunk_list_auto", ["f64a"], lambda x: x.copy())
case("opt_rechunk_map_sum", ["f64a"], lambda x: np.sum(x, axis=1))

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs)
