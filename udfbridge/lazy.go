package udfbridge

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// LazyResults are the lazy results of one UDF of a run (LiberTEM's
// delayed_data and delayed raw_data), computed when the user computes them.
// Arrays of one run share the partition and merge tasks, so computing
// several together (chunkarray.Compute), of one UDF or of several, makes
// one pass over the data: one task per partition.
type LazyResults struct {
	UDF string
	// Arrays holds each returned buffer in its Data shape: nav buffers
	// nav+E with the fill value (NaN, 0, false) outside the ROI, chunked
	// per partition along the flat nav axis (reshaped to nav+E as
	// chunkarray's Reshape regroups them); sig and single buffers one block.
	Arrays map[string]*chunkarray.Array
	// Raw holds each returned buffer as RawData: nav buffers flat and
	// ROI-compressed, (r,)+E, one block per partition with ROI frames;
	// sig and single buffers the same arrays as in Arrays.
	Raw map[string]*chunkarray.Array
	// Names lists the returned buffers in declaration order.
	Names []string
	// Options are the run's compute options (WithScheduler, WithOptimize,
	// WithCallbacks, WithProgress) as chunkarray options: Compute uses
	// them, and chunkarray.Compute(ctx, arrays, lr.Options...) computes
	// arrays of several UDFs of the run with them.
	Options []chunkarray.Option
}

// Compute computes the named buffers (all of Names when none is named) in
// one computation configured as the run was (Options), in the Data form,
// and returns them by name.
func (lr *LazyResults) Compute(ctx context.Context, names ...string) (map[string]*nd.Array, error) {
	if len(names) == 0 {
		names = lr.Names
	}
	arrs := make([]*chunkarray.Array, len(names))
	for i, n := range names {
		a, ok := lr.Arrays[n]
		if !ok {
			return nil, &BufferError{UDF: lr.UDF, Buffer: n, Err: fmt.Errorf("no such result buffer (have %v)", lr.Names)}
		}
		arrs[i] = a
	}
	vals, err := chunkarray.Compute(ctx, arrs, lr.Options...)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*nd.Array, len(names))
	for i, n := range names {
		out[n] = vals[i]
	}
	return out, nil
}

// RunLazy plans a run and returns lazy results, one per UDF: nothing is
// read until an array is computed. The run's compute options (scheduler,
// callbacks, optimization, progress) apply when the results are computed
// with LazyResults.Compute or with their Options; chunkarray.Compute
// without them uses its own defaults, as for any array. The graph of every array holds the
// partition tasks, the merge, a get_results node per UDF and, for nav
// buffers, one slicing node per partition.
//
// Nav buffers are chunked per partition as in LiberTEM, but every block
// depends on the merge and get_results (which may look at all of the
// data), so computing one block still runs every partition; what the
// chunking buys is that downstream array operations stay blockwise.
func RunLazy(ds Dataset, udfs []UDF, opts ...RunOption) (_ []*LazyResults, err error) {
	defer recoverPanic(&err)
	p, err := plan(ds, udfs, opts)
	if err != nil {
		return nil, err
	}
	g := graph.New(0)
	tok := p.token()
	root, err := p.buildGraph(g, tok, p.nonEmpty())
	if err != nil {
		return nil, err
	}
	ri := p.ri
	nParts := len(p.bounds) - 1
	origins := make([]int, nParts+1)
	for i := 0; i < nParts; i++ {
		origins[i+1] = origins[i] + len(ri.roiFrames(p.bounds[i], p.bounds[i+1]))
	}
	r := origins[nParts]
	out := make([]*LazyResults, len(p.main))
	for u, b := range p.main {
		lr := &LazyResults{UDF: b.spec.Name, Arrays: map[string]*chunkarray.Array{}, Raw: map[string]*chunkarray.Array{}, Options: p.cfg.options(true)}
		fk := graph.BlockKey("udf-results-"+tok, u)
		if err := g.AddTask(fk, &resultsOp{ri: ri, U: u}, graph.Ref(root)); err != nil {
			return nil, err
		}
		for _, d := range b.decls {
			if d.Use == UsePrivate {
				continue
			}
			lr.Names = append(lr.Names, d.Name)
			if d.Kind != Nav {
				k := graph.Key(fmt.Sprintf("udf-buffer-%s-%d-%s", tok, u, d.Name))
				if err := g.AddTask(k, &bufferOp{ri: ri, U: u, Buf: d.Name}, graph.Ref(fk)); err != nil {
					return nil, err
				}
				a := chunkarray.FromDelayed(delayed.FromGraph[*nd.Array](g, k), d.shape(r, ri.SigShape), d.dtype())
				lr.Arrays[d.Name], lr.Raw[d.Name] = a, a
				continue
			}
			var raws, datas []*chunkarray.Array
			for i := 0; i < nParts; i++ {
				np, rp := p.bounds[i+1]-p.bounds[i], origins[i+1]-origins[i]
				for _, raw := range []bool{true, false} {
					if (raw && rp == 0) || (!raw && np == 0) {
						continue
					}
					prefix := fmt.Sprintf("udf-data-%s-%d-%s", tok, u, d.Name)
					sh := append([]int{np}, d.Extra...)
					if raw {
						prefix = fmt.Sprintf("udf-raw-%s-%d-%s", tok, u, d.Name)
						sh = append([]int{rp}, d.Extra...)
					}
					k := graph.BlockKey(prefix, i)
					op := &navBlockOp{ri: ri, U: u, Buf: d.Name, Raw: raw, Start: p.bounds[i], Stop: p.bounds[i+1], Origin: origins[i]}
					if err := g.AddTask(k, op, graph.Ref(fk)); err != nil {
						return nil, err
					}
					a := chunkarray.FromDelayed(delayed.FromGraph[*nd.Array](g, k), sh, d.dtype())
					if raw {
						raws = append(raws, a)
					} else {
						datas = append(datas, a)
					}
				}
			}
			lr.Raw[d.Name] = concatOrEmpty(raws, append([]int{0}, d.Extra...), d.dtype())
			lr.Arrays[d.Name] = concatOrEmpty(datas, append([]int{0}, d.Extra...), d.dtype()).
				Reshape(append(append([]int(nil), ri.NavShape...), d.Extra...)...)
		}
		out[u] = lr
	}
	return out, nil
}

// concatOrEmpty concatenates blocks along axis 0, or makes an empty array
// of shape empty when there is none (a run whose ROI is empty).
func concatOrEmpty(blocks []*chunkarray.Array, empty []int, dt nd.DType) *chunkarray.Array {
	switch len(blocks) {
	case 0:
		z, _ := nd.Zeros(dt, empty...)
		return chunkarray.FromNDArray(z, -1)
	case 1:
		return blocks[0]
	}
	return chunkarray.Concatenate(blocks, 0)
}

// resultsOp runs get_results of UDF U on the merged chunk; its value is a
// list of name, array pairs (the returned buffers in declaration order,
// nav buffers flat and ROI-compressed).
type resultsOp struct {
	ri *runInfo
	U  int
}

func (o *resultsOp) Name() string       { return "udfbridge.results" }
func (o *resultsOp) Requires() []string { return o.ri.requires() }
func (o *resultsOp) Label() string      { return "get_results" }
func (o *resultsOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{U: o.U})
}

func (o *resultsOp) Run(_ context.Context, args []any) (_ any, err error) {
	c, ok := args[0].(*chunk)
	if !ok || o.U >= len(c.Bufs) {
		return nil, fmt.Errorf("udfbridge: results: argument is %T, not a merged result", args[0])
	}
	bs, err := o.ri.build(o.ri.mainMeta())
	if err != nil {
		return nil, err
	}
	b := bs[o.U]
	res, full, _, err := getResults(o.ri, b, c.Bufs[o.U], c.NavSize, o.ri.roiMask())
	if err != nil {
		return nil, err
	}
	var l []any
	for _, d := range b.decls {
		if a, ok := res[d.Name]; ok {
			if a.DType() != d.dtype() {
				if a, err = a.AsType(d.dtype()); err != nil {
					return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
				}
			}
			l = append(l, d.Name, a)
		}
	}
	// Nav buffers get_results returned nav-shaped, for the Data form.
	for _, d := range b.decls {
		if a, ok := full[d.Name]; ok {
			if a.DType() != d.dtype() {
				if a, err = a.AsType(d.dtype()); err != nil {
					return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
				}
			}
			l = append(l, fullKey+d.Name, a)
		}
	}
	return l, nil
}

// fullKey prefixes, in a resultsOp's value, a nav buffer that get_results
// returned in the nav shape (no buffer name holds a NUL).
const fullKey = "full\x00"

func pickResult(l []any, name string) (*nd.Array, error) {
	for i := 0; i+1 < len(l); i += 2 {
		if l[i] == name {
			return l[i+1].(*nd.Array), nil
		}
	}
	return nil, fmt.Errorf("udfbridge: buffer %q missing from the results", name)
}

// bufferOp picks one sig or single buffer out of a resultsOp's value.
type bufferOp struct {
	ri  *runInfo
	U   int
	Buf string
}

func (o *bufferOp) Name() string       { return "udfbridge.buffer" }
func (o *bufferOp) Requires() []string { return o.ri.requires() }
func (o *bufferOp) Label() string      { return "buffer" }
func (o *bufferOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{U: o.U, Buf: o.Buf})
}

func (o *bufferOp) Run(_ context.Context, args []any) (any, error) {
	l, _ := args[0].([]any)
	return pickResult(l, o.Buf)
}

// navBlockOp cuts one partition's block out of a nav buffer of a
// resultsOp's value: with Raw the partition's ROI rows [Origin,
// Origin+r_p), else its frames [Start, Stop) with the fill value outside
// the ROI.
type navBlockOp struct {
	ri                  *runInfo
	U                   int
	Buf                 string
	Raw                 bool
	Start, Stop, Origin int
}

func (o *navBlockOp) Name() string       { return "udfbridge.navblock" }
func (o *navBlockOp) Requires() []string { return o.ri.requires() }
func (o *navBlockOp) Label() string {
	if o.Raw {
		return "raw_data"
	}
	return "data"
}
func (o *navBlockOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{U: o.U, Buf: o.Buf, All: o.Raw, Start: o.Start, Stop: o.Stop, Part: o.Origin})
}

func (o *navBlockOp) Run(_ context.Context, args []any) (any, error) {
	l, _ := args[0].([]any)
	a, err := pickResult(l, o.Buf)
	if err != nil {
		return nil, err
	}
	var roi []bool
	if o.ri.ROI != nil {
		roi = o.ri.ROI[o.Start:o.Stop]
	}
	rp := o.Stop - o.Start
	if roi != nil {
		rp = 0
		for _, in := range roi {
			if in {
				rp++
			}
		}
	}
	rows, err := rowsView(a, o.Origin, rp)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: buffer %q: %w", o.Buf, err)
	}
	if o.Raw {
		return rows.Contiguous(), nil
	}
	if f, err := pickResult(l, fullKey+o.Buf); err == nil {
		// Returned nav-shaped: the partition's frames as they are.
		sh := f.Shape()
		flat, err := f.Contiguous().Reshape(append([]int{o.ri.n()}, sh[len(o.ri.NavShape):]...)...)
		if err != nil {
			return nil, err
		}
		v, err := rowsView(flat, o.Start, o.Stop-o.Start)
		if err != nil {
			return nil, err
		}
		return v.Contiguous(), nil
	}
	return embedNav(rows, []int{o.Stop - o.Start}, roi)
}

func init() {
	graph.RegisterOp("udfbridge.results", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &resultsOp{ri: ri, U: h.U}, nil
	})
	graph.RegisterOp("udfbridge.buffer", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &bufferOp{ri: ri, U: h.U, Buf: h.Buf}, nil
	})
	graph.RegisterOp("udfbridge.navblock", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &navBlockOp{ri: ri, U: h.U, Buf: h.Buf, Raw: h.All, Start: h.Start, Stop: h.Stop, Origin: h.Part}, nil
	})
}
