#!/usr/bin/python3
"""Writes dask_api.txt: the public functions of dask.array (Debian's dask
2022.12) that api_coverage_test.go compares with chunkarray's exports to
write docs/api.md, one "namespace name" per line.

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_dask_api.py
"""
import inspect
import os
import types

import dask
import dask.array as da
import dask.array.fft as dfft
import dask.array.linalg as dlinalg
import dask.array.random as drandom

HERE = os.path.dirname(os.path.abspath(__file__))

# Names that are classes, warnings, helpers for extension authors or
# re-exports of dask itself, not array functions a user calls.
SKIP = {"Array", "PerformanceWarning", "assert_eq", "register_chunk_type", "optimize",
        "compute", "gufunc", "atop", "ndim", "shape", "result_type"}


def public(mod, names=None):
    out = []
    for n in names or dir(mod):
        if n.startswith("_") or n in SKIP:
            continue
        v = getattr(mod, n)
        if isinstance(v, types.ModuleType) or inspect.isclass(v):
            continue
        if not callable(v):
            continue
        # Keep what the module defines or documents as its own API.
        m = getattr(v, "__module__", "") or ""
        if mod is not da and not (m.startswith(mod.__name__) or n in getattr(mod, "__all__", [])):
            continue
        out.append(n)
    return sorted(out)


lines = [f"# dask {dask.__version__}: namespace name"]
lines += [f"da {n}" for n in public(da)]
lines += [f"da.linalg {n}" for n in public(dlinalg) if n not in ("apply", "array_safe", "blockwise",
          "compression_level", "compression_matrix", "concatenate", "delayed", "derived_from", "dotmany",
          "eye", "from_delayed", "meta_from_array", "partial", "tokenize", "wait", "svd_flip", "solve_triangular_safe", "sfqr")]
lines += [f"da.fft {n}" for n in public(dfft) if n not in ("asarray", "derived_from", "fft_preamble", "fft_wrap",
          "chunk_error", "skip_doctest")]
state = drandom.RandomState
lines += [f"da.random {n}" for n in sorted(n for n in dir(state) if not n.startswith("_") and callable(getattr(state, n))
                                          and n not in ("seed",))]
with open(os.path.join(HERE, "dask_api.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines) - 1, "names")
