package nd

import "unsafe"

// The elementwise engine. Operands arrive as views of one shape (broadcast
// axes have stride 0). walkRuns merges axes that are contiguous in every
// operand, so a C-contiguous operation is one run and a (1000,1)+(1,1000)
// broadcast is 1000 runs of 1000. Each run goes to a kernel that works on
// plain equal-length slices: directly when every operand has stride 1, and
// otherwise through blocks of blockLen elements gathered into small
// buffers (a stride-0 operand is one value repeated). Kernels are generic
// functions instantiated per element type; the only indirect call is one
// per block, never per element.
//
// Rejected: a kernel per (op, type, stride pattern); it multiplies the code
// by the number of patterns for a gain the buffers (which stay in L1) mostly
// close.

// blockLen is the length of the gather buffers: small enough to stay in L1
// for three operands of 16-byte elements.
const blockLen = 512

// maxOps is the most operands walkRuns takes (dst and three inputs).
const maxOps = 4

// walkDims is the number of axes walkRuns keeps on the stack; more spill
// to the heap.
const walkDims = 16

// walkRuns calls fn once per innermost run of the common shape, in C order,
// with each operand's offset and stride for the run (strides and offsets
// hold len(strides) <= maxOps operands). offs and steps are arrays passed
// by value, and the axes live in arrays on the stack, so that a walk
// allocates nothing (the first version passed slices to fn, which escaped
// through the indirect call: five allocations per elementwise call).
func walkRuns(shape []int, strides [][]int, offsets []int, fn func(offs [maxOps]int, n int, steps [maxOps]int)) {
	nops := len(strides)
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	// Drop size-1 axes, then merge axis i into i+1 when every operand
	// steps over axis i+1 exactly.
	var shBuf [walkDims]int
	var stBuf [maxOps][walkDims]int
	sh := shBuf[:0]
	var st [maxOps][]int
	for k := range nops {
		st[k] = stBuf[k][:0]
	}
	for i, d := range shape {
		if d == 1 {
			continue
		}
		if j := len(sh) - 1; j >= 0 {
			merge := true
			for k := range nops {
				if st[k][j] != strides[k][i]*d {
					merge = false
					break
				}
			}
			if merge {
				sh[j] *= d
				for k := range nops {
					st[k][j] = strides[k][i]
				}
				continue
			}
		}
		sh = append(sh, d)
		for k := range nops {
			st[k] = append(st[k], strides[k][i])
		}
	}
	var offs, steps, base [maxOps]int
	copy(offs[:], offsets)
	nd := len(sh)
	if nd == 0 {
		for k := range nops {
			steps[k] = 1
		}
		fn(offs, 1, steps)
		return
	}
	for k := range nops {
		steps[k] = st[k][nd-1]
	}
	inner := sh[nd-1]
	if nd == 1 {
		fn(offs, inner, steps)
		return
	}
	var idxBuf [walkDims]int
	idx := idxBuf[:0]
	for range nd - 1 {
		idx = append(idx, 0)
	}
	copy(base[:], offsets)
	for {
		fn(base, inner, steps)
		ax := nd - 2
		for ; ax >= 0; ax-- {
			idx[ax]++
			for k := range nops {
				base[k] += st[k][ax]
			}
			if idx[ax] < sh[ax] {
				break
			}
			for k := range nops {
				base[k] -= st[k][ax] * sh[ax]
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// operand returns the n elements of src from off with stride step as a
// slice: src itself when step is 1, otherwise buf filled with them.
func operand[T any](src []T, off, n, step int, buf []T) []T {
	switch step {
	case 1:
		return src[off : off+n : off+n]
	case 0:
		v := src[off]
		buf = buf[:n]
		for i := range buf {
			buf[i] = v
		}
		return buf
	}
	buf = buf[:n]
	for i := range buf {
		buf[i] = src[off+i*step]
	}
	return buf
}

// scatter writes src to dst from off with stride step.
func scatter[T any](dst []T, off, step int, src []T) {
	for i, v := range src {
		dst[off+i*step] = v
	}
}

// runBinary applies k to the operands a and b (element type T, shape of
// dst) writing dst (element type O).
func runBinary[T, O any](k func(d []O, a, b []T), dst, a, b *Array) {
	dd := dst.data.([]O)
	ad := a.data.([]T)
	bd := b.data.([]T)
	if dst.IsCContiguous() && a.IsCContiguous() && b.IsCContiguous() {
		// One run, without walkRuns' bookkeeping (nor its allocations):
		// the case of whole tiles and blocks.
		n, od, oa, ob := dst.Size(), dst.offset, a.offset, b.offset
		k(dd[od:od+n:od+n], ad[oa:oa+n:oa+n], bd[ob:ob+n:ob+n])
		return
	}
	// The gather buffers are made at the first strided run (three
	// allocations): on the stack they would escape through k anyway. A
	// run of a contiguous operand with a repeated one (x op scalar, a
	// broadcast row) needs none when dst is of the operands' type and
	// apart from the contiguous operand: the repeated value is written
	// into dst's run, which the kernel then reads as that operand (a
	// kernel may write an operand it reads, as BinaryInto(dst, dst, b)).
	var abuf, bbuf []T
	var dbuf []O
	dT, sameType := any(dd).([]T)
	apart := func(x []T) bool {
		return sameType && (len(x) == 0 || len(dT) == 0 || unsafe.SliceData(x) != unsafe.SliceData(dT))
	}
	aApart, bApart := apart(ad), apart(bd)
	walkRuns(dst.shape, [][]int{dst.strides, a.strides, b.strides}, []int{dst.offset, a.offset, b.offset}, func(offs [maxOps]int, n int, steps [maxOps]int) {
		od, oa, ob := offs[0], offs[1], offs[2]
		sd, sa, sb := steps[0], steps[1], steps[2]
		if sd == 1 && sa == 1 && sb == 1 {
			k(dd[od:od+n:od+n], ad[oa:oa+n:oa+n], bd[ob:ob+n:ob+n])
			return
		}
		if sd == 1 && sa == 1 && sb == 0 && aApart {
			d := dT[od : od+n : od+n]
			fillSlice(d, bd[ob])
			k(dd[od:od+n:od+n], ad[oa:oa+n:oa+n], d)
			return
		}
		if sd == 1 && sa == 0 && sb == 1 && bApart {
			d := dT[od : od+n : od+n]
			fillSlice(d, ad[oa])
			k(dd[od:od+n:od+n], d, bd[ob:ob+n:ob+n])
			return
		}
		if abuf == nil {
			abuf = make([]T, blockLen)
			bbuf = make([]T, blockLen)
			dbuf = make([]O, blockLen)
		}
		// A stride-0 operand is one value: fill its buffer once per run.
		if sa == 0 {
			operand(ad, oa, min(blockLen, n), 0, abuf)
		}
		if sb == 0 {
			operand(bd, ob, min(blockLen, n), 0, bbuf)
		}
		for i := 0; i < n; i += blockLen {
			m := min(blockLen, n-i)
			x, y := abuf[:m], bbuf[:m]
			if sa != 0 {
				x = operand(ad, oa+i*sa, m, sa, abuf)
			}
			if sb != 0 {
				y = operand(bd, ob+i*sb, m, sb, bbuf)
			}
			if sd == 1 {
				k(dd[od+i:od+i+m:od+i+m], x, y)
			} else {
				k(dbuf[:m], x, y)
				scatter(dd, od+i*sd, sd, dbuf[:m])
			}
		}
	})
}

// runUnary applies k to a writing dst.
func runUnary[T, O any](k func(d []O, a []T), dst, a *Array) {
	dd := dst.data.([]O)
	ad := a.data.([]T)
	if dst.IsCContiguous() && a.IsCContiguous() {
		n, od, oa := dst.Size(), dst.offset, a.offset
		k(dd[od:od+n:od+n], ad[oa:oa+n:oa+n])
		return
	}
	var abuf []T
	var dbuf []O
	walkRuns(dst.shape, [][]int{dst.strides, a.strides}, []int{dst.offset, a.offset}, func(offs [maxOps]int, n int, steps [maxOps]int) {
		od, oa := offs[0], offs[1]
		sd, sa := steps[0], steps[1]
		if sd == 1 && sa == 1 {
			k(dd[od:od+n:od+n], ad[oa:oa+n:oa+n])
			return
		}
		if abuf == nil {
			abuf = make([]T, blockLen)
			dbuf = make([]O, blockLen)
		}
		for i := 0; i < n; i += blockLen {
			m := min(blockLen, n-i)
			x := operand(ad, oa+i*sa, m, sa, abuf)
			if sd == 1 {
				k(dd[od+i:od+i+m:od+i+m], x)
			} else {
				k(dbuf[:m], x)
				scatter(dd, od+i*sd, sd, dbuf[:m])
			}
		}
	})
}

// runWhere writes dst = cond ? a : b.
func runWhere[T any](dst, cond, a, b *Array) {
	dd := dst.data.([]T)
	cd := cond.data.([]bool)
	ad := a.data.([]T)
	bd := b.data.([]T)
	walkRuns(dst.shape, [][]int{dst.strides, cond.strides, a.strides, b.strides},
		[]int{dst.offset, cond.offset, a.offset, b.offset}, func(offs [maxOps]int, n int, steps [maxOps]int) {
			od, oc, oa, ob := offs[0], offs[1], offs[2], offs[3]
			sd, sc, sa, sb := steps[0], steps[1], steps[2], steps[3]
			for i := range n {
				if cd[oc+i*sc] {
					dd[od+i*sd] = ad[oa+i*sa]
				} else {
					dd[od+i*sd] = bd[ob+i*sb]
				}
			}
		})
}

func whereDispatch(dst, c, a, b *Array) {
	switch dst.dtype {
	case Bool:
		runWhere[bool](dst, c, a, b)
	case Int8:
		runWhere[int8](dst, c, a, b)
	case Int16:
		runWhere[int16](dst, c, a, b)
	case Int32:
		runWhere[int32](dst, c, a, b)
	case Int64:
		runWhere[int64](dst, c, a, b)
	case Uint8:
		runWhere[uint8](dst, c, a, b)
	case Uint16:
		runWhere[uint16](dst, c, a, b)
	case Uint32:
		runWhere[uint32](dst, c, a, b)
	case Uint64:
		runWhere[uint64](dst, c, a, b)
	case Float32:
		runWhere[float32](dst, c, a, b)
	case Float64:
		runWhere[float64](dst, c, a, b)
	case Complex64:
		runWhere[complex64](dst, c, a, b)
	case Complex128:
		runWhere[complex128](dst, c, a, b)
	}
}

// anyNegative reports whether a (a signed integer array) holds a negative
// element.
func anyNegative(a *Array) bool {
	switch d := a.data.(type) {
	case []int8:
		return anyNeg(d, a)
	case []int16:
		return anyNeg(d, a)
	case []int32:
		return anyNeg(d, a)
	case []int64:
		return anyNeg(d, a)
	}
	return false
}

func anyNeg[T ~int8 | ~int16 | ~int32 | ~int64](d []T, a *Array) bool {
	neg := false
	ForEachOffset(a.shape, a.strides, a.offset, func(off, n, step int) {
		for i := range n {
			if d[off+i*step] < 0 {
				neg = true
			}
		}
	})
	return neg
}
