package udfbridge

// Per-task reading state: a partition task reads its tiles through a
// reader of its own, so that a dataset stored in blocks (a chunkarray, a
// zarr array) computes or decodes each block once per task rather than
// once per tile. The cache is per task, not global: a global cache would
// be shared state between concurrent tasks (locks, eviction, memory that
// no task owns) and would not travel to another process with the task.

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
)

// A TileReader reads tiles as Dataset.Read does; it may keep state
// between reads and is used by one goroutine.
type TileReader interface {
	Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error)
}

// A TaskReaderDataset is a Dataset that gives each partition task its
// own TileReader (for instance one that keeps the last block it read).
type TaskReaderDataset interface {
	Dataset
	TaskReader() TileReader
}

// A BlockAligner is a Dataset stored in blocks along the flat nav axis:
// FrameBlockStarts returns the sorted flat frame indices where blocks
// begin (nil when blocks do not cut the flat axis into runs). A partition
// task cuts its tiles at these frames, so that no tile straddles two
// blocks.
type BlockAligner interface {
	FrameBlockStarts() []int
}

// NewTaskReader returns the reader a partition task whose last frame is
// end-1 reads ds with: its TaskReader (TaskReaderDataset) told where the
// partition ends when it reads ahead, or ds itself. The conformance suite
// (package udftest) reads through it as a task does; close it when it is
// an io.Closer.
func NewTaskReader(ds Dataset, end int) TileReader {
	rd := taskReader(ds)
	if h, ok := rd.(frameHinter); ok {
		h.hintFrames(end)
	}
	return rd
}

// taskReader returns the reader of one task over ds.
func taskReader(ds Dataset) TileReader {
	if t, ok := ds.(TaskReaderDataset); ok {
		return t.TaskReader()
	}
	return ds
}

// frameBlockStarts returns the flat frame indices where the blocks of an
// array with per-axis block bounds start, when every nav axis but the
// first is whole in each block (nil otherwise).
func frameBlockStarts(nav []int, bounds [][]int) []int {
	rest := 1
	for i := 1; i < len(nav); i++ {
		if len(bounds[i]) != 2 {
			return nil
		}
		rest *= nav[i]
	}
	out := make([]int, 0, len(bounds[0]))
	for _, b := range bounds[0][:len(bounds[0])-1] {
		out = append(out, b*rest)
	}
	return out
}

// blockCache keeps the blocks of the last fetch of one task's reader.
type blockCache struct {
	idx  [][]int
	vals []*nd.Array
}

type fetchFunc func(ctx context.Context, idx [][]int) ([]*nd.Array, error)

// wrap returns fetch answering from the cache the blocks it holds and
// keeping the blocks of this fetch (only: a task walks its frames in
// order, so older blocks are not read again).
func (c *blockCache) wrap(fetch fetchFunc) fetchFunc {
	return func(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
		out := make([]*nd.Array, len(idx))
		var miss [][]int
		var missAt []int
		for i, ix := range idx {
			j := slices.IndexFunc(c.idx, func(x []int) bool { return slices.Equal(x, ix) })
			if j >= 0 {
				out[i] = c.vals[j]
				continue
			}
			miss = append(miss, ix)
			missAt = append(missAt, i)
		}
		if len(miss) > 0 {
			got, err := fetch(ctx, miss)
			if err != nil {
				return nil, err
			}
			for k, i := range missAt {
				if k < len(got) {
					out[i] = got[k]
				}
			}
		}
		c.idx, c.vals = idx, out
		return out, nil
	}
}

// bufCache is blockCache for a dataset that computes a block into memory
// it is given: it keeps the blocks of the last fetch in buffers from the
// run's free list (package freelist, found in the fetch's context), and
// computes a missing block into a buffer that no kept block still uses
// (a larger one taken when it is too small), so that a task walking its
// blocks reuses the same memory. A block it returns is valid until its
// next fetch; release gives every buffer back to the list at the task's
// end, for the next task.
type bufCache struct {
	dt     nd.DType
	bounds [][]int // per axis, the block bounds
	into   func(ctx context.Context, ix []int, dst *nd.Array) error
	// read, when set instead of into, reads block ix into the memory of
	// buf (stored elements, one axis) and returns it: a view of buf, or
	// other memory (a zarr chunk's fill value).
	read   func(ctx context.Context, ix []int, buf *nd.Array) (*nd.Array, error)
	stored int
	fl     *freelist.List // the run's, from the first fetch's context
	idx    [][]int
	vals   []*nd.Array
	bufs   [][]byte // per kept block, its memory
	spare  [][]byte // memory of no kept block
}

func (c *bufCache) fetch(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
	if c.fl == nil {
		c.fl = freelist.FromContext(ctx)
	}
	out := make([]*nd.Array, len(idx))
	outBufs := make([][]byte, len(idx))
	kept := make([]bool, len(c.idx))
	var miss []int
	for i, ix := range idx {
		j := slices.IndexFunc(c.idx, func(x []int) bool { return slices.Equal(x, ix) })
		if j >= 0 && !kept[j] {
			out[i], outBufs[i], kept[j] = c.vals[j], c.bufs[j], true
			continue
		}
		miss = append(miss, i)
	}
	for j, k := range kept {
		if !k && c.bufs[j] != nil {
			c.spare = append(c.spare, c.bufs[j])
		}
	}
	c.idx, c.vals, c.bufs = nil, nil, nil
	fail := func(err error) ([]*nd.Array, error) {
		for _, b := range outBufs {
			if b != nil {
				c.spare = append(c.spare, b)
			}
		}
		return nil, err
	}
	for _, i := range miss {
		shape := make([]int, len(idx[i]))
		for ax, b := range idx[i] {
			if ax >= len(c.bounds) || b < 0 || b+1 >= len(c.bounds[ax]) {
				return fail(fmt.Errorf("udfbridge: block %v outside the dataset's blocks", idx[i]))
			}
			shape[ax] = c.bounds[ax][b+1] - c.bounds[ax][b]
		}
		var v *nd.Array
		var err error
		if c.read != nil {
			buf := c.take(c.stored * c.dt.Size())
			outBufs[i] = buf
			if v, err = nd.ViewBytes(c.dt, buf, c.stored); err == nil {
				v, err = c.read(ctx, idx[i], v)
			}
		} else {
			buf := c.take(dsProd(shape) * c.dt.Size())
			outBufs[i] = buf
			if v, err = nd.ViewBytes(c.dt, buf, shape...); err == nil {
				err = c.into(ctx, idx[i], v)
			}
		}
		if err != nil {
			return fail(err)
		}
		out[i] = v
	}
	c.idx, c.vals, c.bufs = idx, out, outBufs
	return out, nil
}

// take returns the smallest spare buffer of at least n bytes, or one from
// the list (giving a spare that was too small back, so that spares do not
// pile up when blocks grow).
func (c *bufCache) take(n int) []byte {
	best := -1
	for k, b := range c.spare {
		if cap(b) >= n && (best < 0 || cap(b) < cap(c.spare[best])) {
			best = k
		}
	}
	if best < 0 {
		if k := len(c.spare) - 1; k >= 0 {
			c.fl.Put(c.spare[k])
			c.spare = c.spare[:k]
		}
		return c.fl.Get(n)
	}
	b := c.spare[best]
	c.spare = slices.Delete(c.spare, best, best+1)
	return b[:n]
}

// release gives the cache's buffers back to the run's free list; the
// blocks it returned must not be used afterwards.
func (c *bufCache) release() {
	for _, b := range append(c.bufs, c.spare...) {
		if b != nil {
			c.fl.Put(b)
		}
	}
	c.idx, c.vals, c.bufs, c.spare = nil, nil, nil, nil
}

// tileConv converts a task's tiles to the run's input dtype into one
// buffer from the run's free list, reused from tile to tile and given
// back by release at the task's end: the converted tile is valid until
// the next convert, as a tile from a TaskReader is until its next Read.
type tileConv struct {
	dt  nd.DType
	buf listBuf
}

func (c *tileConv) convert(tile *nd.Array) (*nd.Array, error) {
	v, err := c.buf.get(c.dt, tile.Shape())
	if err != nil {
		return nil, err
	}
	if err := nd.AsTypeInto(v, tile); err != nil {
		return nil, err
	}
	return v, nil
}

// release gives the buffer back to the list.
func (c *tileConv) release() { c.buf.release() }

// listBuf is a buffer a task takes from its run's free list (fl; nil:
// plain allocation) and reuses from tile to tile: get returns a view of
// it of a dtype and shape in a header of its own, taking a larger buffer
// only when a tile does not fit, so that a tile costs no allocation.
type listBuf struct {
	fl   *freelist.List
	mem  []byte
	flat *nd.Array // mem as one axis of flat's dtype
	view nd.Array
}

// get returns a C-contiguous array of dtype dt and the given shape over
// the buffer (its contents garbage), valid until the next get or release.
func (b *listBuf) get(dt nd.DType, shape []int) (*nd.Array, error) {
	n, err := nd.SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if b.mem == nil || cap(b.mem) < n*dt.Size() {
		b.fl.Put(b.mem)
		b.mem, b.flat = b.fl.Get(n*dt.Size()), nil
	}
	if b.flat == nil || b.flat.DType() != dt {
		if b.flat, err = nd.ViewBytes(dt, b.mem[:cap(b.mem)], cap(b.mem)/dt.Size()); err != nil {
			return nil, err
		}
	}
	if err := b.view.SetSlice(b.flat, nd.Slice1{Start: 0, Stop: n, Step: 1}); err != nil {
		return nil, err
	}
	if err := b.view.SetReshape(&b.view, shape...); err != nil {
		return nil, err
	}
	return &b.view, nil
}

// release gives the buffer back: nothing get returned may be used
// afterwards.
func (b *listBuf) release() {
	b.fl.Put(b.mem)
	b.mem, b.flat = nil, nil
}
