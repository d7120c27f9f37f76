package chunkarray

import (
	"context"
	"fmt"
	"sort"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// TrilIndices returns the row and column indices of the elements of an
// n×m array (m < 0: m = n) at and below diagonal k, in C order, as
// numpy.tril_indices: two int64 arrays chunked by chunks (a spec for
// their one axis). Their length is known in advance, and each block
// computes its part from the row it starts in (found by a search over the
// counts per row, no list of them kept): Dask's tril_indices is the
// nonzero of tri, whose chunk sizes are unknown until computed.
func TrilIndices(n, k, m int, chunks any) (rows, cols *Array) {
	return triIndices("tril_indices", n, k, m, false, chunks)
}

// TriuIndices is TrilIndices for the elements at and above diagonal k,
// as numpy.triu_indices.
func TriuIndices(n, k, m int, chunks any) (rows, cols *Array) {
	return triIndices("triu_indices", n, k, m, true, chunks)
}

// TrilIndicesFrom is TrilIndices for the shape of the 2-d a, as
// numpy.tril_indices_from.
func TrilIndicesFrom(a *Array, k int, chunks any) (rows, cols *Array) {
	return triIndicesFrom("tril_indices_from", a, k, false, chunks)
}

// TriuIndicesFrom is TriuIndices for the shape of the 2-d a, as
// numpy.triu_indices_from.
func TriuIndicesFrom(a *Array, k int, chunks any) (rows, cols *Array) {
	return triIndicesFrom("triu_indices_from", a, k, true, chunks)
}

func triIndicesFrom(name string, a *Array, k int, upper bool, chunks any) (*Array, *Array) {
	if err := a.Err(); err != nil {
		return errArray(err), errArray(err)
	}
	if a.NDim() != 2 {
		e := errorf(name, [][]int{a.shape}, "input array must be 2-d")
		return e, e
	}
	return triIndices(name, a.shape[0], k, a.shape[1], upper, chunks)
}

func triIndices(name string, n, k, m int, upper bool, chunks any) (*Array, *Array) {
	if m < 0 {
		m = n
	}
	if n < 0 {
		e := errorf(name, [][]int{{n, m}}, "negative dimensions are not allowed")
		return e, e
	}
	g := triGeo{N: n, M: m, K: k, Upper: upper}
	total := g.before(n)
	ch, err := NormalizeChunks(name, chunks, []int{total}, nd.Int64)
	if err != nil {
		return errArray(err), errArray(err)
	}
	out := [2]*Array{}
	for which := range out {
		l := &triIndicesLayer{op: newOp(opTriIndices, triIndicesP{G: g, Cols: which == 1})}
		out[which] = newArray(name, []int{total}, ch, nd.Int64, l, g.N, g.M, g.K, g.Upper, which, chunksToken(ch))
	}
	return out[0], out[1]
}

// triGeo is a triangle of an N×M array: at and below diagonal K, or at
// and above it (Upper).
type triGeo struct {
	N     int  `json:"n"`
	M     int  `json:"m"`
	K     int  `json:"k"`
	Upper bool `json:"upper"`
}

// cols returns row i's columns [lo, hi).
func (g triGeo) cols(i int) (lo, hi int) {
	if g.Upper {
		return min(max(i+g.K, 0), g.M), g.M
	}
	return 0, min(max(i+g.K+1, 0), g.M)
}

// before returns the number of elements in rows [0, i), in O(1).
func (g triGeo) before(i int) int {
	if g.Upper {
		return i*g.M - sumClamp(i, g.K, g.M)
	}
	return sumClamp(i, g.K+1, g.M)
}

// sumClamp is the sum of min(max(r+a, 0), m) for r in [0, i).
func sumClamp(i, a, m int) int {
	// r+a <= 0 for r < r0; 0 < r+a < m for r0 <= r < r1; m from r1 on
	r0 := min(max(-a+1, 0), i)
	r1 := min(max(m-a, r0), i)
	// sum of r+a for r in [r0, r1)
	s := (r1 - r0) * (r0 + r1 - 1 + 2*a) / 2
	return s + (i-r1)*m
}

// triIndicesLayer: block b holds the indices of elements [start, stop)
// of the triangle.
type triIndicesLayer struct{ op graph.Op }

func (l *triIndicesLayer) inputs() []*Array { return nil }

func (l *triIndicesLayer) block(a *Array, idx []int) graph.Node {
	st := a.blockStart(idx)[0]
	return graph.Task(l.op, graph.Lit([]int{st, st + a.chunks[0][idx[0]]}))
}

const opTriIndices = "chunkarray.tri_indices"

func init() { register[triIndicesP](opTriIndices) }

// triIndicesP writes the rows (or columns) of a range of a triangle's
// elements. Args: [start, stop).
type triIndicesP struct {
	G    triGeo `json:"g"`
	Cols bool   `json:"cols"`
}

func (p triIndicesP) Label() string {
	if p.G.Upper {
		return "triu_indices"
	}
	return "tril_indices"
}

func (p triIndicesP) run(_ context.Context, args []any) (any, error) {
	r, err := argInts(args, 0, opTriIndices)
	if err != nil {
		return nil, err
	}
	g := p.G
	if len(r) != 2 || r[0] < 0 || r[1] < r[0] || r[1] > g.before(g.N) {
		return nil, fmt.Errorf("%s: range %v of a triangle of %d elements", opTriIndices, r, g.before(g.N))
	}
	out := make([]int64, r[1]-r[0])
	// the row holding element r[0]: the last i with before(i) <= r[0]
	i := sort.Search(g.N+1, func(i int) bool { return g.before(i) > r[0] }) - 1
	lo, hi := g.cols(i)
	j := lo + r[0] - g.before(i)
	for t := range out {
		for j >= hi {
			i++
			lo, hi = g.cols(i)
			j = lo
		}
		if p.Cols {
			out[t] = int64(j)
		} else {
			out[t] = int64(i)
		}
		j++
	}
	return nd.FromSlice(out, len(out))
}
