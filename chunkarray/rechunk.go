package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/chunkarray/nd"
	"github.com/tessera-go/tessera/graph"
)

// rechunkTo returns a with the chunks of out (an ndim-axis chunking that
// a's axes align to on the right) on every axis where a is not broadcast.
func rechunkTo(a *Array, out [][]int, ndim int) *Array {
	want := slices.Clone(a.chunks)
	changed := false
	for j := range want {
		ax := j + ndim - a.NDim()
		if a.shape[j] == 1 && sum(out[ax]) != 1 {
			continue
		}
		if !slices.Equal(want[j], out[ax]) {
			want[j] = out[ax]
			changed = true
		}
	}
	if !changed {
		return a
	}
	return a.Rechunk(want)
}

func sum(c []int) int {
	s := 0
	for _, x := range c {
		s += x
	}
	return s
}

// piece is the part of an input chunk that lands in an output chunk.
type piece struct{ in, lo, hi int }

// Rechunk returns a with new chunks (any spec NormalizeChunks takes). Each
// output block is assembled from the input blocks it overlaps, so memory
// stays bounded by the input and output chunk sizes (a direct plan: no
// intermediate stage).
func (a *Array) Rechunk(chunks any) *Array {
	if a.err != nil {
		return a
	}
	ch, err := NormalizeChunks("rechunk", chunks, a.shape, a.dtype)
	if err != nil {
		return errArray(err)
	}
	if slices.EqualFunc(ch, a.chunks, slices.Equal) {
		return a
	}
	plan := make([][][]piece, len(ch))
	for ax := range ch {
		plan[ax] = axisPlan(a.chunks[ax], ch[ax])
	}
	return newArray("rechunk", a.shape, ch, a.dtype, &rechunkLayer{in: a, plan: plan}, a.name, chunksToken(ch))
}

// axisPlan lists for each output chunk the input pieces it takes.
func axisPlan(in, out []int) [][]piece {
	res := make([][]piece, len(out))
	is := starts(in)
	o := 0
	b := 0
	for j, n := range out {
		lo, hi := o, o+n
		for b < len(in) && is[b]+in[b] <= lo && in[b] > 0 {
			b++
		}
		for k := b; k < len(in) && is[k] < hi; k++ {
			s, e := max(lo, is[k]), min(hi, is[k]+in[k])
			if e > s {
				res[j] = append(res[j], piece{in: k, lo: s - is[k], hi: e - is[k]})
			}
		}
		if n == 0 {
			res[j] = []piece{{in: min(b, len(in)-1)}}
		}
		o = hi
	}
	return res
}

type rechunkLayer struct {
	in   *Array
	plan [][][]piece
}

func (l *rechunkLayer) inputs() []*Array { return []*Array{l.in} }

func (l *rechunkLayer) block(a *Array, idx []int) graph.Node {
	n := len(idx)
	ps := make([][]piece, n)
	whole := true
	for ax, j := range idx {
		ps[ax] = l.plan[ax][j]
		p := ps[ax]
		if len(p) != 1 || p[0].lo != 0 || p[0].hi != l.in.chunks[ax][p[0].in] {
			whole = false
		}
	}
	if whole {
		src := make([]int, n)
		for ax := range src {
			src[ax] = ps[ax][0].in
		}
		return graph.Alias(l.in.Key(src...))
	}
	var refs []graph.Arg
	var geo []int // per piece, per axis: lo, hi, out offset
	cnt := make([]int, n)
	for ax := range cnt {
		cnt[ax] = len(ps[ax])
	}
	src := make([]int, n)
	forBlocks(cnt, func(k []int) {
		for ax, x := range k {
			src[ax] = ps[ax][x].in
		}
		refs = append(refs, graph.Ref(l.in.Key(src...)))
		for ax, x := range k {
			off := 0
			for _, q := range ps[ax][:x] {
				off += q.hi - q.lo
			}
			geo = append(geo, ps[ax][x].lo, ps[ax][x].hi, off)
		}
	})
	return graph.Task(rechunkOp, graph.Lit(a.blockShape(idx)), graph.List(refs...), graph.Lit(geo))
}

var rechunkOp = newOp(opRechunk, rechunkP{})

// rechunkP assembles an output block from pieces of input blocks. Args:
// the block shape, the input blocks, and per piece and axis (lo, hi,
// offset in the output).
type rechunkP struct{}

func (rechunkP) run(_ context.Context, args []any) (any, error) {
	shape, err := argInts(args, 0, opRechunk)
	if err != nil {
		return nil, err
	}
	list, ok := args[1].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: argument 1 is %T", opRechunk, args[1])
	}
	geo, err := argInts(args, 2, opRechunk)
	if err != nil {
		return nil, err
	}
	n := len(shape)
	if len(geo) != 3*n*len(list) {
		return nil, fmt.Errorf("%s: %d geometry entries for %d pieces of %d axes", opRechunk, len(geo), len(list), n)
	}
	var out *nd.Array
	src := make([]nd.Slice1, n)
	dst := make([]nd.Slice1, n)
	for i, v := range list {
		b, err := argArray(v, opRechunk)
		if err != nil {
			return nil, err
		}
		if out == nil {
			if out, err = nd.Zeros(b.DType(), shape...); err != nil {
				return nil, err
			}
		}
		g := geo[3*n*i:]
		for ax := 0; ax < n; ax++ {
			lo, hi, off := g[3*ax], g[3*ax+1], g[3*ax+2]
			src[ax] = nd.Slice1{Start: lo, Stop: hi, Step: 1}
			dst[ax] = nd.Slice1{Start: off, Stop: off + hi - lo, Step: 1}
		}
		part, err := b.Slice(src...)
		if err != nil {
			return nil, err
		}
		if err := copyRegion(out, dst, part); err != nil {
			return nil, err
		}
	}
	return out, nil
}
