#!/usr/bin/python3
"""Writes samekind.json: numpy's can_cast(from, to, casting='same_kind')
for every pair of nd's dtypes, and in-place additions a += b (numpy's
ufunc with out=a, casting='same_kind') with their results or the error."""
import json
import numpy as np

names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
         "uint64", "float32", "float64", "complex64", "complex128"]
table = {f: {t: bool(np.can_cast(np.dtype(f), np.dtype(t), "same_kind")) for t in names} for f in names}
cases = []
for dst, src in [("float32", "float64"), ("float32", "complex128"), ("int32", "float64"),
                 ("uint8", "int64"), ("int8", "uint64"), ("int16", "int64"),
                 ("complex64", "complex128"), ("float64", "int64"), ("bool", "int8")]:
    a = np.array([0.1, 1.5, 3.0], dtype=np.float64).astype(dst) if dst != "bool" else np.array([True, False, True])
    b = np.array([0.2, 2.25, 1e-9], dtype=np.float64).astype(src) if src not in ("int64", "uint64", "int8") else np.array([1, 2, 3], dtype=src)
    try:
        out = a.copy()
        np.add(out, b, out=out, casting="same_kind")
        res = [complex(x).real if np.iscomplexobj(out) is False else [complex(x).real, complex(x).imag] for x in out]
        cases.append({"dst": dst, "src": src, "a": [complex(x).real for x in a], "b": [complex(x).real for x in b],
                      "want": [repr(float(np.real(x))) for x in out], "ok": True})
    except TypeError:
        cases.append({"dst": dst, "src": src, "a": [complex(x).real for x in a], "b": [complex(x).real for x in b], "ok": False})
json.dump({"numpy": np.__version__, "can_cast_same_kind": table, "add_inplace": cases},
          open("samekind.json", "w"), indent=0, sort_keys=True)
