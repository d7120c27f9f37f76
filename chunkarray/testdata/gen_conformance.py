#!/usr/bin/python3
"""Writes chunkarray's conformance goldens with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_conformance.py

Every case is a name, the names of its inputs and a numpy expression. The
inputs are deterministic formulas (arange/linspace/sin based, NaN put at
stated places) saved once each as conformance/in_<input>.npy; each case's
result is saved as conformance/<case>.npy; conformance/cases.json lists the
cases in order with their inputs, and "error" instead of a result when numpy
raises (the Go side must then fail too). conformance_test.go evaluates the
same expression with the chunkarray API over several chunkings and
schedulers and compares with these files.

Cases whose numpy result is float16 are refused: nd has no float16.
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
# CONFORMANCE_OUT redirects the output (conformance_test.go regenerates
# into a temporary folder to check that the committed files are current).
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "conformance")

warnings.simplefilter("ignore")  # NaN, division and empty-mean warnings are expected

# ---------------------------------------------------------------- inputs
N3 = 7 * 9 * 5
t = np.arange(N3, dtype=np.float64)
t2 = np.arange(63)

inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")  # ascontiguousarray would make 0-d 1-d


# float64, 7x9x5: mixed signs, no zeros, no ties
inp("f64a", (3 * np.sin(t * 0.37) + 0.25 * np.cos(t * 1.3)).reshape(7, 9, 5))
# float64, 7x9x5: positive, in [0.5, 4.5], many ties
inp("f64b", (0.5 + (np.arange(N3) % 17) / 4).reshape(7, 9, 5))
# broadcasting partners with size-1 axes
inp("f64row", np.linspace(-1, 2, 9).reshape(1, 9, 1))
inp("f64col", np.linspace(0.5, 3, 35).reshape(7, 1, 5))
inp("f64vec", np.array([1.5, -2, 0.25, 4, -0.5]))
# NaN at (0,0,0), (3,4,2), the whole row (5,:,1) and (6,8,4)
nan = inputs["f64a"].copy()
nan[0, 0, 0] = np.nan
nan[3, 4, 2] = np.nan
nan[5, :, 1] = np.nan
nan[6, 8, 4] = np.nan
inp("f64nan", nan)
# 2-d operands, 7x9
inp("f64m", 2 * np.cos(t2 * 0.21).reshape(7, 9) + 0.5)
inp("f64m2", np.linspace(-4, 4, 63).reshape(7, 9))
inp("f32a", (2 * np.sin(t2 * 0.45)).reshape(7, 9).astype(np.float32))
inp("f32b", (1.5 + np.cos(t2 * 0.8)).reshape(7, 9).astype(np.float32))  # positive
inp("i64a", ((t2 * 37) % 23 - 11).reshape(7, 9).astype(np.int64))
b = (t2 * 13) % 11 - 5
b[b == 0] = 3
inp("i64b", b.reshape(7, 9).astype(np.int64))  # nonzero, mixed signs
inp("i64e", ((t2 * 5) % 4).reshape(7, 9).astype(np.int64))  # exponents 0..3
inp("i32a", inputs["i64a"].astype(np.int32))
inp("i16a", ((t2 * 101) % 601 - 300).reshape(7, 9).astype(np.int16))
inp("i8a", ((t2 * 29) % 255 - 127).reshape(7, 9).astype(np.int8))
inp("u8a", ((t2 * 53) % 256).reshape(7, 9).astype(np.uint8))
inp("u16a", ((t2 * 977) % 65536).reshape(7, 9).astype(np.uint16))
inp("u64a", ((t2 * 7919) % 100003).reshape(7, 9).astype(np.uint64))
inp("boola", ((t2 * 7) % 3 == 0).reshape(7, 9))
inp("boolb", (t2 % 2 == 0).reshape(7, 9))
inp("c128a", (inputs["f64m"] + 1j * inputs["f64m2"]).astype(np.complex128))
inp("c128b", (inputs["f64m2"][::-1] - 0.75j * inputs["f64m"]).astype(np.complex128))
inp("c64a", (inputs["f32a"] - 0.5j * inputs["f32a"][::-1]).astype(np.complex64))
# products
inp("f64p", np.linspace(-1, 1, 36).reshape(9, 4))
inp("i64p", ((np.arange(36) * 7) % 9 - 4).reshape(9, 4).astype(np.int64))
inp("f64t", np.cos(np.arange(135) * 0.1).reshape(9, 5, 3))
inp("f64bat", np.sin(np.arange(60) * 0.3).reshape(3, 4, 5))
inp("f64mat", np.linspace(0, 1, 10).reshape(5, 2))
inp("f64bat2", np.cos(np.arange(30) * 0.7).reshape(3, 5, 2))
inp("f64v9", np.linspace(2, -1, 9))
inp("f64v9b", np.cos(np.arange(9.0)))
# empty arrays and zero-size axes
inp("e0x4", np.zeros((0, 4)))
inp("e3x0x2", np.zeros((3, 0, 2), dtype=np.int64))
inp("e0x9", np.zeros((0, 9)))
# a boolean mask along axis 1 of f64a (9) and one along axis 0 (7)
inp("mask9", np.array([True, False, False, True, True, False, True, False, True]))

# ---------------------------------------------------------------- cases
cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply,
    "divide": np.divide, "floor_divide": np.floor_divide, "remainder": np.remainder,
    "power": np.power, "minimum": np.minimum, "maximum": np.maximum,
    "arctan2": np.arctan2, "equal": np.equal, "not_equal": np.not_equal,
    "less": np.less, "less_equal": np.less_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}
UNARY = {
    "negative": np.negative, "absolute": np.absolute, "sqrt": np.sqrt, "exp": np.exp,
    "log": np.log, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "logical_not": np.logical_not, "square": np.square,
}

# every binary op on float64, int64 and bool pairs (names: bin_<op>_<dtype>)
for op, f in BINARY.items():
    base = "f64b" if op == "power" else "f64a"
    expo = "f64a" if op == "power" else "f64b"
    case(f"bin_{op}_f64", [base, expo], lambda x, y, f=f: f(x, y))
    case(f"bin_{op}_i64", ["i64a", "i64e" if op == "power" else "i64b"], lambda x, y, f=f: f(x, y))
    case(f"bin_{op}_f32", ["f32a", "f32b"], lambda x, y, f=f: f(x, y))
for op in ["add", "multiply", "minimum", "maximum", "equal", "not_equal", "less", "greater_equal",
           "logical_and", "logical_or", "logical_xor"]:
    case(f"bin_{op}_bool", ["boola", "boolb"], lambda x, y, f=BINARY[op]: f(x, y))
for op in ["add", "subtract", "multiply", "divide", "equal", "not_equal", "power"]:
    case(f"bin_{op}_c128", ["c128a", "c128b"], lambda x, y, f=BINARY[op]: f(x, y))

# every unary op on float64, and the meaningful ones on other dtypes
for op, f in UNARY.items():
    case(f"un_{op}_f64", ["f64a"], lambda x, f=f: f(x))
    case(f"un_{op}_f32", ["f32a"], lambda x, f=f: f(x))
for op in ["negative", "absolute", "square", "sqrt", "exp", "sin", "logical_not"]:
    case(f"un_{op}_i64", ["i64a"], lambda x, f=UNARY[op]: f(x))
for op in ["negative", "absolute", "square", "logical_not"]:
    case(f"un_{op}_u8", ["u8a"], lambda x, f=UNARY[op]: f(x))
    case(f"un_{op}_i8", ["i8a"], lambda x, f=UNARY[op]: f(x))
for op in ["absolute", "logical_not", "negative"]:  # negative(bool) is a TypeError in numpy
    case(f"un_{op}_bool", ["boola"], lambda x, f=UNARY[op]: f(x))
for op in ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "square"]:
    case(f"un_{op}_c128", ["c128a"], lambda x, f=UNARY[op]: f(x))
case("un_sqrt_of_negative_f64", ["f64a"], lambda x: np.sqrt(x))  # NaN where x < 0
case("un_log_f64b", ["f64b"], lambda x: np.log(x))

# dtype promotion between arrays
case("promo_i8_u8", ["i8a", "u8a"], lambda x, y: x + y)
case("promo_i32_f32", ["i32a", "f32a"], lambda x, y: x * y)
case("promo_u64_i64", ["u64a", "i64a"], lambda x, y: x + y)
case("promo_i16_f32", ["i16a", "f32a"], lambda x, y: x - y)
case("promo_u8_u16", ["u8a", "u16a"], lambda x, y: x + y)
case("promo_bool_i8", ["boola", "i8a"], lambda x, y: x + y)
case("promo_f32_c64", ["f32a", "c64a"], lambda x, y: x * y)
case("promo_f64_c64", ["f64m", "c64a"], lambda x, y: x + y)
case("promo_i64_f64_equal", ["i64a", "f64m"], lambda x, y: x == y)
case("promo_i32_i32_divide", ["i32a", "i32a"], lambda x, y: x / (y + 20))
case("promo_u8_i64_floordiv", ["u8a", "i64b"], lambda x, y: x // y)

# Go scalars (numpy 1.24 value-based casting of Python scalars)
case("scalar_f64_add", ["f64a"], lambda x: x + 2.5)
case("scalar_rsub_int", ["f64a"], lambda x: 1 - x)
case("scalar_i8_add_small", ["i8a"], lambda x: x + 1)
case("scalar_i8_add_300", ["i8a"], lambda x: x + 300)  # 300 does not fit int8: int16
case("scalar_u8_add_neg", ["u8a"], lambda x: x + (-1))  # -1 does not fit uint8: int16
case("scalar_u8_add", ["u8a"], lambda x: x + 3)
case("scalar_i32_mul_float", ["i32a"], lambda x: x * 2.5)
case("scalar_f32_add", ["f32a"], lambda x: x + 1.5)
case("scalar_f32_mul_huge", ["f32a"], lambda x: x * 1e40)  # 1e40 does not fit float32: float64
case("scalar_i32_divide", ["i32a"], lambda x: x / 2)
case("scalar_i64_pow", ["i64a"], lambda x: x ** 2)
case("scalar_rpow", ["f64b"], lambda x: 2 ** x)
case("scalar_greater", ["f64a"], lambda x: x > 0)
case("scalar_bool_and", ["boola"], lambda x: np.logical_and(x, True))
case("scalar_c128_mul", ["c128a"], lambda x: x * 2j)
case("scalar_f64_mod_neg", ["f64a"], lambda x: x % -1.5)
case("scalar_i64_floordiv_neg", ["i64a"], lambda x: x // -4)
case("scalar_i64_mod_neg", ["i64a"], lambda x: x % -4)
case("scalar_i64_plus_float", ["i64a"], lambda x: x + 0.5)

# broadcasting with size-1 axes
case("bcast_row", ["f64a", "f64row"], lambda x, y: x + y)
case("bcast_col", ["f64col", "f64a"], lambda x, y: x * y)
case("bcast_vec", ["f64vec", "f64a"], lambda x, y: x - y)
case("bcast_row_col", ["f64row", "f64col"], lambda x, y: x + y)  # (1,9,1)+(7,1,5)
case("bcast_chain", ["f64a", "f64row", "f64col"], lambda x, y, z: np.sin(x * y) + z / 2)

# where and astype
case("where_f64", ["f64a", "f64b"], lambda x, y: np.where(x > 0, x, y))
case("where_promote", ["boola", "i32a", "f32a"], lambda c, x, y: np.where(c, x, y))
case("where_scalar", ["f64a"], lambda x: np.where(x > 1, x, 0.5))
case("where_bcast", ["f64row", "f64a", "f64col"], lambda c, x, y: np.where(c > 0, x, y))
case("astype_f64_i32", ["f64a"], lambda x: (x * 10).astype(np.int32))
case("astype_f64_f32", ["f64a"], lambda x: x.astype(np.float32))
case("astype_i64_u8", ["i64a"], lambda x: x.astype(np.uint8))
case("astype_f64_bool", ["f64m2"], lambda x: x.astype(np.bool_))
case("astype_bool_f64", ["boola"], lambda x: x.astype(np.float64))
case("astype_i32_c128", ["i32a"], lambda x: x.astype(np.complex128))

# reductions over axes, keepdims (names: red_<op>_<axes>[_k])
RED = {"sum": np.sum, "prod": np.prod, "min": np.min, "max": np.max, "mean": np.mean,
       "var": np.var, "std": np.std, "any": np.any, "all": np.all}
AXES = {"all": None, "0": (0,), "1": (1,), "2": (2,), "02": (0, 2), "12": (1, 2)}
for op, f in RED.items():
    src = {"prod": "f64b", "any": "f64m2", "all": "f64m2"}.get(op, "f64a")
    axes = AXES if src != "f64m2" else {"all": None, "0": (0,), "1": (1,)}
    for an, ax in axes.items():
        case(f"red_{op}_{an}", [src], lambda x, f=f, ax=ax: f(x, axis=ax))
    case(f"red_{op}_1_k", [src], lambda x, f=f: f(x, axis=(1,), keepdims=True))
    case(f"red_{op}_all_k", [src], lambda x, f=f: f(x, keepdims=True))
case("red_sum_split2", ["f64a"], lambda x: np.sum(x, axis=(0, 1)))  # Go: SplitEvery 2
case("red_any_bool", ["boola"], lambda x: np.any(x, axis=1))
case("red_all_bool", ["boola"], lambda x: np.all(x, axis=0))
case("red_sum_i32", ["i32a"], lambda x: x.sum())
case("red_sum_u8", ["u8a"], lambda x: x.sum(axis=0))
case("red_sum_bool", ["boola"], lambda x: x.sum(axis=1))
case("red_prod_i8", ["i8a"], lambda x: x.prod(axis=1))
case("red_min_i64", ["i64a"], lambda x: x.min(axis=0))
case("red_max_u16", ["u16a"], lambda x: x.max(axis=1))
case("red_mean_i32", ["i32a"], lambda x: x.mean(axis=1))
case("red_var_i16", ["i16a"], lambda x: x.var())
case("red_sum_f32", ["f32a"], lambda x: x.sum(axis=0))
case("red_mean_f32", ["f32a"], lambda x: x.mean())
case("red_sum_c128", ["c128a"], lambda x: x.sum(axis=1))
case("red_mean_c128", ["c128a"], lambda x: x.mean())
# ddof
case("red_var_ddof1_0", ["f64a"], lambda x: np.var(x, axis=0, ddof=1))
case("red_std_ddof1_all", ["f64a"], lambda x: np.std(x, ddof=1))
case("red_var_ddof2_2", ["f64a"], lambda x: np.var(x, axis=2, ddof=2))
# NaN in reductions: NaN propagates through sum, min, max, mean, var
case("nan_sum_all", ["f64nan"], lambda x: np.sum(x))
case("nan_sum_1", ["f64nan"], lambda x: np.sum(x, axis=1))
case("nan_max_2", ["f64nan"], lambda x: np.max(x, axis=2))
case("nan_min_0", ["f64nan"], lambda x: np.min(x, axis=0))
case("nan_mean_1", ["f64nan"], lambda x: np.mean(x, axis=1))
case("nan_var_2", ["f64nan"], lambda x: np.var(x, axis=2))
case("nan_prod_02", ["f64nan"], lambda x: np.prod(x, axis=(0, 2)))
case("nan_any_0", ["f64nan"], lambda x: np.any(x, axis=0))
case("nan_argmax_1", ["f64nan"], lambda x: np.argmax(x, axis=1))
case("nan_argmin_flat", ["f64nan"], lambda x: np.argmin(x))
case("nan_argmin_2", ["f64nan"], lambda x: np.argmin(x, axis=2))
case("nan_argmax_flat", ["f64nan"], lambda x: np.argmax(x))

# arg-reductions
for ax in [0, 1, 2]:
    case(f"arg_argmax_{ax}", ["f64a"], lambda x, ax=ax: np.argmax(x, axis=ax))
    case(f"arg_argmin_{ax}", ["f64a"], lambda x, ax=ax: np.argmin(x, axis=ax))
case("arg_argmax_flat", ["f64a"], lambda x: np.argmax(x))
case("arg_argmin_flat", ["f64a"], lambda x: np.argmin(x))
case("arg_argmax_ties_0", ["i64a"], lambda x: np.argmax(x, axis=0))  # first of equal values
case("arg_argmin_ties_1", ["i64a"], lambda x: np.argmin(x, axis=1))
case("arg_argmax_ties_flat", ["i64a"], lambda x: np.argmax(x))
case("arg_argmax_bool_1", ["boola"], lambda x: np.argmax(x, axis=1))

# basic slicing
case("slice_range", ["f64a"], lambda x: x[2:5])
case("slice_neg_start", ["f64a"], lambda x: x[:, -3:])
case("slice_out_of_range", ["f64a"], lambda x: x[-100:100, 3:1000])
case("slice_int", ["f64a"], lambda x: x[1])
case("slice_int_neg", ["f64a"], lambda x: x[-1, :, 2])
case("slice_ints_all", ["f64a"], lambda x: x[6, 8, 4])
case("slice_newaxis_front", ["f64a"], lambda x: x[None])
case("slice_newaxis_mid", ["f64a"], lambda x: x[:, None, :, None])
case("slice_empty", ["f64a"], lambda x: x[10:20])
case("slice_empty_mid", ["f64a"], lambda x: x[:, 3:3])
case("slice_col_times_t", ["f64m"], lambda x: np.sin(x[:, 0]) * x.T)
case("slice_normalize", ["f64b"], lambda x: x / x.max(axis=(1, 2))[:, None, None])
# steps, negative steps, Ellipsis (RangeStep, Ellipsis)
case("step_2", ["f64a"], lambda x: x[::2])
case("step_3_mid", ["f64a"], lambda x: x[:, 1:8:3])
case("step_neg1", ["f64a"], lambda x: x[::-1])
case("step_neg2", ["f64a"], lambda x: x[5:1:-2])
case("step_neg3_axis1", ["f64a"], lambda x: x[:, ::-3, 1:4])
case("step_neg_from_end", ["f64a"], lambda x: x[-2::-2, :, ::-1])
case("step_neg_empty", ["f64a"], lambda x: x[1:5:-1])
case("ellipsis_last", ["f64a"], lambda x: x[..., 1])
case("ellipsis_mid", ["f64a"], lambda x: x[1, ..., None])
case("ellipsis_only", ["f64a"], lambda x: x[...])
# integer-array and boolean-array indexing along one axis (Take, Compress)
case("take_0", ["f64a"], lambda x: x[[0, 4, 2, 2]])
case("take_1", ["f64a"], lambda x: x[:, [8, 0, 3]])
case("take_neg_2", ["f64a"], lambda x: x[:, :, [-1, 0]])
case("take_empty", ["f64a"], lambda x: x[:, []])
case("compress_1", ["f64a", "mask9"], lambda x, m: x[:, m])
case("compress_0", ["f64a"], lambda x: x[np.array([False, True, True, False, False, False, True])])

# transpose and shape ops
case("transpose_T", ["f64a"], lambda x: x.T)
case("transpose_102", ["f64a"], lambda x: np.transpose(x, (1, 0, 2)))
case("transpose_neg", ["f64a"], lambda x: np.transpose(x, (-1, 0, 1)))
case("reshape_merge_last", ["f64a"], lambda x: x.reshape(7, 45))
case("reshape_merge_first", ["f64a"], lambda x: x.reshape(63, 5))
case("reshape_flat", ["f64a"], lambda x: x.reshape(-1))
case("reshape_split", ["f64a"], lambda x: x.reshape(7, 3, 3, 5))
case("reshape_infer", ["f64m"], lambda x: x.reshape(-1, 3))  # 9 splits unevenly: Dask refuses
case("reshape_infer_even", ["f64a"], lambda x: x.reshape(7, -1))
case("reshape_bad", ["f64m"], lambda x: x.reshape(5, 5))
case("squeeze_axis", ["f64col"], lambda x: np.squeeze(x, axis=1))
case("squeeze_all", ["f64row"], lambda x: np.squeeze(x))
case("squeeze_bad", ["f64a"], lambda x: np.squeeze(x, axis=0))
case("expand_dims_1", ["f64m"], lambda x: np.expand_dims(x, 1))
case("expand_dims_neg", ["f64m"], lambda x: np.expand_dims(x, -1))
case("concat_0", ["f64a", "f64b"], lambda x, y: np.concatenate([x, y], axis=0))
case("concat_2", ["f64a", "f64b"], lambda x, y: np.concatenate([x, y], axis=2))
case("concat_promote", ["i32a", "f32a"], lambda x, y: np.concatenate([x, y], axis=1))
case("concat_empty", ["f64m", "e0x9"], lambda x, y: np.concatenate([x, y], axis=0))
case("concat_bad", ["f64m", "f64p"], lambda x, y: np.concatenate([x, y], axis=0))
case("stack_0", ["f64m", "f64m2"], lambda x, y: np.stack([x, y], axis=0))
case("stack_last", ["f64m", "f64m2"], lambda x, y: np.stack([x, y], axis=-1))
case("stack_promote", ["i8a", "u8a"], lambda x, y: np.stack([x, y], axis=1))
case("rechunk_identity", ["f64a"], lambda x: x.copy())  # Go: x.Rechunk(...) in several ways

# products
case("dot_2d", ["f64m", "f64p"], lambda a, b: np.dot(a, b))
case("dot_int", ["i64a", "i64p"], lambda a, b: np.dot(a, b))
case("dot_vec", ["f64v9", "f64v9b"], lambda a, b: np.dot(a, b))
case("dot_mat_vec", ["f64m", "f64v9"], lambda a, b: np.dot(a, b))
case("dot_complex", ["c128a", "f64p"], lambda a, b: np.dot(a, b))
case("tensordot_12_01", ["f64a", "f64t"], lambda a, b: np.tensordot(a, b, axes=([1, 2], [0, 1])))
case("tensordot_1_0", ["f64a", "f64t"], lambda a, b: np.tensordot(a, b, axes=([1], [0])))
case("matmul_2d", ["f64m", "f64p"], lambda a, b: np.matmul(a, b))
case("matmul_batch_2d", ["f64bat", "f64mat"], lambda a, b: np.matmul(a, b))
case("matmul_batch_batch", ["f64bat", "f64bat2"], lambda a, b: np.matmul(a, b))
case("matmul_bad", ["f64m", "f64m"], lambda a, b: np.matmul(a, b))


# map_overlap: a 3x3 neighbour sum with depth 1 on both axes; dask's
# boundaries are numpy.pad modes: periodic=wrap, reflect=symmetric (the edge
# element repeats), nearest=edge, a number=constant.
def neighbour_sum(x, mode, r=1, **kw):
    p = np.pad(x, r, mode=mode, **kw)
    out = np.zeros_like(x)
    for di in range(2 * r + 1):
        for dj in range(2 * r + 1):
            out += p[di:di + x.shape[0], dj:dj + x.shape[1]]
    return out


case("overlap_periodic", ["f64m"], lambda x: neighbour_sum(x, "wrap"))
case("overlap_reflect", ["f64m"], lambda x: neighbour_sum(x, "symmetric"))
case("overlap_nearest", ["f64m"], lambda x: neighbour_sum(x, "edge"))
case("overlap_constant", ["f64m"], lambda x: neighbour_sum(x, "constant", constant_values=0.5))
# depth 2: wider than the chunks of 1 and 2 of some chunkings
case("overlap_periodic_d2", ["f64m"], lambda x: neighbour_sum(x, "wrap", r=2))
case("overlap_reflect_d2", ["f64m"], lambda x: neighbour_sum(x, "symmetric", r=2))

# map_blocks and blockwise with registered Go functions: a block plus its
# global row index (reads block_info), two inputs added, an outer product
case("mapblocks_rowindex", ["f64m"], lambda x: x + np.arange(7)[:, None])
case("mapblocks_two_inputs", ["f64m", "f64m2"], lambda x, y: x + y)
case("blockwise_outer", ["f64m", "f64v9"], lambda x, v: x * v)

# empty arrays and zero-size axes
case("empty_add", ["e0x4"], lambda x: x + 1)
case("empty_sum_all", ["e0x4"], lambda x: x.sum())
case("empty_sum_0", ["e0x4"], lambda x: x.sum(axis=0))
case("empty_sum_1", ["e0x4"], lambda x: x.sum(axis=1))
case("empty_prod_0", ["e0x4"], lambda x: x.prod(axis=0))
case("empty_mean_0", ["e0x4"], lambda x: x.mean(axis=0))  # NaN
case("empty_max_all", ["e0x4"], lambda x: x.max())  # ValueError
case("empty_argmax", ["e0x4"], lambda x: np.argmax(x))  # ValueError
case("zero_axis_sum_1", ["e3x0x2"], lambda x: x.sum(axis=1))
case("zero_axis_any_1", ["e3x0x2"], lambda x: x.any(axis=1))
case("zero_axis_all_1", ["e3x0x2"], lambda x: x.all(axis=1))
case("zero_axis_max_0", ["e3x0x2"], lambda x: x.max(axis=0))  # (0, 2): fine, nothing reduced is empty
case("zero_axis_mul", ["e3x0x2"], lambda x: x * 2)
case("zero_axis_transpose", ["e3x0x2"], lambda x: x.T)
case("empty_slice_sum", ["f64a"], lambda x: x[3:3].sum(axis=0))
case("empty_take_sum", ["f64a"], lambda x: x[:, []].sum(axis=1))
case("empty_concat_zero_axis", ["e3x0x2"], lambda x: np.concatenate([x, x], axis=1))
case("red_var_split3", ["f64a"], lambda x: np.var(x, axis=(0, 1)))  # Go: SplitEvery 3
case("red_mean_split8_k", ["f64nan"], lambda x: np.mean(x, axis=(0, 2), keepdims=True))  # Go: SplitEvery 8
case("zero_axis_slice", ["e3x0x2"], lambda x: x[1:, :, ::-1])

# integer arithmetic in every integer width (wrap-around as C, floor
# division and remainder with the divisor's sign)
INTS = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "u8": np.uint8, "u16": np.uint16,
        "u32": np.uint32, "u64": np.uint64}
for dn, dt in INTS.items():
    signed = np.issubdtype(dt, np.signedinteger)
    lo = -60 if signed else 0
    inp(f"{dn}x", (lo + (t2 * 89) % 180).reshape(7, 9).astype(dt))
    d = (t2 * 7) % 13 - (6 if signed else -1)
    d[d == 0] = 5
    inp(f"{dn}y", d.reshape(7, 9).astype(dt))  # nonzero divisors
    for op in ["add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "less", "divide"]:
        case(f"int_{op}_{dn}", [f"{dn}x", f"{dn}y"], lambda x, y, f=BINARY[op]: f(x, y))
    case(f"int_sum_{dn}", [f"{dn}x"], lambda x: x.sum(axis=1))
    case(f"int_max_{dn}", [f"{dn}x"], lambda x: x.max(axis=0))
    case(f"int_mean_{dn}", [f"{dn}x"], lambda x: x.mean())

# reductions fed by an elementwise expression (fused into the reduction's
# chunk task when optimization is on)
case("fusedred_sum_sin_mul", ["f64a", "f64b"], lambda x, y: np.sum(np.sin(x) * y, axis=1))
case("fusedred_mean_bcast", ["f64a", "f64row"], lambda x, r: np.mean(x + r, axis=(0, 2)))
case("fusedred_max_where", ["f64a", "f64b"], lambda x, y: np.max(np.where(x > 0, x, -y), axis=2))
case("fusedred_argmax_mul", ["f64a"], lambda x: np.argmax(x * -2, axis=1))
case("fusedred_var_sq", ["f64a"], lambda x: np.var(x * x, axis=0, ddof=1))
case("fusedred_sum_astype_sq", ["i32a"], lambda x: (x.astype(np.int64) ** 2).sum())
case("fusedred_sum_col_times_t", ["f64m"], lambda x: (np.sin(x[:, 0]) * x.T).sum())
case("fusedred_any_greater", ["f64a"], lambda x: np.any(x > 2.9, axis=(1, 2)))
case("fusedred_sum_nan_expr", ["f64nan"], lambda x: np.sum(x * 2 + 1, axis=2))
case("fusedred_prod_keepdims", ["f64b"], lambda x: np.prod(x / 2, axis=1, keepdims=True))

# constant arrays (ones, full: zero-stride blocks) in expressions; the Go
# side builds them with the chunks of the input
case("const_ones_mul_sum", ["f64a"], lambda x: (np.ones_like(x) * x).sum(axis=1))
case("const_full_add", ["f64a"], lambda x: np.full(x.shape, 2.5) + x)
case("const_full_int_sum", ["i64a"], lambda x: (np.full(x.shape, 3, dtype=np.int32) * x).sum(axis=0))
case("const_ones_sum", ["f64a"], lambda x: np.ones(x.shape).sum())
case("const_zeros_max", ["f64a"], lambda x: np.maximum(np.zeros(x.shape), x))

# creation functions, chunked like the input
case("create_arange_int", ["f64v9"], lambda v: np.arange(-4, 14, 2))
case("create_arange_float", ["f64v9"], lambda v: np.arange(0.5, 5, 0.5))
case("create_arange_neg_step", ["f64v9"], lambda v: np.arange(10, 1, -1, dtype=np.int32))
case("create_linspace", ["f64v9"], lambda v: np.linspace(-1, 2, 9))
case("create_linspace_noend", ["f64v9"], lambda v: np.linspace(0, 1, 9, endpoint=False))
case("create_eye_k2", ["f64m"], lambda m: np.eye(7, 9, k=2))
case("create_eye_neg_i32", ["f64m"], lambda m: np.eye(7, 9, k=-3, dtype=np.int32))

# combinations: slicing after elementwise, reductions after slicing
case("combo_slice_of_expr", ["f64a", "f64b"], lambda x, y: (x * y + 1)[::-2, 1:7, 3])
case("combo_sum_of_reversed", ["f64a"], lambda x: x[::-1, ::2].sum(axis=0))
case("combo_transpose_bcast", ["f64a", "f64vec"], lambda x, v: x.T * v[:, None, None])
case("combo_take_then_mean", ["f64a"], lambda x: x[:, [8, 0, 3, 3]].mean(axis=(0, 1)))
case("combo_reshape_sum", ["f64a"], lambda x: x.reshape(63, 5).sum(axis=0))
case("combo_concat_sum", ["f64a", "f64b"], lambda x, y: np.concatenate([x, y], axis=1).max(axis=1))
case("combo_dot_then_add", ["f64m", "f64p"], lambda a, b: np.dot(a, b) + 1)
case("combo_normalize_std", ["f64a"], lambda x: (x - x.mean(axis=0)) / x.std(axis=0))

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs)
