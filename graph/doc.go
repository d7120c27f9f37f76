// Package graph holds tessera's task graph as plain data: keys, nodes, ops,
// dependencies, validation and encoding.
//
// # Model
//
// A Graph maps a Key to a Node. A Node has an explicit Kind, never guessed
// from its shape:
//
//   - KindTask: an Op applied to Args. An Arg is a reference to another key
//     (Ref), a literal value (Lit), a nested list of args (List), or a nested
//     task (Nested) that is run in place when its parent's args are resolved
//     (what optimize.Fuse and optimize.Inline produce).
//   - KindLiteral: a value.
//   - KindAlias: another key's value under a second name.
//
// Keys are deterministic: Tokenize hashes an op name and its inputs, so the
// same computation built twice gets the same keys and graphs merge and
// dedupe. A block key (BlockKey) carries a name and a block index, printed
// as name[0,2], in the spirit of Dask's ("name", 0, 2).
//
// Nodes are stored densely in insertion order; Graph.Index maps a key to its
// position so that passes and schedulers work on int32 indices and slices,
// not maps. Dependencies returns the dependency and dependent lists in a
// compact (CSR) form that passes hand to one another.
//
// # Ops and the registry
//
// An Op has a name and Run(ctx, args). Ops that cross a process boundary
// (the distributed scheduler, JSON files) are looked up by name in a
// process-wide registry, the one piece of package-level mutable state, in
// the manner of gob.Register. An op with parameters implements ParamOp and
// its registered decoder rebuilds it from the parameter bytes.
//
// # Values
//
// EncodeValue and DecodeValue are the one codec for values that cross a
// process boundary: scalars, strings, byte slices and lists natively, and
// types registered with RegisterType (n-d arrays register themselves as a
// header plus raw little-endian bytes).
//
// # Rejected alternatives
//
// A map[Key]*Node was the first representation; iterating it is random, so
// every pass had to sort keys to be deterministic, and schedulers had to
// build their own index. Dense slices in insertion order give determinism
// for free. A Key struct with an []int block index is not comparable and
// cannot be a map key; the string form is, and parses back on demand.
package graph
