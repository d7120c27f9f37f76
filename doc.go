// Package tessera is a lazy task-graph engine for Go, in the manner of
// Dask: work is described as a graph of tasks, and nothing runs until
// Compute hands the graph to a scheduler. This package holds no code; it
// maps the packages, floor by floor, each importing only from below:
//
//	graph        the task graph as plain data: keys, nodes, ops, the value codec
//	nd           eager n-d arrays and their kernels (nd/npy, nd/zarr, nd/hdf5: files)
//	freelist     the bounded free list of large buffers that a run or a
//	             worker owns and its tasks find in their context
//
//	optimize     graph → graph passes: cull, fuse, inline, order
//	sched        the Scheduler interface; Sync, Threaded; callbacks
//	             (sched/schedtest: the suite every scheduler passes;
//	             sched/distributed: scheduler, workers and client over gRPC)
//	viz          task-graph pictures in Dask's style
//	delayed      typed lazy calls of Go functions (dask.delayed)
//	chunkarray   lazy chunked n-d arrays (dask.array), blockwise fusion
//	udfbridge    LiberTEM-style UDFs over detector datasets
//	             (udfbridge/udftest: the suite every Dataset passes)
//
//	cmd/tessera  demo, bench, chunktune, scheduler, worker, certs, version
//	cmd/graphviz draws a workload's or a saved graph's task graph
//	internal/cudaops  CUDA kernels behind the cuda build tag, above nd
//	internal/kern     uint16 convert-and-sum kernels (AVX2 assembly, pure Go)
//
// A first program:
//
//	add := delayed.Fn2("add", func(a, b int) int { return a + b })
//	v, err := add.Call(1, 2).Compute(ctx) // 3
//
// README.md is the way in; docs/ holds the cluster guide, the performance
// figures and the UDF semantics.
package tessera
