// Package optimize holds pure graph-to-graph passes: Cull, Fuse, Inline and
// Order. Passes never modify their input and return the dependency
// information of their output for the next pass.
package optimize
