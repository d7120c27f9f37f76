package udfbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
)

// KindHDF5 is the dataset kind of HDF5 datasets (OpenHDF5).
const KindHDF5 = "hdf5"

func init() {
	RegisterDatasetKind(KindHDF5, func(params []byte) (Dataset, error) {
		var p hdf5Params
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: hdf5 dataset parameters: %w", err)
		}
		return OpenHDF5(p.Path, p.Dataset, p.SigDims)
	})
}

type hdf5Params struct {
	Path    string `json:"path"`
	Dataset string `json:"dataset"`
	SigDims int    `json:"sig_dims"`
}

// HDF5Dataset is a dataset of an HDF5 file (nd/hdf5, which needs the hdf5
// build tag: without it OpenHDF5 fails with hdf5.ErrNotBuilt) whose last
// sigDims axes are the sig, LiberTEM's "hdf5" format. A tile is read with
// one hyperslab read per box of its frames (a run of flat frames is at
// most 2·(nav dims)−1 boxes: the rest of a row, whole rows, the start of
// a row) straight into the task's tile buffer, from the run's free list;
// HDF5 decompresses the chunks and converts the byte order.
//
// Partitions are aligned to the file's chunks along nav as LiberTEM
// aligns them (AlignPartitions) and tiles cut where chunks begin
// (FrameBlockStarts), so that a chunk is decompressed by one task, not
// by each partition it would straddle; nd/hdf5's chunk cache of a few
// chunks keeps it for the task's next tiles.
type HDF5Dataset struct {
	f        *hdf5.Dataset
	path     string
	name     string
	sigDims  int
	nav, sig []int
}

var (
	_ Dataset           = (*HDF5Dataset)(nil)
	_ TaskReaderDataset = (*HDF5Dataset)(nil)
	_ BlockAligner      = (*HDF5Dataset)(nil)
	_ PartitionAligner  = (*HDF5Dataset)(nil)
)

// OpenHDF5 opens the dataset name (an HDF5 path, "/entry/data") of the
// HDF5 file at path; the last sigDims axes are the sig. Errors are
// *DatasetError naming the file and the dataset, wrapping nd/hdf5's
// *hdf5.Error (with HDF5's error stack).
func OpenHDF5(path, name string, sigDims int) (*HDF5Dataset, error) {
	bad := func(reason string, err error) error {
		return &DatasetError{Kind: KindHDF5, Path: path, Reason: "dataset " + name + ": " + reason, Err: err}
	}
	if err := graph.CheckPath("udfbridge.open-hdf5", path); err != nil {
		return nil, bad("refused", err)
	}
	f, err := hdf5.Open(path, name)
	if err != nil {
		return nil, bad("open", err)
	}
	nav, sig, err := splitNavSig("hdf5 file "+path+" dataset "+name, f.Shape(), sigDims)
	if err != nil {
		f.Close()
		return nil, err
	}
	if _, ok := shapeBytes(f.DType().Size(), nav, sig); !ok {
		f.Close()
		return nil, bad(fmt.Sprintf("shape nav %v × sig %v overflows a 64-bit size", nav, sig), nil)
	}
	return &HDF5Dataset{f: f, path: path, name: name, sigDims: sigDims, nav: nav, sig: sig}, nil
}

// Close closes the HDF5 dataset.
func (d *HDF5Dataset) Close() error { return d.f.Close() }

func (d *HDF5Dataset) NavShape() []int { return dsClone(d.nav) }
func (d *HDF5Dataset) SigShape() []int { return dsClone(d.sig) }
func (d *HDF5Dataset) DType() nd.DType { return d.f.DType() }
func (d *HDF5Dataset) String() string  { return "hdf5 file " + d.path + " dataset " + d.name }

// Chunks returns the file's chunk shape (nil when the dataset is not
// chunked).
func (d *HDF5Dataset) Chunks() []int { return d.f.Chunks() }

func (d *HDF5Dataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(hdf5Params{Path: d.path, Dataset: d.name, SigDims: d.sigDims})
	return DatasetSpec{Kind: KindHDF5, Params: b}, err
}

// FrameBlockStarts returns the flat frames where the file's chunks begin
// when the chunks cut the flat nav axis into runs (nil otherwise, and for
// a dataset that is not chunked): when, for some nav axis i, the chunks
// are 1 along the axes before i and whole along the nav axes after it.
func (d *HDF5Dataset) FrameBlockStarts() []int {
	u, runs := chunkUnit(d.nav, d.f.Chunks())
	if u <= 1 || !runs {
		return nil // frame chunks: a tile of whole frames reads whole chunks
	}
	n := dsProd(d.nav)
	out := make([]int, 0, n/u+1)
	for f := 0; f < n; f += u {
		out = append(out, f)
	}
	return out
}

// chunkUnit returns LiberTEM's smallest partition for the file's chunks,
// in frames (0 for a dataset that is not chunked): along the first nav
// axis i whose chunk is not 1, one chunk, times the nav axes after i
// whole, so that partitions of whole units share no chunk. runs reports
// whether the unit is one chunk's frames (the chunks whole along the nav
// axes after i), so that units are runs of single chunks.
func chunkUnit(nav, ch []int) (u int, runs bool) {
	if ch == nil {
		return 0, false
	}
	k := len(nav)
	i := 0
	for i < k && ch[i] == 1 {
		i++
	}
	if i == k {
		return 1, true // frame chunks
	}
	runs = true
	for j := i + 1; j < k; j++ {
		runs = runs && ch[j] >= nav[j]
	}
	return min(ch[i], nav[i]) * dsProd(nav[i+1:]), runs
}

// AlignPartitions moves each inner partition boundary to the nearest
// multiple of the chunk unit (chunkUnit), as LiberTEM sizes HDF5
// partitions so that no two read the same chunk, keeping the count:
// partitions may come out empty, and get no task. Chunks large along the
// nav axes thus mean few partitions (one, for chunks spanning the first
// nav axis), which LiberTEM prefers to decompressing a chunk in every
// partition that needs a part of it.
func (d *HDF5Dataset) AlignPartitions(bounds []int) []int {
	u, _ := chunkUnit(d.nav, d.f.Chunks())
	return alignBounds(bounds, u)
}

// alignBounds rounds the inner bounds to the nearest multiple of u (ties
// down), at most the last bound; u <= 1 leaves them as they are.
func alignBounds(bounds []int, u int) []int {
	p := len(bounds) - 1
	if p < 2 || u <= 1 {
		return bounds
	}
	n := bounds[p]
	out := dsClone(bounds)
	for i := 1; i < p; i++ {
		out[i] = min((bounds[i]+(u-1)/2)/u*u, n)
	}
	return out
}

func (d *HDF5Dataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	sigStart, sigShape, err := checkRead(d.String(), dsProd(d.nav), d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a, err := nd.Zeros(d.f.DType(), append([]int{n}, sigShape...)...)
	if err != nil {
		return nil, err
	}
	var b boxes
	if err := d.readInto(&b, a, start, n, sigStart, sigShape); err != nil {
		return nil, err
	}
	return a, nil
}

// readInto reads frames [start, start+n) of the sig region into dst, one
// hyperslab read per box of the frames.
func (d *HDF5Dataset) readInto(b *boxes, dst *nd.Array, start, n int, sigStart, sigShape []int) error {
	return nd.FillRaw(dst, false, func(raw []byte) error {
		return d.readRaw(b, raw, start, n, sigStart, sigShape)
	})
}

// readRaw is readInto into the bytes of a C-contiguous tile.
func (d *HDF5Dataset) readRaw(b *boxes, raw []byte, start, n int, sigStart, sigShape []int) error {
	regionBytes := dsProd(sigShape) * d.f.DType().Size()
	b.reset(d.nav, start, n)
	for b.next() {
		b.st = append(append(b.st[:0], b.bst...), sigStart...)
		b.ct = append(append(b.ct[:0], b.bct...), sigShape...)
		off := (b.first - start) * regionBytes
		if err := d.f.ReadRegion(raw[off:off+b.frames*regionBytes], b.st, b.ct); err != nil {
			return &DatasetError{Kind: KindHDF5, Path: d.path, Reason: fmt.Sprintf("dataset %s: reading frames [%d, %d)", d.name, start, start+n), Err: err}
		}
	}
	return nil
}

// boxes cuts a run of flat frames into boxes of the nav axes, in order,
// with scratch reused from run to run:
//
//	b.reset(nav, start, n)
//	for b.next() { use b.first, b.frames, b.bst, b.bct }
//
// From the current frame, the box is along the outermost axis j whose
// inner axes are all at index 0 and whose stride (the frames of one step
// along j) fits in what is left: the axes before j fixed, j counted, the
// inner axes whole. A run is at most 2·len(nav)−1 boxes.
type boxes struct {
	nav           []int
	p, end        int
	first, frames int   // the current box's first flat frame and count
	idx, bst, bct []int // the current frame's index; the box
	st, ct        []int // the caller's hyperslab scratch
}

func (b *boxes) reset(nav []int, start, n int) {
	k := len(nav)
	b.nav, b.p, b.end = nav, start, start+n
	b.idx, b.bst, b.bct = resize(b.idx, k), resize(b.bst, k), resize(b.bct, k)
}

func (b *boxes) next() bool {
	if b.p >= b.end {
		return false
	}
	nav, k := b.nav, len(b.nav)
	r := b.p
	for i := k - 1; i >= 0; i-- {
		b.idx[i] = r % nav[i]
		r /= nav[i]
	}
	j, stride := k-1, 1
	for j > 0 && b.idx[j] == 0 && stride*nav[j] <= b.end-b.p {
		stride *= nav[j]
		j--
	}
	cnt := min(nav[j]-b.idx[j], (b.end-b.p)/stride)
	for i := range k {
		switch {
		case i < j:
			b.bst[i], b.bct[i] = b.idx[i], 1
		case i == j:
			b.bst[i], b.bct[i] = b.idx[i], cnt
		default:
			b.bst[i], b.bct[i] = 0, nav[i]
		}
	}
	b.first, b.frames = b.p, cnt*stride
	b.p += b.frames
	return true
}

func resize(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// TaskReader returns the reader of one partition task: tiles are read
// into one buffer from the run's free list, reused from tile to tile and
// given back at Close; a tile is valid until the next Read.
func (d *HDF5Dataset) TaskReader() TileReader { return &hdf5Reader{d: d} }

type hdf5Reader struct {
	d      *HDF5Dataset
	buf    listBuf
	listed bool
	b      boxes
	sh     []int
	str    string
}

func (r *hdf5Reader) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	d := r.d
	if r.str == "" {
		r.str = d.String()
	}
	sigStart, sigShape, err := checkRead(r.str, dsProd(d.nav), d.sig, start, n, sigStart, sigShape)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !r.listed {
		r.buf.fl, r.listed = freelist.FromContext(ctx), true
	}
	r.sh = append(append(r.sh[:0], n), sigShape...)
	tile, err := r.buf.get(d.f.DType(), r.sh)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: %s: tile buffer: %w", r.str, err)
	}
	// The tile is the first bytes of the buffer, C order, host byte
	// order, which is what HDF5 writes (bools as 0 and 1): read straight
	// into them, without FillRaw's closure.
	if err := d.readRaw(&r.b, r.buf.mem[:dsProd(r.sh)*d.f.DType().Size()], start, n, sigStart, sigShape); err != nil {
		return nil, err
	}
	return tile, nil
}

// Close gives the tile buffer back to the run's free list.
func (r *hdf5Reader) Close() error {
	r.buf.release()
	return nil
}
