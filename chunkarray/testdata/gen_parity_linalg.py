#!/usr/bin/python3
"""Writes chunkarray's linear-algebra and FFT goldens with numpy (Debian's 1.24).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_linalg.py

The format of gen_parity.py: every case is a name, the names of its inputs
and a numpy expression; inputs are saved once each as
parity_linalg/in_<input>.npy, results as parity_linalg/<case>.npy, and
parity_linalg/cases.json lists the cases with their inputs, or "error"
where numpy raises (the Go side must fail too). parity_linalg_test.go
evaluates the same expression with the chunkarray API over several
chunkings (rechunking the axes that dask needs whole: FFT axes, the
columns of QR and SVD), on Sync and Threaded(2), fused and unfused, and
compares with compareGolden (float64 within 1e-12 and float32 within 1e-5
of the element plus the largest finite magnitude).

QR and SVD factors are unique only up to signs: the cases here are the
sign-invariant quantities (q @ r, q.T @ q, |r|, the singular values, |u|
and |vh| where the singular values are distinct, u * s @ vh). LU has no
numpy function: the oracle is lu_pp below, partial pivoting written with
numpy (the first largest pivot, LAPACK's and scipy's rule), giving
scipy.linalg.lu's p, l, u. svd_compressed is randomised: its cases are an
exactly low-rank matrix, whose rank-k reconstruction and leading singular
values the randomised method must reproduce.
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_linalg")

warnings.simplefilter("ignore")

inf, nan = np.inf, np.nan
inputs = {}
cases = []


def inp(name, a):
    inputs[name] = np.array(a, order="C")


def case(name, ins, fn):
    cases.append((name, ins, fn))


t = np.arange(200, dtype=np.float64)
rng = np.random.default_rng(13)  # PCG64: the same stream in every numpy since 1.17
# tall 13x5, full rank, distinct singular values
inp("tall", np.round(rng.standard_normal((13, 5)) * 3, 3))
inp("tall32", inputs["tall"].astype(np.float32))
inp("talli", ((t[:65] * 37) % 11 - 5).reshape(13, 5).astype(np.int64))
# wide 4x9
inp("wide", np.round(rng.standard_normal((4, 9)) * 2, 3))
# square 6x6, well conditioned; a singular one; symmetric positive definite
S = (np.sin(t[:36] * 1.1) + np.cos(t[:36] * 0.23)).reshape(6, 6) + 4 * np.eye(6)
inp("sq", S)
inp("sq32", S.astype(np.float32))
inp("sqc", S + 1j * np.round(rng.standard_normal((6, 6)), 3))
inp("sqc64", inputs["sqc"].astype(np.complex64))
inp("rhsc", np.linspace(-1, 1, 6) + 1j * np.linspace(2, 0, 6))
inp("sqi", np.round(S * 10).astype(np.int32))
sing = S.copy()
sing[:, 2] = 0.0  # a zero column: an exact zero pivot for any LU
inp("sing", sing)
inp("spd", S @ S.T + np.eye(6))
inp("spd32", inputs["spd"].astype(np.float32))
notpd = S @ S.T
notpd[0, 0] = -1.0
inp("notpd", notpd)
inp("rhs", np.linspace(-2, 3, 6))
inp("rhs2", np.cos(t[:18]).reshape(6, 3))
inp("rhs13", np.linspace(-1, 1, 13))
inp("rhs13x2", np.sin(t[:26] * 0.9).reshape(13, 2))
# exactly rank 3, 40x8
U0 = np.round(rng.standard_normal((40, 3)), 3)
V0 = np.round(rng.standard_normal((3, 8)), 3)
inp("lowrank", U0 @ np.diag([9.0, 4.0, 1.5]) @ V0)


def lu_pp(a):
    """p, l, u with a = p @ l @ u, partial pivoting (the first largest pivot)."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[0]
    perm = np.arange(n)
    u = a.copy()
    l = np.eye(n)
    for k in range(n):
        piv = k + int(np.argmax(np.abs(u[k:, k])))
        if piv != k:
            u[[k, piv], :] = u[[piv, k], :]
            l[[k, piv], :k] = l[[piv, k], :k]
            perm[[k, piv]] = perm[[piv, k]]
        if u[k, k] != 0:
            for i in range(k + 1, n):
                l[i, k] = u[i, k] / u[k, k]
                u[i, k:] -= l[i, k] * u[k, k:]
                u[i, k] = 0.0
    p = np.zeros((n, n))
    p[perm, np.arange(n)] = 1.0
    return p, l, np.triu(u)


# ------------------------------------------------------------------ QR
case("qr_recon", ["tall"], lambda a: np.matmul(*np.linalg.qr(a)))
case("qr_orth", ["tall"], lambda a: (lambda q: q.T @ q)(np.linalg.qr(a)[0]))
case("qr_abs_r", ["tall"], lambda a: np.abs(np.linalg.qr(a)[1]))
case("qr_abs_q", ["tall"], lambda a: np.abs(np.linalg.qr(a)[0]))
case("qr_recon_f32", ["tall32"], lambda a: np.matmul(*np.linalg.qr(a)))
case("qr_abs_r_int", ["talli"], lambda a: np.abs(np.linalg.qr(a)[1]))
case("qr_wide_recon", ["wide"], lambda a: np.matmul(*np.linalg.qr(a)))  # Go: short-and-fat (sfqr)
case("qr_wide_abs_r", ["wide"], lambda a: np.abs(np.linalg.qr(a)[1]))
case("qr_1d", ["rhs13"], lambda a: np.linalg.qr(a)[1])  # LinAlgError: 1-d
def svd_flip(a):
    """numpy's SVD with dask's coerce_signs (svd_flip, v-based): the
    largest-magnitude entry of every row of vh positive."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    signs = np.sign(vh[np.arange(vh.shape[0]), np.abs(vh).argmax(axis=1)])
    return u * signs, s, vh * signs[:, None]


# ----------------------------------------------------------------- SVD
case("svd_u_flipped", ["tall"], lambda a: svd_flip(a)[0])
case("svd_vh_flipped", ["tall"], lambda a: svd_flip(a)[2])
case("svd_wide_vh_flipped", ["wide"], lambda a: svd_flip(a)[2])
case("svdc_vh_flipped", ["lowrank"], lambda a: svd_flip(a)[2][:3])
case("svd_s", ["tall"], lambda a: np.linalg.svd(a, full_matrices=False)[1])
case("svd_recon", ["tall"], lambda a: (lambda u, s, vh: (u * s) @ vh)(*np.linalg.svd(a, full_matrices=False)))
case("svd_abs_u", ["tall"], lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[0]))
case("svd_abs_vh", ["tall"], lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[2]))
case("svd_s_f32", ["tall32"], lambda a: np.linalg.svd(a, full_matrices=False)[1])
case("svd_wide_s", ["wide"], lambda a: np.linalg.svd(a, full_matrices=False)[1])
case("svd_wide_recon", ["wide"], lambda a: (lambda u, s, vh: (u * s) @ vh)(*np.linalg.svd(a, full_matrices=False)))
case("svd_lowrank_s", ["lowrank"], lambda a: np.linalg.svd(a, full_matrices=False)[1])
# svd_compressed, k = 3, of an exactly rank-3 matrix
case("svdc_s", ["lowrank"], lambda a: np.linalg.svd(a, full_matrices=False)[1][:3])
case("svdc_recon", ["lowrank"], lambda a: a.copy())
case("svdc_recon_power", ["lowrank"], lambda a: a.copy())
case("svdc_abs_vh", ["lowrank"], lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[2][:3]))
# ------------------------------------------------ solve, inv, lstsq, ...
case("solve_vec", ["sq", "rhs"], lambda a, b: np.linalg.solve(a, b))
case("solve_mat", ["sq", "rhs2"], lambda a, b: np.linalg.solve(a, b))
case("solve_f32", ["sq32", "rhs"], lambda a, b: np.linalg.solve(a, b))  # float64: rhs is
case("solve_f32_f32", ["sq32"], lambda a: np.linalg.solve(a, a[:, 0]))
case("solve_pos", ["spd", "rhs2"], lambda a, b: np.linalg.solve(a, b))  # Go: assume_a="pos"
case("solve_pos_vec_f32", ["spd32", "rhs"], lambda a, b: np.linalg.solve(a, b.astype(np.float32)))
case("solve_singular", ["sing", "rhs"], lambda a, b: np.linalg.solve(a, b))  # LinAlgError
case("solve_shape", ["sq", "rhs13"], lambda a, b: np.linalg.solve(a, b))  # ValueError
case("inv", ["sq"], lambda a: np.linalg.inv(a))
case("inv_f32", ["sq32"], lambda a: np.linalg.inv(a))
case("inv_int", ["sqi"], lambda a: np.linalg.inv(a))
case("inv_complex", ["sqc"], lambda a: np.linalg.inv(a))
case("inv_c64", ["sqc64"], lambda a: np.linalg.inv(a))
case("solve_complex", ["sqc", "rhsc"], lambda a, b: np.linalg.solve(a, b))
case("solve_real_cplx", ["sq", "rhsc"], lambda a, b: np.linalg.solve(a, b))
case("norm_mat_c_2", ["sqc"], lambda a: np.linalg.norm(a, 2))
case("norm_mat_c_nuc", ["sqc"], lambda a: np.linalg.norm(a, "nuc"))
case("norm_mat_c64_n2", ["sqc64"], lambda a: np.linalg.norm(a, -2))
case("inv_check", ["sq"], lambda a: a @ np.linalg.inv(a))
case("inv_singular", ["sing"], lambda a: np.linalg.inv(a))  # LinAlgError
case("inv_nonsquare", ["tall"], lambda a: np.linalg.inv(a))  # LinAlgError
case("cholesky_lower", ["spd"], lambda a: np.linalg.cholesky(a))
case("cholesky_upper", ["spd"], lambda a: np.linalg.cholesky(a).T)
case("cholesky_notpd", ["notpd"], lambda a: np.linalg.cholesky(a))  # LinAlgError
case("lu_p", ["sq"], lambda a: lu_pp(a)[0])
case("lu_l", ["sq"], lambda a: lu_pp(a)[1])
case("lu_u", ["sq"], lambda a: lu_pp(a)[2])
case("lu_recon", ["sq"], lambda a: (lambda p, l, u: p @ l @ u)(*lu_pp(a)))
case("lu_sing_recon", ["sing"], lambda a: (lambda p, l, u: p @ l @ u)(*lu_pp(a)))
case("lstsq_x", ["tall", "rhs13"], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0])
case("lstsq_x2", ["tall", "rhs13x2"], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0])
case("lstsq_res", ["tall", "rhs13"], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[1])
case("lstsq_res2", ["tall", "rhs13x2"], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[1])
case("lstsq_rank", ["tall", "rhs13"], lambda a, b: np.int64(np.linalg.lstsq(a, b, rcond=None)[2]))
case("lstsq_s", ["tall", "rhs13"], lambda a, b: np.linalg.lstsq(a, b, rcond=None)[3])
case("solve_triangular", ["sq", "rhs2"], lambda a, b: np.linalg.solve(np.triu(a), b))
case("solve_triangular_lower", ["sq", "rhs"], lambda a, b: np.linalg.solve(np.tril(a), b))
# ---------------------------------------------------------------- norm
inp("v7", np.array([3.0, -4.0, 0.0, 1.5, -0.5, 2.0, 0.0]))
inp("v7i", np.array([3, -4, 0, 1, -5, 2, 0], dtype=np.int32))
inp("v7f32", np.array([3.0, -4.0, 0.0, 1.5, -0.5, 2.0, 0.0], dtype=np.float32))
inp("v5c", np.array([3 + 4j, -1j, 0, 2, -1 + 1j]))
inp("m79", (np.sin(t[:63] * 0.77) * 2 - 0.3 + (t[:63] * 37) % 11 / 5).reshape(7, 9))  # full rank
inp("m79f32", inputs["m79"].astype(np.float32))
inp("a345", (np.cos(t[:60] * 0.61) * 3).reshape(3, 4, 5))
norm = np.linalg.norm
for o, tag in [(None, "none"), (2, "2"), (1, "1"), (0, "0"), (inf, "inf"), (-inf, "ninf"), (3, "3"), (0.5, "half"), (-1, "n1")]:
    case(f"norm_vec_{tag}", ["v7"], lambda x, o=o: norm(x, o))
case("norm_vec_int", ["v7i"], lambda x: norm(x))
case("norm_vec_int_1", ["v7i"], lambda x: norm(x, 1))
case("norm_vec_f32", ["v7f32"], lambda x: norm(x))
case("norm_vec_f32_inf", ["v7f32"], lambda x: norm(x, inf))
case("norm_vec_c", ["v5c"], lambda x: norm(x))
case("norm_vec_c_1", ["v5c"], lambda x: norm(x, 1))
case("norm_vec_fro", ["v7"], lambda x: norm(x, "fro"))  # ValueError
for o, tag in [(None, "none"), ("fro", "fro"), ("nuc", "nuc"), (1, "1"), (-1, "n1"), (2, "2"), (-2, "n2"), (inf, "inf"), (-inf, "ninf")]:
    case(f"norm_mat_{tag}", ["m79"], lambda x, o=o: norm(x, o))
case("norm_mat_3", ["m79"], lambda x: norm(x, 3))  # ValueError
case("norm_mat_f32_fro", ["m79f32"], lambda x: norm(x, "fro"))
case("norm_mat_f32_1", ["m79f32"], lambda x: norm(x, 1))
case("norm_axis0", ["m79"], lambda x: norm(x, axis=0))
case("norm_axis1_inf_k", ["m79"], lambda x: norm(x, inf, axis=1, keepdims=True))
case("norm_3d_flat", ["a345"], lambda x: norm(x))
case("norm_3d_flat_k", ["a345"], lambda x: norm(x, keepdims=True))
case("norm_3d_ord", ["a345"], lambda x: norm(x, 1))  # ValueError: improper dims
case("norm_3d_axes_1", ["a345"], lambda x: norm(x, 1, axis=(2, 0)))
case("norm_3d_axes_inf_k", ["a345"], lambda x: norm(x, inf, axis=(0, 1), keepdims=True))
case("norm_3d_axes_fro", ["a345"], lambda x: norm(x, "fro", axis=(1, 2)))
case("norm_3d_axis_3", ["a345"], lambda x: norm(x, 3, axis=-1))
case("norm_dup_axes", ["m79"], lambda x: norm(x, axis=(1, 1)))  # ValueError
# -------------------------------------------------------------- einsum
inp("e34", (np.arange(12) * 0.5 - 2).reshape(3, 4))
inp("e45", np.cos(np.arange(20) * 0.4).reshape(4, 5))
inp("e44", np.sin(np.arange(16) * 0.9).reshape(4, 4))
inp("e4", np.array([1.5, -2.0, 0.25, 3.0]))
inp("e5", np.linspace(-1, 2, 5))
inp("e234", np.cos(np.arange(24) * 0.33).reshape(2, 3, 4))
inp("e245", np.sin(np.arange(40) * 0.21).reshape(2, 4, 5))
inp("e34i8", ((np.arange(12) * 29) % 255 - 127).reshape(3, 4).astype(np.int8))
inp("e45i8", ((np.arange(20) * 53) % 255 - 127).reshape(4, 5).astype(np.int8))
inp("e34c", (np.arange(12) - 5 + 1j * np.cos(np.arange(12))).reshape(3, 4))
inp("e34f32", inputs["e34"].astype(np.float32))
inp("e34u8", ((np.arange(12) * 71) % 256).reshape(3, 4).astype(np.uint8))
inp("e4b", np.array([True, False, True, True]))
inp("e4b2", np.array([False, False, True, False]))
inp("e14", np.array([[2.0, -1.0, 0.5, 4.0]]))
inp("e30", np.zeros((3, 0)))
inp("e05", np.zeros((0, 5)))
E = [
    ("ein_matmul", "ij,jk->ik", ["e34", "e45"]),
    ("ein_matmul_implicit", "ij,jk", ["e34", "e45"]),
    ("ein_transpose", "ij->ji", ["e34"]),
    ("ein_implicit_transpose", "ji", ["e34"]),
    ("ein_trace", "ii", ["e44"]),
    ("ein_diag", "ii->i", ["e44"]),
    ("ein_sum_all", "ij->", ["e34"]),
    ("ein_sum_axis", "ij->j", ["e34"]),
    ("ein_dot", "i,i", ["e4", "e4"]),
    ("ein_outer", "i,j->ij", ["e4", "e4"]),
    ("ein_matvec", "ij,j->i", ["e34", "e4"]),
    ("ein_three", "ij,jk,k->i", ["e34", "e45", "e5"]),
    ("ein_batch", "bij,bjk->bik", ["e234", "e245"]),
    ("ein_ellipsis", "...ij,...jk->...ik", ["e234", "e245"]),
    ("ein_ellipsis_implicit", "...j,j", ["e234", "e4"]),
    ("ein_ellipsis_left", "i...->...", ["e234"]),
    ("ein_bcast1", "ij,ij->ij", ["e14", "e34"]),
    ("ein_int8_wrap", "ij,jk->ik", ["e34i8", "e45i8"]),
    ("ein_complex", "ij,ij->i", ["e34c", "e34"]),
    ("ein_f32", "ij,kj->ik", ["e34f32", "e34f32"]),
    ("ein_bool", "i,i", ["e4b", "e4b2"]),
    ("ein_u8_f32", "ij,ij->j", ["e34u8", "e34f32"]),
    ("ein_i8_u8_batch", "ij,ij->ij", ["e34i8", "e34u8"]),
    ("ein_bool_outer", "i,j->ij", ["e4b", "e4b2"]),
    ("ein_empty_contract", "ij,jk->ik", ["e30", "e05"]),
    ("ein_empty_out", "ij->j", ["e30"]),
    ("ein_bad_letter", "i1,jk->ik", ["e34", "e45"]),  # ValueError
    ("ein_bad_count", "ij,jk->ik", ["e34"]),  # ValueError
    ("ein_bad_shape", "ij,jk->ik", ["e34", "e34"]),  # ValueError
    ("ein_bad_out", "ij,jk->iz", ["e34", "e45"]),  # ValueError
    ("ein_bad_out_repeat", "ij,jk->ii", ["e34", "e45"]),  # ValueError
    ("ein_bad_ndim", "ijk->i", ["e34"]),  # ValueError
    ("ein_bad_ellipsis_out", "...i->i", ["e234"]),  # ValueError
]
for name, sub, ins in E:
    case(name, ins, lambda *xs, sub=sub: np.einsum(sub, *xs))
# Random einsum expressions (a fixed seed): 1 to 3 operands of 0 to 3
# axes over the labels a-e with lengths 0 to 4 (1 broadcasting), an
# implicit or explicit output, several dtypes. The subscripts go to
# einsum_random.json for the Go side; numpy's refusals are error cases.
erng = np.random.default_rng(2024)


def typed(xs):
    """The operands cast to their common dtype by dtype alone: a 0-d
    chunkarray operand is typed as an array (Dask's rule, chunkarray's
    doc), where numpy's einsum would apply value-based casting to it."""
    dt = np.result_type(*[x.dtype for x in xs])
    return [x.astype(dt) for x in xs]



ELABELS = "abcde"
EDTYPES = [np.float64, np.float32, np.int32, np.int8, np.uint8, np.complex128, np.bool_]
einsum_random = {}
for i in range(96):
    sizes = {l: int(erng.integers(0, 5)) for l in ELABELS}
    nops = int(erng.integers(1, 4))
    terms, ins = [], []
    for k in range(nops):
        nd_ = int(erng.integers(0, 4))
        labels = "".join(erng.choice(list(ELABELS), nd_))
        shape = [sizes[l] if erng.random() > 0.15 else 1 for l in labels]
        dt = EDTYPES[int(erng.integers(0, len(EDTYPES)))]
        x = erng.standard_normal(shape) * 4
        if np.dtype(dt).kind == "c":
            x = x + 1j * erng.standard_normal(shape)
        name = f"er{i:02d}_{k}"
        inp(name, np.round(x).astype(dt) if np.dtype(dt).kind in "iub" else x.astype(dt))
        terms.append(labels)
        ins.append(name)
    sub = ",".join(terms)
    if erng.random() < 0.6:
        used = sorted(set("".join(terms)))
        out = "".join(erng.permutation(used)[: int(erng.integers(0, len(used) + 1))]) if used else ""
        sub += "->" + out
    einsum_random[f"ein_rand_{i:02d}"] = sub
    case(f"ein_rand_{i:02d}", ins, lambda *xs, sub=sub: np.einsum(sub, *typed(xs)))

# ----------------------------------------------------------------- fft
inp("s8", np.sin(t[:8] * 0.8) + 0.3 * np.cos(t[:8] * 2.1))
inp("s7", np.cos(t[:7] * 0.5) - 0.2)
inp("s8f32", inputs["s8"].astype(np.float32))
inp("s7i", np.array([3, -1, 4, 1, -5, 9, 2], dtype=np.int16))
inp("c6", np.exp(1j * t[:6] * 0.9) * np.linspace(1, 2, 6))
inp("c6c64", inputs["c6"].astype(np.complex64))
inp("m56", (np.sin(t[:30] * 0.41) + 0.5 * np.cos(t[:30] * 1.7)).reshape(5, 6))
inp("m56c", inputs["m56"] + 1j * np.cos(t[:30]).reshape(5, 6))
inp("a345f", (np.cos(t[:60] * 0.29) - np.sin(t[:60] * 1.3)).reshape(3, 4, 5))
inp("h5", np.array([4.0, 1 + 2j, -1 - 1j, 0.5j, 2.0]))
fft = np.fft
F = [
    ("fft_s8", ["s8"], lambda x: fft.fft(x)),
    ("fft_s7", ["s7"], lambda x: fft.fft(x)),
    ("fft_f32", ["s8f32"], lambda x: fft.fft(x)),
    ("fft_int", ["s7i"], lambda x: fft.fft(x)),
    ("fft_c6", ["c6"], lambda x: fft.fft(x)),
    ("fft_c64", ["c6c64"], lambda x: fft.fft(x)),  # complex128, as numpy
    ("rfft_complex", ["c6"], lambda x: fft.rfft(x)),  # the imaginary part is dropped
    ("fft_pad", ["s7"], lambda x: fft.fft(x, n=10)),
    ("fft_trunc", ["s8"], lambda x: fft.fft(x, n=5)),
    ("fft_ortho", ["c6"], lambda x: fft.fft(x, norm="ortho")),
    ("fft_forward", ["c6"], lambda x: fft.fft(x, norm="forward")),
    ("fft_axis0", ["m56"], lambda x: fft.fft(x, axis=0)),
    ("fft_axis1", ["m56c"], lambda x: fft.fft(x, axis=1)),
    ("fft_nneg", ["s8"], lambda x: fft.fft(x, n=-1)),  # ValueError (Go: n=0 is numpy's None)
    ("fftn_sneg", ["m56"], lambda x: fft.fftn(x, s=(5, -2))),  # ValueError
    ("fft_badnorm", ["s8"], lambda x: fft.fft(x, norm="bogus")),  # ValueError
    ("fft_badaxis", ["s8"], lambda x: fft.fft(x, axis=1)),  # AxisError
    ("ifft_c6", ["c6"], lambda x: fft.ifft(x)),
    ("ifft_pad_ortho", ["c6"], lambda x: fft.ifft(x, n=9, norm="ortho")),
    ("ifft_forward", ["m56c"], lambda x: fft.ifft(x, axis=0, norm="forward")),
    ("rfft_s8", ["s8"], lambda x: fft.rfft(x)),
    ("rfft_s7", ["s7"], lambda x: fft.rfft(x)),
    ("rfft_n11", ["s8"], lambda x: fft.rfft(x, n=11)),
    ("rfft_axis0_ortho", ["m56"], lambda x: fft.rfft(x, axis=0, norm="ortho")),
    ("irfft_c6", ["c6"], lambda x: fft.irfft(x)),
    ("irfft_odd", ["c6"], lambda x: fft.irfft(x, n=11)),
    ("irfft_trunc", ["c6"], lambda x: fft.irfft(x, n=4)),
    ("irfft_forward", ["m56c"], lambda x: fft.irfft(x, axis=0, norm="forward")),
    ("irfft_roundtrip", ["s7"], lambda x: fft.irfft(fft.rfft(x), n=7)),
    ("hfft_h5", ["h5"], lambda x: fft.hfft(x)),
    ("hfft_n9_ortho", ["h5"], lambda x: fft.hfft(x, n=9, norm="ortho")),
    ("ihfft_s7", ["s7"], lambda x: fft.ihfft(x)),
    ("ihfft_forward", ["s8"], lambda x: fft.ihfft(x, norm="forward")),
    ("fft2_m56", ["m56"], lambda x: fft.fft2(x)),
    ("fft2_s", ["m56c"], lambda x: fft.fft2(x, s=(3, 8))),
    ("ifft2_m56c", ["m56c"], lambda x: fft.ifft2(x, norm="ortho")),
    ("rfft2_m56", ["m56"], lambda x: fft.rfft2(x)),
    ("irfft2_m56c", ["m56c"], lambda x: fft.irfft2(x)),
    ("irfft2_s", ["m56c"], lambda x: fft.irfft2(x, s=(4, 7))),
    ("fftn_3d", ["a345f"], lambda x: fft.fftn(x)),
    ("fftn_axes", ["a345f"], lambda x: fft.fftn(x, axes=(0, 2))),
    ("fftn_s_axes", ["a345f"], lambda x: fft.fftn(x, s=(6, 2), axes=(2, 0))),
    ("fftn_s_only", ["a345f"], lambda x: fft.fftn(x, s=(3, 3))),
    ("ifftn_3d", ["a345f"], lambda x: fft.ifftn(x, norm="forward")),
    ("rfftn_3d", ["a345f"], lambda x: fft.rfftn(x)),
    ("rfftn_axes", ["a345f"], lambda x: fft.rfftn(x, axes=(2, 1))),
    ("irfftn_3d", ["a345f"], lambda x: fft.irfftn(x)),
    ("irfftn_s", ["a345f"], lambda x: fft.irfftn(x, s=(2, 4, 6))),
    ("fftn_shape_axes", ["a345f"], lambda x: fft.fftn(x, s=(3, 3), axes=(0,))),  # ValueError
    ("fftfreq_8", [], lambda: fft.fftfreq(8)),
    ("fftfreq_7_d", [], lambda: fft.fftfreq(7, d=0.25)),
    ("rfftfreq_8", [], lambda: fft.rfftfreq(8, d=2.0)),
    ("rfftfreq_7", [], lambda: fft.rfftfreq(7)),
    ("fftshift_s7", ["s7"], lambda x: fft.fftshift(x)),
    ("fftshift_m56", ["m56"], lambda x: fft.fftshift(x)),
    ("fftshift_axis", ["m56"], lambda x: fft.fftshift(x, axes=1)),
    ("ifftshift_m56", ["m56"], lambda x: fft.ifftshift(x)),
    ("ifftshift_3d", ["a345f"], lambda x: fft.ifftshift(x, axes=(0, 2))),
    ("shift_roundtrip", ["s7"], lambda x: fft.ifftshift(fft.fftshift(x))),
]
for name, ins, fn in F:
    case(name, ins, fn)

# Random n-d transforms (a fixed seed): fftn, ifftn, rfftn or irfftn of
# a 1-d to 3-d input (lengths 1 to 6, several dtypes) with random axes
# (repeats allowed, as numpy), s (None, or per axis a length or None) and
# norm; written to fft_random.json for the Go side (s entries 0 for None).
frng = np.random.default_rng(77)
FDTYPES = [np.float64, np.float32, np.int16, np.complex128, np.complex64]
fft_random = {}
for i in range(40):
    nd_ = int(frng.integers(1, 4))
    shape = [int(frng.integers(1, 7)) for _ in range(nd_)]
    dt = FDTYPES[int(frng.integers(0, len(FDTYPES)))]
    x = frng.standard_normal(shape) * 3
    if np.dtype(dt).kind == "c":
        x = x + 1j * frng.standard_normal(shape)
    name = f"fr{i:02d}"
    inp(name, np.round(x).astype(dt) if np.dtype(dt).kind == "i" else x.astype(dt))
    fn = ["fftn", "ifftn", "rfftn", "irfftn"][int(frng.integers(0, 4))]
    axes = None
    if frng.random() < 0.6:
        k = int(frng.integers(1, nd_ + 1))
        axes = [int(a) for a in frng.integers(-nd_, nd_, k)]
    sv = None
    if frng.random() < 0.5:
        k = len(axes) if axes is not None else int(frng.integers(1, nd_ + 1))
        sv = [int(frng.integers(1, 8)) for _ in range(k)]
    nm = [None, "backward", "ortho", "forward"][int(frng.integers(0, 4))]
    fft_random[f"fft_rand_{i:02d}"] = {"fn": fn, "s": sv, "axes": axes, "norm": nm or ""}
    case(f"fft_rand_{i:02d}", [name], lambda x, fn=fn, sv=sv, axes=axes, nm=nm: getattr(np.fft, fn)(x, s=sv, axes=axes, norm=nm))

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs, sidecars={"einsum_random.json": einsum_random, "fft_random.json": fft_random})
