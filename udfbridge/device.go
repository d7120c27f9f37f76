package udfbridge

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// Device processing: what a CUDA partition does for the UDFs that can
// process tiles on the device (LiberTEM's cupy backend).
//
// On a partition of a run with BackendCUDA, a UDF processes its tiles on
// the device when it implements DeviceTileProcessor, its method is tile,
// its DeviceTiles(meta) says yes, the input dtype and the dtypes of its
// Device buffers are kernel dtypes (float32, float64) and tiles are whole
// frames (the default of a CUDA run; an explicit WithTileShape with a
// partial signal keeps the CPU path). Such a UDF gets ProcessTileDevice
// calls with the tile uploaded to the device (one upload per tile for all
// device UDFs of the run), and its buffers declared Where: Device are
// device arrays for the whole partition (Ctx.DeviceBuf; Ctx.Buf returns nil
// for them inside ProcessTileDevice): uploaded once after Preprocess (so a
// Preprocess that seeds them on the host counts), accumulated into by the
// kernels, downloaded once when the partition's tiles are done, before
// Postprocess, into the host buffers the partition returns. Host buffers
// stay host buffers. Every other UDF of the run, on every partition, and
// every UDF on a CPU partition process on the host with host buffers, Where
// being ignored, as LiberTEM allocates where='device' buffers on the host
// for numpy partitions. Merge and GetResults run on the main node on host
// buffers.
//
// A partition process uses one device, cudaops.Shared(0), opened once per
// process: a worker process with several GPUs sees the one that
// CUDA_VISIBLE_DEVICES names first (set it per worker, as LiberTEM does).
//
// In a build without CUDA the device calls return cudaops.ErrNoCUDA: a
// CUDA run is refused at plan time (checkBackend), and a partition that
// got past it (a stand-in device count in tests) fails naming the UDF with
// "no CUDA in this build".
//
// Rejected: keeping Ctx.Buf pointing at the host buffer of a device buffer
// inside ProcessTileDevice (a stale array a UDF could write to silently),
// and device views of partial sig regions (a device Array is contiguous;
// the rows of a nav buffer are, a sig region is not).

// DeviceArray is an array in device memory: float32 or float64,
// C-contiguous, of a fixed shape (internal/cudaops.Array).
type DeviceArray = cudaops.Array

// DeviceTileProcessor processes tiles on the device on the partitions of
// a CUDA run. DeviceTiles tells, from the meta (input dtype, shapes),
// whether the UDF can take this run's tiles on the device; when it says no,
// ProcessTile runs instead. ProcessTileDevice gets the tile (depth,)+sig of
// the input dtype on the device, Device buffers through Ctx.DeviceBuf
// (nav buffers at the tile's rows), host buffers through Ctx.Buf, and may
// upload its own arrays with Ctx.Upload. Kernels run asynchronously on the
// device's stream, in order; the engine waits when it downloads.
type DeviceTileProcessor interface {
	TileProcessor
	DeviceTiles(m *Meta) bool
	ProcessTileDevice(c *Ctx, tile *DeviceArray) error
}

// DeviceTileBytes is the tile size of a CUDA run with whole-frame tiles
// when WithTileShape does not set one: larger than the CPU's
// DefaultTileBytesPerCore, since each tile is one host-to-device copy and
// a few kernel launches.
const DeviceTileBytes = 16 << 20

// deviceCopies counts the Device buffers uploaded and downloaded, for the
// tests of "once per partition".
var deviceCopies struct{ up, down atomic.Int64 }

// cudaDevice is the device a CUDA partition uses; a variable so that tests
// can tell whether a partition asked for it.
var cudaDevice = func() (*cudaops.Device, error) { return cudaops.Shared(0) }

// DeviceBuf returns the device view of a buffer declared Where: Device,
// inside ProcessTileDevice on a CUDA partition (nav buffers at the tile's
// rows, sig and single buffers whole); nil otherwise.
func (c *Ctx) DeviceBuf(name string) *DeviceArray { return c.dbufs[name] }

// Upload copies a to the device of the current CUDA partition; the engine
// frees it when the partition is done. Only inside ProcessTileDevice.
func (c *Ctx) Upload(a *nd.Array) (*DeviceArray, error) {
	if c.dev == nil {
		return nil, fmt.Errorf("udfbridge: UDF %s: Upload outside a device tile", c.udf)
	}
	return c.dev.upload(a)
}

// useDevice reports whether UDF b processes its tiles on the device on a
// partition with meta m, and which of its buffers are then device arrays.
func (ri *runInfo) useDevice(b *built, m *Meta) (bool, []string) {
	if ri.Backend != BackendCUDA || b.method != MethodTile || !slices.Equal(ri.SigTile, ri.SigShape) {
		return false, nil
	}
	dp, ok := b.u.(DeviceTileProcessor)
	if !ok || !cudaops.KernelDType(ri.Input) {
		return false, nil
	}
	var names []string
	for _, d := range b.decls {
		if d.Where != Device || d.Use == UseResultOnly {
			continue
		}
		if !cudaops.KernelDType(d.dtype()) {
			return false, nil
		}
		names = append(names, d.Name)
	}
	if !dp.DeviceTiles(m) {
		return false, nil
	}
	return true, names
}

// devTask is a partition's device state: the device, the tile buffer, and
// every array to free when the partition is done.
type devTask struct {
	d     *cudaops.Device
	tile  *cudaops.Array // (depth,)+sig of the input dtype, grown as needed
	owned []*cudaops.Array
}

func newDevTask() (*devTask, error) {
	d, err := cudaDevice()
	if err != nil {
		return nil, err
	}
	return &devTask{d: d}, nil
}

func (t *devTask) upload(a *nd.Array) (*cudaops.Array, error) {
	g, err := t.d.Upload(a)
	if err != nil {
		return nil, err
	}
	t.owned = append(t.owned, g)
	return g, nil
}

// putTile copies tile to the device and returns its device view.
func (t *devTask) putTile(tile *nd.Array) (*cudaops.Array, error) {
	sh := tile.Shape()
	if t.tile == nil || t.tile.DType() != tile.DType() || !slices.Equal(t.tile.Shape()[1:], sh[1:]) || t.tile.Shape()[0] < sh[0] {
		g, err := t.d.Alloc(tile.DType(), sh...)
		if err != nil {
			return nil, err
		}
		t.owned = append(t.owned, g)
		t.tile = g
	}
	v, err := t.tile.Rows(0, sh[0])
	if err != nil {
		return nil, err
	}
	if err := v.CopyFrom(tile); err != nil {
		return nil, err
	}
	return v, nil
}

// free releases every array of the partition.
func (t *devTask) free() error {
	if t == nil {
		return nil
	}
	var errs []error
	for _, a := range t.owned {
		errs = append(errs, a.Free())
	}
	t.owned, t.tile = nil, nil
	return errors.Join(errs...)
}

// toDevice makes st's Device buffers device arrays: each host buffer
// (zero, or as Preprocess left it) uploaded once.
func (st *udfState) toDevice(t *devTask, names []string) error {
	st.dbufs = map[string]*cudaops.Array{}
	for _, name := range names {
		g, err := t.upload(st.bufs[name])
		if err != nil {
			return &BufferError{UDF: st.ctx.udf, Buffer: name, Err: err}
		}
		st.dbufs[name] = g
		deviceCopies.up.Add(1)
	}
	return nil
}

// fromDevice downloads st's device buffers into its host buffers, once,
// when the partition's tiles are done.
func (st *udfState) fromDevice() error {
	for name, g := range st.dbufs {
		h, err := g.Download()
		if err == nil {
			err = nd.Assign(st.bufs[name], h)
		}
		if err != nil {
			return &BufferError{UDF: st.ctx.udf, Buffer: name, Err: err}
		}
		deviceCopies.down.Add(1)
	}
	return nil
}

// deviceView adds to c (a tile's Ctx) the device views of st's device
// buffers, nav ones at rows [k, k+n), and removes their host views.
func (st *udfState) deviceView(c *Ctx, t *devTask, k, n int) error {
	c.dev = t
	c.dbufs = make(map[string]*cudaops.Array, len(st.dbufs))
	for _, d := range st.b.decls {
		g, ok := st.dbufs[d.Name]
		if !ok {
			continue
		}
		delete(c.bufs, d.Name)
		if d.Kind == Nav {
			v, err := g.Rows(k, n)
			if err != nil {
				return &BufferError{UDF: st.ctx.udf, Buffer: d.Name, Err: err}
			}
			g = v
		}
		c.dbufs[d.Name] = g
	}
	return nil
}
