package udfbridge

// Merges: one op merging an ordered list of chunks into fresh main-node
// buffers over their union. Tree, linear chain and merge_all all use it;
// only the graph's shape differs (engine.go buildGraph).

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// mergeOp merges its argument chunks, ordered by flat nav origin, with
// one of three strategies (one function each):
//   - mergeOrdered (tree nodes): fresh main-node buffers over the union,
//     then Merge of every chunk in order;
//   - chainHead and extendChunk (Extend, the linear chain): the target
//     allocated and preprocessed once, then each partition merged once
//     into a copy of the chain so far, so a chain of P partitions calls
//     Merge P times;
//   - mergeAllNode (All, the merge_all node): MergeAll (or concatenation,
//     for UDFs with nav buffers only and no Merge) in one call, ordered
//     Merge calls for the other UDFs.
type mergeOp struct {
	ri     *runInfo
	All    bool
	Extend bool
}

func (o *mergeOp) Name() string       { return "udfbridge.merge" }
func (o *mergeOp) Requires() []string { return o.ri.requires() }
func (o *mergeOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{All: o.All, Ext: o.Extend})
}

func (o *mergeOp) Run(ctx context.Context, args []any) (any, error) {
	in := make([]*chunk, len(args))
	for i, a := range args {
		c, ok := a.(*chunk)
		if !ok {
			return nil, fmt.Errorf("udfbridge: merge: argument %d is %T, not a partition result", i, a)
		}
		in[i] = c
	}
	switch {
	case o.All:
		return mergeAllNode(o.ri, in)
	case o.Extend && len(in) == 1:
		return chainHead(o.ri, in[0])
	case o.Extend && len(in) == 2:
		return extendChunk(o.ri, in[0], in[1])
	case o.Extend:
		return nil, fmt.Errorf("udfbridge: merge: a chain node takes 1 or 2 chunks, got %d", len(in))
	}
	return mergeOrdered(o.ri, in)
}

// merger is the state shared by the strategies: the main-node UDFs, the
// union chunk being built and the flat nav index of each ROI frame.
type merger struct {
	ri     *runInfo
	m      *Meta
	bs     []*built
	out    *chunk
	roiIdx []int // nil: the identity
}

// newMerger checks that in is ordered and adjacent and holds every UDF's
// results, and sets up the union chunk.
func newMerger(ri *runInfo, in []*chunk) (*merger, error) {
	m := ri.mainMeta()
	bs, err := ri.build(m)
	if err != nil {
		return nil, err
	}
	out := &chunk{}
	if len(in) > 0 {
		out.Lo, out.Hi, out.NavOrigin = in[0].Lo, in[len(in)-1].Hi, in[0].NavOrigin
	}
	for i, c := range in {
		if c.NavOrigin != out.NavOrigin+out.NavSize {
			return nil, fmt.Errorf("udfbridge: merge: chunk %d starts at nav row %d, want %d (out of order)", i, c.NavOrigin, out.NavOrigin+out.NavSize)
		}
		if len(c.Bufs) != len(bs) {
			return nil, fmt.Errorf("udfbridge: merge: chunk %d has results of %d UDFs, want %d", i, len(c.Bufs), len(bs))
		}
		out.NavSize += c.NavSize
	}
	mg := &merger{ri: ri, m: m, bs: bs, out: out}
	if ri.ROI != nil {
		mg.roiIdx = ri.roiFrames(0, ri.n())
	}
	return mg, nil
}

// frames returns the flat nav indices of ROI rows [origin, origin+size).
func (mg *merger) frames(origin, size int) []int {
	f := make([]int, size)
	for k := range f {
		f[k] = origin + k
		if mg.roiIdx != nil {
			f[k] = mg.roiIdx[origin+k]
		}
	}
	return f
}

// markValid sets the positions of ROI rows [origin, origin+size) in valid.
func (mg *merger) markValid(valid []bool, origin, size int) {
	for k := origin; k < origin+size; k++ {
		if mg.roiIdx != nil {
			valid[mg.roiIdx[k]] = true
		} else {
			valid[k] = true
		}
	}
}

// target allocates UDF b's main-node buffers over ROI rows [origin,
// origin+size), zero-filled, and runs its Preprocess on them with the aux
// data of those rows.
func (mg *merger) target(b *built, origin, size int) (map[string]*nd.Array, error) {
	dest, err := mg.ri.alloc(b, size)
	if err != nil {
		return nil, err
	}
	pp, ok := b.u.(Preprocessor)
	if !ok {
		return dest, nil
	}
	aux, err := mg.ri.mainAux(b, mg.frames(origin, size))
	if err != nil {
		return nil, err
	}
	if err := pp.Preprocess(&Ctx{udf: b.spec.Name, meta: mg.m.clone(), params: b.spec.Params, bufs: dest, aux: aux}); err != nil {
		return nil, &UDFError{UDF: b.spec.Name, Step: "preprocess (main node)", Err: err}
	}
	return dest, nil
}

// mergeInto merges src, the results of ROI rows [c.NavOrigin,
// c.NavOrigin+c.NavSize), into dest at nav row off: Merge with the valid
// nav mask valid (the positions merged before) and dest's nav buffers
// viewed at the chunk's rows, or the default merge (copy, nav buffers
// only). It then marks the chunk's positions in valid.
func (mg *merger) mergeInto(b *built, dest map[string]*nd.Array, off int, c *chunk, src map[string]*nd.Array, valid []bool) error {
	name := b.spec.Name
	mr, hasMerge := b.u.(Merger)
	if hasMerge {
		view := make(map[string]*nd.Array, len(dest))
		for _, d := range b.decls {
			a, ok := dest[d.Name]
			if !ok {
				continue
			}
			if _, ok := src[d.Name]; !ok {
				return &BufferError{UDF: name, Buffer: d.Name, Err: fmt.Errorf("missing from partition results")}
			}
			if d.Kind == Nav {
				var err error
				if a, err = rowsView(a, off, c.NavSize); err != nil {
					return err
				}
			}
			view[d.Name] = a
		}
		mm := mg.m.clone()
		mm.ValidNavMask = append([]bool(nil), valid...)
		mm.Slice = &Slice{NavOrigin: c.NavOrigin, NavSize: c.NavSize, SigOrigin: make([]int, len(mg.ri.SigShape)), SigShape: mg.ri.SigShape}
		if err := mr.Merge(&MergeCtx{meta: mm, params: b.spec.Params}, view, src); err != nil {
			return &UDFError{UDF: name, Step: "merge", Err: err}
		}
	} else {
		for _, d := range b.decls {
			if d.Use == UseResultOnly {
				continue
			}
			if err := mergeCopy(b, d, dest[d.Name], off, src[d.Name]); err != nil {
				return err
			}
		}
	}
	mg.markValid(valid, c.NavOrigin, c.NavSize)
	return nil
}

// mergeOrdered merges in (ordered, adjacent) into fresh main-node buffers
// over their union. With no chunk the result is the empty run's target.
func mergeOrdered(ri *runInfo, in []*chunk) (*chunk, error) {
	mg, err := newMerger(ri, in)
	if err != nil {
		return nil, err
	}
	for u, b := range mg.bs {
		dest, err := mg.orderedUDF(u, b, in)
		if err != nil {
			return nil, err
		}
		mg.out.Bufs = append(mg.out.Bufs, dest)
	}
	return mg.out, nil
}

func (mg *merger) orderedUDF(u int, b *built, in []*chunk) (map[string]*nd.Array, error) {
	dest, err := mg.target(b, mg.out.NavOrigin, mg.out.NavSize)
	if err != nil {
		return nil, err
	}
	valid := make([]bool, mg.ri.n())
	off := 0
	for _, c := range in {
		if err := mg.mergeInto(b, dest, off, c, c.Bufs[u], valid); err != nil {
			return nil, err
		}
		off += c.NavSize
	}
	return dest, nil
}

// chainHead is the linear chain's first node: as LiberTEM's main node,
// it allocates and preprocesses the merge target once over every ROI row
// from first's origin on, and merges first into it. Its chunk covers the
// rows merged so far (NavSize) while its nav buffers hold all the rows;
// each extendChunk merges the next partition, the last node all of them.
func chainHead(ri *runInfo, first *chunk) (*chunk, error) {
	mg, err := newMerger(ri, []*chunk{first})
	if err != nil {
		return nil, err
	}
	rows := len(ri.roiFrames(0, ri.n())) - first.NavOrigin
	for u, b := range mg.bs {
		dest, err := mg.target(b, first.NavOrigin, rows)
		if err != nil {
			return nil, err
		}
		if err := mg.mergeInto(b, dest, 0, first, first.Bufs[u], make([]bool, ri.n())); err != nil {
			return nil, err
		}
		mg.out.Bufs = append(mg.out.Bufs, dest)
	}
	return mg.out, nil
}

// extendChunk is a later chain node: a copy of prev (the chain so far)
// with next merged into it, so that a chain of P partitions calls each
// UDF's Merge P times and its Preprocess once.
func extendChunk(ri *runInfo, prev, next *chunk) (*chunk, error) {
	if next.NavOrigin != prev.NavOrigin+prev.NavSize {
		return nil, fmt.Errorf("udfbridge: merge: chunk starts at nav row %d, want %d (out of order)", next.NavOrigin, prev.NavOrigin+prev.NavSize)
	}
	mg, err := newMerger(ri, []*chunk{prev, next})
	if err != nil {
		return nil, err
	}
	valid := make([]bool, ri.n())
	mg.markValid(valid, prev.NavOrigin, prev.NavSize)
	for u, b := range mg.bs {
		dest := make(map[string]*nd.Array, len(prev.Bufs[u]))
		for k, a := range prev.Bufs[u] {
			if d, ok := b.decl(k); ok && d.Kind == Nav && a.Shape()[0] < mg.out.NavSize {
				return nil, &BufferError{UDF: b.spec.Name, Buffer: k, Err: fmt.Errorf("chain target has %d rows, want %d", a.Shape()[0], mg.out.NavSize)}
			}
			dest[k] = a.Copy()
		}
		if err := mg.mergeInto(b, dest, prev.NavSize, next, next.Bufs[u], slices.Clone(valid)); err != nil {
			return nil, err
		}
		mg.out.Bufs = append(mg.out.Bufs, dest)
	}
	return mg.out, nil
}

// mergeAllNode is the merge_all node: every partition at once.
func mergeAllNode(ri *runInfo, in []*chunk) (*chunk, error) {
	mg, err := newMerger(ri, in)
	if err != nil {
		return nil, err
	}
	for u, b := range mg.bs {
		_, hasMerge := b.u.(Merger)
		ma, hasAll := b.u.(MergeAller)
		var dest map[string]*nd.Array
		switch {
		case hasAll:
			dest, err = mg.mergeAllUDF(u, b, ma, in)
		case b.navOnly() && !hasMerge:
			dest, err = mg.concatUDF(u, b, in)
		default:
			dest, err = mg.orderedUDF(u, b, in)
		}
		if err != nil {
			return nil, err
		}
		mg.out.Bufs = append(mg.out.Bufs, dest)
	}
	return mg.out, nil
}

// mergeAllUDF calls b's MergeAll and checks what it returns.
func (mg *merger) mergeAllUDF(u int, b *built, ma MergeAller, in []*chunk) (map[string]*nd.Array, error) {
	name := b.spec.Name
	dest, err := mg.ri.alloc(b, mg.out.NavSize)
	if err != nil {
		return nil, err
	}
	srcs := make([]map[string]*nd.Array, len(in))
	for i, c := range in {
		srcs[i] = c.Bufs[u]
	}
	mc := &MergeCtx{meta: mg.m.clone(), params: b.spec.Params}
	mc.meta.ValidNavMask = make([]bool, mg.ri.n())
	got, err := ma.MergeAll(mc, srcs)
	if err != nil {
		return nil, &UDFError{UDF: name, Step: "merge_all", Err: err}
	}
	for k, a := range got {
		d, ok := b.decl(k)
		if !ok || d.Use == UseResultOnly {
			return nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("returned by merge_all but not a declared buffer")}
		}
		want := dest[k]
		if a == nil || a.DType() != want.DType() || !slices.Equal(a.Shape(), want.Shape()) {
			var gdt nd.DType
			var gsh []int
			if a != nil {
				gdt, gsh = a.DType(), a.Shape()
			}
			return nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("merge_all returned %v %v, want %v %v", gdt, gsh, want.DType(), want.Shape())}
		}
		dest[k] = a
	}
	return dest, nil
}

// concatUDF is the default merge_all: the nav buffers concatenated.
func (mg *merger) concatUDF(u int, b *built, in []*chunk) (map[string]*nd.Array, error) {
	dest, err := mg.ri.alloc(b, mg.out.NavSize)
	if err != nil {
		return nil, err
	}
	off := 0
	for _, c := range in {
		for _, d := range b.decls {
			if d.Use == UseResultOnly {
				continue
			}
			if err := mergeCopy(b, d, dest[d.Name], off, c.Bufs[u][d.Name]); err != nil {
				return nil, err
			}
		}
		off += c.NavSize
	}
	return dest, nil
}

// mergeCopy is the default merge of one nav buffer: copy the partition's
// rows, with a safe cast only.
func mergeCopy(b *built, d BufferDecl, dst *nd.Array, row int, src *nd.Array) error {
	if d.Kind != Nav {
		return &UDFError{UDF: b.spec.Name, Step: "merge", Err: fmt.Errorf("buffer %q is kind %v: the default merge handles nav buffers only; implement Merge", d.Name, d.Kind)}
	}
	if src == nil {
		return &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: fmt.Errorf("missing from partition results")}
	}
	if src.DType() != dst.DType() && nd.ResultType(src.DType(), dst.DType()) != dst.DType() {
		return &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: fmt.Errorf("default merge cannot cast %v to %v safely", src.DType(), dst.DType())}
	}
	if err := copyRows(dst, row, src); err != nil {
		return &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
	}
	return nil
}

func nanOf(d nd.DType) any {
	if d.IsComplex() {
		return cmplx.NaN()
	}
	return math.NaN()
}
