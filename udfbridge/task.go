package udfbridge

// The partition task: every UDF of the run in one pass over the tiles.

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// partOp processes partition Part, frames [Start, Stop) of the flat nav axis.
type partOp struct {
	ri                *runInfo
	Part, Start, Stop int
}

func (o *partOp) Name() string       { return "udfbridge.partition" }
func (o *partOp) Requires() []string { return o.ri.requires() }
func (o *partOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{Part: o.Part, Start: o.Start, Stop: o.Stop})
}

// udfState is one UDF inside a task.
type udfState struct {
	b    *built
	bufs map[string]*nd.Array // partition buffers
	aux  map[string]*nd.Array // partition rows of aux data
	ctx  *Ctx

	// The reused Ctx of process_tile and its view headers (tileCtx).
	tile    *Ctx
	tileHdr []*nd.Array          // per decl
	auxHdr  map[string]*nd.Array // per aux array

	// Device processing (device.go): whether this UDF's tiles go to the
	// device on this partition, its Device buffers' names and arrays.
	onDevice bool
	devNames []string
	dbufs    map[string]*cudaops.Array
}

// partTask is one partition task while it runs: the partition's frames
// and meta, each UDF's state, the reader and the reused per-tile state.
// partOp.Run walks it through its phases: newTask (meta, UDFs, buffers,
// aux, task data, preprocess), startDevice, planTiles (pure), openReader,
// block per tile block (tileRegion per sig region, processTile per UDF,
// processFrames), finish (process_partition, device results back,
// postprocess).
type partTask struct {
	o        *partOp
	ri       *runInfo
	ds       Dataset
	frames   []int // flat nav indices of the partition's ROI frames
	origin   int   // ROI frames before the partition
	m        *Meta
	states   []*udfState
	anyFrame bool
	anyPart  bool
	dev      *devTask

	rd       TileReader
	conv     tileConv
	convSet  bool
	partData *nd.Array // the whole partition, for process_partition

	// Reused for every tile: one Meta, Slice and coordinates header.
	tm        *Meta
	tileSlice *Slice
	coords    *nd.Array

	// The current tile: as read (raw), in the input dtype (tile, nil until
	// converted), and on the device (dtile, nil until uploaded).
	raw, tile *nd.Array
	dtile     *cudaops.Array
}

func (o *partOp) Run(ctx context.Context, _ []any) (any, error) {
	pt, err := o.newTask()
	if err != nil {
		return nil, err
	}
	defer pt.close()
	if err := pt.startDevice(); err != nil {
		return nil, err
	}
	var cuts []int
	if ba, ok := pt.ds.(BlockAligner); ok {
		cuts = ba.FrameBlockStarts()
	}
	tp, err := planTiles(pt.frames, pt.ri.SigShape, pt.ri.SigTile, pt.ri.Depth, pt.anyFrame, pt.anyPart, cuts)
	if err != nil {
		return nil, err
	}
	if err := pt.openReader(ctx); err != nil {
		return nil, err
	}
	for _, bl := range tp.blocks {
		if err := pt.block(ctx, tp, bl); err != nil {
			return nil, err
		}
	}
	return pt.finish()
}

// newTask sets up the partition: meta (slice, coordinates), the UDFs
// rebuilt, and per UDF its zero-filled buffers, aux rows, task data and
// Preprocess.
func (o *partOp) newTask() (*partTask, error) {
	ri := o.ri
	ds, err := ri.dataset()
	if err != nil {
		return nil, err
	}
	pt := &partTask{o: o, ri: ri, ds: ds, frames: ri.roiFrames(o.Start, o.Stop), origin: ri.roiBefore(o.Start)}
	rp := len(pt.frames)
	m := ri.mainMeta()
	m.Partition = o.Part
	m.Backend, m.DeviceClass = ri.Backend, deviceClass(ri.Backend)
	m.PartitionShape = append([]int{rp}, ri.SigShape...)
	m.Slice = &Slice{NavOrigin: pt.origin, NavSize: rp, SigOrigin: make([]int, len(ri.SigShape)), SigShape: ri.SigShape}
	m.Coordinates = unravel(pt.frames, ri.NavShape)
	pt.m = m
	bs, err := ri.build(m)
	if err != nil {
		return nil, err
	}
	pt.states = make([]*udfState, len(bs))
	for i, b := range bs {
		pt.anyFrame = pt.anyFrame || b.method == MethodFrame
		pt.anyPart = pt.anyPart || b.method == MethodPartition
		if pt.states[i], err = pt.newUDFState(b); err != nil {
			return nil, err
		}
	}
	return pt, nil
}

// newUDFState allocates b's partition buffers, cuts its aux data to the
// partition's rows and runs TaskData and Preprocess.
func (pt *partTask) newUDFState(b *built) (*udfState, error) {
	ri, name := pt.ri, b.spec.Name
	bufs, err := ri.alloc(b, len(pt.frames))
	if err != nil {
		return nil, err
	}
	st := &udfState{b: b, bufs: bufs}
	if a, ok := b.u.(AuxDataer); ok {
		aux, err := a.AuxData()
		if err != nil {
			return nil, &UDFError{UDF: name, Step: "aux data", Err: err}
		}
		st.aux = map[string]*nd.Array{}
		for k, v := range aux {
			pv, err := auxRows(ri, v, pt.frames)
			if err != nil {
				return nil, &UDFError{UDF: name, Step: "aux data " + k, Err: err}
			}
			st.aux[k] = pv
		}
	}
	st.ctx = &Ctx{udf: name, meta: pt.m, params: b.spec.Params, bufs: bufs, aux: st.aux}
	if td, ok := b.u.(TaskDataer); ok {
		d, err := td.TaskData(st.ctx)
		if err != nil {
			return nil, &UDFError{UDF: name, Step: "task data", Err: err}
		}
		st.ctx.taskData = d
	}
	if pp, ok := b.u.(Preprocessor); ok {
		if err := pp.Preprocess(st.ctx); err != nil {
			return nil, &UDFError{UDF: name, Step: "preprocess", Err: err}
		}
	}
	st.onDevice, st.devNames = ri.useDevice(b, pt.m)
	return st, nil
}

// startDevice opens the device for the UDFs that process on it and
// uploads each one's Device buffers once (device.go).
func (pt *partTask) startDevice() error {
	for _, st := range pt.states {
		if !st.onDevice {
			continue
		}
		if pt.dev == nil {
			dev, err := newDevTask()
			if err != nil {
				return &UDFError{UDF: st.b.spec.Name, Step: "device", Err: fmt.Errorf("backend %q: %w", BackendCUDA, err)}
			}
			pt.dev = dev
		}
		if err := st.toDevice(pt.dev, st.devNames); err != nil {
			return err
		}
	}
	return nil
}

// openReader opens the task's reader (told its last frame when it reads
// ahead), the converter to the input dtype and the reused tile state.
func (pt *partTask) openReader(ctx context.Context) error {
	rp := len(pt.frames)
	if pt.anyPart {
		var err error
		if pt.partData, err = nd.Zeros(pt.ri.Input, append([]int{rp}, pt.ri.SigShape...)...); err != nil {
			return err
		}
	}
	pt.rd = taskReader(pt.ds)
	if h, ok := pt.rd.(frameHinter); ok && rp > 0 {
		h.hintFrames(pt.frames[rp-1] + 1)
	}
	pt.conv, pt.convSet = tileConv{dt: pt.ri.Input, buf: listBuf{fl: freelist.FromContext(ctx)}}, true
	// The tile loop allocates nothing in its steady state: one Meta, one
	// Slice and one coordinates header for every tile of the task, and
	// per UDF one Ctx whose buffer views are headers set per tile
	// (tileCtx); a UDF sees them only while its process_tile runs.
	pt.tm = pt.m.clone()
	pt.tileSlice = &Slice{}
	pt.tm.Slice = pt.tileSlice
	pt.coords = new(nd.Array)
	return nil
}

// close gives back what the task holds: the conversion buffer, the
// reader, the device.
func (pt *partTask) close() {
	if pt.convSet {
		pt.conv.release()
	}
	if c, ok := pt.rd.(io.Closer); ok {
		c.Close()
	}
	pt.dev.free()
}

// tileBlock is rows [k, k+m) of the partition's ROI frames: a run of
// consecutive frames, contiguous both in the dataset and in the
// ROI-compressed buffers.
type tileBlock struct{ k, m int }

// tilePlan is how a partition task walks its frames: the sig regions of
// one tile and the blocks of frames read together.
type tilePlan struct {
	depth   int
	sigTile []int
	regions []TileRegion
	blocks  []tileBlock
}

// planTiles plans a partition's tiles: frames are the flat nav indices of
// its ROI frames, depth and sigTile the run's tiling, cuts the sorted
// frames where a dataset stored in blocks (BlockAligner) starts a block.
// A UDF processing whole partitions makes the depth the partition; one
// processing frames or partitions makes the sig tile the whole frame.
// Blocks are runs of consecutive frames, cut to depth, at ROI gaps and at
// cuts, so that a tile never assembles two blocks of the dataset.
func planTiles(frames []int, sigShape, sigTile []int, depth int, anyFrame, anyPart bool, cuts []int) (*tilePlan, error) {
	rp := len(frames)
	if anyPart {
		depth = max(rp, 1)
	}
	if anyFrame || anyPart {
		sigTile = sigShape
	}
	regions, err := TileRegions(0, 1, sigShape, sigTile, 1)
	if err != nil {
		return nil, err
	}
	// Sized up front (runs cut by depth, then by block starts or ROI
	// gaps), so that the count of allocations does not grow with the
	// partition.
	blocks := make([]tileBlock, 0, rp/max(depth, 1)+len(cuts)+1)
	for k := 0; k < rp; {
		e := k + 1
		for e < rp && e-k < depth && frames[e] == frames[e-1]+1 && !isCut(cuts, frames[e]) {
			e++
		}
		blocks = append(blocks, tileBlock{k, e - k})
		k = e
	}
	return &tilePlan{depth: depth, sigTile: sigTile, regions: regions, blocks: blocks}, nil
}

func isCut(cuts []int, f int) bool {
	if cuts == nil {
		return false
	}
	_, found := slices.BinarySearch(cuts, f)
	return found
}

// block processes one block of frames: every sig region of its tile, then
// its rows of the partition (process_partition) and its frames.
func (pt *partTask) block(ctx context.Context, tp *tilePlan, bl tileBlock) error {
	if err := pt.coords.SetSlice(pt.m.Coordinates, nd.Slice1{Start: bl.k, Stop: bl.k + bl.m, Step: 1}); err != nil {
		return err
	}
	var whole *nd.Array
	for _, rg := range tp.regions {
		if err := ctx.Err(); err != nil {
			return err
		}
		var err error
		if whole, err = pt.tileRegion(ctx, bl, rg); err != nil {
			return err
		}
	}
	if pt.anyPart {
		if err := copyRows(pt.partData, bl.k, whole); err != nil {
			return err
		}
	}
	if pt.anyFrame {
		return pt.processFrames(bl, whole)
	}
	return nil
}

// tileRegion reads one tile and runs every tile-processing UDF on it. It
// returns the tile in the input dtype when frames or partitions need it.
func (pt *partTask) tileRegion(ctx context.Context, bl tileBlock, rg TileRegion) (*nd.Array, error) {
	first := pt.frames[bl.k]
	tile, err := pt.rd.Read(ctx, first, bl.m, rg.SigStart, rg.SigShape)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: partition %d: reading frames [%d, %d): %w", pt.o.Part, first, first+bl.m, err)
	}
	if sh := tile.Shape(); len(sh) != 1+len(rg.SigShape) || sh[0] != bl.m || !slices.Equal(sh[1:], rg.SigShape) {
		return nil, fmt.Errorf("udfbridge: partition %d: dataset read returned shape %v, want %v", pt.o.Part, tile.Shape(), append([]int{bl.m}, rg.SigShape...))
	}
	// A tile of another dtype is converted to the input dtype when a UDF
	// first needs it (input): until then, UDFs that sum the tile as read
	// (rawTileProcessor) take it unconverted. Once converted, every later
	// UDF gets the converted tile, which an earlier UDF may have written to.
	pt.raw, pt.tile, pt.dtile = tile, tile, nil
	if tile.DType() != pt.ri.Input {
		pt.tile = nil
	}
	var whole *nd.Array
	if pt.anyPart || pt.anyFrame {
		if whole, err = pt.input(bl); err != nil {
			return nil, err
		}
	}
	*pt.tileSlice = Slice{NavOrigin: pt.origin + bl.k, NavSize: bl.m, SigOrigin: rg.SigStart, SigShape: rg.SigShape}
	pt.tm.Coordinates = pt.coords
	for _, st := range pt.states {
		if st.b.method == MethodTile {
			if err := pt.processTile(st, bl, rg); err != nil {
				return nil, err
			}
		}
	}
	return whole, nil
}

// input returns the current tile in the input dtype, converting it once.
func (pt *partTask) input(bl tileBlock) (*nd.Array, error) {
	if pt.tile != nil {
		return pt.tile, nil
	}
	t, err := pt.conv.convert(pt.raw)
	if err != nil {
		first := pt.frames[bl.k]
		return nil, fmt.Errorf("udfbridge: partition %d: converting frames [%d, %d) to %v: %w", pt.o.Part, first, first+bl.m, pt.ri.Input, err)
	}
	pt.tile = t
	return t, nil
}

// processTile runs one UDF's process_tile on the current tile: on the
// raw tile where it sums it as read, on the device where it processes
// there, else on the tile in the input dtype.
func (pt *partTask) processTile(st *udfState, bl tileBlock, rg TileRegion) error {
	name := st.b.spec.Name
	var c *Ctx
	var err error
	if st.onDevice {
		c, err = st.view(pt.tm, bl.k, bl.m, rg.SigStart, rg.SigShape, len(pt.ri.SigShape))
	} else {
		c, err = st.tileCtx(pt.tm, bl.k, bl.m, rg.SigStart, rg.SigShape)
	}
	if err != nil {
		return err
	}
	if pt.tile == nil && !st.onDevice {
		if done, err := processRaw(st.b.u, c, pt.raw); err != nil {
			return &UDFError{UDF: name, Step: "process_tile", Err: err}
		} else if done {
			return nil
		}
	}
	in, err := pt.input(bl)
	if err != nil {
		return err
	}
	if !st.onDevice {
		if err := st.b.u.(TileProcessor).ProcessTile(c, in); err != nil {
			return &UDFError{UDF: name, Step: "process_tile", Err: err}
		}
		return nil
	}
	if pt.dtile == nil {
		if pt.dtile, err = pt.dev.putTile(in); err != nil {
			first := pt.frames[bl.k]
			return &UDFError{UDF: name, Step: "process_tile (device)", Err: fmt.Errorf("uploading frames [%d, %d): %w", first, first+bl.m, err)}
		}
	}
	if err := st.deviceView(c, pt.dev, bl.k, bl.m); err != nil {
		return err
	}
	if err := st.b.u.(DeviceTileProcessor).ProcessTileDevice(c, pt.dtile); err != nil {
		return &UDFError{UDF: name, Step: "process_tile (device)", Err: err}
	}
	return nil
}

// processFrames runs process_frame of the frame-processing UDFs on each
// frame of the block (whole: the block in the input dtype).
func (pt *partTask) processFrames(bl tileBlock, whole *nd.Array) error {
	ri := pt.ri
	for j := 0; j < bl.m; j++ {
		frame, err := whole.Index(0, j)
		if err != nil {
			return err
		}
		fm := pt.m.clone()
		fm.Slice = &Slice{NavOrigin: pt.origin + bl.k + j, NavSize: 1, SigOrigin: pt.m.Slice.SigOrigin, SigShape: ri.SigShape}
		fm.Coordinates = unravel(pt.frames[bl.k+j:bl.k+j+1], ri.NavShape)
		for _, st := range pt.states {
			if st.b.method != MethodFrame {
				continue
			}
			c, err := st.frameView(fm, bl.k+j)
			if err != nil {
				return err
			}
			if err := st.b.u.(FrameProcessor).ProcessFrame(c, frame); err != nil {
				return &UDFError{UDF: st.b.spec.Name, Step: "process_frame", Err: err}
			}
		}
	}
	return nil
}

// finish runs process_partition, brings device buffers back, runs
// Postprocess and returns the partition's results.
func (pt *partTask) finish() (*chunk, error) {
	rp := len(pt.frames)
	for _, st := range pt.states {
		if st.b.method == MethodPartition && rp > 0 {
			if err := st.b.u.(PartitionProcessor).ProcessPartition(st.ctx, pt.partData); err != nil {
				return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_partition", Err: err}
			}
		}
	}
	for _, st := range pt.states {
		if err := st.fromDevice(); err != nil {
			return nil, err
		}
	}
	out := &chunk{Lo: pt.o.Part, Hi: pt.o.Part + 1, NavOrigin: pt.origin, NavSize: rp}
	for _, st := range pt.states {
		if pp, ok := st.b.u.(Postprocessor); ok {
			if err := pp.Postprocess(st.ctx); err != nil {
				return nil, &UDFError{UDF: st.b.spec.Name, Step: "postprocess", Err: err}
			}
		}
		out.Bufs = append(out.Bufs, st.bufs)
	}
	return out, nil
}

// frameHinter is a TileReader that reads ahead of the frames it is asked
// for (npyReader): before the first Read, its task tells it one past the
// last frame it will read, so that it reads nothing beyond.
type frameHinter interface {
	hintFrames(end int)
}

// tileCtx returns the Ctx for a tile, as view does, without allocating
// once the first tile has been set up: the Ctx, its maps and one view
// header per buffer and aux array are the state's, and each tile sets
// the headers (nd.Array.SetSlice) and puts them back in the maps (where a
// UDF may have replaced them). The Ctx and its views are valid during
// the process_tile call they are passed to.
func (st *udfState) tileCtx(m *Meta, k, n int, sigStart, sigShape []int) (*Ctx, error) {
	c := st.tile
	if c == nil {
		c = &Ctx{udf: st.ctx.udf, params: st.ctx.params, taskData: st.ctx.taskData,
			bufs: make(map[string]*nd.Array, len(st.bufs)), aux: make(map[string]*nd.Array, len(st.aux))}
		st.tileHdr = make([]*nd.Array, len(st.b.decls))
		for i := range st.tileHdr {
			st.tileHdr[i] = new(nd.Array)
		}
		st.auxHdr = make(map[string]*nd.Array, len(st.aux))
		for name := range st.aux {
			st.auxHdr[name] = new(nd.Array)
		}
		st.tile = c
	}
	c.meta = m
	for i, d := range st.b.decls {
		a, ok := st.bufs[d.Name]
		if !ok {
			continue
		}
		h := st.tileHdr[i]
		var err error
		switch d.Kind {
		case Nav:
			err = h.SetSlice(a, nd.Slice1{Start: k, Stop: k + n, Step: 1})
		case Sig:
			err = setRegion(h, a, 0, sigStart, sigShape)
		default:
			h = a
		}
		if err != nil {
			return nil, &BufferError{UDF: st.ctx.udf, Buffer: d.Name, Err: err}
		}
		c.bufs[d.Name] = h
	}
	for name, a := range st.aux {
		h := st.auxHdr[name]
		if err := h.SetSlice(a, nd.Slice1{Start: k, Stop: k + n, Step: 1}); err != nil {
			return nil, err
		}
		c.aux[name] = h
	}
	return c, nil
}

// view returns the Ctx for a tile: nav buffers and aux at rows [k, k+m),
// sig buffers at the sig region.
func (st *udfState) view(m *Meta, k, n int, sigStart, sigShape []int, nsig int) (*Ctx, error) {
	c := &Ctx{udf: st.ctx.udf, meta: m, params: st.ctx.params, taskData: st.ctx.taskData,
		bufs: make(map[string]*nd.Array, len(st.bufs)), aux: make(map[string]*nd.Array, len(st.aux))}
	for _, d := range st.b.decls {
		a, ok := st.bufs[d.Name]
		if !ok {
			continue
		}
		var v *nd.Array
		var err error
		switch d.Kind {
		case Nav:
			v, err = rowsView(a, k, n)
		case Sig:
			v, err = regionView(a, 0, sigStart, sigShape)
		default:
			v = a
		}
		if err != nil {
			return nil, &BufferError{UDF: st.ctx.udf, Buffer: d.Name, Err: err}
		}
		c.bufs[d.Name] = v
	}
	for name, a := range st.aux {
		v, err := rowsView(a, k, n)
		if err != nil {
			return nil, err
		}
		c.aux[name] = v
	}
	return c, nil
}

// frameView returns the Ctx for frame j of the partition: nav buffers and
// aux at one element (shape E, or (1,) when E is empty).
func (st *udfState) frameView(m *Meta, j int) (*Ctx, error) {
	c := &Ctx{udf: st.ctx.udf, meta: m, params: st.ctx.params, taskData: st.ctx.taskData,
		bufs: make(map[string]*nd.Array, len(st.bufs)), aux: make(map[string]*nd.Array, len(st.aux))}
	elem := func(a *nd.Array) (*nd.Array, error) {
		if a.NDim() == 1 {
			return rowsView(a, j, 1)
		}
		return a.Index(0, j)
	}
	for _, d := range st.b.decls {
		a, ok := st.bufs[d.Name]
		if !ok {
			continue
		}
		v := a
		if d.Kind == Nav {
			var err error
			if v, err = elem(a); err != nil {
				return nil, &BufferError{UDF: st.ctx.udf, Buffer: d.Name, Err: err}
			}
		}
		c.bufs[d.Name] = v
	}
	for name, a := range st.aux {
		v, err := elem(a)
		if err != nil {
			return nil, err
		}
		c.aux[name] = v
	}
	return c, nil
}

// auxRows returns the rows of frames of aux data given as nav+E or (n,)+E.
func auxRows(ri *runInfo, a *nd.Array, frames []int) (*nd.Array, error) {
	n := ri.n()
	sh := a.Shape()
	var extra []int
	switch {
	case len(sh) >= len(ri.NavShape) && slices.Equal(sh[:len(ri.NavShape)], ri.NavShape):
		extra = sh[len(ri.NavShape):]
	case len(sh) >= 1 && sh[0] == n:
		extra = sh[1:]
	default:
		return nil, fmt.Errorf("aux data of shape %v matches neither nav shape %v nor (%d,)", sh, ri.NavShape, n)
	}
	flat, err := a.Contiguous().Reshape(append([]int{n}, extra...)...)
	if err != nil {
		return nil, err
	}
	return gatherRows(flat, frames)
}
