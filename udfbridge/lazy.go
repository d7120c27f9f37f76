package udfbridge

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/chunkarray/nd"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
)

// LazyResults are the lazy results of one UDF of a run: each returned
// buffer a chunkarray.Array of its Data shape (nav buffers nav+E with the
// fill value outside the ROI), computed when the user computes it. Arrays
// of one run share the partition and merge tasks, so computing several
// together (chunkarray.Compute) makes one pass over the data.
type LazyResults struct {
	UDF    string
	Arrays map[string]*chunkarray.Array
	// Names lists the returned buffers in declaration order.
	Names []string
}

// RunLazy plans a run and returns lazy results, one per UDF: nothing is
// read until an array is computed. The graph of every array holds the
// partition tasks, the merge and a get_results node per UDF.
//
// Each buffer is one block (tessera differs from LiberTEM's
// DelayedJobExecutor, whose nav buffers are chunked per partition): the ROI
// and get_results apply after the merge, on the main node.
func RunLazy(ds Dataset, udfs []UDF, opts ...RunOption) ([]*LazyResults, error) {
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
	r := shapeProd(p.ri.NavShape)
	if p.ri.ROI != nil {
		r = len(p.ri.roiFrames(0, r))
	}
	out := make([]*LazyResults, len(p.main))
	for u, b := range p.main {
		lr := &LazyResults{UDF: b.spec.Name, Arrays: map[string]*chunkarray.Array{}}
		fk := graph.BlockKey("udf-results-"+tok, u)
		if err := g.AddTask(fk, &resultsOp{ri: p.ri, U: u}, graph.Ref(root)); err != nil {
			return nil, err
		}
		for _, d := range b.decls {
			if d.Use == UsePrivate {
				continue
			}
			k := graph.Key(fmt.Sprintf("udf-buffer-%s-%d-%s", tok, u, d.Name))
			if err := g.AddTask(k, &bufferOp{ri: p.ri, U: u, Buf: d.Name}, graph.Ref(fk)); err != nil {
				return nil, err
			}
			sh := d.shape(r, p.ri.SigShape)
			if d.Kind == Nav {
				sh = append(append([]int(nil), p.ri.NavShape...), d.Extra...)
			}
			lr.Arrays[d.Name] = chunkarray.FromDelayed(delayed.FromGraph[*nd.Array](g, k), sh, d.dtype())
			lr.Names = append(lr.Names, d.Name)
		}
		out[u] = lr
	}
	return out, nil
}

// resultsOp runs get_results of UDF U on the merged chunk; its value is a
// list of name, array pairs (the returned buffers, in declaration order).
type resultsOp struct {
	ri *runInfo
	U  int
}

func (o *resultsOp) Name() string { return "udfbridge.results" }
func (o *resultsOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{U: o.U})
}

func (o *resultsOp) Run(_ context.Context, args []any) (any, error) {
	c, ok := args[0].(*chunk)
	if !ok || o.U >= len(c.Bufs) {
		return nil, fmt.Errorf("udfbridge: results: argument is %T, not a merged result", args[0])
	}
	bs, err := o.ri.build(o.ri.mainMeta())
	if err != nil {
		return nil, err
	}
	b := bs[o.U]
	res, _, err := getResults(o.ri, b, c.Bufs[o.U], c.NavSize)
	if err != nil {
		return nil, err
	}
	var l []any
	for _, d := range b.decls {
		if a, ok := res[d.Name]; ok {
			if d.Kind == Nav {
				if a, err = embedNav(a, o.ri.NavShape, o.ri.ROI); err != nil {
					return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
				}
			}
			if a.DType() != d.dtype() {
				if a, err = a.AsType(d.dtype()); err != nil {
					return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
				}
			}
			l = append(l, d.Name, a)
		}
	}
	return l, nil
}

// bufferOp picks one buffer out of a resultsOp's value.
type bufferOp struct {
	ri  *runInfo
	U   int
	Buf string
}

func (o *bufferOp) Name() string { return "udfbridge.buffer" }
func (o *bufferOp) Params() ([]byte, error) {
	return encodeOpParams(o.ri, opHeader{U: o.U, Buf: o.Buf})
}

func (o *bufferOp) Run(_ context.Context, args []any) (any, error) {
	l, _ := args[0].([]any)
	for i := 0; i+1 < len(l); i += 2 {
		if l[i] == o.Buf {
			return l[i+1], nil
		}
	}
	return nil, fmt.Errorf("udfbridge: buffer %q missing from the results", o.Buf)
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
}
