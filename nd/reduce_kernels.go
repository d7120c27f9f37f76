package nd

import (
	"fmt"
	"math"
	"slices"
)

// A plan walks an input geometry and an output geometry of the same shape
// together, as numpy's reduction iterator does: the output has stride 0 on
// the reduced axes. Axes are put in the input's memory order (largest
// stride first) and merged where both geometries allow it, so that a
// reduction of a contiguous array over every axis is one run, a reduction
// over the last axis is one run per output element (summed pairwise into a
// scalar), and a reduction over leading axes adds whole rows into the
// output. Walking output-major instead (one strided gather per output
// element) was rejected: it reads memory across rows for axis-0 sums.
type plan struct {
	n                int // axes, in the arrays when n <= walkDims
	offA             int
	shape, sa, so    [walkDims]int
	wShape, wSa, wSo []int // more than walkDims axes (rare): on the heap
}

// dims returns the plan's axes.
func (p *plan) dims() (shape, sa, so []int) {
	if p.n > walkDims {
		return p.wShape, p.wSa, p.wSo
	}
	return p.shape[:p.n], p.sa[:p.n], p.so[:p.n]
}

// init sets p to walk an input of shape and strides sa from offA with an
// output of strides so. The axes are kept in p's own arrays, so a plan in
// a local variable costs no allocation; the first version returned a
// *plan of new slices and sorted with sort.SliceStable: twelve
// allocations per reduction. (Slices of p's arrays stored in p would make
// every plan escape to the heap.)
func (p *plan) init(shape, sa []int, offA int, so []int) {
	p.offA = offA
	var idxBuf, shBuf, saBuf, soBuf [walkDims]int
	idx := idxBuf[:0]
	psh, psa, pso := shBuf[:0], saBuf[:0], soBuf[:0]
	for i, n := range shape {
		if n == 0 {
			p.n, p.shape[0], p.sa[0], p.so[0] = 1, 0, 0, 0
			return
		}
		if n != 1 {
			idx = append(idx, i)
		}
	}
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	// Stable insertion sort by decreasing input stride: few axes.
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && abs(sa[idx[j]]) > abs(sa[idx[j-1]]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	for _, i := range idx {
		k := len(psh) - 1
		if k >= 0 && psa[k] == sa[i]*shape[i] && pso[k] == so[i]*shape[i] {
			psh[k] *= shape[i]
			psa[k] = sa[i]
			pso[k] = so[i]
			continue
		}
		psh = append(psh, shape[i])
		psa = append(psa, sa[i])
		pso = append(pso, so[i])
	}
	p.n = len(psh)
	if p.n > walkDims {
		p.wShape, p.wSa, p.wSo = slices.Clone(psh), slices.Clone(psa), slices.Clone(pso)
		return
	}
	copy(p.shape[:], psh)
	copy(p.sa[:], psa)
	copy(p.so[:], pso)
}

// each calls fn once per run along the innermost axis with the run's
// input and output offsets, its length and both steps.
func (p *plan) each(fn func(a, o, n, sa, so int)) {
	shape, psa, pso := p.dims()
	nd := len(shape)
	if nd == 0 {
		fn(p.offA, 0, 1, 1, 0)
		return
	}
	if shape[0] == 0 {
		return
	}
	inner := shape[nd-1]
	sai, soi := psa[nd-1], pso[nd-1]
	if nd == 1 {
		fn(p.offA, 0, inner, sai, soi)
		return
	}
	var idxBuf [walkDims]int
	idx := idxBuf[:0]
	for range nd - 1 {
		idx = append(idx, 0)
	}
	a, o := p.offA, 0
	for {
		fn(a, o, inner, sai, soi)
		ax := nd - 2
		for ; ax >= 0; ax-- {
			idx[ax]++
			a += psa[ax]
			o += pso[ax]
			if idx[ax] < shape[ax] {
				break
			}
			a -= psa[ax] * shape[ax]
			o -= pso[ax] * shape[ax]
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// initFor sets p to reduce a over the flagged axes into out.
func (p *plan) initFor(out, a *Array, red []bool) {
	var so [walkDims]int
	p.init(a.shape, a.strides, a.offset, outGeom(so[:0], out, red))
}

type floats interface{ ~float32 | ~float64 }
type complexes interface{ ~complex64 | ~complex128 }
type inexact interface{ floats | complexes }

// pairwiseBlock is numpy's PW_BLOCKSIZE: runs up to this length are
// summed with eight interleaved accumulators, longer ones are split in two.
const pairwiseBlock = 128

// pairwise sums x (contiguous) as numpy's pairwise summation does: the
// same split points and the same association, so that float results agree
// to the last bits in the common case.
func pairwise[T inexact](x []T) T {
	n := len(x)
	switch {
	case n < 8:
		var r T
		for _, v := range x {
			r += v
		}
		return r
	case n <= pairwiseBlock:
		r0, r1, r2, r3 := x[0], x[1], x[2], x[3]
		r4, r5, r6, r7 := x[4], x[5], x[6], x[7]
		m := n - n%8
		for i := 8; i+8 <= m; i += 8 {
			b := x[i : i+8 : i+8]
			r0 += b[0]
			r1 += b[1]
			r2 += b[2]
			r3 += b[3]
			r4 += b[4]
			r5 += b[5]
			r6 += b[6]
			r7 += b[7]
		}
		r := ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
		for _, v := range x[m:] {
			r += v
		}
		return r
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwise(x[:n2]) + pairwise(x[n2:])
}

// pairwiseRepeat is pairwise over n copies of v (a zero-stride run, as a
// constant block has), with the same split points and association, so
// that it is bit-identical to summing the materialised run; it costs
// O(log n) instead of O(n), because the halves at each level of the
// recursion take at most two distinct lengths, which are memoised.
func pairwiseRepeat[T inexact](v T, n int) T {
	var memo [2 * 64]struct {
		n int
		r T
	}
	used := 0
	var rec func(n int) T
	rec = func(n int) T {
		switch {
		case n < 8:
			var r T
			for range n {
				r += v
			}
			return r
		case n <= pairwiseBlock:
			m := n - n%8
			rj := v // the eight accumulators are equal
			for i := 8; i+8 <= m; i += 8 {
				rj += v
			}
			r := ((rj + rj) + (rj + rj)) + ((rj + rj) + (rj + rj))
			for range n - m {
				r += v
			}
			return r
		}
		for _, e := range memo[:used] {
			if e.n == n {
				return e.r
			}
		}
		n2 := n / 2
		n2 -= n2 % 8
		r := rec(n2) + rec(n-n2)
		if used < len(memo) {
			memo[used].n, memo[used].r = n, r
			used++
		}
		return r
	}
	return rec(n)
}

// isIntegerType reports whether O is an integer type.
func isIntegerType[O Real]() bool {
	half := 0.5
	return O(half) == 0
}

// pairwiseStrided is pairwise over x[off], x[off+step], ... (n elements).
func pairwiseStrided[T inexact](x []T, off, n, step int) T {
	switch {
	case n < 8:
		var r T
		for k := 0; k < n; k++ {
			r += x[off+k*step]
		}
		return r
	case n <= pairwiseBlock:
		var r [8]T
		for j := range r {
			r[j] = x[off+j*step]
		}
		m := n - n%8
		for i := 8; i < m; i += 8 {
			for j := range r {
				r[j] += x[off+(i+j)*step]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for i := m; i < n; i++ {
			s += x[off+i*step]
		}
		return s
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseStrided(x, off, n2, step) + pairwiseStrided(x, off+n2*step, n-n2, step)
}

// sumInexact adds src into dst (same float or complex type) pairwise.
func sumInexact[T inexact](dst, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		if so == 0 {
			if sa == 1 {
				dst[o] += pairwise(src[a : a+n])
			} else if sa == 0 {
				dst[o] += pairwiseRepeat(src[a], n)
			} else {
				dst[o] += pairwiseStrided(src, a, n, sa)
			}
			return
		}
		if sa == 1 && so == 1 {
			s := src[a : a+n]
			d := dst[o : o+len(s)]
			for k := range s {
				d[k] += s[k]
			}
			return
		}
		for k := 0; k < n; k++ {
			dst[o+k*so] += src[a+k*sa]
		}
	})
}

// sumReal adds the integers src, converted to O, into dst in order.
func sumReal[O, T Real](dst []O, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		if so == 0 {
			acc := dst[o]
			if sa == 1 {
				for _, v := range src[a : a+n] {
					acc += O(v)
				}
			} else if sa == 0 && isIntegerType[O]() {
				// n copies of one integer: the product wraps exactly as
				// the n additions would.
				acc += O(src[a]) * O(n)
			} else {
				for k := 0; k < n; k++ {
					acc += O(src[a+k*sa])
				}
			}
			dst[o] = acc
			return
		}
		for k := 0; k < n; k++ {
			dst[o+k*so] += O(src[a+k*sa])
		}
	})
}

// sumDispatch adds a (not bool) into out over the flagged axes. out has
// the keepdims shape and dtype Sum's or Mean's result type.
func sumDispatch(out, a *Array, red []bool) error {
	var p plan
	p.initFor(out, a, red)
	switch o := out.data.(type) {
	case []int64:
		switch s := a.data.(type) {
		case []int8:
			sumReal(o, s, &p)
		case []int16:
			sumReal(o, s, &p)
		case []int32:
			sumReal(o, s, &p)
		case []int64:
			sumReal(o, s, &p)
		default:
			return errDispatch("sum", a.dtype, out.dtype)
		}
	case []uint64:
		switch s := a.data.(type) {
		case []uint8:
			sumReal(o, s, &p)
		case []uint16:
			sumReal(o, s, &p)
		case []uint32:
			sumReal(o, s, &p)
		case []uint64:
			sumReal(o, s, &p)
		default:
			return errDispatch("sum", a.dtype, out.dtype)
		}
	case []float64:
		switch s := a.data.(type) {
		case []float64:
			sumInexact(o, s, &p)
		case []int8:
			sumReal(o, s, &p)
		case []int16:
			sumReal(o, s, &p)
		case []int32:
			sumReal(o, s, &p)
		case []int64:
			sumReal(o, s, &p)
		case []uint8:
			sumReal(o, s, &p)
		case []uint16:
			sumReal(o, s, &p)
		case []uint32:
			sumReal(o, s, &p)
		case []uint64:
			sumReal(o, s, &p)
		default:
			return errDispatch("sum", a.dtype, out.dtype)
		}
	case []float32:
		s, ok := a.data.([]float32)
		if !ok {
			return errDispatch("sum", a.dtype, out.dtype)
		}
		sumInexact(o, s, &p)
	case []complex64:
		s, ok := a.data.([]complex64)
		if !ok {
			return errDispatch("sum", a.dtype, out.dtype)
		}
		sumInexact(o, s, &p)
	case []complex128:
		s, ok := a.data.([]complex128)
		if !ok {
			return errDispatch("sum", a.dtype, out.dtype)
		}
		sumInexact(o, s, &p)
	default:
		return errDispatch("sum", a.dtype, out.dtype)
	}
	return nil
}

func errDispatch(op string, in, out DType) error {
	return &DTypeError{Text: in.String(), Reason: fmt.Sprintf("%s into %s is not supported", op, out)}
}

// prodReal multiplies src, converted to O, into dst.
func prodReal[O, T Real](dst []O, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		if so == 0 {
			acc := dst[o]
			for k := 0; k < n; k++ {
				acc *= O(src[a+k*sa])
			}
			dst[o] = acc
			return
		}
		for k := 0; k < n; k++ {
			dst[o+k*so] *= O(src[a+k*sa])
		}
	})
}

func prodComplex[T complexes](dst, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			dst[o+k*so] *= src[a+k*sa]
		}
	})
}

func prodDispatch(out, a *Array, red []bool) error {
	var p plan
	p.initFor(out, a, red)
	switch o := out.data.(type) {
	case []int64:
		switch s := a.data.(type) {
		case []int8:
			prodReal(o, s, &p)
		case []int16:
			prodReal(o, s, &p)
		case []int32:
			prodReal(o, s, &p)
		case []int64:
			prodReal(o, s, &p)
		default:
			return errDispatch("prod", a.dtype, out.dtype)
		}
	case []uint64:
		switch s := a.data.(type) {
		case []uint8:
			prodReal(o, s, &p)
		case []uint16:
			prodReal(o, s, &p)
		case []uint32:
			prodReal(o, s, &p)
		case []uint64:
			prodReal(o, s, &p)
		default:
			return errDispatch("prod", a.dtype, out.dtype)
		}
	case []float32:
		prodReal(o, a.data.([]float32), &p)
	case []float64:
		prodReal(o, a.data.([]float64), &p)
	case []complex64:
		prodComplex(o, a.data.([]complex64), &p)
	case []complex128:
		prodComplex(o, a.data.([]complex128), &p)
	default:
		return errDispatch("prod", a.dtype, out.dtype)
	}
	return nil
}

// minReal and maxReal fold src into dst; a NaN, once in, stays (x != x is
// false for integers and compiles away).
func minReal[T Real](dst, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		if so == 0 {
			acc := dst[o]
			if acc != acc {
				return
			}
			if sa == 0 {
				// a zero-stride run (a constant block) is one value
				if v := src[a]; v < acc || v != v {
					dst[o] = v
				}
				return
			}
			if sa == 1 && n >= 64 {
				if r, ok := minRealRun(acc, src[a:a+n]); ok {
					dst[o] = r
					return
				}
			}
			for k := 0; k < n; k++ {
				v := src[a+k*sa]
				if v < acc {
					acc = v
				} else if v != v {
					acc = v
					break
				}
			}
			dst[o] = acc
			return
		}
		for k := 0; k < n; k++ {
			v, d := src[a+k*sa], dst[o+k*so]
			if v < d || (v != v && d == d) {
				dst[o+k*so] = v
			}
		}
	})
}

func maxReal[T Real](dst, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		if so == 0 {
			acc := dst[o]
			if acc != acc {
				return
			}
			if sa == 0 {
				// a zero-stride run (a constant block) is one value
				if v := src[a]; v > acc || v != v {
					dst[o] = v
				}
				return
			}
			if sa == 1 && n >= 64 {
				if r, ok := maxRealRun(acc, src[a:a+n]); ok {
					dst[o] = r
					return
				}
			}
			for k := 0; k < n; k++ {
				v := src[a+k*sa]
				if v > acc {
					acc = v
				} else if v != v {
					acc = v
					break
				}
			}
			dst[o] = acc
			return
		}
		for k := 0; k < n; k++ {
			v, d := src[a+k*sa], dst[o+k*so]
			if v > d || (v != v && d == d) {
				dst[o+k*so] = v
			}
		}
	})
}

func isNaNC[T complexes](v T) bool {
	c := complex128(v)
	return math.IsNaN(real(c)) || math.IsNaN(imag(c))
}

// lessC orders complex numbers as numpy does: by real part, then imaginary.
func lessC[T complexes](x, y T) bool {
	a, b := complex128(x), complex128(y)
	return real(a) < real(b) || (real(a) == real(b) && imag(a) < imag(b))
}

func minMaxComplex[T complexes](isMax bool, dst, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			v, d := src[a+k*sa], dst[o+k*so]
			if isNaNC(d) {
				continue
			}
			if isNaNC(v) || (!isMax && lessC(v, d)) || (isMax && lessC(d, v)) {
				dst[o+k*so] = v
			}
		}
	})
}

func minMaxDispatch(isMax bool, out, a *Array, red []bool) error {
	var p plan
	p.initFor(out, a, red)
	switch s := a.data.(type) {
	case []int8:
		minMaxReal(isMax, out.data.([]int8), s, &p)
	case []int16:
		minMaxReal(isMax, out.data.([]int16), s, &p)
	case []int32:
		minMaxReal(isMax, out.data.([]int32), s, &p)
	case []int64:
		minMaxReal(isMax, out.data.([]int64), s, &p)
	case []uint8:
		minMaxReal(isMax, out.data.([]uint8), s, &p)
	case []uint16:
		minMaxReal(isMax, out.data.([]uint16), s, &p)
	case []uint32:
		minMaxReal(isMax, out.data.([]uint32), s, &p)
	case []uint64:
		minMaxReal(isMax, out.data.([]uint64), s, &p)
	case []float32:
		minMaxReal(isMax, out.data.([]float32), s, &p)
	case []float64:
		minMaxReal(isMax, out.data.([]float64), s, &p)
	case []complex64:
		minMaxComplex(isMax, out.data.([]complex64), s, &p)
	case []complex128:
		minMaxComplex(isMax, out.data.([]complex128), s, &p)
	default:
		return errDispatch("min/max", a.dtype, out.dtype)
	}
	return nil
}

func minMaxReal[T Real](isMax bool, dst, src []T, p *plan) {
	if isMax {
		maxReal(dst, src, p)
	} else {
		minReal(dst, src, p)
	}
}

// anyAll folds src != 0 into dst with or (any) or and (all).
func anyAll[T Number](all bool, dst []bool, src []T, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			nz := src[a+k*sa] != 0
			if all {
				dst[o+k*so] = dst[o+k*so] && nz
			} else {
				dst[o+k*so] = dst[o+k*so] || nz
			}
		}
	})
}

func anyAllBool(all bool, dst, src []bool, p *plan) {
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			if all {
				dst[o+k*so] = dst[o+k*so] && src[a+k*sa]
			} else {
				dst[o+k*so] = dst[o+k*so] || src[a+k*sa]
			}
		}
	})
}

func anyAllDispatch(all bool, out, a *Array, red []bool) error {
	var p plan
	p.initFor(out, a, red)
	o := out.data.([]bool)
	switch s := a.data.(type) {
	case []bool:
		anyAllBool(all, o, s, &p)
	case []int8:
		anyAll(all, o, s, &p)
	case []int16:
		anyAll(all, o, s, &p)
	case []int32:
		anyAll(all, o, s, &p)
	case []int64:
		anyAll(all, o, s, &p)
	case []uint8:
		anyAll(all, o, s, &p)
	case []uint16:
		anyAll(all, o, s, &p)
	case []uint32:
		anyAll(all, o, s, &p)
	case []uint64:
		anyAll(all, o, s, &p)
	case []float32:
		anyAll(all, o, s, &p)
	case []float64:
		anyAll(all, o, s, &p)
	case []complex64:
		anyAll(all, o, s, &p)
	case []complex128:
		anyAll(all, o, s, &p)
	default:
		return errDispatch("any/all", a.dtype, out.dtype)
	}
	return nil
}

// devSq writes (x - mean)² into dst; x and dst are C-contiguous with the
// same shape, so the plan's input offsets index both; mean is broadcast.
func devSq[T floats](dst, x, mean []T, p *plan) {
	base := p.offA
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			d := x[a+k*sa] - mean[o+k*so]
			dst[a-base+k*sa] = d * d
		}
	})
}

// devSqC writes |x - mean|² (real) into dst.
func devSqC[R floats, T complexes](dst []R, x, mean []T, p *plan) {
	base := p.offA
	p.each(func(a, o, n, sa, so int) {
		for k := 0; k < n; k++ {
			d := complex128(x[a+k*sa] - mean[o+k*so])
			dst[a-base+k*sa] = R(real(d)*real(d) + imag(d)*imag(d))
		}
	})
}

// minRealRun and maxRealRun fold a contiguous run with four independent
// accumulators, without a NaN test per element: z collects v - v, which
// is NaN only for NaN (or infinite) v. When z ends NaN they report !ok
// and the caller takes the exact element-by-element path, which finds the
// first NaN. Testing v != v in the loop was the first version; it ran at
// 40% of memory speed.
func minRealRun[T Real](acc T, x []T) (T, bool) {
	a0, a1, a2, a3 := acc, acc, acc, acc
	var z T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c := x[i : i+4 : i+4]
		if c[0] < a0 {
			a0 = c[0]
		}
		if c[1] < a1 {
			a1 = c[1]
		}
		if c[2] < a2 {
			a2 = c[2]
		}
		if c[3] < a3 {
			a3 = c[3]
		}
		z += (c[0] - c[0]) + (c[1] - c[1]) + (c[2] - c[2]) + (c[3] - c[3])
	}
	for ; i < len(x); i++ {
		if x[i] < a0 {
			a0 = x[i]
		}
		z += x[i] - x[i]
	}
	if z != z {
		return acc, false
	}
	return min(a0, a1, a2, a3), true
}

func maxRealRun[T Real](acc T, x []T) (T, bool) {
	a0, a1, a2, a3 := acc, acc, acc, acc
	var z T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		c := x[i : i+4 : i+4]
		if c[0] > a0 {
			a0 = c[0]
		}
		if c[1] > a1 {
			a1 = c[1]
		}
		if c[2] > a2 {
			a2 = c[2]
		}
		if c[3] > a3 {
			a3 = c[3]
		}
		z += (c[0] - c[0]) + (c[1] - c[1]) + (c[2] - c[2]) + (c[3] - c[3])
	}
	for ; i < len(x); i++ {
		if x[i] > a0 {
			a0 = x[i]
		}
		z += x[i] - x[i]
	}
	if z != z {
		return acc, false
	}
	return max(a0, a1, a2, a3), true
}
