package chunkarray

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Array is a lazy chunked n-d array. It is an immutable handle: operations
// return new Arrays and never change their inputs. The zero value is not
// usable; build Arrays with the creation functions.
type Array struct {
	name   string
	shape  []int
	chunks [][]int
	dtype  nd.DType
	err    error
	lay    layer
}

// layer makes the tasks of an Array's blocks.
type layer interface {
	// inputs returns the Arrays this layer's tasks refer to.
	inputs() []*Array
	// block returns the node of block idx of a. It may keep idx.
	block(a *Array, idx []int) graph.Node
}

// Error is the sticky error of an Array: the operation and what was wrong.
type Error struct {
	Op     string
	Shapes [][]int
	Reason string
	Err    error // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("chunkarray: ")
	b.WriteString(e.Op)
	b.WriteString(": ")
	if len(e.Shapes) > 0 {
		b.WriteString("shapes ")
		for i, s := range e.Shapes {
			if i > 0 {
				if i == len(e.Shapes)-1 {
					b.WriteString(" and ")
				} else {
					b.WriteString(", ")
				}
			}
			b.WriteString(nd.FormatShape(s))
		}
		b.WriteString(" ")
	}
	b.WriteString(e.Reason)
	if e.Err != nil && e.Reason == "" {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// errArray returns an Array carrying err.
func errArray(err error) *Array { return &Array{err: err} }

func errorf(op string, shapes [][]int, format string, args ...any) *Array {
	return errArray(&Error{Op: op, Shapes: shapes, Reason: fmt.Sprintf(format, args...)})
}

// Name returns the Array's name: the prefix of its block keys ("" for a
// nil Array).
func (a *Array) Name() string {
	if a == nil {
		return ""
	}
	return a.name
}

// Shape returns the shape (nil for a nil Array); an axis whose length is
// not known until computed is Unknown (-1; see ComputeChunkSizes). Do not
// modify it.
func (a *Array) Shape() []int {
	if a == nil {
		return nil
	}
	return a.shape
}

// Chunks returns the chunk lengths along each axis, Unknown (-1) for one
// not known until computed (Dask's NaN). Do not modify them.
func (a *Array) Chunks() [][]int {
	if a == nil {
		return nil
	}
	return a.chunks
}

// DType returns the element type (nd.Invalid for a nil Array).
func (a *Array) DType() nd.DType {
	if a == nil {
		return nd.Invalid
	}
	return a.dtype
}

// NDim returns the number of axes.
func (a *Array) NDim() int { return len(a.Shape()) }

// Size returns the number of elements, Unknown (-1) when an axis's
// length is.
func (a *Array) Size() int {
	if a == nil {
		return 0
	}
	n := 1
	for _, s := range a.shape {
		if s == Unknown {
			return Unknown // unknown.go
		}
		n *= s
	}
	return n
}

// Nbytes returns the size in bytes.
func (a *Array) Nbytes() int {
	if n := a.Size(); n == Unknown {
		return Unknown
	}
	return a.Size() * a.DType().Size()
}

// NumBlocks returns the number of blocks along each axis.
func (a *Array) NumBlocks() []int {
	if a == nil {
		return nil
	}
	out := make([]int, len(a.chunks))
	for i, c := range a.chunks {
		out[i] = len(c)
	}
	return out
}

// NumTasks returns the number of blocks, the tasks of a's own layer.
func (a *Array) NumTasks() int {
	if a == nil {
		return 0
	}
	n := 1
	for _, c := range a.chunks {
		n *= len(c)
	}
	return n
}

// Err returns the error recorded while a or anything it depends on was
// built; Compute returns it.
func (a *Array) Err() error {
	if a == nil {
		return &Error{Op: "array", Reason: "nil Array"}
	}
	if a.err == nil && a.lay == nil {
		return &Error{Op: "array", Reason: "zero Array: build Arrays with the creation functions (Ones, FromNDArray, …)"}
	}
	return a.err
}

func (a *Array) String() string {
	if a == nil || a.err != nil || a.lay == nil {
		return "chunkarray.Array<error: " + a.Err().Error() + ">"
	}
	if a.err != nil {
		return "chunkarray.Array<error: " + a.err.Error() + ">"
	}
	return fmt.Sprintf("chunkarray.Array<%s, shape=%s, dtype=%s, chunksize=%s, blocks=%d>",
		a.name, nd.FormatShape(a.shape), a.dtype, nd.FormatShape(a.chunkSize()), a.NumTasks())
}

// chunkSize returns the largest chunk along each axis.
func (a *Array) chunkSize() []int {
	out := make([]int, len(a.chunks))
	for i, c := range a.chunks {
		for _, x := range c {
			out[i] = max(out[i], x)
		}
	}
	return out
}

// Key returns the key of block idx.
func (a *Array) Key(idx ...int) graph.Key { return graph.BlockKey(a.Name(), idx...) }

// DefaultChunkBytes is Dask's array.chunk-size default, 128 MiB.
const DefaultChunkBytes = 128 << 20

// NormalizeChunks turns a chunk spec into per-axis chunk lengths for shape.
// spec is one of: nil or "auto" (AutoChunks with DefaultChunkBytes); an int
// for every axis; []int with one entry per axis (-1 for the whole axis);
// [][]int with the explicit lengths per axis; []any with one entry per
// axis, each an int (-1: whole), "auto", nil (whole) or a []int of
// explicit lengths; or a map from axis (negative counts from the end) to
// such an entry, map[int]any or map[int]int, axes left out whole (Dask's
// dict; Rechunk keeps their current chunks instead). The "auto" axes share
// what DefaultChunkBytes leaves once the other axes' largest chunks are
// fixed, square-ish, as AutoChunks. op names the caller in errors.
func NormalizeChunks(op string, spec any, shape []int, dt nd.DType) ([][]int, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: op, Shapes: [][]int{shape}, Reason: "chunks " + fmt.Sprintf(format, args...)}
	}
	for _, s := range shape {
		if s < 0 {
			return nil, &Error{Op: op, Shapes: [][]int{shape}, Reason: "negative dimension"}
		}
	}
	if n, err := nd.SizeOf(shape); err != nil || (dt.Size() > 0 && n > math.MaxInt/dt.Size()) {
		return nil, &Error{Op: op, Shapes: [][]int{shape}, Reason: "array is too big: its size in bytes overflows int"}
	}
	out, err := normalizeChunks(op, spec, shape, dt, bad)
	if err != nil {
		return nil, err
	}
	nb := 1
	for _, c := range out {
		nb *= len(c)
		if nb > MaxBlocks {
			break
		}
	}
	if nb > MaxBlocks {
		return nil, bad("%s: more than %d blocks", chunkSpecString(spec), MaxBlocks)
	}
	return out, nil
}

// MaxBlocks bounds the number of blocks of one Array: a chunk spec that
// would cut an array into more blocks is an error rather than a graph too
// big to hold.
const MaxBlocks = 1 << 26

// chunkSpecString shows a chunk spec briefly in errors.
func chunkSpecString(spec any) string {
	s := fmt.Sprint(spec)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// regularBlocks returns the number of blocks per[i]-long chunks cut shape
// into, or MaxBlocks+1 when that is more than MaxBlocks (without
// allocating anything).
func regularBlocks(per, shape []int) int {
	nb := 1
	for i, n := range shape {
		c := per[i]
		if c == -1 || c > n {
			c = n
		}
		if c <= 0 || n == 0 {
			continue // an error or one empty chunk: regularChunks decides
		}
		k := (n-1)/c + 1
		if k > MaxBlocks || nb > MaxBlocks/k {
			return MaxBlocks + 1
		}
		nb *= k
	}
	return nb
}

func normalizeChunks(op string, spec any, shape []int, dt nd.DType, bad func(string, ...any) error) ([][]int, error) {
	auto := func() ([][]int, error) {
		if regularBlocks(autoLengths(shape, dt, DefaultChunkBytes), shape) > MaxBlocks {
			return nil, bad("auto: more than %d blocks of %d bytes", MaxBlocks, DefaultChunkBytes)
		}
		return AutoChunks(shape, dt, DefaultChunkBytes), nil
	}
	switch s := spec.(type) {
	case nil:
		return auto()
	case string:
		if s != "auto" {
			return nil, bad("%q: want \"auto\"", s)
		}
		return auto()
	case int:
		per := make([]int, len(shape))
		for i := range per {
			per[i] = s
		}
		if regularBlocks(per, shape) > MaxBlocks {
			return nil, bad("%d: more than %d blocks", s, MaxBlocks)
		}
		return regularChunks(op, per, shape)
	case []int:
		if len(s) != len(shape) {
			return nil, bad("%v: %d entries for %d axes", s, len(s), len(shape))
		}
		if regularBlocks(s, shape) > MaxBlocks {
			return nil, bad("%v: more than %d blocks", s, MaxBlocks)
		}
		return regularChunks(op, s, shape)
	case []any:
		if len(s) != len(shape) {
			return nil, bad("%v: %d entries for %d axes", s, len(s), len(shape))
		}
		return perAxisChunks(s, shape, dt, bad)
	case map[int]any, map[int]int:
		per, err := axisMap(s, len(shape), nil, bad)
		if err != nil {
			return nil, err
		}
		return perAxisChunks(per, shape, dt, bad)
	case [][]int:
		if len(s) != len(shape) {
			return nil, bad("%v: %d entries for %d axes", s, len(s), len(shape))
		}
		out := make([][]int, len(s))
		for i, c := range s {
			sum := 0
			for _, x := range c {
				if x < 0 {
					return nil, bad("%v: negative length on axis %d", s, i)
				}
				sum += x
			}
			if sum != shape[i] {
				return nil, bad("%v: axis %d sums to %d, not %d", s, i, sum, shape[i])
			}
			if len(c) == 0 {
				c = []int{0}
			}
			out[i] = slices.Clone(c)
		}
		return out, nil
	}
	return nil, bad("of type %T: want nil, \"auto\", int, []int, [][]int, []any or map[int]any", spec)
}

// axisMap turns a map from axes (negative from the end) to per-axis
// entries into one entry per axis of an ndim-axis array; an axis left out
// (or mapped to nil) gets keep's chunks when keep is not nil (Rechunk's
// current ones), else nil (the whole axis).
func axisMap(m any, ndim int, keep [][]int, bad func(string, ...any) error) ([]any, error) {
	per := make([]any, ndim)
	set := make([]bool, ndim)
	put := func(ax int, v any) error {
		a := ax
		if a < 0 {
			a += ndim
		}
		if a < 0 || a >= ndim {
			return bad("%v: axis %d is out of bounds for %d axes", m, ax, ndim)
		}
		if set[a] {
			return bad("%v: axis %d is given twice", m, a)
		}
		per[a], set[a] = v, true
		return nil
	}
	switch mm := m.(type) {
	case map[int]any:
		for ax, v := range mm {
			if err := put(ax, v); err != nil {
				return nil, err
			}
		}
	case map[int]int:
		for ax, v := range mm {
			if err := put(ax, v); err != nil {
				return nil, err
			}
		}
	}
	if keep != nil {
		for i := range per {
			if per[i] == nil {
				per[i] = keep[i]
			}
		}
	}
	return per, nil
}

// perAxisChunks normalizes one entry per axis (see NormalizeChunks'
// []any): ints, nil and explicit lengths first, then the "auto" axes
// sized for what DefaultChunkBytes leaves beside the others' largest
// chunks.
func perAxisChunks(per []any, shape []int, dt nd.DType, bad func(string, ...any) error) ([][]int, error) {
	out := make([][]int, len(shape))
	var autoAx []int
	fixed := 1 // the product of the other axes' largest chunks
	for ax, e := range per {
		n := shape[ax]
		switch v := e.(type) {
		case nil:
			out[ax] = splitAxis(n, max(n, 1))
		case string:
			if v != "auto" {
				return nil, bad("%v: axis %d: %q: want \"auto\"", per, ax, v)
			}
			autoAx = append(autoAx, ax)
			continue
		case int:
			c := v
			if c == -1 || c > n {
				c = n
			}
			if v < -1 || (c <= 0 && n > 0) {
				return nil, bad("%v: length %d on axis %d", per, v, ax)
			}
			if n > 0 && (n-1)/c+1 > MaxBlocks {
				return nil, bad("%v: axis %d: more than %d blocks", per, ax, MaxBlocks)
			}
			out[ax] = splitAxis(n, max(c, 1))
		case []int:
			sum := 0
			for _, x := range v {
				if x < 0 {
					return nil, bad("%v: negative length on axis %d", per, ax)
				}
				sum += x
			}
			if sum != n {
				return nil, bad("%v: axis %d sums to %d, not %d", per, ax, sum, n)
			}
			out[ax] = slices.Clone(v)
			if len(v) == 0 {
				out[ax] = []int{0}
			}
		default:
			return nil, bad("%v: axis %d: entry of type %T: want an int, \"auto\", nil or []int", per, ax, e)
		}
		fixed = satMul(fixed, max(maxOf(out[ax]), 1))
	}
	if len(autoAx) > 0 {
		sub := make([]int, len(autoAx))
		for i, ax := range autoAx {
			sub[i] = shape[ax]
		}
		lens := autoLengths(sub, dt, max(1, DefaultChunkBytes/fixed))
		if regularBlocks(lens, sub) > MaxBlocks {
			return nil, bad("%v: auto: more than %d blocks", per, MaxBlocks)
		}
		for i, ax := range autoAx {
			out[ax] = splitAxis(shape[ax], lens[i])
		}
	}
	return out, nil
}

// satMul is a*b for positive a and b, saturating at math.MaxInt.
func satMul(a, b int) int {
	if a > math.MaxInt/b {
		return math.MaxInt
	}
	return a * b
}

func regularChunks(op string, per, shape []int) ([][]int, error) {
	out := make([][]int, len(shape))
	for i, n := range shape {
		c := per[i]
		if c == -1 || c > n {
			c = n
		}
		if per[i] < -1 || (c <= 0 && n > 0) {
			return nil, &Error{Op: op, Shapes: [][]int{shape}, Reason: fmt.Sprintf("chunks %v: length %d on axis %d", per, per[i], i)}
		}
		out[i] = splitAxis(n, c)
	}
	return out, nil
}

// splitAxis cuts n into chunks of c, the last one shorter. An empty axis
// has one empty chunk, as in Dask.
func splitAxis(n, c int) []int {
	if n == 0 {
		return []int{0}
	}
	k := (n-1)/c + 1 // not (n+c-1)/c, which overflows for huge n and c
	out := make([]int, k)
	for i := range out {
		out[i] = c
	}
	out[k-1] = n - c*(k-1)
	return out
}

// AutoChunks returns chunks of about targetBytes for shape and dt, as
// square-ish as the shape allows: every axis gets the same chunk length,
// except axes shorter than it, which stay whole (their slack goes to the
// others).
func AutoChunks(shape []int, dt nd.DType, targetBytes int) [][]int {
	per := autoLengths(shape, dt, targetBytes)
	out := make([][]int, len(shape))
	for i, n := range shape {
		out[i] = splitAxis(n, per[i])
	}
	return out
}

// autoLengths returns AutoChunks' chunk length per axis (at least 1).
func autoLengths(shape []int, dt nd.DType, targetBytes int) []int {
	elems := max(1, targetBytes/max(1, dt.Size()))
	per := make([]int, len(shape))
	free := []int{} // axes not yet fixed
	budget := float64(elems)
	for i := range shape {
		free = append(free, i)
	}
	for {
		if len(free) == 0 {
			break
		}
		side := math.Pow(budget, 1/float64(len(free)))
		fixed := false
		rest := free[:0:0]
		for _, ax := range free {
			if float64(shape[ax]) <= side {
				per[ax] = max(shape[ax], 1)
				budget /= float64(max(shape[ax], 1))
				fixed = true
			} else {
				rest = append(rest, ax)
			}
		}
		free = rest
		if !fixed {
			for _, ax := range free {
				per[ax] = max(1, int(side))
			}
			break
		}
	}
	for i := range per {
		per[i] = max(1, per[i])
	}
	return per
}

// starts returns the offsets at which the chunks of c begin.
func starts(c []int) []int {
	out := make([]int, len(c))
	s := 0
	for i, x := range c {
		out[i] = s
		s += x
	}
	return out
}

// blockShape returns the shape of block idx.
func (a *Array) blockShape(idx []int) []int {
	out := make([]int, len(idx))
	for i, b := range idx {
		out[i] = a.chunks[i][b]
	}
	return out
}

// blockStart returns the offsets of block idx's first element.
func (a *Array) blockStart(idx []int) []int {
	out := make([]int, len(idx))
	for i, b := range idx {
		s := 0
		for _, x := range a.chunks[i][:b] {
			s += x
		}
		out[i] = s
	}
	return out
}

// forBlocks calls fn with every block index of a in C order; idx is reused.
func forBlocks(nb []int, fn func(idx []int)) {
	for _, n := range nb {
		if n == 0 {
			return
		}
	}
	idx := make([]int, len(nb))
	for {
		fn(idx)
		ax := len(nb) - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < nb[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return
		}
	}
}

// newArray builds an Array over lay, named prefix-token(parts).
func newArray(prefix string, shape []int, chunks [][]int, dt nd.DType, lay layer, parts ...any) *Array {
	for _, in := range lay.inputs() {
		if in.err != nil {
			return errArray(in.err)
		}
	}
	tok, err := graph.Tokenize(append([]any{prefix}, parts...)...)
	if err != nil {
		tok = graph.ImpureToken()
	}
	return &Array{name: prefix + "-" + tok, shape: shape, chunks: chunks, dtype: dt, lay: lay}
}
