package chunkarray

import (
	"fmt"

	"github.com/tessera-go/tessera/chunkarray/nd"
)

// copyRegion copies src into the region sl of dst, a C-contiguous array
// this package allocated. src is converted to dst's dtype when they differ.
func copyRegion(dst *nd.Array, sl []nd.Slice1, src *nd.Array) error {
	view, err := dst.Slice(sl...)
	if err != nil {
		return err
	}
	return copyInto(view, src)
}

// copyInto copies src (any strides, broadcast to dst's shape) into the
// view dst.
func copyInto(dst, src *nd.Array) error {
	if src.DType() != dst.DType() {
		var err error
		if src, err = src.AsType(dst.DType()); err != nil {
			return err
		}
	}
	if !sameShape(src.Shape(), dst.Shape()) {
		var err error
		if src, err = src.BroadcastTo(dst.Shape()...); err != nil {
			return err
		}
	}
	switch d := dst.Data().(type) {
	case []bool:
		copyT(d, dst, src.Data().([]bool), src)
	case []int8:
		copyT(d, dst, src.Data().([]int8), src)
	case []int16:
		copyT(d, dst, src.Data().([]int16), src)
	case []int32:
		copyT(d, dst, src.Data().([]int32), src)
	case []int64:
		copyT(d, dst, src.Data().([]int64), src)
	case []uint8:
		copyT(d, dst, src.Data().([]uint8), src)
	case []uint16:
		copyT(d, dst, src.Data().([]uint16), src)
	case []uint32:
		copyT(d, dst, src.Data().([]uint32), src)
	case []uint64:
		copyT(d, dst, src.Data().([]uint64), src)
	case []float32:
		copyT(d, dst, src.Data().([]float32), src)
	case []float64:
		copyT(d, dst, src.Data().([]float64), src)
	case []complex64:
		copyT(d, dst, src.Data().([]complex64), src)
	case []complex128:
		copyT(d, dst, src.Data().([]complex128), src)
	default:
		return fmt.Errorf("chunkarray: copy into %s", dst.DType())
	}
	return nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// copyT walks dst and src together run by run along the last axis.
func copyT[T any](dd []T, dst *nd.Array, sd []T, src *nd.Array) {
	sh := dst.Shape()
	nd0 := len(sh)
	if nd0 == 0 {
		dd[dst.Offset()] = sd[src.Offset()]
		return
	}
	for _, n := range sh {
		if n == 0 {
			return
		}
	}
	ds, ss := dst.Strides(), src.Strides()
	inner := sh[nd0-1]
	dstep, sstep := ds[nd0-1], ss[nd0-1]
	idx := make([]int, nd0)
	doff, soff := dst.Offset(), src.Offset()
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
		ax := nd0 - 2
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
