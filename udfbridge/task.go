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

func (o *partOp) Name() string { return "udfbridge.partition" }
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

func (o *partOp) Run(ctx context.Context, _ []any) (any, error) {
	ri := o.ri
	ds, err := ri.dataset()
	if err != nil {
		return nil, err
	}
	frames := ri.roiFrames(o.Start, o.Stop)
	rp := len(frames)
	origin := ri.roiBefore(o.Start)
	m := ri.mainMeta()
	m.Partition = o.Part
	m.Backend, m.DeviceClass = ri.Backend, deviceClass(ri.Backend)
	m.PartitionShape = append([]int{rp}, ri.SigShape...)
	partSlice := &Slice{NavOrigin: origin, NavSize: rp, SigOrigin: make([]int, len(ri.SigShape)), SigShape: ri.SigShape}
	m.Slice = partSlice
	m.Coordinates = unravel(frames, ri.NavShape)
	bs, err := ri.build(m)
	if err != nil {
		return nil, err
	}
	anyFrame, anyPart := false, false
	states := make([]*udfState, len(bs))
	for i, b := range bs {
		anyFrame = anyFrame || b.method == MethodFrame
		anyPart = anyPart || b.method == MethodPartition
		bufs, err := ri.alloc(b, rp)
		if err != nil {
			return nil, err
		}
		st := &udfState{b: b, bufs: bufs}
		if a, ok := b.u.(AuxDataer); ok {
			aux, err := a.AuxData()
			if err != nil {
				return nil, &UDFError{UDF: b.spec.Name, Step: "aux data", Err: err}
			}
			st.aux = map[string]*nd.Array{}
			for k, v := range aux {
				pv, err := auxRows(ri, v, frames)
				if err != nil {
					return nil, &UDFError{UDF: b.spec.Name, Step: "aux data " + k, Err: err}
				}
				st.aux[k] = pv
			}
		}
		st.ctx = &Ctx{udf: b.spec.Name, meta: m, params: b.spec.Params, bufs: bufs, aux: st.aux}
		if td, ok := b.u.(TaskDataer); ok {
			d, err := td.TaskData(st.ctx)
			if err != nil {
				return nil, &UDFError{UDF: b.spec.Name, Step: "task data", Err: err}
			}
			st.ctx.taskData = d
		}
		if pp, ok := b.u.(Preprocessor); ok {
			if err := pp.Preprocess(st.ctx); err != nil {
				return nil, &UDFError{UDF: b.spec.Name, Step: "preprocess", Err: err}
			}
		}
		st.onDevice, st.devNames = ri.useDevice(b, m)
		states[i] = st
	}
	// Device processing (device.go): the device, then each device UDF's
	// Device buffers uploaded once.
	var dev *devTask
	for _, st := range states {
		if !st.onDevice {
			continue
		}
		if dev == nil {
			if dev, err = newDevTask(); err != nil {
				return nil, &UDFError{UDF: st.b.spec.Name, Step: "device", Err: fmt.Errorf("backend %q: %w", BackendCUDA, err)}
			}
			defer dev.free()
		}
		if err := st.toDevice(dev, st.devNames); err != nil {
			return nil, err
		}
	}
	depth, sigTile := ri.Depth, ri.SigTile
	if anyPart {
		depth = max(rp, 1)
	}
	if anyFrame || anyPart {
		sigTile = ri.SigShape
	}
	regions, err := TileRegions(0, 1, ri.SigShape, sigTile, 1)
	if err != nil {
		return nil, err
	}
	// Runs of consecutive ROI frames, cut to depth: each a tile block that
	// is contiguous both in the dataset and in the ROI-compressed buffers.
	// A dataset stored in blocks (BlockAligner) also cuts runs where its
	// blocks begin, so that a tile never assembles two blocks.
	type block struct{ k, m int }
	var cuts []int
	if ba, ok := ds.(BlockAligner); ok {
		cuts = ba.FrameBlockStarts()
	}
	// Sized up front (runs cut by depth, then by block starts or ROI
	// gaps), so that the count of allocations does not grow with the
	// partition.
	blocks := make([]block, 0, rp/max(depth, 1)+len(cuts)+1)
	isCut := func(f int) bool {
		_, found := slices.BinarySearch(cuts, f)
		return found
	}
	for k := 0; k < rp; {
		e := k + 1
		for e < rp && e-k < depth && frames[e] == frames[e-1]+1 && (cuts == nil || !isCut(frames[e])) {
			e++
		}
		blocks = append(blocks, block{k, e - k})
		k = e
	}
	var partData *nd.Array
	if anyPart {
		sh := append([]int{rp}, ri.SigShape...)
		if partData, err = nd.Zeros(ri.Input, sh...); err != nil {
			return nil, err
		}
	}
	nsig := len(ri.SigShape)
	rd := taskReader(ds)
	if c, ok := rd.(io.Closer); ok {
		defer c.Close()
	}
	if h, ok := rd.(frameHinter); ok && rp > 0 {
		h.hintFrames(frames[rp-1] + 1)
	}
	conv := tileConv{dt: ri.Input, buf: listBuf{fl: freelist.FromContext(ctx)}}
	defer conv.release()
	// The tile loop allocates nothing in its steady state: one Meta, one
	// Slice and one coordinates header for every tile of the task, and
	// per UDF one Ctx whose buffer views are headers set per tile
	// (tileCtx); a UDF sees them only while its process_tile runs.
	tm := m.clone()
	tileSlice := &Slice{}
	tm.Slice = tileSlice
	coords := new(nd.Array)
	for _, bl := range blocks {
		if err := coords.SetSlice(m.Coordinates, nd.Slice1{Start: bl.k, Stop: bl.k + bl.m, Step: 1}); err != nil {
			return nil, err
		}
		var whole *nd.Array
		for _, rg := range regions {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			tile, err := rd.Read(ctx, frames[bl.k], bl.m, rg.SigStart, rg.SigShape)
			if err != nil {
				return nil, fmt.Errorf("udfbridge: partition %d: reading frames [%d, %d): %w", o.Part, frames[bl.k], frames[bl.k]+bl.m, err)
			}
			if sh := tile.Shape(); len(sh) != 1+len(rg.SigShape) || sh[0] != bl.m || !slices.Equal(sh[1:], rg.SigShape) {
				return nil, fmt.Errorf("udfbridge: partition %d: dataset read returned shape %v, want %v", o.Part, tile.Shape(), append([]int{bl.m}, rg.SigShape...))
			}
			// A tile of another dtype is converted to the input dtype when
			// a UDF first needs it: until then, UDFs that sum the tile as
			// read (rawTileProcessor) take it unconverted. Once converted,
			// every later UDF gets the converted tile, which an earlier
			// UDF may have written to.
			raw := tile
			if tile.DType() != ri.Input {
				tile = nil
			}
			input := func() (*nd.Array, error) {
				if tile != nil {
					return tile, nil
				}
				t, err := conv.convert(raw)
				if err != nil {
					return nil, fmt.Errorf("udfbridge: partition %d: converting frames [%d, %d) to %v: %w", o.Part, frames[bl.k], frames[bl.k]+bl.m, ri.Input, err)
				}
				tile = t
				return tile, nil
			}
			if anyPart || anyFrame {
				if whole, err = input(); err != nil {
					return nil, err
				}
			}
			var dtile *cudaops.Array // the tile on the device, uploaded for the first device UDF
			*tileSlice = Slice{NavOrigin: origin + bl.k, NavSize: bl.m, SigOrigin: rg.SigStart, SigShape: rg.SigShape}
			tm.Coordinates = coords
			for _, st := range states {
				if st.b.method != MethodTile {
					continue
				}
				var c *Ctx
				if st.onDevice {
					c, err = st.view(tm, bl.k, bl.m, rg.SigStart, rg.SigShape, nsig)
				} else {
					c, err = st.tileCtx(tm, bl.k, bl.m, rg.SigStart, rg.SigShape)
				}
				if err != nil {
					return nil, err
				}
				if tile == nil && !st.onDevice {
					if done, err := processRaw(st.b.u, c, raw); err != nil {
						return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_tile", Err: err}
					} else if done {
						continue
					}
				}
				in, err := input()
				if err != nil {
					return nil, err
				}
				if st.onDevice {
					if dtile == nil {
						if dtile, err = dev.putTile(in); err != nil {
							return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_tile (device)", Err: fmt.Errorf("uploading frames [%d, %d): %w", frames[bl.k], frames[bl.k]+bl.m, err)}
						}
					}
					if err := st.deviceView(c, dev, bl.k, bl.m); err != nil {
						return nil, err
					}
					if err := st.b.u.(DeviceTileProcessor).ProcessTileDevice(c, dtile); err != nil {
						return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_tile (device)", Err: err}
					}
					continue
				}
				if err := st.b.u.(TileProcessor).ProcessTile(c, in); err != nil {
					return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_tile", Err: err}
				}
			}
		}
		if anyPart {
			if err := copyRows(partData, bl.k, whole); err != nil {
				return nil, err
			}
		}
		if !anyFrame {
			continue
		}
		for j := 0; j < bl.m; j++ {
			frame, err := whole.Index(0, j)
			if err != nil {
				return nil, err
			}
			fm := m.clone()
			fm.Slice = &Slice{NavOrigin: origin + bl.k + j, NavSize: 1, SigOrigin: partSlice.SigOrigin, SigShape: ri.SigShape}
			fm.Coordinates = unravel(frames[bl.k+j:bl.k+j+1], ri.NavShape)
			for _, st := range states {
				if st.b.method != MethodFrame {
					continue
				}
				c, err := st.frameView(fm, bl.k+j)
				if err != nil {
					return nil, err
				}
				if err := st.b.u.(FrameProcessor).ProcessFrame(c, frame); err != nil {
					return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_frame", Err: err}
				}
			}
		}
	}
	for _, st := range states {
		if st.b.method == MethodPartition && rp > 0 {
			if err := st.b.u.(PartitionProcessor).ProcessPartition(st.ctx, partData); err != nil {
				return nil, &UDFError{UDF: st.b.spec.Name, Step: "process_partition", Err: err}
			}
		}
	}
	for _, st := range states {
		if err := st.fromDevice(); err != nil {
			return nil, err
		}
	}
	out := &chunk{Lo: o.Part, Hi: o.Part + 1, NavOrigin: origin, NavSize: rp}
	for _, st := range states {
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
