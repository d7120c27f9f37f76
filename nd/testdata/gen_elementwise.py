#!/usr/bin/python3
"""Writes ew_golden.npz: numpy 1.24's results of tessera's elementwise ops.

Run with Debian's numpy (/usr/bin/python3 gen_elementwise.py). Entries:
  in.NAME              an input array
  out.OP.X             OP (a numpy ufunc name) applied to input X
  out.OP.X.Y           binary OP applied to inputs X and Y (broadcast)
  out.where.C.X.Y      np.where(C, X, Y)
  err.OP.X[.Y]         numpy raises for this call (an empty array)
Where numpy's result is float16 (sqrt of int8, ...), the entry holds numpy's
float32 result on the operands cast to float32: tessera has no float16 and
computes those in float32.
Ops on dtypes numpy rejects (TypeError) are covered by promote_table.json and
left out here.
"""
import warnings

import numpy as np

warnings.simplefilter("ignore")

BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "minimum", "maximum", "arctan2", "equal", "not_equal", "less", "less_equal",
          "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"]
UNARY = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tan",
         "logical_not", "square"]

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def pair_values(dt):
    """Two equal-length operands that meet every sign, zero and extreme."""
    d = np.dtype(dt)
    if d.kind == "b":
        x = [False, False, True, True]
        y = [False, True, False, True]
        return np.array(x, d), np.array(y, d)
    if d.kind in "iu":
        info = np.iinfo(d)
        base = [0, 1, 2, 3, 7, 100, info.max, info.max - 1]
        if d.kind == "i":
            base += [-1, -2, -7, -100, info.min, info.min + 1]
        x, y = [], []
        for a in base:
            for b in base:
                x.append(a)
                y.append(b)
        return np.array(x, d), np.array(y, d)
    specials = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, 0.1, 3.0, 1e30, -1e-30,
                np.inf, -np.inf, np.nan]
    if d.kind == "c":
        specials = [0, 1, -1, 1j, -1j, 2.5 - 1.5j, -0.5 + 3j, 1e10 + 1j, 3 + 0j,
                    complex(np.inf, 0), complex(np.nan, 1), complex(1, np.nan)]
    x, y = [], []
    for a in specials:
        for b in specials:
            x.append(a)
            y.append(b)
    return np.array(x, d), np.array(y, d)


def main():
    out = {}

    def put(key, arr):
        assert key not in out, key
        out[key] = np.array(arr, order="C")  # ascontiguousarray would make 0-d arrays 1-d

    def run(opname, *names):
        args = [inputs[n] for n in names]
        key = ".".join([opname] + list(names))
        try:
            r = getattr(np, opname)(*args)
        except (TypeError, ValueError):
            put("err." + key, np.zeros(0, bool))
            return
        if r.dtype == np.float16:
            # tessera has no float16 and computes these in float32.
            r = getattr(np, opname)(*[a.astype(np.float32) if a.dtype.itemsize <= 2 else a for a in args])
            assert r.dtype == np.float32, key
        put("out." + key, r)

    inputs = {}
    for dt in ["bool"] + INTS + ["float32", "float64", "complex64", "complex128"]:
        x, y = pair_values(dt)
        inputs["x_" + dt] = x
        inputs["y_" + dt] = y
        if dt in INTS:
            # Non-negative exponents for power, and a negative one.
            inputs["e_" + dt] = np.array([0, 1, 2, 3, 5, 7, 8, 63] * (len(x) // 8) + [0] * (len(x) % 8), dt)[: len(x)]
    inputs["eneg_int32"] = np.array([2, -1], "int32")
    inputs["b2_int32"] = np.array([3, 4], "int32")
    # Broadcasting and layouts.
    inputs["c31_float64"] = np.array([[1.5], [-2.0], [np.nan]])
    inputs["r14_float64"] = np.array([[0.5, -1.0, 2.0, np.inf]])
    inputs["m23_int32"] = np.array([[1, -2, 3], [-4, 5, 0]], "int32")
    inputs["v3_int32"] = np.array([2, 0, -3], "int32")
    inputs["v3_float32"] = np.array([2, 0.5, -3], "float32")
    inputs["e03_float64"] = np.zeros((0, 3))
    inputs["v3_float64"] = np.array([1.0, -1.0, 0.0])
    inputs["s_float64"] = np.array(2.5)
    inputs["s_int64"] = np.array(100)
    inputs["s_int64neg"] = np.array(-3)
    inputs["s_uint8"] = np.array(200, np.uint8)
    inputs["x_int8small"] = np.array([1, 100, -100, 27, -128], "int8")
    inputs["t34_float64"] = np.arange(12.0).reshape(4, 3).T  # not C-contiguous
    inputs["t43_float64"] = np.linspace(-1, 1, 12).reshape(3, 4)
    inputs["c_bool34"] = (np.arange(12).reshape(3, 4) % 3 == 0)
    inputs["c_int21"] = np.array([[0], [2]], "int32")
    inputs["c_bool5"] = np.array([True, False, False, True, True])
    for k, v in inputs.items():
        put("in." + k, v)

    dts = ["bool"] + INTS + ["float32", "float64", "complex64", "complex128"]
    for dt in dts:
        for op in BINARY:
            if op == "power" and dt in INTS:
                run(op, "x_" + dt, "e_" + dt)
            else:
                run(op, "x_" + dt, "y_" + dt)
        for op in UNARY:
            run(op, "x_" + dt)
    # Mixed dtypes.
    for a, b in [("x_int8", "y_uint8"), ("x_int16", "y_float32"), ("x_uint64", "y_int64"),
                 ("x_bool", "y_bool"), ("x_float32", "y_complex128")]:
        n = min(len(inputs[a]), len(inputs[b]))
        ka, kb = a + "n%d" % n, b + "n%d" % n
        inputs[ka], inputs[kb] = inputs[a][:n], inputs[b][:n]
        put("in." + ka, inputs[ka])
        put("in." + kb, inputs[kb])
        for op in ["add", "subtract", "multiply", "divide", "floor_divide", "maximum", "less", "arctan2"]:
            run(op, ka, kb)
    run("power", "b2_int32", "eneg_int32")
    for op in BINARY:
        run(op, "c31_float64", "r14_float64")
        run(op, "m23_int32", "v3_int32")
        run(op, "m23_int32", "v3_float32")
        run(op, "e03_float64", "v3_float64")
        run(op, "s_float64", "m23_int32")
        run(op, "m23_int32", "s_int64neg")
        run(op, "t34_float64", "t43_float64")
        run(op, "x_int8small", "s_int64")
        run(op, "x_int8small", "s_uint8")
    for op in UNARY:
        run(op, "t34_float64")
        run(op, "e03_float64")
        run(op, "s_float64")
    for c, a, b in [("c_bool34", "t43_float64", "s_float64"), ("c_int21", "m23_int32", "v3_float32"),
                    ("c_bool5", "x_int8small", "s_int64"), ("v3_float64", "s_int64", "s_float64"),
                    ("c_int21", "e03_float64", "v3_float64")]:
        key = "where.%s.%s.%s" % (c, a, b)
        try:
            put("out." + key, np.where(inputs[c], inputs[a], inputs[b]))
        except ValueError:
            put("err." + key, np.zeros(0, bool))
    np.savez_compressed("ew_golden.npz", **out)


if __name__ == "__main__":
    main()
