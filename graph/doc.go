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
// its registered decoder rebuilds it from the parameter bytes. The
// registry remembers whether each op was registered during package
// initialization (RegisteredAtInit): only those exist in every process
// started from the same binary, such as a cluster's workers.
//
// # Values
//
// EncodeValue and DecodeValue are the one codec for values that cross a
// process boundary: scalars, strings, byte slices and lists natively, and
// types registered with RegisterType (n-d arrays register themselves as a
// header plus raw little-endian bytes).
//
// # One table of kinds
//
// Every built-in kind of value (nil, bool, the ten integer types, float32
// and float64, complex64 and complex128, string, []byte, Key, []any, []int,
// []int64, []float64, []string, []bool, []Key, map[string]any) and the
// registered types are rows of one table (kinds.go). A row holds the
// kind's codec tag, its Go type, how the codec writes and reads it, its JSON
// form ({"t": name, "v": ...}, or the codec's bytes in base64 when the kind
// has none) and when two of its values are equal. Everything that handles
// values dispatches through the table:
//
//   - EncodeValue and DecodeValue, and with them the wire form of nodes
//     (EncodeNode), whose literals are codec bytes;
//   - the JSON form of graphs;
//   - NodesEqual: same kind and same codec bytes, so NaN equals NaN, a nil
//     slice equals an empty one and 0.0 differs from -0.0;
//   - Tokenize, which is FNV-128a over the codec's bytes. A token and the
//     codec cannot disagree: equal values have equal tokens, and values of
//     different kinds differ in their tag (int64(1), uint64(1) and
//     float64(1) have three tokens). Tokenize also takes Ops (name and
//     parameters) and Tokenizers, under two tags the codec reserves and
//     DecodeValue rejects; it refuses registered types, whose bytes (an
//     n-d array's) are too many to hash on every call, unless they
//     implement Tokenizer.
//
// There is one tag numbering, the codec's; new kinds are appended, so bytes
// written before a kind was added still decode. Hasher is Tokenize's
// incremental form: its String and Key methods hash a name or a key
// without allocating, which is what delayed uses for the key of every call.
//
// # Rejected alternatives
//
// A map[Key]*Node was the first representation; iterating it is random, so
// every pass had to sort keys to be deterministic, and schedulers had to
// build their own index. Dense slices in insertion order give determinism
// for free. A Key struct with an []int block index is not comparable and
// cannot be a map key; the string form is, and parses back on demand.
//
// The kinds were first written six times: a type switch each in the
// encoder, the decoder, the JSON writer and reader, equality and the
// tokenizer (with a numbering of its own), and a hand copy of the tokenizer
// in delayed for speed. The copies drifted ([]bool and []Key could be
// tokenized but not sent). A type switch is faster than the table's map
// lookup by reflect.Type by some nanoseconds per value; the table costs
// nothing on the hot path of graph building, where names and keys go
// through Hasher.String and Hasher.Key.
package graph
