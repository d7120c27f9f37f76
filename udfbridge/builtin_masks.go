package udfbridge

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/tessera-go/tessera/internal/kern"
	"github.com/tessera-go/tessera/nd"
)

// Masks is a stack of k masks over a dataset's signal, LiberTEM's
// MaskContainer: either dense (a k × sig array) or sparse in compressed
// sparse row form over the flattened signal (row m holds mask m's non-zero
// entries). Build one with DenseMasks or SparseMasks.
//
// A dense stack with float32 results on uint16 or float32 tiles is
// applied with internal/kern's masked-dot kernels (AVX2 and FMA where the
// CPU has them), over the masks restricted to the tile's sig region and
// laid out pixel-major, cached per region; uint16 tiles are taken as
// read, without converting them. The results differ from a BLAS product
// in rounding only (another order of additions: see internal/kern for
// the bound). Other dense stacks (float64 or complex results) are applied
// to each tile as one matrix product through gonum's BLAS (tile rows ×
// the masks' columns of the tile's sig region); a sparse one by a loop
// over the non-zero entries inside the region, which is faster when
// masks are mostly zero (ring and point masks).
type Masks struct {
	k, size int
	sig     []int
	dense   *nd.Array // k × size, C contiguous; nil when sparse

	// CSR: row m's entries are indices[indptr[m]:indptr[m+1]] (flat sig
	// positions, ascending) with values values[...] (dtype dt).
	indptr, indices []int
	values          *nd.Array // 1-d, len(indices)
	dt              nd.DType

	// paramsOnce makes params, the masks encoded as ApplyMasksUDF's
	// parameters, once.
	paramsOnce sync.Once
	params     []byte
	paramsErr  error

	// mu guards the caches below: a decoded stack is shared by the tasks
	// of a run (decodeMasks), which apply it at once.
	mu sync.Mutex
	// regions caches, per tile sig region and dtype, the dense masks
	// restricted to it and cast (k × regionSize); built lazily.
	regions map[regionKey]*nd.Array
	// pixelMajor caches, per tile sig region, the dense masks restricted
	// to it, cast to float32 and laid out pixel-major for the masked-dot
	// kernels (regionSize × kern.MaskStride(k)), newest last; the values
	// held stay within pixelMajorBudget.
	pixelMajor []pixelMajorMasks
	pmValues   int
}

// pixelMajorMasks is one region's pixel-major masks: the region is
// start, shape (whole: the whole signal).
type pixelMajorMasks struct {
	whole        bool
	start, shape []int
	v            []float32
}

// regionKey names a sig region (start and shape, flattened into a string
// of their ints) in a dtype.
type regionKey struct {
	region string
	dt     nd.DType
}

// DenseMasks makes a mask stack from masks of shape (k,)+sig; the dtype
// of masks takes part in the result dtype (numpy promotion with the input
// dtype). masks is copied.
func DenseMasks(masks *nd.Array, sig []int) (*Masks, error) {
	if masks == nil {
		return nil, fmt.Errorf("udfbridge: ApplyMasks: nil mask stack")
	}
	sh := masks.Shape()
	if len(sh) != len(sig)+1 || !slices.Equal(sh[1:], sig) {
		return nil, fmt.Errorf("udfbridge: ApplyMasks: mask stack of shape %v does not fit signal shape %v (want (k,)+sig)", sh, sig)
	}
	if masks.DType().IsBool() {
		var err error
		if masks, err = masks.AsType(nd.Float32); err != nil {
			return nil, err
		}
	}
	size := prodInts(sig)
	d, err := masks.Contiguous().Copy().Reshape(sh[0], size)
	if err != nil {
		return nil, err
	}
	return &Masks{k: sh[0], size: size, sig: slices.Clone(sig), dense: d, dt: d.DType()}, nil
}

// SparseMasks makes a stack of k sparse masks over a signal of shape sig
// from CSR arrays: indptr (k+1 ascending offsets from 0), indices (flat
// sig positions) and values (one per index, any numeric dtype).
func SparseMasks(sig []int, indptr, indices []int, values *nd.Array) (*Masks, error) {
	size := prodInts(sig)
	k := len(indptr) - 1
	if k < 0 || indptr[0] != 0 || indptr[k] != len(indices) {
		return nil, fmt.Errorf("udfbridge: ApplyMasks: sparse masks: indptr %v does not span %d indices", shortInts(indptr), len(indices))
	}
	for m := 0; m < k; m++ {
		if indptr[m+1] < indptr[m] {
			return nil, fmt.Errorf("udfbridge: ApplyMasks: sparse masks: indptr decreases at row %d", m)
		}
	}
	for _, j := range indices {
		if j < 0 || j >= size {
			return nil, fmt.Errorf("udfbridge: ApplyMasks: sparse masks: index %d outside signal of %d pixels %v", j, size, sig)
		}
	}
	if values == nil || values.NDim() != 1 || values.Shape()[0] != len(indices) {
		return nil, fmt.Errorf("udfbridge: ApplyMasks: sparse masks: want %d values in a 1-d array", len(indices))
	}
	if values.DType().IsBool() {
		var err error
		if values, err = values.AsType(nd.Float32); err != nil {
			return nil, err
		}
	}
	return &Masks{k: k, size: size, sig: slices.Clone(sig), indptr: slices.Clone(indptr),
		indices: slices.Clone(indices), values: values.Copy(), dt: values.DType()}, nil
}

// K returns the number of masks.
func (m *Masks) K() int { return m.k }

// Sparse reports whether the stack is held in CSR form.
func (m *Masks) Sparse() bool { return m.dense == nil }

// DType returns the masks' dtype.
func (m *Masks) DType() nd.DType { return m.dt }

func prodInts(s []int) int {
	p := 1
	for _, x := range s {
		p *= x
	}
	return p
}

func shortInts(x []int) []int {
	if len(x) > 8 {
		return x[:8]
	}
	return x
}

// regionIndex returns, for a sig region (start, shape), the flat sig
// positions it covers in C order.
func regionIndex(sig, start, shape []int) []int {
	if start == nil {
		start = make([]int, len(sig))
		shape = sig
	}
	n := prodInts(shape)
	out := make([]int, 0, n)
	strides := nd.CStrides(sig)
	idx := make([]int, len(shape))
	for range n {
		f := 0
		for d := range idx {
			f += (start[d] + idx[d]) * strides[d]
		}
		out = append(out, f)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

func isWhole(sig, start, shape []int) bool {
	if start == nil {
		return true
	}
	for d := range sig {
		if start[d] != 0 || shape[d] != sig[d] {
			return false
		}
	}
	return true
}

// apply returns tile (t rows of a sig region, any shape (t,)+region) times
// the masks restricted to that region: shape (t, k), dtype dt.
func (m *Masks) apply(tile *nd.Array, start, shape []int, dt nd.DType) (*nd.Array, error) {
	t := tile.Shape()[0]
	rsize := 1
	for _, x := range tile.Shape()[1:] {
		rsize *= x
	}
	x, err := tile.Contiguous().Reshape(t, rsize)
	if err != nil {
		return nil, err
	}
	if x.DType() != dt {
		if x, err = x.AsType(dt); err != nil {
			return nil, err
		}
	}
	if m.dense != nil {
		mk, err := m.denseFor(start, shape, dt)
		if err != nil {
			return nil, err
		}
		mt, err := mk.Transpose()
		if err != nil {
			return nil, err
		}
		return nd.Matmul(x, mt) // (t, rsize)·(rsize, k) by BLAS gemm
	}
	return m.applySparse(x, start, shape, dt)
}

// applyKernel adds tile (t frames of a sig region starting at start, of
// the tile's shape) times the masks into dst (t × k) with the masked-dot
// kernels of internal/kern, and reports whether it did: for dense masks,
// a C-contiguous uint16 or float32 tile and a C-contiguous float32 dst
// (float32 results). Otherwise it does nothing and the caller takes the
// general path. A uint16 tile gives the same bits as the float32 tile
// converted from it.
func (m *Masks) applyKernel(dst, tile *nd.Array, start []int) (bool, error) {
	if m == nil || m.dense == nil || tile == nil || tile.NDim() < 1 || !tile.IsCContiguous() {
		return false, nil
	}
	if dt := tile.DType(); dt != nd.Uint16 && dt != nd.Float32 {
		return false, nil
	}
	out, ok := float32Run(dst)
	t := tile.Shape()[0]
	if !ok || len(out) != t*m.k {
		return false, nil
	}
	shape := tile.Shape()[1:]
	r := dsProd(shape)
	if t == 0 || r == 0 || m.k == 0 {
		return true, nil
	}
	pm, err := m.pixelMajorFor(start, shape)
	if err != nil {
		return false, err
	}
	if len(pm) != r*kern.MaskStride(m.k) {
		return false, fmt.Errorf("masks of %d pixel-major values for a tile region %v of %d pixels", len(pm), shape, r)
	}
	off := tile.Offset()
	switch x := tile.Data().(type) {
	case []uint16:
		kern.MaskDotU16(out, x[off:off+t*r], pm, t, r, m.k)
	case []float32:
		kern.MaskDotF32(out, x[off:off+t*r], pm, t, r, m.k)
	default:
		return false, nil
	}
	return true, nil
}

// pixelMajorBudget is the most float32 values of pixel-major masks a
// stack keeps: twice its whole pixel-major size, so that the regions of
// one tiling (which partition the signal) all stay while a region of
// another tiling evicts the oldest.
func (m *Masks) pixelMajorBudget() int { return 2 * m.size * kern.MaskStride(m.k) }

// pixelMajorFor returns the dense masks restricted to the sig region
// (start, shape) as float32 in the kernels' pixel-major layout, from the
// cache or made once (the oldest regions leave the cache beyond its
// budget). The lookup allocates nothing.
func (m *Masks) pixelMajorFor(start, shape []int) ([]float32, error) {
	whole := isWhole(m.sig, start, shape)
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := len(m.pixelMajor) - 1; i >= 0; i-- {
		e := &m.pixelMajor[i]
		if e.whole == whole && (whole || slices.Equal(e.start, start) && slices.Equal(e.shape, shape)) {
			return e.v, nil
		}
	}
	var idx []int
	if !whole {
		if len(start) != len(m.sig) || len(shape) != len(m.sig) {
			return nil, fmt.Errorf("tile sig region at %v of shape %v does not fit the masks' signal %v", start, shape, m.sig)
		}
		for dim := range shape {
			if start[dim] < 0 || shape[dim] < 0 || start[dim]+shape[dim] > m.sig[dim] {
				return nil, fmt.Errorf("tile sig region at %v of shape %v outside the masks' signal %v", start, shape, m.sig)
			}
		}
		idx = regionIndex(m.sig, start, shape)
	}
	d := m.dense
	if d.DType() != nd.Float32 {
		var err error
		if d, err = d.AsType(nd.Float32); err != nil {
			return nil, err
		}
	}
	src, err := nd.Values[float32](d)
	if err != nil {
		return nil, err
	}
	e := pixelMajorMasks{whole: whole, start: slices.Clone(start), shape: slices.Clone(shape),
		v: kern.PixelMajor(nil, src, m.k, m.size, idx)}
	m.pixelMajor = append(m.pixelMajor, e)
	m.pmValues += len(e.v)
	for len(m.pixelMajor) > 1 && m.pmValues > m.pixelMajorBudget() {
		m.pmValues -= len(m.pixelMajor[0].v)
		m.pixelMajor = slices.Delete(m.pixelMajor, 0, 1)
	}
	return e.v, nil
}

// denseFor returns the dense masks restricted to the sig region (start,
// shape) and cast to dt, k × regionSize, from the cache or made once.
func (m *Masks) denseFor(start, shape []int, dt nd.DType) (*nd.Array, error) {
	whole := isWhole(m.sig, start, shape)
	if whole && m.dense.DType() == dt {
		return m.dense, nil
	}
	var key regionKey
	key.dt = dt
	if !whole {
		b := make([]byte, 0, 8*(len(start)+len(shape)))
		for _, v := range append(append([]int(nil), start...), shape...) {
			b = binary.AppendVarint(b, int64(v))
		}
		key.region = string(b)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if mk := m.regions[key]; mk != nil {
		return mk, nil
	}
	mk := m.dense
	if !whole {
		var err error
		if mk, err = gatherCols(m.dense, regionIndex(m.sig, start, shape)); err != nil {
			return nil, err
		}
	}
	if mk.DType() != dt {
		var err error
		if mk, err = mk.AsType(dt); err != nil {
			return nil, err
		}
	}
	if m.regions == nil {
		m.regions = map[regionKey]*nd.Array{}
	}
	m.regions[key] = mk
	return mk, nil
}

// gatherCols returns the columns idx of the 2-d array a, contiguous.
func gatherCols(a *nd.Array, idx []int) (*nd.Array, error) {
	k := a.Shape()[0]
	out, err := nd.Zeros(a.DType(), k, len(idx))
	if err != nil {
		return nil, err
	}
	for c, j := range idx {
		col, err := a.Slice(nd.Slice1{Start: 0, Stop: k, Step: 1}, nd.Slice1{Start: j, Stop: j + 1, Step: 1})
		if err != nil {
			return nil, err
		}
		dst, err := out.Slice(nd.Slice1{Start: 0, Stop: k, Step: 1}, nd.Slice1{Start: c, Stop: c + 1, Step: 1})
		if err != nil {
			return nil, err
		}
		if err := nd.Assign(dst, col); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (m *Masks) applySparse(x *nd.Array, start, shape []int, dt nd.DType) (*nd.Array, error) {
	t := x.Shape()[0]
	rsize := x.Shape()[1]
	// local position of each flat sig index inside the region, -1 outside
	var local map[int]int
	whole := isWhole(m.sig, start, shape)
	if !whole {
		idx := regionIndex(m.sig, start, shape)
		local = make(map[int]int, len(idx))
		for i, j := range idx {
			local[j] = i
		}
	}
	vals, err := m.values.AsType(dt)
	if err != nil {
		return nil, err
	}
	out, err := nd.Zeros(dt, t, m.k)
	if err != nil {
		return nil, err
	}
	pos := func(j int) int {
		if whole {
			return j
		}
		if p, ok := local[j]; ok {
			return p
		}
		return -1
	}
	switch dt {
	case nd.Float32:
		csrApply[float32](out, x, vals, m.indptr, m.indices, m.k, t, rsize, pos)
	case nd.Float64:
		csrApply[float64](out, x, vals, m.indptr, m.indices, m.k, t, rsize, pos)
	case nd.Complex64:
		csrApply[complex64](out, x, vals, m.indptr, m.indices, m.k, t, rsize, pos)
	case nd.Complex128:
		csrApply[complex128](out, x, vals, m.indptr, m.indices, m.k, t, rsize, pos)
	default:
		return nil, fmt.Errorf("udfbridge: ApplyMasks: sparse masks in dtype %v (want a float or complex result dtype)", dt)
	}
	return out, nil
}

func csrApply[T float32 | float64 | complex64 | complex128](out, x, vals *nd.Array, indptr, indices []int, k, t, rsize int, pos func(int) int) {
	o := out.Data().([]T)
	xd, _ := nd.Values[T](x)
	v, _ := nd.Values[T](vals)
	for mi := 0; mi < k; mi++ {
		for e := indptr[mi]; e < indptr[mi+1]; e++ {
			p := pos(indices[e])
			if p < 0 {
				continue
			}
			w := v[e]
			for f := 0; f < t; f++ {
				o[f*k+mi] += xd[f*rsize+p] * w
			}
		}
	}
}
