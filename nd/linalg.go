package nd

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/blas/cblas64"
)

// Matrix products. Every product here comes down to one or more 2-d
// products C = A·B computed by gemm: gonum's Gemm for float32, float64,
// complex64 and complex128, plain i-k-j loops (which wrap on overflow, as
// numpy's integer products do) for integers and bools. Operands are first
// converted to the ResultType of the two dtypes. A 2-d operand that is a
// transposed view of contiguous data goes to Gemm as blas.Trans rather
// than being copied.

// Matmul is numpy's matmul (the @ operator): 2-d·2-d is the matrix
// product; a 1-d first operand is a row vector and a 1-d second operand a
// column vector, the added axis being removed from the result; operands
// of 3 or more dimensions are stacks of matrices whose leading (batch)
// axes broadcast. 0-d operands and mismatched inner dimensions are
// ShapeErrors naming both shapes.
func Matmul(a, b *Array) (*Array, error) {
	if err := checkArrays("matmul", a, b); err != nil {
		return nil, err
	}
	if a.NDim() == 0 || b.NDim() == 0 {
		return nil, &ShapeError{Op: "matmul", Shapes: [][]int{a.shape, b.shape}, Reason: "operand does not have enough dimensions"}
	}
	dt, err := productType("matmul", a, b)
	if err != nil {
		return nil, err
	}
	av, bv := a, b
	if a.NDim() == 1 {
		av = a.view([]int{1, a.shape[0]}, []int{0, a.strides[0]}, a.offset)
	}
	if b.NDim() == 1 {
		bv = b.view([]int{b.shape[0], 1}, []int{b.strides[0], 0}, b.offset)
	}
	na, nb := av.NDim(), bv.NDim()
	m, k := av.shape[na-2], av.shape[na-1]
	k2, n := bv.shape[nb-2], bv.shape[nb-1]
	if k != k2 {
		return nil, &ShapeError{Op: "matmul", Shapes: [][]int{a.shape, b.shape},
			Reason: fmt.Sprintf("mismatch in core dimension (size %d is different from %d)", k, k2)}
	}
	batch, err := BroadcastShapes("matmul", av.shape[:na-2], bv.shape[:nb-2])
	if err != nil {
		return nil, &ShapeError{Op: "matmul", Shapes: [][]int{a.shape, b.shape}, Reason: "batch dimensions could not be broadcast together"}
	}
	av, _ = av.AsType(dt)
	bv, _ = bv.AsType(dt)
	av, err = av.BroadcastTo(append(slices.Clone(batch), m, k)...)
	if err != nil {
		return nil, err
	}
	bv, err = bv.BroadcastTo(append(slices.Clone(batch), k, n)...)
	if err != nil {
		return nil, err
	}
	out := alloc(dt, append(slices.Clone(batch), m, n))
	nbt := len(batch)
	bsA := av.strides[:nbt]
	bsB := bv.strides[:nbt]
	count, _ := SizeOf(batch)
	idx := make([]int, nbt)
	for i := 0; i < count; i++ {
		offA, offB := av.offset, bv.offset
		for j, x := range idx {
			offA += x * bsA[j]
			offB += x * bsB[j]
		}
		a2 := av.view([]int{m, k}, av.strides[nbt:], offA)
		b2 := bv.view([]int{k, n}, bv.strides[nbt:], offB)
		c2 := out.view([]int{m, n}, []int{n, 1}, i*m*n)
		gemm(c2, a2, b2)
		for j := nbt - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < batch[j] {
				break
			}
			idx[j] = 0
		}
	}
	shape := out.shape
	if b.NDim() == 1 {
		shape = shape[:len(shape)-1]
	}
	if a.NDim() == 1 {
		shape = slices.Delete(shape, len(shape)-1-btoi(b.NDim() != 1), len(shape)-btoi(b.NDim() != 1))
	}
	out.shape, out.strides = shape, CStrides(shape)
	return out, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Dot is numpy's dot: the inner product of two 1-d arrays, the matrix
// product of 2-d arrays, the sum over a's last axis and b's only axis for
// N-d·1-d, and in general the sum over a's last axis and b's
// second-to-last (result shape a.shape[:-1] + b.shape[:-2] + b.shape[-1:]).
// A 0-d operand multiplies the other elementwise.
func Dot(a, b *Array) (*Array, error) {
	if err := checkArrays("dot", a, b); err != nil {
		return nil, err
	}
	switch {
	case a.NDim() == 0 || b.NDim() == 0:
		return tensordot("dot", a, b, nil, nil)
	case b.NDim() == 1:
		return tensordot("dot", a, b, []int{a.NDim() - 1}, []int{0})
	}
	return tensordot("dot", a, b, []int{a.NDim() - 1}, []int{b.NDim() - 2})
}

// Tensordot is numpy's tensordot with explicit axis lists: the sum of
// products over axesA of a paired with axesB of b; the result has a's
// remaining axes, then b's. Paired axes must have equal lengths.
func Tensordot(a, b *Array, axesA, axesB []int) (*Array, error) {
	if err := checkArrays("tensordot", a, b); err != nil {
		return nil, err
	}
	return tensordot("tensordot", a, b, axesA, axesB)
}

func tensordot(op string, a, b *Array, axesA, axesB []int) (*Array, error) {
	if len(axesA) != len(axesB) {
		return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape}, Reason: fmt.Sprintf("%d axes of a paired with %d axes of b", len(axesA), len(axesB))}
	}
	axA, err := NormalizeAxes(op, axesA, a.NDim())
	if err != nil {
		return nil, err
	}
	axB, err := NormalizeAxes(op, axesB, b.NDim())
	if err != nil {
		return nil, err
	}
	k := 1
	for i := range axA {
		if a.shape[axA[i]] != b.shape[axB[i]] {
			return nil, &ShapeError{Op: op, Shapes: [][]int{a.shape, b.shape},
				Reason: fmt.Sprintf("shapes not aligned: axis %d of a (%d) != axis %d of b (%d)", axA[i], a.shape[axA[i]], axB[i], b.shape[axB[i]])}
		}
		k *= a.shape[axA[i]]
	}
	dt, err := productType(op, a, b)
	if err != nil {
		return nil, err
	}
	freeA, freeB := freeAxes(a.NDim(), axA), freeAxes(b.NDim(), axB)
	var outShape []int
	m, n := 1, 1
	for _, i := range freeA {
		outShape = append(outShape, a.shape[i])
		m *= a.shape[i]
	}
	for _, i := range freeB {
		outShape = append(outShape, b.shape[i])
		n *= b.shape[i]
	}
	at, _ := a.Transpose(append(freeA, axA...)...)
	bt, _ := b.Transpose(append(axB, freeB...)...)
	a2, err := as2d(at, dt, m, k)
	if err != nil {
		return nil, err
	}
	b2, err := as2d(bt, dt, k, n)
	if err != nil {
		return nil, err
	}
	out := alloc(dt, []int{m, n})
	gemm(out, a2, b2)
	out.shape, out.strides = outShape, CStrides(outShape)
	if outShape == nil {
		out.shape, out.strides = []int{}, []int{}
	}
	return out, nil
}

// productType is the dtype of a product of a and b.
func productType(op string, a, b *Array) (DType, error) {
	dt := ResultType(a.dtype, b.dtype)
	if dt == Invalid {
		return Invalid, &DTypeError{Text: a.dtype.String() + ", " + b.dtype.String(), Reason: op + ": invalid dtypes"}
	}
	return dt, nil
}

func freeAxes(nd int, used []int) []int {
	var free []int
	for i := 0; i < nd; i++ {
		if !slices.Contains(used, i) {
			free = append(free, i)
		}
	}
	return free
}

// as2d returns x (whose axes are already in row-then-column order) as an
// m×k matrix of dtype dt: a view when x's geometry allows it, a copy
// otherwise.
func as2d(x *Array, dt DType, m, k int) (*Array, error) {
	x, err := x.AsType(dt)
	if err != nil {
		return nil, err
	}
	if x.NDim() == 2 && x.shape[0] == m && x.shape[1] == k {
		return x, nil
	}
	r, err := x.Reshape(m, k)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// blasLayout describes a 2-d view for BLAS: data from off, leading
// dimension ld, and whether it is stored transposed. ok is false when the
// view is neither row- nor column-major with unit inner stride.
func blasLayout(x *Array) (trans bool, ld int, ok bool) {
	r, c := x.shape[0], x.shape[1]
	sr, sc := x.strides[0], x.strides[1]
	if r <= 1 {
		sr = max(c, 1)
	}
	if c <= 1 {
		sc = 1
	}
	if sc == 1 && sr >= max(c, 1) {
		return false, sr, true
	}
	if r > 1 && c > 1 && sr == 1 && sc >= r {
		return true, sc, true
	}
	if c <= 1 && sr == 1 && r > 1 {
		// a column vector with unit stride: a 1×r row stored transposed
		return true, max(r, 1), true
	}
	return false, 0, false
}

// gemm writes a·b into the C-contiguous c (all of one dtype; a is m×k, b
// k×n, any strides).
func gemm(c, a, b *Array) {
	m, n, k := c.shape[0], c.shape[1], a.shape[1]
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		return // c is zero already
	}
	switch c.dtype {
	case Float32, Float64, Complex64, Complex128:
		if !allFinite(a) || !allFinite(b) {
			// gonum's Gemm skips the products of a zero element of a, so
			// 0·Inf and 0·NaN would vanish instead of giving NaN as
			// numpy's BLAS does: operands with a non-finite element take
			// the plain loop.
			gemmPlain(c, a, b)
			return
		}
		ta, lda, okA := blasLayout(a)
		if !okA {
			a = a.Copy()
			ta, lda, _ = blasLayout(a)
		}
		tb, ldb, okB := blasLayout(b)
		if !okB {
			b = b.Copy()
			tb, ldb, _ = blasLayout(b)
		}
		tA, tB := blas.NoTrans, blas.NoTrans
		ra, ca := m, k
		if ta {
			tA, ra, ca = blas.Trans, k, m
		}
		rb, cb := k, n
		if tb {
			tB, rb, cb = blas.Trans, n, k
		}
		switch c.dtype {
		case Float64:
			blas64.Gemm(tA, tB, 1,
				blas64.General{Rows: ra, Cols: ca, Stride: lda, Data: a.data.([]float64)[a.offset:]},
				blas64.General{Rows: rb, Cols: cb, Stride: ldb, Data: b.data.([]float64)[b.offset:]},
				0, blas64.General{Rows: m, Cols: n, Stride: n, Data: c.data.([]float64)[c.offset : c.offset+m*n]})
		case Float32:
			blas32.Gemm(tA, tB, 1,
				blas32.General{Rows: ra, Cols: ca, Stride: lda, Data: a.data.([]float32)[a.offset:]},
				blas32.General{Rows: rb, Cols: cb, Stride: ldb, Data: b.data.([]float32)[b.offset:]},
				0, blas32.General{Rows: m, Cols: n, Stride: n, Data: c.data.([]float32)[c.offset : c.offset+m*n]})
		case Complex128:
			cblas128.Gemm(tA, tB, 1,
				cblas128.General{Rows: ra, Cols: ca, Stride: lda, Data: a.data.([]complex128)[a.offset:]},
				cblas128.General{Rows: rb, Cols: cb, Stride: ldb, Data: b.data.([]complex128)[b.offset:]},
				0, cblas128.General{Rows: m, Cols: n, Stride: n, Data: c.data.([]complex128)[c.offset : c.offset+m*n]})
		case Complex64:
			cblas64.Gemm(tA, tB, 1,
				cblas64.General{Rows: ra, Cols: ca, Stride: lda, Data: a.data.([]complex64)[a.offset:]},
				cblas64.General{Rows: rb, Cols: cb, Stride: ldb, Data: b.data.([]complex64)[b.offset:]},
				0, cblas64.General{Rows: m, Cols: n, Stride: n, Data: c.data.([]complex64)[c.offset : c.offset+m*n]})
		}
	case Bool:
		gemmBool(c, a, b)
	case Int8:
		gemmLoop[int8](c, a, b)
	case Int16:
		gemmLoop[int16](c, a, b)
	case Int32:
		gemmLoop[int32](c, a, b)
	case Int64:
		gemmLoop[int64](c, a, b)
	case Uint8:
		gemmLoop[uint8](c, a, b)
	case Uint16:
		gemmLoop[uint16](c, a, b)
	case Uint32:
		gemmLoop[uint32](c, a, b)
	case Uint64:
		gemmLoop[uint64](c, a, b)
	}
}

// gemmLoop is the i-k-j product: the inner loop runs along a row of b and
// a row of c.
func gemmLoop[T Real](c, a, b *Array) {
	m, n, k := c.shape[0], c.shape[1], a.shape[1]
	cd, ad, bd := c.data.([]T), a.data.([]T), b.data.([]T)
	bs0, bs1 := b.strides[0], b.strides[1]
	for i := 0; i < m; i++ {
		row := cd[c.offset+i*n : c.offset+(i+1)*n]
		for p := 0; p < k; p++ {
			x := ad[a.offset+i*a.strides[0]+p*a.strides[1]]
			if x == 0 {
				continue
			}
			off := b.offset + p*bs0
			if bs1 == 1 {
				for j, y := range bd[off : off+n] {
					row[j] += x * y
				}
			} else {
				for j := range row {
					row[j] += x * bd[off+j*bs1]
				}
			}
		}
	}
}

// allFinite reports whether every element of the 2-d float or complex
// array x is finite (no Inf, no NaN).
func allFinite(x *Array) bool {
	switch x.dtype {
	case Float64:
		return allFinite2[float64](x)
	case Float32:
		return allFinite2[float32](x)
	case Complex128:
		return allFinite2[complex128](x)
	case Complex64:
		return allFinite2[complex64](x)
	}
	return true
}

// allFinite2 tests v-v == 0, which is false exactly for Inf and NaN (in
// either part of a complex number).
func allFinite2[T float32 | float64 | complex64 | complex128](x *Array) bool {
	d := x.data.([]T)
	for i := 0; i < x.shape[0]; i++ {
		off := x.offset + i*x.strides[0]
		for j := 0; j < x.shape[1]; j++ {
			if v := d[off+j*x.strides[1]]; v-v != 0 {
				return false
			}
		}
	}
	return true
}

// gemmPlain is the i-k-j product of float or complex matrices, every
// product taken (0·Inf is NaN).
func gemmPlain(c, a, b *Array) {
	switch c.dtype {
	case Float64:
		gemmPlainT[float64](c, a, b)
	case Float32:
		gemmPlainT[float32](c, a, b)
	case Complex128:
		gemmPlainT[complex128](c, a, b)
	case Complex64:
		gemmPlainT[complex64](c, a, b)
	}
}

func gemmPlainT[T float32 | float64 | complex64 | complex128](c, a, b *Array) {
	m, n, k := c.shape[0], c.shape[1], a.shape[1]
	cd, ad, bd := c.data.([]T), a.data.([]T), b.data.([]T)
	for i := 0; i < m; i++ {
		row := cd[c.offset+i*n : c.offset+(i+1)*n]
		for p := 0; p < k; p++ {
			x := ad[a.offset+i*a.strides[0]+p*a.strides[1]]
			off := b.offset + p*b.strides[0]
			for j := range row {
				row[j] += x * bd[off+j*b.strides[1]]
			}
		}
	}
}

func gemmBool(c, a, b *Array) {
	m, n, k := c.shape[0], c.shape[1], a.shape[1]
	cd, ad, bd := c.data.([]bool), a.data.([]bool), b.data.([]bool)
	for i := 0; i < m; i++ {
		row := cd[c.offset+i*n : c.offset+(i+1)*n]
		for p := 0; p < k; p++ {
			if !ad[a.offset+i*a.strides[0]+p*a.strides[1]] {
				continue
			}
			off := b.offset + p*b.strides[0]
			for j := range row {
				row[j] = row[j] || bd[off+j*b.strides[1]]
			}
		}
	}
}
