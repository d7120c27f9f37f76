// Package viz draws task graphs in the graphviz DOT language, the way
// dask.visualize does, and renders them to SVG, PNG or PDF with the
// graphviz dot binary.
//
// # Pictures
//
// DOT (or WriteDOT) turns a graph into DOT text; Render writes a file.
// The conventions are Dask's, so that a picture reads the same to someone
// who knows Dask's:
//
//   - each task is a circle labelled with its op's short name (the part
//     after the last "." or "/": "add" for op "delayed.add"), or with its
//     Label when the op implements Labeler (chunkarray's ops say which
//     function a task runs: "ones", "max", "max-aggregate", "truediv",
//     "rechunk-merge", as Dask's pictures do); a task into
//     which Optimize fused or inlined others is labelled with their names
//     too, sorted, before its own ("load-square-add"), as Dask names fused
//     keys;
//   - each key's value is a box labelled with the key's prefix ("x",
//     "square" for "square-6892ee..."), or, for a block key, with its
//     block index ("3", "(1, 2)"), as Dask labels chunks;
//   - edges run from the data a task reads, into its circle, out to its
//     box; literals are boxes with no circle; an alias is a dashed box
//     joined to its target by a dashed edge;
//   - inputs are at the bottom and results on top (rankdir BT), unless
//     Options.RankDir says otherwise.
//
// Every node carries the full key as its tooltip, which SVG viewers show
// on hover.
//
// Options add Dask's variants: Optimize draws what Compute would run
// (optimize.Optimize for Options.Keys); Color "order" fills every node by
// its optimize.Order priority (dark red first, dark blue last, as Dask's
// color="order") and Color "time" by a measured duration (slow is hot:
// dark blue fastest, dark red slowest, on a log scale), both on
// ColorBrewer's RdBu ramp, the palette Dask uses; Collapse drops the boxes
// of task results (Dask's collapse_outputs); Clusters groups the nodes of
// each layer, a key's name without its block index, in a labelled box.
//
// A coloured picture carries a legend: one unconnected node, an HTML-like
// table naming the two ends and the middle of the scale in their colours
// (first, middle and last priority; fastest, median and slowest time).
// It is created after every node of the graph, so the graph's nodes keep
// their numbers, and is written first.
//
// # Byte-stable output
//
// People diff pictures and tests compare them with golden files, so the
// same graph gives the same bytes whatever order it was built in. The
// graph is first rebuilt in sorted key order; Optimize and Order then run
// on that canonical graph; nodes are created, numbered (n1, n2, ...) and
// written in key order, edges in key order of their source and then
// argument order. The colour of a node under Color "order" is therefore
// the priority in the canonical graph: a scheduler that breaks ties by
// insertion order may run two independent branches the other way round.
//
// # Rendering
//
// Render pipes DOT into the dot binary found on PATH. When there is none
// the error wraps ErrNoGraphviz, whose message names the Debian package to
// install. The output is written to a temporary file next to the target
// and renamed into place, so a failed or cancelled render never leaves a
// truncated picture behind, and cancelling ctx kills dot.
//
// # Rejected alternatives
//
//   - Labelling data boxes with the full key: tokens are 32 hex digits and
//     make every box wider than its label is useful; the tooltip keeps the
//     full key. Dask leaves plain keys' boxes empty; the prefix says more
//     for the same width.
//   - Node names derived from a hash of the key: stable, but unreadable
//     when debugging the DOT and with a (tiny) chance of collision; names
//     by position in sorted key order are short and unique.
//   - Calling graphviz through cgo bindings: a C toolchain and the
//     graphviz headers for every build, where an optional binary only
//     matters to those who render to images. DOT output needs neither.
//   - No legend (the first version): the ramp was documented only here,
//     and a reader of a picture could not tell which end was fast. A
//     legend node moves the layout a little; knowing what red means is
//     worth more.
//   - Time colours on a linear scale: with one slow task, every other task
//     gets the same colour. Times span orders of magnitude; a log scale
//     shows them, and the legend names the real durations.
//   - matplotlib-style colormap interpolation in a perceptual space: linear
//     RGB interpolation between the 11 ColorBrewer anchors is close enough
//     at the sizes a picture can show, and is exact, simple arithmetic.
package viz
