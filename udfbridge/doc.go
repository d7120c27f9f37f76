// Package udfbridge runs LiberTEM-style user-defined functions (UDFs) over
// detector datasets as task graphs: one task per partition running every
// UDF of the run in one pass over its tiles, then a merge (a log-depth tree
// of ordered pairwise merges, a linear chain on request, or one merge_all
// node). Results are computed buffers or lazy chunkarray.Arrays. See
// ../shared/UDF-SEMANTICS.md for the behaviour matched.
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
// ValidNavMask inside Merge.
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
// linear chain merges each partition into the previous result; the
// merge_all node takes every partition at once and calls MergeAll (or
// concatenates, for UDFs with nav buffers only and no Merge), falling back
// to ordered Merge calls for UDFs without it. Tree merges therefore assume
// that Merge is associative with the fresh buffers as identity, true of
// sums, extrema and Chan's moment merge; a UDF for which it is not asks for
// MergeLinear. This differs from LiberTEM, whose DelayedJobExecutor chains
// merges linearly (depth = number of partitions).
//
// # Runs
//
// Run computes the results; RunLazy returns each buffer as a one-block
// chunkarray.Array (the ROI and get_results apply after the merge, on the
// main node, so nav buffers are not chunked per partition as in LiberTEM);
// RunIter steps one partition at a time with partial results and damage,
// takes parameter updates between steps (UpdateUDF), and reports how many
// partitions were done when ctx is cancelled.
//
// # Errors
//
// Bad input (a ROI of the wrong size or dtype, get_results returning an
// undeclared, private or wrong-kind buffer, an unset result_only buffer,
// merge_all returning wrong names, dtypes or shapes, sig or single buffers
// without Merge, an unimplemented method) returns a *UDFError or
// *BufferError naming the UDF and the buffer, never a partial result. A
// UDF that panics inside a task fails the run with the scheduler's
// *sched.TaskError wrapping a *sched.PanicError.
package udfbridge
