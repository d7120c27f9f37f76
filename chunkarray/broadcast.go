package chunkarray

import (
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// Broadcasting, in both places it happens: at build time, unify gives an
// elementwise result its chunks from its operands' (dask's unify_chunks);
// at run time, leafView gives a fused task's tile the matching part of an
// input block whose broadcast axes have length 1.

// leafView returns the part of input block b that region sl of an output
// block of shape oshape reads: b's axes align to the right, and an axis of
// length 1 where the output is longer is broadcast.
func leafView(b *nd.Array, sl []nd.Slice1, oshape []int) (*nd.Array, error) {
	m, n := b.NDim(), len(oshape)
	if m == 0 {
		return b, nil
	}
	bs := make([]nd.Slice1, m)
	for j := range bs {
		ax := j + n - m
		if b.Shape()[j] == 1 && oshape[ax] != 1 {
			bs[j] = nd.Slice1{Start: 0, Stop: 1, Step: 1}
		} else {
			bs[j] = sl[ax]
		}
	}
	return b.Slice(bs...)
}

// leafViewInto is leafView into the header h (nd.Array.SetSlice): no
// allocation per tile.
func leafViewInto(h *nd.Array, b *nd.Array, sl []nd.Slice1, oshape []int) (*nd.Array, error) {
	m, n := b.NDim(), len(oshape)
	if m == 0 {
		return b, nil
	}
	var buf [16]nd.Slice1
	bs := buf[:0]
	for j := range m {
		ax := j + n - m
		if b.Shape()[j] == 1 && oshape[ax] != 1 {
			bs = append(bs, nd.Slice1{Start: 0, Stop: 1, Step: 1})
		} else {
			bs = append(bs, sl[ax])
		}
	}
	if err := h.SetSlice(b, bs...); err != nil {
		return nil, err
	}
	return h, nil
}

// unify returns the chunks of the broadcast result: along each axis, the
// union of the chunk boundaries of the operands that are not broadcast
// there (dask's unify_chunks).
func unify(opName string, shape []int, ops []operand) ([][]int, error) {
	n := len(shape)
	out := make([][]int, n)
	for ax := 0; ax < n; ax++ {
		var cs [][]int
		for _, o := range ops {
			a := o.arr
			if a == nil {
				continue
			}
			j := ax - (n - a.NDim())
			if j < 0 || (a.shape[j] == 1 && shape[ax] != 1) {
				continue
			}
			cs = append(cs, a.chunks[j])
		}
		switch {
		case len(cs) == 0:
			out[ax] = []int{shape[ax]}
		default:
			out[ax] = unionChunks(cs)
		}
	}
	return out, nil
}

// unionChunks merges the boundaries of several chunkings of one axis.
func unionChunks(cs [][]int) []int {
	same := true
	for _, c := range cs[1:] {
		if !slices.Equal(c, cs[0]) {
			same = false
			break
		}
	}
	if same {
		return cs[0]
	}
	var bounds []int
	for _, c := range cs {
		s := 0
		for _, x := range c {
			s += x
			bounds = append(bounds, s)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	out := make([]int, 0, len(bounds))
	prev := 0
	for _, b := range bounds {
		if b > prev {
			out = append(out, b-prev)
		}
		prev = b
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}
