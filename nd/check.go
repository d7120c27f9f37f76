package nd

import "fmt"

// InvalidArrayError reports a nil or zero-value *Array passed to an nd
// function: a caller's mistake that gets an error, not a panic.
type InvalidArrayError struct {
	Op     string
	Reason string // "nil array" or "zero array: ..."
}

func (e *InvalidArrayError) Error() string { return fmt.Sprintf("nd: %s: %s", e.Op, e.Reason) }

// checkArrays returns an *InvalidArrayError for the first nil or zero-value
// array among as. A zero-value Array has no dtype and no backing slice.
func checkArrays(op string, as ...*Array) error {
	for _, a := range as {
		if a == nil {
			return &InvalidArrayError{Op: op, Reason: "nil array"}
		}
		if !a.dtype.Valid() || a.data == nil {
			return &InvalidArrayError{Op: op, Reason: "zero array: invalid dtype (use Zeros, FromSlice or Full to make one)"}
		}
	}
	return nil
}

// checkBytes reports a shape whose size in bytes overflows int, which no
// allocation can hold.
func checkBytes(op string, d DType, shape []int) error {
	n, err := SizeOf(shape)
	if err != nil {
		return err
	}
	if sz := d.Size(); sz > 0 && n > int(^uint(0)>>1)/sz {
		return &ShapeError{Op: op, Shapes: [][]int{shape}, Reason: fmt.Sprintf("array of %d %s elements is too big", n, d)}
	}
	return nil
}
