package chunkarray

import (
	"math/bits"
	"sync"

	"github.com/tessera-go/tessera/nd"
)

// Buffers that tasks use only while they run (a fused task's tile
// buffers, a chunk read straight into a fused reduction) come from pools
// per dtype and power-of-two size, so that a computation of many blocks
// allocates (and the kernel zeroes) them once per worker instead of once
// per block. A pooled buffer never leaves the task that took it: results
// are always new memory.

const maxPoolClass = 40 // up to 2^40 elements

var ndPools [int(nd.Complex128) + 1][maxPoolClass + 1]sync.Pool

// getBuf returns a 1-d C-contiguous buffer of dtype d with at least n
// elements (its contents are garbage), and the handle to give back to
// putBuf.
func getBuf(d nd.DType, n int) (*nd.Array, error) {
	c := bits.Len(uint(max(n, 1) - 1))
	if int(d) < 0 || int(d) >= len(ndPools) || c > maxPoolClass {
		return nd.Zeros(d, n)
	}
	if v := ndPools[d][c].Get(); v != nil {
		return v.(*nd.Array), nil
	}
	return nd.Zeros(d, 1<<c)
}

// putBuf gives a buffer from getBuf back; nil is ignored.
func putBuf(b *nd.Array) {
	if b == nil {
		return
	}
	n := b.Size()
	c := bits.Len(uint(max(n, 1) - 1))
	d := b.DType()
	if n != 1<<c || int(d) < 0 || int(d) >= len(ndPools) || c > maxPoolClass {
		return
	}
	ndPools[d][c].Put(b)
}
