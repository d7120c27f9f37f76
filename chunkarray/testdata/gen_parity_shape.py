#!/usr/bin/python3
"""Writes the numpy goldens of chunkarray's shape functions (issue 13).

Run from anywhere:  /usr/bin/python3 chunkarray/testdata/gen_parity_shape.py

The format of gen_parity.py: every case is a name, the names of its inputs
and a numpy expression; inputs are saved once each as
parity_shape/in_<input>.npy, each result as parity_shape/<case>.npy, and
parity_shape/cases.json lists the cases in order with their inputs, or
"error" where numpy raises (the Go side must fail too).
parity_shape_test.go evaluates the same expression with the chunkarray API
over the conformance chunkings (one block, chunks of 2, irregular, an edge
chunk of 1, mixed) on Sync and Threaded(2), fused and unfused, persisted
and through JSON, and compares with compareGolden.

Functions that return a list (split, gradient, meshgrid, broadcast_arrays)
are checked through one array: the pieces stacked, or concatenated with
piece i multiplied by i + 1 (which shows where each piece ends). coarsen
(Dask's, not numpy's) is checked against numpy's reshape-and-reduce of the
trimmed array; apply_along_axis, apply_gufunc and map_blocks with
drop_axis/new_axis against numpy's expression of what the Go block
functions (registered in parity_shape_test.go) compute.
"""
import os
import warnings

import numpy as np

import goldens  # this folder's shared writer

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("CONFORMANCE_OUT") or os.path.join(HERE, "parity_shape")

warnings.simplefilter("ignore")

inf, nan = np.inf, np.nan
inputs = {}


def inp(name, a):
    inputs[name] = np.array(a, order="C")


cases = []


def case(name, ins, fn):
    cases.append((name, ins, fn))


t = np.arange(63)
M = 2 * np.cos(t * 0.21).reshape(7, 9) + 0.5
M[1, 2] = nan
M[3, 4] = inf
M[5, 0] = -inf
M[6, 8] = 0.0
M[0, 3] = -0.0
inp("f64m", M)  # 7x9 with nan, +-inf, zeros
inp("f64n", np.sin(t * 0.37).reshape(7, 9) * 3)  # finite
inp("i8m", ((t * 29) % 255 - 127).reshape(7, 9).astype(np.int8))
inp("u8m", ((t * 53) % 256).reshape(7, 9).astype(np.uint8))
inp("i64m", ((t * 37) % 23 - 11).reshape(7, 9).astype(np.int64))
inp("b79", ((t * 7) % 3 == 0).reshape(7, 9))
inp("f32a", (np.cos(np.arange(120) * 0.7) * 4).reshape(4, 5, 6).astype(np.float32))
inp("c45", (np.linspace(-2, 2, 20) + 1j * np.linspace(3, -1, 20)).reshape(4, 5))
inp("c5", np.array([1 + 2j, -1j, 0.5, 3 - 4j, -2 + 0j]))
inp("v7", np.array([1.5, -2, 0, 4, nan, 7, -0.5]))
inp("v5i", np.array([3, -1, 4, 1, -5], dtype=np.int64))
inp("v5f", np.array([0.5, 2, -3, 8, 1e10]))
inp("v3b", np.array([True, False, True]))
inp("col7", np.linspace(-1, 2, 7).reshape(7, 1))
inp("row19", np.linspace(0, 4, 9).reshape(1, 9))
inp("m23", np.array([[1, -2, 3], [0, 5, -1]], dtype=np.int32))
inp("e0x4", np.zeros((0, 4)))
inp("s0", np.array(2.5))
inp("f64_2x5", np.array([[1, 4, 9, 16, 25], [2, 3, 5, 7, 11]], dtype=np.float64))
inp("one1", np.array([3.25]))

# ------------------------------------------------------------------ diff
case("diff_1_0", ["f64m"], lambda x: np.diff(x, axis=0))
case("diff_1_last", ["f64m"], lambda x: np.diff(x))
case("diff_2_1", ["f64n"], lambda x: np.diff(x, n=2, axis=1))
case("diff_3_0_i8", ["i8m"], lambda x: np.diff(x, n=3, axis=0))  # int8 wraps
case("diff_u8", ["u8m"], lambda x: np.diff(x, axis=1))  # uint8 wraps
case("diff_bool", ["b79"], lambda x: np.diff(x, axis=1))  # not_equal
case("diff_n_beyond", ["f64n"], lambda x: np.diff(x, n=8, axis=0))  # (0, 9)
case("diff_0", ["f64n"], lambda x: np.diff(x, n=0))
case("diff_neg", ["f64n"], lambda x: np.diff(x, n=-1))  # ValueError
case("diff_0d", ["s0"], lambda x: np.diff(x))  # ValueError
case("diff_prepend_scalar", ["i8m"], lambda x: np.diff(x, axis=1, prepend=0))  # int64 (asarray(0))
case("diff_append_array", ["f64n", "row19"], lambda x, r: np.diff(x, axis=0, append=r))
case("diff_both_float", ["i64m"], lambda x: np.diff(x, axis=0, prepend=1.5, append=-2.0))  # float64
case("diff_prepend_bad", ["f64n", "col7"], lambda x, c: np.diff(x, axis=0, prepend=c))  # ValueError
case("diff_1d", ["v7"], lambda x: np.diff(x, n=2))

# -------------------------------------------------------------- gradient
case("gradient_all", ["f64n"], lambda x: np.stack(np.gradient(x)))
case("gradient_nan", ["f64m"], lambda x: np.gradient(x, axis=1))
case("gradient_i8", ["i8m"], lambda x: np.stack(np.gradient(x)))  # float64
case("gradient_u8_axis0", ["u8m"], lambda x: np.gradient(x, axis=0))
case("gradient_f32_h", ["f32a"], lambda x: np.gradient(x, 0.5, axis=2))  # float32
case("gradient_spacing_per_axis", ["f64n"], lambda x: np.stack(np.gradient(x, 2.0, 0.25)))
case("gradient_len2", ["f64_2x5"], lambda x: np.stack(np.gradient(x, axis=(1, 0))))
case("gradient_c128", ["c45"], lambda x: np.gradient(x, axis=0))
case("gradient_bool", ["b79"], lambda x: np.gradient(x, axis=0))  # TypeError
case("gradient_small", ["row19"], lambda x: np.gradient(x, axis=0))  # ValueError
case("gradient_1d", ["v7"], lambda x: np.gradient(x, 3.0))

# ------------------------------------------------------------------- pad
case("pad_constant", ["f64m"], lambda x: np.pad(x, ((1, 2), (3, 0))))
case("pad_constant_value", ["i8m"], lambda x: np.pad(x, 2, constant_values=7))
case("pad_constant_cast", ["i8m"], lambda x: np.pad(x, ((0, 1), (2, 2)), constant_values=1.9))  # 1
case("pad_constant_empty", ["e0x4"], lambda x: np.pad(x, ((2, 1), (1, 1)), constant_values=-1.0))
case("pad_edge", ["f64m"], lambda x: np.pad(x, ((2, 3), (1, 4)), mode="edge"))
case("pad_reflect", ["f64n"], lambda x: np.pad(x, ((3, 2), (4, 1)), mode="reflect"))
case("pad_reflect_wide", ["f64n"], lambda x: np.pad(x, ((9, 15), (20, 2)), mode="reflect"))
case("pad_reflect_len1", ["row19"], lambda x: np.pad(x, ((2, 3), (0, 0)), mode="reflect"))
case("pad_symmetric", ["i64m"], lambda x: np.pad(x, ((2, 2), (3, 1)), mode="symmetric"))
case("pad_symmetric_wide", ["i8m"], lambda x: np.pad(x, ((16, 1), (0, 19)), mode="symmetric"))
case("pad_wrap", ["f64m"], lambda x: np.pad(x, ((3, 1), (2, 5)), mode="wrap"))
case("pad_wrap_wide", ["b79"], lambda x: np.pad(x, ((15, 8), (10, 0)), mode="wrap"))
case("pad_3d", ["f32a"], lambda x: np.pad(x, ((1, 0), (0, 2), (3, 3)), mode="reflect"))
case("pad_edge_empty", ["e0x4"], lambda x: np.pad(x, ((1, 0), (0, 0)), mode="edge"))  # ValueError
case("pad_negative", ["f64m"], lambda x: np.pad(x, ((-1, 0), (0, 0))))  # ValueError
case("pad_1d_wrap", ["v7"], lambda x: np.pad(x, (3, 10), mode="wrap"))  # numpy's rounds: not periodic
case("pad_wrap_both_wide", ["v5i"], lambda x: np.pad(x, (13, 17), mode="wrap"))
case("pad_reflect_both_wide", ["v5i"], lambda x: np.pad(x, (11, 14), mode="reflect"))
case("pad_symmetric_both_wide", ["v5i"], lambda x: np.pad(x, (12, 13), mode="symmetric"))
case("pad_maximum", ["f64n"], lambda x: np.pad(x, ((1, 2), (3, 1)), mode="maximum"))
case("pad_maximum_nan", ["f64m"], lambda x: np.pad(x, 1, mode="maximum"))
case("pad_minimum_i8", ["i8m"], lambda x: np.pad(x, 2, mode="minimum"))
case("pad_mean_f64", ["f64n"], lambda x: np.pad(x, ((2, 0), (1, 3)), mode="mean"))
case("pad_mean_int", ["i64m"], lambda x: np.pad(x, ((1, 1), (2, 2)), mode="mean"))  # rounded half to even
case("pad_mean_half", ["m23"], lambda x: np.pad(x, 1, mode="mean"))  # means 0.5, 1.5: 0, 2
case("pad_mean_u8", ["u8m"], lambda x: np.pad(x, 3, mode="mean"))
case("pad_mean_bool", ["b79"], lambda x: np.pad(x, 1, mode="mean"))
case("pad_mean_f32", ["f32a"], lambda x: np.pad(x, ((0, 1), (2, 0), (1, 1)), mode="mean"))
case("pad_maximum_empty", ["e0x4"], lambda x: np.pad(x, ((1, 0), (0, 0)), mode="maximum"))  # ValueError
case("pad_len2_modes", ["f64_2x5"], lambda x: np.concatenate(
    [np.pad(x, ((5, 7), (0, 0)), mode=m) for m in ("reflect", "symmetric", "wrap")], axis=1))

# --------------------------------------------------------------- roll
case("roll_axis0", ["f64m"], lambda x: np.roll(x, 3, axis=0))
case("roll_neg_axis1", ["i8m"], lambda x: np.roll(x, -4, axis=1))
case("roll_big", ["f64m"], lambda x: np.roll(x, 23, axis=1))
case("roll_flat", ["f64m"], lambda x: np.roll(x, 10))
case("roll_flat_tuple", ["f64n"], lambda x: np.roll(x, (5, -1)))  # 4 on the flattened array
case("roll_tuple", ["f32a"], lambda x: np.roll(x, (1, -2, 7), axis=(0, 2, 1)))
case("roll_same_axis", ["f64n"], lambda x: np.roll(x, (2, 3), axis=(1, 1)))
case("roll_bcast", ["f64n"], lambda x: np.roll(x, 2, axis=(0, 1)))
case("roll_empty", ["e0x4"], lambda x: np.roll(x, 3, axis=0))
case("roll_bad_axis", ["f64n"], lambda x: np.roll(x, 1, axis=2))  # AxisError
case("roll_mismatch", ["f64n"], lambda x: np.roll(x, (1, 2, 3), axis=(0, 1)))  # ValueError

# ----------------------------------------------------------- flip, rot90
case("flip_all", ["f64m"], lambda x: np.flip(x))
case("flip_axis1", ["f32a"], lambda x: np.flip(x, axis=1))
case("flip_axes", ["f32a"], lambda x: np.flip(x, axis=(0, 2)))
case("fliplr", ["i8m"], lambda x: np.fliplr(x))
case("flipud", ["v7"], lambda x: np.flipud(x))
case("fliplr_1d", ["v7"], lambda x: np.fliplr(x))  # ValueError
case("rot90_1", ["f64m"], lambda x: np.rot90(x))
case("rot90_2", ["f64m"], lambda x: np.rot90(x, 2))
case("rot90_3", ["i64m"], lambda x: np.rot90(x, 3))
case("rot90_neg", ["f64m"], lambda x: np.rot90(x, -1))
case("rot90_3d", ["f32a"], lambda x: np.rot90(x, 1, axes=(2, 0)))
case("rot90_same", ["f64m"], lambda x: np.rot90(x, 1, axes=(1, 1)))  # ValueError
case("rot90_1d", ["v7"], lambda x: np.rot90(x))  # ValueError

# --------------------------------------------------------- tile, repeat
case("tile_2", ["f64m"], lambda x: np.tile(x, 2))
case("tile_23", ["i8m"], lambda x: np.tile(x, (2, 3)))
case("tile_more", ["v7"], lambda x: np.tile(x, (3, 1, 2)))
case("tile_zero", ["f64m"], lambda x: np.tile(x, (0, 2)))
case("tile_0d", ["s0"], lambda x: np.tile(x, 3))
case("tile_neg", ["f64m"], lambda x: np.tile(x, -1))  # ValueError
case("repeat_0", ["f64m"], lambda x: np.repeat(x, 3, axis=0))
case("repeat_1", ["b79"], lambda x: np.repeat(x, 2, axis=1))
case("repeat_flat", ["i8m"], lambda x: np.repeat(x, 2))
case("repeat_zero", ["f64m"], lambda x: np.repeat(x, 0, axis=1))
case("repeat_neg", ["f64m"], lambda x: np.repeat(x, -1, axis=0))  # ValueError
case("repeat_f32", ["f32a"], lambda x: np.repeat(x, 4, axis=-1))

# ------------------------------------------------------------ triangles
case("tril_0", ["f64m"], lambda x: np.tril(x))
case("tril_k2", ["i8m"], lambda x: np.tril(x, 2))
case("triu_neg", ["f64m"], lambda x: np.triu(x, -2))
case("triu_3d", ["f32a"], lambda x: np.triu(x, 1))
case("tril_1d", ["v7"], lambda x: np.tril(x, -1))  # (7, 7)
case("triu_bool", ["b79"], lambda x: np.triu(x))
case("tri_79", ["f64m"], lambda x: np.tri(7, 9, 2))
case("tri_int8", ["f64m"], lambda x: np.tri(7, 9, -3, dtype=np.int8))
case("tri_square", ["v5i"], lambda x: np.tri(5, k=0, dtype=bool))

# ------------------------------------------------------------ diagonals
case("diag_1d", ["v7"], lambda x: np.diag(x))
case("diag_1d_k2", ["v5i"], lambda x: np.diag(x, 2))
case("diag_1d_kneg", ["c5"], lambda x: np.diag(x, -3))
case("diag_2d", ["f64m"], lambda x: np.diag(x))
case("diag_2d_k", ["f64m"], lambda x: np.diag(x, 3))
case("diag_2d_kneg", ["i8m"], lambda x: np.diag(x, -2))
case("diag_2d_beyond", ["f64m"], lambda x: np.diag(x, 12))  # empty
case("diag_3d", ["f32a"], lambda x: np.diag(x))  # ValueError
case("diagonal_3d", ["f32a"], lambda x: np.diagonal(x, 1, 0, 2))
case("diagonal_3d_neg", ["f32a"], lambda x: np.diagonal(x, -1, 2, 1))
case("diagonal_same", ["f32a"], lambda x: np.diagonal(x, 0, 1, 1))  # ValueError
case("trace_2d", ["f64n"], lambda x: np.trace(x))
case("trace_i8", ["i8m"], lambda x: np.trace(x, 1))  # int64
case("trace_3d", ["f32a"], lambda x: np.trace(x, 0, 1, 2))

# -------------------------------------------------------------- products
case("outer", ["v7", "v5f"], lambda a, b: np.outer(a, b))
case("outer_2d", ["m23", "v5i"], lambda a, b: np.outer(a, b))  # int64
case("outer_bool", ["v3b", "v3b"], lambda a, b: np.outer(a, b))
case("inner_1d", ["v5f", "v5i"], lambda a, b: np.inner(a, b))
case("inner_2d", ["f64n", "f64n"], lambda a, b: np.inner(a, b))
case("inner_3d_2d", ["f32a", "c45"], lambda a, b: np.inner(a[:, :, :5], b))
case("inner_scalar", ["s0", "f64n"], lambda a, b: np.inner(a, b))
case("inner_bad", ["f64n", "v5f"], lambda a, b: np.inner(a, b))  # ValueError
case("vdot_c", ["c45", "c45"], lambda a, b: np.vdot(a, b))
case("vdot_c_real", ["c5", "v5f"], lambda a, b: np.vdot(a, b))
case("vdot_2d", ["f64n", "f64n"], lambda a, b: np.vdot(a, b))
case("vdot_bad", ["f64n", "v5f"], lambda a, b: np.vdot(a, b))  # ValueError
case("kron_2d", ["m23", "f64n"], lambda a, b: np.kron(a, b))
case("kron_1d_2d", ["v5i", "m23"], lambda a, b: np.kron(a, b))
case("kron_3d", ["m23", "f32a"], lambda a, b: np.kron(a, b))
case("kron_scalar", ["s0", "m23"], lambda a, b: np.kron(a, b))

# ------------------------------------------------------------ broadcast
case("broadcast_to_row", ["v5f"], lambda x: np.broadcast_to(x, (7, 5)))
case("broadcast_to_col", ["col7"], lambda x: np.broadcast_to(x, (2, 7, 9)))
case("broadcast_to_0d", ["s0"], lambda x: np.broadcast_to(x, (3, 4)))
case("broadcast_to_zero", ["row19"], lambda x: np.broadcast_to(x, (0, 9)))
case("broadcast_to_bad", ["f64m"], lambda x: np.broadcast_to(x, (9, 7)))  # ValueError
case("broadcast_to_fewer", ["f64m"], lambda x: np.broadcast_to(x, (9,)))  # ValueError
case("broadcast_arrays", ["col7", "row19"], lambda a, b: np.stack(np.broadcast_arrays(a, b)))
case("broadcast_arrays_3", ["f64m", "row19", "s0"], lambda a, b, c: np.stack(np.broadcast_arrays(a, b, c)))
case("broadcast_arrays_bad", ["f64m", "v5f"], lambda a, b: np.stack(np.broadcast_arrays(a, b)))  # ValueError

# --------------------------------------------------------- moving axes
case("moveaxis_0_2", ["f32a"], lambda x: np.moveaxis(x, 0, 2))
case("moveaxis_multi", ["f32a"], lambda x: np.moveaxis(x, (0, 1), (-1, 0)))
case("moveaxis_bad", ["f32a"], lambda x: np.moveaxis(x, (0, 0), (1, 2)))  # ValueError
case("swapaxes", ["f32a"], lambda x: np.swapaxes(x, 0, -1))
case("rollaxis_2_0", ["f32a"], lambda x: np.rollaxis(x, 2))
case("rollaxis_0_3", ["f32a"], lambda x: np.rollaxis(x, 0, 3))
case("rollaxis_1_1", ["f32a"], lambda x: np.rollaxis(x, 1, 1))
case("rollaxis_bad_start", ["f32a"], lambda x: np.rollaxis(x, 0, 5))  # AxisError
case("ravel", ["f32a"], lambda x: np.ravel(x))
case("ravel_0d", ["s0"], lambda x: np.ravel(x))
case("atleast_1d_0d", ["s0"], lambda x: np.atleast_1d(x))
case("atleast_2d_1d", ["v7"], lambda x: np.atleast_2d(x))
case("atleast_3d_1d", ["v7"], lambda x: np.atleast_3d(x))
case("atleast_3d_2d", ["f64m"], lambda x: np.atleast_3d(x))
case("atleast_3d_0d", ["s0"], lambda x: np.atleast_3d(x))
case("atleast_2d_3d", ["f32a"], lambda x: np.atleast_2d(x))

# ------------------------------------------------------------- joining
case("hstack_1d", ["v7", "v5i"], lambda a, b: np.hstack([a, b]))
case("hstack_2d", ["f64m", "col7"], lambda a, b: np.hstack([a, b, a]))
case("vstack_1d", ["v5f", "v5i"], lambda a, b: np.vstack([a, b]))
case("vstack_2d", ["f64m", "row19"], lambda a, b: np.vstack([a, b]))
case("dstack", ["f64m", "i8m"], lambda a, b: np.dstack([a, b]))
case("dstack_1d", ["v5f", "v5i"], lambda a, b: np.dstack([a, b]))
case("block_2x2", ["f64m", "col7", "row19", "one1"], lambda a, c, r, o: np.block([[a, c], [r, o.reshape(1, 1)]]))
case("block_1d", ["v7", "v5i"], lambda a, b: np.block([a, b, a]))
case("block_promote_ndim", ["v5f", "s0"], lambda a, s: np.block([[a], [a]]))  # (2, 5)
case("block_depth3", ["f32a"], lambda x: np.block([[[x, x]], [[x, x]]]))
case("block_mismatch", ["v7", "v5i"], lambda a, b: np.block([[a], b]))  # ValueError
case("block_bad_shapes", ["f64m", "v5f"], lambda a, b: np.block([[a, b]]))  # ValueError

# ------------------------------------------------------------ splitting


def pieces(parts, axis):
    return np.concatenate([p * (i + 1) for i, p in enumerate(parts)], axis=axis)


case("array_split_3", ["f64m"], lambda x: pieces(np.array_split(x, 3, axis=1), 1))
case("array_split_4_0", ["i8m"], lambda x: pieces(np.array_split(x, 4, axis=0), 0))
case("array_split_more", ["v5i"], lambda x: pieces(np.array_split(x, 7), 0))
case("split_3", ["f64m"], lambda x: pieces(np.split(x, 3, axis=1), 1))
case("split_unequal", ["f64m"], lambda x: pieces(np.split(x, 2, axis=1), 1))  # ValueError
case("split_indices", ["f64m"], lambda x: pieces(np.split(x, [2, 5, -1], axis=1), 1))
case("split_indices_beyond", ["f64m"], lambda x: pieces(np.split(x, [3, 20, 1], axis=0), 0))
case("array_split_zero", ["f64m"], lambda x: pieces(np.array_split(x, 0), 0))  # ValueError

# ----------------------------------------------- append, insert, delete
case("append_flat", ["f64m", "v5i"], lambda a, b: np.append(a, b))
case("append_axis0", ["f64m", "row19"], lambda a, b: np.append(a, b, axis=0))
case("append_axis1_promote", ["i8m", "col7"], lambda a, b: np.append(a, b, axis=1))
case("append_bad", ["f64m", "v5f"], lambda a, b: np.append(a, b, axis=0))  # ValueError
case("insert_scalar_row", ["f64m"], lambda x: np.insert(x, 2, 5.5, axis=0))
case("insert_scalar_col_vec", ["i8m"], lambda x: np.insert(x, -1, [1, 2, 3, 4, 5, 6, 7], axis=1))
case("insert_cast", ["i8m", "v7"], lambda x, v: np.insert(x, 0, np.nan_to_num(v), axis=1))  # cast to int8
case("insert_end", ["f64m"], lambda x: np.insert(x, 9, -1, axis=1))
case("insert_list", ["f64m"], lambda x: np.insert(x, [1, 1, 5, 0], [10, 20, 30, 40], axis=1))
case("insert_list_rows_bad", ["i64m"], lambda x: np.insert(x, [6, 2, 2], [7, 8, 9], axis=0))  # ValueError
case("insert_list_unsorted", ["i64m"], lambda x: np.insert(x, [6, 2, 2], [7, 8, 9], axis=1))
case("insert_out", ["f64m"], lambda x: np.insert(x, 10, 1, axis=1))  # IndexError
case("delete_one", ["f64m"], lambda x: np.delete(x, 3, axis=1))
case("delete_list", ["i8m"], lambda x: np.delete(x, [0, -1, 3, 3], axis=0))
case("delete_none", ["f64m"], lambda x: np.delete(x, [], axis=0))
case("delete_out", ["f64m"], lambda x: np.delete(x, [9], axis=1))  # IndexError

# ---------------------------------------------------------- creation
case("zeros_like", ["i8m"], lambda x: np.zeros_like(x))
case("ones_like_dtype", ["f64m"], lambda x: np.ones_like(x, dtype=np.int32))
case("full_like_cast", ["i8m"], lambda x: np.full_like(x, 2.7))  # 2
case("full_like_dtype", ["i8m"], lambda x: np.full_like(x, 2.7, dtype=np.float32))
case("full_like_nan", ["f32a"], lambda x: np.full_like(x, nan))
case("indices_2d", ["f64m"], lambda x: np.indices((7, 9)))
case("indices_3d_i32", ["f32a"], lambda x: np.indices((4, 5, 6), dtype=np.int32))
case("indices_empty_axis", ["e0x4"], lambda x: np.indices((0, 4)))
case("meshgrid_xy", ["v7", "v5f"], lambda a, b: np.stack(np.meshgrid(a, b)))
case("meshgrid_ij", ["v7", "v5f"], lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij")))
case("meshgrid_3_xy", ["v7", "v5i", "v3b"], lambda a, b, c: np.stack(np.meshgrid(a, b, c)))
case("meshgrid_2d_input", ["m23", "v5i"], lambda a, b: np.stack(np.meshgrid(a, b, indexing="ij")))
case("meshgrid_bad", ["v7"], lambda a: np.meshgrid(a, indexing="yx"))  # ValueError


# ---------------------------------------- select, apply_over_axes, ediff1d
case("select_basic", ["f64n"], lambda x: np.select([x > 1, x < -1], [x, -x], 0.5))
case("select_int8_default", ["i8m"], lambda x: np.select([x > 0], [x], 0))  # int8
case("select_promote", ["i8m", "f64n"], lambda a, b: np.select([a > 0, b > 0], [a, b], -1))
case("select_scalar_choice", ["i8m"], lambda x: np.select([x > 50, x < -50], [300, x], 0))  # int16
case("select_bcast", ["col7", "row19"], lambda c, r: np.select([c > 0], [r], c))
case("select_nonbool", ["i8m"], lambda x: np.select([x], [x]))  # TypeError
case("select_empty", ["i8m"], lambda x: np.select([], []))  # ValueError
case("apply_over_axes_sum", ["f32a"], lambda x: np.apply_over_axes(np.sum, x, [0, 2]))
case("apply_over_axes_max_neg", ["f64n"], lambda x: np.apply_over_axes(np.max, x, [-1]))
case("apply_over_axes_bad", ["f64n"], lambda x: np.apply_over_axes(lambda a, ax: a.sum(), x, [0]))  # ValueError
case("ediff1d_basic", ["f64m"], lambda x: np.ediff1d(x))
case("ediff1d_both", ["i8m"], lambda x: np.ediff1d(x, to_end=np.array([100, 101]), to_begin=-5))
case("ediff1d_float_into_int", ["i8m"], lambda x: np.ediff1d(x, to_begin=1.5))  # TypeError
case("ediff1d_uint_scalar", ["u8m"], lambda x: np.ediff1d(x, to_begin=3))
case("ediff1d_uint_neg", ["u8m"], lambda x: np.ediff1d(x, to_end=-3))  # TypeError
case("ediff1d_bool", ["b79"], lambda x: np.ediff1d(x))  # TypeError
case("ediff1d_empty", ["e0x4"], lambda x: np.ediff1d(x, to_begin=2.0))

# ------------------------------------------------------- triangle indices
case("tril_indices", ["f64m"], lambda x: np.stack(np.tril_indices(7)))
case("tril_indices_k_m", ["f64m"], lambda x: np.stack(np.tril_indices(7, 2, 9)))
case("tril_indices_neg", ["f64m"], lambda x: np.stack(np.tril_indices(9, -3, 4)))
case("tril_indices_beyond", ["f64m"], lambda x: np.stack(np.tril_indices(4, -6, 5)))  # empty
case("triu_indices", ["f64m"], lambda x: np.stack(np.triu_indices(6, 1)))
case("triu_indices_k_m", ["f64m"], lambda x: np.stack(np.triu_indices(5, -2, 8)))
case("triu_indices_zero", ["f64m"], lambda x: np.stack(np.triu_indices(0, 0, 3)))
case("tril_indices_from", ["f64m"], lambda x: np.stack(np.tril_indices_from(x, -1)))
case("triu_indices_from", ["f32a"], lambda x: np.stack(np.triu_indices_from(x)))  # ValueError: 3-d

# ------------------------------------------------- piecewise, fromfunction
case("piecewise_funcs", ["f64n"], lambda x: np.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * v]))
case("piecewise_otherwise", ["f64n"], lambda x: np.piecewise(x, [x < -1, x > 1], [-1.5, lambda v: v + 1, lambda v: 2 * v]))
case("piecewise_overlap", ["i8m"], lambda x: np.piecewise(x, [x > 0, x > 50], [1, 2]))  # later wins
case("piecewise_cast", ["i8m"], lambda x: np.piecewise(x, [x < 0], [lambda v: v * 0.5, 7.9]))  # int8
case("piecewise_bad_count", ["f64n"], lambda x: np.piecewise(x, [x < 0], [1, 2, 3]))  # ValueError
case("fromfunction_sum", ["f64m"], lambda x: np.fromfunction(lambda i, j: i * 10 + j, (7, 9)))
case("fromfunction_int", ["f32a"], lambda x: np.fromfunction(lambda i, j, k: (i + j) % (k + 1), (4, 5, 6), dtype=np.int64))

# ------------------------------------------------------------ index math
case("unravel_basic", ["i64m"], lambda x: np.stack(np.unravel_index(np.abs(x) + 3, (4, 5, 3))))
case("unravel_u8", ["u8m"], lambda x: np.stack(np.unravel_index(x, (16, 16))))
case("unravel_out", ["i64m"], lambda x: np.stack(np.unravel_index(x, (4, 5))))  # ValueError
case("unravel_float", ["f64n"], lambda x: np.stack(np.unravel_index(x, (4, 5))))  # TypeError
case("ravel_multi", ["i64m"], lambda x: np.ravel_multi_index((np.abs(x) % 4, (x + 11) % 5), (4, 5)))
case("ravel_multi_bcast", ["m23"], lambda a: np.ravel_multi_index((np.abs(a), np.array([2, 0, 1])), (6, 3)))
case("ravel_multi_out", ["i64m"], lambda x: np.ravel_multi_index((x, x), (4, 5)))  # ValueError
case("ravel_multi_len", ["i64m"], lambda x: np.ravel_multi_index((x,), (4, 5)))  # ValueError
case("choose_basic", ["i64m", "f64n", "f64m"], lambda a, b, c: np.choose(np.abs(a) % 3, [b, c, 0.5]))
case("choose_bcast", ["m23"], lambda a: np.choose(np.abs(a) % 2, [np.array([10, 20, 30]), -1]))
case("choose_int8_scalar", ["i8m"], lambda x: np.choose((x > 0).astype(np.int8), [x, 300]))  # int16
case("choose_out", ["i64m", "f64n"], lambda a, b: np.choose(a, [b]))  # ValueError

# --------------------------------------------------------------- coarsen
def coarsen(red, x, factors, trim=False):
    f = [1] * x.ndim
    for ax, k in factors.items():
        f[ax] = k
    if not trim and any(s % k for s, k in zip(x.shape, f)):
        raise ValueError("coarsening factors do not align with the shape")
    x = x[tuple(slice(0, s - s % k) for s, k in zip(x.shape, f))]
    sh = []
    for s, k in zip(x.shape, f):
        sh += [s // k, k]
    return red(x.reshape(sh), axis=tuple(range(1, 2 * x.ndim, 2)))


case("coarsen_sum_1", ["f64m"], lambda x: coarsen(np.sum, x, {1: 3}))
case("coarsen_mean_trim", ["f64n"], lambda x: coarsen(np.mean, x, {0: 2, 1: 4}, True))
case("coarsen_min_i8", ["i8m"], lambda x: coarsen(np.min, x, {0: 7, 1: 3}))
case("coarsen_sum_i8", ["i8m"], lambda x: coarsen(np.sum, x, {1: 9}))  # int64
case("coarsen_max_3d", ["f32a"], lambda x: coarsen(np.max, x, {0: 2, 2: 3}))
case("coarsen_mean_neg_axis", ["f32a"], lambda x: coarsen(np.mean, x, {-1: 2, 1: 5}))
case("coarsen_any_trim", ["b79"], lambda x: coarsen(np.any, x, {0: 3, 1: 2}, True))
case("coarsen_misaligned", ["f64m"], lambda x: coarsen(np.sum, x, {0: 2}))  # ValueError

# ------------------------------------------ user functions over axes
# Go block functions (parity_shape_test.go): shape.stats returns
# [min, max, sum] of a float64 line; shape.sum1d its sum; shape.inner is
# the gufunc (i),(i)->() (sum of products over the last axis);
# shape.swap (i,j)->(j,i); shape.twice (i)->(i,k) with k = 2 ([v, 2v]);
# shape.mul multiplies its two inputs (broadcasting);
# shape.sum0 sums a block over axis 0 (map_blocks drop_axis=0);
# shape.pair stacks [b, 2b] on a new last axis (new_axis=-1, chunks 2).
def stats(v):
    return np.array([v.min(), v.max(), v.sum()])


case("along_stats_1", ["f64n"], lambda x: np.apply_along_axis(stats, 1, x))
case("along_stats_0", ["f64m"], lambda x: np.apply_along_axis(stats, 0, x))
case("along_sum_3d", ["f64n"], lambda x: np.apply_along_axis(np.sum, 0, x.reshape(7, 9, 1) * [1.0, -2.0]))
case("gufunc_inner", ["f64n", "f64m"], lambda a, b: (a * b).sum(-1))
case("gufunc_inner_bcast", ["f32a", "v5f"], lambda a, b: (a[:, :, :5].astype(np.float64) * b).sum(-1))
case("gufunc_swap", ["f32a"], lambda x: np.swapaxes(x, -1, -2))
case("gufunc_new_dim", ["f64n"], lambda x: np.stack([x, 2 * x], -1))
case("gufunc_vectorize_inner", ["f64n", "f64m"], lambda a, b: (a * b).sum(-1))
case("gufunc_vectorize_bcast", ["f32a", "v5f"], lambda a, b: (a[:, :, :5].astype(np.float64) * b).sum(-1))
case("gufunc_vectorize_new_dim", ["f64n"], lambda x: np.stack([x, 2 * x], -1))
case("gufunc_scalar_core", ["col7", "row19"], lambda a, b: a * b)  # (),()->(): loop dims broadcast
case("gufunc_vectorize_scalar_core", ["col7", "row19"], lambda a, b: a * b)
case("gufunc_core_mismatch", ["f64n", "v5f"], lambda a, b: np.einsum("...i,...i->...", a, b))  # ValueError
case("mapblocks_drop0", ["f64n"], lambda x: x.sum(0))
case("mapblocks_new_last", ["f64n"], lambda x: np.stack([x, 2 * x], -1))
case("mapblocks_drop_new", ["f32a"], lambda x: np.stack([x.sum(0), 2 * x.sum(0)], -1))

# ---------------------------------------------------------------- write
goldens.write(OUT, cases, inputs)
