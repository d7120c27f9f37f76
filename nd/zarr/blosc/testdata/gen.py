#!/usr/bin/python3
"""Writes the blosc fixtures that blosc_test.go decodes.

Run from this folder with Debian's python3-numcodecs 0.11 (c-blosc 1.21):

    /usr/bin/python3 gen.py

Every fixture <name>.blosc is one raw blosc1 buffer; manifest.tsv lists, per
fixture, the name, the payload's element size in bytes (ts), the payload length
in bytes (nbytes) and whether the decoder must accept it ("ok") or refuse it
naming a variant (the expected words of the error).

The payload is a formula that the Go test recomputes: element i is

    v(i) = 42                           if (i // 4096) % 3 == 1   (a run of repeats)
           (i * 2654435761) % 1000      otherwise

written as a ts-byte little-endian unsigned integer (wrapping, as numpy's
astype does), and the byte string is cut to nbytes (only the ctypes fixtures
have nbytes that is not a multiple of ts).

Most fixtures come from numcodecs.Blosc(...).encode(array), exactly what
zarr-python writes for a chunk. numcodecs takes the type size from the array's
itemsize, so the fixtures whose length is not a multiple of the type size call
blosc_compress_ctx of the same libblosc.so.1 through ctypes.

numcodecs compresses the blocks of a buffer on several threads, and c-blosc
writes each block where the output stands when it finishes, so a rerun may
store some blocks in another order (same size, same decoded bytes): the block
offset table, not the position in the buffer, says where a block is.

lz4_block_*.lz4 are raw LZ4 blocks from liblz4's LZ4_compress_default, an
independent oracle for the block decoder alone.
"""
import ctypes
import os

import numpy as np
from numcodecs import Blosc

HERE = os.path.dirname(os.path.abspath(__file__))


def payload(n_elems, ts):
    i = np.arange(n_elems, dtype=np.uint64)
    v = (i * np.uint64(2654435761)) % np.uint64(1000)
    v[(i // 4096) % 3 == 1] = 42
    return v.astype("<u%d" % ts)


def payload_bytes(nbytes, ts):
    n = (nbytes + ts - 1) // ts
    return payload(n, ts).tobytes()[:nbytes]


SHUFFLES = {"noshuffle": Blosc.NOSHUFFLE, "shuffle": Blosc.SHUFFLE}
CODECS = ["lz4", "lz4hc", "zstd", "zlib"]
TYPESIZES = [1, 2, 4, 8]
# sizes in bytes of payload
SIZES = {
    "tiny": 40,  # below blosc's 128-byte minimum: stored memcpyed
    "small": 4000,  # less than one block
    "several": 333336,  # several blocks plus a leftover block
    "1mib": 1 << 20,
}

lib = ctypes.CDLL("libblosc.so.1")
lib.blosc_compress_ctx.restype = ctypes.c_int
lib.blosc_compress_ctx.argtypes = [
    ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.c_size_t,
    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
    ctypes.c_size_t, ctypes.c_int,
]


def ctypes_compress(data, ts, cname, shuffle, clevel=5, blocksize=0):
    dest = ctypes.create_string_buffer(len(data) + 16)
    src = ctypes.create_string_buffer(data, len(data))
    n = lib.blosc_compress_ctx(clevel, shuffle, ts, len(data), src, dest,
                               len(data) + 16, cname.encode(), blocksize, 1)
    if n <= 0:
        raise RuntimeError("blosc_compress_ctx failed: %d" % n)
    return dest.raw[:n]


BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_FORWARD_COMPAT_SPLIT = 1, 2, 4

manifest = []


def write(name, buf, ts, nbytes, expect="ok"):
    with open(os.path.join(HERE, name + ".blosc"), "wb") as f:
        f.write(bytes(buf))
    manifest.append("%s\t%d\t%d\t%s" % (name, ts, nbytes, expect))


for cname in CODECS:
    for sname, shuffle in SHUFFLES.items():
        for ts in TYPESIZES:
            for size_name, nbytes in SIZES.items():
                codec = Blosc(cname=cname, clevel=5, shuffle=shuffle)
                buf = codec.encode(payload(nbytes // ts, ts))
                write("%s_%s_t%d_%s" % (cname, sname, ts, size_name), buf, ts, nbytes)
            # a length that is not a multiple of the type size
            if ts > 1:
                nbytes = 100001
                buf = ctypes_compress(payload_bytes(nbytes, ts), ts, cname, shuffle)
                write("%s_%s_t%d_ragged" % (cname, sname, ts), buf, ts, nbytes)
        # many small blocks with a leftover block
        codec = Blosc(cname=cname, clevel=5, shuffle=shuffle, blocksize=2048)
        buf = codec.encode(payload(10000, 4))
        write("%s_%s_t4_blocks2k" % (cname, sname), buf, 4, 40000)
    # level 9, the highest compression
    codec = Blosc(cname=cname, clevel=9, shuffle=Blosc.SHUFFLE)
    write("%s_shuffle_t8_clevel9" % cname, codec.encode(payload(50000, 8)), 8, 400000)
    # level 1: 128 KiB blocks for 8-byte types, so several blocks and a leftover
    codec = Blosc(cname=cname, clevel=1, shuffle=Blosc.SHUFFLE)
    write("%s_shuffle_t8_clevel1" % cname, codec.encode(payload(50000, 8)), 8, 400000)
    # level 0: blosc stores the data (memcpyed)
    codec = Blosc(cname=cname, clevel=0, shuffle=Blosc.SHUFFLE)
    write("%s_shuffle_t8_clevel0" % cname, codec.encode(payload(625, 8)), 8, 5000)

# random bytes do not compress: the first block's stream is stored raw (a
# stream size equal to its uncompressed size), the zero blocks after it are
# not. Splitting is turned off so that blosc keeps the 8 KiB blocks asked for
# (it enlarges split blocks to at least 64 KiB).
rng = np.random.default_rng(7)
noise = rng.integers(0, 256, 8192, dtype=np.uint8)
noise.tofile(os.path.join(HERE, "noise.bin"))
data = np.concatenate([noise, np.zeros(24576, dtype=np.uint8)]).tobytes()
lib.blosc_set_splitmode(BLOSC_NEVER_SPLIT)
for cname in CODECS:
    buf = ctypes_compress(data, 4, cname, Blosc.SHUFFLE, blocksize=8192)
    assert not buf[2] & 0x02, "expected a compressed buffer"
    write("noise_%s" % cname, buf, 0, len(data), "noise")

# the split modes a user can pick with BLOSC_SPLITMODE: never split (lz4
# gets the dont-split flag) and always split (zstd gets split streams)
for mode_name, mode in [("never", BLOSC_NEVER_SPLIT), ("always", BLOSC_ALWAYS_SPLIT)]:
    lib.blosc_set_splitmode(mode)
    for cname in CODECS:
        nbytes = 200000
        buf = ctypes_compress(payload_bytes(nbytes, 4), 4, cname, Blosc.SHUFFLE)
        write("%s_shuffle_t4_split%s" % (cname, mode_name), buf, 4, nbytes)
lib.blosc_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT)

# variants the decoder refuses, compressed (not memcpyed) so that the codec matters
zeros = np.zeros(20000, dtype="<u4")
for cname in ["blosclz", "snappy"]:
    buf = Blosc(cname=cname, clevel=5, shuffle=Blosc.SHUFFLE).encode(zeros)
    assert not buf[2] & 0x02, "expected a compressed buffer"
    write("unsupported_%s" % cname, buf, 4, 80000, cname)
for cname in ["lz4", "zstd"]:
    buf = Blosc(cname=cname, clevel=5, shuffle=Blosc.BITSHUFFLE).encode(payload(20000, 4))
    write("unsupported_bitshuffle_%s" % cname, buf, 4, 80000, "bit-shuffle")

with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
    f.write("# name\tts\tnbytes\texpect (written by gen.py)\n")
    f.write("\n".join(manifest) + "\n")

# raw LZ4 blocks from liblz4 itself
lz4 = ctypes.CDLL("liblz4.so.1")
lz4.LZ4_compress_default.restype = ctypes.c_int
lz4.LZ4_compress_default.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
lz4.LZ4_compress_HC.restype = ctypes.c_int
lz4.LZ4_compress_HC.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
lz4_manifest = []
for name, nbytes in [("empty", 0), ("one", 1), ("small", 777), ("big", 300000)]:
    data = payload_bytes(nbytes, 2)
    for kind in ["fast", "hc"]:
        cap = nbytes + nbytes // 255 + 16 + 1
        dst = ctypes.create_string_buffer(cap)
        src = ctypes.create_string_buffer(data, max(nbytes, 1))
        if kind == "fast":
            n = lz4.LZ4_compress_default(src, dst, nbytes, cap)
        else:
            n = lz4.LZ4_compress_HC(src, dst, nbytes, cap, 12)
        assert n > 0
        fname = "lz4_block_%s_%s" % (name, kind)
        with open(os.path.join(HERE, fname + ".lz4"), "wb") as f:
            f.write(dst.raw[:n])
        lz4_manifest.append("%s\t2\t%d" % (fname, nbytes))
with open(os.path.join(HERE, "lz4_manifest.tsv"), "w") as f:
    f.write("# name\tts\tnbytes (payload formula as for blosc, written by gen.py)\n")
    f.write("\n".join(lz4_manifest) + "\n")
