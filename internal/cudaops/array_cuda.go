//go:build cuda && cgo

package cudaops

import (
	"slices"
	"unsafe"

	"github.com/tessera-go/tessera/nd"
	"gorgonia.org/cu"
)

// Array is device memory (cuMemAlloc) holding a C-contiguous float32 or
// float64 array of a fixed shape. Free releases it; Device.Close releases
// every Array of the device. An Array is not safe for concurrent writes
// (kernels writing one dst from two goroutines race, as on the CPU).
type Array struct {
	dev   *Device
	ptr   cu.DevicePtr
	dtype nd.DType
	shape []int
	size  int
	view  bool // made by Rows: shares its base's memory, Free is a no-op
}

// Alloc returns a zeroed device array of dtype dt (float32 or float64) and
// the shape given.
func (d *Device) Alloc(dt nd.DType, shape ...int) (*Array, error) {
	a, err := d.alloc("Alloc", dt, shape)
	if err != nil {
		return nil, err
	}
	err = d.do("Alloc", func() error {
		if a.size == 0 {
			return nil
		}
		return cu.MemsetD8Async(a.ptr, 0, a.Nbytes(), d.stream)
	})
	if err != nil {
		a.Free()
		return nil, err
	}
	return a, nil
}

// alloc allocates uninitialised memory for an array of dt and shape.
func (d *Device) alloc(op string, dt nd.DType, shape []int) (*Array, error) {
	if d == nil {
		return nil, errorf(op, "nil Device")
	}
	if !kernelDType(dt) {
		return nil, errorf(op, "dtype %v: the kernels take float32 and float64", dt)
	}
	size, err := nd.SizeOf(shape)
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	a := &Array{dev: d, dtype: dt, shape: slices.Clone(shape), size: size}
	if size == 0 {
		return a, nil
	}
	err = d.do(op, func() (e error) {
		if a.ptr, e = cu.MemAlloc(a.Nbytes()); e == nil {
			d.live[a.ptr] = struct{}{}
		}
		return e
	})
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Upload copies a (float32 or float64, any strides) to a new device array.
func (d *Device) Upload(a *nd.Array) (*Array, error) {
	if a == nil {
		return nil, errorf("Upload", "nil nd.Array")
	}
	g, err := d.alloc("Upload", a.DType(), a.Shape())
	if err != nil {
		return nil, err
	}
	if err := g.copyFrom("Upload", a); err != nil {
		g.Free()
		return nil, err
	}
	return g, nil
}

// CopyFrom copies src, of a's dtype and shape, into a.
func (a *Array) CopyFrom(src *nd.Array) error { return a.copyFrom("CopyFrom", src) }

func (a *Array) copyFrom(op string, src *nd.Array) error {
	if err := a.check(op); err != nil {
		return err
	}
	if src == nil {
		return errorf(op, "nil nd.Array")
	}
	if src.DType() != a.dtype {
		return errorf(op, "dtype %v into a %v array", src.DType(), a.dtype)
	}
	if err := sameShape(op, "source", a.shape, src.Shape()); err != nil {
		return err
	}
	if a.size == 0 {
		return nil
	}
	// Values gives the C-order elements, src's own backing when it is
	// contiguous (no copy), a contiguous copy otherwise.
	var p unsafe.Pointer
	switch a.dtype {
	case nd.Float32:
		v, err := nd.Values[float32](src)
		if err != nil {
			return &Error{Op: op, Err: err}
		}
		p = unsafe.Pointer(&v[0])
	default:
		v, err := nd.Values[float64](src)
		if err != nil {
			return &Error{Op: op, Err: err}
		}
		p = unsafe.Pointer(&v[0])
	}
	// On the Device's stream, so that it follows the kernels that used a
	// before and precedes those after; then wait for it, so that src may
	// change once CopyFrom returns. Rejected: the synchronous cuMemcpyHtoD,
	// which runs on the legacy stream; the Device's stream does not
	// synchronise with that one (it is non-blocking), and from pageable
	// memory cuMemcpyHtoD may return before the DMA is done, so a kernel
	// launched next could read the old contents.
	return a.dev.do(op, func() error {
		if err := cu.MemcpyHtoDAsync(a.ptr, p, a.Nbytes(), a.dev.stream); err != nil {
			return err
		}
		return a.dev.stream.Synchronize()
	})
}

// Download waits for the kernels writing a and copies a into a new
// nd.Array.
func (a *Array) Download() (*nd.Array, error) {
	const op = "Download"
	if err := a.check(op); err != nil {
		return nil, err
	}
	copyOut := func(p unsafe.Pointer) error {
		if a.size == 0 {
			return nil
		}
		return a.dev.do(op, func() error {
			if err := cu.MemcpyDtoHAsync(p, a.ptr, a.Nbytes(), a.dev.stream); err != nil {
				return err
			}
			return a.dev.stream.Synchronize()
		})
	}
	var (
		out *nd.Array
		err error
	)
	switch a.dtype {
	case nd.Float32:
		v := make([]float32, max(a.size, 1))
		if err := copyOut(unsafe.Pointer(&v[0])); err != nil {
			return nil, err
		}
		out, err = nd.FromSlice(v[:a.size], a.shape...)
	default:
		v := make([]float64, max(a.size, 1))
		if err := copyOut(unsafe.Pointer(&v[0])); err != nil {
			return nil, err
		}
		out, err = nd.FromSlice(v[:a.size], a.shape...)
	}
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	return out, nil
}

// Rows returns the view of rows [start, start+n) of a's first axis: an
// Array sharing a's memory (rows of a C-contiguous array are contiguous),
// of shape (n,)+a.Shape()[1:]. Kernels may read and write it like any
// Array; freeing it is a no-op, and it must not be used once a is freed.
func (a *Array) Rows(start, n int) (*Array, error) {
	const op = "Rows"
	if err := a.check(op); err != nil {
		return nil, err
	}
	if len(a.shape) == 0 {
		return nil, errorf(op, "a 0-d array has no rows")
	}
	if start < 0 || n < 0 || start+n > a.shape[0] {
		return nil, errorf(op, "rows [%d, %d) of %d", start, start+n, a.shape[0])
	}
	row := 1
	for _, s := range a.shape[1:] {
		row *= s
	}
	shape := append([]int{n}, a.shape[1:]...)
	v := &Array{dev: a.dev, dtype: a.dtype, shape: shape, size: n * row, view: true}
	if v.size > 0 {
		v.ptr = a.ptr + cu.DevicePtr(int64(start)*int64(row)*a.itemSize())
	}
	return v, nil
}

// Free releases a's memory (after the stream's work on it). Freeing twice,
// or after Device.Close (which freed it), is a no-op; so is freeing a view
// made by Rows (its base owns the memory).
func (a *Array) Free() error {
	if a == nil || a.dev == nil || a.ptr == 0 {
		return nil
	}
	if a.view {
		a.ptr = 0
		return nil
	}
	p := a.ptr
	a.ptr = 0
	a.dev.mu.Lock()
	closed := a.dev.closed
	a.dev.mu.Unlock()
	if closed {
		return nil // Close freed it
	}
	return a.dev.do("Free", func() error {
		if _, ok := a.dev.live[p]; !ok {
			return nil // freed by Close
		}
		delete(a.dev.live, p)
		if err := a.dev.stream.Synchronize(); err != nil {
			return err
		}
		return cu.MemFree(p)
	})
}

// check is an error unless a is a live array.
func (a *Array) check(op string) error {
	switch {
	case a == nil || a.dev == nil:
		return errorf(op, "nil Array")
	case a.ptr == 0 && a.size > 0:
		return errorf(op, "Array used after Free")
	}
	return nil
}

// Device is the device holding a.
func (a *Array) Device() *Device { return a.dev }

// DType is float32 or float64.
func (a *Array) DType() nd.DType { return a.dtype }

// Shape is a's shape; do not modify it.
func (a *Array) Shape() []int { return a.shape }

// Size is the number of elements.
func (a *Array) Size() int { return a.size }

// Nbytes is the size of a's memory in bytes.
func (a *Array) Nbytes() int64 { return int64(a.size) * a.itemSize() }

func (a *Array) itemSize() int64 {
	if a.dtype == nd.Float64 {
		return 8
	}
	return 4
}
