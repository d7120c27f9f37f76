// Package udfbridge runs LiberTEM-style user-defined functions (UDFs) over
// detector datasets as task graphs: one task per partition running every
// UDF of the run in one pass over its tiles, then a merge (a log-depth tree
// of ordered pairwise merges, a linear chain on request, or one merge_all
// node). Results are computed buffers or lazy chunkarray.Arrays. See
// ../shared/UDF-SEMANTICS.md for the behaviour matched.
package udfbridge
