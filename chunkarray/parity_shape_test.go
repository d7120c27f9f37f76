package chunkarray

// The numpy goldens of issue 13's shape functions: every case of
// testdata/parity_shape/cases.json (written by
// testdata/gen_parity_shape.py with numpy 1.24) is evaluated with the
// chunkarray expression in shapeExprs over the conformance chunkings, on
// Sync and Threaded(2), fused and unfused, persisted and through JSON
// (runLayouts), and compared with numpy's result by compareGolden.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

const parityShapeDir = "testdata/parity_shape"

// shapeStacked turns a list-returning function's result into one Array: the
// shapePieces stacked on a new first axis.
func shapeStacked(xs []*Array, err error) *Array {
	if err != nil {
		return errArray(err)
	}
	return Stack(xs, 0)
}

// shapeOne is the only array of a one-element list.
func shapeOne(xs []*Array, err error) *Array {
	if err != nil {
		return errArray(err)
	}
	return xs[0]
}

// shapePieces concatenates split pieces along axis, piece i multiplied by
// i+1 (the generator's shapePieces()).
func shapePieces(axis int) func([]*Array, error) *Array {
	return func(xs []*Array, err error) *Array {
		if err != nil {
			return errArray(err)
		}
		m := make([]*Array, len(xs))
		for i, x := range xs {
			m[i] = x.Mul(i + 1)
		}
		return Concatenate(m, axis)
	}
}

func shapeInts(v ...int64) *nd.Array {
	a, err := nd.FromSlice(v, len(v))
	if err != nil {
		panic(err)
	}
	return a
}

func shapePad(w [][2]int, mode string, v any) confExpr {
	return func(in []*Array) *Array { return in[0].Pad(w, mode, v) }
}

// shapeTri stacks the two index arrays of a triangle built with a chunk
// length taken from the input's first chunk (so that the layouts vary it).
func shapeTri(f func(chunk int) (*Array, *Array)) confExpr {
	return func(in []*Array) *Array {
		r, c := f(max(1, in[0].Chunks()[0][0]))
		return Stack([]*Array{r, c}, 0)
	}
}

func shapeCoarsen(op nd.ReduceOp, f map[int]int, trim bool) confExpr {
	return func(in []*Array) *Array { return in[0].Coarsen(op, f, trim) }
}

var shapeExprs = map[string]confExpr{
	// diff
	"diff_1_0":            func(in []*Array) *Array { return in[0].Diff(1, 0) },
	"diff_1_last":         func(in []*Array) *Array { return in[0].Diff(1, -1) },
	"diff_2_1":            func(in []*Array) *Array { return in[0].Diff(2, 1) },
	"diff_3_0_i8":         func(in []*Array) *Array { return in[0].Diff(3, 0) },
	"diff_u8":             func(in []*Array) *Array { return in[0].Diff(1, 1) },
	"diff_bool":           func(in []*Array) *Array { return in[0].Diff(1, 1) },
	"diff_n_beyond":       func(in []*Array) *Array { return in[0].Diff(8, 0) },
	"diff_0":              func(in []*Array) *Array { return in[0].Diff(0, -1) },
	"diff_neg":            func(in []*Array) *Array { return in[0].Diff(-1, -1) },
	"diff_0d":             func(in []*Array) *Array { return in[0].Diff(1, -1) },
	"diff_prepend_scalar": func(in []*Array) *Array { return in[0].Diff(1, 1, DiffOpts{Prepend: 0}) },
	"diff_append_array":   func(in []*Array) *Array { return in[0].Diff(1, 0, DiffOpts{Append: in[1]}) },
	"diff_both_float":     func(in []*Array) *Array { return in[0].Diff(1, 0, DiffOpts{Prepend: 1.5, Append: -2.0}) },
	"diff_prepend_bad":    func(in []*Array) *Array { return in[0].Diff(1, 0, DiffOpts{Prepend: in[1]}) },
	"diff_1d":             func(in []*Array) *Array { return in[0].Diff(2, -1) },

	// gradient
	"gradient_all":              func(in []*Array) *Array { return shapeStacked(in[0].Gradient(nil)) },
	"gradient_nan":              func(in []*Array) *Array { return shapeOne(in[0].Gradient(nil, 1)) },
	"gradient_i8":               func(in []*Array) *Array { return shapeStacked(in[0].Gradient(nil)) },
	"gradient_u8_axis0":         func(in []*Array) *Array { return shapeOne(in[0].Gradient(nil, 0)) },
	"gradient_f32_h":            func(in []*Array) *Array { return shapeOne(in[0].Gradient([]float64{0.5}, 2)) },
	"gradient_spacing_per_axis": func(in []*Array) *Array { return shapeStacked(in[0].Gradient([]float64{2, 0.25})) },
	"gradient_len2":             func(in []*Array) *Array { return shapeStacked(in[0].Gradient(nil, 1, 0)) },
	"gradient_c128":             func(in []*Array) *Array { return shapeOne(in[0].Gradient(nil, 0)) },
	"gradient_bool":             func(in []*Array) *Array { return shapeOne(in[0].Gradient(nil, 0)) },
	"gradient_small":            func(in []*Array) *Array { return shapeOne(in[0].Gradient(nil, 0)) },
	"gradient_1d":               func(in []*Array) *Array { return shapeOne(in[0].Gradient([]float64{3})) },

	// pad
	"pad_constant":            shapePad([][2]int{{1, 2}, {3, 0}}, PadConstant, nil),
	"pad_constant_value":      shapePad([][2]int{{2, 2}}, PadConstant, 7),
	"pad_constant_cast":       shapePad([][2]int{{0, 1}, {2, 2}}, PadConstant, 1.9),
	"pad_constant_empty":      shapePad([][2]int{{2, 1}, {1, 1}}, PadConstant, -1.0),
	"pad_edge":                shapePad([][2]int{{2, 3}, {1, 4}}, PadEdge, nil),
	"pad_reflect":             shapePad([][2]int{{3, 2}, {4, 1}}, PadReflect, nil),
	"pad_reflect_wide":        shapePad([][2]int{{9, 15}, {20, 2}}, PadReflect, nil),
	"pad_reflect_len1":        shapePad([][2]int{{2, 3}, {0, 0}}, PadReflect, nil),
	"pad_symmetric":           shapePad([][2]int{{2, 2}, {3, 1}}, PadSymmetric, nil),
	"pad_symmetric_wide":      shapePad([][2]int{{16, 1}, {0, 19}}, PadSymmetric, nil),
	"pad_wrap":                shapePad([][2]int{{3, 1}, {2, 5}}, PadWrap, nil),
	"pad_wrap_wide":           shapePad([][2]int{{15, 8}, {10, 0}}, PadWrap, nil),
	"pad_3d":                  shapePad([][2]int{{1, 0}, {0, 2}, {3, 3}}, PadReflect, nil),
	"pad_edge_empty":          shapePad([][2]int{{1, 0}, {0, 0}}, PadEdge, nil),
	"pad_negative":            shapePad([][2]int{{-1, 0}, {0, 0}}, PadConstant, nil),
	"pad_1d_wrap":             shapePad([][2]int{{3, 10}}, PadWrap, nil),
	"pad_wrap_both_wide":      shapePad([][2]int{{13, 17}}, PadWrap, nil),
	"pad_reflect_both_wide":   shapePad([][2]int{{11, 14}}, PadReflect, nil),
	"pad_symmetric_both_wide": shapePad([][2]int{{12, 13}}, PadSymmetric, nil),
	"pad_maximum":             shapePad([][2]int{{1, 2}, {3, 1}}, PadMaximum, nil),
	"pad_maximum_nan":         shapePad([][2]int{{1, 1}}, PadMaximum, nil),
	"pad_minimum_i8":          shapePad([][2]int{{2, 2}}, PadMinimum, nil),
	"pad_mean_f64":            shapePad([][2]int{{2, 0}, {1, 3}}, PadMean, nil),
	"pad_mean_int":            shapePad([][2]int{{1, 1}, {2, 2}}, PadMean, nil),
	"pad_mean_half":           shapePad([][2]int{{1, 1}}, PadMean, nil),
	"pad_mean_u8":             shapePad([][2]int{{3, 3}}, PadMean, nil),
	"pad_mean_bool":           shapePad([][2]int{{1, 1}}, PadMean, nil),
	"pad_mean_f32":            shapePad([][2]int{{0, 1}, {2, 0}, {1, 1}}, PadMean, nil),
	"pad_maximum_empty":       shapePad([][2]int{{1, 0}, {0, 0}}, PadMaximum, nil),
	"pad_len2_modes": func(in []*Array) *Array {
		var parts []*Array
		for _, m := range []string{PadReflect, PadSymmetric, PadWrap} {
			parts = append(parts, in[0].Pad([][2]int{{5, 7}, {0, 0}}, m, nil))
		}
		return Concatenate(parts, 1)
	},
	"roll_axis0":      func(in []*Array) *Array { return in[0].Roll([]int{3}, 0) },
	"roll_neg_axis1":  func(in []*Array) *Array { return in[0].Roll([]int{-4}, 1) },
	"roll_big":        func(in []*Array) *Array { return in[0].Roll([]int{23}, 1) },
	"roll_flat":       func(in []*Array) *Array { return in[0].Roll([]int{10}) },
	"roll_flat_tuple": func(in []*Array) *Array { return in[0].Roll([]int{5, -1}) },
	"roll_tuple":      func(in []*Array) *Array { return in[0].Roll([]int{1, -2, 7}, 0, 2, 1) },
	"roll_same_axis":  func(in []*Array) *Array { return in[0].Roll([]int{2, 3}, 1, 1) },
	"roll_bcast":      func(in []*Array) *Array { return in[0].Roll([]int{2}, 0, 1) },
	"roll_empty":      func(in []*Array) *Array { return in[0].Roll([]int{3}, 0) },
	"roll_bad_axis":   func(in []*Array) *Array { return in[0].Roll([]int{1}, 2) },
	"roll_mismatch":   func(in []*Array) *Array { return in[0].Roll([]int{1, 2, 3}, 0, 1) },
	"flip_all":        func(in []*Array) *Array { return in[0].Flip() },
	"flip_axis1":      func(in []*Array) *Array { return in[0].Flip(1) },
	"flip_axes":       func(in []*Array) *Array { return in[0].Flip(0, 2) },
	"fliplr":          func(in []*Array) *Array { return in[0].FlipLR() },
	"flipud":          func(in []*Array) *Array { return in[0].FlipUD() },
	"fliplr_1d":       func(in []*Array) *Array { return in[0].FlipLR() },
	"rot90_1":         func(in []*Array) *Array { return in[0].Rot90(1, [2]int{0, 1}) },
	"rot90_2":         func(in []*Array) *Array { return in[0].Rot90(2, [2]int{0, 1}) },
	"rot90_3":         func(in []*Array) *Array { return in[0].Rot90(3, [2]int{0, 1}) },
	"rot90_neg":       func(in []*Array) *Array { return in[0].Rot90(-1, [2]int{0, 1}) },
	"rot90_3d":        func(in []*Array) *Array { return in[0].Rot90(1, [2]int{2, 0}) },
	"rot90_same":      func(in []*Array) *Array { return in[0].Rot90(1, [2]int{1, 1}) },
	"rot90_1d":        func(in []*Array) *Array { return in[0].Rot90(1, [2]int{0, 1}) },
	"tile_2":          func(in []*Array) *Array { return in[0].Tile(2) },
	"tile_23":         func(in []*Array) *Array { return in[0].Tile(2, 3) },
	"tile_more":       func(in []*Array) *Array { return in[0].Tile(3, 1, 2) },
	"tile_zero":       func(in []*Array) *Array { return in[0].Tile(0, 2) },
	"tile_0d":         func(in []*Array) *Array { return in[0].Tile(3) },
	"tile_neg":        func(in []*Array) *Array { return in[0].Tile(-1) },
	"repeat_0":        func(in []*Array) *Array { return in[0].Repeat(3, 0) },
	"repeat_1":        func(in []*Array) *Array { return in[0].Repeat(2, 1) },
	"repeat_flat":     func(in []*Array) *Array { return in[0].RepeatFlat(2) },
	"repeat_zero":     func(in []*Array) *Array { return in[0].Repeat(0, 1) },
	"repeat_neg":      func(in []*Array) *Array { return in[0].Repeat(-1, 0) },
	"repeat_f32":      func(in []*Array) *Array { return in[0].Repeat(4, -1) },
	"tril_0":          func(in []*Array) *Array { return in[0].Tril(0) },
	"tril_k2":         func(in []*Array) *Array { return in[0].Tril(2) },
	"triu_neg":        func(in []*Array) *Array { return in[0].Triu(-2) },
	"triu_3d":         func(in []*Array) *Array { return in[0].Triu(1) },
	"tril_1d":         func(in []*Array) *Array { return in[0].Tril(-1) },
	"triu_bool":       func(in []*Array) *Array { return in[0].Triu(0) },
	"tri_79":          func(in []*Array) *Array { return Tri(7, 9, 2, nd.Float64, in[0].Chunks()) },
	"tri_int8":        func(in []*Array) *Array { return Tri(7, 9, -3, nd.Int8, in[0].Chunks()) },
	"tri_square": func(in []*Array) *Array {
		c := in[0].Chunks()[0]
		return Tri(5, -1, 0, nd.Bool, [][]int{c, c})
	},

	// diagonals
	"diag_1d":          func(in []*Array) *Array { return in[0].Diag(0) },
	"diag_1d_k2":       func(in []*Array) *Array { return in[0].Diag(2) },
	"diag_1d_kneg":     func(in []*Array) *Array { return in[0].Diag(-3) },
	"diag_2d":          func(in []*Array) *Array { return in[0].Diag(0) },
	"diag_2d_k":        func(in []*Array) *Array { return in[0].Diag(3) },
	"diag_2d_kneg":     func(in []*Array) *Array { return in[0].Diag(-2) },
	"diag_2d_beyond":   func(in []*Array) *Array { return in[0].Diag(12) },
	"diag_3d":          func(in []*Array) *Array { return in[0].Diag(0) },
	"diagonal_3d":      func(in []*Array) *Array { return in[0].Diagonal(1, 0, 2) },
	"diagonal_3d_neg":  func(in []*Array) *Array { return in[0].Diagonal(-1, 2, 1) },
	"diagonal_same":    func(in []*Array) *Array { return in[0].Diagonal(0, 1, 1) },
	"trace_2d":         func(in []*Array) *Array { return in[0].Trace(0, 0, 1) },
	"trace_i8":         func(in []*Array) *Array { return in[0].Trace(1, 0, 1) },
	"trace_3d":         func(in []*Array) *Array { return in[0].Trace(0, 1, 2) },
	"outer":            func(in []*Array) *Array { return Outer(in[0], in[1]) },
	"outer_2d":         func(in []*Array) *Array { return Outer(in[0], in[1]) },
	"outer_bool":       func(in []*Array) *Array { return Outer(in[0], in[1]) },
	"inner_1d":         func(in []*Array) *Array { return Inner(in[0], in[1]) },
	"inner_2d":         func(in []*Array) *Array { return Inner(in[0], in[1]) },
	"inner_3d_2d":      func(in []*Array) *Array { return Inner(in[0].Index(All(), All(), Range(0, 5)), in[1]) },
	"inner_scalar":     func(in []*Array) *Array { return Inner(in[0], in[1]) },
	"inner_bad":        func(in []*Array) *Array { return Inner(in[0], in[1]) },
	"vdot_c":           func(in []*Array) *Array { return Vdot(in[0], in[1]) },
	"vdot_c_real":      func(in []*Array) *Array { return Vdot(in[0], in[1]) },
	"vdot_2d":          func(in []*Array) *Array { return Vdot(in[0], in[1]) },
	"vdot_bad":         func(in []*Array) *Array { return Vdot(in[0], in[1]) },
	"kron_2d":          func(in []*Array) *Array { return Kron(in[0], in[1]) },
	"kron_1d_2d":       func(in []*Array) *Array { return Kron(in[0], in[1]) },
	"kron_3d":          func(in []*Array) *Array { return Kron(in[0], in[1]) },
	"kron_scalar":      func(in []*Array) *Array { return Kron(in[0], in[1]) },
	"broadcast_to_row": func(in []*Array) *Array { return in[0].BroadcastTo([]int{7, 5}, nil) },
	"broadcast_to_col": func(in []*Array) *Array { return in[0].BroadcastTo([]int{2, 7, 9}, nil) },
	"broadcast_to_0d":  func(in []*Array) *Array { return in[0].BroadcastTo([]int{3, 4}, []int{2, 3}) },
	"broadcast_to_zero": func(in []*Array) *Array {
		return in[0].BroadcastTo([]int{0, 9}, nil)
	},
	"broadcast_to_bad":     func(in []*Array) *Array { return in[0].BroadcastTo([]int{9, 7}, nil) },
	"broadcast_to_fewer":   func(in []*Array) *Array { return in[0].BroadcastTo([]int{9}, nil) },
	"broadcast_arrays":     func(in []*Array) *Array { return shapeStacked(BroadcastArrays(in...)) },
	"broadcast_arrays_3":   func(in []*Array) *Array { return shapeStacked(BroadcastArrays(in...)) },
	"broadcast_arrays_bad": func(in []*Array) *Array { return shapeStacked(BroadcastArrays(in...)) },

	// moving axes
	"moveaxis_0_2":       func(in []*Array) *Array { return in[0].MoveAxis([]int{0}, []int{2}) },
	"moveaxis_multi":     func(in []*Array) *Array { return in[0].MoveAxis([]int{0, 1}, []int{-1, 0}) },
	"moveaxis_bad":       func(in []*Array) *Array { return in[0].MoveAxis([]int{0, 0}, []int{1, 2}) },
	"swapaxes":           func(in []*Array) *Array { return in[0].SwapAxes(0, -1) },
	"rollaxis_2_0":       func(in []*Array) *Array { return in[0].RollAxis(2, 0) },
	"rollaxis_0_3":       func(in []*Array) *Array { return in[0].RollAxis(0, 3) },
	"rollaxis_1_1":       func(in []*Array) *Array { return in[0].RollAxis(1, 1) },
	"rollaxis_bad_start": func(in []*Array) *Array { return in[0].RollAxis(0, 5) },
	"ravel":              func(in []*Array) *Array { return in[0].Ravel() },
	"ravel_0d":           func(in []*Array) *Array { return in[0].Ravel() },
	"atleast_1d_0d":      func(in []*Array) *Array { return in[0].AtLeast1D() },
	"atleast_2d_1d":      func(in []*Array) *Array { return in[0].AtLeast2D() },
	"atleast_3d_1d":      func(in []*Array) *Array { return in[0].AtLeast3D() },
	"atleast_3d_2d":      func(in []*Array) *Array { return in[0].AtLeast3D() },
	"atleast_3d_0d":      func(in []*Array) *Array { return in[0].AtLeast3D() },
	"atleast_2d_3d":      func(in []*Array) *Array { return in[0].AtLeast2D() },

	// joining
	"hstack_1d": func(in []*Array) *Array { return HStack(in) },
	"hstack_2d": func(in []*Array) *Array { return HStack([]*Array{in[0], in[1], in[0]}) },
	"vstack_1d": func(in []*Array) *Array { return VStack(in) },
	"vstack_2d": func(in []*Array) *Array { return VStack(in) },
	"dstack":    func(in []*Array) *Array { return DStack(in) },
	"dstack_1d": func(in []*Array) *Array { return DStack(in) },
	"block_2x2": func(in []*Array) *Array {
		return Block([]any{[]any{in[0], in[1]}, []any{in[2], in[3].Reshape(1, 1)}})
	},
	"block_1d":           func(in []*Array) *Array { return Block([]any{in[0], in[1], in[0]}) },
	"block_promote_ndim": func(in []*Array) *Array { return Block([]any{[]any{in[0]}, []any{in[0]}}) },
	"block_depth3": func(in []*Array) *Array {
		x := in[0]
		return Block([]any{[]any{[]any{x, x}}, []any{[]*Array{x, x}}})
	},
	"block_mismatch":   func(in []*Array) *Array { return Block([]any{[]any{in[0]}, in[1]}) },
	"block_bad_shapes": func(in []*Array) *Array { return Block([]any{[]any{in[0], in[1]}}) },

	// splitting
	"array_split_3":        func(in []*Array) *Array { return shapePieces(1)(in[0].ArraySplit(3, 1)) },
	"array_split_4_0":      func(in []*Array) *Array { return shapePieces(0)(in[0].ArraySplit(4, 0)) },
	"array_split_more":     func(in []*Array) *Array { return shapePieces(0)(in[0].ArraySplit(7, 0)) },
	"split_3":              func(in []*Array) *Array { return shapePieces(1)(in[0].Split(3, 1)) },
	"split_unequal":        func(in []*Array) *Array { return shapePieces(1)(in[0].Split(2, 1)) },
	"split_indices":        func(in []*Array) *Array { return shapePieces(1)(in[0].SplitAt([]int{2, 5, -1}, 1)) },
	"split_indices_beyond": func(in []*Array) *Array { return shapePieces(0)(in[0].SplitAt([]int{3, 20, 1}, 0)) },
	"array_split_zero":     func(in []*Array) *Array { return shapePieces(0)(in[0].ArraySplit(0, 0)) },

	// append, insert, delete
	"append_flat":          func(in []*Array) *Array { return in[0].AppendFlat(in[1]) },
	"append_axis0":         func(in []*Array) *Array { return in[0].Append(in[1], 0) },
	"append_axis1_promote": func(in []*Array) *Array { return in[0].Append(in[1], 1) },
	"append_bad":           func(in []*Array) *Array { return in[0].Append(in[1], 0) },
	"insert_scalar_row":    func(in []*Array) *Array { return in[0].Insert(2, 5.5, 0) },
	"insert_scalar_col_vec": func(in []*Array) *Array {
		return in[0].Insert(-1, shapeInts(1, 2, 3, 4, 5, 6, 7), 1)
	},
	"insert_cast": func(in []*Array) *Array {
		return in[0].Insert(0, Where(in[1].NotEqual(in[1]), 0.0, in[1]), 1)
	},
	"insert_end":           func(in []*Array) *Array { return in[0].Insert(9, -1, 1) },
	"insert_list":          func(in []*Array) *Array { return in[0].Insert([]int{1, 1, 5, 0}, shapeInts(10, 20, 30, 40), 1) },
	"insert_list_rows_bad": func(in []*Array) *Array { return in[0].Insert([]int{6, 2, 2}, shapeInts(7, 8, 9), 0) },
	"insert_list_unsorted": func(in []*Array) *Array { return in[0].Insert([]int{6, 2, 2}, shapeInts(7, 8, 9), 1) },
	"insert_out":           func(in []*Array) *Array { return in[0].Insert(10, 1, 1) },
	"delete_one":           func(in []*Array) *Array { return in[0].Delete(3, 1) },
	"delete_list":          func(in []*Array) *Array { return in[0].Delete([]int{0, -1, 3, 3}, 0) },
	"delete_none":          func(in []*Array) *Array { return in[0].Delete([]int{}, 0) },
	"delete_out":           func(in []*Array) *Array { return in[0].Delete([]int{9}, 1) },

	// creation
	"zeros_like":         func(in []*Array) *Array { return ZerosLike(in[0], nd.Invalid) },
	"ones_like_dtype":    func(in []*Array) *Array { return OnesLike(in[0], nd.Int32) },
	"full_like_cast":     func(in []*Array) *Array { return FullLike(in[0], 2.7, nd.Invalid) },
	"full_like_dtype":    func(in []*Array) *Array { return FullLike(in[0], 2.7, nd.Float32) },
	"full_like_nan":      func(in []*Array) *Array { return FullLike(in[0], math.NaN(), nd.Invalid) },
	"indices_2d":         func(in []*Array) *Array { return Indices([]int{7, 9}, nd.Int64, in[0].Chunks()) },
	"indices_3d_i32":     func(in []*Array) *Array { return Indices([]int{4, 5, 6}, nd.Int32, in[0].Chunks()) },
	"indices_empty_axis": func(in []*Array) *Array { return Indices([]int{0, 4}, nd.Int64, in[0].Chunks()) },
	"meshgrid_xy":        func(in []*Array) *Array { return shapeStacked(Meshgrid("xy", in...)) },
	"meshgrid_ij":        func(in []*Array) *Array { return shapeStacked(Meshgrid("ij", in...)) },
	"meshgrid_3_xy":      func(in []*Array) *Array { return shapeStacked(Meshgrid("xy", in...)) },
	"meshgrid_2d_input":  func(in []*Array) *Array { return shapeStacked(Meshgrid("ij", in...)) },
	"meshgrid_bad":       func(in []*Array) *Array { return shapeStacked(Meshgrid("yx", in...)) },

	// select, apply_over_axes, ediff1d
	"select_basic": func(in []*Array) *Array {
		x := in[0]
		return Select([]*Array{x.Greater(1), x.Less(-1)}, []any{x, x.Neg()}, 0.5)
	},
	"select_int8_default": func(in []*Array) *Array { return Select([]*Array{in[0].Greater(0)}, []any{in[0]}, 0) },
	"select_promote": func(in []*Array) *Array {
		return Select([]*Array{in[0].Greater(0), in[1].Greater(0)}, []any{in[0], in[1]}, -1)
	},
	"select_scalar_choice": func(in []*Array) *Array {
		x := in[0]
		return Select([]*Array{x.Greater(50), x.Less(-50)}, []any{300, x}, 0)
	},
	"select_bcast":   func(in []*Array) *Array { return Select([]*Array{in[0].Greater(0)}, []any{in[1]}, in[0]) },
	"select_nonbool": func(in []*Array) *Array { return Select([]*Array{in[0]}, []any{in[0]}, nil) },
	"select_empty":   func(in []*Array) *Array { return Select(nil, nil, nil) },
	"apply_over_axes_sum": func(in []*Array) *Array {
		return ApplyOverAxes(func(x *Array, ax int) *Array { return x.Sum(ax) }, in[0], 0, 2)
	},
	"apply_over_axes_max_neg": func(in []*Array) *Array {
		return ApplyOverAxes(func(x *Array, ax int) *Array { return x.Max(ax) }, in[0], -1)
	},
	"apply_over_axes_bad": func(in []*Array) *Array {
		return ApplyOverAxes(func(x *Array, ax int) *Array { return x.Sum() }, in[0], 0)
	},
	"ediff1d_basic":          func(in []*Array) *Array { return EDiff1D(in[0], nil, nil) },
	"ediff1d_both":           func(in []*Array) *Array { return EDiff1D(in[0], shapeInts(100, 101), -5) },
	"ediff1d_float_into_int": func(in []*Array) *Array { return EDiff1D(in[0], nil, 1.5) },
	"ediff1d_uint_scalar":    func(in []*Array) *Array { return EDiff1D(in[0], nil, 3) },
	"ediff1d_uint_neg":       func(in []*Array) *Array { return EDiff1D(in[0], -3, nil) },
	"ediff1d_bool":           func(in []*Array) *Array { return EDiff1D(in[0], nil, nil) },
	"ediff1d_empty":          func(in []*Array) *Array { return EDiff1D(in[0], nil, 2.0) },

	// triangle indices, chunked by the input's first chunk
	"tril_indices":        shapeTri(func(c int) (*Array, *Array) { return TrilIndices(7, 0, -1, c) }),
	"tril_indices_k_m":    shapeTri(func(c int) (*Array, *Array) { return TrilIndices(7, 2, 9, c) }),
	"tril_indices_neg":    shapeTri(func(c int) (*Array, *Array) { return TrilIndices(9, -3, 4, c) }),
	"tril_indices_beyond": shapeTri(func(c int) (*Array, *Array) { return TrilIndices(4, -6, 5, c) }),
	"triu_indices":        shapeTri(func(c int) (*Array, *Array) { return TriuIndices(6, 1, -1, c) }),
	"triu_indices_k_m":    shapeTri(func(c int) (*Array, *Array) { return TriuIndices(5, -2, 8, c) }),
	"triu_indices_zero":   shapeTri(func(c int) (*Array, *Array) { return TriuIndices(0, 0, 3, c) }),
	"tril_indices_from": func(in []*Array) *Array {
		r, c := TrilIndicesFrom(in[0], -1, max(1, in[0].Chunks()[0][0]))
		return Stack([]*Array{r, c}, 0)
	},
	"triu_indices_from": func(in []*Array) *Array {
		r, c := TriuIndicesFrom(in[0], 0, 3)
		return Stack([]*Array{r, c}, 0)
	},

	// piecewise, fromfunction
	"piecewise_funcs": func(in []*Array) *Array {
		x := in[0]
		return Piecewise(x, []*Array{x.Less(0), x.Greater(1)}, []any{
			func(v *Array) *Array { return v.Neg() }, func(v *Array) *Array { return v.Mul(v) }})
	},
	"piecewise_otherwise": func(in []*Array) *Array {
		x := in[0]
		return Piecewise(x, []*Array{x.Less(-1), x.Greater(1)}, []any{
			-1.5, func(v *Array) *Array { return v.Add(1) }, func(v *Array) *Array { return v.Mul(2) }})
	},
	"piecewise_overlap": func(in []*Array) *Array {
		x := in[0]
		return Piecewise(x, []*Array{x.Greater(0), x.Greater(50)}, []any{1, 2})
	},
	"piecewise_cast": func(in []*Array) *Array {
		x := in[0]
		return Piecewise(x, []*Array{x.Less(0)}, []any{func(v *Array) *Array { return v.Mul(0.5) }, 7.9})
	},
	"piecewise_bad_count": func(in []*Array) *Array {
		return Piecewise(in[0], []*Array{in[0].Less(0)}, []any{1, 2, 3})
	},
	"fromfunction_sum": func(in []*Array) *Array {
		return FromFunction(func(c ...*Array) *Array { return c[0].Mul(10).Add(c[1]) }, []int{7, 9}, nd.Float64, in[0].Chunks())
	},
	"fromfunction_int": func(in []*Array) *Array {
		return FromFunction(func(c ...*Array) *Array { return c[0].Add(c[1]).Mod(c[2].Add(1)) }, []int{4, 5, 6}, nd.Int64, in[0].Chunks())
	},

	// index math
	"unravel_basic": func(in []*Array) *Array {
		return shapeStacked(UnravelIndex(in[0].Abs().Add(3), []int{4, 5, 3}))
	},
	"unravel_u8":    func(in []*Array) *Array { return shapeStacked(UnravelIndex(in[0], []int{16, 16})) },
	"unravel_out":   func(in []*Array) *Array { return shapeStacked(UnravelIndex(in[0], []int{4, 5})) },
	"unravel_float": func(in []*Array) *Array { return shapeStacked(UnravelIndex(in[0], []int{4, 5})) },
	"ravel_multi": func(in []*Array) *Array {
		return RavelMultiIndex([]*Array{in[0].Abs().Mod(4), in[0].Add(11).Mod(5)}, []int{4, 5})
	},
	"ravel_multi_bcast": func(in []*Array) *Array {
		return RavelMultiIndex([]*Array{in[0].Abs(), FromNDArray(shapeInts(2, 0, 1), 2)}, []int{6, 3})
	},
	"ravel_multi_out": func(in []*Array) *Array { return RavelMultiIndex([]*Array{in[0], in[0]}, []int{4, 5}) },
	"ravel_multi_len": func(in []*Array) *Array { return RavelMultiIndex([]*Array{in[0]}, []int{4, 5}) },
	"choose_basic": func(in []*Array) *Array {
		return Choose(in[0].Abs().Mod(3), []any{in[1], in[2], 0.5})
	},
	"choose_bcast": func(in []*Array) *Array { return Choose(in[0].Abs().Mod(2), []any{shapeInts(10, 20, 30), -1}) },
	"choose_int8_scalar": func(in []*Array) *Array {
		return Choose(in[0].Greater(0).AsType(nd.Int8), []any{in[0], 300})
	},
	"choose_out": func(in []*Array) *Array { return Choose(in[0], []any{in[1]}) },

	// coarsen
	"coarsen_sum_1":         shapeCoarsen(nd.Sum, map[int]int{1: 3}, false),
	"coarsen_mean_trim":     shapeCoarsen(nd.Mean, map[int]int{0: 2, 1: 4}, true),
	"coarsen_min_i8":        shapeCoarsen(nd.Min, map[int]int{0: 7, 1: 3}, false),
	"coarsen_sum_i8":        shapeCoarsen(nd.Sum, map[int]int{1: 9}, false),
	"coarsen_max_3d":        shapeCoarsen(nd.Max, map[int]int{0: 2, 2: 3}, false),
	"coarsen_mean_neg_axis": shapeCoarsen(nd.Mean, map[int]int{-1: 2, 1: 5}, false),
	"coarsen_any_trim":      shapeCoarsen(nd.Any, map[int]int{0: 3, 1: 2}, true),
	"coarsen_misaligned":    shapeCoarsen(nd.Sum, map[int]int{0: 2}, false),

	// user functions over axes
	"along_stats_1": func(in []*Array) *Array {
		return ApplyAlongAxis("shape.stats", 1, in[0], AlongOpts{DType: nd.Float64, Shape: []int{3}})
	},
	"along_stats_0": func(in []*Array) *Array { return ApplyAlongAxis("shape.stats", 0, in[0], AlongOpts{}) },
	"along_sum_3d": func(in []*Array) *Array {
		w, _ := nd.FromSlice([]float64{1, -2}, 2)
		return ApplyAlongAxis("shape.sum1d", 0, in[0].Reshape(7, 9, 1).Mul(w), AlongOpts{})
	},
	"gufunc_inner": func(in []*Array) *Array {
		return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{AllowRechunk: true}, in[0], in[1])
	},
	"gufunc_inner_bcast": func(in []*Array) *Array {
		a := in[0].Index(All(), All(), Range(0, 5)).AsType(nd.Float64)
		return ApplyGufunc("shape.inner", "( i ), (i) -> ()", GufuncOpts{AllowRechunk: true}, a, in[1])
	},
	"gufunc_swap": func(in []*Array) *Array {
		return ApplyGufunc("shape.swap", "(i,j)->(j,i)", GufuncOpts{AllowRechunk: true}, in[0])
	},
	"gufunc_new_dim": func(in []*Array) *Array {
		return ApplyGufunc("shape.twice", "(i)->(i,k)", GufuncOpts{AllowRechunk: true, OutputSizes: map[string]int{"k": 2}}, in[0])
	},
	"gufunc_vectorize_inner": func(in []*Array) *Array {
		return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{AllowRechunk: true, Vectorize: true}, in[0], in[1])
	},
	"gufunc_vectorize_bcast": func(in []*Array) *Array {
		a := in[0].Index(All(), All(), Range(0, 5)).AsType(nd.Float64)
		return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{AllowRechunk: true, Vectorize: true}, a, in[1])
	},
	"gufunc_vectorize_new_dim": func(in []*Array) *Array {
		o := GufuncOpts{AllowRechunk: true, Vectorize: true, OutputSizes: map[string]int{"k": 2}}
		return ApplyGufunc("shape.twice", "(i)->(i,k)", o, in[0])
	},
	"gufunc_scalar_core": func(in []*Array) *Array {
		return ApplyGufunc("shape.mul", "(),()->()", GufuncOpts{}, in[0], in[1])
	},
	"gufunc_vectorize_scalar_core": func(in []*Array) *Array {
		return ApplyGufunc("shape.mul", "(),()->()", GufuncOpts{Vectorize: true}, in[0], in[1])
	},
	"gufunc_core_mismatch": func(in []*Array) *Array {
		return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{AllowRechunk: true}, in[0], in[1])
	},
	"mapblocks_drop0": func(in []*Array) *Array {
		return MapBlocks("shape.sum0", BlockOpts{DropAxis: []int{0}}, in[0])
	},
	"mapblocks_new_last": func(in []*Array) *Array {
		return MapBlocks("shape.pair", BlockOpts{NewAxis: []int{-1}, Chunks: [][]int{nil, nil, {2}}}, in[0])
	},
	"mapblocks_drop_new": func(in []*Array) *Array {
		return MapBlocks("shape.sum0pair", BlockOpts{DropAxis: []int{0}, NewAxis: []int{2}, Chunks: [][]int{nil, nil, {2}}}, in[0])
	},
}

// The block functions of the user-function cases (see the generator).
func init() {
	must(RegisterBlockFunc("shape.stats", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		out := make([]float64, 3)
		for i, op := range []nd.ReduceOp{nd.Min, nd.Max, nd.Sum} {
			r, err := nd.Reduce(op, b[0], nil, false)
			if err != nil {
				return nil, err
			}
			v, err := r.At()
			if err != nil {
				return nil, err
			}
			out[i] = v.(float64)
		}
		return nd.FromSlice(out, 3)
	}))
	must(RegisterBlockFunc("shape.sum1d", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		return nd.Reduce(nd.Sum, b[0], nil, false)
	}))
	must(RegisterBlockFunc("shape.inner", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		p, err := nd.Binary(nd.Mul, b[0], b[1])
		if err != nil {
			return nil, err
		}
		return nd.Reduce(nd.Sum, p, []int{p.NDim() - 1}, false)
	}))
	must(RegisterBlockFunc("shape.mul", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		return nd.Binary(nd.Mul, b[0], b[1])
	}))
	must(RegisterBlockFunc("shape.swap", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		n := b[0].NDim()
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		order[n-1], order[n-2] = n-2, n-1
		return b[0].Transpose(order...)
	}))
	must(RegisterBlockFunc("shape.twice", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) { return shapePairLast(b[0]) }))
	must(RegisterBlockFunc("shape.pair", func(info BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		if l := info.Location[len(info.Location)-1]; l != [2]int{0, 2} {
			return nil, fmt.Errorf("new axis location %v, want [0 2]", l)
		}
		return shapePairLast(b[0])
	}))
	must(RegisterBlockFunc("shape.sum0", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		return nd.Reduce(nd.Sum, b[0], []int{0}, false)
	}))
	must(RegisterBlockFunc("shape.sum0pair", func(_ BlockInfo, b ...*nd.Array) (*nd.Array, error) {
		s, err := nd.Reduce(nd.Sum, b[0], []int{0}, false)
		if err != nil {
			return nil, err
		}
		return shapePairLast(s)
	}))
}

// shapePairLast stacks b and 2b on a new last axis.
func shapePairLast(b *nd.Array) (*nd.Array, error) {
	out, err := nd.Zeros(b.DType(), append(slices.Clone(b.Shape()), 2)...)
	if err != nil {
		return nil, err
	}
	two, err := nd.Full(b.DType(), 2)
	if err != nil {
		return nil, err
	}
	b2, err := nd.Binary(nd.Mul, b, two)
	if err != nil {
		return nil, err
	}
	for i, v := range []*nd.Array{b, b2} {
		dst, err := out.Index(out.NDim()-1, i)
		if err != nil {
			return nil, err
		}
		if err := nd.Assign(dst, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func TestParityShape(t *testing.T) {
	exprs := make(map[string]parityCase, len(shapeExprs))
	for _, c := range loadCases(t, parityShapeDir) {
		e, ok := shapeExprs[c.Name]
		if !ok {
			continue // runParity reports it
		}
		in := make([]*nd.Array, len(c.Inputs))
		for i, name := range c.Inputs {
			var err error
			if in[i], err = npy.ReadFile(filepath.Join(parityShapeDir, "in_"+name+".npy")); err != nil {
				t.Fatal(err)
			}
		}
		exprs[c.Name] = parityCase{expr: e, layouts: shapeLayouts(in)}
	}
	runParity(t, parityShapeDir, exprs)
}

// shapeLayouts are the conformance chunkings of in, and when every input
// is 7×9 also the zero-length-chunk layouts of the parity table
// (zeroChunks7x9), every input chunked alike.
func shapeLayouts(in []*nd.Array) []confLayout {
	out := confLayouts(in)
	for _, a := range in {
		if !slices.Equal(a.Shape(), []int{7, 9}) {
			return out
		}
	}
	for _, z := range zeroChunks7x9 {
		l := confLayout{name: z.name, specs: make([]any, len(in)), every: true}
		for i := range in {
			l.specs[i] = z.specs[0]
		}
		out = append(out, l)
	}
	return out
}

// TestParityShapeGoldensCurrent checks that testdata/parity_shape is what
// gen_parity_shape.py writes now (see TestConformanceGoldensCurrent).
func TestParityShapeGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_shape.py", parityShapeDir)
}

// TestParityShapeExprsHaveCases keeps the expression table and the
// manifest in step, both ways.
func TestParityShapeExprsHaveCases(t *testing.T) {
	checkExprsHaveCases(t, parityShapeDir, shapeExprs)
}

// TestShapeErrorsTyped: the refusals are typed errors naming the
// operation.
func TestShapeErrorsTyped(t *testing.T) {
	x := Ones([]int{4, 6}, nd.Float64, 2)
	for _, tc := range []struct {
		op    string
		build func() *Array
	}{
		{"diff", func() *Array { return x.Diff(-1, 0) }},
		{"pad", func() *Array { return x.Pad([][2]int{{1, 1}}, "median", nil) }},
		{"rot90", func() *Array { return x.Rot90(1, [2]int{0, 0}) }},
		{"tile", func() *Array { return x.Tile(-2) }},
		{"tile", func() *Array { return x.Tile(1<<30, 1<<30) }},
		{"repeat", func() *Array { return x.Repeat(math.MaxInt/2, 1) }},
		{"pad", func() *Array { return x.Pad([][2]int{{1 << 40, 0}}, PadReflect, nil) }},
		{"repeat", func() *Array { return x.Repeat(-1, 0) }},
		{"diag", func() *Array { return Ones([]int{2, 2, 2}, nd.Float64, 1).Diag(0) }},
		{"broadcast_to", func() *Array { return x.BroadcastTo([]int{3, 6}, nil) }},
		{"coarsen", func() *Array { return x.Coarsen(nd.Sum, map[int]int{0: 3}, false) }},
		{"coarsen", func() *Array { return x.Coarsen(nd.Sum, map[int]int{0: 0}, false) }},
		{"coarsen", func() *Array { return x.Coarsen(nd.Sum, map[int]int{1: 2, -1: 3}, false) }},
		{"insert", func() *Array { return x.Insert(7, 1.0, 0) }},
		{"delete", func() *Array { return x.Delete(-9, 1) }},
		{"block", func() *Array { return Block([]any{}) }},
		{"block", func() *Array { return Block([]any{"x"}) }},
		{"apply_gufunc", func() *Array { return ApplyGufunc("shape.inner", "(i),(i)", GufuncOpts{}, x, x) }},
		{"apply_gufunc", func() *Array { return ApplyGufunc("shape.inner", "(i),(i)->(),()", GufuncOpts{}, x, x) }},
		{"apply_gufunc", func() *Array { return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{}, x) }},
		// core dimension in 3 chunks, AllowRechunk off: Dask's error
		{"apply_gufunc", func() *Array { return ApplyGufunc("shape.inner", "(i),(i)->()", GufuncOpts{}, x, x) }},
		{"apply_gufunc", func() *Array { return ApplyGufunc("shape.twice", "(i)->(i,k)", GufuncOpts{AllowRechunk: true}, x) }},
		{"apply_along_axis", func() *Array { return ApplyAlongAxis("shape.no-such", 0, x, AlongOpts{}) }},
		{"map_blocks", func() *Array { return MapBlocks("shape.sum0", BlockOpts{DropAxis: []int{2}}, x) }},
		{"blockwise", func() *Array {
			return Blockwise("shape.sum0", "j", BlockOpts{}, In(x, "ij")) // i in 2 chunks, contracted
		}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			_, err := auditRun(t, tc.build)
			wantAuditErr(t, err, tc.op)
		})
	}
	if xs, err := x.Split(4, 0); err != nil || len(xs) != 4 {
		t.Errorf("Split(4) of length 4: got %d pieces, %v; want 4, no error", len(xs), err)
	}
	if _, err := x.Split(3, 0); err == nil || !strings.Contains(err.Error(), "split") {
		t.Errorf("Split(3) of length 4: got %v, want an error naming split", err)
	}
	// a huge order stops once the axis is empty (numpy's shape (0, 6))
	if d := x.Diff(1<<40, 0); d.Err() != nil || !slices.Equal(d.Shape(), []int{0, 6}) {
		t.Errorf("Diff(1<<40): %v", d)
	}
	if _, err := Meshgrid("yx", x); err == nil || !strings.Contains(err.Error(), "meshgrid") {
		t.Errorf("Meshgrid(yx): got %v", err)
	}
}

// TestParseSignature: numpy's signature grammar, and what is refused.
func TestParseSignature(t *testing.T) {
	s, err := ParseSignature(" (i, j),(j,k_2) -> (i,k_2)")
	if err != nil {
		t.Fatal(err)
	}
	want := Signature{In: [][]string{{"i", "j"}, {"j", "k_2"}}, Out: []string{"i", "k_2"}}
	if fmt.Sprint(s) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", s, want)
	}
	if s, err := ParseSignature("()->()"); err != nil || len(s.In) != 1 || len(s.In[0]) != 0 || len(s.Out) != 0 {
		t.Errorf("()->(): %v %v", s, err)
	}
	for _, bad := range []string{"", "(i)", "(i)->", "(i)(j)->()", "(i,)->()", "(1)->()", "(i,i)->()", "(i)->(),()", "(i->()", "(i),->()", "(i?)->()"} {
		if _, err := ParseSignature(bad); err == nil {
			t.Errorf("ParseSignature(%q): want an error", bad)
		}
	}
}

// TestShapeBlockLocal: the shape functions build block-level graphs, as
// Dask's: no task of theirs reads more than a few blocks of a 4×4-block
// input (a function that gathered the array into one task would read
// 16), and Repeat, Coarsen and Diagonal have one task per output block.
func TestShapeBlockLocal(t *testing.T) {
	x := Random(3).Uniform(0, 1, []int{16, 16}, 4)
	for _, tc := range []struct {
		name string
		a    *Array
		max  int // the most inputs of one task
	}{
		{"diff", x.Diff(2, 1), 4},
		{"gradient", shapeOne(x.Gradient(nil, 0)), 4},
		{"pad-reflect", x.Pad([][2]int{{3, 5}}, PadReflect, nil), 4},
		{"pad-constant", x.Pad([][2]int{{3, 5}}, PadConstant, 1.0), 4},
		{"roll", x.Roll([]int{5, -3}, 0, 1), 4},
		{"rot90", x.Rot90(1, [2]int{0, 1}), 2},
		{"tile", x.Tile(2, 3), 2},
		{"repeat", x.Repeat(3, 1), 1},
		{"tril", x.Tril(1), 3},
		{"diagonal", x.Diagonal(2, 0, 1), 1},
		{"kron", Kron(Ones([]int{2, 2}, nd.Float64, 1), x), 4},
		{"coarsen", x.Coarsen(nd.Mean, map[int]int{0: 2, 1: 4}, false), 1},
		{"broadcast_to", x.Index(At(0)).BroadcastTo([]int{16, 16}, 4), 2},
		{"insert", x.Insert([]int{3, 9}, 0.5, 1), 4},
		{"along", ApplyAlongAxis("shape.sum1d", 1, x, AlongOpts{}), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := tc.a.Graph(WithOptimize(false))
			if err != nil {
				t.Fatal(err)
			}
			d, err := g.Dependencies()
			if err != nil {
				t.Fatal(err)
			}
			most := 0
			for i := range g.Len() {
				if g.At(i).Kind == graph.KindTask {
					most = max(most, len(d.Of(i)))
				}
			}
			if most > tc.max {
				t.Errorf("a task reads %d blocks, want at most %d", most, tc.max)
			}
		})
	}
	if n := x.Repeat(3, 1).NumTasks(); n != 16 {
		t.Errorf("Repeat: %d blocks, want 16", n)
	}
}

// TestToDelayed: the delayed blocks compute the array's blocks, and
// FromDelayed of each, concatenated back, is the array.
func TestToDelayed(t *testing.T) {
	ctx := context.Background()
	x := Arange(0, 35, 1, nd.Float64, 7).Reshape(5, 7).Rechunk([]int{2, 3}).Mul(2).Add(1)
	ds, err := x.ToDelayed()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != x.NumTasks() {
		t.Fatalf("%d delayed values for %d blocks", len(ds), x.NumTasks())
	}
	whole, err := x.Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nb := x.NumBlocks()
	rows := make([]*Array, nb[0])
	k := 0
	for i := range nb[0] {
		row := make([]*Array, nb[1])
		for j := range nb[1] {
			idx := []int{i, j}
			b, err := ds[k].Compute(ctx, delayed.WithScheduler(sched.Threaded{Workers: 2}))
			if err != nil {
				t.Fatal(err)
			}
			st, sh := x.blockStart(idx), x.blockShape(idx)
			want, err := whole.Slice(nd.Slice1{Start: st[0], Stop: st[0] + sh[0], Step: 1}, nd.Slice1{Start: st[1], Stop: st[1] + sh[1], Step: 1})
			if err != nil {
				t.Fatal(err)
			}
			if d := compareGolden(b, want.Contiguous()); d != "" {
				t.Errorf("block %v: %s", idx, d)
			}
			row[j] = FromDelayed(ds[k], sh, nd.Float64)
			k++
		}
		rows[i] = Concatenate(row, 1)
	}
	back, err := Concatenate(rows, 0).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := compareGolden(back, whole); d != "" {
		t.Error(d)
	}
	// several delayed values in one computation share the array's graph
	sum := delayed.Fn2("shape_test.add_blocks", func(a, b *nd.Array) float64 {
		s := 0.0
		for _, x := range []*nd.Array{a, b} {
			r, _ := nd.Reduce(nd.Sum, x, nil, false)
			v, _ := r.At()
			s += v.(float64)
		}
		return s
	})
	got, err := sum(ds[0], ds[1]).Compute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := (1.0 + 3 + 5) + (15 + 17 + 19) + (7 + 9 + 11) + (21 + 23 + 25); got != want {
		t.Errorf("sum of blocks 0 and 1: got %v, want %v", got, want)
	}
	if _, err := errArray(errors.New("boom")).ToDelayed(); err == nil {
		t.Error("ToDelayed of an error Array: want the error")
	}
}

// TestPadEmpty: numpy's mode "empty" leaves the pad undefined; here it
// is zero, and an empty axis may be extended.
func TestPadEmpty(t *testing.T) {
	x := Ones([]int{0, 3}, nd.Int16, 2)
	got, err := x.Pad([][2]int{{1, 2}, {0, 1}}, PadEmpty, 9).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := nd.Zeros(nd.Int16, 3, 4)
	if d := compareGolden(got, want); d != "" {
		t.Error(d)
	}
}

// TestEmptyLike: shape, dtype and chunks of a (numpy's values are
// undefined; here zeros).
func TestEmptyLike(t *testing.T) {
	x := Ones([]int{5, 4}, nd.Int16, [][]int{{2, 3}, {4}})
	e := EmptyLike(x, nd.Invalid)
	if !slices.Equal(e.Shape(), x.Shape()) || e.DType() != nd.Int16 || fmt.Sprint(e.Chunks()) != fmt.Sprint(x.Chunks()) {
		t.Errorf("EmptyLike: %v", e)
	}
	if e := EmptyLike(x, nd.Complex64); e.DType() != nd.Complex64 {
		t.Errorf("EmptyLike(complex64): %s", e.DType())
	}
}

// TestUnifyChunks: the union of the boundaries per letter, length-1 axes
// left alone, values unchanged.
func TestUnifyChunks(t *testing.T) {
	x := Arange(0, 42, 1, nd.Float64, 42).Reshape(6, 7).Rechunk([][]int{{2, 4}, {3, 4}})
	y := Arange(0, 7, 1, nd.Float64, 7).Rechunk([][]int{{1, 6}})
	z := Ones([]int{1, 6}, nd.Float64, [][]int{{1}, {6}})
	chunks, arrays, err := UnifyChunks(In(x, "ij"), In(y, "j"), In(z, "ki"))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(chunks['i'], chunks['j'], chunks['k']) != "[2 4] [1 2 4] [1]" {
		t.Errorf("chunks i, j, k: %v %v %v", chunks['i'], chunks['j'], chunks['k'])
	}
	if fmt.Sprint(arrays[0].Chunks(), arrays[1].Chunks(), arrays[2].Chunks()) != "[[2 4] [1 2 4]] [[1 2 4]] [[1] [2 4]]" {
		t.Errorf("arrays' chunks: %v %v %v", arrays[0].Chunks(), arrays[1].Chunks(), arrays[2].Chunks())
	}
	for i, a := range []*Array{x, y, z} {
		got, err := arrays[i].Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := a.Compute(context.Background())
		if d := compareGolden(got, want); d != "" {
			t.Errorf("array %d: %s", i, d)
		}
	}
	if _, _, err := UnifyChunks(In(x, "ij"), In(y, "i")); err == nil || !strings.Contains(err.Error(), "unify_chunks") {
		t.Errorf("lengths 6 and 7 under one letter: got %v", err)
	}
}
