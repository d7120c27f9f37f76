package kern

import "fmt"

// AddColSumsU16 adds to dst[k], for each k < len(dst), the float32 sum of
// the column src[k], src[n+k], ..., src[(rows-1)*n+k] with n = len(dst):
// the column is summed in row order starting from zero, and that sum is
// added to dst[k]. These are the additions of converting src (rows × n)
// to float32, reducing it over axis 0 and adding the result into dst.
// It panics (a programmer error) when src holds fewer than rows·n
// elements or rows is negative.
func AddColSumsU16(dst []float32, src []uint16, rows int) {
	n := len(dst)
	if rows < 0 || (n > 0 && rows > len(src)/n) {
		panic(fmt.Sprintf("kern: AddColSumsU16: %d rows of %d from %d elements", rows, n, len(src)))
	}
	if rows == 0 || n == 0 {
		// A sum of no rows is 0; dst[k] + 0 is dst[k] (dst holds no -0:
		// it is a sum of non-negative values from +0).
		return
	}
	k := colSumsVec(dst, src, rows)
	colSumsGo(dst[k:], src[k:], rows, n)
}

// colSumsBlock is the number of columns the portable loop sums at once:
// its accumulators stay in L1 while rows stream past.
const colSumsBlock = 256

// colSumsGo is AddColSumsU16 in Go for the columns of dst, with rows of
// src stride elements apart.
func colSumsGo(dst []float32, src []uint16, rows, stride int) {
	var acc [colSumsBlock]float32
	for k0 := 0; k0 < len(dst); k0 += colSumsBlock {
		w := min(colSumsBlock, len(dst)-k0)
		a := acc[:w]
		clear(a)
		for r := range rows {
			row := src[r*stride+k0 : r*stride+k0+w]
			for k := range a {
				a[k] += float32(row[k])
			}
		}
		d := dst[k0 : k0+w]
		for k := range d {
			d[k] += a[k]
		}
	}
}

// leafMax is numpy's PW_BLOCKSIZE: runs of at most this length are summed
// in eight interleaved accumulators, longer ones are split in two.
const leafMax = 128

// planMax is the longest run summed from a precomputed plan of leaves;
// longer runs are split (as pairwise summation splits them) in Go first,
// so that a plan holds at most planMax/56 leaves whatever the row length.
const planMax = 1 << 14

// A leafPlan is pairwise summation of n elements unrolled: the lengths of
// its leaves in order and, after each leaf, how many pending partial sums
// the recursion adds (its post-order), so that a run is summed by one
// vector pass over the leaves and a stack walk, without recursion.
type leafPlan struct {
	n    int
	lens []int32
	comb []uint8
}

func newLeafPlan(n int) leafPlan {
	p := leafPlan{n: n}
	var rec func(n int)
	rec = func(n int) {
		if n <= leafMax {
			p.lens = append(p.lens, int32(n))
			p.comb = append(p.comb, 0)
			return
		}
		n2 := n / 2
		n2 -= n2 % 8
		rec(n2)
		rec(n - n2)
		p.comb[len(p.comb)-1]++
	}
	rec(n)
	return p
}

// combine adds the leaf sums sums[0], sums[step], ... as the plan's
// recursion does: a post-order walk with a stack of pending left halves
// (at most log2(planMax/56)+2).
func combine(sums []float32, step int, comb []uint8) float32 {
	var st [32]float32
	sp := 0
	for i, c := range comb {
		st[sp] = sums[i*step]
		sp++
		for ; c > 0; c-- {
			sp--
			st[sp-1] += st[sp]
		}
	}
	return st[0]
}

// A RowSummer sums rows of uint16 as float32 by pairwise summation. It
// keeps the plans of the last row lengths it saw and a scratch of leaf
// sums, so one RowSummer serves one goroutine; the zero value is ready.
type RowSummer struct {
	plans []leafPlan // most recent last, at most maxPlans
	sums  []float32
}

// maxPlans bounds the plans kept: splitting a row longer than planMax
// gives halves of at most two lengths per level, so rows of one length
// need at most two.
const maxPlans = 4

// AddRowSumsU16 adds to dst[r], for each r < len(dst), the pairwise sum
// of src[r*n : (r+1)*n] converted to float32: the value nd.Reduce(Sum)
// gives for that row of the converted tile, added into dst[r]. Rows are
// summed four at a time, side by side. It panics (a programmer error)
// when src holds fewer than len(dst)·n elements or n is negative.
func (s *RowSummer) AddRowSumsU16(dst []float32, src []uint16, n int) {
	if n < 0 || (n > 0 && len(dst) > len(src)/n) {
		panic(fmt.Sprintf("kern: AddRowSumsU16: %d rows of %d from %d elements", len(dst), n, len(src)))
	}
	r := 0
	for ; r+4 <= len(dst); r += 4 {
		v := s.pairwise4(src[r*n:r*n+4*n], n, 0, n)
		dst[r] += v[0]
		dst[r+1] += v[1]
		dst[r+2] += v[2]
		dst[r+3] += v[3]
	}
	for ; r < len(dst); r++ {
		dst[r] += s.pairwise(src[r*n : r*n+n])
	}
}

// PairwiseU16 returns the pairwise sum of x converted to float32, as
// AddRowSumsU16 computes it for one row.
func (s *RowSummer) PairwiseU16(x []uint16) float32 { return s.pairwise(x) }

func (s *RowSummer) pairwise(x []uint16) float32 {
	n := len(x)
	if n > planMax {
		n2 := n / 2
		n2 -= n2 % 8
		return s.pairwise(x[:n2]) + s.pairwise(x[n2:])
	}
	p := s.plan(n)
	sums := s.sums[:len(p.lens)]
	leafSums(x, p.lens, sums)
	return combine(sums, 1, p.comb)
}

// pairwise4 returns the pairwise sums of the runs x[j*stride+lo:][:n] for
// j < 4: pairwise's recursion, four rows at each step.
func (s *RowSummer) pairwise4(x []uint16, stride, lo, n int) [4]float32 {
	if n > planMax {
		n2 := n / 2
		n2 -= n2 % 8
		a := s.pairwise4(x, stride, lo, n2)
		b := s.pairwise4(x, stride, lo+n2, n-n2)
		return [4]float32{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}
	}
	p := s.plan(n)
	sums := s.sums[:4*len(p.lens)]
	leafSums4(x[lo:], stride, p.lens, sums)
	return [4]float32{
		combine(sums[0:], 4, p.comb),
		combine(sums[1:], 4, p.comb),
		combine(sums[2:], 4, p.comb),
		combine(sums[3:], 4, p.comb),
	}
}

// plan returns the plan for runs of n, building it when it is not kept.
func (s *RowSummer) plan(n int) *leafPlan {
	for i := len(s.plans) - 1; i >= 0; i-- {
		if s.plans[i].n == n {
			return &s.plans[i]
		}
	}
	if len(s.plans) == maxPlans {
		s.plans = append(s.plans[:0], s.plans[1:]...)
	}
	s.plans = append(s.plans, newLeafPlan(n))
	p := &s.plans[len(s.plans)-1]
	if cap(s.sums) < 4*len(p.lens) {
		s.sums = make([]float32, 4*len(p.lens))
	}
	return p
}

// leafSumsGo sets out[i*step] to the sum of leaf i of x (leaves of
// lens[i] elements, one after the other): eight interleaved accumulators
// over the longest prefix whose length is a multiple of 8, combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the tail added in order. The
// accumulators start from zero rather than from the first eight values:
// 0 + v is v for every float32 of a uint16.
func leafSumsGo(x []uint16, lens []int32, out []float32, step int) {
	pos := 0
	for i, l := range lens {
		leaf := x[pos : pos+int(l)]
		pos += int(l)
		var r [8]float32
		m := len(leaf) &^ 7
		for j := 0; j < m; j += 8 {
			b := leaf[j : j+8 : j+8]
			r[0] += float32(b[0])
			r[1] += float32(b[1])
			r[2] += float32(b[2])
			r[3] += float32(b[3])
			r[4] += float32(b[4])
			r[5] += float32(b[5])
			r[6] += float32(b[6])
			r[7] += float32(b[7])
		}
		v := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for _, t := range leaf[m:] {
			v += float32(t)
		}
		out[i*step] = v
	}
}

// leafSums4Go sets out[4*i+j] to the sum of leaf i of row j, the row
// starting at x[j*stride].
func leafSums4Go(x []uint16, stride int, lens []int32, out []float32) {
	for j := range 4 {
		leafSumsGo(x[j*stride:], lens, out[j:], 4)
	}
}
