// Package udfbridge runs LiberTEM-style user-defined functions (UDFs) over
// detector datasets as task graphs: one task per partition running every
// UDF of the run in one pass over its tiles, then a merge (a log-depth tree
// of ordered pairwise merges, a linear chain on request, or one merge_all
// node). Results are computed buffers or lazy chunkarray.Arrays. See
// docs/udf-semantics.md for the behaviour matched.
//
// # The UDF interface
//
// A UDF is the small interface UDF (Name, Params, Buffers) plus the
// optional interfaces for the parts it implements, the Go way of
// LiberTEM's base class with overridable methods: TileProcessor,
// FrameProcessor, PartitionProcessor (precedence tile > frame > partition,
// or the UDF's choice through MethodChooser), Preprocessor, Postprocessor,
// Merger, MergeAller, ResultGetter, TaskDataer, AuxDataer,
// PreferredDTyper (UseNativeDType is neutral) and Backender.
//
// Buffers are declared with BufferDecl (kind Nav, Sig or Single, an extra
// shape, a dtype, Host or Device, and UseDefault, UsePrivate or
// UseResultOnly) and read through Ctx.Buf, which gives the view of the
// current tile, frame or partition. Meta is LiberTEM's meta: dataset and
// partition shapes, Slice (flat nav with the ROI applied), Coordinates,
// dataset and input dtypes, device class and backend, the ROI, and
// ValidNavMask inside Merge, MergeAll and GetResults (flat over the full
// nav shape; Meta.ValidNav(false) gives it compressed to the ROI, as
// LiberTEM's get_valid_nav_mask(full_nav=False)).
//
// # Tasks rebuild their UDFs
//
// Every task of a run is a registered graph op whose parameters encode the
// dataset (DatasetSpec), the UDFs' names and parameters, the ROI and the
// tiling. A task rebuilds its UDFs from the factory given to RegisterUDF
// (the one piece of package-level state besides the dataset kinds, both
// explicit registries like gob.Register), so a graph runs unchanged on
// Sync, Threaded or a scheduler in another process, and no UDF value is
// shared between tasks. The run's part of the parameters is encoded once
// and shared by its ops, since graph merges compare parameters and an
// in-memory dataset's spec holds all its bytes.
//
// Rejected: passing UDF values (closures) in the graph. It is simpler and
// is what LiberTEM's Dask executor does with pickling, but Go cannot
// serialise a closure, and a UDF mutated by one task would leak into the
// next on an in-process scheduler.
//
// # Merges
//
// A merge node merges an ordered list of chunks (partition results or
// earlier merges, adjacent in flat nav order) into fresh main-node buffers
// (zero-filled, then Preprocess) over their union. The merge tree pairs
// neighbours level by level, the left covering the earlier partitions; the
// linear chain, as LiberTEM's main node, allocates and preprocesses the
// target once over every ROI row and merges each partition once into a
// copy of the chain so far (P Merge calls; the tree makes 2(P-1)); the
// merge_all node takes every partition at once and calls MergeAll (or
// concatenates, for UDFs with nav buffers only and no Merge), falling back
// to ordered Merge calls for UDFs without it. Tree merges therefore assume
// that Merge is associative with the fresh buffers as identity, true of
// sums, extrema and Chan's moment merge; a UDF for which it is not asks for
// MergeLinear. This differs from LiberTEM, whose DelayedJobExecutor chains
// merges linearly (depth = number of partitions).
//
// # Lifecycle
//
// On the main node, before any task: meta without a slice, the method
// check (tile > frame > partition, or MethodChooser), the declarations,
// and the merge target: buffers allocated zero-filled (not result_only)
// and Preprocess run on them, which is how a max-UDF seeds -inf; this
// Preprocess sees the aux data of the rows the target covers
// (ROI-compressed), so a UDF written for the workers runs it unchanged. In each
// partition task: rebuild, meta.Slice and Coordinates, zero-filled
// partition buffers, TaskData, Preprocess, process, Postprocess. Then the
// merges, then GetResults. semantics_completeness_test.go has one row per
// statement of docs/udf-semantics.md.
//
// A tile (or frame, or partition array) passed to a process method is
// valid only until that method returns: tasks read tiles into one reused
// buffer and convert them to the run's input dtype into another, as
// LiberTEM does. A UDF that needs data later copies it (nd's Copy).
//
// # Buffers
//
// Nav buffers are (r_p,)+E in a partition, (r,)+E flat and ROI-compressed
// in RawData, nav+E in Data with the fill value (NaN, 0, false) outside
// the ROI; sig buffers sig+E; single buffers E or (1,). Private buffers
// are merged and dropped; result_only ones exist only on the main node.
// What GetResults returns is brought to the declared shape as LiberTEM
// does: sig and single arrays of the declared size are reshaped (a 0-d
// value for a single buffer declared (1,) becomes (1,)); a nav array is
// taken flat and ROI-compressed, (r,)+E, or in the full nav shape nav+E,
// which Data (and RunLazy's Data form) then returns as it is (RawData
// compressed to the ROI).
//
// # Merges and why a tree
//
// LiberTEM chains merges (depth P); the tree has depth log2 P so merges
// of different subtrees run in parallel on Threaded and no merge waits
// for the slowest partition of the whole run. The valid nav mask inside
// Merge shows the positions merged before the src within that merge node.
//
// # Compute options
//
// WithScheduler, WithOptimize, WithCallbacks and WithProgress configure
// every computation of a run as chunkarray's options configure Compute
// (sched.ComputeConfig): Run's graph, each RunIter step, and RunLazy's
// results when computed with LazyResults.Compute or its Options. The
// optimization (optimize.Optimize) is on by default, as for the
// collections. WithProgress draws sched's progress bar, as LiberTEM's
// run_udf(progress=True); RunIter draws one bar over its partitions.
//
// # Lazy results
//
// RunLazy returns, per UDF, Arrays (Data form) and Raw (RawData form) as
// chunkarray.Arrays: sig and single buffers one block; nav buffers one
// block per partition along the flat nav axis, as LiberTEM's
// delayed_data (the Data form is then reshaped to nav+E, which regroups
// blocks when partitions do not align with nav rows). Each block slices
// the output of one get_results node, because GetResults may look at the
// whole merged result: computing one block still runs every partition.
// Computing several arrays of one run together, of one UDF or several,
// runs each partition task once (the keys are shared).
//
// Run is eager: it computes the graph and runs GetResults before it
// returns. Decision: LiberTEM makes get_results lazy so that attribute
// access on a results object triggers it; in Go, Run returns (results,
// error), and a lazy GetResults would move its errors (result_only unset,
// undeclared or private buffers, with_mask) from Run into every accessor,
// leaving callers holding a Results that may still fail — against "no
// partial result as if it were whole". Where laziness is observable (work
// skipped when a buffer is never read), RunLazy gives it: its
// get_results node runs only when an array is computed.
//
// # Iteration
//
// RunIter processes and merges one non-empty partition per Next (one step
// when there is none); each Partial equals a run with roi = Damage.
// Each partition is merged once, when processed, with the parameters then
// in force, into a target allocated and preprocessed once (so a main-node
// Preprocess that looks at every row, such as a sum of aux data, sees the
// whole ROI at every step, as in LiberTEM).
// UpdateUDF changes parameters for partitions still to come; a cancelled
// ctx ends it with an error saying how many partitions were done. Each
// step runs GetResults on the partial merge (eager, as Run).
//
// # Differences from LiberTEM
//
//   - Merges form a tree by default (MergeLinear for LiberTEM's chain).
//   - Run computes GetResults eagerly (see Lazy results).
//   - Masked data is a (data, valid) pair: Go has no masked arrays.
//   - No dtype=object or 'S1' buffers: buffers are nd.Arrays of numbers
//     and bools; declaring ObjectDType or BytesDType is a *BufferError
//     wrapping ErrUnsupportedDType, which says what to use instead (Uint8
//     for 'S1').
//   - UDFs are rebuilt from registered names and parameters, not pickled.
//   - A run uses the CPU unless WithBackend picks CUDA (no automatic pick:
//     see backend.go). WithBackend(BackendCUDA) needs the cuda build tag
//     (internal/cudaops) and a device, else it fails naming the UDF with
//     "no CUDA in this build"; its partition tasks ask for GPU=1. On its
//     partitions, UDFs implementing DeviceTileProcessor (SumUDF, SumSigUDF,
//     ApplyMasksUDF with dense masks) take float32/float64 tiles on the
//     device, and their Where: Device buffers stay device arrays until the
//     partition is done (device.go).
//
// # Detector files
//
// Besides raw, npy and zarr: Merlin .mib (mibds.go), EMPAD (empadds.go),
// MRC (mrcds.go), Gatan .dm4 (dm4ds.go) and NanoMegas .blo (blods.go)
// files, whose frames lie at computable offsets between headers or
// footers and may need decoding (big-endian counts, bit-packed and reordered raw MIB pixels, quad chip
// layouts, float16). Each parses its headers into a frame table and a
// decoder; framedds.go reads them: a partition task reads a window of
// whole decoded frames and cuts its tiles from it as views. Open
// (open.go) detects a file's format, as LiberTEM's load("auto"), through
// a registry (RegisterFormat) that a format in another package or behind
// a build tag joins from its init function.
//
// # Errors
//
// Bad input (a ROI of the wrong size or dtype, get_results returning an
// undeclared, private or wrong-kind buffer, an unset result_only buffer,
// merge_all returning wrong names, dtypes or shapes, sig or single buffers
// without Merge, an unimplemented method) returns a *UDFError or
// *BufferError naming the UDF and the buffer, never a partial result. A
// UDF that panics inside a task (process, Merge, MergeAll, main-node
// Preprocess in a merge) fails the run with the scheduler's
// *sched.TaskError wrapping a *sched.PanicError with the value and the
// stack; one that panics on the calling goroutine (GetResults in Run,
// RunIter's merges) fails it with a *sched.PanicError, recovered only at
// the exported entry points (Run, Iter.Next).
//
// # Writing a Dataset
//
// A new Dataset (a detector format) is checked in one line with package
// udftest: udftest.CheckDataset(t, ds, data), data being its content read
// by an independent path. NewTaskReader gives the reader a partition task
// uses, for suites and benchmarks outside the package.
//
// A dataset file (raw, npy, zarr, hdf5, mib, empad, mrc, dm4, blo) that
// cannot hold what it declares is a *DatasetError naming the file, refused
// at open before anything is sized from it: nav × sig × itemsize is
// multiplied with overflow checks (numpy's rule on the non-zero
// dimensions), offset + data is compared with the file's size without
// wrapping, a zarr grid of over 1M chunks along its axes is refused before
// its boundary table is built, and the npy, zarr and hdf5 readers' own
// errors (*npy.Error, *zarr.Error, *hdf5.Error with HDF5's error stack)
// are wrapped. The detector formats' frame tables are checked against the
// files' sizes the same way, and a dm4 tag tree's counts and array sizes
// against limits and the file before anything is allocated. Open's
// *OpenError lists every format tried and why each failed.
//
// # Datasets
//
// In memory, chunkarray, raw, npy, zarr and HDF5 (OpenHDF5; it needs
// libhdf5 through cgo: build with -tags hdf5, libhdf5-dev and pkg-config
// installed, else it fails with hdf5.ErrNotBuilt), the detector files
// (see Detector files), and live streams. Open detects a file's format.
//
// # Live data
//
// A LiveDataset (DialLive, NewLive) receives a scan's frames over TCP as
// the detector produces them, as LiberTEM-live does: Read waits for the
// frames it asks for, so Run processes each partition as soon as its
// frames are in and RunIter yields partial results while the scan is
// still being acquired. The format is tessera's own; LiveSender and
// SendFrames write it. All integers are little-endian:
//
//	header  8 bytes   magic "TSRLIVE\x00"
//	        uint16    version, 1
//	        uint8     dtype: 1 bool, 2 int8, 3 int16, 4 int32, 5 int64,
//	                  6 uint8, 7 uint16, 8 uint32, 9 uint64, 10 float32,
//	                  11 float64, 12 complex64, 13 complex128
//	        uint8     byte order of the frames: 0 little, 1 big
//	        uint8     nav dims (>= 1), uint8 sig dims (>= 1), 64 in all
//	        2 bytes   zero
//	        uint64    each nav dim, then each sig dim (< 2^31)
//	frame   uint64    sequence number: 0, 1, 2, ... in flat nav order
//	        uint64    payload size: prod(sig) · itemsize
//	        payload   the frame, C order
//
// The receiver checks every field before it sizes anything from it: the
// dims counts, each dim, nav·sig·itemsize with overflow checks against
// LiveOptions.MaxBytes (the frames are kept in memory) and a frame
// against MaxLiveFrameBytes; each frame's sequence number and size
// against the header. Every read of the connection has a deadline
// (LiveOptions.Timeout), so a stalled peer fails the reads waiting on
// it instead of hanging them. Errors are *LiveError naming the peer and
// the frame; a stream that is not the format wraps ErrLiveFormat.
package udfbridge
