package udfbridge

// The engine: a run planned on the main node, partition tasks, merges.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// udfSpec names a UDF and its parameters: what a task rebuilds it from.
type udfSpec struct {
	Name   string
	Params []byte
}

// runInfo is what every task of a run knows: the dataset, the UDFs, the
// ROI and the tiling. It is encoded in the params of every op.
type runInfo struct {
	ds       Dataset
	Spec     DatasetSpec `json:"-"`
	UDFs     []udfSpec
	NavShape []int
	SigShape []int
	DType    nd.DType
	Input    nd.DType
	ROI      []bool // flat; nil: all
	Depth    int
	SigTile  []int
	Backend  Backend
	Merge    MergeStrategy

	once      sync.Once
	wireBytes []byte
	wireErr   error
}

func (ri *runInfo) n() int { return shapeProd(ri.NavShape) }

// roiIndex returns the flat nav indices of the ROI frames in [a, b).
func (ri *runInfo) roiFrames(a, b int) []int {
	out := make([]int, 0, b-a)
	for i := a; i < b; i++ {
		if ri.ROI == nil || ri.ROI[i] {
			out = append(out, i)
		}
	}
	return out
}

func (ri *runInfo) roiBefore(a int) int {
	if ri.ROI == nil {
		return a
	}
	k := 0
	for _, in := range ri.ROI[:a] {
		if in {
			k++
		}
	}
	return k
}

func (ri *runInfo) dataset() (Dataset, error) {
	if ri.ds != nil {
		return ri.ds, nil
	}
	ds, err := OpenSpec(ri.Spec)
	if err != nil {
		return nil, err
	}
	ri.ds = ds
	return ds, nil
}

func (ri *runInfo) mainMeta() *Meta {
	return &Meta{NavShape: ri.NavShape, SigShape: ri.SigShape, DatasetDType: ri.DType,
		InputDType: ri.Input, DeviceClass: "cpu", Backend: BackendCPU, ROI: ri.ROI, Partition: -1}
}

// built is one UDF rebuilt with its declarations.
type built struct {
	spec   udfSpec
	u      UDF
	decls  []BufferDecl
	method Method
}

func (b *built) decl(name string) (BufferDecl, bool) {
	for _, d := range b.decls {
		if d.Name == name {
			return d, true
		}
	}
	return BufferDecl{}, false
}

func (b *built) navOnly() bool {
	for _, d := range b.decls {
		if d.Use != UseResultOnly && d.Kind != Nav {
			return false
		}
	}
	return true
}

// build rebuilds and validates every UDF for meta m.
func (ri *runInfo) build(m *Meta) ([]*built, error) {
	out := make([]*built, len(ri.UDFs))
	for i, s := range ri.UDFs {
		u, err := NewUDF(s.Name, s.Params)
		if err != nil {
			return nil, err
		}
		b, err := validateUDF(u, s, m)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func validateUDF(u UDF, s udfSpec, m *Meta) (*built, error) {
	b := &built{spec: s, u: u}
	decls, err := u.Buffers(m)
	if err != nil {
		return nil, &UDFError{UDF: s.Name, Step: "buffers", Err: err}
	}
	seen := map[string]bool{}
	for _, d := range decls {
		switch {
		case d.Name == "":
			return nil, &UDFError{UDF: s.Name, Step: "buffers", Err: fmt.Errorf("a buffer has no name")}
		case seen[d.Name]:
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("declared twice")}
		case d.Kind < Nav || d.Kind > Single:
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("invalid kind %v", d.Kind)}
		case d.DType != nd.Invalid && !d.DType.Valid():
			return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("invalid dtype %v", d.DType)}
		}
		for _, e := range d.Extra {
			if e < 0 {
				return nil, &BufferError{UDF: s.Name, Buffer: d.Name, Err: fmt.Errorf("negative extra shape %v", d.Extra)}
			}
		}
		seen[d.Name] = true
	}
	b.decls = decls
	_, tp := u.(TileProcessor)
	_, fp := u.(FrameProcessor)
	_, pp := u.(PartitionProcessor)
	meth := MethodAuto
	if mc, ok := u.(MethodChooser); ok {
		meth = mc.Method(m)
	}
	switch meth {
	case MethodAuto:
		switch {
		case tp:
			meth = MethodTile
		case fp:
			meth = MethodFrame
		case pp:
			meth = MethodPartition
		default:
			return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("implements none of ProcessTile, ProcessFrame, ProcessPartition")}
		}
	case MethodTile, MethodFrame, MethodPartition:
		if (meth == MethodTile && !tp) || (meth == MethodFrame && !fp) || (meth == MethodPartition && !pp) {
			return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("chose process_%s but does not implement it", meth)}
		}
	default:
		return nil, &UDFError{UDF: s.Name, Step: "method", Err: fmt.Errorf("unknown method %d", meth)}
	}
	b.method = meth
	return b, nil
}

// alloc allocates zero-filled buffers (not result_only) for navLen nav rows.
func (ri *runInfo) alloc(b *built, navLen int) (map[string]*nd.Array, error) {
	out := map[string]*nd.Array{}
	for _, d := range b.decls {
		if d.Use == UseResultOnly {
			continue
		}
		a, err := nd.Zeros(d.dtype(), d.shape(navLen, ri.SigShape)...)
		if err != nil {
			return nil, &BufferError{UDF: b.spec.Name, Buffer: d.Name, Err: err}
		}
		out[d.Name] = a
	}
	return out, nil
}

// chunk is the value of a partition task or a merge: the buffers of every
// UDF over the flat ROI-compressed nav rows [NavOrigin, NavOrigin+NavSize)
// (sig and single buffers whole), covering partitions [Lo, Hi).
type chunk struct {
	Lo, Hi             int
	NavOrigin, NavSize int
	Bufs               []map[string]*nd.Array
}

func init() {
	graph.RegisterType[*chunk]("udfbridge.chunk", encodeChunk, decodeChunk)
}

func encodeChunk(c *chunk) ([]byte, error) {
	l := []any{int64(c.Lo), int64(c.Hi), int64(c.NavOrigin), int64(c.NavSize), int64(len(c.Bufs))}
	for _, m := range c.Bufs {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		l = append(l, int64(len(names)))
		for _, k := range names {
			l = append(l, k, m[k])
		}
	}
	return graph.EncodeValue(nil, l)
}

func decodeChunk(b []byte) (c *chunk, err error) {
	v, _, err := graph.DecodeValue(b)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("udfbridge: malformed chunk value")
		}
	}()
	l := v.([]any)
	c = &chunk{Lo: int(l[0].(int64)), Hi: int(l[1].(int64)), NavOrigin: int(l[2].(int64)), NavSize: int(l[3].(int64))}
	nu := int(l[4].(int64))
	p := 5
	for range nu {
		nb := int(l[p].(int64))
		p++
		m := map[string]*nd.Array{}
		for range nb {
			m[l[p].(string)] = l[p+1].(*nd.Array)
			p += 2
		}
		c.Bufs = append(c.Bufs, m)
	}
	return c, nil
}

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

func (p *runPlan) scheduler() sched.Scheduler {
	if p.cfg.sched != nil {
		return p.cfg.sched
	}
	return sched.Threaded{Workers: runtime.GOMAXPROCS(0)}
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
		if err := g.AddTask(k, mop(false), graph.Ref(prev)); err != nil {
			return "", err
		}
		for j := 1; j < len(level); j++ {
			nk := graph.BlockKey("udf-merge-"+tok, j)
			if err := g.AddTask(nk, mop(false), graph.Ref(k), graph.Ref(level[j])); err != nil {
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
	vals, err := p.scheduler().Get(ctx, g, []graph.Key{root})
	if err != nil {
		return nil, err
	}
	return p.finish(vals[0].(*chunk), nil)
}

// finish runs get_results on the main node and wraps the results. valid
// is the flat nav mask of merged positions (nil: the ROI).
func (p *runPlan) finish(c *chunk, valid []bool) (_ []*Results, err error) {
	defer recoverUDF(&err, "get_results")
	ri := p.ri
	if valid == nil {
		valid = make([]bool, ri.n())
		for i := range valid {
			valid[i] = ri.ROI == nil || ri.ROI[i]
		}
	}
	out := make([]*Results, len(p.main))
	for i, b := range p.main {
		res, masks, err := getResults(ri, b, c.Bufs[i], c.NavSize)
		if err != nil {
			return nil, err
		}
		out[i] = &Results{udf: b.spec.Name, decls: b.decls, navShape: ri.NavShape, roi: ri.ROI, raw: res, masks: masks, navValid: valid}
	}
	return out, nil
}

func getResults(ri *runInfo, b *built, bufs map[string]*nd.Array, r int) (map[string]*nd.Array, map[string]*nd.Array, error) {
	name := b.spec.Name
	c := &Ctx{udf: name, meta: ri.mainMeta(), params: b.spec.Params, bufs: bufs}
	var got map[string]*nd.Array
	if g, ok := b.u.(ResultGetter); ok {
		var err error
		if got, err = g.GetResults(c); err != nil {
			return nil, nil, &UDFError{UDF: name, Step: "get_results", Err: err}
		}
		for k, a := range got {
			d, ok := b.decl(k)
			switch {
			case !ok:
				return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("returned by get_results but not declared")}
			case d.Use == UsePrivate:
				return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("private buffer returned by get_results")}
			case a == nil:
				return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("get_results returned nil")}
			case a.DType().Kind() != d.dtype().Kind():
				return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("get_results returned dtype %v, declared %v (kind differs)", a.DType(), d.dtype())}
			case d.Kind == Nav && (a.NDim() == 0 || a.Shape()[0] != r):
				return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("nav buffer from get_results has shape %v, want (%d,)+extra (flat, ROI-compressed)", a.Shape(), r)}
			}
		}
	}
	out := map[string]*nd.Array{}
	for _, d := range b.decls {
		if d.Use == UsePrivate {
			continue
		}
		if a, ok := got[d.Name]; ok {
			out[d.Name] = a
			continue
		}
		if d.Use == UseResultOnly {
			return nil, nil, &BufferError{UDF: name, Buffer: d.Name, Err: fmt.Errorf("result_only buffer not set by get_results")}
		}
		out[d.Name] = bufs[d.Name]
	}
	for k, m := range c.masks {
		if _, ok := out[k]; !ok {
			return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("with_mask on a buffer that is not returned")}
		}
		d, _ := b.decl(k)
		sh := out[k].Shape()
		if d.Kind == Nav {
			sh = append(append([]int(nil), ri.NavShape...), sh[1:]...)
		}
		if _, err := m.BroadcastTo(sh...); err != nil {
			return nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("with_mask: mask of shape %v does not broadcast to %v", m.Shape(), sh)}
		}
	}
	return out, c.masks, nil
}

// Op params: a small JSON header naming the op's part of the run, a
// newline, then the run's info (dataset spec, UDFs, ROI, tiling) encoded
// once per run and shared by every op: graph merges compare params, and a
// memory dataset's spec holds all its bytes.
type opHeader struct {
	Part  int    `json:",omitempty"`
	Start int    `json:",omitempty"`
	Stop  int    `json:",omitempty"`
	All   bool   `json:",omitempty"`
	U     int    `json:",omitempty"`
	Buf   string `json:",omitempty"`
}

type riWire struct {
	Spec DatasetSpec
	Info *runInfo
}

func (ri *runInfo) wire() ([]byte, error) {
	ri.once.Do(func() {
		if ri.Spec.Kind == "" {
			if ri.ds == nil {
				ri.wireErr = fmt.Errorf("udfbridge: no dataset spec")
				return
			}
			s, err := ri.ds.Spec()
			if err != nil {
				ri.wireErr = fmt.Errorf("udfbridge: dataset cannot be encoded: %w", err)
				return
			}
			ri.Spec = s
		}
		ri.wireBytes, ri.wireErr = json.Marshal(riWire{Spec: ri.Spec, Info: ri})
	})
	return ri.wireBytes, ri.wireErr
}

func encodeOpParams(ri *runInfo, h opHeader) ([]byte, error) {
	w, err := ri.wire()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return append(append(b, '\n'), w...), nil
}

func decodeOpParams(b []byte) (*opHeader, *runInfo, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: no run info")
	}
	var h opHeader
	if err := json.Unmarshal(b[:i], &h); err != nil {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: %w", err)
	}
	var w riWire
	if err := json.Unmarshal(b[i+1:], &w); err != nil {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: %w", err)
	}
	if w.Info == nil {
		return nil, nil, fmt.Errorf("udfbridge: op params without run info")
	}
	w.Info.Spec = w.Spec
	return &h, w.Info, nil
}

func init() {
	graph.RegisterOp("udfbridge.partition", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &partOp{ri: ri, Part: h.Part, Start: h.Start, Stop: h.Stop}, nil
	})
	graph.RegisterOp("udfbridge.merge", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &mergeOp{ri: ri, All: h.All}, nil
	})
}

// Labels for pictures (viz.Labeler), named as in LiberTEM's task trees.
func (o *partOp) Label() string { return "partition" }
func (o *mergeOp) Label() string {
	if o.All {
		return "merge_all"
	}
	return "merge"
}

// with returns a copy of ri with other UDF specs and ROI (RunIter).
func (ri *runInfo) with(udfs []udfSpec, roi []bool) *runInfo {
	return &runInfo{ds: ri.ds, Spec: ri.Spec, UDFs: udfs, NavShape: ri.NavShape, SigShape: ri.SigShape,
		DType: ri.DType, Input: ri.Input, ROI: roi, Depth: ri.Depth, SigTile: ri.SigTile, Backend: ri.Backend, Merge: ri.Merge}
}

// recoverUDF turns a panic of UDF code run on the main node (get_results,
// merges in RunIter) into an error, as the schedulers do inside tasks.
func recoverUDF(err *error, step string) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("udfbridge: %s panicked: %v", step, r)
	}
}
