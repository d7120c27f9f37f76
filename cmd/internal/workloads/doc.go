// Package workloads holds the named, built-in workloads that cmd/graphviz
// draws and cmd/tessera benchmarks and demonstrates: each builds a task
// graph and names the keys to compute. They are one plain list (All),
// declared in workloads.go from constructors in delayed.go, array.go,
// zarr.go, udf.go and scale.go; no init function registers a workload.
// (The ops they run are registered by delayed.Fn1 and Fn2 at package
// level, so that a worker process that links this package has them.)
//
// A workload's Check verifies computed values against a formula of its
// own, independent of the code path the workload times, so that a
// benchmark that got faster by computing the wrong thing fails.
//
// Rejected: a map filled by Register calls from init functions in each
// file (the first version). The set of workloads could only be known by
// running every init, duplicates were found by a panic at start-up, and
// tests registered workloads of their own into the process-wide map.
package workloads
