package nd

import "slices"

// Assign writes src into dst in place (dst[...] = src in numpy): src is
// broadcast to dst's shape and converted to dst's dtype with AsType's
// rules; dst may have any strides (a view into a larger array). dst must
// not partially overlap src. It is the one strided copy of tessera:
// chunked arrays assemble blocks with it and UDFs fill buffer views.
func Assign(dst, src *Array) error {
	if err := checkArrays("assign", dst, src); err != nil {
		return err
	}
	if !slices.Equal(src.shape, dst.shape) {
		b, err := src.BroadcastTo(dst.shape...)
		if err != nil {
			return &ShapeError{Op: "assign", Shapes: [][]int{src.shape, dst.shape}, Reason: "could not broadcast input into the destination"}
		}
		src = b
	}
	if src.dtype != dst.dtype {
		if dst.IsCContiguous() {
			return AsTypeInto(dst, src)
		}
		var err error
		if src, err = src.AsType(dst.dtype); err != nil {
			return err
		}
	}
	switch d := dst.data.(type) {
	case []bool:
		assignT(d, dst, src.data.([]bool), src)
	case []int8:
		assignT(d, dst, src.data.([]int8), src)
	case []int16:
		assignT(d, dst, src.data.([]int16), src)
	case []int32:
		assignT(d, dst, src.data.([]int32), src)
	case []int64:
		assignT(d, dst, src.data.([]int64), src)
	case []uint8:
		assignT(d, dst, src.data.([]uint8), src)
	case []uint16:
		assignT(d, dst, src.data.([]uint16), src)
	case []uint32:
		assignT(d, dst, src.data.([]uint32), src)
	case []uint64:
		assignT(d, dst, src.data.([]uint64), src)
	case []float32:
		assignT(d, dst, src.data.([]float32), src)
	case []float64:
		assignT(d, dst, src.data.([]float64), src)
	case []complex64:
		assignT(d, dst, src.data.([]complex64), src)
	case []complex128:
		assignT(d, dst, src.data.([]complex128), src)
	}
	return nil
}

// assignT walks dst and src (same shape and dtype) together, run by run
// along the last axis.
func assignT[T any](dd []T, dst *Array, sd []T, src *Array) {
	sh := dst.shape
	n := len(sh)
	if n == 0 {
		dd[dst.offset] = sd[src.offset]
		return
	}
	for _, d := range sh {
		if d == 0 {
			return
		}
	}
	ds, ss := dst.strides, src.strides
	inner := sh[n-1]
	dstep, sstep := ds[n-1], ss[n-1]
	idx := make([]int, n)
	doff, soff := dst.offset, src.offset
	// A constant src (a zero-stride block) fills the first run element by
	// element and copies it into the others: memmove beats the scalar
	// store loop by about 2x on wide runs.
	constant := true
	for _, st := range ss {
		if st != 0 {
			constant = false
		}
	}
	filled := -1
	for {
		switch {
		case dstep == 1 && sstep == 1:
			copy(dd[doff:doff+inner], sd[soff:soff+inner])
		case dstep == 1 && sstep == 0:
			if constant && filled >= 0 {
				copy(dd[doff:doff+inner], dd[filled:filled+inner])
				break
			}
			v := sd[soff]
			run := dd[doff : doff+inner]
			for i := range run {
				run[i] = v
			}
			filled = doff
		default:
			for i := 0; i < inner; i++ {
				dd[doff+i*dstep] = sd[soff+i*sstep]
			}
		}
		ax := n - 2
		for ; ax >= 0; ax-- {
			idx[ax]++
			doff += ds[ax]
			soff += ss[ax]
			if idx[ax] < sh[ax] {
				break
			}
			doff -= ds[ax] * sh[ax]
			soff -= ss[ax] * sh[ax]
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}
