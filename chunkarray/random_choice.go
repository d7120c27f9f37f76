package chunkarray

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Choice and Permutation. A choice with replacement is elementwise: each
// element's index a pure function of the seed and the element's flat
// index (a uniform index by Lemire's multiply-shift, or a weighted one by
// a binary search of the cumulative weights), so the values do not depend
// on the chunking. A choice without replacement is a global draw: one task
// makes the whole sample (a partial Fisher–Yates shuffle from one seeded
// stream, or, with weights, Efraimidis and Spirakis's keys log(U)/p, the
// k largest in decreasing order, which is successive sampling in
// proportion to the weights), and the result is rechunked from that one
// block, as dask.array.random.choice computes it in one task.
// Permutation(n) is the full shuffle; Permutation of an Array takes its
// rows in the order of a shuffle computed when the graph is built (as
// Dask's).

const (
	opChoice = "chunkarray.choice"
	opSample = "chunkarray.sample"

	keyChoice = 0x94d049bb133111eb ^ 0x2545f4914f6cdd1d
	keySample = 0xbf58476d1ce4e5b9 ^ 0x61c8864680b583eb
)

func init() {
	register[choiceP](opChoice)
	register[sampleP](opSample)
}

// choiceP makes a block of a choice with replacement. Args: block start,
// block shape, then the population's block when there is one (the
// result is then its values, else int64 indices).
type choiceP struct {
	Seed  uint64    `json:"seed"`
	N     int64     `json:"n"`
	CDF   []float64 `json:"cdf,omitempty"` // cumulative weights, the last 1; nil: uniform
	Shape []int     `json:"shape"`         // the whole array's
}

func (choiceP) Label() string { return "choice" }

// index is the population index of element e.
func (p *choiceP) index(e uint64) int64 {
	u := mix(p.Seed ^ keyChoice + (e+1)*smGamma)
	if p.CDF == nil {
		h, _ := bits.Mul64(u, uint64(p.N))
		return int64(h)
	}
	x := unit(u)
	// the first i with x < CDF[i] (zero weights are never chosen)
	i := sort.Search(len(p.CDF), func(i int) bool { return x < p.CDF[i] })
	return int64(min(i, len(p.CDF)-1))
}

func (p choiceP) run(_ context.Context, args []any) (any, error) {
	st, err := argInts(args, 0, opChoice)
	if err != nil {
		return nil, err
	}
	sh, err := argInts(args, 1, opChoice)
	if err != nil {
		return nil, err
	}
	if len(st) != len(p.Shape) || len(sh) != len(p.Shape) {
		return nil, fmt.Errorf("%s: block of %d axes in an array of %d", opChoice, len(sh), len(p.Shape))
	}
	gstr := nd.CStridesInto(nil, p.Shape)
	base := 0
	for i, s := range st {
		if s < 0 || sh[i] < 0 || s+sh[i] > p.Shape[i] {
			return nil, fmt.Errorf("%s: block at %v of shape %v outside %v", opChoice, st, sh, p.Shape)
		}
		base += s * gstr[i]
	}
	n := size(sh)
	idx := make([]int64, 0, n)
	nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
		for j := range m {
			idx = append(idx, p.index(uint64(g+j)))
		}
	})
	if len(args) > 2 {
		pop, err := argArray(args[2], opChoice)
		if err != nil {
			return nil, err
		}
		return choiceGather(pop, idx, sh)
	}
	return nd.FromSlice(idx, sh...)
}

// sampleP makes a whole choice without replacement: K of N, int64
// indices (or the population's values: its one block is the argument).
type sampleP struct {
	Seed uint64    `json:"seed"`
	N    int64     `json:"n"`
	K    int       `json:"k"`
	P    []float64 `json:"p,omitempty"` // weights (nil: uniform)
}

func (sampleP) Label() string { return "choice" }

func (p sampleP) run(_ context.Context, args []any) (any, error) {
	if p.K < 0 || int64(p.K) > p.N {
		return nil, fmt.Errorf("%s: %d of %d without replacement", opSample, p.K, p.N)
	}
	idx := sampleIndices(p.Seed, p.N, p.K, p.P)
	if len(args) > 0 {
		pop, err := argArray(args[0], opSample)
		if err != nil {
			return nil, err
		}
		return choiceGather(pop, idx, []int{p.K})
	}
	return nd.FromSlice(idx, p.K)
}

// sampleIndices is the sample of sampleP: the first k of a seeded
// Fisher–Yates shuffle of 0..n-1, or with weights w the k indices of
// largest log(U_i)/w_i in decreasing order (zero weights last, never
// among them when the caller checked that k non-zero weights exist).
func sampleIndices(seed uint64, n int64, k int, w []float64) []int64 {
	s := newElemStream(seed^keySample, 0)
	if w == nil {
		perm := make([]int64, n)
		for i := range perm {
			perm[i] = int64(i)
		}
		for i := range k {
			h, _ := bits.Mul64(s.next(), uint64(n-int64(i)))
			j := int64(i) + int64(h)
			perm[i], perm[j] = perm[j], perm[i]
		}
		return perm[:k:k]
	}
	keys := make([]float64, n)
	order := make([]int64, n)
	for i := range keys {
		order[i] = int64(i)
		u := s.open()
		if w[i] > 0 {
			keys[i] = math.Log(u) / w[i]
		} else {
			keys[i] = math.Inf(-1)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return keys[order[a]] > keys[order[b]] })
	return order[:k:k]
}

// choiceGather returns pop's values at idx, of shape sh.
func choiceGather(pop *nd.Array, idx []int64, sh []int) (*nd.Array, error) {
	if pop.NDim() != 1 {
		return nil, fmt.Errorf("%s: a population of %d axes", opChoice, pop.NDim())
	}
	src := pop.Contiguous()
	out, err := nd.Zeros(pop.DType(), sh...)
	if err != nil {
		return nil, err
	}
	o := src.Offset()
	switch d := out.Data().(type) {
	case []bool:
		choiceGatherK(d, src.Data().([]bool)[o:], idx)
	case []int8:
		choiceGatherK(d, src.Data().([]int8)[o:], idx)
	case []int16:
		choiceGatherK(d, src.Data().([]int16)[o:], idx)
	case []int32:
		choiceGatherK(d, src.Data().([]int32)[o:], idx)
	case []int64:
		choiceGatherK(d, src.Data().([]int64)[o:], idx)
	case []uint8:
		choiceGatherK(d, src.Data().([]uint8)[o:], idx)
	case []uint16:
		choiceGatherK(d, src.Data().([]uint16)[o:], idx)
	case []uint32:
		choiceGatherK(d, src.Data().([]uint32)[o:], idx)
	case []uint64:
		choiceGatherK(d, src.Data().([]uint64)[o:], idx)
	case []float32:
		choiceGatherK(d, src.Data().([]float32)[o:], idx)
	case []float64:
		choiceGatherK(d, src.Data().([]float64)[o:], idx)
	case []complex64:
		choiceGatherK(d, src.Data().([]complex64)[o:], idx)
	case []complex128:
		choiceGatherK(d, src.Data().([]complex128)[o:], idx)
	default:
		return nil, fmt.Errorf("%s: population of dtype %s", opChoice, pop.DType())
	}
	return out, nil
}

func choiceGatherK[T any](d, s []T, idx []int64) {
	for i, j := range idx[:len(d)] {
		d[i] = s[j]
	}
}

type choiceLayer struct {
	op  *op[choiceP]
	pop *Array // nil: indices
}

func (l *choiceLayer) inputs() []*Array {
	if l.pop == nil {
		return nil
	}
	return []*Array{l.pop}
}

func (l *choiceLayer) block(a *Array, idx []int) graph.Node {
	args := []graph.Arg{graph.Lit(a.blockStart(idx)), graph.Lit(a.blockShape(idx))}
	if l.pop != nil {
		args = append(args, graph.Ref(l.pop.Key(0)))
	}
	return graph.Task(l.op, args...)
}

type sampleLayer struct {
	op  *op[sampleP]
	pop *Array
}

func (l *sampleLayer) inputs() []*Array {
	if l.pop == nil {
		return nil
	}
	return []*Array{l.pop}
}

func (l *sampleLayer) block(*Array, []int) graph.Node {
	if l.pop != nil {
		return graph.Task(l.op, graph.Ref(l.pop.Key(0)))
	}
	return graph.Task(l.op)
}

// Choice is numpy's Generator.choice / da.random.choice: size elements
// drawn from a, which is an int n (the population 0..n-1, int64 results)
// or a 1-d *nd.Array (its values), uniformly or with the probabilities p
// (nil: uniform; else one per element of the population, non-negative,
// summing to 1), with or without replacement. With replacement the values
// do not depend on chunks; without, the sample is drawn in one task (as
// Dask) and rechunked to chunks. Errors as numpy's ValueErrors: an empty
// population, p of the wrong length or not a distribution, a sample
// larger than the population (or than p's non-zero entries) without
// replacement.
func (r *RandomState) Choice(a any, size []int, replace bool, p []float64, chunks any) *Array {
	const name = "choice"
	shapes := [][]int{size}
	if r == nil {
		return errorf(name, shapes, "nil RandomState: use Random(seed)")
	}
	var n int64
	var pop *nd.Array
	switch x := a.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case *nd.Array:
		if x == nil || x.NDim() != 1 {
			return errorf(name, shapes, "a must be 1-dimensional or an integer")
		}
		pop, n = x, int64(x.Size())
	default:
		return errorf(name, shapes, "a of type %T: want an int or a 1-d *nd.Array", a)
	}
	k := 1
	for _, s := range size {
		if s < 0 {
			return errorf(name, shapes, "negative dimensions are not allowed")
		}
		k *= s
	}
	if n < 0 {
		return errorf(name, shapes, "a must be a positive integer unless no samples are taken")
	}
	if n == 0 && k > 0 {
		return errorf(name, shapes, "a cannot be empty unless no samples are taken")
	}
	var cdf []float64
	if p != nil {
		if int64(len(p)) != n {
			return errorf(name, shapes, "a and p must have same size (%d and %d)", n, len(p))
		}
		sum, nz := 0.0, 0
		for _, q := range p {
			if !(q >= 0) || math.IsInf(q, 0) {
				return errorf(name, shapes, "probabilities are not non-negative")
			}
			sum += q
			if q > 0 {
				nz++
			}
		}
		if math.Abs(sum-1) > math.Sqrt(0x1p-52) {
			return errorf(name, shapes, "probabilities do not sum to 1")
		}
		if !replace && nz < k {
			return errorf(name, shapes, "fewer non-zero entries in p than size")
		}
		cdf = make([]float64, len(p))
		c := 0.0
		for i, q := range p {
			c += q
			cdf[i] = c / sum
		}
		cdf[len(cdf)-1] = 1
	}
	if !replace && int64(k) > n {
		return errorf(name, shapes, "cannot take a larger sample than population when replace is False")
	}
	d := nd.Int64
	var popArr *Array
	if pop != nil {
		d = pop.DType()
		popArr = FromNDArray(pop, -1)
		if popArr.err != nil {
			return popArr
		}
	}
	size = slices.Clone(size)
	if replace {
		ch, err := NormalizeChunks(name, chunks, size, d)
		if err != nil {
			return errArray(err)
		}
		cp := choiceP{Seed: r.seed, N: n, CDF: cdf, Shape: size}
		toks := []any{r.seed, n, cdf, size, chunksToken(ch)}
		if popArr != nil {
			toks = append(toks, popArr.name)
		}
		return newArray(name, size, ch, d, &choiceLayer{op: newOp(opChoice, cp), pop: popArr}, toks...)
	}
	var w []float64
	if p != nil {
		w = slices.Clone(p)
	}
	sp := sampleP{Seed: r.seed, N: n, K: k, P: w}
	toks := []any{r.seed, n, k, w}
	if popArr != nil {
		toks = append(toks, popArr.name)
	}
	one := newArray(name, []int{k}, [][]int{{k}}, d, &sampleLayer{op: newOp(opSample, sp), pop: popArr}, toks...)
	return one.Reshape(size...).Rechunk(chunks)
}

// Permutation is numpy's Generator.permutation / da.random.permutation:
// for an int n, a shuffle of 0..n-1 (int64, drawn in one task and
// rechunked to chunks, which are ignored for an Array); for an *Array,
// its rows (axis 0) in the order of a shuffle of their indices computed
// now, as Dask computes it when the graph is built.
func (r *RandomState) Permutation(x any, chunks any) *Array {
	const name = "permutation"
	if r == nil {
		return errorf(name, nil, "nil RandomState: use Random(seed)")
	}
	switch v := x.(type) {
	case int:
		return r.Choice(v, []int{v}, false, nil, chunks)
	case int64:
		return r.Choice(v, []int{int(v)}, false, nil, chunks)
	case *Array:
		if v == nil {
			return errorf(name, nil, "nil Array")
		}
		if v.err != nil {
			return v
		}
		if v.NDim() == 0 {
			return errorf(name, nil, "x must be an integer or at least 1-dimensional")
		}
		n := v.shape[0]
		perm := sampleIndices(r.seed, int64(n), n, nil)
		idx := make([]int, n)
		for i, p := range perm {
			idx[i] = int(p)
		}
		return v.Index(Ints(idx...))
	}
	return errorf(name, nil, "x of type %T: want an int or an *Array", x)
}
