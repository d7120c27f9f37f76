package udfbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr"
)

// KindZarr is the dataset kind of zarr arrays (OpenZarr).
const KindZarr = "zarr"

func init() {
	RegisterDatasetKind(KindZarr, func(params []byte) (Dataset, error) {
		var p sigDimsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: zarr dataset parameters: %w", err)
		}
		return OpenZarr(p.Path, p.SigDims)
	})
}

type sigDimsParams struct {
	Path    string `json:"path"`
	SigDims int    `json:"sig_dims"`
}

// ZarrDataset is a zarr array (v2 or v3) whose last sigDims axes are the
// sig. Read decodes only the chunks the requested frames and sig region
// touch, each once per Read.
type ZarrDataset struct {
	z        *zarr.Array
	path     string
	sigDims  int
	nav, sig []int
	bounds   [][]int // chunk boundaries per axis
}

var _ Dataset = (*ZarrDataset)(nil)

// maxZarrBounds bounds the chunks along the axes of a zarr dataset, added
// over the axes (1M: a table of 8 MiB). A grid that fine is 1M chunk
// files along one axis, which no real dataset has.
const maxZarrBounds = 1 << 20

// OpenZarr opens the zarr array at path (its metadata only); the last
// sigDims axes are the sig, the others the nav.
func OpenZarr(path string, sigDims int) (*ZarrDataset, error) {
	if err := graph.CheckPath("udfbridge.open-zarr", path); err != nil {
		return nil, &DatasetError{Kind: KindZarr, Path: path, Reason: "refused", Err: err}
	}
	z, err := zarr.Open(path)
	if err != nil {
		return nil, &DatasetError{Kind: KindZarr, Path: path, Reason: "open", Err: err}
	}
	shape := z.Shape()
	nav, sig, err := splitNavSig("zarr array "+path, shape, sigDims)
	if err != nil {
		return nil, err
	}
	// The boundary table has one int per chunk along each axis: checked
	// before it is built, as the metadata alone sets it (shape (0, 2^40)
	// in chunks of 1 is a valid empty array of 2^40 chunks along axis 1).
	total := 0
	for _, k := range z.NumChunks() {
		total += k // a sum that wraps goes negative
		if total > maxZarrBounds || total < 0 {
			return nil, &DatasetError{Kind: KindZarr, Path: path, Reason: fmt.Sprintf("chunk grid %v of shape %v in chunks %v has more than %d chunks along its axes together", z.NumChunks(), shape, z.Chunks(), maxZarrBounds)}
		}
	}
	bounds := make([][]int, len(shape))
	for i, s := range shape {
		c := z.Chunks()[i]
		b := []int{0}
		for x := c; x < s; x += c {
			b = append(b, x)
		}
		bounds[i] = append(b, s)
	}
	return &ZarrDataset{z: z, path: path, sigDims: sigDims, nav: nav, sig: sig, bounds: bounds}, nil
}

func (d *ZarrDataset) NavShape() []int { return dsClone(d.nav) }
func (d *ZarrDataset) SigShape() []int { return dsClone(d.sig) }
func (d *ZarrDataset) DType() nd.DType { return d.z.DType() }
func (d *ZarrDataset) String() string  { return "zarr array " + d.path }

func (d *ZarrDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(sigDimsParams{Path: d.path, SigDims: d.sigDims})
	return DatasetSpec{Kind: KindZarr, Params: b}, err
}

func (d *ZarrDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	return readBlocks(ctx, d.String(), d.z.DType(), d.nav, d.sig, d.bounds, start, n, sigStart, sigShape, d.fetch)
}

// TaskReader returns a reader that decodes each chunk once while the
// task's tiles lie in it, into buffers from the run's free list that the
// reader reuses from chunk to chunk (the compressed bytes too, through a
// zarr.Scratch) and gives back when the task closes it: a tile is valid
// until the next Read or Close.
func (d *ZarrDataset) TaskReader() TileReader {
	zs := &zarr.Scratch{}
	read := func(ctx context.Context, ix []int, buf *nd.Array) (*nd.Array, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		zs.Buffers = freelist.FromContext(ctx)
		c, err := d.z.ReadChunkWith(ix, buf, zs)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: zarr dataset: %w", err)
		}
		return c, nil
	}
	c := &bufCache{dt: d.z.DType(), bounds: d.bounds, read: read, stored: d.z.StoredChunkSize()}
	return &blockReader{name: d.String(), dt: d.z.DType(), nav: d.nav, sig: d.sig, bounds: d.bounds, fetch: c.fetch, release: c.release}
}

// FrameBlockStarts returns the flat frames where the chunks begin (nil
// when a chunk does not hold whole rows of the nav axes).
func (d *ZarrDataset) FrameBlockStarts() []int { return frameBlockStarts(d.nav, d.bounds) }

// fetch decodes the chunks idx.
func (d *ZarrDataset) fetch(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
	out := make([]*nd.Array, len(idx))
	for i, ix := range idx {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := d.z.ReadChunk(ix)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: zarr dataset: %w", err)
		}
		out[i] = c
	}
	return out, nil
}

func splitNavSig(name string, shape []int, sigDims int) (nav, sig []int, err error) {
	if sigDims < 0 || sigDims >= len(shape) {
		return nil, nil, fmt.Errorf("udfbridge: %s of shape %v: sig dims %d leave no nav axis", name, shape, sigDims)
	}
	nav, sig = dsClone(shape[:len(shape)-sigDims]), dsClone(shape[len(shape)-sigDims:])
	return nav, sig, checkShapes(name, nav, sig)
}

// readBlocks answers a Read from an array stored in blocks: bounds are the
// block boundaries per axis (nav axes then sig axes); fetch returns the
// blocks of the given block indices, in order, all at once (so that a
// chunkarray computes them in one graph). Only the blocks that frames
// [start, start+n) and the sig region touch are fetched.
func readBlocks(ctx context.Context, name string, dt nd.DType, nav, sig []int, bounds [][]int,
	start, n int, sigStart, sigShape []int,
	fetch fetchFunc) (*nd.Array, error) {
	sigStart, sigShape, err := checkRead(name, dsProd(nav), sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	outShape := append([]int{n}, sigShape...)
	if dsProd(outShape) == 0 {
		return nd.Zeros(dt, outShape...)
	}
	// Block of each index along each nav axis.
	blockOf := func(b []int, j int) int {
		i, _ := slices.BinarySearch(b, j+1)
		return i - 1
	}
	// Sig blocks touched: per sig axis, the range of block indices.
	sigBlocks := make([][2]int, len(sig))
	for i := range sig {
		b := bounds[len(nav)+i]
		sigBlocks[i] = [2]int{blockOf(b, sigStart[i]), blockOf(b, sigStart[i]+sigShape[i]-1) + 1}
	}
	var sigTuples [][]int
	var rec func(i int, cur []int)
	rec = func(i int, cur []int) {
		if i == len(sig) {
			sigTuples = append(sigTuples, dsClone(cur))
			return
		}
		for j := sigBlocks[i][0]; j < sigBlocks[i][1]; j++ {
			rec(i+1, append(cur, j))
		}
	}
	rec(0, nil)
	// Frames and their nav blocks.
	type frame struct{ nav, blk []int }
	frames := make([]frame, n)
	var blocks [][]int
	seen := map[string]int{}
	key := func(ix []int) string { return fmt.Sprint(ix) }
	navIdx := make([]int, len(nav))
	for k := range n {
		f := start + k
		for i := len(nav) - 1; i >= 0; i-- {
			navIdx[i] = f % nav[i]
			f /= nav[i]
		}
		blk := make([]int, len(nav))
		for i := range nav {
			blk[i] = blockOf(bounds[i], navIdx[i])
		}
		frames[k] = frame{nav: dsClone(navIdx), blk: blk}
		if _, ok := seen[key(blk)]; !ok {
			seen[key(blk)] = -1
			for _, st := range sigTuples {
				blocks = append(blocks, append(dsClone(blk), st...))
			}
		}
	}
	for i, b := range blocks {
		seen[key(b)] = i
	}
	got, err := fetch(ctx, blocks)
	if err != nil {
		return nil, err
	}
	if len(got) != len(blocks) {
		return nil, fmt.Errorf("udfbridge: %s: fetched %d blocks, want %d", name, len(got), len(blocks))
	}
	if len(got) == 1 {
		if v, ok, err := oneBlockView(name, dt, nav, bounds, frames[0].blk, got[0], blocks[0], start, n, sigStart, sigShape); ok || err != nil {
			return v, err
		}
	}
	item := dt.Size()
	buf := make([]byte, dsProd(outShape)*item)
	for k, fr := range frames {
		for _, st := range sigTuples {
			bi := append(dsClone(fr.blk), st...)
			b := got[seen[key(bi)]]
			if b == nil || b.DType() != dt {
				return nil, fmt.Errorf("udfbridge: %s: block %v is %v, want dtype %v", name, bi, b, dt)
			}
			// Block-relative nav position.
			v := b
			for i := range nav {
				v, err = v.Index(0, fr.nav[i]-bounds[i][fr.blk[i]])
				if err != nil {
					return nil, fmt.Errorf("udfbridge: %s: block %v: %w", name, bi, err)
				}
			}
			sl := make([]nd.Slice1, len(sig))
			dstSt := []int{k}
			dstSh := []int{1}
			for i := range sig {
				lo := bounds[len(nav)+i][st[i]]
				hi := bounds[len(nav)+i][st[i]+1]
				a, z := max(lo, sigStart[i]), min(hi, sigStart[i]+sigShape[i])
				sl[i] = nd.Slice1{Start: a - lo, Stop: z - lo, Step: 1}
				dstSt = append(dstSt, a-sigStart[i])
				dstSh = append(dstSh, z-a)
			}
			v, err = v.Slice(sl...)
			if err != nil {
				return nil, fmt.Errorf("udfbridge: %s: block %v of shape %v: %w", name, bi, b.Shape(), err)
			}
			src := v.Contiguous().AppendBytes(nil, false)
			if err := regionRuns(outShape, dstSt, dstSh, item, func(pos int, off int64, run int) error {
				copy(buf[off:off+int64(run)], src[pos:pos+run])
				return nil
			}); err != nil {
				return nil, err
			}
		}
	}
	return nd.FromBytes(dt, outShape, buf, false, false)
}

// oneBlockView answers a read that lies in one block b (block index bi,
// nav block index blk) with a view of b, no copy: the frames
// [start, start+n) are consecutive rows of b when every nav axis but the
// first is whole in the block. ok is false when the block's nav layout
// does not allow a view (the caller copies). Like the memory dataset's
// reads, the tile shares memory with the block: tiles of one task are
// disjoint regions of it, so a UDF writing into its tile (LiberTEM's
// tiles are writable) changes no other tile.
func oneBlockView(name string, dt nd.DType, nav []int, bounds [][]int, blk []int, b *nd.Array, bi []int,
	start, n int, sigStart, sigShape []int) (*nd.Array, bool, error) {
	if b == nil || b.DType() != dt {
		return nil, false, fmt.Errorf("udfbridge: %s: block %v is %v, want dtype %v", name, bi, b, dt)
	}
	bsh := b.Shape()
	if len(bsh) != len(bounds) {
		return nil, false, nil // the copying path says what is wrong
	}
	for i := range bounds {
		if bsh[i] != bounds[i][bi[i]+1]-bounds[i][bi[i]] {
			return nil, false, nil
		}
	}
	first := 0 // flat index of the block's first frame
	for i := range nav {
		if i > 0 && bsh[i] != nav[i] {
			return nil, false, nil
		}
		first = first*nav[i] + bounds[i][blk[i]]
	}
	rows := dsProd(bsh[:len(nav)])
	flat, err := b.Contiguous().Reshape(append([]int{rows}, bsh[len(nav):]...)...)
	if err != nil {
		return nil, false, fmt.Errorf("udfbridge: %s: block %v: %w", name, bi, err)
	}
	sl := make([]nd.Slice1, 1+len(sigStart))
	sl[0] = nd.Slice1{Start: start - first, Stop: start - first + n, Step: 1}
	for i := range sigStart {
		lo := bounds[len(nav)+i][bi[len(nav)+i]]
		sl[1+i] = nd.Slice1{Start: sigStart[i] - lo, Stop: sigStart[i] - lo + sigShape[i], Step: 1}
	}
	v, err := flat.Slice(sl...)
	if err != nil {
		return nil, false, fmt.Errorf("udfbridge: %s: block %v of shape %v: %w", name, bi, bsh, err)
	}
	return v, true, nil
}
