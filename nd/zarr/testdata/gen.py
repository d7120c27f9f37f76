#!/usr/bin/python3
"""Writes the zarr v2 fixtures of nd/zarr with zarr-python 2.13
(run from this folder: /usr/bin/python3 gen.py). Values follow formula()
for the flat C-order index i of the whole array, which the Go tests
compute independently:
  bool: i % 3 == 1;  integers: 7*i - 20 (cast, wrapping for unsigned);
  floats: 0.5*i - 3.25;  complex: (0.5*i - 3.25) + i*1j.
Stores named partial_* have only some chunks written; the others must read
as the fill value.
"""
import shutil

import numcodecs
import numpy as np
import zarr


def formula(dtype, shape):
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.int64)
    kind = np.dtype(dtype).kind
    if kind == "b":
        v = i % 3 == 1
    elif kind in "iu":
        v = (7 * i - 20).astype(dtype)
    elif kind == "f":
        v = (0.5 * i - 3.25).astype(dtype)
    else:
        v = ((0.5 * i - 3.25) + 1j * i).astype(dtype)
    return v.reshape(shape)


def store(name, dtype, shape=(5, 7), chunks=(2, 3), compressor=None,
          order="C", sep=".", fill=0, write=None):
    shutil.rmtree(name, ignore_errors=True)
    z = zarr.open(name, mode="w", shape=shape, chunks=chunks, dtype=dtype,
                  compressor=compressor, order=order, fill_value=fill,
                  dimension_separator=sep)
    a = formula(dtype, shape)
    if write is None:
        z[...] = a
    else:
        for sl in write:
            z[sl] = a[sl]


B = numcodecs.Blosc
store("float64_none", "<f8")
store("int32_zlib", "<i4", compressor=numcodecs.Zlib(level=1))
store("int16_gzip", "<i2", compressor=numcodecs.GZip(level=5))
store("float32_zstd", "<f4", compressor=numcodecs.Zstd(level=3))
store("float64_blosc_lz4_shuffle", "<f8", compressor=B(cname="lz4", clevel=5, shuffle=B.SHUFFLE))
store("int32_blosc_lz4_noshuffle", "<i4", compressor=B(cname="lz4", clevel=5, shuffle=B.NOSHUFFLE))
store("float64_blosc_zstd_shuffle", "<f8", compressor=B(cname="zstd", clevel=3, shuffle=B.SHUFFLE))
store("int64_blosc_zlib_shuffle", "<i8", compressor=B(cname="zlib", clevel=4, shuffle=B.SHUFFLE))
store("uint16_blosc_zstd_noshuffle", "<u2", compressor=B(cname="zstd", clevel=1, shuffle=B.NOSHUFFLE))
store("uint16_F_zlib", "<u2", order="F", compressor=numcodecs.Zlib(level=6))
store("float32_3d_F", "<f4", shape=(4, 3, 5), chunks=(3, 2, 2), order="F")
store("int64_slash", "<i8", sep="/", compressor=numcodecs.Zstd(level=1))
store("bool_none", "|b1")
store("uint8_none", "|u1", chunks=(5, 7))
store("int8_gzip", "|i1", compressor=numcodecs.GZip(level=1))
store("uint64_none", "<u8")
store("uint32_none", "<u4")
store("complex64_none", "<c8", fill=1 + 2j)
store("complex128_zlib", "<c16", compressor=numcodecs.Zlib(level=1))
store("float64_big", ">f8")
store("int32_0d", "<i4", shape=(), chunks=())
store("partial_float64_fill", "<f8", fill=42.5,
      write=[np.s_[0:2, :], np.s_[4:5, 3:6]])
store("partial_float32_nan", "<f4", fill=np.nan, compressor=numcodecs.Zstd(level=1),
      write=[np.s_[2:4, 0:3]])
store("partial_int16_F_fill", "<i2", fill=-7, order="F", sep="/",
      write=[np.s_[0:2, 3:6], np.s_[4:5, 6:7]])
store("float64_empty_0x0", "<f8", shape=(0, 0), chunks=(1, 1))
store("int32_empty_0x5", "<i4", shape=(0, 5), chunks=(2, 2), compressor=numcodecs.Zlib(level=1))
