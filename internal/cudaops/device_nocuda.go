//go:build !cuda || !cgo

package cudaops

import "github.com/tessera-go/tessera/nd"

// This file is the fence: the API of device_cuda.go, every call returning
// ErrNoCUDA. Nothing here panics, nil receivers included.

// Device is one GPU. In this build none can be opened.
type Device struct{}

// Array is device memory holding a float32 or float64 array. In this build
// none exists.
type Array struct{}

// Count returns the number of CUDA devices.
func Count() (int, error) { return 0, ErrNoCUDA }

// Open opens device ordinal (0 is the first).
func Open(ordinal int) (*Device, error) { return nil, ErrNoCUDA }

// HaveCUBLAS reports whether MaskDot uses cuBLAS (the cublas tag).
func HaveCUBLAS() bool { return false }

func (d *Device) Close() error                                    { return ErrNoCUDA }
func (d *Device) Name() string                                    { return "" }
func (d *Device) Ordinal() int                                    { return -1 }
func (d *Device) Synchronize() error                              { return ErrNoCUDA }
func (d *Device) MemInfo() (free, total int64, err error)         { return 0, 0, ErrNoCUDA }
func (d *Device) Alloc(dt nd.DType, shape ...int) (*Array, error) { return nil, ErrNoCUDA }
func (d *Device) Upload(a *nd.Array) (*Array, error)              { return nil, ErrNoCUDA }

func (a *Array) Device() *Device                   { return nil }
func (a *Array) DType() nd.DType                   { return nd.Invalid }
func (a *Array) Shape() []int                      { return nil }
func (a *Array) Size() int                         { return 0 }
func (a *Array) Nbytes() int64                     { return 0 }
func (a *Array) CopyFrom(src *nd.Array) error      { return ErrNoCUDA }
func (a *Array) Download() (*nd.Array, error)      { return nil, ErrNoCUDA }
func (a *Array) Free() error                       { return ErrNoCUDA }
func (a *Array) Rows(start, n int) (*Array, error) { return nil, ErrNoCUDA }
