package chunkarray

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// TopK and ArgTopK are tree reductions (Reduction's tree) whose partials
// keep, per lane along the axis, the |k| best elements: each stage sorts
// the concatenated candidates and keeps the first |k|, so the aggregate's
// are the result, in order. Every stage orders values as numpy sorts
// them (NaN above everything, so the largest for k > 0), ties by the
// smaller index.

func init() {
	for _, arg := range []bool{false, true} {
		name := "chunkarray.topk"
		if arg {
			name = "chunkarray.argtopk"
		}
		registerTree(name, treeFuncs{
			chunk: func(x *nd.Array, origin []int, p *treeP) ([]*nd.Array, error) {
				return topkFields(x, nil, origin[p.Axes[0]], p.Axes[0], p.K, arg)
			},
			combine: func(parts []*nd.Array, p *treeP) ([]*nd.Array, error) {
				return topkFields(parts[0], idxField(parts, arg), 0, p.Axes[0], p.K, arg)
			},
			aggregate: func(parts []*nd.Array, p *treeP) (*nd.Array, error) {
				f, err := topkFields(parts[0], idxField(parts, arg), 0, p.Axes[0], p.K, arg)
				if err != nil {
					return nil, err
				}
				return f[len(f)-1], nil
			},
		})
	}
}

func idxField(parts []*nd.Array, arg bool) *nd.Array {
	if arg {
		return parts[1]
	}
	return nil
}

// TopK is dask.array.topk: the k largest elements along axis, largest
// first, or for negative k the -k smallest, smallest first; the axis has
// length |k| in the result. Complex arrays are an error (as NaN-ordered
// values they have no numpy order here). o.SplitEvery sets the tree's
// fan-in; Keepdims, Ddof and DType do not apply.
func (a *Array) TopK(k, axis int, o ReduceOpts) *Array {
	return a.topk("topk", k, axis, o, false)
}

// ArgTopK is dask.array.argtopk: the int64 indices along axis of TopK's
// elements, in TopK's order.
func (a *Array) ArgTopK(k, axis int, o ReduceOpts) *Array {
	return a.topk("argtopk", k, axis, o, true)
}

func (a *Array) topk(name string, k, axis int, o ReduceOpts, arg bool) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.dtype.IsComplex() {
		return errorf(name, [][]int{a.shape}, "dtype %s is not supported", a.dtype)
	}
	if o.Keepdims || o.Ddof != 0 || o.DType != nd.Invalid || (o.Device != "" && o.Device != DeviceCPU) {
		return errorf(name, [][]int{a.shape}, "takes no keepdims, ddof, dtype or device")
	}
	ax, err := normAxis(name, a, axis)
	if err != nil {
		return errArray(err)
	}
	n := max(k, -k)
	if k == 0 || n > a.shape[ax] {
		return errorf(name, [][]int{a.shape}, "k = %d for an axis of length %d", k, a.shape[ax])
	}
	p := treeP{Fn: "chunkarray.topk", Op: name, K: k}
	if arg {
		p.Fn, p.Out = "chunkarray.argtopk", nd.Int64
	}
	return a.tree(p, []int{ax}, ReductionOpts{Keepdims: true, OutputSize: n, SplitEvery: o.SplitEvery})
}

// topkFields keeps the best |k| of each lane of x along axis (with their
// indices: idx, or offset + position when idx is nil), as the fields
// (values, indices) when arg, else (values).
func topkFields(x, idx *nd.Array, offset, axis, k int, arg bool) ([]*nd.Array, error) {
	d := x.DType()
	if d == nd.Bool {
		var err error
		if x, err = x.AsType(nd.Uint8); err != nil {
			return nil, err
		}
	}
	var vals, ids *nd.Array
	var err error
	switch x.DType() {
	case nd.Int8:
		vals, ids, err = topkLanes[int8](x, idx, offset, axis, k)
	case nd.Int16:
		vals, ids, err = topkLanes[int16](x, idx, offset, axis, k)
	case nd.Int32:
		vals, ids, err = topkLanes[int32](x, idx, offset, axis, k)
	case nd.Int64:
		vals, ids, err = topkLanes[int64](x, idx, offset, axis, k)
	case nd.Uint8:
		vals, ids, err = topkLanes[uint8](x, idx, offset, axis, k)
	case nd.Uint16:
		vals, ids, err = topkLanes[uint16](x, idx, offset, axis, k)
	case nd.Uint32:
		vals, ids, err = topkLanes[uint32](x, idx, offset, axis, k)
	case nd.Uint64:
		vals, ids, err = topkLanes[uint64](x, idx, offset, axis, k)
	case nd.Float32:
		vals, ids, err = topkLanes[float32](x, idx, offset, axis, k)
	case nd.Float64:
		vals, ids, err = topkLanes[float64](x, idx, offset, axis, k)
	default:
		return nil, fmt.Errorf("dtype %s is not supported", x.DType())
	}
	if err != nil {
		return nil, err
	}
	if d == nd.Bool {
		if vals, err = vals.AsType(nd.Bool); err != nil {
			return nil, err
		}
	}
	if arg {
		return []*nd.Array{vals, ids}, nil
	}
	return []*nd.Array{vals}, nil
}

func topkLanes[T nd.Real](x, idx *nd.Array, offset, axis, k int) (*nd.Array, *nd.Array, error) {
	axes := []int{axis}
	t, nOut, n, err := lanesOf(x, axes)
	if err != nil {
		return nil, nil, err
	}
	v, err := nd.Values[T](t)
	if err != nil {
		return nil, nil, err
	}
	var iv []int64
	if idx != nil {
		ti, _, _, err := lanesOf(idx, axes)
		if err != nil {
			return nil, nil, err
		}
		if iv, err = nd.Values[int64](ti); err != nil {
			return nil, nil, err
		}
	}
	m := min(max(k, -k), n)
	outV := make([]T, nOut*m)
	outI := make([]int64, nOut*m)
	sel := topkSel[T]{k: k, iv: iv, off: int64(offset)}
	best := make([]int, 0, n)
	for l := range nOut {
		sel.lane, sel.base = v[l*n:(l+1)*n], l*n
		best = sel.pick(best[:0], m)
		for j, b := range best {
			outV[l*m+j] = sel.lane[b]
			outI[l*m+j] = sel.id(b)
		}
	}
	vals, err := fromLanes(outV, x.Shape(), axes, m)
	if err != nil {
		return nil, nil, err
	}
	ids, err := fromLanes(outI, x.Shape(), axes, m)
	return vals, ids, err
}

// topkSel picks the best m positions of a lane, in order.
type topkSel[T nd.Real] struct {
	k    int
	lane []T
	iv   []int64 // the indices of the lane's elements (nil: off + position)
	base int     // the lane's start in iv
	off  int64
}

func (s *topkSel[T]) id(j int) int64 {
	if s.iv != nil {
		return s.iv[s.base+j]
	}
	return s.off + int64(j)
}

// before reports whether position i goes before j: the larger value for k
// > 0 (NaN largest), the smaller for k < 0, ties by the smaller index.
func (s *topkSel[T]) before(i, j int) bool {
	a, b := s.lane[i], s.lane[j]
	if s.k > 0 {
		a, b = b, a
	}
	if lessNaN(a, b) {
		return true
	}
	if lessNaN(b, a) {
		return false
	}
	return s.id(i) < s.id(j)
}

// pick appends the best m positions to best (which has room for the
// lane), in order. For small m an insertion into the kept list, which
// most elements leave at one comparison with its last: O(n) for random
// data (O(n·m) at worst); for larger m a sort of all positions.
func (s *topkSel[T]) pick(best []int, m int) []int {
	n := len(s.lane)
	if m > 64 {
		for j := range n {
			best = append(best, j)
		}
		slices.SortFunc(best, func(i, j int) int {
			switch {
			case s.before(i, j):
				return -1
			case s.before(j, i):
				return 1
			}
			return 0
		})
		return best[:m]
	}
	for j := range n {
		if len(best) == m && !s.before(j, best[m-1]) {
			continue
		}
		lo, hi := 0, len(best) // first p with before(j, best[p])
		for lo < hi {
			mid := (lo + hi) / 2
			if s.before(j, best[mid]) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if len(best) < m {
			best = append(best, 0)
		}
		copy(best[lo+1:], best[lo:len(best)-1])
		best[lo] = j
	}
	return best
}
