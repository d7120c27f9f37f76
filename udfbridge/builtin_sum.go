package udfbridge

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/internal/kern"
	"github.com/tessera-go/tessera/nd"
)

// SumUDF is LiberTEM's SumUDF: the sum of all frames (in the ROI), a sig
// buffer "intensity" of the input dtype. The preferred input dtype is
// float32 (uint16 data is summed as float32, complex128 as complex128).
// Partition results merge by addition; in a lazy run they merge in a tree
// (see SumMergeAllUDF for the one-node merge).
type SumUDF struct {
	scratch scratch // per-tile sums, reused (a task builds its own UDF)
}

// SumMergeAllUDF is SumUDF with a merge_all (the seed's MySumMergeUDF):
// one node stacks every partition's sum and adds them.
type SumMergeAllUDF struct{ SumUDF }

// SumSigUDF is LiberTEM's SumSigUDF: the sum of each frame over its
// signal, a nav buffer "intensity" of the input dtype (preferred float32).
type SumSigUDF struct {
	scratch scratch        // per-frame sums of a tile, reused
	axes    []int          // the sig axes of the last tile
	rows    kern.RowSummer // pairwise plans and leaf sums of raw uint16 tiles
}

var (
	_ TileProcessor = (*SumUDF)(nil)
	_ Merger        = (*SumUDF)(nil)
	_ MergeAller    = (*SumMergeAllUDF)(nil)
	_ TileProcessor = (*SumSigUDF)(nil)

	_ rawTileProcessor = (*SumUDF)(nil)
	_ rawTileProcessor = (*SumSigUDF)(nil)
)

func init() {
	RegisterUDF("SumUDF", func([]byte) (UDF, error) { return &SumUDF{}, nil })
	RegisterUDF("SumMergeAllUDF", func([]byte) (UDF, error) { return &SumMergeAllUDF{}, nil })
	RegisterUDF("SumSigUDF", func([]byte) (UDF, error) { return &SumSigUDF{}, nil })
}

func (*SumUDF) Name() string            { return "SumUDF" }
func (*SumUDF) Params() ([]byte, error) { return nil, nil }
func (*SumUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{deviceSig("intensity", m.InputDType)}, nil
}

// ProcessTile adds the tile's sum over its frames to the buffer's sig
// region: intensity += tile.sum(axis=0), the per-tile sum reduced into a
// reused array (the same values as a fresh one).
func (u *SumUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	s, err := sumFramesScratch(&u.scratch, tile)
	if err != nil {
		return udfErr("SumUDF", "process_tile", err)
	}
	return udfErr("SumUDF", "process_tile", addInto(c.Buf("intensity"), s))
}
func (*SumUDF) Merge(_ *MergeCtx, dest, src map[string]*nd.Array) error {
	return udfErr("SumUDF", "merge", addInto(dest["intensity"], src["intensity"]))
}

func (*SumMergeAllUDF) Name() string { return "SumMergeAllUDF" }

// MergeAll adds the partitions' sums in flat nav order: np.stack(chunks).sum(axis=0)
// without materialising the stack.
func (*SumMergeAllUDF) MergeAll(_ *MergeCtx, ordered []map[string]*nd.Array) (map[string]*nd.Array, error) {
	if len(ordered) == 0 {
		return map[string]*nd.Array{}, nil
	}
	out := ordered[0]["intensity"].Copy()
	for _, r := range ordered[1:] {
		if err := addInto(out, r["intensity"]); err != nil {
			return nil, udfErr("SumMergeAllUDF", "merge_all", err)
		}
	}
	return map[string]*nd.Array{"intensity": out}, nil
}

func (*SumSigUDF) Name() string            { return "SumSigUDF" }
func (*SumSigUDF) Params() ([]byte, error) { return nil, nil }
func (*SumSigUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	return []BufferDecl{deviceNav("intensity", m.InputDType)}, nil
}

// ProcessTile adds the tile's sum over its sig region to the tile's rows
// (a tile may cover part of the signal; the rows collect every part).
func (u *SumSigUDF) ProcessTile(c *Ctx, tile *nd.Array) error {
	if tile == nil || tile.NDim() < 1 {
		return udfErr("SumSigUDF", "process_tile", fmt.Errorf("tile of no axes"))
	}
	if len(u.axes) != tile.NDim()-1 {
		u.axes = make([]int, tile.NDim()-1)
		for i := range u.axes {
			u.axes[i] = i + 1
		}
	}
	s, err := reduceScratch(&u.scratch, tile, u.axes)
	if err != nil {
		return udfErr("SumSigUDF", "process_tile", err)
	}
	return udfErr("SumSigUDF", "process_tile", addInto(c.Buf("intensity"), s))
}

// reduceScratch sums tile over axes into scratch and returns the
// result, valid until the next call: nd.Reduce's values without its
// allocation per tile.
func reduceScratch(scratch *scratch, tile *nd.Array, axes []int) (*nd.Array, error) {
	return reduceOpScratch(nd.Sum, scratch, tile, axes)
}

// reduceOpScratch is reduceScratch with any reduction nd.ReduceInto
// takes.
func reduceOpScratch(op nd.ReduceOp, scratch *scratch, tile *nd.Array, axes []int) (*nd.Array, error) {
	if tile == nil {
		return nil, fmt.Errorf("nil tile")
	}
	var buf [16]int
	shape := buf[:0]
	for i, s := range tile.Shape() {
		if !slices.Contains(axes, i) {
			shape = append(shape, s)
		}
	}
	dst, err := scratch.get(nd.ReduceResultType(op, tile.DType()), shape)
	if err != nil {
		return nil, err
	}
	if err := nd.ReduceInto(op, dst, tile, axes); err != nil {
		return nil, err
	}
	return dst, nil
}

// scratch is a UDF's reused result memory: a flat buffer, grown when a
// result does not fit, and the header of its current view, so that a
// tile's result costs no allocation (a task builds its own UDF, so the
// memory is the task's).
type scratch struct {
	flat *nd.Array
	view nd.Array
}

// get returns a C-contiguous array of dtype dt and the given shape over
// the scratch memory (offset 0), valid until the next get; the contents
// are left as they were.
func (s *scratch) get(dt nd.DType, shape []int) (*nd.Array, error) {
	need := dsProd(shape)
	var err error
	if s.flat == nil || s.flat.DType() != dt || s.flat.Size() < need {
		if s.flat, err = nd.Zeros(dt, max(need, 1)); err != nil {
			return nil, err
		}
	}
	if err := s.view.SetSlice(s.flat, nd.Slice1{Start: 0, Stop: need, Step: 1}); err != nil {
		return nil, err
	}
	if err := s.view.SetReshape(&s.view, shape...); err != nil {
		return nil, err
	}
	return &s.view, nil
}

// sumFramesScratch is reduceScratch over axis 0 with a fast path for a
// C-contiguous float or complex tile: four frames are added per pass over
// the result, d = (((d + f0) + f1) + f2) + f3 element by element, the same
// additions in the same order as nd.Reduce's row-by-row accumulation (so
// the same bits), with a quarter of its loads and stores of the result.
func sumFramesScratch(scratch *scratch, tile *nd.Array) (*nd.Array, error) {
	if tile == nil || tile.NDim() == 0 || !tile.IsCContiguous() {
		return reduceScratch(scratch, tile, axis0)
	}
	sh := tile.Shape()
	dst, err := scratch.get(tile.DType(), sh[1:])
	if err != nil {
		return nil, err
	}
	rows, n, off := sh[0], dst.Size(), tile.Offset()
	switch src := tile.Data().(type) {
	case []float32:
		sumRows(dst.Data().([]float32)[:n], src[off:off+rows*n], rows)
	case []float64:
		sumRows(dst.Data().([]float64)[:n], src[off:off+rows*n], rows)
	case []complex64:
		sumRows(dst.Data().([]complex64)[:n], src[off:off+rows*n], rows)
	case []complex128:
		sumRows(dst.Data().([]complex128)[:n], src[off:off+rows*n], rows)
	default:
		return reduceScratch(scratch, tile, axis0)
	}
	return dst, nil
}

// axis0 is the axes of a sum over frames; read only.
var axis0 = []int{0}

// sumRows sets d to the sum of the rows of src (rows × len(d)), added in
// row order starting from zero.
func sumRows[T float32 | float64 | complex64 | complex128](d, src []T, rows int) {
	clear(d)
	n := len(d)
	r := 0
	for ; r+4 <= rows; r += 4 {
		s0 := src[r*n : r*n+n]
		s1 := src[(r+1)*n : (r+1)*n+n]
		s2 := src[(r+2)*n : (r+2)*n+n]
		s3 := src[(r+3)*n : (r+3)*n+n]
		s0, s1, s2, s3 = s0[:len(d)], s1[:len(d)], s2[:len(d)], s3[:len(d)]
		for k := range d {
			d[k] = d[k] + s0[k] + s1[k] + s2[k] + s3[k]
		}
	}
	for ; r < rows; r++ {
		s0 := src[r*n : r*n+n]
		s0 = s0[:len(d)]
		for k := range d {
			d[k] += s0[k]
		}
	}
}

// rawTileProcessor is the hook by which a partition task lets a UDF take
// a tile in the dtype the dataset stores, before its conversion to the
// run's input dtype: processRawTile must leave the buffers exactly as
// ProcessTile would leave them given the converted tile, bit for bit, or
// report done false having changed nothing (the task then converts the
// tile and calls ProcessTile). The task offers the raw tile only while no
// UDF has been given the converted one (so a UDF that writes to its tile
// is seen by the UDFs after it, as before) and never on a device
// partition.
//
// It exists for SumUDF and SumSigUDF over uint16 data summed as float32,
// the detector case: converting a 1 MiB tile to float32 and then reducing
// it twice read and wrote three times the bytes that summing the uint16
// tile directly reads (internal/kern), and cost more than reading the
// file.
type rawTileProcessor interface {
	processRawTile(c *Ctx, raw *nd.Array) (done bool, err error)
}

// processRaw offers raw to u when it is a rawTileProcessor.
func processRaw(u UDF, c *Ctx, raw *nd.Array) (bool, error) {
	rp, ok := u.(rawTileProcessor)
	if !ok {
		return false, nil
	}
	return rp.processRawTile(c, raw)
}

// processRawTile adds a C-contiguous uint16 tile's sum over its frames to
// a C-contiguous float32 buffer region: per pixel, the frames added in
// order from zero, then the sum added to the buffer, as sumFramesScratch
// and addInto do with the converted tile.
func (u *SumUDF) processRawTile(c *Ctx, raw *nd.Array) (bool, error) {
	src, rows, n, ok := uint16Rows(raw)
	if !ok {
		return false, nil
	}
	dst, ok := float32Run(c.Buf("intensity"))
	if !ok || len(dst) != n {
		return false, nil
	}
	kern.AddColSumsU16(dst, src, rows)
	return true, nil
}

// processRawTile adds each frame's pairwise sum (nd.Reduce's over the
// converted frame, which is one contiguous run) to the tile's rows of a
// C-contiguous float32 nav buffer.
func (u *SumSigUDF) processRawTile(c *Ctx, raw *nd.Array) (bool, error) {
	if raw == nil || raw.NDim() < 2 {
		return false, nil
	}
	src, rows, n, ok := uint16Rows(raw)
	if !ok {
		return false, nil
	}
	dst, ok := float32Run(c.Buf("intensity"))
	if !ok || len(dst) != rows {
		return false, nil
	}
	u.rows.AddRowSumsU16(dst, src, n)
	return true, nil
}

// uint16Rows returns the elements of a C-contiguous uint16 tile of at
// least one axis as rows (its first axis) of n elements.
func uint16Rows(a *nd.Array) (src []uint16, rows, n int, ok bool) {
	if a == nil || a.DType() != nd.Uint16 || a.NDim() == 0 || !a.IsCContiguous() {
		return nil, 0, 0, false
	}
	rows, n = a.Shape()[0], dsProd(a.Shape()[1:])
	d, ok := a.Data().([]uint16)
	if !ok {
		return nil, 0, 0, false
	}
	if rows*n == 0 {
		return nil, rows, n, true
	}
	return d[a.Offset() : a.Offset()+rows*n], rows, n, true
}

// float32Run returns the elements of a C-contiguous float32 array as a
// slice of its memory.
func float32Run(a *nd.Array) ([]float32, bool) {
	if a == nil || a.DType() != nd.Float32 || !a.IsCContiguous() {
		return nil, false
	}
	d, ok := a.Data().([]float32)
	if !ok {
		return nil, false
	}
	if a.Size() == 0 {
		return nil, true
	}
	return d[a.Offset() : a.Offset()+a.Size()], true
}
