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
	red, err := reduceAxes(op.String(), a, axes)
	if err != nil {
		return err
	}
	keep, final, count := reducedShape(a.shape, red, false)
	if want := ReduceResultType(op, a.dtype); dst.dtype != want {
		return &ShapeError{Op: op.String(), Shapes: [][]int{dst.shape, a.shape},
			Reason: fmt.Sprintf("dst dtype %s, want %s", dst.dtype, want)}
	}
	if !slices.Equal(dst.shape, final) && !slices.Equal(dst.shape, keep) {
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
	out := &Array{dtype: dst.dtype, shape: keep, strides: CStrides(keep), data: dst.data}
	n := 1
	for _, s := range keep {
		n *= s
	}
	clear(rawBytes(dst.data)[:n*dst.dtype.Size()])
	return reduceInto(op, out, a, red, count)
}
