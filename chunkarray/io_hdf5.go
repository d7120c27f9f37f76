package chunkarray

import (
	"context"
	"fmt"
	"runtime"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
)

const opHDF5Read = "chunkarray.hdf5-read"

func init() { register[hdf5ReadP](opHDF5Read) }

// hdf5Handle holds the dataset opened by FromHDF5 for the tasks of its
// array in this process: opening a file costs far more than reading a
// small block, and the dataset's chunk cache serves neighbouring blocks.
// It is closed when the array's graph is garbage (a cleanup on the
// handle). Decoded ops (on a worker) have none and open per task.
type hdf5Handle struct {
	d *hdf5.Dataset
}

// hdf5ReadP reads one block of an HDF5 dataset. Args: block start, block
// shape.
type hdf5ReadP struct {
	Path    string   `json:"path"`
	Dataset string   `json:"dataset"`
	D       nd.DType `json:"dtype"`
	Shape   []int    `json:"shape"`
	h       *hdf5Handle
}

func (p hdf5ReadP) run(_ context.Context, args []any) (any, error) {
	st, err := argInts(args, 0, opHDF5Read)
	if err != nil {
		return nil, err
	}
	sh, err := argInts(args, 1, opHDF5Read)
	if err != nil {
		return nil, err
	}
	if err := graph.CheckPath(opHDF5Read, p.Path); err != nil {
		return nil, err
	}
	var d *hdf5.Dataset
	if p.h != nil {
		d = p.h.d
	} else {
		if d, err = hdf5.Open(p.Path, p.Dataset); err != nil {
			return nil, &Error{Op: "from hdf5", Err: err}
		}
		defer d.Close()
		// The file may have changed since the graph was built.
		if d.DType() != p.D || !slices.Equal(d.Shape(), p.Shape) {
			return nil, &Error{Op: "from hdf5", Shapes: [][]int{p.Shape, d.Shape()},
				Reason: fmt.Sprintf("%s dataset %s is now %v of shape %v, was %v", p.Path, p.Dataset, d.DType(), d.Shape(), p.D)}
		}
	}
	b, err := d.Read(st, sh)
	if err != nil {
		return nil, &Error{Op: "from hdf5", Err: err}
	}
	return b, nil
}

// FromHDF5 returns the dataset name ("/entry/data") of the HDF5 file at
// path, cut into chunks: any spec NormalizeChunks takes, or nil for the
// file's own chunks (Dask's from_array(h5py dataset, chunks=dataset.chunks);
// "auto" for a dataset that is not chunked). Each block's task reads its
// region with one hyperslab read. The file is opened now, once for the
// tasks of this process; it must not change until the array is computed.
// Reading HDF5 needs the hdf5 build tag (nd/hdf5): without it the array's
// sticky error wraps hdf5.ErrNotBuilt. Errors are sticky and name the file
// and the dataset.
func FromHDF5(path, name string, chunks any) *Array {
	const op = "from-hdf5"
	if err := graph.CheckPath(opHDF5Read, path); err != nil {
		return errArray(&Error{Op: op, Err: err})
	}
	d, err := hdf5.Open(path, name)
	if err != nil {
		return errArray(&Error{Op: op, Err: err})
	}
	shape := d.Shape()
	if chunks == nil {
		chunks = "auto"
		if c := d.Chunks(); c != nil {
			chunks = c
		}
	}
	ch, err := NormalizeChunks(op, chunks, shape, d.DType())
	if err != nil {
		d.Close()
		return errArray(err)
	}
	h := &hdf5Handle{d: d}
	runtime.AddCleanup(h, func(d *hdf5.Dataset) { d.Close() }, d)
	p := hdf5ReadP{Path: path, Dataset: name, D: d.DType(), Shape: shape, h: h}
	parts := append(append(fileToken(path), name), chunksToken(ch)...)
	return newArray(op, shape, ch, d.DType(), &sourceLayer{op: newOp(opHDF5Read, p)}, parts...)
}

func (hdf5ReadP) Label() string { return "from-hdf5" }
