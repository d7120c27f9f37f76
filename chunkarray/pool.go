package chunkarray

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
)

// Buffers that tasks use only while they run (a fused task's tile
// buffers, a chunk read straight into a fused reduction) come from the
// run's free list (package freelist: sched gives every task one in its
// context), so that a computation of many blocks allocates them about
// once per worker instead of once per block, whatever the garbage
// collector does. A task takes them through a taskBufs and gives them all
// back when it ends. A buffer never leaves the task that took it:
// results are always new memory.
//
// Rejected: a sync.Pool per dtype and power of two (the first version).
// Every collection empties a sync.Pool, and a task that then allocates a
// fresh block triggers the next one; see package freelist.

// taskBufs is the buffers one task took from its run's free list (nil:
// plain allocation).
type taskBufs struct {
	fl   *freelist.List
	held [][]byte
}

// get returns a C-contiguous buffer of dtype d and the given shape from
// the list; its contents are garbage. It stays the task's until release.
func (t *taskBufs) get(d nd.DType, shape ...int) (*nd.Array, error) {
	n, err := nd.SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if !d.Valid() || n > math.MaxInt/d.Size() {
		return nil, fmt.Errorf("chunkarray: a %v buffer of shape %v", d, shape)
	}
	b := t.fl.Get(n * d.Size())
	t.held = append(t.held, b)
	return nd.ViewBytes(d, b, shape...)
}

// bytes returns n bytes from the list, the task's until release.
func (t *taskBufs) bytes(n int) []byte {
	b := t.fl.Get(n)
	t.held = append(t.held, b)
	return b
}

// release gives every buffer back; nothing taken from get may be used
// afterwards unless it was copied.
func (t *taskBufs) release() {
	for i, b := range t.held {
		t.fl.Put(b)
		t.held[i] = nil
	}
	t.held = t.held[:0]
}
