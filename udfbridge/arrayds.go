package udfbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
)

// KindChunkArray is the dataset kind of lazy chunked arrays
// (FromChunkArray), LiberTEM's load('dask', …).
const KindChunkArray = "chunkarray"

func init() {
	RegisterDatasetKind(KindChunkArray, func(params []byte) (Dataset, error) {
		var p arrayParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: chunkarray dataset parameters: %w", err)
		}
		dt, _, err := nd.ParseDType(p.DType)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: chunkarray dataset %s: %w", p.Name, err)
		}
		g, err := graph.ReadJSON(bytesReader(p.Graph))
		if err != nil {
			return nil, fmt.Errorf("udfbridge: chunkarray dataset %s: %w", p.Name, err)
		}
		return newArrayDataset(g, p.Name, p.Shape, p.Chunks, dt, p.SigDims)
	})
}

type arrayParams struct {
	Name    string          `json:"name"`
	Shape   []int           `json:"shape"`
	Chunks  [][]int         `json:"chunks"`
	DType   string          `json:"dtype"`
	SigDims int             `json:"sig_dims"`
	Graph   json.RawMessage `json:"graph"`
}

// ArrayDataset is a lazy chunkarray.Array seen as a dataset: its last
// sigDims axes are the sig. It holds the array's graph (built once, fused
// as Compute fuses it); Read computes only the blocks that the requested
// frames and sig region touch, on the dataset's scheduler (sched.Sync by
// default: a Read runs inside a partition task, whose run already keeps the
// cores busy).
//
// Its Spec carries the graph itself (JSON), so that a task in another
// process recomputes the blocks it needs; a graph with values that do not
// encode (unregistered types) has no Spec.
type ArrayDataset struct {
	g        *graph.Graph
	name     string
	shape    []int
	chunks   [][]int
	dt       nd.DType
	sigDims  int
	nav, sig []int
	bounds   [][]int
	Sched    sched.Scheduler // nil: sched.Sync{}
}

var _ Dataset = (*ArrayDataset)(nil)

// FromChunkArray returns a as a dataset whose last sigDims axes are the
// sig. An array with a sticky error returns that error.
func FromChunkArray(a *chunkarray.Array, sigDims int) (*ArrayDataset, error) {
	if a == nil {
		return nil, fmt.Errorf("udfbridge: FromChunkArray: nil array")
	}
	if err := a.Err(); err != nil {
		return nil, fmt.Errorf("udfbridge: FromChunkArray: %w", err)
	}
	g, _, err := chunkarray.BuildGraph([]*chunkarray.Array{a})
	if err != nil {
		return nil, fmt.Errorf("udfbridge: FromChunkArray %s: %w", a.Name(), err)
	}
	return newArrayDataset(g, a.Name(), a.Shape(), a.Chunks(), a.DType(), sigDims)
}

func newArrayDataset(g *graph.Graph, name string, shape []int, chunks [][]int, dt nd.DType, sigDims int) (*ArrayDataset, error) {
	label := "chunkarray " + name
	nav, sig, err := splitNavSig(label, shape, sigDims)
	if err != nil {
		return nil, err
	}
	if len(chunks) != len(shape) {
		return nil, fmt.Errorf("udfbridge: %s: chunks %v do not match shape %v", label, chunks, shape)
	}
	bounds := make([][]int, len(shape))
	for i, cs := range chunks {
		b := []int{0}
		for _, c := range cs {
			b = append(b, b[len(b)-1]+c)
		}
		if b[len(b)-1] != shape[i] {
			return nil, fmt.Errorf("udfbridge: %s: chunks %v do not match shape %v", label, chunks, shape)
		}
		bounds[i] = b
	}
	return &ArrayDataset{g: g, name: name, shape: dsClone(shape), chunks: chunks, dt: dt, sigDims: sigDims, nav: nav, sig: sig, bounds: bounds}, nil
}

func (d *ArrayDataset) NavShape() []int { return dsClone(d.nav) }
func (d *ArrayDataset) SigShape() []int { return dsClone(d.sig) }
func (d *ArrayDataset) DType() nd.DType { return d.dt }
func (d *ArrayDataset) String() string  { return "chunkarray " + d.name }

func (d *ArrayDataset) Spec() (DatasetSpec, error) {
	gj, err := d.g.MarshalJSON()
	if err != nil {
		return DatasetSpec{}, fmt.Errorf("udfbridge: %s: graph does not encode: %w", d, err)
	}
	b, err := json.Marshal(arrayParams{Name: d.name, Shape: d.shape, Chunks: d.chunks, DType: d.dt.Descr(), SigDims: d.sigDims, Graph: gj})
	return DatasetSpec{Kind: KindChunkArray, Params: b}, err
}

func (d *ArrayDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	return readBlocks(ctx, d.String(), d.dt, d.nav, d.sig, d.bounds, start, n, sigStart, sigShape, d.fetch)
}

// TaskReader returns a reader that computes each block once while the
// task's tiles lie in it (the default tile is smaller than a block), into
// buffers the reader keeps and reuses from block to block
// (chunkarray.ComputeKeyInto) and, when the task closes it, hands on to
// the next task's reader: block memory is allocated once per worker, not
// once per block, and a tile is valid until the next Read or Close.
func (d *ArrayDataset) TaskReader() TileReader {
	c := &bufCache{dt: d.dt, bounds: d.bounds, into: d.fetchInto}
	return &blockReader{name: d.String(), dt: d.dt, nav: d.nav, sig: d.sig, bounds: d.bounds, fetch: c.fetch, release: c.release}
}

// fetchInto computes block ix into dst.
func (d *ArrayDataset) fetchInto(ctx context.Context, ix []int, dst *nd.Array) error {
	s := d.Sched
	if s == nil {
		s = sched.Sync{}
	}
	if err := chunkarray.ComputeKeyInto(ctx, d.g, graph.BlockKey(d.name, ix...), dst, s); err != nil {
		return fmt.Errorf("udfbridge: %s: block %v: %w", d, ix, err)
	}
	return nil
}

// FrameBlockStarts returns the flat frames where the array's blocks
// begin (nil when a block does not hold whole rows of the nav axes).
func (d *ArrayDataset) FrameBlockStarts() []int { return frameBlockStarts(d.nav, d.bounds) }

// blockReader is the per-task reader of a dataset stored in blocks.
type blockReader struct {
	name     string
	dt       nd.DType
	nav, sig []int
	bounds   [][]int
	fetch    fetchFunc
	release  func() // at the task's end (Close); nil: nothing to release
}

// Close gives the reader's block memory to the next task: the tiles it
// returned are not valid afterwards.
func (r *blockReader) Close() error {
	if r.release != nil {
		r.release()
		r.release = nil
	}
	return nil
}

func (r *blockReader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	return readBlocks(ctx, r.name, r.dt, r.nav, r.sig, r.bounds, start, n, sigStart, sigShape, r.fetch)
}

// fetch computes the blocks idx in one graph.
func (d *ArrayDataset) fetch(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
	if len(idx) == 0 {
		return nil, nil
	}
	keys := make([]graph.Key, len(idx))
	for i, ix := range idx {
		keys[i] = graph.BlockKey(d.name, ix...)
	}
	g, _, err := optimize.Cull(d.g, keys)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: %s: %w", d, err)
	}
	s := d.Sched
	if s == nil {
		s = sched.Sync{}
	}
	vals, err := s.Get(ctx, g, keys)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: %s: %w", d, err)
	}
	out := make([]*nd.Array, len(vals))
	for i, v := range vals {
		a, ok := v.(*nd.Array)
		if !ok {
			return nil, fmt.Errorf("udfbridge: %s: block %v is %T, not an array", d, idx[i], v)
		}
		out[i] = a
	}
	return out, nil
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
