package udfbridge

// The plan of a run on the main node: options checked, the input dtype,
// the backend, the UDFs validated, partitions and tiles; then its graph
// (partition tasks and the merge) and its computation.

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// plan validates a run on the main node.
func plan(ds Dataset, udfs []UDF, opts []RunOption) (*runPlan, error) {
	cfg := runConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if len(udfs) == 0 {
		return nil, ErrNoUDF
	}
	if ds == nil {
		return nil, fmt.Errorf("udfbridge: nil dataset")
	}
	ri := &runInfo{ds: ds, NavShape: append([]int(nil), ds.NavShape()...), SigShape: append([]int(nil), ds.SigShape()...),
		DType: ds.DType(), Merge: cfg.merge, Backend: BackendCPU}
	n := ri.n()
	// ROI, copied.
	if cfg.roi != nil {
		if cfg.roi.DType() != nd.Bool {
			return nil, fmt.Errorf("udfbridge: ROI must be bool, got %v (no silent cast)", cfg.roi.DType())
		}
		sh := cfg.roi.Shape()
		if !(len(sh) == 1 && sh[0] == n) && !slices.Equal(sh, ri.NavShape) {
			return nil, fmt.Errorf("udfbridge: ROI of shape %v does not match nav shape %v (or flat (%d,))", sh, ri.NavShape, n)
		}
		vals, err := nd.Values[bool](cfg.roi.Contiguous())
		if err != nil {
			return nil, err
		}
		ri.ROI = append([]bool(nil), vals...)
	}
	// Input dtype.
	dts := []nd.DType{ri.DType}
	for _, u := range udfs {
		pref := nd.Float32
		if p, ok := u.(PreferredDTyper); ok {
			pref = p.PreferredInputDType()
		}
		if pref == UseNativeDType {
			continue
		}
		if !pref.Valid() {
			return nil, &UDFError{UDF: u.Name(), Step: "preferred input dtype", Err: fmt.Errorf("invalid dtype %v", pref)}
		}
		dts = append(dts, pref)
	}
	ri.Input = nd.ResultType(dts...)
	// Backend (backend.go).
	want := BackendCPU
	if cfg.backend != "" {
		want = cfg.backend
	}
	for _, u := range udfs {
		bs := []Backend{BackendCPU}
		if b, ok := u.(Backender); ok {
			bs = b.Backends()
		}
		if err := checkBackend(u.Name(), bs, want); err != nil {
			return nil, err
		}
	}
	ri.Backend = want
	// UDFs: params, declarations, method, merge availability.
	m := ri.mainMeta()
	p := &runPlan{ri: ri, cfg: cfg}
	for _, u := range udfs {
		params, err := u.Params()
		if err != nil {
			return nil, &UDFError{UDF: u.Name(), Step: "params", Err: err}
		}
		s := udfSpec{Name: u.Name(), Params: params}
		if _, err := NewUDF(s.Name, s.Params); err != nil {
			return nil, err
		}
		b, err := validateUDF(u, s, m)
		if err != nil {
			return nil, err
		}
		_, hasMerge := u.(Merger)
		_, hasAll := u.(MergeAller)
		if !hasMerge && !b.navOnly() && !(hasAll && cfg.merge == MergeAllNode) {
			return nil, &UDFError{UDF: s.Name, Step: "merge", Err: fmt.Errorf("has sig or single buffers but no Merge (the default merge only copies nav buffers)")}
		}
		ri.UDFs = append(ri.UDFs, s)
		if r, ok := u.(Requirer); ok {
			ri.extraReqs = append(ri.extraReqs, r.Requires()...)
		}
		p.main = append(p.main, b)
	}
	// Partitions and tiles.
	frameBytes := shapeProd(ri.SigShape) * max(ri.DType.Size(), 1)
	P := cfg.partitions
	if P <= 0 {
		P = DefaultPartitionCount(n, frameBytes)
	}
	p.bounds = Partitions(n, P)
	bounds, err := alignPartitions(ds, p.bounds)
	if err != nil {
		return nil, err
	}
	p.bounds = bounds
	if cfg.depth > 0 {
		ri.Depth = cfg.depth
		ri.SigTile = cfg.sigTile
		if ri.SigTile == nil {
			ri.SigTile = append([]int(nil), ri.SigShape...)
		}
		if len(ri.SigTile) != len(ri.SigShape) {
			return nil, fmt.Errorf("udfbridge: tile sig shape %v does not match sig shape %v", ri.SigTile, ri.SigShape)
		}
	} else {
		ri.SigTile, ri.Depth = TileShape(ri.SigShape, ri.Input, DefaultTileBytesPerCore, 0)
	}
	for _, b := range p.main {
		if b.method != MethodTile {
			ri.SigTile = append([]int(nil), ri.SigShape...)
		}
	}
	// A CUDA run with a UDF that processes tiles on the device: whole
	// frames in larger tiles, unless WithTileShape said otherwise (device.go).
	if ri.Backend == BackendCUDA && cfg.depth <= 0 {
		for _, b := range p.main {
			if _, ok := b.u.(DeviceTileProcessor); ok {
				ri.SigTile, ri.Depth = TileShape(ri.SigShape, ri.Input, DeviceTileBytes, 0)
				if !slices.Equal(ri.SigTile, ri.SigShape) { // a frame over DeviceTileBytes
					ri.SigTile, ri.Depth = append([]int(nil), ri.SigShape...), 1
				}
				break
			}
		}
	}
	// The spec is encoded only when an op's parameters are asked for (a
	// graph written out, compared or sent): an in-memory dataset's spec
	// holds all its bytes. A dataset without a spec still runs in-process.
	return p, nil
}

type runPlan struct {
	ri     *runInfo
	cfg    runConfig
	main   []*built
	bounds []int
}

// compute runs keys of g as the run is configured (scheduler, callbacks,
// optimization: sched.ComputeConfig, as the collections' Compute), with
// the progress bar when bar is true.
func (p *runPlan) compute(ctx context.Context, g *graph.Graph, keys []graph.Key, bar bool) ([]any, error) {
	return p.cfg.computeConfig(bar).Run(ctx, g, keys)
}

// partitions returns the indices of the partitions with ROI frames.
func (p *runPlan) nonEmpty() []int {
	var out []int
	for i := 0; i+1 < len(p.bounds); i++ {
		if len(p.ri.roiFrames(p.bounds[i], p.bounds[i+1])) > 0 {
			out = append(out, i)
		}
	}
	return out
}

func (p *runPlan) token() string {
	// A dataset that names itself cheaply (Token) gives deterministic keys;
	// others get a fresh token per run, as chunkarray does for in-memory
	// arrays, since their spec may hold all their bytes.
	dsTok := graph.ImpureToken()
	if t, ok := p.ri.ds.(interface{ Token() string }); ok {
		dsTok = t.Token()
	}
	parts := []any{dsTok, p.ri.NavShape, p.ri.SigShape, p.ri.DType.String(), p.ri.ROI, p.bounds, int(p.ri.Merge), p.ri.Depth, p.ri.SigTile}
	for _, s := range p.ri.UDFs {
		parts = append(parts, s.Name, s.Params)
	}
	t, err := graph.Tokenize(parts...)
	if err != nil {
		return graph.ImpureToken()
	}
	if len(t) > 12 {
		t = t[:12]
	}
	return t
}

// buildGraph adds the partition tasks and the merge of parts to g and
// returns the key of the merged chunk.
func (p *runPlan) buildGraph(g *graph.Graph, tok string, parts []int) (graph.Key, error) {
	var level []graph.Key
	for _, i := range parts {
		k := graph.BlockKey("udf-partition-"+tok, i)
		if !g.Has(k) {
			if err := g.Set(k, partitionNode(&partOp{ri: p.ri, Part: i, Start: p.bounds[i], Stop: p.bounds[i+1]})); err != nil {
				return "", err
			}
		}
		level = append(level, k)
	}
	mop := func(all bool) *mergeOp { return &mergeOp{ri: p.ri, All: all} }
	refs := func(ks []graph.Key) []graph.Arg {
		a := make([]graph.Arg, len(ks))
		for i, k := range ks {
			a[i] = graph.Ref(k)
		}
		return a
	}
	if len(level) == 0 || p.ri.Merge == MergeAllNode {
		k := graph.Key("udf-merge-all-" + tok)
		return k, g.AddTask(k, mop(p.ri.Merge == MergeAllNode), refs(level)...)
	}
	if p.ri.Merge == MergeLinear {
		prev := level[0]
		k := graph.BlockKey("udf-merge-"+tok, 0)
		if err := g.AddTask(k, &mergeOp{ri: p.ri, Extend: true}, graph.Ref(prev)); err != nil {
			return "", err
		}
		for j := 1; j < len(level); j++ {
			nk := graph.BlockKey("udf-merge-"+tok, j)
			if err := g.AddTask(nk, &mergeOp{ri: p.ri, Extend: true}, graph.Ref(k), graph.Ref(level[j])); err != nil {
				return "", err
			}
			k = nk
		}
		return k, nil
	}
	// Tree: ordered pairs, left covers earlier partitions.
	depth := 0
	if len(level) == 1 {
		k := graph.BlockKey("udf-merge-"+tok, 0, 0)
		return k, g.AddTask(k, mop(false), graph.Ref(level[0]))
	}
	for len(level) > 1 {
		var next []graph.Key
		for j := 0; j < len(level); j += 2 {
			if j+1 == len(level) {
				next = append(next, level[j])
				continue
			}
			k := graph.BlockKey("udf-merge-"+tok, depth, j/2)
			if err := g.AddTask(k, mop(false), graph.Ref(level[j]), graph.Ref(level[j+1])); err != nil {
				return "", err
			}
			next = append(next, k)
		}
		level = next
		depth++
	}
	return level[0], nil
}

func (p *runPlan) run(ctx context.Context) ([]*Results, error) {
	g := graph.New(0)
	root, err := p.buildGraph(g, p.token(), p.nonEmpty())
	if err != nil {
		return nil, err
	}
	vals, err := p.compute(ctx, g, []graph.Key{root}, true)
	if err != nil {
		return nil, err
	}
	return p.finish(vals[0].(*chunk), nil)
}

// recoverPanic, deferred by the exported entry points that run UDF code
// on the calling goroutine (Run's get_results, RunIter's merges), turns a
// panic into a *sched.PanicError holding the value and the stack, as the
// schedulers do for a task.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = &sched.PanicError{Value: r, Stack: debug.Stack()}
	}
}
