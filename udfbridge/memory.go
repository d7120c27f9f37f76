package udfbridge

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// MemoryDataset is an in-memory dataset (kind "memory"): an nd.Array of
// shape nav+sig. Its Spec carries the array's bytes, so tasks in another
// process rebuild it whole; meant for tests and small data.
type MemoryDataset struct {
	data     *nd.Array
	nav, sig []int
}

var _ Dataset = (*MemoryDataset)(nil)

// NewMemoryDataset views data (shape nav+sig) as a dataset with navDims nav
// dimensions. data is not copied and must not change during a run.
func NewMemoryDataset(data *nd.Array, navDims int) (*MemoryDataset, error) {
	if data == nil {
		return nil, fmt.Errorf("udfbridge: memory dataset: nil array")
	}
	sh := data.Shape()
	if navDims < 1 || navDims >= len(sh) {
		return nil, fmt.Errorf("udfbridge: memory dataset: %d nav dims of shape %v (need at least one nav and one sig dim)", navDims, sh)
	}
	return &MemoryDataset{data: data.Contiguous(), nav: append([]int(nil), sh[:navDims]...), sig: append([]int(nil), sh[navDims:]...)}, nil
}

func (m *MemoryDataset) NavShape() []int  { return append([]int(nil), m.nav...) }
func (m *MemoryDataset) SigShape() []int  { return append([]int(nil), m.sig...) }
func (m *MemoryDataset) DType() nd.DType  { return m.data.DType() }
func (m *MemoryDataset) Array() *nd.Array { return m.data }

// Read returns frames [start, start+n) restricted to a sig region.
func (m *MemoryDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	v, err := m.region(start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	return v.Copy(), nil
}

// TaskReader returns the reader of one partition task: it copies each
// tile into one buffer from the run's free list, reused from tile to tile
// and given back when the task closes the reader, instead of new memory
// per tile. A tile is a copy, not a view of the data, so that a UDF
// writing into its tile cannot change the dataset; it is valid until the
// next Read.
func (m *MemoryDataset) TaskReader() TileReader { return &memReader{m: m} }

var _ TaskReaderDataset = (*MemoryDataset)(nil)

// memReader is MemoryDataset's per-task reader.
type memReader struct {
	m      *MemoryDataset
	buf    listBuf // the tile, from the run's free list
	flat   *nd.Array
	region nd.Array
	sigAll []int // zeros: the sig origin of whole frames
}

func (r *memReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	m := r.m
	N := shapeProd(m.nav)
	if r.flat == nil {
		var err error
		if r.flat, err = m.data.Reshape(append([]int{N}, m.sig...)...); err != nil {
			return nil, err
		}
		r.sigAll = make([]int, len(m.sig))
		r.buf.fl = freelist.FromContext(ctx)
	}
	if sigStart == nil && sigShape == nil {
		sigStart, sigShape = r.sigAll, m.sig
	}
	if err := m.checkRegion(start, n, sigStart, sigShape); err != nil {
		return nil, err
	}
	var sl [16]nd.Slice1
	s := append(sl[:0], nd.Slice1{Start: start, Stop: start + n, Step: 1})
	for i := range sigStart {
		s = append(s, nd.Slice1{Start: sigStart[i], Stop: sigStart[i] + sigShape[i], Step: 1})
	}
	if err := r.region.SetSlice(r.flat, s...); err != nil {
		return nil, err
	}
	t, err := r.buf.get(m.data.DType(), r.region.Shape())
	if err != nil {
		return nil, err
	}
	return t, nd.Assign(t, &r.region)
}

// Close gives the tile buffer back: the last tile is not valid afterwards.
func (r *memReader) Close() error {
	r.buf.release()
	return nil
}

// checkRegion checks frames [start, start+n) and a sig region (both
// given) against the dataset's shape.
func (m *MemoryDataset) checkRegion(start, n int, sigStart, sigShape []int) error {
	N := shapeProd(m.nav)
	if start < 0 || n < 0 || start+n > N {
		return fmt.Errorf("udfbridge: memory dataset: frames [%d, %d) out of range [0, %d)", start, start+n, N)
	}
	if len(sigStart) != len(m.sig) || len(sigShape) != len(m.sig) {
		return fmt.Errorf("udfbridge: memory dataset: sig region %v+%v does not match sig shape %v", sigStart, sigShape, m.sig)
	}
	for i := range m.sig {
		if sigStart[i] < 0 || sigShape[i] < 0 || sigStart[i]+sigShape[i] > m.sig[i] {
			return fmt.Errorf("udfbridge: memory dataset: sig region %v+%v out of sig shape %v", sigStart, sigShape, m.sig)
		}
	}
	return nil
}

// region returns the view of frames [start, start+n) and the sig region.
func (m *MemoryDataset) region(start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	N := shapeProd(m.nav)
	if sigStart == nil && sigShape == nil {
		sigStart, sigShape = make([]int, len(m.sig)), m.sig
	}
	if err := m.checkRegion(start, n, sigStart, sigShape); err != nil {
		return nil, err
	}
	flat, err := m.data.Reshape(append([]int{N}, m.sig...)...)
	if err != nil {
		return nil, err
	}
	v, err := regionView(flat, 1, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	return rowsView(v, start, n)
}

// Spec encodes the array with graph's value codec.
func (m *MemoryDataset) Spec() (DatasetSpec, error) {
	b, err := graph.EncodeValue(nil, []any{int64(len(m.nav)), m.data})
	if err != nil {
		return DatasetSpec{}, err
	}
	return DatasetSpec{Kind: "memory", Params: b}, nil
}

func init() {
	RegisterDatasetKind("memory", func(p []byte) (Dataset, error) {
		v, _, err := graph.DecodeValue(p)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: memory dataset spec: %w", err)
		}
		l, ok := v.([]any)
		if !ok || len(l) != 2 {
			return nil, fmt.Errorf("udfbridge: memory dataset spec: malformed")
		}
		nav, ok1 := l[0].(int64)
		a, ok2 := l[1].(*nd.Array)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("udfbridge: memory dataset spec: malformed")
		}
		return NewMemoryDataset(a, int(nav))
	})
}
