package udfbridge

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// KindNPY is the dataset kind of .npy files (OpenNPY).
const KindNPY = "npy"

func init() {
	RegisterDatasetKind(KindNPY, func(params []byte) (Dataset, error) {
		var p sigDimsParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: npy dataset parameters: %w", err)
		}
		return OpenNPY(p.Path, p.SigDims)
	})
}

// NPYDataset is a .npy file whose last sigDims axes are the sig. A
// little-endian C-order file is read as a raw file at the header's data
// offset: only the tile's bytes, with ReadAt. Other files (big-endian or
// Fortran order) read the rows of axis 0 that hold the frames with
// npy.File.ReadRange and cut the tile out of them.
type NPYDataset struct {
	f        *npy.File
	path     string
	sigDims  int
	nav, sig []int
	raw      *RawDataset // nil unless little-endian C order
	bounds   [][]int     // blocks of rows of axis 0 when raw is nil
}

// npyBlockBytes is the size of the blocks of rows that a big-endian or
// Fortran-order file is read in. Rows were first each a block, with a
// boundary table of one int per row built at every Read: for a file of
// short rows that table was 8 bytes per row of the file, and for an empty
// sig (rows of 0 bytes, so no file-size check bounds their number) a
// header of 2^40 rows made it 8 TiB.
const npyBlockBytes = 1 << 20

var _ Dataset = (*NPYDataset)(nil)

// OpenNPY opens the .npy file at path, reading its header only.
func OpenNPY(path string, sigDims int) (*NPYDataset, error) {
	if err := graph.CheckPath("udfbridge.open-npy", path); err != nil {
		return nil, &DatasetError{Kind: KindNPY, Path: path, Reason: "refused", Err: err}
	}
	f, err := npy.OpenFile(path)
	if err != nil {
		return nil, &DatasetError{Kind: KindNPY, Path: path, Reason: "open", Err: err}
	}
	h := f.Header()
	nav, sig, err := splitNavSig("npy file "+path, h.Shape, sigDims)
	if err != nil {
		f.Close()
		return nil, err
	}
	d := &NPYDataset{f: f, path: path, sigDims: sigDims, nav: nav, sig: sig}
	if !h.BigEndian && !h.Fortran {
		d.raw, err = OpenRaw(path, h.DType, nav, sig, h.DataOffset)
		if err != nil {
			f.Close()
			return nil, err
		}
		return d, nil
	}
	d.bounds = rowBlocks(h.Shape, h.DType.Size())
	return d, nil
}

// rowBlocks returns the block boundaries of an array of shape read in
// blocks of whole rows of axis 0 of about npyBlockBytes (at least one row),
// the other axes whole. Rows of 0 bytes make one block: no read of such an
// array touches the file. npy.OpenFile has checked that the rows fit the
// file, so the table has at most file size / npyBlockBytes + 2 entries.
func rowBlocks(shape []int, itemsize int) [][]int {
	rowBytes := itemsize
	for _, s := range shape[1:] {
		rowBytes *= s // bounded by the file size, which OpenFile checked
	}
	b := make([][]int, len(shape))
	per := shape[0]
	if rowBytes > 0 {
		per = max(1, npyBlockBytes/rowBytes)
	}
	b[0] = []int{0}
	for x := per; x < shape[0]; x += per {
		b[0] = append(b[0], x)
	}
	if shape[0] > 0 {
		b[0] = append(b[0], shape[0])
	}
	for i, s := range shape[1:] {
		b[i+1] = []int{0, s}
	}
	return b
}

// Close closes the file.
func (d *NPYDataset) Close() error { return d.f.Close() }

func (d *NPYDataset) NavShape() []int { return dsClone(d.nav) }
func (d *NPYDataset) SigShape() []int { return dsClone(d.sig) }
func (d *NPYDataset) DType() nd.DType { return d.f.Header().DType }
func (d *NPYDataset) String() string  { return "npy file " + d.path }

func (d *NPYDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(sigDimsParams{Path: d.path, SigDims: d.sigDims})
	return DatasetSpec{Kind: KindNPY, Params: b}, err
}

func (d *NPYDataset) Read(ctx context.Context, start, n int, sigStart, sigShape []int) (*nd.Array, error) {
	if d.raw != nil {
		a, err := d.raw.Read(ctx, start, n, sigStart, sigShape)
		if err != nil {
			return nil, fmt.Errorf("udfbridge: npy file %s: %w", d.path, err)
		}
		return a, nil
	}
	b0 := d.bounds[0]
	return readBlocks(ctx, d.String(), d.DType(), d.nav, d.sig, d.bounds, start, n, sigStart, sigShape,
		func(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
			if len(idx) == 0 {
				return nil, nil
			}
			lo, hi := b0[idx[0][0]], b0[idx[0][0]+1]
			for _, ix := range idx {
				lo, hi = min(lo, b0[ix[0]]), max(hi, b0[ix[0]+1])
			}
			rows, err := d.f.ReadRange(lo, hi-lo)
			if err != nil {
				return nil, &DatasetError{Kind: KindNPY, Path: d.path, Reason: fmt.Sprintf("reading rows [%d, %d)", lo, hi), Err: err}
			}
			out := make([]*nd.Array, len(idx))
			for i, ix := range idx {
				r, err := rows.Slice(append([]nd.Slice1{{Start: b0[ix[0]] - lo, Stop: b0[ix[0]+1] - lo, Step: 1}}, fullSlices(rows.Shape()[1:])...)...)
				if err != nil {
					return nil, fmt.Errorf("udfbridge: npy file %s: %w", d.path, err)
				}
				out[i] = r
			}
			return out, nil
		})
}

func fullSlices(shape []int) []nd.Slice1 {
	s := make([]nd.Slice1, len(shape))
	for i, x := range shape {
		s[i] = nd.Slice1{Start: 0, Stop: x, Step: 1}
	}
	return s
}
