//go:build cuda && cgo && !cublas

package cudaops

import "errors"

// HaveCUBLAS reports whether MaskDot uses cuBLAS (the cublas tag).
func HaveCUBLAS() bool { return false }

type blasHandle struct{}

func (d *Device) blasSetup() error    { return nil }
func (d *Device) blasTeardown() error { return nil }

func (d *Device) gemmMaskDot(dst, f, masks *Array, n, m, k int, accumulate bool) error {
	return errors.New("cuBLAS is not in this build (tag cublas)")
}
