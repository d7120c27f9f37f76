"""Writes the HDF5 test files of tessera's nd/hdf5 and udfbridge tests.

Usage: python3 gen.py DIR < cases.json

cases.json is a list of {"file", "dataset", "dtype" (numpy's dtype string,
byte order included: ">u2", "<f4", "c8", "?"), "shape", "chunks" (null:
contiguous), "compression" (null or "gzip"), "shuffle" (bool)}. Each
dataset holds values of its flat index i: integers (7i + 3) mod 251 (then
minus 100 for signed types), floats i/2 - 3, complex i - 2i*j, bools i % 3
== 0, byte strings str(i) (a type the reader refuses). Beside each file, DIR/<file>.<dataset path with / as _>.npy holds
what h5py reads back, little-endian: the oracle of the Go tests.
"""
import json
import os
import sys

import h5py
import numpy as np


def values(dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.int64)
    if dt.kind == "b":
        v = i % 3 == 0
    elif dt.kind in "iu":
        v = (7 * i + 3) % 251
        if dt.kind == "i":
            v = v - 100
    elif dt.kind == "f":
        v = i / 2 - 3
    elif dt.kind == "c":
        v = i - 2j * i
    elif dt.kind == "S":
        v = np.array([str(x).encode() for x in i])
    else:
        raise ValueError("no formula for %s" % dt)
    return v.astype(dt).reshape(shape)


def main():
    out = sys.argv[1]
    for c in json.load(sys.stdin):
        dt = np.dtype(c["dtype"])
        data = values(dt, tuple(c["shape"]))
        path = os.path.join(out, c["file"])
        with h5py.File(path, "a") as f:
            kw = {}
            if c.get("chunks"):
                kw["chunks"] = tuple(c["chunks"])
            if c.get("compression"):
                kw["compression"] = c["compression"]
            if c.get("shuffle"):
                kw["shuffle"] = True
            f.create_dataset(c["dataset"], data=data, dtype=dt, **kw)
        with h5py.File(path, "r") as f:
            back = f[c["dataset"]][()]
        name = c["file"] + "." + c["dataset"].strip("/").replace("/", "_") + ".npy"
        np.save(os.path.join(out, name), np.asarray(back).astype(dt.newbyteorder("<")))


main()
