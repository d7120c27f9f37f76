package chunkarray

import (
	"encoding/binary"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The value codec of *nd.Array: one byte dtype, one flag byte (1: constant,
// every stride zero, then only one element follows), a uvarint axis count,
// uvarint lengths, then raw little-endian C-order bytes. A constant block
// of Ones costs one element on the wire, however large its shape.
func init() {
	graph.RegisterTypeAppend[*nd.Array]("nd.Array", sizeND, appendND, decodeND)
}

// ndConstant reports whether a is one element broadcast: more than one
// element, and a zero stride on every axis longer than one (a stride on a
// length-1 axis never moves).
func ndConstant(a *nd.Array) bool { return a.Size() > 1 && isConst(a) }

// sizeND is the exact length of appendND's payload.
func sizeND(a *nd.Array) (int, error) {
	if a == nil {
		return 0, fmt.Errorf("chunkarray: encode nil nd.Array")
	}
	n := 2 + uvarintLen(uint64(a.NDim()))
	for _, s := range a.Shape() {
		n += uvarintLen(uint64(s))
	}
	if ndConstant(a) {
		return n + a.DType().Size(), nil
	}
	return n + a.Nbytes(), nil
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func appendND(b []byte, a *nd.Array) ([]byte, error) {
	if a == nil {
		return nil, fmt.Errorf("chunkarray: encode nil nd.Array")
	}
	b = append(b, byte(a.DType()))
	constant := ndConstant(a)
	if constant {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(a.NDim()))
	for _, s := range a.Shape() {
		b = binary.AppendUvarint(b, uint64(s))
	}
	if constant {
		one, err := a.Slice(make([]nd.Slice1, 0)...)
		if err != nil {
			return nil, err
		}
		v, err := one.At(make([]int, a.NDim())...)
		if err != nil {
			return nil, err
		}
		s, err := nd.ScalarOf(v)
		if err != nil {
			return nil, err
		}
		return s.AppendBytes(b, false), nil
	}
	return a.AppendBytes(b, false), nil
}

func decodeND(b []byte) (*nd.Array, error) {
	bad := func(what string) (*nd.Array, error) {
		return nil, fmt.Errorf("chunkarray: decode nd.Array: %s", what)
	}
	if len(b) < 3 {
		return bad("truncated header")
	}
	d, flag := nd.DType(b[0]), b[1]
	if !d.Valid() || flag > 1 {
		return bad(fmt.Sprintf("dtype %d, flag %d", b[0], flag))
	}
	b = b[2:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n > 64 {
		return bad("axis count")
	}
	b = b[k:]
	shape := make([]int, n)
	for i := range shape {
		s, k := binary.Uvarint(b)
		if k <= 0 || s > 1<<40 {
			return bad("shape")
		}
		shape[i] = int(s)
		b = b[k:]
	}
	if flag == 1 {
		one, err := nd.FromBytes(d, []int{}, b, false, false)
		if err != nil {
			return nil, err
		}
		v, err := one.At()
		if err != nil {
			return nil, err
		}
		return nd.Full(d, v, shape...)
	}
	return nd.FromBytes(d, shape, b, false, false)
}
