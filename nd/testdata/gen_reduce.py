#!/usr/bin/python3
"""Golden outputs for nd reductions and linear algebra.

Run from nd:  /usr/bin/python3 testdata/gen_reduce.py
Writes testdata/reduce_golden.npz (inputs "in_<name>", outputs
"out_<case>") and testdata/reduce_cases.json (one entry per case).
Made with Debian's python3-numpy 1.24.
"""
import json
import os
import warnings

import numpy as np

warnings.simplefilter("ignore")
rng = np.random.default_rng(20240611)
here = os.path.dirname(os.path.abspath(__file__))

inputs = {}


def add(name, arr):
    inputs[name] = np.array(arr, order="C")


add("f8_345", rng.normal(size=(3, 4, 5)))
nan = rng.normal(size=(4, 6))
nan[1, 2] = np.nan
nan[3, 0] = np.nan
nan[3, 4] = np.nan
add("f8_nan", nan)
add("f8_long", rng.uniform(0, 1, size=(3, 1037)) + 1e3)
add("f4_long", (rng.uniform(0, 1, size=(2, 3001)) + 10).astype(np.float32))
add("f4_345", rng.normal(size=(3, 4, 5)).astype(np.float32))
add("i4_345", rng.integers(-50, 50, size=(3, 4, 5)).astype(np.int32))
add("i1_34", rng.integers(-128, 127, size=(3, 4)).astype(np.int8))
add("u2_34", rng.integers(0, 60000, size=(3, 4)).astype(np.uint16))
add("u8_34", rng.integers(0, 2**62, size=(3, 4)).astype(np.uint64))
add("i8_ties", np.array([[3, 7, 7, 1], [1, 1, 0, 0], [5, 5, 5, 5]], dtype=np.int64))
add("b_345", rng.integers(0, 2, size=(3, 4, 5)).astype(bool))
add("c16_34", rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4)))
add("c8_34", (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64))
add("f8_empty", np.zeros((0, 3)))
add("i8_empty", np.zeros((2, 0), dtype=np.int64))
add("f8_0d", np.array(2.5))

cases = []
outputs = {}


def case(name, kind, op, ins, result=None, error=None, **kw):
    c = {"name": name, "kind": kind, "op": op, "inputs": ins}
    kw = {k: v for k, v in kw.items() if v not in (False, None, 0) or k == "axes"}
    c.update(kw)
    if error is not None:
        c["error"] = error
    else:
        outputs[name] = np.asarray(result)
    cases.append(c)


def axes_for(nd):
    out = [None, ()]
    if nd >= 1:
        out += [(0,), (-1,)]
    if nd >= 3:
        out += [(1, 2)]
    return out


def tag(ax):
    if ax is None:
        return "all"
    if ax == ():
        return "none"
    return "_".join(str(a) for a in ax).replace("-", "m")


reductions = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all"]
for iname, arr in inputs.items():
    for tr in ([False, True] if arr.ndim >= 2 and iname in ("f8_345", "f8_nan", "i4_345") else [False]):
        x = arr.T if tr else arr
        for op in reductions:
            long = iname in ("f8_long", "f4_long")
            if long and op not in ("sum", "mean", "var", "max"):
                continue
            for ax in axes_for(x.ndim):
                if long and ax == ():
                    continue
                for keep in (False, True):
                    if keep and ax not in (None, (0,), (1, 2)):
                        continue
                    name = f"{op}_{iname}{'_T' if tr else ''}_{tag(ax)}{'_keep' if keep else ''}"
                    kw = dict(axes=list(ax) if ax is not None else None, keepdims=keep, transpose=tr)
                    if tr and op in ("prod", "any", "all", "std"):
                        continue
                    if keep:
                        # The values are the plain case's; only the shape differs.
                        try:
                            r = getattr(np, op)(x, axis=ax, keepdims=True)
                        except ValueError:
                            continue
                        cases.append({"name": name, "kind": "reduce", "op": op, "inputs": [iname],
                                      "ref": name[: -len("_keep")], "shape": list(r.shape), **kw})
                        continue
                    try:
                        r = getattr(np, op)(x, axis=ax, keepdims=keep)
                    except ValueError as e:
                        case(name, "reduce", op, [iname], error=str(e), **kw)
                        continue
                    case(name, "reduce", op, [iname], np.asarray(r), **kw)
        for op in ("var", "std"):
            for ax in axes_for(x.ndim)[:3]:
                name = f"{op}_ddof1_{iname}{'_T' if tr else ''}_{tag(ax)}"
                r = getattr(np, op)(x, axis=ax, ddof=1)
                case(name, "reduce", op, [iname], np.asarray(r), axes=list(ax) if ax is not None else None,
                     keepdims=False, transpose=tr, ddof=1)
        for op in ("argmin", "argmax"):
            flat_name = f"{op}_{iname}{'_T' if tr else ''}_flat"
            try:
                case(flat_name, "arg", op, [iname], getattr(np, op)(x), flat=True, axis=0, transpose=tr)
            except ValueError as e:
                case(flat_name, "arg", op, [iname], error=str(e), flat=True, axis=0, transpose=tr)
            for ax in range(-1, x.ndim):
                if x.ndim == 0:
                    break
                name = f"{op}_{iname}{'_T' if tr else ''}_ax{tag((ax,))}"
                try:
                    case(name, "arg", op, [iname], getattr(np, op)(x, axis=ax), flat=False, axis=ax, transpose=tr)
                except ValueError as e:
                    case(name, "arg", op, [iname], error=str(e), flat=False, axis=ax, transpose=tr)

# Linear algebra.
def lin(name, dtype, *shapes, scale=3):
    arrs = []
    for i, s in enumerate(shapes):
        n = f"{name}_{i}"
        if dtype == "bool":
            a = rng.integers(0, 2, size=s).astype(bool)
        elif np.dtype(dtype).kind in "iu":
            a = rng.integers(0, scale * 3, size=s).astype(dtype)
        elif np.dtype(dtype).kind == "c":
            a = (rng.normal(size=s) + 1j * rng.normal(size=s)).astype(dtype)
        else:
            a = rng.normal(size=s).astype(dtype)
        add(n, a)
        arrs.append(n)
    return arrs


def linops(name, kind, a, b, dtype_a, dtype_b=None, **kw):
    ins = lin(name, dtype_a, a) + [lin(name + "b", dtype_b or dtype_a, b)[0]]
    x, y = inputs[ins[0]], inputs[ins[1]]
    try:
        if kind == "matmul":
            r = np.matmul(x, y)
        elif kind == "dot":
            r = np.dot(x, y)
        else:
            r = np.tensordot(x, y, axes=(kw["axesA"], kw["axesB"]))
        case(name, kind, kind, ins, r, **kw)
    except ValueError as e:
        case(name, kind, kind, ins, error=str(e), **kw)


linops("matmul_2x2", "matmul", (3, 4), (4, 5), "float64")
linops("matmul_big", "matmul", (37, 53), (53, 29), "float64")
linops("matmul_1x2", "matmul", (4,), (4, 5), "float64")
linops("matmul_2x1", "matmul", (3, 4), (4,), "float64")
linops("matmul_1x1", "matmul", (4,), (4,), "float64")
linops("matmul_batch", "matmul", (2, 3, 4), (4, 5), "float64")
linops("matmul_bcast", "matmul", (2, 1, 3, 4), (3, 4, 2), "float64")
linops("matmul_1xbatch", "matmul", (4,), (2, 4, 3), "float64")
linops("matmul_f4", "matmul", (6, 7), (7, 3), "float32")
linops("matmul_c16", "matmul", (3, 4), (4, 2), "complex128")
linops("matmul_c8", "matmul", (3, 4), (4, 2), "complex64")
linops("matmul_i4", "matmul", (3, 4), (4, 2), "int32")
linops("matmul_i1_overflow", "matmul", (3, 40), (40, 2), "int8", scale=30)
linops("matmul_u1_f4", "matmul", (3, 4), (4, 2), "uint8", "float32")
linops("matmul_bool", "matmul", (3, 4), (4, 2), "bool")
linops("matmul_i4_f8", "matmul", (3, 4), (4, 2), "int32", "float64")
linops("matmul_mismatch", "matmul", (3, 4), (5, 2), "float64")
linops("matmul_empty_k", "matmul", (3, 0), (0, 2), "float64")
linops("dot_1x1", "dot", (5,), (5,), "float64")
linops("dot_2x2", "dot", (3, 4), (4, 2), "float64")
linops("dot_3x1", "dot", (2, 3, 4), (4,), "float64")
linops("dot_3x3", "dot", (2, 3, 4), (5, 4, 6), "float64")
linops("dot_0x2", "dot", (), (3, 2), "float64")
linops("dot_i8", "dot", (2, 3), (3, 4), "int64")
linops("dot_mismatch", "dot", (2, 3), (4, 5), "float64")
linops("tensordot_12_01", "tensordot", (3, 4, 5), (4, 5, 6), "float64", axesA=[1, 2], axesB=[0, 1])
linops("tensordot_0_1", "tensordot", (3, 4, 5), (2, 3), "float64", axesA=[0], axesB=[1])
linops("tensordot_none", "tensordot", (2, 3), (4,), "float64", axesA=[], axesB=[])
linops("tensordot_20_01", "tensordot", (3, 4, 5), (5, 3, 2), "float32", axesA=[2, 0], axesB=[0, 1])
linops("tensordot_mismatch", "tensordot", (3, 4), (5, 6), "float64", axesA=[1], axesB=[0])

arrays = {"in_" + k: v for k, v in inputs.items()}
arrays.update({"out_" + k: v for k, v in outputs.items()})
np.savez_compressed(os.path.join(here, "reduce_golden.npz"), **arrays)
with open(os.path.join(here, "reduce_cases.json"), "w") as f:
    json.dump({"numpy": np.__version__, "cases": cases}, f, separators=(",", ":"), sort_keys=True)
    f.write("\n")
print(len(cases), "cases,", len(arrays), "arrays")
