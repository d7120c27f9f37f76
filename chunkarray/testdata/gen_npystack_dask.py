#!/usr/bin/python3
"""Writes .npy stacks with dask.array.to_npy_stack (Debian's dask 2022.12)
for npystack_test.go, which reads them with chunkarray.FromNPYStack and
compares with the arrays saved beside them.

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_npystack_dask.py

npystack_dask/<name>/ is the stack (0.npy, 1.npy, ..., info: a pickle of
the chunks, dtype and axis, pickle's default protocol), npystack_dask/<name>.npy
the whole array, and npystack_dask/chunks.json each stack's chunks.
"""
import json
import os
import shutil

import dask.array as da
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "npystack_dask")

shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)

t = np.arange(63, dtype=np.float64)
f64 = (np.sin(t * 0.37) * 3).reshape(7, 9)
f64[1, 2] = np.nan
stacks = {
    "f64_ax0": (f64, (3, 4), 0),
    "f64_ax1": (f64, (7, (2, 5, 2)), 1),
    "i16_ax1": ((np.arange(40) * 37 % 101 - 50).astype(np.int16).reshape(4, 10), (2, 4), 1),
    "c64_zero": ((np.arange(25) * (1 + 0.5j)).astype(np.complex64).reshape(5, 5), ((2, 0, 3), 5), 0),
    "bool_1d": (np.arange(11) % 3 == 0, 4, 0),
    "u8_3d": ((np.arange(60) * 7 % 256).astype(np.uint8).reshape(3, 4, 5), (1, 2, 5), 2),
    "be_f8": (np.arange(12, dtype=">f8").reshape(6, 2) / 3, (4, 2), 0),
}
chunks = {}
for name, (a, c, axis) in stacks.items():
    x = da.from_array(a, chunks=c)
    da.to_npy_stack(os.path.join(OUT, name), x, axis=axis)
    np.save(os.path.join(OUT, name + ".npy"), a)
    chunks[name] = [list(cs) if i == axis else [sum(cs)] for i, cs in enumerate(x.chunks)]
with open(os.path.join(OUT, "chunks.json"), "w") as f:
    json.dump(chunks, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"{len(stacks)} stacks in {OUT}")
