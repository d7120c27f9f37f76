#!/usr/bin/python3
"""Writes the numpy goldens of chunkarray's ufuncs (issue 13, area ufunc)
with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_ufunc.py

The format of gen_parity.py: every case is a name, the names of its inputs
and a numpy expression; inputs are saved once each as
parity_ufunc/in_<input>.npy, each result as parity_ufunc/<case>.npy, and
parity_ufunc/cases.json lists the cases in order with their inputs, or
"error" where numpy raises (the Go side must fail too).
parity_ufunc_test.go evaluates the same expression with the chunkarray API
over the conformance chunkings (Sync and Threaded(2), fused and unfused,
persisted, through JSON) and compares with compareGolden.

The unary and binary ufuncs run over every dtype of a list; a result numpy
computes in float16 (the float functions of bool, int8 and uint8), which nd
has not (tessera gives float32), is left out. Complex inputs include
infinite and NaN parts (c128nan, c64nan); compareGolden does not compare
the signs of NaNs.
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_ufunc")

warnings.simplefilter("ignore")

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")


t = np.arange(63, dtype=np.float64)
F = 3 * np.sin(t * 0.37) + 0.25 * np.cos(t * 1.3)
# special values and ties for rint/round, zeros of either sign
F[:14] = [nan, inf, -inf, 0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.25, -0.75, 1e300, -1e-300]
F = F.reshape(7, 9)
inp("f64", F)
inp("f32", F.astype(np.float32))
G = np.cos(t * 0.91).reshape(7, 9) * 2
G[0, :6] = [nan, inf, 1.0, -0.0, nan, -inf]
G[1, :3] = [0.0, 0.0, inf]
inp("f64b", G)
inp("f32b", G.astype(np.float32))
inp("f64row", np.linspace(-2, 2, 9).reshape(1, 9))
# arguments in (-1, 1) and beyond (domain errors give NaN)
inp("f64unit", (np.linspace(-1.2, 1.2, 20)).reshape(4, 5))
I = ((np.arange(20) * 37) % 23 - 11).reshape(4, 5)
I[0, 0] = 0
I[0, 1] = 1
I[0, 2] = -1
for name, dt in [("i64", np.int64), ("i32", np.int32), ("i16", np.int16), ("i8", np.int8)]:
    inp(name, I.astype(dt))
U = ((np.arange(20) * 53) % 256).reshape(4, 5)
U[0, 0] = 0
U[0, 1] = 1
for name, dt in [("u8", np.uint8), ("u16", np.uint16), ("u32", np.uint32), ("u64", np.uint64)]:
    inp(name, U.astype(dt))
J = ((np.arange(20) * 29) % 17 - 8).reshape(4, 5)
J[J == 0] = 3
for name, dt in [("i64b", np.int64), ("i32b", np.int32), ("i8b", np.int8)]:
    inp(name, J.astype(dt))
inp("u8b", (np.abs(J) * 7).astype(np.uint8))
inp("bool", (np.arange(20) % 3 == 0).reshape(4, 5))
inp("boolb", (np.arange(20) % 2 == 0).reshape(4, 5))
C = (np.sin(np.arange(20) * 0.7) * 1.7 + 1j * np.cos(np.arange(20) * 0.4) * 0.9).reshape(4, 5)
C[0, :4] = [0, 1j, -2, complex(0, -3)]
inp("c128", C)
inp("c64", C.astype(np.complex64))
CB = (np.cos(np.arange(20) * 0.3) + 1j * np.sin(np.arange(20) * 0.2)).reshape(4, 5)
inp("c128b", CB)
CN = C.copy()
CN[1, :4] = [complex(nan, 1), complex(inf, -inf), complex(1, nan), complex(-inf, 2)]
inp("c128nan", CN)
inp("c64nan", CN.astype(np.complex64))
inp("shifts", np.array([[0, 1, 7, 8, 9], [63, 64, 70, -1, 3]], dtype=np.int64))
inp("shiftv", np.array([[1, -1, -128, 127, 5], [-7, 100, 1, -1, 2**40]], dtype=np.int64))
inp("i8shiftv", np.array([[1, -1, -128, 127, 5], [-7, 100, 1, -1, 2]], dtype=np.int8))
inp("i8shifts", np.array([[0, 1, 7, 8, 9], [63, 64, 70, -1, 3]], dtype=np.int8))
inp("e0x4", np.zeros((0, 4)))
inp("d0", np.array(1.5))
inp("d0b", np.array(1.5000001))

cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


UNARY = ["floor", "ceil", "trunc", "rint", "sign", "reciprocal", "cbrt", "log10", "log2",
         "log1p", "expm1", "exp2", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh", "deg2rad", "rad2deg", "conjugate", "isnan", "isinf",
         "isfinite", "signbit", "invert", "real", "imag", "isposinf", "isneginf", "fabs", "nan_to_num"]
UNARY_DT = ["f64", "f32", "i64", "i32", "i16", "i8", "u8", "u16", "u32", "u64", "bool", "c128", "c64"]
for op in UNARY:
    f = getattr(np, op)
    for d in UNARY_DT:
        case(f"u_{op}_{d}", [d], f)
    case(f"u_{op}_c128nan", ["c128nan"], f)  # complex inf and nan parts
    case(f"u_{op}_c64nan", ["c64nan"], f)
    if op in ("arcsin", "arccos", "arctanh", "arccosh", "log1p"):
        case(f"u_{op}_unit", ["f64unit"], f)
case("u_floor_empty", ["e0x4"], np.floor)
case("u_isnan_empty", ["e0x4"], np.isnan)
case("u_rint_0d", ["d0"], np.rint)
case("alias_radians", ["f64"], np.radians)  # Go: Deg2Rad
case("alias_degrees", ["f32"], np.degrees)  # Go: Rad2Deg
case("alias_bitwise_not", ["i16"], np.bitwise_not)  # Go: Invert

BINARY = ["hypot", "fmod", "fmax", "fmin", "copysign", "heaviside", "logaddexp", "logaddexp2",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]
PAIRS = {"f64": ["f64", "f64b"], "f32": ["f32", "f32b"], "f64row": ["f64", "f64row"],
         "f32f64": ["f32", "f64b"], "i64": ["i64", "i64b"], "i32": ["i32", "i32b"],
         "i8": ["i8", "i8b"], "u8": ["u8", "u8b"], "u8i8": ["u8", "i8b"], "i32u64": ["i32", "u64"],
         "bool": ["bool", "boolb"], "c128": ["c128nan", "c128b"], "i64f32": ["i64", "f32b"]}
for op in BINARY:
    f = getattr(np, op)
    for pn, ins in PAIRS.items():
        if pn in ("f64row", "f32f64", "i64f32") and op.startswith(("bitwise", "left", "right")):
            continue
        case(f"b_{op}_{pn}", ins, f)
for op in ["left_shift", "right_shift"]:
    f = getattr(np, op)
    case(f"b_{op}_counts", ["shiftv", "shifts"], f)
    case(f"b_{op}_counts_i8", ["i8shiftv", "i8shifts"], f)
# value-based casting of Go scalars (linear loop search for fmod and the
# bitwise operations, as remainder; not for fmax and fmin, as add)
case("sc_u8_and_256", ["u8"], lambda x: np.bitwise_and(x, 256))
case("sc_u8_fmod_256", ["u8"], lambda x: np.fmod(x, 256))
case("sc_u8_fmax_256", ["u8"], lambda x: np.fmax(x, 256))
case("sc_u8_fmin_neg1", ["u8"], lambda x: np.fmin(x, -1))
case("sc_u8_lshift_2", ["u8"], lambda x: np.left_shift(x, 2))
case("sc_i8_or_200", ["i8"], lambda x: np.bitwise_or(x, 200))
case("sc_u16_xor_65536", ["u16"], lambda x: np.bitwise_xor(x, 65536))
case("sc_f32_hypot_2_5", ["f32"], lambda x: np.hypot(x, 2.5))
case("sc_f32_copysign_neg1", ["f32"], lambda x: np.copysign(x, -1.0))
case("sc_f64_heaviside_half", ["f64"], lambda x: np.heaviside(x, 0.5))
case("sc_i64_hypot_3", ["i64"], lambda x: np.hypot(x, 3))
case("sc_bool_fmax_true", ["bool"], lambda x: np.fmax(x, True))

# round / around
for d in ["f64", "f32", "c128", "c64", "i64", "i32", "u8", "u64", "i8", "bool"]:
    for dec in [0, 1, 2, -1, -2]:
        case(f"round_{d}_{dec}".replace("-", "m"), [d], lambda x, dec=dec: np.round(x, dec))
case("round_f32_40", ["f32"], lambda x: np.round(x, 40))  # x * 1e40 overflows float32: inf
case("round_f64_m400", ["f64"], lambda x: np.round(x, -400))
case("round_fused", ["f64", "f64b"], lambda x, y: np.around(x * 3.3 + y, 1))
# clip
case("clip_f64", ["f64"], lambda x: np.clip(x, -1, 1.5))
case("clip_f64_lo", ["f64"], lambda x: np.clip(x, -0.5, None))
case("clip_f64_hi", ["f64"], lambda x: np.clip(x, None, 0.5))
case("clip_f64_none", ["f64"], lambda x: np.clip(x, None, None))  # ValueError
case("clip_f32", ["f32"], lambda x: np.clip(x, 0, 2))
case("clip_i8_300", ["i8"], lambda x: np.clip(x, 0, 300))  # int16
case("clip_u8_neg", ["u8"], lambda x: np.clip(x, -1, 100))  # int16
case("clip_i64_arrays", ["i64", "i64b", "i64b"], lambda x, lo, hi: np.clip(x, lo, hi + 4))
case("clip_f64_row", ["f64", "f64row"], lambda x, r: np.clip(x, r, 2))
case("clip_c128", ["c128"], lambda x: np.clip(x, complex(-1, 0), complex(1, 0.5)))
case("clip_bool", ["bool"], lambda x: np.clip(x, False, True))
# nan_to_num
case("n2n_f64", ["f64"], lambda x: np.nan_to_num(x))
case("n2n_f64_args", ["f64"], lambda x: np.nan_to_num(x, nan=-1, posinf=9, neginf=-9))
case("n2n_f32", ["f32"], lambda x: np.nan_to_num(x))
case("n2n_f32_big", ["f32"], lambda x: np.nan_to_num(x, posinf=1e300))  # inf in float32
case("n2n_c128", ["c128nan"], lambda x: np.nan_to_num(x))
case("n2n_c64_args", ["c64nan"], lambda x: np.nan_to_num(x, nan=5, posinf=6, neginf=-6))
case("n2n_i64", ["i64"], lambda x: np.nan_to_num(x))
case("n2n_bool", ["bool"], lambda x: np.nan_to_num(x))
# angle
case("angle_c128", ["c128"], lambda x: np.angle(x))
case("angle_c64_deg", ["c64"], lambda x: np.angle(x, deg=True))
case("angle_f64", ["f64"], lambda x: np.angle(x))
case("angle_f32_deg", ["f32"], lambda x: np.angle(x, deg=True))
case("angle_i64", ["i64"], lambda x: np.angle(x))
case("angle_bool", ["bool"], lambda x: np.angle(x))  # float64: the scalar 0 outranks bool
# isclose / allclose / array_equal
case("isclose_f64", ["f64", "f64b"], lambda a, b: np.isclose(a, b))
case("isclose_self", ["f64"], lambda a: np.isclose(a, a + 1e-9))
case("isclose_self_nan", ["f64"], lambda a: np.isclose(a, a.copy(), equal_nan=True))
case("isclose_tol", ["f64", "f64b"], lambda a, b: np.isclose(a, b, rtol=0.5, atol=0.3))
case("isclose_tol_nan", ["f64", "f64b"], lambda a, b: np.isclose(a, b, rtol=0.5, atol=0.3, equal_nan=True))
case("isclose_f32", ["f32", "f32b"], lambda a, b: np.isclose(a, b, rtol=1))
case("isclose_i64", ["i64", "i64b"], lambda a, b: np.isclose(a, b, atol=3))
case("isclose_i64_f64", ["i64", "f64unit"], lambda a, b: np.isclose(a, b, atol=1))
case("isclose_row", ["f64", "f64row"], lambda a, b: np.isclose(a, b, atol=0.5))
case("isclose_c128", ["c128nan", "c128b"], lambda a, b: np.isclose(a, b, atol=1, equal_nan=True))
case("isclose_bool", ["bool", "boolb"], lambda a, b: np.isclose(a, b))
case("isclose_0d", ["d0", "d0b"], lambda a, b: np.isclose(a, b))
case("isclose_shapes", ["f64", "i64"], lambda a, b: np.isclose(a, b))  # ValueError: broadcast
case("allclose_f64", ["f64", "f64b"], lambda a, b: np.allclose(a, b))
case("allclose_self_nan", ["f64"], lambda a: np.allclose(a, a + 1e-12, equal_nan=True))
case("allclose_self", ["f64"], lambda a: np.allclose(a, a.copy()))  # nan: false
case("allclose_i64", ["i64", "i64b"], lambda a, b: np.allclose(a, b, atol=20))
case("array_equal_same", ["f64"], lambda a: np.array_equal(a, a.copy()))  # nan: false
case("array_equal_nan", ["f64"], lambda a: np.array_equal(a, a.copy(), equal_nan=True))
case("array_equal_diff", ["f64", "f64b"], lambda a, b: np.array_equal(a, b))
case("array_equal_shape", ["f64", "i64"], lambda a, b: np.array_equal(a, b))
case("array_equal_i64_f32", ["i64", "i32"], lambda a, b: np.array_equal(a, b))
case("array_equal_c128_nan", ["c128nan"], lambda a: np.array_equal(a, a.copy(), equal_nan=True))
# complex construction (tessera's own op) through nan_to_num's parts
case("fused_chain", ["f64", "f64b"], lambda x, y: np.floor(np.tanh(x) * 4) + np.hypot(x, y) * np.sign(y))
case("fused_sum", ["f64b"], lambda y: np.sum(np.logaddexp(y, 1.0), axis=0))

# the result dtype of every ufunc for every dtype (pair), as arrays:
# "error" where numpy raises; float16 results are written as such (tessera
# gives float32 there).
DT12 = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "complex64", "complex128"]


def rtype(fn, *dts):
    try:
        return np.asarray(fn(*[np.ones(2, dtype=d) for d in dts])).dtype.name
    except Exception:
        return "error"


SCALARS = {"int1": 1, "int300": 300, "intm1": -1, "int70000": 70000, "int2e40": 2**40,
           "f2_5": 2.5, "f1e300": 1e300, "true": True, "c1j": 1j}


def stype(fn, d, v, right):
    try:
        a = np.ones(2, dtype=d)
        return np.asarray(fn(a, v) if right else fn(v, a)).dtype.name
    except Exception:
        return "error"


table = {"unary": {op: {d: rtype(getattr(np, op), d) for d in DT12} for op in UNARY},
         "scalar": {op: {f"{d},{sn},{side}": stype(getattr(np, op), d, v, side == "r")
                         for d in DT12 for sn, v in SCALARS.items() for side in "lr"} for op in BINARY},
         "binary": {op: {f"{a},{b}": rtype(getattr(np, op), a, b) for a in DT12 for b in DT12} for op in BINARY}}

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs, sidecars={"dtypes.json": table}, sidecar_indent=0, skip_float16=True)
