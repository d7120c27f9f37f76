#!/usr/bin/python3
"""Writes promote_table.json: numpy's dtype promotion and ufunc result dtypes.

Run with Debian's numpy 1.24 (/usr/bin/python3 gen_promote.py). Sections:
  result_type:  row a, column b: np.result_type(a, b), in the order of DTYPES.
  binary:       op, row a, column b: the dtype of ufunc(array_a, array_b), or
                "error" (numpy raises TypeError).
  unary:        the dtype of ufunc(array_a), or "error".
  scalar:       value-based casting of a 0-d operand beside an n-d one
                (numpy 1.x rules): [op, array dtype, scalar dtype, repr(value),
                dtype of op(array, scalar), dtype of op(scalar, array)];
                "valueerror" where numpy computes and raises (integers to
                negative integer powers).
float16 results are written as numpy names them; tessera has no float16 and
the Go test maps it to float32.
"""
import json
import warnings

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "float32", "float64", "complex64", "complex128"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "minimum", "maximum", "arctan2", "equal", "not_equal", "less", "less_equal",
          "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"]
UNARY = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tan",
         "logical_not", "square"]

warnings.simplefilter("ignore")


def ufunc_dtype(name, *args):
    try:
        return str(getattr(np, name)(*args).dtype)
    except TypeError:
        return "error"
    except ValueError:  # integers to negative integer powers: a run-time error
        return "valueerror"


def main():
    out = {"numpy": np.__version__, "dtypes": DTYPES, "result_type": {}, "binary": {}, "unary": {}, "scalar": []}
    for a in DTYPES:
        for b in DTYPES:
            out["result_type"].setdefault(a, []).append(str(np.result_type(np.dtype(a), np.dtype(b))))
    for op in BINARY:
        t = {}
        for a in DTYPES:
            for b in DTYPES:
                t.setdefault(a, []).append(ufunc_dtype(op, np.ones(2, a), np.ones(2, b)))
        out["binary"][op] = t
    for op in UNARY:
        out["unary"][op] = {a: ufunc_dtype(op, np.ones(2, a)) for a in DTYPES}
    scalars = [("bool", True), ("int64", 1), ("int64", 127), ("int64", 128), ("int64", 255),
               ("int64", 256), ("int64", -1), ("int64", -129), ("int64", 40000),
               ("int64", 70000), ("int64", -40000), ("int64", 2**31), ("int64", -2**31 - 1),
               ("uint64", 2**63), ("int8", -5), ("uint8", 200), ("uint16", 3),
               ("float64", 1.5), ("float64", 1e10), ("float64", 1e300), ("float64", float("nan")),
               ("float32", 2.5), ("complex128", 1 + 1j), ("complex128", 1e300 + 0j),
               ("complex64", 1j)]
    for a in DTYPES:
        for sdt, v in scalars:
            s = np.array(v, dtype=sdt)
            for op in ["add", "multiply", "divide", "less"]:
                r = ufunc_dtype(op, np.ones(2, a), s)
                r2 = ufunc_dtype(op, s, np.ones(2, a))
                out["scalar"].append([op, a, sdt, repr(v), r, r2])
    # floor_divide, remainder and power choose their loop by a linear
    # search in which a non-negative integer scalar that fits the signed
    # type of its size casts to it (uint8 // 256 is int16, uint8 + 256 is
    # uint16); floats fit float32 below 3.4e38 in magnitude (numpy's
    # min_scalar_type: float32 + 3.4e38 is float64), infinities and NaN
    # always; complex parts fit complex64 below 3.4e38 and finite.
    ints = [("int64", v) for v in [255, 256, 32767, 32768, 65535, 65536, 2**31 - 1, 2**31, 2**32,
                                   2**63 - 1, -1, -129]] + [("uint64", 2**63), ("uint64", 2**64 - 1)]
    inexact = [("float64", v) for v in [3.4e38, -3.4e38, float(np.nextafter(3.4e38, 0)), 65000.0,
                                        64999.0, float("inf"), float("-inf"), float("nan"), 1e300]]
    inexact += [("float32", 3.4028234663852886e38), ("complex128", complex(3.4e38, 0)),
                ("complex128", complex(0, -3.4e38)), ("complex128", complex(float(np.nextafter(3.4e38, 0)), 1)),
                ("complex128", complex(float("inf"), 0)), ("complex128", complex(float("nan"), 1)),
                ("complex64", complex(float("inf"), 1))]
    for a in DTYPES:
        for sdt, v in ints + inexact:
            s = np.array(v, dtype=sdt)
            ops = ["floor_divide", "remainder", "power", "arctan2", "subtract", "maximum"]
            if (sdt, v) in inexact:
                ops = ["add", "power"]
            for op in ops:
                r = ufunc_dtype(op, np.ones(2, a), s)
                r2 = ufunc_dtype(op, s, np.ones(2, a))
                out["scalar"].append([op, a, sdt, repr(v), r, r2])
    # One line per table row: small, and diffs stay readable.
    def dumps(v, depth=0):
        if isinstance(v, dict):
            items = [json.dumps(k) + ": " + dumps(v[k], depth + 1) for k in sorted(v)]
            return "{\n" + ",\n".join(items) + "\n}"
        if isinstance(v, list) and v and isinstance(v[0], list):
            return "[\n" + ",\n".join(json.dumps(x) for x in v) + "\n]"
        return json.dumps(v)
    with open("promote_table.json", "w") as f:
        f.write(dumps(out) + "\n")


if __name__ == "__main__":
    main()
