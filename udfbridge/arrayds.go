package udfbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

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

	// The one-block path (readOne): the block of the last such read and
	// the scratch and view headers it reuses from tile to tile.
	ix, lastIx []int
	last       *nd.Array
	flat, tile nd.Array
	flatShape  []int
	sigAll     []int
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
	if v, ok, err := r.readOne(ctx, start, n, sigStart, sigShape); ok || err != nil {
		return v, err
	}
	r.last, r.lastIx = nil, nil // readBlocks' fetch replaces the kept blocks
	return readBlocks(ctx, r.name, r.dt, r.nav, r.sig, r.bounds, start, n, sigStart, sigShape, r.fetch)
}

// readOne answers a read that lies in one block, the case of a partition
// task's tiles (cut at the blocks' starts), with a view of the block in
// the reader's tile header: no allocation while the tiles stay in one
// block (the block is fetched once, and a block that is not C-contiguous,
// a Fortran-ordered zarr chunk, copied once). ok is false for any other
// read, which readBlocks answers (and checks).
func (r *blockReader) readOne(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, bool, error) {
	nnav := len(r.nav)
	if sigStart == nil && sigShape == nil {
		if r.sigAll == nil {
			r.sigAll = make([]int, len(r.sig))
		}
		sigStart, sigShape = r.sigAll, r.sig
	}
	navSize := dsProd(r.nav)
	if n <= 0 || start < 0 || n > navSize-start || len(sigStart) != len(r.sig) || len(sigShape) != len(r.sig) {
		return nil, false, nil
	}
	for i := 1; i < nnav; i++ {
		if len(r.bounds[i]) != 2 { // a block must hold whole rows of the later nav axes
			return nil, false, nil
		}
	}
	blockOf := func(b []int, j int) int {
		i, _ := slices.BinarySearch(b, j+1)
		return i - 1
	}
	rest := navSize / r.nav[0]
	b0 := blockOf(r.bounds[0], start/rest)
	if blockOf(r.bounds[0], (start+n-1)/rest) != b0 {
		return nil, false, nil
	}
	r.ix = append(r.ix[:0], b0)
	for range nnav - 1 {
		r.ix = append(r.ix, 0)
	}
	for i := range r.sig {
		if sigStart[i] < 0 || sigShape[i] <= 0 || sigStart[i]+sigShape[i] > r.sig[i] {
			return nil, false, nil
		}
		b := r.bounds[nnav+i]
		sb := blockOf(b, sigStart[i])
		if blockOf(b, sigStart[i]+sigShape[i]-1) != sb {
			return nil, false, nil
		}
		r.ix = append(r.ix, sb)
	}
	if r.last == nil || !slices.Equal(r.lastIx, r.ix) {
		if ok, err := r.fetchOne(ctx); !ok || err != nil {
			return nil, ok, err
		}
	}
	var buf [16]nd.Slice1
	sl := buf[:0]
	first := r.bounds[0][b0] * rest // flat index of the block's first frame
	sl = append(sl, nd.Slice1{Start: start - first, Stop: start - first + n, Step: 1})
	for i := range sigStart {
		lo := r.bounds[nnav+i][r.ix[nnav+i]]
		sl = append(sl, nd.Slice1{Start: sigStart[i] - lo, Stop: sigStart[i] - lo + sigShape[i], Step: 1})
	}
	if err := r.tile.SetSlice(&r.flat, sl...); err != nil {
		return nil, true, fmt.Errorf("udfbridge: %s: block %v of shape %v: %w", r.name, r.ix, r.last.Shape(), err)
	}
	return &r.tile, true, nil
}

// fetchOne fetches block r.ix into r.last and views it as (rows,)+sig in
// r.flat; ok is false when the block is not what its bounds say (the
// copying path then reports it).
func (r *blockReader) fetchOne(ctx context.Context) (bool, error) {
	ix := slices.Clone(r.ix)
	r.last, r.lastIx = nil, nil
	got, err := r.fetch(ctx, [][]int{ix})
	if err != nil {
		return true, err
	}
	if len(got) != 1 {
		return true, fmt.Errorf("udfbridge: %s: fetched %d blocks, want 1", r.name, len(got))
	}
	b := got[0]
	if b == nil || b.DType() != r.dt {
		return true, fmt.Errorf("udfbridge: %s: block %v is %v, want dtype %v", r.name, ix, b, r.dt)
	}
	bsh := b.Shape()
	if len(bsh) != len(r.bounds) {
		return false, nil
	}
	for i := range r.bounds {
		if bsh[i] != r.bounds[i][ix[i]+1]-r.bounds[i][ix[i]] {
			return false, nil
		}
	}
	if !b.IsCContiguous() {
		b = b.Copy()
	}
	r.flatShape = append(append(r.flatShape[:0], dsProd(bsh[:len(r.nav)])), bsh[len(r.nav):]...)
	if err := r.flat.SetReshape(b, r.flatShape...); err != nil {
		return true, fmt.Errorf("udfbridge: %s: block %v: %w", r.name, ix, err)
	}
	r.last, r.lastIx = b, ix
	return true, nil
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
