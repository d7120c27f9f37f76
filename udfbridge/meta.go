package udfbridge

import (
	"fmt"

	"github.com/tessera-go/tessera/internal/cudaops"
	"github.com/tessera-go/tessera/nd"
)

// Slice locates the data being processed: NavOrigin and NavSize in flat
// nav coordinates with the ROI applied (NavOrigin = number of ROI frames
// before), SigOrigin and SigShape the sig region (the whole frame outside
// process_tile).
type Slice struct {
	NavOrigin, NavSize  int
	SigOrigin, SigShape []int
}

// Meta is what a UDF knows about its run (LiberTEM's UDFMeta).
type Meta struct {
	NavShape, SigShape []int
	// PartitionShape is (frames in the partition with ROI,)+sig; nil on the
	// main node.
	PartitionShape []int
	// Slice is nil on the main node.
	Slice *Slice
	// Coordinates holds the true nav indices of the current tile, frame or
	// partition: an int64 array (frames, len(NavShape)). Nil on the main node.
	Coordinates              *nd.Array
	DatasetDType, InputDType nd.DType
	DeviceClass              string // "cpu" or "cuda"
	Backend                  Backend
	// ROI is the run's ROI, flat over the nav axis, or nil.
	ROI []bool
	// ValidNavMask, set inside Merge, MergeAll and GetResults, is flat
	// over the full nav shape (false outside the ROI): in Merge the
	// positions merged before this call, in GetResults every merged
	// position (the ROI after a whole run, the damage at a RunIter step).
	// Nil in process_* and Preprocess. ValidNav gives it ROI-compressed.
	ValidNavMask []bool
	// Partition is the partition index, -1 on the main node.
	Partition int
}

// ValidNav returns the valid nav mask as LiberTEM's
// get_valid_nav_mask(full_nav) does: with fullNav, ValidNavMask itself
// (flat over the whole nav shape); without, compressed to the ROI, one
// element per ROI position in flat nav order (the same as ValidNavMask
// when there is no ROI). Nil where ValidNavMask is nil.
func (m *Meta) ValidNav(fullNav bool) []bool {
	if m.ValidNavMask == nil || fullNav || m.ROI == nil {
		return m.ValidNavMask
	}
	out := make([]bool, 0, len(m.ValidNavMask))
	for i, in := range m.ROI {
		if in && i < len(m.ValidNavMask) {
			out = append(out, m.ValidNavMask[i])
		}
	}
	return out
}

func (m *Meta) clone() *Meta {
	c := *m
	return &c
}

// Ctx is what a UDF sees while it runs: the current views of its buffers,
// the meta, task data, aux data and its parameters. The Ctx that
// process_tile gets, its Meta and its views are valid during that call:
// the engine sets them again for the task's next tile rather than
// allocating new ones (as the tile itself is valid until the next).
type Ctx struct {
	udf      string
	meta     *Meta
	params   []byte
	bufs     map[string]*nd.Array
	aux      map[string]*nd.Array
	taskData map[string]any
	masks    map[string]*nd.Array

	// Inside ProcessTileDevice: the partition's device state and the
	// device views of Device buffers (device.go).
	dev   *devTask
	dbufs map[string]*cudaops.Array
}

// Buf returns the current view of a buffer, or nil for an unknown name.
func (c *Ctx) Buf(name string) *nd.Array { return c.bufs[name] }

// Bufs returns the current views of all buffers (not a copy).
func (c *Ctx) Bufs() map[string]*nd.Array { return c.bufs }

// Meta returns the meta for the current step.
func (c *Ctx) Meta() *Meta { return c.meta }

// Params returns the UDF's encoded parameters.
func (c *Ctx) Params() []byte { return c.params }

// TaskData returns an entry of the task data (nil outside a task).
func (c *Ctx) TaskData(name string) any { return c.taskData[name] }

// Aux returns aux data viewed for the current tile, frame or partition.
func (c *Ctx) Aux(name string) *nd.Array { return c.aux[name] }

// WithMask sets a custom valid mask on a buffer, from GetResults: a bool
// array broadcastable to the buffer's data shape (LiberTEM's with_mask).
func (c *Ctx) WithMask(name string, mask *nd.Array) error {
	if mask == nil || mask.DType() != nd.Bool {
		return &BufferError{UDF: c.udf, Buffer: name, Err: fmt.Errorf("with_mask: mask must be a bool array")}
	}
	if c.masks == nil {
		c.masks = map[string]*nd.Array{}
	}
	c.masks[name] = mask
	return nil
}

// MergeCtx is what Merge and MergeAll see: the meta with ValidNavMask set
// and the UDF's parameters.
type MergeCtx struct {
	meta   *Meta
	params []byte
}

func (c *MergeCtx) Meta() *Meta    { return c.meta }
func (c *MergeCtx) Params() []byte { return c.params }
