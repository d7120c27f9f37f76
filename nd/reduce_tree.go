package nd

import (
	"fmt"
	"math"
	"slices"
)

// This file holds the pieces of reductions that chunked arrays run as
// trees: per-chunk partial results and their merge. They are exact
// counterparts of Reduce, VarStd and ArgReduce: reducing the pieces of an
// array and combining the partials gives the direct result (up to
// rounding for moments).

// Moments returns, over axes of a (nil = all), the number of elements
// reduced into each output element, their mean and the sum of their
// squared deviations from it (M2), all with the keepdims shape. count and
// m2 are float64; mean is float64, or complex128 for complex input (M2 is
// then Σ|x - mean|²). Computing in float64 whatever the input keeps the
// merge stable; MomentsResult casts to numpy's result dtype at the end.
func Moments(a *Array, axes []int) (count, mean, m2 *Array, err error) {
	if err := checkArrays("Moments", a); err != nil {
		return nil, nil, nil, err
	}
	red, err := reduceAxes("moments", a, axes)
	if err != nil {
		return nil, nil, nil, err
	}
	keep, _, n := reducedShape(a.shape, red, true)
	cd := Float64
	if a.dtype.IsComplex() {
		cd = Complex128
	}
	x, err := a.AsType(cd)
	if err != nil {
		return nil, nil, nil, err
	}
	mean, m2, err = moments(x, red, keep, n)
	if err != nil {
		return nil, nil, nil, err
	}
	count = alloc(Float64, keep)
	fillSlice(count.data.([]float64), float64(n))
	if n == 0 {
		// The mean of nothing is NaN; as a partial it must merge as
		// "no data", which the zero count says. Zero it so that the
		// merge does not carry the NaN.
		clear(m2.data.([]float64))
		switch m := mean.data.(type) {
		case []float64:
			clear(m)
		case []complex128:
			clear(m)
		}
	}
	return count, mean, m2, nil
}

// CombineMoments merges partial moments of disjoint pieces (as Moments
// returns them; every slice the same length, every array the same shape)
// with Chan, Golub and LeVeque's pairwise update:
//
//	n = na + nb, δ = mb - ma, mean = ma + δ·nb/n, M2 = M2a + M2b + |δ|²·na·nb/n
//
// When a mean is infinite or NaN, mean = ma·na/n + mb·nb/n (complex
// means scaled part by part) and M2 is NaN, as numpy's sum/n and its
// deviations from an infinite mean are (δ would be Inf - Inf:
// mean([inf, 1]) must be inf, not NaN). A chunk's complex mean is its sum
// divided by (n+0i), as numpy divides, so an infinite part already makes
// the other NaN there (mean([inf+1j, 1]) is inf+nanj).
//
// Adding raw sums of squares instead (Σx² - n·mean²) was rejected: it
// cancels catastrophically when the mean is large against the spread.
// Pieces with a zero count are skipped. The inputs are not modified.
func CombineMoments(counts, means, m2s []*Array) (count, mean, m2 *Array, err error) {
	if len(counts) == 0 || len(counts) != len(means) || len(counts) != len(m2s) {
		return nil, nil, nil, fmt.Errorf("nd: CombineMoments: %d counts, %d means, %d m2s", len(counts), len(means), len(m2s))
	}
	shape := counts[0].shape
	cplx := means[0].dtype == Complex128
	for i := range counts {
		for _, x := range []*Array{counts[i], means[i], m2s[i]} {
			if !slices.Equal(x.shape, shape) {
				return nil, nil, nil, &ShapeError{Op: "CombineMoments", Shapes: [][]int{shape, x.shape}, Reason: "partials differ in shape"}
			}
		}
		if counts[i].dtype != Float64 || m2s[i].dtype != Float64 || (means[i].dtype != Float64 && means[i].dtype != Complex128) || (means[i].dtype == Complex128) != cplx {
			return nil, nil, nil, &DTypeError{Text: means[i].dtype.String(), Reason: "CombineMoments takes Moments' float64 (complex128 mean) partials"}
		}
	}
	count = counts[0].Copy()
	mean = means[0].Copy()
	m2 = m2s[0].Copy()
	cn := count.data.([]float64)
	cm2 := m2.data.([]float64)
	for i := 1; i < len(counts); i++ {
		nb, _ := Values[float64](counts[i])
		m2b, _ := Values[float64](m2s[i])
		if cplx {
			mb, _ := Values[complex128](means[i])
			chan2(cn, mean.data.([]complex128), cm2, nb, mb, m2b,
				func(d complex128, f float64) complex128 { return complex(real(d)*f, imag(d)*f) },
				func(d complex128) float64 { return real(d)*real(d) + imag(d)*imag(d) })
		} else {
			mb, _ := Values[float64](means[i])
			chan2(cn, mean.data.([]float64), cm2, nb, mb, m2b,
				func(d, f float64) float64 { return d * f },
				func(d float64) float64 { return d * d })
		}
	}
	return count, mean, m2, nil
}

func chan2[T float64 | complex128](na []float64, ma []T, m2a []float64, nb []float64, mb []T, m2b []float64, scale func(T, float64) T, abs2 func(T) float64) {
	for j := range na {
		switch {
		case nb[j] == 0:
			continue
		case na[j] == 0:
			na[j], ma[j], m2a[j] = nb[j], mb[j], m2b[j]
			continue
		}
		n := na[j] + nb[j]
		d := mb[j] - ma[j]
		if d-d != 0 {
			// A mean is infinite or NaN: δ may be Inf - Inf where numpy's
			// sum/n is Inf (mean([inf, 1]) is inf), so weigh the means
			// instead. The deviations from an infinite mean are NaN.
			ma[j] = scale(ma[j], na[j]/n) + scale(mb[j], nb[j]/n)
			m2a[j] = math.NaN()
			na[j] = n
			continue
		}
		ma[j] += scale(d, nb[j]/n)
		m2a[j] += m2b[j] + abs2(d)*na[j]*(nb[j]/n)
		na[j] = n
	}
}

// MomentsResult turns merged moments into the result of op (Mean, Var or
// Std) on an array of dtype d: the mean, or M2/(count - ddof) (+Inf or
// NaN when count ≤ ddof, as numpy), with the dtype ReduceResultType(op,
// d). Without keepdims the reduced axes (nil = all) are dropped.
func MomentsResult(op ReduceOp, d DType, count, mean, m2 *Array, ddof int, axes []int, keepdims bool) (*Array, error) {
	var r *Array
	switch op {
	case Mean:
		r = mean.Copy()
		if c, _ := Values[float64](count); len(c) > 0 && c[0] == 0 {
			// the mean of nothing
			switch m := r.data.(type) {
			case []float64:
				fillSlice(m, math.NaN())
			case []complex128:
				fillSlice(m, complex(math.NaN(), 0))
			}
		}
	case Var, Std:
		r = m2.Copy()
		v := r.data.([]float64)
		c, err := Values[float64](count)
		if err != nil || len(c) != len(v) {
			return nil, &ShapeError{Op: "MomentsResult", Shapes: [][]int{count.shape, m2.shape}, Reason: "count and m2 differ"}
		}
		for i := range v {
			v[i] /= math.Max(c[i]-float64(ddof), 0)
			if op == Std {
				v[i] = math.Sqrt(v[i])
			}
		}
	default:
		return nil, fmt.Errorf("nd: MomentsResult: op %s is not mean, var or std", op)
	}
	r, err := r.AsType(ReduceResultType(op, d))
	if err != nil {
		return nil, err
	}
	if keepdims {
		return r, nil
	}
	red, err := reduceAxes(op.String(), r, axes)
	if err != nil {
		return nil, err
	}
	_, final, _ := reducedShape(r.shape, red, false)
	return r.Reshape(final...)
}

// ArgChunk is ArgReduce of one chunk along axis that also returns the
// extreme values: vals (a's dtype) and idx (int64, the position along the
// axis plus offset, the chunk's first global index), both with the
// keepdims shape (length 1 along axis). ArgCombine merges such partials.
func ArgChunk(op ArgOp, a *Array, axis int, offset int) (vals, idx *Array, err error) {
	if err := checkArrays("ArgChunk", a); err != nil {
		return nil, nil, err
	}
	ax, err := NormalizeAxes(op.String(), []int{axis}, a.NDim())
	if err != nil {
		return nil, nil, err
	}
	vals, idx, err = argScan(op, a, ax[0], int64(offset))
	if err != nil {
		return nil, nil, err
	}
	keep := slices.Clone(a.shape)
	keep[ax[0]] = 1
	vals.shape, vals.strides = keep, CStrides(keep)
	idx.shape, idx.strides = slices.Clone(keep), CStrides(keep)
	return vals, idx, nil
}

// ArgChunkFlat is ArgChunk for a flattened argmin/argmax of a chunked
// array: a is the block at origin (its first element's index) in an array
// of shape global. It returns vals and idx of shape (1,), idx being the
// C-order flat index in the whole array; merge the blocks' partials with
// ArgCombine along axis 0.
func ArgChunkFlat(op ArgOp, a *Array, origin, global []int) (vals, idx *Array, err error) {
	if err := checkArrays("ArgChunkFlat", a); err != nil {
		return nil, nil, err
	}
	if len(origin) != a.NDim() || len(global) != a.NDim() {
		return nil, nil, &ShapeError{Op: op.String(), Shapes: [][]int{a.shape, origin, global}, Reason: "origin and global shape need one entry per axis"}
	}
	for i := range origin {
		if origin[i] < 0 || origin[i]+a.shape[i] > global[i] {
			return nil, nil, &ShapeError{Op: op.String(), Shapes: [][]int{a.shape, origin, global}, Reason: "block outside the array"}
		}
	}
	f, err := a.Reshape(-1)
	if err != nil {
		return nil, nil, err
	}
	vals, local, err := argScan(op, f, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	// local flat index in the block -> multi-index -> global flat index
	l := int(local.data.([]int64)[0])
	g := 0
	gst := CStrides(global)
	bst := CStrides(a.shape)
	for i := range a.shape {
		k := l / bst[i]
		l -= k * bst[i]
		g += (origin[i] + k) * gst[i]
	}
	vals.shape, vals.strides = []int{1}, []int{1}
	idx, _ = FromSlice([]int64{int64(g)})
	return vals, idx, nil
}

// ArgCombine merges partials from ArgChunk (or earlier ArgCombine calls)
// laid side by side along axis: for each output element it keeps the
// first NaN if there is one, else the extreme value, ties going to the
// smaller global index, whatever the order of the pieces. vals2 and idx2
// have the keepdims shape.
func ArgCombine(op ArgOp, vals, idx []*Array, axis int) (vals2, idx2 *Array, err error) {
	if len(vals) == 0 || len(vals) != len(idx) {
		return nil, nil, fmt.Errorf("nd: ArgCombine: %d vals, %d idx", len(vals), len(idx))
	}
	ax, err := NormalizeAxes(op.String(), []int{axis}, vals[0].NDim())
	if err != nil {
		return nil, nil, err
	}
	axis = ax[0]
	keep := slices.Clone(vals[0].shape)
	keep[axis] = 1
	for i := range vals {
		v, x := vals[i], idx[i]
		ok := v.NDim() == len(keep) && slices.Equal(v.shape, x.shape) && x.dtype == Int64 && v.dtype == vals[0].dtype
		for j := 0; ok && j < len(keep); j++ {
			ok = j == axis || v.shape[j] == keep[j]
		}
		if !ok {
			return nil, nil, &ShapeError{Op: "ArgCombine", Shapes: [][]int{vals[0].shape, v.shape, x.shape}, Reason: "partials must agree off the axis, with int64 indices"}
		}
	}
	for i := range vals {
		pv, pl, err := argScan(op, vals[i], axis, 0)
		if err != nil {
			return nil, nil, err
		}
		pi := gatherAlong(idx[i], axis, pl.data.([]int64))
		if vals2 == nil {
			vals2 = pv
			idx2, _ = FromSlice(pi, pv.shape...)
			continue
		}
		mergeArg(op == ArgMax, vals2, idx2.data.([]int64), pv, pi)
	}
	vals2.shape, vals2.strides = keep, CStrides(keep)
	idx2.shape, idx2.strides = slices.Clone(keep), CStrides(keep)
	return vals2, idx2, nil
}

// gatherAlong returns x[..., pos[j], ...] for each outer position j (C
// order over x's axes other than axis).
func gatherAlong(x *Array, axis int, pos []int64) []int64 {
	data := x.data.([]int64)
	shape := slices.Delete(slices.Clone(x.shape), axis, axis+1)
	strides := slices.Delete(slices.Clone(x.strides), axis, axis+1)
	s := x.strides[axis]
	out := make([]int64, len(pos))
	j := 0
	ForEachOffset(shape, strides, x.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			out[j] = data[off+k*step+int(pos[j])*s]
			j++
		}
	})
	return out
}

// mergeArg folds candidate partials (cv, ci) into the running best (bv,
// bi), all C-contiguous with one element per output.
func mergeArg(isMax bool, bv *Array, bi []int64, cv *Array, ci []int64) {
	switch b := bv.data.(type) {
	case []bool:
		mergeBool(isMax, b, bi, cv.data.([]bool), ci)
	case []int8:
		mergeReal(isMax, b, bi, cv.data.([]int8), ci)
	case []int16:
		mergeReal(isMax, b, bi, cv.data.([]int16), ci)
	case []int32:
		mergeReal(isMax, b, bi, cv.data.([]int32), ci)
	case []int64:
		mergeReal(isMax, b, bi, cv.data.([]int64), ci)
	case []uint8:
		mergeReal(isMax, b, bi, cv.data.([]uint8), ci)
	case []uint16:
		mergeReal(isMax, b, bi, cv.data.([]uint16), ci)
	case []uint32:
		mergeReal(isMax, b, bi, cv.data.([]uint32), ci)
	case []uint64:
		mergeReal(isMax, b, bi, cv.data.([]uint64), ci)
	case []float32:
		mergeReal(isMax, b, bi, cv.data.([]float32), ci)
	case []float64:
		mergeReal(isMax, b, bi, cv.data.([]float64), ci)
	case []complex64:
		mergeComplex(isMax, b, bi, cv.data.([]complex64), ci)
	case []complex128:
		mergeComplex(isMax, b, bi, cv.data.([]complex128), ci)
	}
}

func mergeReal[T Real](isMax bool, bv []T, bi []int64, cv []T, ci []int64) {
	for j := range bv {
		b, c := bv[j], cv[j]
		var take bool
		switch {
		case c != c:
			take = b == b || ci[j] < bi[j]
		case b != b:
			take = false
		case c == b:
			take = ci[j] < bi[j]
		case isMax:
			take = c > b
		default:
			take = c < b
		}
		if take {
			bv[j], bi[j] = c, ci[j]
		}
	}
}

func mergeComplex[T complexes](isMax bool, bv []T, bi []int64, cv []T, ci []int64) {
	for j := range bv {
		b, c := bv[j], cv[j]
		var take bool
		switch {
		case isNaNC(c):
			take = !isNaNC(b) || ci[j] < bi[j]
		case isNaNC(b):
			take = false
		case c == b:
			take = ci[j] < bi[j]
		case isMax:
			take = lessC(b, c)
		default:
			take = lessC(c, b)
		}
		if take {
			bv[j], bi[j] = c, ci[j]
		}
	}
}

func mergeBool(isMax bool, bv []bool, bi []int64, cv []bool, ci []int64) {
	for j := range bv {
		b, c := bv[j], cv[j]
		var take bool
		switch {
		case c == b:
			take = ci[j] < bi[j]
		case isMax:
			take = c
		default:
			take = !c
		}
		if take {
			bv[j], bi[j] = c, ci[j]
		}
	}
}

// argScan finds the first extreme of a along axis for every other index:
// the values (a's dtype) and their positions plus offset (int64), both
// with a's shape less the axis.
func argScan(op ArgOp, a *Array, axis int, offset int64) (vals, idx *Array, err error) {
	m := a.shape[axis]
	shape := slices.Delete(slices.Clone(a.shape), axis, axis+1)
	if m == 0 {
		return nil, nil, &ShapeError{Op: op.String(), Shapes: [][]int{a.shape},
			Reason: "attempt to get " + op.String() + " of an empty sequence"}
	}
	strides := slices.Delete(slices.Clone(a.strides), axis, axis+1)
	g := argGeom{shape: shape, strides: strides, off: a.offset, m: m, s: a.strides[axis], offset: offset}
	vals = alloc(a.dtype, shape)
	idx = alloc(Int64, shape)
	ix := idx.data.([]int64)
	isMax := op == ArgMax
	switch s := a.data.(type) {
	case []bool:
		u, _ := a.AsType(Uint8)
		v8 := make([]uint8, len(ix))
		g.off = u.offset
		g.strides = slices.Delete(slices.Clone(u.strides), axis, axis+1)
		g.s = u.strides[axis]
		argReal(isMax, v8, ix, u.data.([]uint8), g)
		vb := vals.data.([]bool)
		for i, v := range v8 {
			vb[i] = v != 0
		}
		_ = s
	case []int8:
		argReal(isMax, vals.data.([]int8), ix, s, g)
	case []int16:
		argReal(isMax, vals.data.([]int16), ix, s, g)
	case []int32:
		argReal(isMax, vals.data.([]int32), ix, s, g)
	case []int64:
		argReal(isMax, vals.data.([]int64), ix, s, g)
	case []uint8:
		argReal(isMax, vals.data.([]uint8), ix, s, g)
	case []uint16:
		argReal(isMax, vals.data.([]uint16), ix, s, g)
	case []uint32:
		argReal(isMax, vals.data.([]uint32), ix, s, g)
	case []uint64:
		argReal(isMax, vals.data.([]uint64), ix, s, g)
	case []float32:
		argReal(isMax, vals.data.([]float32), ix, s, g)
	case []float64:
		argReal(isMax, vals.data.([]float64), ix, s, g)
	case []complex64:
		argComplex(isMax, vals.data.([]complex64), ix, s, g)
	case []complex128:
		argComplex(isMax, vals.data.([]complex128), ix, s, g)
	default:
		return nil, nil, errDispatch(op.String(), a.dtype, Int64)
	}
	return vals, idx, nil
}

// argGeom is the outer geometry (the axes other than the scanned one), the
// scanned axis' length m and stride s, and the index offset.
type argGeom struct {
	shape, strides []int
	off, m, s      int
	offset         int64
}

func argReal[T Real](isMax bool, vals []T, idx []int64, src []T, g argGeom) {
	j := 0
	ForEachOffset(g.shape, g.strides, g.off, func(off, n, step int) {
		for k := 0; k < n; k++ {
			base := off + k*step
			best, bi := src[base], 0
			if best == best {
				for i := 1; i < g.m; i++ {
					v := src[base+i*g.s]
					if (isMax && v > best) || (!isMax && v < best) {
						best, bi = v, i
					} else if v != v {
						best, bi = v, i
						break
					}
				}
			}
			vals[j], idx[j] = best, int64(bi)+g.offset
			j++
		}
	})
}

func argComplex[T complexes](isMax bool, vals []T, idx []int64, src []T, g argGeom) {
	j := 0
	ForEachOffset(g.shape, g.strides, g.off, func(off, n, step int) {
		for k := 0; k < n; k++ {
			base := off + k*step
			best, bi := src[base], 0
			if !isNaNC(best) {
				for i := 1; i < g.m; i++ {
					v := src[base+i*g.s]
					if isNaNC(v) {
						best, bi = v, i
						break
					}
					if (isMax && lessC(best, v)) || (!isMax && lessC(v, best)) {
						best, bi = v, i
					}
				}
			}
			vals[j], idx[j] = best, int64(bi)+g.offset
			j++
		}
	})
}
