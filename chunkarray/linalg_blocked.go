package chunkarray

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Blocked Cholesky and triangular solves, dask's algorithms: the matrix
// is rechunked to square blocks (its row and column boundaries united),
// and the factor is built one block column at a time,
//
//	L_kk = chol(A_kk − Σ_{j<k} L_kj·L_kjᵀ)
//	L_ik = (A_ik − Σ_{j<k} L_ij·L_kjᵀ)·L_kk⁻ᵀ      (i > k)
//
// each block a task of its own, so no task holds more than about k+2
// blocks. Every block column is an Array of its own (the diagonal block
// one more), built on the earlier columns, and the factor is their
// concatenation; upper-triangle blocks are zeros. A triangular solve
// runs block rows the same way: X_i = T_ii⁻¹·(B_i − Σ_j T_ij·X_j) over
// the blocks j already solved (before i for a lower T, after it for an
// upper one), a task per block of X. The number of tasks grows as the
// cube of the blocks per side, as Dask's.

// blockedStep reports whether fn is a step of this file (runBlocked).
func blockedStep(fn string) bool {
	switch fn {
	case "chol-diag", "chol-panel", "zeros", "same", "trsm":
		return true
	}
	return false
}

// runBlocked runs a step of the blocked algorithms on its blocks.
func (p linalgP) runBlocked(bs []*nd.Array) (any, error) {
	need := 0
	switch p.Fn {
	case "same", "chol-diag":
		need = 1
	case "chol-panel", "trsm":
		need = 2
	}
	if len(bs) < need || need == 2 && len(bs)%2 != 0 {
		return nil, fmt.Errorf("%s %s: %d arguments", opLinalg, p.Fn, len(bs))
	}
	switch p.Fn {
	case "zeros": // Ints: the block's shape
		if len(p.Ints) != 2 {
			return nil, fmt.Errorf("%s zeros: shape %v", opLinalg, p.Ints)
		}
		return nd.Zeros(p.DType, p.Ints...)
	case "same":
		return bs[0], nil
	case "chol-diag": // A_kk, then L_kj for j < k
		s, err := minusProducts(bs[0], bs[1:], bs[1:])
		if err != nil {
			return nil, err
		}
		l, err := nd.Cholesky(s, true)
		if err != nil {
			return nil, err
		}
		return l.AsType(p.DType)
	case "chol-panel": // A_ik, L_kk, then the L_ij, then the L_kj (j < k)
		k := (len(bs) - 2) / 2
		s, err := minusProducts(bs[0], bs[2:2+k], bs[2+k:])
		if err != nil {
			return nil, err
		}
		// X·L_kkᵀ = S  <=>  L_kk·Xᵀ = Sᵀ
		st, err := s.Transpose()
		if err != nil {
			return nil, err
		}
		xt, err := nd.SolveTriangular(bs[1], st, true)
		if err != nil {
			return nil, err
		}
		x, err := xt.Transpose()
		if err != nil {
			return nil, err
		}
		return x.Contiguous().AsType(p.DType)
	case "trsm": // T_ii, B_i, then pairs T_ij, X_j
		rest := bs[2:]
		ts, xs := make([]*nd.Array, 0, len(rest)/2), make([]*nd.Array, 0, len(rest)/2)
		for j := 0; j+1 < len(rest); j += 2 {
			ts, xs = append(ts, rest[j]), append(xs, rest[j+1])
		}
		s := bs[1]
		if len(ts) > 0 {
			var err error
			if s, err = s.AsType(nd.Float64); err != nil {
				return nil, err
			}
			for j := range ts {
				prod, err := nd.Matmul(ts[j], xs[j])
				if err != nil {
					return nil, err
				}
				if s, err = nd.Binary(nd.Sub, s, prod); err != nil {
					return nil, err
				}
			}
		}
		x, err := nd.SolveTriangular(bs[0], s, p.Lower)
		if err != nil {
			return nil, err
		}
		return x.AsType(p.DType)
	}
	return nil, fmt.Errorf("%s: unknown step %q", opLinalg, p.Fn)
}

// minusProducts returns a − Σ_j l_j·r_jᵀ in float64.
func minusProducts(a *nd.Array, ls, rs []*nd.Array) (*nd.Array, error) {
	s, err := a.AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	for j := range ls {
		rt, err := rs[j].Transpose()
		if err != nil {
			return nil, err
		}
		prod, err := nd.Matmul(ls[j], rt)
		if err != nil {
			return nil, err
		}
		if s, err = nd.Binary(nd.Sub, s, prod); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// squareBlocks rechunks the square a to square blocks: the union of its
// row and column boundaries on both axes.
func squareBlocks(a *Array) (*Array, []int) {
	ch := unionChunks([][]int{a.chunks[0], a.chunks[1]})
	return a.Rechunk([][]int{ch, slices.Clone(ch)}), ch
}

// cholColumnOps returns the ops of block column k whose row blocks i < k are
// zeros, k is the diagonal block (copied) and i > k a panel.
func cholColumnOps(ch []int, k int, dt nd.DType) []*op[linalgP] {
	ops := make([]*op[linalgP], len(ch))
	for i := range ch {
		switch {
		case i < k:
			ops[i] = linalgOp(linalgP{Fn: "zeros", Ints: []int{ch[i], ch[k]}, DType: dt})
		case i == k:
			ops[i] = linalgOp(linalgP{Fn: "same"})
		default:
			ops[i] = linalgOp(linalgP{Fn: "chol-panel", DType: dt})
		}
	}
	return ops
}

// choleskyBlocked builds the lower factor of the square a (dtype dt of
// the result).
func choleskyBlocked(a *Array, dt nd.DType) *Array {
	x, ch := squareBlocks(a)
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	n, nb := a.shape[0], len(ch)
	if nb == 0 || n == 0 {
		return oneTask("cholesky", linalgP{Fn: "cholesky", Lower: true}, a.shape, dt, a)
	}
	cols := make([]*Array, nb)
	for k := range nb {
		prev := slices.Clone(cols[:k])
		toks := []any{x.name, k}
		for _, c := range prev {
			toks = append(toks, c.name)
		}
		diag := newArray("cholesky-diag", []int{ch[k], ch[k]}, [][]int{{ch[k]}, {ch[k]}}, dt,
			&funcLayer{ins: append([]*Array{x}, prev...), op: linalgOp(linalgP{Fn: "chol-diag", DType: dt}), args: func([]int) []graph.Arg {
				args := []graph.Arg{graph.Ref(x.Key(k, k))}
				for _, c := range prev {
					args = append(args, graph.Ref(c.Key(k, 0)))
				}
				return args
			}}, toks...)
		cols[k] = newArray("cholesky-col", []int{n, ch[k]}, [][]int{slices.Clone(ch), {ch[k]}}, dt,
			&indexedLayer{ins: append([]*Array{x, diag}, prev...), ops: cholColumnOps(ch, k, dt), args: func(idx []int) []graph.Arg {
				i := idx[0]
				switch {
				case i < k:
					return nil
				case i == k:
					return []graph.Arg{graph.Ref(diag.Key(0, 0))}
				}
				args := []graph.Arg{graph.Ref(x.Key(i, k)), graph.Ref(diag.Key(0, 0))}
				for _, c := range prev {
					args = append(args, graph.Ref(c.Key(i, 0)))
				}
				for _, c := range prev {
					args = append(args, graph.Ref(c.Key(k, 0)))
				}
				return args
			}}, append(toks, diag.name)...)
	}
	if nb == 1 {
		return cols[0]
	}
	return Concatenate(cols, 1)
}

// trsmBlocked solves t·x = b block row by block row for a square
// triangular t (lower or upper); b is 1-d or 2-d.
func trsmBlocked(t, b *Array, lower bool, dt nd.DType) *Array {
	x, ch := squareBlocks(t)
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	nb := len(ch)
	bspec := []any{ch}
	if b.NDim() == 2 {
		bspec = append(bspec, slices.Clone(b.chunks[1]))
	}
	bw := b.Rechunk(bspec)
	if err := bw.Err(); err != nil {
		return errArray(err)
	}
	if nb <= 1 {
		return solveBlocks("solve-triangular", linalgP{Fn: "solve-triangular", Lower: lower}, t, b, dt)
	}
	rows := make([]*Array, nb)
	order := make([]int, nb)
	for i := range order {
		order[i] = i
		if !lower {
			order[i] = nb - 1 - i
		}
	}
	for s, i := range order {
		done := slices.Clone(order[:s]) // row blocks solved before i
		var ins []*Array
		toks := []any{x.name, bw.name, i, lower}
		for _, j := range done {
			ins = append(ins, rows[j])
			toks = append(toks, rows[j].name)
		}
		shape := slices.Clone(bw.shape)
		shape[0] = ch[i]
		chunks := slices.Clone(bw.chunks)
		chunks[0] = []int{ch[i]}
		rows[i] = newArray("solve-triangular", shape, chunks, dt,
			&funcLayer{ins: append([]*Array{x, bw}, ins...), op: linalgOp(linalgP{Fn: "trsm", Lower: lower, DType: dt}), args: func(idx []int) []graph.Arg {
				bidx := slices.Clone(idx)
				bidx[0] = i
				args := []graph.Arg{graph.Ref(x.Key(i, i)), graph.Ref(bw.Key(bidx...))}
				for _, j := range done {
					xidx := slices.Clone(idx)
					xidx[0] = 0
					args = append(args, graph.Ref(x.Key(i, j)), graph.Ref(rows[j].Key(xidx...)))
				}
				return args
			}}, toks...)
	}
	return Concatenate(rows, 0)
}
