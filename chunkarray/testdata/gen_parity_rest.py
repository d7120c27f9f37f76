#!/usr/bin/python3
"""Writes the numpy goldens of the last dask.array functions chunkarray
gained for issue 13 (area "rest"): positive, notnull, iscomplex, isreal,
sinc, i0, spacing, nextafter, modf, frexp, divmod, float_power, extract
and union1d, with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_rest.py

The format of gen_parity.py (through goldens.write): every case is a name,
the names of its inputs and a numpy expression; inputs are saved once each
as parity_rest/in_<input>.npy, each result as parity_rest/<case>.npy, and
parity_rest/cases.json lists the cases in order with their inputs, or
"error" where numpy raises (the Go side must fail too). parity_rest_test.go
evaluates the same expression with the chunkarray API over the conformance
chunkings (Sync and Threaded(2), fused and unfused, persisted, through JSON)
and compares with compareGolden.

The functions with two outputs (modf, frexp, divmod) are one case per
output. notnull is pandas.notnull (Dask's definition). Results numpy
computes in float16 (the float functions of bool, int8 and uint8), which nd
has not (tessera gives float32), are left out.
"""
import os
import warnings

import numpy as np
import pandas as pd

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_rest")

warnings.simplefilter("ignore")

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")


t = np.arange(63, dtype=np.float64)
F = 3 * np.sin(t * 0.37) + 0.25 * np.cos(t * 1.3)
F[:16] = [nan, inf, -inf, 0.0, -0.0, 0.5, 1.5, -2.5, 1.0, -3.0, 1e300, -1e-300, 5e-324,
          np.finfo(np.float64).max, 7.25, -1e10]
F = F.reshape(7, 9)
inp("f64", F)
inp("f32", F.astype(np.float32))
G = np.cos(t * 0.91).reshape(7, 9) * 2
G[0, :6] = [nan, inf, 1.0, 0.0, nan, -inf]
G[1, :4] = [-0.0, 0.0, inf, 0.5]
inp("f64b", G)
inp("f32b", G.astype(np.float32))
# i0 over its two series (|x| <= 8 and beyond), overflow to inf, inf
inp("f64i0", np.concatenate([np.linspace(-30, 30, 41), [8.0, -8.0, 8.000001, 700, 709.5, 710, 800, inf, -inf, nan, 0, -0.0,
                                                        1e-300, 1e300]]).reshape(5, 11))
I = ((np.arange(20) * 37) % 23 - 11).reshape(4, 5)
I[0, :3] = [0, 1, -1]
for name, dt in [("i64", np.int64), ("i32", np.int32), ("i16", np.int16), ("i8", np.int8)]:
    inp(name, I.astype(dt))
U = ((np.arange(20) * 53) % 256).reshape(4, 5)
U[0, :2] = [0, 1]
for name, dt in [("u8", np.uint8), ("u16", np.uint16), ("u64", np.uint64)]:
    inp(name, U.astype(dt))
J = ((np.arange(20) * 29) % 17 - 8).reshape(4, 5)
J[0, 0] = 0  # a zero divisor
for name, dt in [("i64b", np.int64), ("i32b", np.int32), ("i8b", np.int8)]:
    inp(name, J.astype(dt))
inp("u8b", (np.abs(J) * 7).astype(np.uint8))
inp("f32s", (np.arange(20) * 0.75 - 6).reshape(4, 5).astype(np.float32))
LD = np.linspace(-3, 3, 20)
LD[:8] = [5e-324, 1.5, -2.0, 1e308, nan, inf, -0.0, 2.5e-310]
inp("f64s", LD.reshape(4, 5))
inp("expo", np.array([1, -1075, -1074, 1, 5, -3, 7, 40, 2000, -2000, 2**40, -2**40, 0, 1, 2, 3, -1, -60, 60, 1023],
                     dtype=np.int64).reshape(4, 5))
inp("bool", (np.arange(20) % 3 == 0).reshape(4, 5))
inp("boolb", (np.arange(20) % 2 == 0).reshape(4, 5))
C = (np.sin(np.arange(20) * 0.7) * 1.7 + 1j * np.cos(np.arange(20) * 0.4) * 0.9).reshape(4, 5)
C[0, :4] = [0, 1j, -2, complex(0, -3)]
C[1, :4] = [complex(nan, 1), complex(1, nan), complex(2, 0), complex(-0.0, 0.0)]
inp("c128", C)
inp("c64", C.astype(np.complex64))
inp("c128b", (np.cos(np.arange(20) * 0.3) + 1j * np.sin(np.arange(20) * 0.2)).reshape(4, 5))
inp("e0x4", np.zeros((0, 4)))
inp("d0", np.array(-2.75))
inp("mask20", (np.arange(20) * 7) % 5 < 2)
inp("long70", np.arange(70) % 9 == 0)  # longer than 63 with trues beyond: numpy raises
inp("v7", np.array([3.0, nan, -1, 3, 2.5, nan, 0]))
inp("v5i", np.array([4, -1, 4, 9, 0], dtype=np.int32))

cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


ALL = ["f64", "f32", "i64", "i32", "i16", "i8", "u8", "u16", "u64", "bool", "c128", "c64"]
for d in ALL + ["e0x4", "d0"]:
    case(f"positive_{d}", [d], np.positive)
    case(f"notnull_{d}", [d], pd.notnull)
    case(f"iscomplex_{d}", [d], np.iscomplex)
    case(f"isreal_{d}", [d], np.isreal)
    case(f"sinc_{d}", [d], np.sinc)
    case(f"i0_{d}", [d], np.i0)
    case(f"spacing_{d}", [d], np.spacing)
    case(f"modf_frac_{d}", [d], lambda x: np.modf(x)[0])
    case(f"modf_int_{d}", [d], lambda x: np.modf(x)[1])
    case(f"frexp_m_{d}", [d], lambda x: np.frexp(x)[0])
    case(f"frexp_e_{d}", [d], lambda x: np.frexp(x)[1])
case("i0_big", ["f64i0"], np.i0)
case("sinc_big", ["f64i0"], np.sinc)
case("spacing_big", ["f64i0"], np.spacing)
case("frexp_m_big", ["f64i0"], lambda x: np.frexp(x)[0])
case("frexp_e_big", ["f64i0"], lambda x: np.frexp(x)[1])

PAIRS = {"f64": ["f64", "f64b"], "f32": ["f32", "f32b"], "f32f64": ["f32", "f64b"], "i64": ["i64", "i64b"],
         "i32": ["i32", "i32b"], "i8": ["i8", "i8b"], "u8": ["u8", "u8b"], "u8i8": ["u8", "i8b"],
         "bool": ["bool", "boolb"], "c128": ["c128", "c128b"], "i64f32": ["i64", "f32s"]}
for pn, ins in PAIRS.items():
    case(f"nextafter_{pn}", ins, np.nextafter)
    case(f"divmod_q_{pn}", ins, lambda a, b: np.divmod(a, b)[0])
    case(f"divmod_r_{pn}", ins, lambda a, b: np.divmod(a, b)[1])
    case(f"float_power_{pn}", ins, np.float_power)
case("float_power_c64f32", ["c64", "f32s"], np.float_power)
case("float_power_i64_m2", ["i64"], lambda x: np.float_power(x, -2))
case("float_power_f64_half", ["f64"], lambda x: np.float_power(x, 0.5))
case("float_power_2_i8", ["i8"], lambda x: np.float_power(2, x))
case("float_power_f32_1j", ["f32"], lambda x: np.float_power(x, 1j))
case("nextafter_f32_1", ["f32"], lambda x: np.nextafter(x, 1.0))
case("nextafter_f64_minf", ["f64"], lambda x: np.nextafter(x, -inf))
case("divmod_q_i64_3", ["i64"], lambda x: np.divmod(x, 3)[0])
case("divmod_r_f64_m1_5", ["f64"], lambda x: np.divmod(x, -1.5)[1])
case("divmod_r_u8_256", ["u8"], lambda x: np.divmod(x, 256)[1])

# ldexp: x's float dtype, an integer exponent
case("ldexp_f64_i64", ["f64s", "expo"], np.ldexp)
case("ldexp_f32_i64", ["f32s", "expo"], np.ldexp)
case("ldexp_f32_i32", ["f32s", "i32b"], np.ldexp)
case("ldexp_i64_i8", ["i64", "i8b"], np.ldexp)
case("ldexp_i16_u16", ["i16", "u16"], np.ldexp)
case("ldexp_f64_bool", ["f64s", "bool"], np.ldexp)
case("ldexp_f64_u64", ["f64s", "u64"], np.ldexp)  # TypeError
case("ldexp_f64_f32", ["f64s", "f32s"], np.ldexp)  # TypeError
case("ldexp_c128_i64", ["c128", "i64"], np.ldexp)  # TypeError
case("ldexp_f64_3", ["f64"], lambda x: np.ldexp(x, 3))
case("ldexp_f32_2e40", ["f32"], lambda x: np.ldexp(x, 2**40))
case("ldexp_2_i32", ["i32b"], lambda e: np.ldexp(2.0, e))

# moment (Dask's, not numpy's): the two-pass formula
def moment(x, order, axis=None, keepdims=False, ddof=0):
    if order < 0:
        raise ValueError("Order must be an integer >= 0")
    if np.iscomplexobj(x):
        raise TypeError("complex")
    if order < 2:
        return np.full(np.sum(x, axis=axis).shape, float(1 - order))
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
    mu = np.mean(x, axis=axis, keepdims=True)
    return ((x - mu) ** order).sum(axis=axis, keepdims=keepdims) / (n - ddof)


inp("f64fin", np.sin(t * 0.37).reshape(7, 9) * 3 + 1)
case("moment_2_all", ["f64fin"], lambda x: moment(x, 2))
case("moment_3_ax0", ["f64fin"], lambda x: moment(x, 3, axis=0))
case("moment_4_ax1_keep_ddof1", ["f64fin"], lambda x: moment(x, 4, axis=1, keepdims=True, ddof=1))
case("moment_2_f32_ax1", ["f32b"], lambda x: moment(x, 2, axis=1))
case("moment_3_i64_ax0", ["i64"], lambda x: moment(x, 3, axis=0))
case("moment_2_bool", ["bool"], lambda x: moment(x, 2))
case("moment_2_axes", ["f64fin"], lambda x: moment(x, 2, axis=(0, 1)))
case("moment_0_ax1", ["f64fin"], lambda x: moment(x, 0, axis=1))
case("moment_1_all", ["i8"], lambda x: moment(x, 1))
case("moment_neg", ["f64fin"], lambda x: moment(x, -1))
case("moment_c128", ["c128"], lambda x: moment(x, 2))
case("moment_2_empty", ["e0x4"], lambda x: moment(x, 2, axis=0))
case("moment_5_nan", ["f64b"], lambda x: moment(x, 5, axis=1))

# extract: condition and arr flattened
case("extract_f64", ["f64"], lambda x: np.extract(x > 0.5, x))
case("extract_bool_c128", ["bool", "c128"], np.extract)
case("extract_i64_cond", ["i64", "f32b"], lambda c, a: np.extract(c[:, :4], a[:4, :4]))  # int condition, other shape
case("extract_short", ["mask20", "f64"], np.extract)  # a shorter condition
case("extract_long", ["long70", "f64"], np.extract)  # IndexError
case("extract_empty", ["e0x4"], lambda x: np.extract(x > 0, x))
# union1d: both flattened, dtypes promoted, sorted unique (one NaN)
case("union1d_f64", ["v7", "f64b"], np.union1d)
case("union1d_i32_i64", ["v5i", "i64b"], np.union1d)
case("union1d_bool_i8", ["bool", "i8"], np.union1d)
case("union1d_empty", ["e0x4", "v5i"], np.union1d)

# fused chains of the new functions
case("chain_sinc_i0", ["f64", "f64b"], lambda x, y: np.sinc(x * 0.3) + np.i0(y) * np.spacing(x))
case("chain_modf_sum", ["f64b"], lambda x: (np.modf(x * 3)[0] * np.frexp(x)[1]).sum(axis=0))

# result dtypes for every dtype (pair): nd's names for the ops with one
# output, an output's index for the others
DT12 = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "complex64", "complex128"]


def rtype(fn, *dts):
    try:
        return np.asarray(fn(*[np.ones(2, dtype=d) for d in dts])).dtype.name
    except Exception:
        return "error"


UNARY_FNS = {"positive": np.positive, "sinc": np.sinc, "i0": np.i0, "spacing": np.spacing,
             "modf_fractional": lambda x: np.modf(x)[0], "modf_integral": lambda x: np.modf(x)[1],
             "frexp_mantissa": lambda x: np.frexp(x)[0], "frexp_exponent": lambda x: np.frexp(x)[1]}
BINARY_FNS = {"nextafter": np.nextafter, "ldexp": np.ldexp, "float_power": np.float_power,
              "divmod": lambda a, b: np.divmod(a, b)[0]}
table = {"unary": {op: {d: rtype(f, d) for d in DT12} for op, f in UNARY_FNS.items()},
         "binary": {op: {f"{a},{b}": rtype(f, a, b) for a in DT12 for b in DT12} for op, f in BINARY_FNS.items()}}

goldens.write(OUT, cases, inputs, sidecars={"dtypes.json": table}, sidecar_indent=0, skip_float16=True)
