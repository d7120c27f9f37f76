#!/usr/bin/python3
"""Writes nd's printing goldens with numpy (Debian's 1.24): for every case,
the dtype, the shape, the values (as numbers or [re, im] pairs, with
"nan"/"inf"/"-inf" strings) and numpy's repr and str of the array.

Run from nd:  /usr/bin/python3 testdata/gen_repr.py > testdata/repr.json
format_test.go builds the same arrays from the values and compares.
"""
import json

import numpy as np

cases = []


def enc(x):
    if isinstance(x, (complex, np.complexfloating)):
        return [enc(x.real), enc(x.imag)]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    return int(x)


def case(name, a):
    a = np.asarray(a)
    cases.append({
        "name": name,
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "values": [enc(x) for x in a.reshape(-1)],
        "repr": repr(a),
        "str": str(a),
    })


rng = np.random.default_rng(7)
case("f64_simple", [1.0, 2.5])
case("f64_ints", np.arange(5.0))
case("f64_neg", [-1.5, 0.25, 3.0])
case("f64_wrap", np.arange(30.0))
case("f64_2d", np.arange(6.0).reshape(2, 3) / 7)
case("f64_3d", np.arange(24.0).reshape(2, 3, 4) - 5)
case("f64_small", [1e-5, 2.5e-5, 1.0])
case("f64_big", [1e8, 2.0, 3.5])
case("f64_ratio", [0.001, 2.0, 3000.0])
case("f64_nan_inf", [np.nan, 1.0, -np.inf, np.inf])
case("f64_all_nan", [np.nan, np.nan])
case("f64_zero", [0.0, -0.0, 0.0])
case("f64_pi", [np.pi, np.e, 1 / 3])
case("f64_0d", np.array(3.0))
case("f64_0d_frac", np.array(0.1))
case("f64_rand", rng.standard_normal((4, 5)))
case("f64_summary", np.arange(2000.0) / 3)
case("f64_summary_2d", np.arange(40 * 50.0).reshape(40, 50))
case("f64_empty", np.zeros(0))
case("f64_empty_2d", np.zeros((0, 3)))
case("f32_simple", np.array([0.1, 0.2, 1.5], dtype=np.float32))
case("f32_rand", rng.standard_normal(7).astype(np.float32))
case("f32_small", np.array([1e-6, 3.0], dtype=np.float32))
case("i64", [1, -2, 300])
case("i64_2d", np.arange(12).reshape(3, 4))
case("i32", np.array([1, 2, 3], dtype=np.int32))
case("i8", np.array([-128, 0, 127], dtype=np.int8))
case("u8", np.array([0, 255], dtype=np.uint8))
case("u16", np.array([[1, 2], [65535, 4]], dtype=np.uint16))
case("u64_big", np.array([2**64 - 1, 0], dtype=np.uint64))
case("i64_summary", np.arange(1001))
case("i64_wrap", np.arange(100) * 1000)
case("i16_0d", np.array(5, dtype=np.int16))
case("bool", [True, False, True])
case("bool_0d", np.array(True))
case("bool_2d", np.array([[True, False], [False, True]]))
case("c128", [1 + 2j, 3 - 4.5j])
case("c128_nan", [complex(np.nan, 1), 1j, -2 + 0j])
case("c64", np.array([0.5 + 1j, -1 - 1j], dtype=np.complex64))
case("c128_0d", np.array(1 + 2j))
case("f64_long_row", np.linspace(-1, 1, 9))
case("f64_2d_wide", np.arange(2 * 20.0).reshape(2, 20) * 1.5)
print(json.dumps({"numpy": np.__version__, "cases": cases}, indent=1))
