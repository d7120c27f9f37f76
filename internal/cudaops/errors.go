package cudaops

import (
	"errors"
	"fmt"
)

// ErrNoCUDA is what every function and method returns in a build without
// CUDA (no `cuda` tag, or cgo off): callers test for it with errors.Is and
// run the CPU path instead.
var ErrNoCUDA = errors.New("no CUDA in this build")

// Error is a failed device operation: the operation named, the cause
// wrapped (a CUDA driver or cuBLAS error, a shape or dtype mismatch).
type Error struct {
	Op  string // "Upload", "SumOverNav", ...
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("cudaops: %s: %v", e.Op, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

func errorf(op, format string, args ...any) error {
	return &Error{Op: op, Err: fmt.Errorf(format, args...)}
}
