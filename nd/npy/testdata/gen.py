#!/usr/bin/python3
"""Writes the .npy fixtures of nd/npy with numpy (run from this
folder: /usr/bin/python3 gen.py). Values follow formula(), which the Go
tests compute independently: for the flat C-order index i,
  bool: i % 3 == 1;  integers: 7*i - 20 (cast, wrapping for unsigned);
  floats: 0.5*i - 3.25;  complex: (0.5*i - 3.25) + i*1j.
"""
import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "float32", "float64", "complex64", "complex128"]


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


for d in DTYPES:
    a = formula(d, (3, 4))
    np.save(f"{d}_c.npy", a)
    np.save(f"{d}_f.npy", np.asfortranarray(a))
    np.save(f"{d}_big.npy", a.astype(np.dtype(d).newbyteorder(">")))

np.save("float64_0d.npy", formula("float64", ()))
np.save("float64_empty.npy", formula("float64", (0, 3)))
np.save("int16_1d.npy", formula("int16", (5,)))
np.save("float32_3d_f.npy", np.asfortranarray(formula("float32", (2, 3, 4))))
np.save("int32_3d_c.npy", formula("int32", (4, 3, 2)))
# Fortran-order arrays of 4 and 5 axes (ReadRowsInto, ReadRange): every
# dtype, one big-endian, one with an empty axis.
for d in DTYPES:
    np.save(f"{d}_4d_f.npy", np.asfortranarray(formula(d, (3, 4, 5, 6))))
np.save("complex128_4d_fbig.npy",
        np.asfortranarray(formula("complex128", (3, 4, 5, 2)).astype(">c16")))
np.save("uint16_5d_f.npy", np.asfortranarray(formula("uint16", (2, 3, 4, 5, 3))))
np.save("float32_empty_f.npy", np.asfortranarray(formula("float32", (3, 0, 4))))
for v in [(2, 0), (3, 0)]:
    with open(f"float64_v{v[0]}.npy", "wb") as f:
        np.lib.format.write_array(f, formula("float64", (2, 3)), version=v)

# Unsupported dtypes: the reader must refuse them with a clear error.
np.save("unsupported_U5.npy", np.array(["ab", "cde"], dtype="<U5"))
np.save("unsupported_O.npy", np.array([1, "x"], dtype=object), allow_pickle=True)
np.save("unsupported_f2.npy", np.zeros(3, dtype="<f2"))
np.save("unsupported_struct.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))
