package chunkarray

import (
	"cmp"
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
	order := make([]int, n)
	for l := range nOut {
		lane := v[l*n : (l+1)*n]
		id := func(j int) int64 {
			if iv != nil {
				return iv[l*n+j]
			}
			return int64(offset + j)
		}
		for j := range order {
			order[j] = j
		}
		slices.SortFunc(order, func(i, j int) int {
			c := cmpNaN(lane[i], lane[j])
			if k > 0 {
				c = -c
			}
			if c != 0 {
				return c
			}
			return cmp.Compare(id(i), id(j))
		})
		for j := range m {
			outV[l*m+j] = lane[order[j]]
			outI[l*m+j] = id(order[j])
		}
	}
	vals, err := fromLanes(outV, x.Shape(), axes, m)
	if err != nil {
		return nil, nil, err
	}
	ids, err := fromLanes(outI, x.Shape(), axes, m)
	return vals, ids, err
}
