package udfbridge

import (
	"context"
	"encoding/json"
	"fmt"

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
}

var _ Dataset = (*NPYDataset)(nil)

// OpenNPY opens the .npy file at path, reading its header only.
func OpenNPY(path string, sigDims int) (*NPYDataset, error) {
	f, err := npy.OpenFile(path)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: npy dataset: %w", err)
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
	}
	return d, nil
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
	bounds := make([][]int, len(d.nav)+len(d.sig))
	bounds[0] = make([]int, d.nav[0]+1)
	for i := range bounds[0] {
		bounds[0][i] = i
	}
	for i, s := range append(dsClone(d.nav[1:]), d.sig...) {
		bounds[i+1] = []int{0, s}
	}
	return readBlocks(ctx, d.String(), d.DType(), d.nav, d.sig, bounds, start, n, sigStart, sigShape,
		func(ctx context.Context, idx [][]int) ([]*nd.Array, error) {
			if len(idx) == 0 {
				return nil, nil
			}
			lo, hi := idx[0][0], idx[len(idx)-1][0]+1
			rows, err := d.f.ReadRange(lo, hi-lo)
			if err != nil {
				return nil, fmt.Errorf("udfbridge: npy dataset: %w", err)
			}
			out := make([]*nd.Array, len(idx))
			for i, ix := range idx {
				r, err := rows.Slice(append([]nd.Slice1{{Start: ix[0] - lo, Stop: ix[0] - lo + 1, Step: 1}}, fullSlices(rows.Shape()[1:])...)...)
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
