package udfbridge

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// UDF is a user-defined function over the frames of a dataset, LiberTEM's
// UDF class in Go form. A UDF implements this interface plus the optional
// interfaces below for the parts it needs (TileProcessor, Merger, ...).
//
// Name and Params identify a UDF: inside each task the engine rebuilds the
// UDF afresh with the factory registered under Name (RegisterUDF), from
// Params, so a UDF value is never shared between tasks and never mutated by
// the engine. Buffers declares the result buffers; it may look at the meta
// (dataset shape, dtypes) but not at any data.
type UDF interface {
	Name() string
	Params() ([]byte, error)
	Buffers(m *Meta) ([]BufferDecl, error)
}

// TileProcessor processes one tile: a block of frames (depth, sig tile...)
// of the input dtype. Nav buffers are viewed at the tile's rows, sig buffers
// at the tile's sig region (LiberTEM process_tile).
type TileProcessor interface {
	ProcessTile(c *Ctx, tile *nd.Array) error
}

// FrameProcessor processes one whole frame of shape sig; nav buffers are
// viewed at one element (shape E, or (1,) when E is empty).
type FrameProcessor interface {
	ProcessFrame(c *Ctx, frame *nd.Array) error
}

// PartitionProcessor processes a whole partition, (frames,)+sig, with
// the ROI applied.
type PartitionProcessor interface {
	ProcessPartition(c *Ctx, partition *nd.Array) error
}

// Preprocessor runs before processing, on each task's partition buffers,
// and on the main node on each merge target's buffers (Meta.Partition is
// -1 there); both see the aux data of their rows through Ctx.Aux.
type Preprocessor interface {
	Preprocess(c *Ctx) error
}

// Postprocessor runs after a task processed its partition.
type Postprocessor interface {
	Postprocess(c *Ctx) error
}

// Merger merges a partition's results src into dest. dest views the
// partition's slice of nav buffers and the whole sig and single buffers;
// c.Meta().ValidNavMask shows the positions merged before. Merges must be
// associative with the main-node buffers (zero-filled, then Preprocess) as
// identity, since tessera merges in a tree (see doc.go); ask for
// MergeLinear otherwise.
//
// Calls per run of P non-empty partitions: MergeLinear, RunIter and the
// merge_all node's fallback merge each partition once (P calls, into a
// target preprocessed once); the tree merges the two children of each of
// its P-1 nodes into fresh buffers, 2(P-1) calls (1 when P = 1), since a
// child that is itself a merge is merged again one level up.
type Merger interface {
	Merge(c *MergeCtx, dest, src map[string]*nd.Array) error
}

// MergeAller merges every partition's results in one call, ordered by flat
// nav origin, returning the merged buffers (nav buffers flat and
// ROI-compressed, shape (r,)+E). Names must be declared, dtypes and shapes
// exact; buffers not returned stay zero.
type MergeAller interface {
	MergeAll(c *MergeCtx, ordered []map[string]*nd.Array) (map[string]*nd.Array, error)
}

// ResultGetter computes the final results from the merged buffers, on the
// main node. It returns a subset of the declared non-private buffers; the
// rest pass through unchanged. Meta.ValidNavMask holds the merged
// positions and Ctx.Aux the aux data (ROI-compressed).
type ResultGetter interface {
	GetResults(c *Ctx) (map[string]*nd.Array, error)
}

// TaskDataer builds per-task data (LiberTEM get_task_data), on the worker,
// once per partition, before Preprocess; read it with Ctx.TaskData.
type TaskDataer interface {
	TaskData(c *Ctx) (map[string]any, error)
}

// Method is a processing method.
type Method uint8

const (
	// MethodAuto: tile > frame > partition by which the UDF implements.
	MethodAuto Method = iota
	MethodTile
	MethodFrame
	MethodPartition
)

func (m Method) String() string {
	switch m {
	case MethodTile:
		return "tile"
	case MethodFrame:
		return "frame"
	case MethodPartition:
		return "partition"
	}
	return "auto"
}

// MethodChooser lets a UDF choose its processing method; choosing one it
// does not implement is an error.
type MethodChooser interface {
	Method(m *Meta) Method
}

// UseNativeDType is the neutral preferred input dtype: the dataset's dtype
// passes unchanged (LiberTEM's USE_NATIVE_DTYPE). It is not a valid nd dtype.
const UseNativeDType nd.DType = 0xff

// PreferredDTyper tells the UDF's preferred input dtype; without it the
// preference is Float32. The run's input dtype is nd.ResultType of the
// dataset dtype and every UDF's preference.
type PreferredDTyper interface {
	PreferredInputDType() nd.DType
}

// Backend is an array backend a UDF can process with.
type Backend string

const (
	BackendCPU  Backend = "numpy"
	BackendCUDA Backend = "cupy"
)

// Backender lists the backends a UDF supports; without it, CPU only.
type Backender interface {
	Backends() []Backend
}

// AuxDataer gives per-nav-position parameters (LiberTEM aux data): arrays
// of shape nav+E or (n,)+E, viewed per tile, frame or partition like nav
// buffers through Ctx.Aux. They are part of the UDF's parameters: the UDF
// must encode them in Params (an EncodedArray field per array, made with
// EncodeArray and read back with its Decode in the factory).
type AuxDataer interface {
	AuxData() (map[string]*nd.Array, error)
}

// Factory rebuilds a UDF from its parameters.
type Factory func(params []byte) (UDF, error)

var udfRegistry = struct {
	sync.RWMutex
	m map[string]Factory
}{m: map[string]Factory{}}

// RegisterUDF records how to rebuild UDFs named name, for the tasks of a
// run (the explicit registry, like gob.Register). Meant for init functions;
// it panics on an empty or duplicate name, a programmer error.
func RegisterUDF(name string, f Factory) {
	if name == "" || f == nil {
		panic("udfbridge: RegisterUDF with empty name or nil factory")
	}
	udfRegistry.Lock()
	defer udfRegistry.Unlock()
	if _, dup := udfRegistry.m[name]; dup {
		panic("udfbridge: UDF " + name + " registered twice")
	}
	udfRegistry.m[name] = f
	graph.RegisterRequirement(requireUDF + name)
}

// Requirement names of the user's registries (graph.RegisterRequirement):
// the tasks of a run require its UDFs, its dataset's kind and the map
// functions of its AutoUDFs, so that a cluster places them only on workers
// that registered them, and refuses those this process registered too
// late for worker processes to have them.
const (
	requireUDF     = "udfbridge.udf/"
	requireDataset = "udfbridge.dataset/"
	requireMapFunc = "udfbridge.mapfunc/"
)

// Requirer is a UDF that needs more registered than itself (AutoUDF: its
// map function), as requirement names (graph.RegisterRequirement).
type Requirer interface {
	Requires() []string
}

// NewUDF rebuilds a registered UDF from its parameters.
func NewUDF(name string, params []byte) (UDF, error) {
	udfRegistry.RLock()
	f, ok := udfRegistry.m[name]
	udfRegistry.RUnlock()
	if !ok {
		return nil, fmt.Errorf("udfbridge: UDF %q is not registered (RegisterUDF)", name)
	}
	u, err := f(params)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: UDF %q: rebuilding from params: %w", name, err)
	}
	return u, nil
}

// RegisteredUDFs returns the registered UDF names, sorted.
func RegisteredUDFs() []string {
	udfRegistry.RLock()
	defer udfRegistry.RUnlock()
	out := make([]string, 0, len(udfRegistry.m))
	for k := range udfRegistry.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
