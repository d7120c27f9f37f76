//go:build !cuda || !cgo

package cudaops

import "github.com/tessera-go/tessera/nd"

// The kernels of kernels_cuda.go, every one returning ErrNoCUDA.

func Binary(op nd.BinaryOp, dst, a, b *Array) error                         { return ErrNoCUDA }
func BinaryScalar(op nd.BinaryOp, dst, a *Array, s float64) error           { return ErrNoCUDA }
func ScalarBinary(op nd.BinaryOp, dst *Array, s float64, a *Array) error    { return ErrNoCUDA }
func SumOverNav(dst, frames *Array, sigDims int, accumulate bool) error     { return ErrNoCUDA }
func SumOverSig(dst, frames *Array, sigDims int, accumulate bool) error     { return ErrNoCUDA }
func MaskDot(dst, frames, masks *Array, sigDims int, accumulate bool) error { return ErrNoCUDA }
func MaskDotKernel(dst, frames, masks *Array, sigDims int, accumulate bool) error {
	return ErrNoCUDA
}
func Reduce(op nd.ReduceOp, a *Array) (float64, error) { return 0, ErrNoCUDA }
