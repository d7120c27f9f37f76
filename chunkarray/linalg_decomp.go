package chunkarray

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Decompositions (dask.array.linalg). QR and SVD of tall-and-skinny
// arrays (one column of blocks) are dask's TSQR: every row block is
// factored in its own task (Q_i, R_i), one task factors the stacked R_i
// (Q2, R), and each block of Q is Q_i·Q2_i, where Q2_i is the rows of Q2
// that belong to block i; SVD then factors the small R (R = U_r·S·Vh) and
// U = Q·U_r. Tasks whose result is two matrices return them packed into
// one array (rows of the first, then rows of the second, padded with
// zeros to the wider), which lazy slices unpack: every task value stays an
// *nd.Array that the codec moves between processes.
//
// Cholesky and SolveTriangular are blocked as Dask's (linalg_blocked.go).
// Solve, Inv and LU compute in one task on the whole matrix (rechunked to
// one block; the right-hand side of Solve keeps its column blocks): Dask
// blocks LU with pivoting inside the diagonal blocks only, which makes p,
// l and u depend on the chunking; here they are scipy.linalg.lu's for any
// chunking, and the matrix must fit a task's memory. The factors come from gonum's LAPACK
// (package nd: float64 arithmetic, float32 results for float32 inputs;
// complex matrices are an error).

// funcLayer makes each block a task of op over the arguments args
// returns for the block's index.
type funcLayer struct {
	ins  []*Array
	op   graph.Op
	args func(idx []int) []graph.Arg
}

func (l *funcLayer) inputs() []*Array { return l.ins }

func (l *funcLayer) block(_ *Array, idx []int) graph.Node {
	return graph.Task(l.op, l.args(slices.Clone(idx))...)
}

const opLinalg = "chunkarray.linalg"

func init() { register[linalgP](opLinalg) }

// linalgP runs one step of a decomposition on *nd.Array arguments; Fn
// names it, Ints are its sizes (see run).
type linalgP struct {
	Fn    string `json:"fn"`
	Ints  []int  `json:"ints,omitempty"`
	Lower bool   `json:"lower,omitempty"`
	DType nd.DType
}

func (p linalgP) run(_ context.Context, args []any) (any, error) {
	if p.Fn == "qr-stack" {
		return p.qrStack(args)
	}
	bs := make([]*nd.Array, len(args))
	for i, v := range args {
		b, err := argArray(v, opLinalg+" "+p.Fn)
		if err != nil {
			return nil, err
		}
		bs[i] = b
	}
	if blockedStep(p.Fn) {
		return p.runBlocked(bs)
	}
	if n := stepArity(p.Fn); len(bs) != n {
		return nil, fmt.Errorf("%s %s: %d arguments, want %d", opLinalg, p.Fn, len(bs), n)
	}
	switch p.Fn {
	case "qr-block": // a row block -> Q_i (m_i×k_i) over R_i (k_i×n)
		q, r, err := nd.QR(bs[0])
		if err != nil {
			return nil, err
		}
		return packRows(bs[0].Shape()[1], q, r)
	case "qr-q":
		return p.qrQ(bs[0], bs[1])
	case "svd":
		return svdPacked(bs[0])
	case "svdvals":
		return nd.SVDVals(bs[0])
	case "solve":
		return nd.Solve(bs[0], bs[1])
	case "solve-triangular":
		return nd.SolveTriangular(bs[0], bs[1], p.Lower)
	case "inv":
		return nd.Inv(bs[0])
	case "cholesky":
		return nd.Cholesky(bs[0], p.Lower)
	case "lu": // -> P over L over U
		pm, l, u, err := nd.LU(bs[0])
		if err != nil {
			return nil, err
		}
		return packRows(max(bs[0].Shape()[0], bs[0].Shape()[1]), pm, l, u)
	}
	return nil, fmt.Errorf("%s: unknown step %q", opLinalg, p.Fn)
}

// stepArity is the number of block arguments of a one-shot step.
func stepArity(fn string) int {
	switch fn {
	case "qr-q", "solve", "solve-triangular":
		return 2
	}
	return 1
}

// qrStack factors the stacked R_i of the packed stage-1 blocks (args[0],
// a list); Ints: m_i then k_i per block. It returns Q2 over R.
func (p linalgP) qrStack(args []any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%s qr-stack: %d arguments, want 1", opLinalg, len(args))
	}
	list, ok := args[0].([]any)
	if !ok || len(p.Ints) != 2*len(list) {
		return nil, fmt.Errorf("%s qr-stack: argument is %T (%d sizes), want a list of blocks", opLinalg, args[0], len(p.Ints))
	}
	nb := len(list)
	rs := make([]*nd.Array, 0, nb)
	for i, v := range list {
		b, err := argArray(v, opLinalg)
		if err != nil {
			return nil, err
		}
		mi, ki := p.Ints[i], p.Ints[nb+i]
		r, err := b.Slice(nd.Slice1{Start: mi, Stop: mi + ki, Step: 1}, nd.Slice1{Start: 0, Stop: b.Shape()[1], Step: 1})
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	st, err := stackRows(rs)
	if err != nil {
		return nil, err
	}
	q, r, err := nd.QR(st)
	if err != nil {
		return nil, err
	}
	return packRows(st.Shape()[1], q, r)
}

// qrQ is block i of TSQR's Q: Q_i·Q2_i, from block i of stage 1 and
// stage 2; Ints: m_i, k_i, the offset of block i's rows in Q2, k.
func (p linalgP) qrQ(b1, b2 *nd.Array) (*nd.Array, error) {
	if len(p.Ints) != 4 {
		return nil, fmt.Errorf("%s qr-q: %d sizes, want 4", opLinalg, len(p.Ints))
	}
	mi, ki, off, k := p.Ints[0], p.Ints[1], p.Ints[2], p.Ints[3]
	qi, err := b1.Slice(nd.Slice1{Start: 0, Stop: mi, Step: 1}, nd.Slice1{Start: 0, Stop: ki, Step: 1})
	if err != nil {
		return nil, err
	}
	q2, err := b2.Slice(nd.Slice1{Start: off, Stop: off + ki, Step: 1}, nd.Slice1{Start: 0, Stop: k, Step: 1})
	if err != nil {
		return nil, err
	}
	return nd.Matmul(qi, q2)
}

// svdPacked factors a (k×n, k <= n) and returns U_r over s over Vh, the
// signs fixed by flipSigns.
func svdPacked(a *nd.Array) (*nd.Array, error) {
	u, s, vh, err := nd.SVD(a)
	if err != nil {
		return nil, err
	}
	if err := flipSigns(u, vh); err != nil {
		return nil, err
	}
	s2, err := s.Reshape(1, s.Shape()[0])
	if err != nil {
		return nil, err
	}
	return packRows(a.Shape()[1], u, s2, vh)
}

// packRows stacks matrices of at most width columns (the same dtype) one
// under the other, each padded with zeros to width.
func packRows(width int, ms ...*nd.Array) (*nd.Array, error) {
	rows := 0
	for _, m := range ms {
		rows += m.Shape()[0]
	}
	out, err := nd.Zeros(ms[0].DType(), rows, width)
	if err != nil {
		return nil, err
	}
	r := 0
	for _, m := range ms {
		h, w := m.Shape()[0], m.Shape()[1]
		v, err := out.Slice(nd.Slice1{Start: r, Stop: r + h, Step: 1}, nd.Slice1{Start: 0, Stop: w, Step: 1})
		if err != nil {
			return nil, err
		}
		if err := nd.Assign(v, m); err != nil {
			return nil, err
		}
		r += h
	}
	return out, nil
}

func stackRows(ms []*nd.Array) (*nd.Array, error) {
	return packRows(ms[0].Shape()[1], ms...)
}

// flipSigns makes the largest-magnitude entry of every row of vh positive,
// flipping the matching column of u (dask's svd_flip, coerce_signs), so
// that the factors do not depend on the chunking.
func flipSigns(u, vh *nd.Array) error {
	k, n := vh.Shape()[0], vh.Shape()[1]
	m := u.Shape()[0]
	for i := range k {
		best, sign := -1.0, 1.0
		for j := range n {
			v, err := vh.At(i, j)
			if err != nil {
				return err
			}
			x := asFloat64(v)
			if math.Abs(x) > best {
				best, sign = math.Abs(x), math.Copysign(1, x)
			}
		}
		if sign > 0 {
			continue
		}
		if err := negateView(vh, nd.Slice1{Start: i, Stop: i + 1, Step: 1}, nd.Slice1{Start: 0, Stop: n, Step: 1}); err != nil {
			return err
		}
		if err := negateView(u, nd.Slice1{Start: 0, Stop: m, Step: 1}, nd.Slice1{Start: i, Stop: i + 1, Step: 1}); err != nil {
			return err
		}
	}
	return nil
}

// asFloat64 returns a float64 or float32 element (nd.Array.At) as float64.
func asFloat64(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	}
	return 0
}

// negateView negates the elements of a in the slices s, in place (a is a
// factor this package made).
func negateView(a *nd.Array, s ...nd.Slice1) error {
	v, err := a.Slice(s...)
	if err != nil {
		return err
	}
	n, err := nd.Unary(nd.Neg, v)
	if err != nil {
		return err
	}
	return nd.Assign(v, n)
}

func linalgOp(p linalgP) *op[linalgP] { return newOp(opLinalg, p) }

// checkTSQR checks that a is 2-d with one column of blocks.
func checkTSQR(name string, a *Array) *Array {
	if err := a.Err(); err != nil {
		return errArray(err)
	}
	if a.NDim() != 2 || len(a.chunks[1]) != 1 {
		return errorf(name, [][]int{a.shape}, "input must have two dimensions and only one column of blocks "+
			"(tall-and-skinny, as dask's tsqr); chunks %v: rechunk with Rechunk([]int{-1, ...})", a.chunks)
	}
	if _, err := nd.LinalgType(name, a.dtype); err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Err: err})
	}
	return nil
}

// tsqr builds the two stages of TSQR and returns Q and R.
func tsqr(name string, a *Array) (q, r *Array) {
	m, n := a.shape[0], a.shape[1]
	dt, _ := nd.LinalgType(name, a.dtype)
	ms := a.chunks[0]
	nb := len(ms)
	ks := make([]int, nb)
	packed := make([]int, nb)
	offs := make([]int, nb)
	sumk := 0
	for i, mi := range ms {
		ks[i] = min(mi, n)
		packed[i] = mi + ks[i]
		offs[i] = sumk
		sumk += ks[i]
	}
	k := min(sumk, n)
	s1 := newArray(name+"-block", []int{sum(packed), n}, [][]int{packed, {n}}, dt,
		&funcLayer{ins: []*Array{a}, op: linalgOp(linalgP{Fn: "qr-block"}), args: func(idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(a.Key(idx[0], 0))}
		}}, a.name)
	refs := make([]graph.Arg, nb)
	for i := range nb {
		refs[i] = graph.Ref(s1.Key(i, 0))
	}
	ints := append(slices.Clone(ms), ks...)
	s2 := newArray(name+"-stack", []int{sumk + k, n}, [][]int{{sumk + k}, {n}}, dt,
		&funcLayer{ins: []*Array{s1}, op: linalgOp(linalgP{Fn: "qr-stack", Ints: ints}), args: func([]int) []graph.Arg {
			return []graph.Arg{graph.List(refs...)}
		}}, s1.name)
	qops := make([]*op[linalgP], nb)
	for i := range nb {
		qops[i] = linalgOp(linalgP{Fn: "qr-q", Ints: []int{ms[i], ks[i], offs[i], k}})
	}
	q = newArray(name+"-q", []int{m, k}, [][]int{slices.Clone(ms), {k}}, dt,
		&indexedLayer{ins: []*Array{s1, s2}, ops: qops, args: func(idx []int) []graph.Arg {
			return []graph.Arg{graph.Ref(s1.Key(idx[0], 0)), graph.Ref(s2.Key(0, 0))}
		}}, s1.name, s2.name)
	r = s2.Index(Range(sumk, sumk+k), All())
	return q, r
}

// indexedLayer is a funcLayer whose op differs along the first axis's
// blocks (its parameters carry the block's sizes).
type indexedLayer struct {
	ins  []*Array
	ops  []*op[linalgP]
	args func(idx []int) []graph.Arg
}

func (l *indexedLayer) inputs() []*Array { return l.ins }

func (l *indexedLayer) block(_ *Array, idx []int) graph.Node {
	return graph.Task(l.ops[idx[0]], l.args(slices.Clone(idx))...)
}

// TSQR is dask.array.linalg.tsqr(a): the QR decomposition of a
// tall-and-skinny a (2-d, one column of blocks), q (m×k, a's row blocks)
// and r (k×n, one block), k = min(m, n), a = q·r, q's columns
// orthonormal. Signs are LAPACK's: numpy's q and r may differ by the
// sign of a column of q and the matching row of r.
func TSQR(a *Array) (q, r *Array) {
	if e := checkTSQR("tsqr", a); e != nil {
		return e, e
	}
	return tsqr("tsqr", a)
}

// QR is dask.array.linalg.qr: TSQR for arrays with one column of blocks;
// an array with one row of blocks and more than one column of blocks
// (short-and-fat) is factored as dask's sfqr: q and r₁ from the first
// column block (which must be at least as wide as a is tall), and r's
// other columns qᵀ·a. Anything else is an error, as in Dask.
func QR(a *Array) (q, r *Array) {
	const name = "qr"
	if err := a.Err(); err != nil {
		return errArray(err), errArray(err)
	}
	if a.NDim() == 2 && len(a.chunks[0]) == 1 && len(a.chunks[1]) > 1 {
		m, c0 := a.shape[0], a.chunks[1][0]
		if m > c0 {
			e := errorf(name, [][]int{a.shape}, "short-and-fat QR (one row of blocks) needs the first column block (%d wide) at least as wide as the array is tall (%d)", c0, m)
			return e, e
		}
		if _, err := nd.LinalgType(name, a.dtype); err != nil {
			e := errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Err: err})
			return e, e
		}
		first := a.Index(All(), Range(0, c0))
		q, r1 := tsqr(name, first)
		rest := a.Index(All(), Range(c0, a.shape[1]))
		r2 := Matmul(q.T(), rest).AsType(r1.dtype)
		return q, Concatenate([]*Array{r1, r2}, 1)
	}
	if e := checkTSQR(name, a); e != nil {
		e = errorf(name, [][]int{a.shape}, "qr supports only tall-and-skinny (one column of blocks) and short-and-fat (one row of blocks) arrays, as dask; chunks %v", a.chunks)
		return e, e
	}
	return tsqr(name, a)
}

// SVD is dask.array.linalg.svd(a) of a tall-and-skinny a (one column of
// blocks): u (m×k, a's row blocks), s (k,) descending and vh (k×n), k =
// min(m, n), through TSQR. Signs are fixed as dask's coerce_signs: the
// largest-magnitude entry of every row of vh is positive. Only a with one
// column of blocks is accepted (Dask also takes one row of blocks by
// transposing).
func SVD(a *Array) (u, s, vh *Array) {
	const name = "svd"
	if err := a.Err(); err != nil {
		return errArray(err), errArray(err), errArray(err)
	}
	if a.NDim() == 2 && len(a.chunks[0]) == 1 && len(a.chunks[1]) > 1 {
		// short-and-fat: the SVD of the transpose
		ut, st, vht := SVD(a.T())
		u, vh := flipByVh(vht.T(), ut.T())
		return u, st, vh
	}
	if e := checkTSQR(name, a); e != nil {
		return e, e, e
	}
	q, r := tsqr(name, a)
	k, n := r.shape[0], r.shape[1]
	dt := r.dtype
	rr := r.Rechunk(-1)
	packed := newArray(name+"-r", []int{2*k + 1, n}, [][]int{{2*k + 1}, {n}}, dt,
		&funcLayer{ins: []*Array{rr}, op: linalgOp(linalgP{Fn: "svd"}), args: func([]int) []graph.Arg {
			return []graph.Arg{graph.Ref(rr.Key(0, 0))}
		}}, rr.name)
	ur := packed.Index(Range(0, k), Range(0, k))
	s = packed.Index(At(k), Range(0, k))
	vh = packed.Index(Range(k+1, 2*k+1), All())
	return Matmul(q, ur), s, vh
}

// oneTask is a task of one step on the whole of each input (rechunked to
// one block), its result one block of the given shape.
func oneTask(name string, p linalgP, shape []int, dt nd.DType, ins ...*Array) *Array {
	whole := make([]*Array, len(ins))
	toks := []any{p.Fn, p.Lower}
	for i, x := range ins {
		whole[i] = x.Rechunk(-1)
		if err := whole[i].Err(); err != nil {
			return errArray(err)
		}
		toks = append(toks, whole[i].name)
	}
	chunks := make([][]int, len(shape))
	for i, s := range shape {
		chunks[i] = []int{s}
	}
	return newArray(name, slices.Clone(shape), chunks, dt, &funcLayer{ins: whole, op: linalgOp(p), args: func([]int) []graph.Arg {
		args := make([]graph.Arg, len(whole))
		for i, x := range whole {
			args[i] = graph.Ref(x.Key(make([]int, x.NDim())...))
		}
		return args
	}}, toks...)
}

func squareMatrix(name string, a *Array) (nd.DType, *Array) {
	return squareMatrixOf(name, a, nd.LinalgType)
}

// squareMatrixOf checks that a is a square matrix of a dtype that types
// accepts, and returns the result's dtype or an error Array.
func squareMatrixOf(name string, a *Array, types func(string, nd.DType) (nd.DType, error)) (nd.DType, *Array) {
	if err := a.Err(); err != nil {
		return nd.Invalid, errArray(err)
	}
	if a.NDim() != 2 {
		return nd.Invalid, errorf(name, [][]int{a.shape}, "%d-dimensional array given: the array must be two-dimensional", a.NDim())
	}
	if a.shape[0] != a.shape[1] {
		return nd.Invalid, errorf(name, [][]int{a.shape}, "last 2 dimensions of the array must be square")
	}
	dt, err := types(name, a.dtype)
	if err != nil {
		return nd.Invalid, errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Err: err})
	}
	return dt, nil
}

// Inv is dask.array.linalg.inv (numpy.linalg.inv) of a square 2-d a, in
// one task (see the package's note on decompositions); complex matrices
// through their real embedding (nd.Inv). A singular matrix fails at
// Compute with nd's LinAlgError.
func Inv(a *Array) *Array {
	dt, e := squareMatrixOf("inv", a, nd.LinalgTypeComplex)
	if e != nil {
		return e
	}
	return oneTask("inv", linalgP{Fn: "inv"}, a.shape, dt, a)
}

// Cholesky is dask.array.linalg.cholesky(a, lower): the lower factor l
// (a = l·lᵀ) or, with lower false (Dask's default), the upper u (a =
// uᵀ·u); numpy.linalg.cholesky is lower=true. Blocked as Dask's
// (linalg_blocked.go: a task per block of the factor, over square blocks;
// where a's row and column chunks differ both become their union, where
// Dask refuses). Only the lower triangle of a is read (numpy's too); a
// matrix that is not positive definite fails at Compute with nd's
// LinAlgError.
func Cholesky(a *Array, lower bool) *Array {
	dt, e := squareMatrix("cholesky", a)
	if e != nil {
		return e
	}
	l := choleskyBlocked(a, dt)
	if lower {
		return l
	}
	return l.T()
}

// LU is dask.array.linalg.lu (scipy.linalg.lu): p, l, u with a = p·l·u,
// p a permutation, l unit lower triangular, u upper triangular, by
// partial pivoting. a must be square (as Dask). One task.
func LU(a *Array) (p, l, u *Array) {
	dt, e := squareMatrix("lu", a)
	if e != nil {
		return e, e, e
	}
	n := a.shape[0]
	packed := oneTask("lu", linalgP{Fn: "lu"}, []int{3 * n, n}, dt, a)
	return packed.Index(Range(0, n), All()), packed.Index(Range(n, 2*n), All()), packed.Index(Range(2*n, 3*n), All())
}

// SolveOpts are Solve's options.
type SolveOpts struct {
	// AssumeA is Dask's (and scipy's) assume_a: "" or "gen" for a general
	// matrix (LU in one task), "pos" for a symmetric positive definite
	// one: the blocked Cholesky factor l, then the blocked triangular
	// solves l·y = b and lᵀ·x = y, no task holding the whole matrix.
	AssumeA string
}

// Solve is dask.array.linalg.solve (numpy.linalg.solve): x with a·x = b
// for a square 2-d a and a 1-d or 2-d b. By default a is one block and
// b's column blocks are solved in a task each; complex systems go through
// their real embedding (nd.Solve). A singular a fails at Compute with
// nd's LinAlgError. See SolveOpts for assume_a="pos".
func Solve(a, b *Array, opts ...SolveOpts) *Array {
	const name = "solve"
	var o SolveOpts
	if len(opts) > 0 {
		o = opts[len(opts)-1]
	}
	types := nd.LinalgTypeComplex
	switch o.AssumeA {
	case "", "gen":
	case "pos":
		types = nd.LinalgType
	default:
		return errorf(name, nil, "assume_a %q: want \"gen\" or \"pos\"", o.AssumeA)
	}
	_, e := squareMatrixOf(name, a, types)
	if e != nil {
		return e
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	if (b.NDim() != 1 && b.NDim() != 2) || b.shape[0] != a.shape[0] {
		return errorf(name, [][]int{a.shape, b.shape}, "b must be (M,) or (M, K) for a (M, M)")
	}
	dt, err := types(name, nd.ResultType(a.dtype, b.dtype))
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape, b.shape}, Err: err})
	}
	if o.AssumeA == "pos" {
		l := Cholesky(a, true)
		return SolveTriangular(l.T(), SolveTriangular(l, b, true), false).AsType(dt)
	}
	return solveBlocks(name, linalgP{Fn: "solve"}, a, b, dt)
}

// solveBlocks solves a (one block) against each column block of b.
func solveBlocks(name string, p linalgP, a, b *Array, dt nd.DType) *Array {
	aw := a.Rechunk(-1)
	var bw *Array
	if b.NDim() == 2 {
		bw = b.Rechunk([]any{-1, b.chunks[1]})
	} else {
		bw = b.Rechunk(-1)
	}
	if err := bw.Err(); err != nil {
		return errArray(err)
	}
	return newArray(name, slices.Clone(b.shape), slices.Clone(bw.chunks), dt, &funcLayer{ins: []*Array{aw, bw}, op: linalgOp(p), args: func(idx []int) []graph.Arg {
		return []graph.Arg{graph.Ref(aw.Key(0, 0)), graph.Ref(bw.Key(idx...))}
	}}, aw.name, bw.name, p.Fn, p.Lower)
}

// SolveTriangular is dask.array.linalg.solve_triangular: x with a·x = b
// for a triangular a (upper, or lower with lower true; the other triangle
// is not read), blocked as Dask's (linalg_blocked.go: block rows of x
// solved in turn, a task per block of x).
func SolveTriangular(a, b *Array, lower bool) *Array {
	const name = "solve-triangular"
	_, e := squareMatrix(name, a)
	if e != nil {
		return e
	}
	if err := b.Err(); err != nil {
		return errArray(err)
	}
	if (b.NDim() != 1 && b.NDim() != 2) || b.shape[0] != a.shape[0] {
		return errorf(name, [][]int{a.shape, b.shape}, "b must be (M,) or (M, K) for a (M, M)")
	}
	dt, err := nd.LinalgType(name, nd.ResultType(a.dtype, b.dtype))
	if err != nil {
		return errArray(&Error{Op: name, Shapes: [][]int{a.shape, b.shape}, Err: err})
	}
	return trsmBlocked(a, b, lower, dt)
}

// Lstsq is dask.array.linalg.lstsq(a, b): the least-squares solution x of
// a·x ≈ b for a tall-and-skinny a (one column of blocks) through TSQR (x
// = R⁻¹·Qᵀ·b), the residuals (the squared 2-norm of each column of b −
// a·x: shape (1,) for a 1-d b, (K,) for a 2-d b; numpy leaves them empty
// when a is not of full rank or m <= n, Dask always computes them), the
// rank of a (int64, numpy.linalg.matrix_rank's tolerance on R's singular
// values) and a's singular values (from R's).
func Lstsq(a, b *Array) (x, residuals, rank, s *Array) {
	const name = "lstsq"
	if e := checkTSQR(name, a); e != nil {
		return e, e, e, e
	}
	if err := b.Err(); err != nil {
		e := errArray(err)
		return e, e, e, e
	}
	if (b.NDim() != 1 && b.NDim() != 2) || b.shape[0] != a.shape[0] {
		e := errorf(name, [][]int{a.shape, b.shape}, "b must be (M,) or (M, K) for a (M, N)")
		return e, e, e, e
	}
	if _, err := nd.LinalgType(name, b.dtype); err != nil {
		e := errArray(&Error{Op: name, Shapes: [][]int{a.shape, b.shape}, Err: err})
		return e, e, e, e
	}
	q, r := tsqr(name, a)
	if r.shape[0] != r.shape[1] {
		e := errorf(name, [][]int{a.shape, b.shape}, "a must have at least as many rows as columns")
		return e, e, e, e
	}
	x = SolveTriangular(r, Matmul(q.T(), b), false)
	res := Sub(b, Matmul(a, x)).Abs().Square()
	residuals = res.Reduce(nd.Sum, []int{0}, ReduceOpts{Keepdims: b.NDim() == 1})
	rr := r.Rechunk(-1)
	s = oneTask(name+"-s", linalgP{Fn: "svdvals"}, []int{r.shape[0]}, r.dtype, rr)
	eps := 2.220446049250313e-16
	if r.dtype == nd.Float32 {
		eps = 1.1920929e-07
	}
	tol := s.Max().Mul(float64(max(a.shape[0], a.shape[1])) * eps)
	rank = s.Greater(tol).Reduce(nd.Sum, nil, ReduceOpts{DType: nd.Int64})
	return x, residuals, rank, s
}

// SVDCompressedOpts are svd_compressed's options.
type SVDCompressedOpts struct {
	// NPowerIter is the number of power iterations (a·aᵀ applied to the
	// sample, re-orthonormalised by TSQR each time); they sharpen the
	// spectrum when the singular values decay slowly.
	NPowerIter int
	// NOversamples is the number of extra sample columns; 0 means
	// Dask's default, 10.
	NOversamples int
	// Seed seeds the Gaussian test matrix (Random(Seed).Normal).
	Seed uint64
}

// SVDCompressed is dask.array.linalg.svd_compressed(a, k): a randomised
// truncated SVD (Halko, Martinsson and Tropp) of rank k, u (m×k), s (k,)
// and vh (k×n). a is sampled with a Gaussian n×(k+oversamples) matrix,
// the sample orthonormalised by TSQR (q), a projected onto it (qᵀ·a, short
// and fat) and that factored by SVD. a may have any chunks along its rows
// and columns; the sample has one column block. The random stream is
// tessera's (Random), not numpy's, so the factors agree with numpy's SVD
// to within the approximation (exactly, up to rounding, for a matrix of
// rank <= k), not bit for bit. Signs as SVD's.
func SVDCompressed(a *Array, k int, o SVDCompressedOpts) (u, s, vh *Array) {
	const name = "svd_compressed"
	fail := func(e *Array) (*Array, *Array, *Array) { return e, e, e }
	if err := a.Err(); err != nil {
		return fail(errArray(err))
	}
	if a.NDim() != 2 {
		return fail(errorf(name, [][]int{a.shape}, "the array must be two-dimensional"))
	}
	m, n := a.shape[0], a.shape[1]
	if k < 1 || k > min(m, n) {
		return fail(errorf(name, [][]int{a.shape}, "k=%d must be in [1, min(m, n)=%d]", k, min(m, n)))
	}
	dt, err := nd.LinalgType(name, a.dtype)
	if err != nil {
		return fail(errArray(&Error{Op: name, Shapes: [][]int{a.shape}, Err: err}))
	}
	over := o.NOversamples
	if over <= 0 {
		over = 10
	}
	q := min(k+over, n, m)
	x := a
	if x.dtype != dt {
		x = x.AsType(dt)
	}
	omega := Random(o.Seed).Normal(0, 1, []int{n, q}, [][]int{slices.Clone(a.chunks[1]), {q}})
	if dt == nd.Float32 {
		omega = omega.AsType(nd.Float32)
	}
	y := Matmul(x, omega)
	for range o.NPowerIter {
		qy, _ := tsqr(name, y)
		y = Matmul(x, Matmul(x.T(), qy))
	}
	qy, _ := tsqr(name, y)
	b := Matmul(qy.T(), x) // q×n: short and fat
	bt := b.T().Rechunk([]any{slices.Clone(a.chunks[1]), -1})
	ub, sb, vhb := SVD(bt)
	u = Matmul(qy, vhb.T()).Index(All(), Range(0, k))
	u, vh = flipByVh(u, ub.T().Index(Range(0, k), All()))
	return u, sb.Index(Range(0, k)), vh
}

// flipByVh applies dask's svd_flip to lazy factors: the sign of each row
// of vh (and of the matching column of u) is that of the row's
// largest-magnitude entry, found as max >= -min (a row whose largest and
// smallest entries are opposite and equal keeps its sign, where numpy's
// argmax would take the first).
func flipByVh(u, vh *Array) (*Array, *Array) {
	sgn := Where(vh.Max(1).GreaterEqual(vh.Min(1).Neg()), 1.0, -1.0).AsType(vh.DType())
	return u.Mul(sgn), vh.Mul(sgn.ExpandDims(1))
}

// Norm is numpy.linalg.norm / dask.array.linalg.norm(x, ord, axis,
// keepdims). ord is nil, "fro", "nuc", or a number (an int or float64;
// math.Inf(±1) for ±inf). axes nil: the 2-norm of the flattened x when
// ord is nil, else x must be 1-d or 2-d (a vector or a matrix norm); one
// axis: vector norms (nil or 2, ±inf, 0 (the count of nonzeros), 1, any
// p: the p-th root of the sum of |x|^p); two axes: matrix norms (nil or
// "fro", "nuc", ±1 (column sums), ±2 (singular values), ±inf (row sums)).
// The 2-norms and "nuc" of a matrix take its singular values in one task
// (x must then be 2-d; complex through nd.SVDVals). Integers are converted to float64 first; float32
// and complex64 give float32, as numpy.
func Norm(x *Array, ord any, axes []int, keepdims bool) *Array {
	const name = "norm"
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	shapes := [][]int{x.shape}
	if !x.dtype.IsFloat() && !x.dtype.IsComplex() {
		x = x.AsType(nd.Float64)
	}
	o := normOrd{set: ord != nil}
	switch v := ord.(type) {
	case nil:
	case string:
		if v != "fro" && v != "nuc" {
			return errorf(name, shapes, "invalid norm order %q", v)
		}
		o.s = v
	case int:
		o.p = float64(v)
	case float64:
		o.p = v
	default:
		return errorf(name, shapes, "norm order of type %T", ord)
	}
	if axes == nil {
		if !o.set {
			return x.Abs().Square().Reduce(nd.Sum, nil, ReduceOpts{Keepdims: keepdims}).Sqrt()
		}
		switch x.NDim() {
		case 1:
			axes = []int{0}
		case 2:
			axes = []int{0, 1}
		default:
			return errorf(name, shapes, "improper number of dimensions to norm")
		}
	}
	ax, err := nd.NormalizeAxes(name, axes, x.NDim())
	if err != nil {
		return errArray(&Error{Op: name, Shapes: shapes, Err: err})
	}
	if len(ax) != len(axes) {
		return errorf(name, shapes, "duplicate axes given")
	}
	var r *Array
	switch len(ax) {
	case 1:
		r = vectorNorm(x, o, ax[0])
	case 2:
		r = matrixNorm(x, o, ax[0], ax[1])
	default:
		return errorf(name, shapes, "improper number of dimensions to norm")
	}
	if keepdims {
		s := slices.Clone(ax)
		slices.Sort(s)
		r = r.ExpandDims(s...)
	}
	return r
}

// normOrd is Norm's ord: unset (nil), a string s ("fro", "nuc") or a
// number p.
type normOrd struct {
	set bool
	s   string
	p   float64
}

// vectorNorm is Norm along one axis.
func vectorNorm(x *Array, o normOrd, ax int) *Array {
	if o.s != "" {
		return errorf("norm", [][]int{x.shape}, "invalid norm order %q for vectors", o.s)
	}
	a, p := x.Abs(), o.p
	switch {
	case !o.set || p == 2:
		return a.Square().Sum(ax).Sqrt()
	case math.IsInf(p, 1):
		return a.Max(ax)
	case math.IsInf(p, -1):
		return a.Min(ax)
	case p == 0:
		return x.NotEqual(0).AsType(a.dtype).Sum(ax)
	case p == 1:
		return a.Sum(ax)
	}
	return a.Pow(p).Sum(ax).Pow(1 / p)
}

// matrixNorm is Norm over the axes row and col.
func matrixNorm(x *Array, o normOrd, row, col int) *Array {
	a, p := x.Abs(), o.p
	switch {
	case !o.set || o.s == "fro":
		return a.Square().Sum(row, col).Sqrt()
	case o.s == "nuc" || p == 2 || p == -2:
		if x.NDim() != 2 {
			return errorf("norm", [][]int{x.shape}, "the 2-norms and the nuclear norm need a 2-d array")
		}
		dt := nd.Float64
		if x.dtype == nd.Float32 || x.dtype == nd.Complex64 {
			dt = nd.Float32
		}
		sv := oneTask("norm-svdvals", linalgP{Fn: "svdvals"}, []int{min(x.shape[0], x.shape[1])}, dt, x)
		switch {
		case o.s == "nuc":
			return sv.Sum()
		case p == 2:
			return sv.Max()
		}
		return sv.Min()
	case p == 1 || p == -1: // the largest (smallest) column sum
		if col > row {
			col--
		}
		if p == 1 {
			return a.Sum(row).Max(col)
		}
		return a.Sum(row).Min(col)
	case math.IsInf(p, 0): // the largest (smallest) row sum
		if row > col {
			row--
		}
		if p > 0 {
			return a.Sum(col).Max(row)
		}
		return a.Sum(col).Min(row)
	}
	return errorf("norm", [][]int{x.shape}, "invalid norm order for matrices")
}
