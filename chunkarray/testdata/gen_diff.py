#!/usr/bin/python3
"""Writes chunkarray's randomized differential corpus against numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_diff.py

From a fixed seed, draws random expressions over the chunkarray API
(elementwise unary and binary ufuncs with comparisons and logical ops,
Where, AsType, the reductions with axes, keepdims, ddof and dtype=, the NaN
reductions, the arg reductions, the cumulative ones, Index with
ints/slices/steps/newaxis/ellipsis/int lists/bool lists, Take, Compress,
Transpose, Reshape, Squeeze, ExpandDims, Concatenate, Stack, Dot, Matmul,
Tensordot, Einsum, Ptp, CountNonzero, Median, NanMedian, Sort, ArgSort,
Argwhere, Flatnonzero, Unique, IsIn, SearchSorted, Digitize, Norm, Average,
FFT, IFFT, RFFT) over inputs of 0 to 4 axes (size-0 and size-1 axes
among them), every dtype, Python scalars and 0-d operands, values with NaN, infinities,
negatives, zeros and the integer extremes; evaluates each with numpy and
writes:

  diff/corpus.json.gz  {"seed", "numpy", "exprs": [{"e": AST, "in": [array
                       ids], "out": array id} or {"e", "in", "error": msg}]}
  diff/arrays.bin.gz   the arrays, each a header then raw little-endian C-order
                       bytes: u8 dtype code (DTYPES' index), u8 ndim, ndim x
                       u32 shape, data.

An AST node is {"in": k} (the expression's k-th input array), {"s": v,
"k": "b"|"i"|"f"|"c"} (a Python scalar; floats "nan", "inf", "-inf" as
strings, complex numbers [real, imag]), or {"op": name, "a": [nodes],
...params}: see OPS below and the interpreter in diff_test.go. A 0-d input beside an n-d operand is a
numpy 0-d array (value-based casting, as a Go 0-d *nd.Array operand); a
0-d intermediate result is evaluated here as a 1-element 1-d array beside
an n-d operand, which types it by its dtype as chunkarray types a 0-d
*Array (doc.go, "Operands": Dask's rule, a deliberate deviation).

Left out (documented deviations of chunkarray's, numpy 1.24's bugs and
quirks, results that depend on the order of operations or on the last
bit of an ill-conditioned operand), not written:
  - expressions where numpy makes float16 anywhere (nd/promote.go: no
    float16 in tessera, float32 instead);
  - casts of NaN, infinities or out-of-range floats to integers (C's
    undefined behaviour, numpy warns "invalid value encountered in cast";
    the result is the platform's);
  - an inexact floating value (a reduction's, a libm function's) as the
    operand of an ill-conditioned op: sin/cos/tan/exp, floor_divide,
    remainder, power, arctan2, comparisons, logical ops, Where's
    condition, casts to integers, arg reductions, complex sqrt/log (the
    sign of a zero imaginary part), complex min/max/ptp (lexicographic),
    zero tests (sensitive_args): a last bit of difference there is a
    different answer, not an error of chunkarray's;
  - numpy 1.24's own failures: isin's IndexError on some integer
    arrays, average with weights and a tuple axis (TypeError), average to
    an empty result (ZeroDivisionError), median of an empty array over
    several axes with keepdims (a failed reshape), average of a 0-d array
    over axis 0 (accepted by a numpy scalar); nanvar with a dtype= narrower
    than its input (numpy subtracts a rounded mean: rounding noise);
  - Take and Compress positions out of range of an empty array (numpy 1.24
    ignores them, chunkarray refuses them: Take's and Compress's docs), and
    out-of-range int-array indices of an empty array are an error (numpy
    1.24 deprecates ignoring them, the future numpy raises);
  - Median and NanMedian of the whole array (axes None or ()), of bools or
    of complex numbers: quantile.go's doc (Dask's NotImplementedError);
  - argsort of a 0-d array (numpy gives array(0), np.sort an AxisError;
    chunkarray refuses both);
  - complex power with an exponent beyond 16 in magnitude (numpy's
    complex64 power is float32 arithmetic, n eps off);
  - float32 variances of values whose squares approach float32's
    maximum (whether a sum of squared deviations overflows depends on the
    algorithm);
  - Einsum where a letter's axes differ in length (numpy broadcasts a
    length of 1; Einsum's doc), matrix 2-norms and nuclear norms of
    non-finite matrices (nd's SVD refuses them), variances with ddof >=
    the count (numpy's 0/0 or rounding noise over 0) and empty means in an
    integer dtype (NaN cast);
  - products of non-finite floats (dot, matmul, tensordot, einsum: BLAS
    skips zero factors, so inf * 0 is not NaN there), complex products
    that may overflow (their inf, NaN or 0 depends on the order), p-norms
    with p = 0 or 0.5 of inexact values;
  - complex values are finite, inputs and intermediate results alike
    (values(): non-finite complex arithmetic depends on the order of the
    operations, and numpy's dot goes through BLAS).

diff_test.go runs a bounded number of them by default and all with
TESSERA_DIFF_ALL=1. The sensitive skips also make the search narrower:
a new op belongs in sensitive_args when a last-bit difference of its
operand changes its answer.
"""
import gzip
import json
import os
import random
import struct
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "diff")
# GEN_DIFF_SEED and GEN_DIFF_N draw another corpus (with CONFORMANCE_OUT
# and diff_test.go's TESSERA_DIFF_DIR, a wider search than the committed one).
SEED = int(os.environ.get("GEN_DIFF_SEED") or 20261125)
N_EXPRS = int(os.environ.get("GEN_DIFF_N") or 20000)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]

UNARY = ["negative", "absolute", "sqrt", "exp", "log", "sin", "cos", "tan", "logical_not", "square"]
BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "minimum", "maximum", "arctan2", "equal", "not_equal", "less", "less_equal",
          "greater", "greater_equal", "logical_and", "logical_or", "logical_xor"]
REDUCE = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all"]
NANRED = ["nansum", "nanprod", "nanmin", "nanmax", "nanmean", "nanvar", "nanstd"]
ARGRED = ["argmin", "argmax", "nanargmin", "nanargmax"]
CUM = ["cumsum", "cumprod", "nancumsum", "nancumprod"]

warnings.simplefilter("ignore")  # NaN, overflow and division warnings are expected
rng = random.Random(SEED)
nrng = np.random.default_rng(SEED)


class Skip(Exception):
    pass


# ------------------------------------------------------------------ inputs
FLOATS = [-2.5, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 2.0, 3.25, 7.0, np.nan, np.inf, -np.inf]


def values(dt, n):
    d = np.dtype(dt)
    if d.kind == "b":
        return nrng.random(n) < 0.5
    if d.kind in "iu":
        info = np.iinfo(d)
        lo = 0 if d.kind == "u" else -6
        v = nrng.integers(lo, 10, n).astype(d)
        r = nrng.random(n)
        v[r < 0.04] = info.max
        v[(r >= 0.04) & (r < 0.07)] = info.min
        return v
    if d.kind == "f":
        pick = np.array(FLOATS, dtype=np.float64)[nrng.integers(0, len(FLOATS), n)]
        smooth = np.round(nrng.normal(0, 2, n), 2)
        r = nrng.random(n)
        out = np.where(r < 0.25, pick, smooth)
        if rng.random() < 0.4:  # half the arrays finite
            out = np.where(np.isfinite(out), out, 1.5)
        return out.astype(d)
    # Complex values are finite: which of inf, -inf and NaN a product or a
    # sum of non-finite complex numbers gives depends on the order of the
    # operations ((inf+1j)*(1+1j) is inf+infj, but a chunked cumprod
    # associates differently than numpy's loop and may give nan+nanj).
    re = np.nan_to_num(values("float64", n), nan=0.25, posinf=4.0, neginf=-4.0)
    im = np.nan_to_num(values("float64", n), nan=-0.75, posinf=3.0, neginf=-3.0)
    out = np.zeros(n, dtype=d)
    out.real, out.imag = re, im  # re + 1j * im would make inf * 1j NaN
    return out


def shape_draw(ndim):
    sizes = [0, 1, 1, 2, 3, 3, 4, 5]
    while True:
        s = tuple(rng.choice(sizes) if rng.random() < 0.9 else rng.choice([6, 7]) for _ in range(ndim))
        if int(np.prod(s)) <= 240:
            return s


def make_input(ctx, shape=None, dt=None):
    if shape is None:
        shape = shape_draw(rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4]))
    if dt is None:
        dt = rng.choice(DTYPES)
    a = values(dt, int(np.prod(shape))).reshape(shape)
    ctx.inputs.append(a)
    return {"in": len(ctx.inputs) - 1}


def scalar_node():
    r = rng.random()
    if r < 0.15:
        return {"s": rng.random() < 0.5, "k": "b"}
    if r < 0.6:
        return {"s": rng.choice([0, 1, 2, 3, -1, -2, 5, 127, 128, 255, 256, 300, -129, 70000, 2 ** 31, 2 ** 40]), "k": "i"}
    if r < 0.93:
        v = rng.choice([0.0, 0.5, -1.5, 2.0, 1e-3, 3.4e38, 1e300, np.nan, np.inf, -np.inf])
        return {"s": v, "k": "f"}
    return {"s": [rng.choice([0.0, 1.5, -2.0]), rng.choice([0.0, 1.0, -0.5])], "k": "c"}


def sval(node):
    v = node["s"]
    if node["k"] == "c":
        return complex(v[0], v[1])
    return v


# ------------------------------------------------------------------ evaluation
class Ctx:
    def __init__(self):
        self.inputs = []


def ev(ctx, node):
    """Evaluates node with numpy."""
    if "in" in node:
        return ctx.inputs[node["in"]]
    if "s" in node:
        return sval(node)
    op = node["op"]
    args = [ev(ctx, a) for a in node["a"]]
    for k in sensitive_args(node, args):
        if inexact(ctx, node["a"][k]):
            raise Skip("an ill-conditioned op of an inexact operand")
    r = OPS[op](node, args)
    r = np.asarray(r) if not isinstance(r, np.ndarray) else r
    if r.dtype == np.float16:
        raise Skip("float16")
    if r.dtype.kind == "c" and not np.all(np.isfinite(r)):
        raise Skip("a non-finite complex value")  # see values(): order-dependent
    return r


# Inexact ops: their floating results may differ from numpy's in the last
# bits (another summation order, another libm).
INEXACT_UNARY = {"exp", "log", "sin", "cos", "tan", "absolute"}  # absolute: hypot of complex
INEXACT_BINARY = {"power", "arctan2", "floor_divide", "remainder"}
EXACT_REDUCE = {"min", "max", "any", "all", "nanmin", "nanmax"}


def inexact(ctx, node):
    """Whether node computes a float or complex value by an inexact op, or
    has such a node below it."""
    if "op" not in node:
        return False
    op, f = node["op"], node.get("f")
    bad = ((op == "unary" and f in INEXACT_UNARY) or (op == "binary" and f in INEXACT_BINARY)
           or (op in ("reduce", "nanreduce") and f not in EXACT_REDUCE)
           or op in ("cum", "dot", "matmul", "tensordot", "median", "einsum", "norm", "average", "fft"))
    if bad and ev(ctx, node).dtype.kind in "fc":
        return True
    return any(inexact(ctx, a) for a in node["a"])


def sensitive_args(node, args):
    """The operands of node where a difference in the last bits of an
    inexact value changes the result beyond the tolerances: periodic
    functions and exp of a large argument, integer parts, comparisons,
    zero tests, casts to integers, positions of extremes. gen_diff draws
    no inexact operand there (diff_test.go's tolerance table assumes it)."""
    op, f = node["op"], node.get("f")
    if op == "unary" and f in ("exp", "sin", "cos", "tan", "logical_not"):
        return [0]
    if (op == "ptp" or f in ("min", "max", "nanmin", "nanmax", "minimum", "maximum")) and \
            any(np.asarray(a).dtype.kind == "c" for a in args):
        return list(range(len(args)))  # complex order is lexicographic: a jump
    if op == "unary" and f in ("sqrt", "log"):
        return [0]  # complex branch cuts: the sign of a reduction's zero imaginary part
    if op == "binary" and (f in INEXACT_BINARY or f.startswith(("equal", "not_equal", "less", "greater", "logical"))):
        return [0, 1]
    if op == "where":
        return [0]
    if op == "astype" and np.dtype(node["dt"]).kind in "biu":
        return [0]
    if op in ("arg", "count_nonzero", "argwhere", "flatnonzero", "unique") or (op == "sort" and f == "argsort"):
        return [0]
    if op in ("isin", "searchsorted", "digitize"):
        return [0, 1]
    if op == "norm" and node.get("ord") in (0, 0.5):
        return [0]  # a zero test, and |x|**0.5 amplifies an error near 0
    return []


def elem_args(node, args):
    """Applies chunkarray's 0-d rule (doc.go, "Operands": a 0-d *Array is
    typed by its dtype alone, like an n-d array; Dask's rule): a computed
    0-d operand beside an n-d one, and every 0-d operand beside a Python
    scalar when no operand has axes (numpy would promote a Python int as
    int64 there, chunkarray value-casts it as beside any array), is a
    1-element 1-d array here. A 0-d input beside an n-d operand stays 0-d:
    the Go side passes it as a 0-d *nd.Array, value-cast as numpy's."""
    nd_max = max((np.ndim(a) for a in args), default=0)
    has_scalar = any(not isinstance(a, np.ndarray) for a in args)
    out = []
    for n, a in zip(node["a"], args):
        if isinstance(a, np.ndarray) and a.ndim == 0:
            if (nd_max > 0 and "in" not in n) or (nd_max == 0 and has_scalar):
                a = a.reshape(1)
        out.append(a)
    return out, nd_max


def fix0(r, nd_max):
    r = np.asarray(r)
    if nd_max == 0 and r.ndim == 1:
        r = r.reshape(())
    return r


def op_unary(node, args):
    a, m = elem_args(node, args)
    return fix0(getattr(np, node["f"])(a[0]), m)


def op_binary(node, args):
    a, m = elem_args(node, args)
    if not isinstance(args[0], np.ndarray) and not isinstance(args[1], np.ndarray):
        raise Skip("two scalars")
    r = fix0(getattr(np, node["f"])(a[0], a[1]), m)
    if node["f"] == "power" and r.dtype.kind == "c" and np.any(np.abs(np.asarray(a[1])) > 16):
        # numpy raises complex64 to a large power in float32 arithmetic, an
        # error growing with the exponent (n eps), beyond a libm's few ulp
        raise Skip("complex power with a large exponent")
    return r


def op_where(node, args):
    a, m = elem_args(node, args)
    if not any(isinstance(x, np.ndarray) for x in args):
        raise Skip("scalars")
    return fix0(np.where(a[0], a[1], a[2]), m)


def op_astype(node, args):
    x = args[0]
    d = np.dtype(node["dt"])
    if d.kind in "iub" and x.dtype.kind in "fc" and d.kind != "b":
        v = x.real if x.dtype.kind == "c" else x
        info = np.iinfo(d)
        if x.size and (not np.all(np.isfinite(v)) or np.any(v >= float(info.max) + 1) or np.any(v <= float(info.min) - 1)):
            raise Skip("undefined cast")
    if d.kind in "iu" and x.dtype.kind == "c":
        raise Skip("complex to int: ComplexWarning")
    return x.astype(d)


def axes_param(node):
    ax = node.get("axes")
    return None if ax is None else tuple(ax)


def op_reduce(node, args):
    x = args[0]
    kw = {"axis": axes_param(node), "keepdims": node.get("keep", False)}
    f = node["f"]
    if f in ("var", "std", "nanvar", "nanstd"):
        kw["ddof"] = node.get("ddof", 0)
    if "dt" in node:
        kw["dtype"] = np.dtype(node["dt"])
        check_cast(x, kw["dtype"])
        if f in ("nanvar", "nanstd") and x.dtype.kind in "fc" and kw["dtype"].itemsize < x.dtype.itemsize:
            # numpy's nanvar subtracts a mean rounded to dtype from x in x's
            # dtype: a variance of rounding noise where chunkarray's is 0
            raise Skip("nanvar in a narrower dtype than its input")
    if f in ("mean", "var", "std"):
        ax = kw["axis"]
        axs = range(x.ndim) if ax is None else [a % x.ndim for a in ax]
        count = int(np.prod([x.shape[a] for a in axs]))
        if count <= kw.get("ddof", 0) and (f != "mean" or np.dtype(kw.get("dtype", "f8")).kind in "iub"):
            # 0/0 or rounding noise over 0 (numpy: inf or NaN by the
            # rounding of a float32 mean), NaN cast to an integer dtype (C's
            # undefined behaviour)
            raise Skip("a variance with ddof >= count, or an empty mean in an integer dtype")
    r = getattr(np, f)(x, **kw)
    check_complex_prod(f, x, np.asarray(r).dtype)
    if f in ("var", "std", "nanvar", "nanstd") and np.asarray(r).dtype in (np.float32, np.complex64) and x.size:
        v = np.abs(x.astype(np.complex128))
        v = v[np.isfinite(v)]
        if v.size and float(v.max()) ** 2 * x.size >= 3e38:
            # squared deviations beyond float32's range: whether they
            # overflow depends on the algorithm (numpy's two passes in
            # float32, chunkarray's merged moments)
            raise Skip("float32 variance of values near sqrt(max float32)")
    return r


def op_arg(node, args):
    x = args[0]
    ax = node.get("axis")
    return getattr(np, node["f"])(x, axis=ax, keepdims=node.get("keep", False))


def check_cast(x, d):
    """Skips a cast of NaN, infinities or out-of-range floats to an integer
    dtype (C's undefined behaviour: the platform's answer)."""
    if d.kind in "iu" and x.dtype.kind in "fc" and x.size:
        v = x.real if x.dtype.kind == "c" else x
        info = np.iinfo(d)
        if not np.all(np.isfinite(v)) or np.any(v >= float(info.max) + 1) or np.any(v <= float(info.min) - 1):
            raise Skip("undefined cast")


def check_complex_prod(f, x, rdt):
    """Float and complex products that may overflow: which of inf, NaN or
    0 comes out depends on the order of the factors (inf * 0 is NaN, 0 *
    big is 0)."""
    if f in ("prod", "nanprod", "cumprod", "nancumprod") and np.dtype(rdt).kind in "fc" and x.size:
        v = np.abs(x.astype(np.complex128)).ravel()
        v = v[np.isfinite(v) & (v > 0)]
        limit = 30 if np.dtype(rdt).itemsize <= 8 and np.dtype(rdt) != np.float64 else 300
        if v.size and float(np.sum(np.maximum(np.log10(v), 0))) > limit:
            raise Skip("a complex product that may overflow")


def op_cum(node, args):
    kw = {"dtype": np.dtype(node["dt"])} if "dt" in node else {}
    if kw:
        check_cast(args[0], kw["dtype"])
    r = getattr(np, node["f"])(args[0], axis=node.get("axis"), **kw)
    check_complex_prod(node["f"], args[0], r.dtype)
    return r


def op_ptp(node, args):
    return np.ptp(args[0], axis=axes_param(node), keepdims=node.get("keep", False))


def op_count_nonzero(node, args):
    return np.count_nonzero(args[0], axis=axes_param(node), keepdims=node.get("keep", False))


def op_median(node, args):
    # Median and NanMedian need axes (no parallel median of the whole array,
    # as Dask's NotImplementedError) and take integers and floats only
    # (quantile.go's doc).
    if not node.get("axes") or args[0].dtype.kind not in "iuf":
        raise Skip("median of the whole array, or of bools or complex numbers")
    try:
        return getattr(np, node["f"])(args[0], axis=axes_param(node), keepdims=node.get("keep", False))
    except ValueError as e:
        if "cannot reshape array of size 0" in str(e):
            # numpy 1.24's bug: the median of an empty array over several
            # axes with keepdims reshapes to (..., newaxis) and fails
            raise Skip("numpy's median of an empty array over several axes")
        raise


def op_sort(node, args):
    if args[0].ndim == 0:
        raise Skip("numpy's argsort of a 0-d array is array(0); chunkarray refuses axis -1, as np.sort")
    return getattr(np, node["f"])(args[0], axis=node["axis"], kind="stable")


def sel_py(s):
    k = s[0]
    if k == "all":
        return slice(None)
    if k == "at":
        return s[1]
    if k == "slice":
        return slice(s[1], s[2], s[3])
    if k == "new":
        return None
    if k == "ell":
        return Ellipsis
    if k == "ints":
        return np.array(s[1], dtype=np.intp)
    if k == "bools":
        return np.array(s[1], dtype=bool)
    raise ValueError(k)


def op_index(node, args):
    x = args[0]
    sels = tuple(sel_py(s) for s in node["sel"])
    r = x[sels]
    return np.array(r)


def axis_len(x, axis):
    return x.size if axis is None else (x.shape[axis] if -x.ndim <= axis < x.ndim else 0)


def op_take(node, args):
    # numpy 1.24 checks take's positions only while copying: an empty array
    # takes any position. chunkarray's Take refuses an out-of-range one
    # always (its doc; numpy deprecates ignoring it for indexing, below).
    r = np.take(args[0], np.array(node["idx"], dtype=np.intp), axis=node.get("axis"))
    n = axis_len(args[0], node.get("axis"))
    if any(not -n <= i < n for i in node["idx"]):
        raise Skip("numpy ignores an out-of-range position of take on an empty array")
    return r


def op_compress(node, args):
    # As take: a true entry beyond the axis of an empty array (Compress's doc).
    r = np.compress(np.array(node["cond"], dtype=bool), args[0], axis=node.get("axis"))
    n = axis_len(args[0], node.get("axis"))
    if any(node["cond"][n:]):
        raise Skip("numpy ignores a true entry beyond the axis of an empty array in compress")
    return r


def op_transpose(node, args):
    ax = node.get("axes")
    return np.transpose(args[0], None if ax is None else tuple(ax))


def op_reshape(node, args):
    return np.reshape(args[0], tuple(node["shape"]))


def op_squeeze(node, args):
    ax = node.get("axes")
    return np.squeeze(args[0], None if ax is None else tuple(ax))


def op_expand(node, args):
    return np.expand_dims(args[0], tuple(node["axes"]))


def op_concat(node, args):
    return np.concatenate(args, axis=node["axis"])


def op_stack(node, args):
    return np.stack(args, axis=node["axis"])


def blas_check(args):
    """numpy's float products go through BLAS, whose gemm skips a zero
    factor (inf * 0 is not NaN there): non-finite operands are left out."""
    if any(np.asarray(a).dtype.kind in "fc" for a in args) and not all(np.all(np.isfinite(a)) for a in args):
        raise Skip("a BLAS product of non-finite values")


def op_dot(node, args):
    blas_check(args)
    return np.dot(args[0], args[1])


def op_matmul(node, args):
    blas_check(args)
    return np.matmul(args[0], args[1])


def einsum_broadcasts(sub, args):
    """Whether a letter has two lengths among the operands (numpy
    broadcasts a length of 1 there; chunkarray's Einsum refuses: its doc)."""
    ins = sub.split("->")[0].split(",")
    seen = {}
    for letters, a in zip(ins, args):
        for c, n in zip(letters, np.shape(a)):
            if seen.setdefault(c, n) != n:
                return True
    return False


def op_einsum(node, args):
    blas_check(args)  # einsum's two-operand products may call BLAS too
    if einsum_broadcasts(node["sub"], args):
        raise Skip("einsum broadcasting a length of 1")
    # chunkarray's 0-d operands count by their dtype (doc.go, "Operands"):
    # numpy's einsum value-casts a 0-d array beside n-d ones, so the dtype
    # of the operands' result_type is asked for explicitly there.
    if any(a.ndim == 0 for a in args) and any(a.ndim > 0 for a in args):
        return np.einsum(node["sub"], *args, dtype=np.result_type(*[a.dtype for a in args]))
    return np.einsum(node["sub"], *args)


def op_argwhere(node, args):
    return np.argwhere(args[0])


def op_flatnonzero(node, args):
    return np.flatnonzero(args[0])


def op_unique(node, args):
    if args[0].dtype.kind == "c":
        raise Skip("unique of complex numbers")  # sortu.go sorts them; NaN-free complex kept below
    return np.unique(args[0])


def op_isin(node, args):
    try:
        return np.isin(args[0], args[1], invert=node["inv"])
    except IndexError as e:
        # numpy 1.24's in1d "table" path for integer arrays indexes with
        # a bool-derived array and fails (a numpy bug, not a refusal)
        raise Skip("numpy's isin IndexError: %s" % e)


def op_searchsorted(node, args):
    return np.searchsorted(args[0], args[1], side="right" if node["right"] else "left")


def op_digitize(node, args):
    return np.digitize(args[0], args[1], right=node["right"])


def norm_ord(o):
    return {"inf": np.inf, "-inf": -np.inf}.get(o, o)


def op_norm(node, args):
    if node.get("ord") in (2, -2, "nuc") and node.get("axes") and len(node["axes"]) == 2 and not np.all(np.isfinite(args[0])):
        # singular values of a non-finite matrix: LAPACK's NaN or numpy's
        # LinAlgError, where nd's SVD refuses infs and NaNs
        raise Skip("matrix 2-norm of a non-finite matrix")
    ax = node.get("axes")
    return np.linalg.norm(args[0], norm_ord(node.get("ord")), None if ax is None else tuple(ax), node["keep"])


def op_average(node, args):
    w = args[1] if len(args) > 1 else None
    ax = node.get("axes")
    if args[0].ndim == 0 and ax:
        # numpy multiplies a 0-d by its weight into a numpy scalar, whose
        # sum takes axis 0; chunkarray's AxisError is numpy's for arrays
        raise Skip("numpy's average of a 0-d array over axis 0")
    if w is not None and ax is not None and len(ax) == 1:
        ax = ax[0]  # numpy 1.24 indexes a tuple axis with a tuple when weights are 1-d
    try:
        return np.average(args[0], axis=ax if ax is None or isinstance(ax, int) else tuple(ax), weights=w, keepdims=node["keep"])
    except ZeroDivisionError:
        # numpy 1.24's mean of an empty result divides a.size by avg.size = 0
        raise Skip("numpy's average to an empty result")
    except TypeError as e:
        if "tuple indices" in str(e):
            raise Skip("numpy 1.24's average with weights and a tuple axis")
        raise


def op_fft(node, args):
    return getattr(np.fft, node["f"])(args[0], n=node.get("n"), axis=node["axis"], norm=node.get("norm"))


def op_tensordot(node, args):
    blas_check(args)
    return np.tensordot(args[0], args[1], axes=(node["axa"], node["axb"]))


OPS = {
    "unary": op_unary, "binary": op_binary, "where": op_where, "astype": op_astype,
    "reduce": op_reduce, "nanreduce": op_reduce, "arg": op_arg, "cum": op_cum,
    "index": op_index, "take": op_take, "compress": op_compress, "transpose": op_transpose,
    "reshape": op_reshape, "squeeze": op_squeeze, "expand": op_expand, "concat": op_concat,
    "stack": op_stack, "dot": op_dot, "matmul": op_matmul, "tensordot": op_tensordot,
    "argwhere": op_argwhere, "flatnonzero": op_flatnonzero, "unique": op_unique, "isin": op_isin,
    "searchsorted": op_searchsorted, "digitize": op_digitize, "norm": op_norm, "average": op_average,
    "fft": op_fft,
    "einsum": op_einsum, "ptp": op_ptp, "count_nonzero": op_count_nonzero, "median": op_median, "sort": op_sort,
}


# ------------------------------------------------------------------ drawing
def compat_shape(shape):
    """A shape that broadcasts with shape (mostly), or a random one."""
    if rng.random() < 0.08:
        return shape_draw(rng.randint(0, 3))
    s = list(shape)
    drop = rng.randint(0, len(s)) if s and rng.random() < 0.4 else 0
    s = s[drop:]
    s = [1 if rng.random() < 0.25 else v for v in s]
    if rng.random() < 0.1 and len(s) < 4:
        s = [1] + s
    return tuple(s)


def rand_axes(nd, allow_none=True):
    if allow_none and rng.random() < 0.3:
        return None
    if nd == 0:
        return [] if rng.random() < 0.5 else [0]
    k = rng.randint(1, nd)
    ax = rng.sample(range(nd), k)
    return [a - nd if rng.random() < 0.3 else a for a in ax]


def shape_of(ctx, node):
    try:
        return np.shape(ev(ctx, node))
    except Skip:
        raise
    except Exception:
        return None


def draw(ctx, depth, shape=None, dt=None):
    """Draws a node; shape and dt are hints for leaves."""
    if depth <= 0 or rng.random() < 0.3:
        return make_input(ctx, shape, dt)
    r = rng.random()
    sub = lambda: draw(ctx, depth - 1, shape, dt)
    if r < 0.14:
        return draw_more(ctx, sub)
    r = rng.random()
    if r < 0.14:
        return {"op": "unary", "f": rng.choice(UNARY), "a": [sub()]}
    if r < 0.34:
        x = sub()
        s = shape_of(ctx, x)
        if s is None:
            s = ()
        q = rng.random()
        if q < 0.2:
            y = scalar_node()
        elif q < 0.3:
            y = make_input(ctx, (), None)
        else:
            y = draw(ctx, depth - 1, compat_shape(s), rng.choice(DTYPES + [None]))
        if rng.random() < 0.3:
            x, y = y, x
        return {"op": "binary", "f": rng.choice(BINARY), "a": [x, y]}
    if r < 0.40:
        x = sub()
        s = shape_of(ctx, x) or ()
        c = draw(ctx, depth - 1, compat_shape(s), "bool") if rng.random() < 0.7 else make_input(ctx, compat_shape(s), None)
        y = scalar_node() if rng.random() < 0.3 else draw(ctx, depth - 1, compat_shape(s), None)
        return {"op": "where", "a": [c, x, y]}
    if r < 0.45:
        return {"op": "astype", "dt": rng.choice(DTYPES), "a": [sub()]}
    if r < 0.55:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        f = rng.choice(REDUCE)
        n = {"op": "reduce", "f": f, "axes": rand_axes(nd), "keep": rng.random() < 0.3, "a": [x]}
        if f in ("var", "std") and rng.random() < 0.3:
            n["ddof"] = rng.choice([1, 2])
        if f in ("sum", "prod", "mean", "var", "std") and rng.random() < 0.15:
            n["dt"] = rng.choice(["int64", "float32", "float64", "int8", "uint32", "complex128"])
        return n
    if r < 0.60:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        f = rng.choice(NANRED)
        n = {"op": "nanreduce", "f": f, "axes": rand_axes(nd), "keep": rng.random() < 0.3, "a": [x]}
        if f in ("nanvar", "nanstd") and rng.random() < 0.3:
            n["ddof"] = 1
        if f in ("nansum", "nanprod", "nanmean", "nanvar", "nanstd") and rng.random() < 0.15:
            n["dt"] = rng.choice(["int64", "float32", "float64", "uint8", "complex128"])
        return n
    if r < 0.64:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        ax = None if nd == 0 or rng.random() < 0.3 else rng.randrange(-nd, nd)
        return {"op": "arg", "f": rng.choice(ARGRED), "axis": ax, "keep": rng.random() < 0.3, "a": [x]}
    if r < 0.68:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        ax = None if nd == 0 or rng.random() < 0.3 else rng.randrange(-nd, nd)
        n = {"op": "cum", "f": rng.choice(CUM), "axis": ax, "method": rng.choice(["sequential", "blelloch"]), "a": [x]}
        if rng.random() < 0.15:
            n["dt"] = rng.choice(["int8", "int64", "uint16", "float32", "float64", "complex64"])
        return n
    if r < 0.78:
        x = sub()
        return {"op": "index", "sel": draw_sels(shape_of(ctx, x) or ()), "a": [x]}
    if r < 0.81:
        x = sub()
        s = shape_of(ctx, x) or ()
        ax = None if not s or rng.random() < 0.3 else rng.randrange(len(s))
        n = s[ax] if ax is not None else int(np.prod(s))
        idx = [rng.randrange(-n, n) for _ in range(rng.randint(0, 5))] if n else []
        if rng.random() < 0.05:
            idx.append(n + 1)
        return {"op": "take", "axis": ax, "idx": idx, "a": [x]}
    if r < 0.83:
        x = sub()
        s = shape_of(ctx, x) or ()
        ax = None if not s or rng.random() < 0.3 else rng.randrange(len(s))
        n = s[ax] if ax is not None else int(np.prod(s))
        m = rng.randint(max(0, n - 2), n + 1)
        return {"op": "compress", "axis": ax, "cond": [rng.random() < 0.5 for _ in range(m)], "a": [x]}
    if r < 0.86:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        ax = None if rng.random() < 0.3 else rng.sample(range(nd), nd)
        return {"op": "transpose", "axes": ax, "a": [x]}
    if r < 0.89:
        x = sub()
        s = shape_of(ctx, x) or ()
        return {"op": "reshape", "shape": draw_reshape(s), "a": [x]}
    if r < 0.91:
        x = sub()
        s = shape_of(ctx, x) or ()
        ones = [i for i, v in enumerate(s) if v == 1]
        ax = None if rng.random() < 0.4 or not ones else rng.sample(ones, rng.randint(1, len(ones)))
        if rng.random() < 0.05 and s:
            ax = [rng.randrange(len(s))]
        return {"op": "squeeze", "axes": ax, "a": [x]}
    if r < 0.93:
        x = sub()
        nd = len(shape_of(ctx, x) or ())
        k = rng.randint(1, 2)
        return {"op": "expand", "axes": [rng.randrange(-(nd + k), nd + k) for _ in range(k)], "a": [x]}
    if r < 0.96:
        x = sub()
        s = shape_of(ctx, x) or ()
        k = rng.randint(1, 3)
        if rng.random() < 0.5:
            if not s:
                s = (2,)
                x = make_input(ctx, s, dt)
            ax = rng.randrange(len(s))
            others = []
            for _ in range(k - 1):
                t = list(s)
                t[ax] = rng.choice([0, 1, 2, 3])
                if rng.random() < 0.05:
                    t[(ax + 1) % len(t)] += 1
                tdt = rng.choice(DTYPES + [None])
                others.append(make_input(ctx, tuple(t), tdt) if rng.random() < 0.6 else draw(ctx, depth - 1, tuple(t), tdt))
            return {"op": "concat", "axis": ax - len(s) if rng.random() < 0.3 else ax, "a": [x] + others}
        others = [make_input(ctx, s, rng.choice(DTYPES + [None])) if rng.random() < 0.6 else draw(ctx, depth - 1, s, None) for _ in range(k - 1)]
        return {"op": "stack", "axis": rng.randrange(-(len(s) + 1), len(s) + 1), "a": [x] + others}
    return draw_product(ctx, depth, dt)


def sorted_input(ctx, n, dt, strict=False):
    """A 1-d input of n sorted values (NaN last), strictly monotonic when
    strict (finite, unique; decreasing half the time)."""
    node = make_input(ctx, (n,), dt)
    a = ctx.inputs[node["in"]]
    if strict:
        a = np.unique(a[np.isfinite(a)] if a.dtype.kind == "f" else a)
        if rng.random() < 0.5:
            a = a[::-1]
    else:
        a = np.sort(a)
    ctx.inputs[node["in"]] = np.array(a, order="C")
    return node


def draw_search(ctx, sub):
    """Argwhere, Flatnonzero, Unique, IsIn, SearchSorted, Digitize."""
    kind = rng.choice(["argwhere", "flatnonzero", "unique", "isin", "searchsorted", "digitize"])
    if kind in ("argwhere", "flatnonzero", "unique"):
        return {"op": kind, "a": [sub()]}
    if kind == "isin":
        return {"op": "isin", "inv": rng.random() < 0.3, "a": [sub(), make_input(ctx, shape_draw(rng.randint(0, 2)), None)]}
    real = [d for d in DTYPES if d[0] in "iuf"]
    if kind == "searchsorted":
        return {"op": "searchsorted", "right": rng.random() < 0.5,
                "a": [sorted_input(ctx, rng.randint(0, 7), rng.choice(real)), sub()]}
    return {"op": "digitize", "right": rng.random() < 0.5,
            "a": [sub(), sorted_input(ctx, rng.randint(1, 6), rng.choice(real), strict=True)]}


def draw_linalgish(ctx, sub):
    """Norm, Average, FFT."""
    x = sub()
    s = shape_of(ctx, x) or ()
    nd = len(s)
    kind = rng.choice(["norm", "average", "fft"])
    if kind == "norm":
        r = rng.random()
        if r < 0.25 or nd == 0:
            return {"op": "norm", "ord": None, "axes": None, "keep": rng.random() < 0.3, "a": [x]}
        if r < 0.6 or nd == 1:
            return {"op": "norm", "ord": rng.choice([None, 1, 2, 3, 0, "inf", "-inf", 0.5]), "axes": [rng.randrange(-nd, nd)],
                    "keep": rng.random() < 0.3, "a": [x]}
        ax = rng.sample(range(nd), 2)
        # 2, -2 and "nuc" take singular values: 2-d arrays only (Norm's doc)
        ords = [None, "fro", 1, -1, "inf", "-inf"] + ([2, -2, "nuc"] if nd == 2 else [])
        return {"op": "norm", "ord": rng.choice(ords), "axes": ax,
                "keep": rng.random() < 0.3, "a": [x]}
    if kind == "average":
        ax = rand_axes(nd)
        n = {"op": "average", "axes": ax, "keep": rng.random() < 0.3, "a": [x]}
        q = rng.random()
        if q < 0.4:
            n["a"].append(make_input(ctx, s, rng.choice(["float64", "float32", "int32", "bool"])))
        elif q < 0.6 and ax is not None and len(ax) == 1 and nd > 0:
            n["a"].append(make_input(ctx, (s[ax[0]],), "float64"))
        if len(n["a"]) > 1:
            # weights of one sign: a sum of weights that cancels makes the
            # average ill-conditioned beyond any stated tolerance
            k = n["a"][1]["in"]
            ctx.inputs[k] = np.maximum(ctx.inputs[k], ctx.inputs[k].dtype.type(0))
        return n
    return {"op": "fft", "f": rng.choice(["fft", "ifft", "rfft"]), "axis": rng.randrange(-nd, nd) if nd else -1,
            "n": rng.choice([None, None, 1, 3, 6]), "norm": rng.choice([None, "ortho", "forward"]), "a": [x]}


def draw_more(ctx, sub):
    """Ptp, CountNonzero, Median, NanMedian, Sort, ArgSort, and the two above."""
    q = rng.random()
    if q < 0.3:
        return draw_search(ctx, sub)
    if q < 0.6:
        return draw_linalgish(ctx, sub)
    x = sub()
    nd = len(shape_of(ctx, x) or ())
    kind = rng.choice(["ptp", "count_nonzero", "median", "sort"])
    if kind == "sort":
        return {"op": "sort", "f": rng.choice(["sort", "argsort"]), "axis": rng.randrange(-nd, nd) if nd else -1, "a": [x]}
    n = {"op": kind, "axes": rand_axes(nd), "keep": rng.random() < 0.3, "a": [x]}
    if kind == "median":
        n["f"] = rng.choice(["median", "nanmedian"])
    return n


def draw_einsum(ctx, depth, dt):
    """Random subscripts over letters i..l of random sizes: operands of 0
    to 3 axes, a repeated letter now and then (a diagonal), an implicit
    output or an explicit one (letters in any order, some summed)."""
    size = {c: rng.choice([0, 1, 1, 2, 3, 4]) for c in "ijkl"}
    subs, xs = [], []
    for _ in range(rng.randint(1, 3)):
        letters = [rng.choice("ijkl") for _ in range(rng.randint(0, 3))]
        if len(set(letters)) < len(letters) and rng.random() < 0.7:
            letters = list(dict.fromkeys(letters))  # repeats mostly avoided
        subs.append("".join(letters))
        xs.append(draw(ctx, depth - 1, tuple(size[c] for c in letters), rng.choice(DTYPES) if dt is None else dt))
    sub = ",".join(subs)
    if rng.random() < 0.6:
        used = sorted(set("".join(subs)))
        out = rng.sample(used, rng.randint(0, len(used)))
        sub += "->" + "".join(out)
    return {"op": "einsum", "sub": sub, "a": xs}


def draw_product(ctx, depth, dt):
    if rng.random() < 0.3:
        return draw_einsum(ctx, depth, dt)
    kind = rng.choice(["dot", "matmul", "tensordot"])
    m, k, n = rng.choice([0, 1, 2, 3]), rng.choice([0, 1, 2, 3, 4]), rng.choice([1, 2, 3])
    dta = rng.choice(DTYPES) if dt is None else dt
    dtb = rng.choice(DTYPES)
    if kind == "tensordot":
        sa, sb = (m, k, 2), (2, k, n)
        x, y = draw(ctx, depth - 1, sa, dta), draw(ctx, depth - 1, sb, dtb)
        pairs = rng.choice([([1], [1]), ([1, 2], [1, 0]), ([], []), ([2], [0])])
        return {"op": "tensordot", "axa": pairs[0], "axb": pairs[1], "a": [x, y]}
    shapes = rng.choice([((m, k), (k, n)), ((k,), (k, n)), ((m, k), (k,)), ((k,), (k,)),
                         ((2, m, k), (k, n)), ((2, m, k), (1, k, n)), ((m, k), (k + 1, n))])
    if kind == "dot" and rng.random() < 0.1:
        shapes = ((), (m, k))
    x, y = draw(ctx, depth - 1, shapes[0], dta), draw(ctx, depth - 1, shapes[1], dtb)
    return {"op": kind, "a": [x, y]}


def draw_sels(s):
    nd = len(s)
    sels = []
    adv = False
    i = 0
    while i < nd:
        n = s[i]
        r = rng.random()
        if r < 0.2:
            sels.append(["all"])
        elif r < 0.4 and n > 0:
            sels.append(["at", rng.randrange(-n, n)])
        elif r < 0.7:
            step = rng.choice([None, None, 1, 2, 3, -1, -2])
            st = rng.choice([None, 0, 1, -1, -2, n, n + 2])
            sp = rng.choice([None, 0, 1, 2, -1, n, n + 3])
            sels.append(["slice", st, sp, step])
        elif r < 0.8 and not adv:
            adv = True
            sels.append(["ints", [rng.randrange(-n, n) for _ in range(rng.randint(0, 4))] if n else []])
        elif r < 0.88 and not adv:
            adv = True
            sels.append(["bools", [rng.random() < 0.5 for _ in range(n)]])
        elif r < 0.94:
            sels.append(["new"])
            continue
        else:
            sels.append(["ell"])
            i = nd  # the ellipsis stands for the rest
            if rng.random() < 0.5 and nd > 0 and s[-1] > 0:
                sels.append(["at", -1])
            break
        i += 1
    if rng.random() < 0.3 and sels:
        sels = sels[: rng.randint(0, len(sels))]  # trailing axes implied
    if rng.random() < 0.03:
        sels.append(["at", 0])  # too many indices: an error
    return sels


def draw_reshape(s):
    size = int(np.prod(s))
    divs = [d for d in range(1, max(size, 1) + 1) if size % d == 0] if size else [0, 1, 2]
    r = rng.random()
    if r < 0.2:
        return [size]
    if r < 0.5 and size:
        a = rng.choice(divs)
        return [a, -1] if rng.random() < 0.5 else [a, size // a]
    if r < 0.7 and size:
        a = rng.choice(divs)
        b = rng.choice([d for d in divs if (size // a) % d == 0])
        return [a, b, size // a // b]
    if r < 0.8:
        return [1] + list(s) + [1]
    if r < 0.9:
        return list(s)[::-1]
    return [size + 1]  # an error unless the reversal is equal


def draw_expr(i):
    for attempt in range(200):
        ctx = Ctx()
        depth = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
        try:
            node = draw(ctx, depth)
        except Skip:
            continue
        if "in" in node:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                warnings.filterwarnings("error", message="invalid value encountered in cast")
                warnings.filterwarnings("error", category=np.ComplexWarning)
                # "Out of bound index found. This was previously ignored when
                # the indexing result contained no elements. In the future
                # the index error will be raised": the future's error.
                warnings.filterwarnings("error", category=DeprecationWarning)
                try:
                    res = ev(ctx, node)
                    err = None
                except Skip:
                    continue
                except (RuntimeWarning, np.ComplexWarning):
                    continue
                except DeprecationWarning as e:
                    res, err = None, "IndexError (future numpy; 1.24's DeprecationWarning): %s" % e
                except Exception as e:  # numpy refuses: Go must too
                    res, err = None, "%s: %s" % (type(e).__name__, e)
        except Skip:
            continue
        if err is None and res.dtype.kind not in "biufc":
            continue
        return ctx, node, res, err
    raise RuntimeError("no expression drawn")


# ------------------------------------------------------------------ writing
class Blob:
    def __init__(self):
        self.parts = []
        self.n = 0

    def add(self, a):
        a = np.array(a, order="C")  # ascontiguousarray would make 0-d 1-d
        d = DTYPES.index(a.dtype.name)
        h = struct.pack("<BB", d, a.ndim) + b"".join(struct.pack("<I", v) for v in a.shape)
        self.parts.append(h + a.astype(a.dtype.newbyteorder("<")).tobytes())
        self.n += 1
        return self.n - 1


def jsonable(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            out[k] = jsonable(v)
        if "s" in out and out.get("k") == "f":
            v = node["s"]
            out["s"] = "nan" if v != v else ("inf" if v == np.inf else ("-inf" if v == -np.inf else v))
        return out
    if isinstance(node, (list, tuple)):
        return [jsonable(v) for v in node]
    if isinstance(node, (np.integer,)):
        return int(node)
    if isinstance(node, (np.bool_,)):
        return bool(node)
    return node


def main():
    os.makedirs(OUT, exist_ok=True)
    blob = Blob()
    exprs = []
    nerr = 0
    for i in range(N_EXPRS):
        ctx, node, res, err = draw_expr(i)
        ids = [blob.add(a) for a in ctx.inputs]
        rec = {"e": jsonable(node), "in": ids}
        if err is None:
            rec["out"] = blob.add(res)
        else:
            rec["error"] = err[:120]
            nerr += 1
        exprs.append(rec)
    doc = {"seed": SEED, "numpy": np.__version__, "exprs": exprs}
    js = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    with open(os.path.join(OUT, "corpus.json.gz"), "wb") as f:
        f.write(gzip.compress(js, compresslevel=9, mtime=0))
    with open(os.path.join(OUT, "arrays.bin.gz"), "wb") as f:
        f.write(gzip.compress(b"".join(blob.parts), compresslevel=9, mtime=0))
    print("%d expressions (%d numpy errors), %d arrays" % (len(exprs), nerr, blob.n))


if __name__ == "__main__":
    main()
