package chunkarray

import (
	"fmt"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/nd"
)

// The kernels of sorting and counting (sortu.go), on canonical values:
// every dtype's values are compared as one of four Go types that hold
// them exactly and keep their order, so each kernel is written once per
// ordering instead of once per dtype: bool and the integers up to 64
// bits (uint64 aside) as int64, uint64 as uint64, floats as float64,
// complex as complex128. The order is numpy's: NaN after every number
// (sort, searchsorted, unique); complex lexicographic, a NaN in either
// part after every complex without one.

// canonDType is the canonical dtype values of d are compared as.
func canonDType(d nd.DType) nd.DType {
	switch {
	case d == nd.Uint64:
		return nd.Uint64
	case d.IsComplex():
		return nd.Complex128
	case d.IsFloat():
		return nd.Float64
	}
	return nd.Int64
}

// canonValues returns b's values in C order as a fresh slice of cd's Go
// type (cd from canonDType).
func canonValues(b *nd.Array, cd nd.DType) (any, error) {
	c, err := b.AsType(cd)
	if err != nil {
		return nil, err
	}
	switch cd {
	case nd.Int64:
		v, err := vals[int64](c)
		return slices.Clone(v), err
	case nd.Uint64:
		v, err := vals[uint64](c)
		return slices.Clone(v), err
	case nd.Float64:
		v, err := vals[float64](c)
		return slices.Clone(v), err
	case nd.Complex128:
		v, err := vals[complex128](c)
		return slices.Clone(v), err
	}
	return nil, fmt.Errorf("canonical dtype %s", cd)
}

// fromCanon builds an array of dtype d and shape from canonical values.
func fromCanon(v any, d nd.DType, shape ...int) (*nd.Array, error) {
	var a *nd.Array
	var err error
	switch x := v.(type) {
	case []int64:
		a, err = nd.FromSlice(x, shape...)
	case []uint64:
		a, err = nd.FromSlice(x, shape...)
	case []float64:
		a, err = nd.FromSlice(x, shape...)
	case []complex128:
		a, err = nd.FromSlice(x, shape...)
	default:
		return nil, fmt.Errorf("canonical values of type %T", v)
	}
	if err != nil {
		return nil, err
	}
	return a.AsType(d)
}

// order is numpy's order of one canonical type: less, and nan (values
// that sort last and that unique takes as one).
type order[T any] struct {
	less func(a, b T) bool
	cmp  func(a, b T) int // three-way less: one call per comparison in the sorts
	nan  func(a T) bool
}

var (
	ordI64 = order[int64]{less: func(a, b int64) bool { return a < b }, cmp: cmpInt[int64], nan: func(int64) bool { return false }}
	ordU64 = order[uint64]{less: func(a, b uint64) bool { return a < b }, cmp: cmpInt[uint64], nan: func(uint64) bool { return false }}
	ordF64 = order[float64]{less: lessF64, cmp: cmpF64, nan: func(a float64) bool { return a != a }}
	ordC   = order[complex128]{less: lessC128, cmp: cmpOf2(lessC128), nan: func(a complex128) bool { return real(a) != real(a) || imag(a) != imag(a) }}
)

// cmpF64 is lessF64 three-way.
func cmpF64(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case a != a && b != b:
		return 0
	case a != a:
		return 1
	}
	return -1
}

// cmpOf2 makes a three-way comparison of less.
func cmpOf2[T any](less func(a, b T) bool) func(a, b T) int {
	return func(a, b T) int {
		switch {
		case less(a, b):
			return -1
		case less(b, a):
			return 1
		}
		return 0
	}
}

// lessF64 is numpy's float order: NaN after everything.
func lessF64(a, b float64) bool { return a < b || (b != b && a == a) }

// lessC128 is numpy's complex order: by real part, then imaginary part,
// with NaN parts sorting after numbers (real + real·j < real + nan·j <
// nan + real·j < nan + nan·j).
func lessC128(a, b complex128) bool {
	ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
	switch {
	case ar < br:
		return ai == ai || bi != bi
	case ar > br:
		return bi != bi && ai == ai
	case ar == br || (ar != ar && br != br):
		return ai < bi || (bi != bi && ai == ai)
	}
	return br != br
}

// same reports whether unique takes a and b as one value: equal, or both
// NaN (numpy 1.24's equal_nan=True).
func (o order[T]) same(a, b T) bool { return !o.less(a, b) && !o.less(b, a) || (o.nan(a) && o.nan(b)) }

// argsortStable returns the permutation that sorts v stably (numpy's
// kind="stable").
func argsortStable[T any](v []T, o order[T], perm []int) {
	for i := range perm {
		perm[i] = i
	}
	// The common types compare by a direct (inlined) call.
	switch x := any(v).(type) {
	case []float64:
		slices.SortStableFunc(perm, func(i, j int) int { return cmpF64(x[i], x[j]) })
	case []int64:
		slices.SortStableFunc(perm, func(i, j int) int { return cmpInt(x[i], x[j]) })
	default:
		slices.SortStableFunc(perm, func(i, j int) int { return o.cmp(v[i], v[j]) })
	}
}

// sortLanes sorts (or argsorts) every lane of length n of v in place:
// v holds len(v)/n lanes one after the other. For argsort the positions
// go to idx (same layout).
func sortLanes[T any](v []T, n int, o order[T], idx []int64) {
	if n <= 1 {
		for i := range idx {
			idx[i] = 0
		}
		return
	}
	perm := make([]int, n)
	tmp := make([]T, n)
	for s := 0; s+n <= len(v); s += n {
		lane := v[s : s+n]
		if idx == nil {
			sortValues(lane, o)
			continue
		}
		argsortStable(lane, o, perm)
		copy(tmp, lane)
		for k, p := range perm {
			lane[k] = tmp[p]
			idx[s+k] = int64(p)
		}
	}
}

// sortValues sorts v in o's order: equal values are alike, so any
// sort does; the integers and the NaN-free part of floats with the
// standard library's pdqsort on <.
func sortValues[T any](v []T, o order[T]) {
	switch x := any(v).(type) {
	case []int64:
		slices.Sort(x)
	case []uint64:
		slices.Sort(x)
	case []float64:
		k := 0 // NaNs to the end, then sort the rest
		for i, f := range x {
			if f == f {
				x[k], x[i] = x[i], x[k]
				k++
			}
		}
		slices.Sort(x[:k])
	default:
		slices.SortFunc(v, o.cmp)
	}
}

// uniqueRuns sorts v in place and returns its unique values (the first
// of each run, NaNs one run) and their counts.
func uniqueRuns[T any](v []T, o order[T]) (uv []T, uc []int64) {
	sortValues(v, o)
	for _, x := range v {
		if k := len(uv) - 1; k >= 0 && o.same(uv[k], x) {
			uc[k]++
			continue
		}
		uv = append(uv, x)
		uc = append(uc, 1)
	}
	return uv, uc
}

// uniqueOf groups v (with the global positions pos of its elements) into
// unique values in sorted order, each with its count and the position
// of its first element in (value, position) order; cnt and pos of the
// input may already be counts and positions of earlier partials (then
// the counts are summed).
func uniqueOf[T any](v []T, cnt, pos []int64, o order[T]) (uv []T, uc, up []int64) {
	perm := make([]int, len(v))
	for i := range perm {
		perm[i] = i
	}
	// Positions are distinct: an unstable sort on (value, position) is
	// deterministic.
	switch x := any(v).(type) {
	case []float64:
		slices.SortFunc(perm, func(i, j int) int {
			if c := cmpF64(x[i], x[j]); c != 0 {
				return c
			}
			return cmpInt(pos[i], pos[j])
		})
	case []int64:
		slices.SortFunc(perm, func(i, j int) int {
			if c := cmpInt(x[i], x[j]); c != 0 {
				return c
			}
			return cmpInt(pos[i], pos[j])
		})
	default:
		slices.SortFunc(perm, func(i, j int) int {
			if c := o.cmp(v[i], v[j]); c != 0 {
				return c
			}
			return cmpInt(pos[i], pos[j])
		})
	}
	for _, p := range perm {
		if k := len(uv) - 1; k >= 0 && o.same(uv[k], v[p]) {
			// The group's first element in (value, position) order
			// gives the position: the least for equal values, and for
			// the NaNs the first in numpy's sorted order.
			uc[k] += cnt[p]
			continue
		}
		uv = append(uv, v[p])
		uc = append(uc, cnt[p])
		up = append(up, pos[p])
	}
	return uv, uc, up
}

// searchSorted returns, for each of v, where it goes in the sorted a:
// the first position whose element is not less than it (side left) or
// greater than it (right), in numpy's order.
func searchSorted[T any](a, v []T, right bool, o order[T], out []int64) {
	for i, x := range v {
		if right {
			out[i] = int64(sort.Search(len(a), func(k int) bool { return o.less(x, a[k]) }))
		} else {
			out[i] = int64(sort.Search(len(a), func(k int) bool { return !o.less(a[k], x) }))
		}
	}
}

// isIn reports for each of v whether it equals an element of the sorted
// test (== : NaN is in nothing, -0 equals 0).
func isIn[T comparable](test, v []T, o order[T], invert bool, out []bool) {
	for i, x := range v {
		k := sort.Search(len(test), func(k int) bool { return !o.less(test[k], x) })
		in := false
		for ; k < len(test) && !o.less(x, test[k]); k++ {
			if test[k] == x {
				in = true
				break
			}
		}
		out[i] = in != invert
	}
}

// binsUniform are numpy.histogram's equal bins: n of them from lo to hi,
// computed in float32 when f32 (numpy's bin dtype for a float32 input)
// and float64 otherwise.
type binsUniform struct {
	n      int
	lo, hi float64
	f32    bool
	norm   float64   // n / (hi - lo), as numpy computes it
	edges  []float64 // linspace(lo, hi, n+1) in the bin dtype
}

// uniformBins are the equal bins of the edges e (linspaceEdges'). numpy
// scales by n / (hi - lo) in float64 when the range is given (Python
// floats), and, when it found the range in float32 data, in float32
// (the range is then two float32 scalars): auto says which.
func uniformBins(e []float64, f32, auto bool) binsUniform {
	n := len(e) - 1
	b := binsUniform{n: n, lo: e[0], hi: e[n], f32: f32, edges: e}
	b.norm = float64(n) / (b.hi - b.lo)
	if f32 && auto {
		b.norm = float64(float32(float64(n) / float64(float32(b.hi)-float32(b.lo))))
	}
	return b
}

// linspaceEdges is numpy.linspace(lo, hi, n+1) (rounded to float32 when
// f32): lo + i·step with step = (hi-lo)/n, the last one hi exactly.
func linspaceEdges(lo, hi float64, n int, f32 bool) []float64 {
	e := make([]float64, n+1)
	d := hi - lo
	step := d / float64(n)
	for i := range e {
		if step == 0 {
			e[i] = float64(i)/float64(n)*d + lo
		} else {
			e[i] = float64(i)*step + lo
		}
		if f32 {
			e[i] = float64(float32(e[i]))
		}
	}
	e[n] = hi
	if f32 {
		e[n] = float64(float32(hi))
	}
	return e
}

// index returns the bin of x, or -1 when x is outside [lo, hi] or NaN,
// as numpy.histogram's equal-bin path computes it (the scaled offset
// truncated, then corrected against the edges).
func (b *binsUniform) index(x float64) int {
	norm := b.norm
	var f float64
	if b.f32 {
		x32, lo32 := float32(x), float32(b.lo)
		if !(x32 >= lo32 && x32 <= float32(b.hi)) {
			return -1
		}
		x = float64(x32)
		f = float64(float32(x32-lo32) * float32(norm))
	} else {
		if !(x >= b.lo && x <= b.hi) {
			return -1
		}
		f = (x - b.lo) * norm
	}
	i := int(f)
	if i == b.n {
		i--
	}
	if x < b.edges[i] {
		i--
	} else if i != b.n-1 && x >= b.edges[i+1] {
		i++
	}
	return i
}

// edgeIndex returns the bin of x among the sorted edges e (each bin
// half-open [e[i], e[i+1]), the last one closed), -1 outside or NaN.
func edgeIndex(e []float64, x float64) int {
	n := len(e) - 1
	if n < 1 || x != x || x < e[0] || x > e[n] {
		return -1
	}
	if x == e[n] {
		return n - 1
	}
	return sort.Search(len(e), func(k int) bool { return e[k] > x }) - 1
}

// vals is nd.Values, except that an empty array gives an empty slice: an
// empty view may keep an offset beyond its (empty) data, which
// nd.Values slices out of range.
func vals[T nd.Elem](a *nd.Array) ([]T, error) {
	if a != nil && a.Size() == 0 {
		if _, ok := a.Data().([]T); !ok {
			return nd.Values[T](a) // nd's error for the wrong type
		}
		return []T{}, nil
	}
	return nd.Values[T](a)
}
