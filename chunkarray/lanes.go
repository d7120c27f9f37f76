package chunkarray

import (
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// Lanes: the kernels of the order-statistic reductions (median,
// percentile, topk) work on lanes, the runs of elements along the reduced
// axes. lanesOf moves the reduced axes last and copies the block into C
// order, so that lane i is elements [i*n, (i+1)*n) of one slice, and the
// lanes come in the C order of the other axes: a result with one value
// per lane, reshaped to the block's shape with the reduced axes of length
// 1 (keepShape), is the keepdims result.

// lanesOf returns x with the axes moved last, C-contiguous, the number of
// lanes and their length.
func lanesOf(x *nd.Array, axes []int) (*nd.Array, int, int, error) {
	n := x.NDim()
	perm := make([]int, 0, n)
	red := 1
	for ax := range n {
		if !slices.Contains(axes, ax) {
			perm = append(perm, ax)
		}
	}
	for _, ax := range axes {
		perm = append(perm, ax)
		red *= x.Shape()[ax]
	}
	t, err := x.Transpose(perm...)
	if err != nil {
		return nil, 0, 0, err
	}
	if t.Size() == 0 {
		// a fresh empty array: an empty view's offset may lie beyond its
		// empty backing slice, where nd.Values would slice out of range
		if t, err = nd.Zeros(x.DType(), t.Shape()...); err != nil {
			return nil, 0, 0, err
		}
	}
	t = t.Contiguous()
	if red == 0 {
		outer := 1
		for _, ax := range perm[:n-len(axes)] {
			outer *= x.Shape()[ax]
		}
		return t, outer, 0, nil
	}
	return t, t.Size() / red, red, nil
}

// keepShape is shape with the axes of length k.
func keepShape(shape, axes []int, k int) []int {
	out := slices.Clone(shape)
	for _, ax := range axes {
		out[ax] = k
	}
	return out
}

// fromLanes builds the keepdims result of nOut lanes of k values each
// (the values of lane i at [i*k, (i+1)*k)) for a block of shape, reduced
// over one axis (k values along it) or several (k = 1).
func fromLanes[T nd.Elem](vals []T, shape, axes []int, k int) (*nd.Array, error) {
	if len(axes) == 1 && k != 1 {
		// lanes of k values along the last axis: move it back in place
		ax := axes[0]
		tsh := make([]int, 0, len(shape))
		for i, s := range shape {
			if i != ax {
				tsh = append(tsh, s)
			}
		}
		tsh = append(tsh, k)
		a, err := nd.FromSlice(vals, tsh...)
		if err != nil {
			return nil, err
		}
		perm := make([]int, len(shape))
		for i := range perm {
			switch {
			case i < ax:
				perm[i] = i
			case i == ax:
				perm[i] = len(shape) - 1
			default:
				perm[i] = i - 1
			}
		}
		t, err := a.Transpose(perm...)
		if err != nil {
			return nil, err
		}
		return t.Contiguous(), nil
	}
	return nd.FromSlice(vals, keepShape(shape, axes, k)...)
}

// dropReduced drops the reduced axes of a keepdims result unless keepdims.
func dropReduced(a *nd.Array, axes []int, keepdims bool) (*nd.Array, error) {
	if keepdims {
		return a, nil
	}
	return dropAxes(a, axes)
}

// lessNaN is numpy's sort order: NaN after everything.
func lessNaN[T nd.Real](a, b T) bool {
	return a < b || (a == a && b != b)
}

func cmpNaN[T nd.Real](a, b T) int {
	switch {
	case lessNaN(a, b):
		return -1
	case lessNaN(b, a):
		return 1
	}
	return 0
}

// quantileMethods are numpy 1.24's discontinuous and linear methods that
// Percentile supports.
var quantileMethods = []string{"linear", "lower", "higher", "midpoint", "nearest"}

// quantileSorted is numpy's quantile (q in [0, 1]) of the sorted,
// NaN-free s by method, as float64.
func quantileSorted[T nd.Real](s []T, q float64, method string) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	v := float64(n-1) * q
	lo := math.Floor(v)
	hi := math.Ceil(v)
	switch method {
	case "median": // numpy.median: the mean of the middle two
		if n%2 == 1 {
			return float64(s[n/2])
		}
		return (float64(s[n/2-1]) + float64(s[n/2])) / 2
	case "lower":
		return float64(s[int(lo)])
	case "higher":
		return float64(s[int(hi)])
	case "nearest":
		return float64(s[int(math.RoundToEven(v))])
	case "midpoint":
		if lo == hi {
			return float64(s[int(lo)])
		}
		return lerpT(s[int(lo)], s[int(hi)], 0.5)
	}
	i := int(lo)
	if i >= n-1 {
		return float64(s[n-1])
	}
	return lerpT(s[i], s[i+1], v-lo)
}

// lerpT is lerp of two elements as numpy computes it: the difference b - a
// rounded to float32 for float32 elements. (numpy 1.24 takes it in the
// element dtype for integers too, where it wraps: its percentile of int8
// [-100, 100] at 50 is 128; here the difference of integers is exact.)
func lerpT[T nd.Real](a, b T, t float64) float64 {
	if _, ok := any(a).(float32); ok {
		d := float64(b - a)
		if t >= 0.5 {
			return float64(b) - d*(1-t)
		}
		return float64(a) + d*t
	}
	return quantLerp(float64(a), float64(b), t)
}

// lerp is numpy's _lerp: from the nearer end, so that t = 1 gives b.
func quantLerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// discrete reports whether method picks an element (the result keeps the
// input's dtype in numpy).
func discreteMethod(method string) bool {
	return method == "lower" || method == "higher" || method == "nearest"
}

// sortLane copies the lane's values other than NaN into dst and sorts
// them; hasNaN reports whether it held a NaN. (Sorting without NaN takes
// slices.Sort's native comparisons: a comparator that orders NaN last ran
// three times slower.)
func sortLane[T nd.Real](dst, lane []T) (s []T, hasNaN bool) {
	s, hasNaN = dropNaN(dst, lane)
	slices.Sort(s)
	return s, hasNaN
}

// dropNaN copies the lane's values other than NaN into dst.
func dropNaN[T nd.Real](dst, lane []T) (s []T, hasNaN bool) {
	s = dst[:0]
	for _, v := range lane {
		if v != v {
			hasNaN = true
			continue
		}
		s = append(s, v)
	}
	return s, hasNaN
}

// quantileSelect is quantileSorted of the NaN-free s (reordered in
// place) for one q without sorting: a selection of the lower element
// (s[k] the k-th smallest, the smaller ones before it), and the upper one
// the least after it. (Sorting each lane for the median took three times
// longer on 256-element lanes.)
func quantileSelect[T nd.Real](s []T, q float64, method string) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	v := float64(n-1) * q
	k := int(math.Floor(v))
	switch method {
	case "higher":
		k = int(math.Ceil(v))
	case "nearest":
		k = int(math.RoundToEven(v))
	case "median":
		k = (n - 1) / 2
	}
	selectK(s, k)
	a := s[k]
	if discreteMethod(method) || k+1 >= n {
		return float64(a)
	}
	b := slices.Min(s[k+1:])
	switch method {
	case "median":
		if n%2 == 1 {
			return float64(a)
		}
		return (float64(a) + float64(b)) / 2
	case "midpoint":
		if float64(k) == v {
			return float64(a)
		}
		return lerpT(a, b, 0.5)
	}
	return lerpT(a, b, v-float64(k))
}

// selectK reorders s so that s[k] is its k-th smallest element, with the
// smaller ones before it and the others after (Hoare's selection, the
// pivot the median of three).
func selectK[T nd.Real](s []T, k int) {
	lo, hi := 0, len(s)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		p := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for p < s[j] {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

// quantileLanes computes the quantiles qs of each lane of t (nOut lanes
// of n values), NaN for a lane holding a NaN unless skipNaN (then NaNs
// are dropped: nanmedian), as float64, lane-major.
func quantileLanes[T nd.Real](t *nd.Array, nOut, n int, qs []float64, method string, skipNaN bool) ([]float64, error) {
	v, err := nd.Values[T](t)
	if err != nil {
		return nil, err
	}
	out := make([]float64, nOut*len(qs))
	buf := make([]T, n)
	for i := range nOut {
		if len(qs) == 1 {
			s, hasNaN := dropNaN(buf, v[i*n:(i+1)*n])
			out[i] = math.NaN()
			if !hasNaN || skipNaN {
				out[i] = quantileSelect(s, qs[0], method)
			}
			continue
		}
		s, hasNaN := sortLane(buf, v[i*n:(i+1)*n])
		for j, q := range qs {
			if hasNaN && !skipNaN {
				out[i*len(qs)+j] = math.NaN()
				continue
			}
			out[i*len(qs)+j] = quantileSorted(s, q, method)
		}
	}
	return out, nil
}

// quantileBlock is the quantiles qs of x over axes: keepdims with len(qs)
// values along the axis when there is one reduced axis, else one (qs of
// length 1), as float64.
func quantileBlock(x *nd.Array, axes []int, qs []float64, method string, skipNaN bool) (*nd.Array, error) {
	t, nOut, n, err := lanesOf(x, axes)
	if err != nil {
		return nil, err
	}
	var out []float64
	switch x.DType() {
	case nd.Int8:
		out, err = quantileLanes[int8](t, nOut, n, qs, method, skipNaN)
	case nd.Int16:
		out, err = quantileLanes[int16](t, nOut, n, qs, method, skipNaN)
	case nd.Int32:
		out, err = quantileLanes[int32](t, nOut, n, qs, method, skipNaN)
	case nd.Int64:
		out, err = quantileLanes[int64](t, nOut, n, qs, method, skipNaN)
	case nd.Uint8:
		out, err = quantileLanes[uint8](t, nOut, n, qs, method, skipNaN)
	case nd.Uint16:
		out, err = quantileLanes[uint16](t, nOut, n, qs, method, skipNaN)
	case nd.Uint32:
		out, err = quantileLanes[uint32](t, nOut, n, qs, method, skipNaN)
	case nd.Uint64:
		out, err = quantileLanes[uint64](t, nOut, n, qs, method, skipNaN)
	case nd.Float32:
		out, err = quantileLanes[float32](t, nOut, n, qs, method, skipNaN)
	case nd.Float64:
		out, err = quantileLanes[float64](t, nOut, n, qs, method, skipNaN)
	default:
		return nil, fmt.Errorf("dtype %s is not supported (integers and floats)", x.DType())
	}
	if err != nil {
		return nil, err
	}
	return fromLanes(out, x.Shape(), axes, len(qs))
}
