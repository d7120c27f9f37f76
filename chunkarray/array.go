package chunkarray

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tessera-go/tessera/chunkarray/nd"
	"github.com/tessera-go/tessera/graph"
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

// Name returns the Array's name: the prefix of its block keys.
func (a *Array) Name() string { return a.name }

// Shape returns the shape. Do not modify it.
func (a *Array) Shape() []int { return a.shape }

// Chunks returns the chunk lengths along each axis. Do not modify them.
func (a *Array) Chunks() [][]int { return a.chunks }

// DType returns the element type.
func (a *Array) DType() nd.DType { return a.dtype }

// NDim returns the number of axes.
func (a *Array) NDim() int { return len(a.shape) }

// Size returns the number of elements.
func (a *Array) Size() int {
	n := 1
	for _, s := range a.shape {
		n *= s
	}
	return n
}

// Nbytes returns the size in bytes.
func (a *Array) Nbytes() int { return a.Size() * a.dtype.Size() }

// NumBlocks returns the number of blocks along each axis.
func (a *Array) NumBlocks() []int {
	out := make([]int, len(a.chunks))
	for i, c := range a.chunks {
		out[i] = len(c)
	}
	return out
}

// NumTasks returns the number of blocks, the tasks of a's own layer.
func (a *Array) NumTasks() int {
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
	return a.err
}

func (a *Array) String() string {
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
func (a *Array) Key(idx ...int) graph.Key { return graph.BlockKey(a.name, idx...) }

// DefaultChunkBytes is Dask's array.chunk-size default, 128 MiB.
const DefaultChunkBytes = 128 << 20

// NormalizeChunks turns a chunk spec into per-axis chunk lengths for shape.
// spec is one of: nil or "auto" (AutoChunks with DefaultChunkBytes); an int
// for every axis; []int with one entry per axis (-1 for the whole axis);
// [][]int with the explicit lengths per axis. op names the caller in
// errors.
func NormalizeChunks(op string, spec any, shape []int, dt nd.DType) ([][]int, error) {
	bad := func(format string, args ...any) error {
		return &Error{Op: op, Shapes: [][]int{shape}, Reason: "chunks " + fmt.Sprintf(format, args...)}
	}
	for _, s := range shape {
		if s < 0 {
			return nil, &Error{Op: op, Shapes: [][]int{shape}, Reason: "negative dimension"}
		}
	}
	switch s := spec.(type) {
	case nil:
		return AutoChunks(shape, dt, DefaultChunkBytes), nil
	case string:
		if s != "auto" {
			return nil, bad("%q: want \"auto\"", s)
		}
		return AutoChunks(shape, dt, DefaultChunkBytes), nil
	case int:
		per := make([]int, len(shape))
		for i := range per {
			per[i] = s
		}
		return regularChunks(op, per, shape)
	case []int:
		if len(s) != len(shape) {
			return nil, bad("%v: %d entries for %d axes", s, len(s), len(shape))
		}
		return regularChunks(op, s, shape)
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
	return nil, bad("of type %T: want nil, \"auto\", int, []int or [][]int", spec)
}

func regularChunks(op string, per, shape []int) ([][]int, error) {
	out := make([][]int, len(shape))
	for i, n := range shape {
		c := per[i]
		if c == -1 || c > n {
			c = n
		}
		if c <= 0 && n > 0 {
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
	k := (n + c - 1) / c
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
	out := make([][]int, len(shape))
	for i, n := range shape {
		out[i] = splitAxis(n, max(1, per[i]))
	}
	return out
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
