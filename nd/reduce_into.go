package nd

import (
	"fmt"
	"slices"
)

// ReduceInto is Reduce writing into dst instead of new memory, for callers
// that reduce many tiles into a reused buffer: dst must have dtype
// ReduceResultType(op, a.DType()), be C-contiguous from the first element
// of its memory (offset 0: a buffer from a pool, say) and have the reduced
// shape, with or without the reduced axes kept as length 1. dst is
// overwritten (not accumulated into); the values are those of Reduce, bit
// for bit. Var and Std are not supported (use VarStd).
func ReduceInto(op ReduceOp, dst, a *Array, axes []int) error {
	if err := checkArrays(op.String(), dst, a); err != nil {
		return err
	}
	if op >= numReduceOps {
		return fmt.Errorf("nd: ReduceInto: invalid op %d", uint8(op))
	}
	if op == Var || op == Std {
		return fmt.Errorf("nd: ReduceInto: %s is not supported (use VarStd)", op)
	}
	// Everything below lives on the stack for arrays of up to walkDims
	// axes: a tile loop calling ReduceInto allocates nothing.
	var redBuf [walkDims]bool
	red, err := reduceAxesInto(redBuf[:0], op.String(), a, axes)
	if err != nil {
		return err
	}
	var keepBuf, stBuf [walkDims]int
	keep, count := keepBuf[:0], 1
	for i, r := range red {
		if r {
			keep = append(keep, 1)
			count *= a.shape[i]
		} else {
			keep = append(keep, a.shape[i])
		}
	}
	if want := ReduceResultType(op, a.dtype); dst.dtype != want {
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape, a.shape},
			Reason: fmt.Sprintf("dst dtype %s, want %s", dst.dtype, want)}
	}
	if !slices.Equal(dst.shape, keep) && !isFinalShape(dst.shape, a.shape, red) {
		_, final, _ := reducedShape(a.shape, red, false)
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape, a.shape},
			Reason: fmt.Sprintf("dst shape %v, want %v", dst.shape, final)}
	}
	if dst.offset != 0 || !dst.IsCContiguous() {
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape}, Reason: "dst must be C-contiguous from the first element of its memory"}
	}
	if count == 0 && (op == Min || op == Max) {
		return &ShapeError{Op: op.String(), Shapes: [][]int{a.shape},
			Reason: "zero-size array to reduction operation " + op.ufuncName() + " which has no identity"}
	}
	out := Array{dtype: dst.dtype, shape: keep, strides: CStridesInto(stBuf[:0], keep), data: dst.data}
	n := 1
	for _, s := range keep {
		n *= s
	}
	clear(rawBytes(dst.data)[:n*dst.dtype.Size()])
	return reduceInto(op, &out, a, red, count)
}

// isFinalShape reports whether sh is shape without the flagged axes.
func isFinalShape(sh, shape []int, red []bool) bool {
	j := 0
	for i, r := range red {
		if r {
			continue
		}
		if j >= len(sh) || sh[j] != shape[i] {
			return false
		}
		j++
	}
	return j == len(sh)
}
