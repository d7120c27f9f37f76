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

// mergeOp merges its argument chunks, ordered by flat nav origin. With All
// it is the merge_all node: UDFs with MergeAll (or nav buffers only and no
// Merge) get one call for every chunk; others get ordered Merge calls.
type mergeOp struct {
	ri  *runInfo
	All bool
}

func (o *mergeOp) Name() string { return "udfbridge.merge" }
func (o *mergeOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{All: o.All})
}

func (o *mergeOp) Run(ctx context.Context, args []any) (any, error) {
	ri := o.ri
	in := make([]*chunk, len(args))
	for i, a := range args {
		c, ok := a.(*chunk)
		if !ok {
			return nil, fmt.Errorf("udfbridge: merge: argument %d is %T, not a partition result", i, a)
		}
		in[i] = c
	}
	return mergeChunks(ri, in, o.All)
}

// mergeChunks merges in (ordered, adjacent) into a new chunk. With no
// chunk the result is the main-node buffers for r = 0 ... or the empty run.
func mergeChunks(ri *runInfo, in []*chunk, all bool) (_ *chunk, err error) {
	defer recoverUDF(&err, "merge")
	m := ri.mainMeta()
	bs, err := ri.build(m)
	if err != nil {
		return nil, err
	}
	out := &chunk{Lo: 0, Hi: 0}
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
	var roiIdx []int // flat nav index of each ROI frame; nil: the identity
	if ri.ROI != nil {
		roiIdx = ri.roiFrames(0, ri.n())
	}
	for u, b := range bs {
		name := b.spec.Name
		_, hasMerge := b.u.(Merger)
		ma, hasAll := b.u.(MergeAller)
		srcs := make([]map[string]*nd.Array, len(in))
		for i, c := range in {
			srcs[i] = c.Bufs[u]
		}
		if all && (hasAll || (b.navOnly() && !hasMerge)) {
			dest, err := ri.alloc(b, out.NavSize)
			if err != nil {
				return nil, err
			}
			if hasAll {
				mc := &MergeCtx{meta: m.clone(), params: b.spec.Params}
				mc.meta.ValidNavMask = make([]bool, ri.n())
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
			} else {
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
			}
			out.Bufs = append(out.Bufs, dest)
			continue
		}
		dest, err := ri.alloc(b, out.NavSize)
		if err != nil {
			return nil, err
		}
		if pp, ok := b.u.(Preprocessor); ok {
			mm := m.clone()
			frames := make([]int, out.NavSize)
			for k := range frames {
				frames[k] = out.NavOrigin + k
				if roiIdx != nil {
					frames[k] = roiIdx[out.NavOrigin+k]
				}
			}
			aux, err := ri.mainAux(b, frames)
			if err != nil {
				return nil, err
			}
			if err := pp.Preprocess(&Ctx{udf: name, meta: mm, params: b.spec.Params, bufs: dest, aux: aux}); err != nil {
				return nil, &UDFError{UDF: name, Step: "preprocess (main node)", Err: err}
			}
		}
		valid := make([]bool, ri.n())
		off := 0
		for _, c := range in {
			src := c.Bufs[u]
			view := make(map[string]*nd.Array, len(dest))
			for _, d := range b.decls {
				a, ok := dest[d.Name]
				if !ok {
					continue
				}
				if _, ok := src[d.Name]; !ok {
					return nil, &BufferError{UDF: name, Buffer: d.Name, Err: fmt.Errorf("missing from partition results")}
				}
				if d.Kind == Nav {
					if a, err = rowsView(a, off, c.NavSize); err != nil {
						return nil, err
					}
				}
				view[d.Name] = a
			}
			if hasMerge {
				mm := m.clone()
				mm.ValidNavMask = append([]bool(nil), valid...)
				mm.Slice = &Slice{NavOrigin: c.NavOrigin, NavSize: c.NavSize, SigOrigin: make([]int, len(ri.SigShape)), SigShape: ri.SigShape}
				if err := b.u.(Merger).Merge(&MergeCtx{meta: mm, params: b.spec.Params}, view, src); err != nil {
					return nil, &UDFError{UDF: name, Step: "merge", Err: err}
				}
			} else {
				for _, d := range b.decls {
					if d.Use == UseResultOnly {
						continue
					}
					if err := mergeCopy(b, d, dest[d.Name], off, src[d.Name]); err != nil {
						return nil, err
					}
				}
			}
			for k := c.NavOrigin; k < c.NavOrigin+c.NavSize; k++ {
				if roiIdx != nil {
					valid[roiIdx[k]] = true
				} else {
					valid[k] = true
				}
			}
			off += c.NavSize
		}
		out.Bufs = append(out.Bufs, dest)
	}
	return out, nil
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
