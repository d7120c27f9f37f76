package chunkarray

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/viz"
)

// Option configures Compute, Persist, Graph and Visualize. The
// configuration is sched.ComputeConfig, shared with the other collections.
type Option func(*sched.ComputeConfig)

func newConfig(opts []Option) sched.ComputeConfig { return sched.NewComputeConfig(opts) }

// WithScheduler runs the computation on s instead of sched.Threaded{}.
func WithScheduler(s sched.Scheduler) Option {
	return func(c *sched.ComputeConfig) { c.Scheduler = s }
}

// WithOptimize turns blockwise fusion and the default graph optimization
// (optimize.Optimize) on or off; off is Dask's optimize_graph=False, and
// then every operation is its own task.
func WithOptimize(on bool) Option { return func(c *sched.ComputeConfig) { c.Optimize = on } }

// WithCallbacks attaches callbacks (a profiler, a progress bar) to this
// computation only.
func WithCallbacks(cbs ...*sched.Callbacks) Option {
	return func(c *sched.ComputeConfig) { c.Callbacks = append(c.Callbacks, cbs...) }
}

// WithProgress draws a progress bar of this computation on w (standard
// error when w is nil), as Dask's ProgressBar(); none is drawn unless
// asked for.
func WithProgress(w io.Writer) Option { return WithCallbacks(sched.ProgressTo(w)) }

// collector walks Arrays and emits their block tasks into one graph.
type collector struct {
	g     *graph.Graph
	fuse  bool
	users map[*Array]int  // distinct consumers of each reachable Array
	root  map[*Array]bool // Arrays asked for: never fused away
	done  map[*Array]bool
	exprs map[*Array]*fused
	extra []*graph.Graph
}

// countUsers fills c.users over everything reachable from roots.
func (c *collector) countUsers(roots []*Array) {
	seen := map[*Array]bool{}
	var stack []*Array
	for _, r := range roots {
		if !seen[r] {
			seen[r] = true
			stack = append(stack, r)
		}
	}
	for len(stack) > 0 {
		a := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ins := a.lay.inputs()
		for j, in := range ins {
			if slices.Index(ins, in) == j {
				c.users[in]++
			}
			if !seen[in] {
				seen[in] = true
				stack = append(stack, in)
			}
		}
	}
}

// deps returns the Arrays whose tasks a's tasks refer to: for a fused
// task, the leaves of its expression.
func (c *collector) deps(a *Array) []*Array {
	if expr, _, ok := c.fusedTask(a); ok {
		return c.fusedOf(expr).leaves
	}
	return a.lay.inputs()
}

func (c *collector) visit(a *Array) error {
	// Iterative post-order: chains of thousands of operations must not
	// grow the goroutine stack without bound.
	type frame struct {
		a    *Array
		deps []*Array
		i    int
	}
	if c.done[a] {
		return nil
	}
	c.done[a] = true
	stack := []frame{{a: a, deps: c.deps(a)}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i < len(f.deps) {
			d := f.deps[f.i]
			f.i++
			if !c.done[d] {
				c.done[d] = true
				stack = append(stack, frame{a: d, deps: c.deps(d)})
			}
			continue
		}
		if err := c.emit(f.a); err != nil {
			return err
		}
		stack = stack[:len(stack)-1]
	}
	return nil
}

// emitter is a layer that writes its own tasks (all at once) instead of
// one block at a time.
type emitter interface {
	emit(c *collector, a *Array) error
}

func (c *collector) emit(a *Array) error {
	if expr, red, ok := c.fusedTask(a); ok {
		return c.emitFused(a, expr, red)
	}
	if e, ok := a.lay.(emitter); ok {
		return e.emit(c, a)
	}
	var err error
	forBlocks(a.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		err = c.g.Set(a.Key(idx...), a.lay.block(a, idx))
	})
	return err
}

// buildGraph collects the graph of arrays; with fuse, blockwise fusion is
// applied while collecting.
func buildGraph(arrays []*Array, fuse bool) (*graph.Graph, error) {
	n := 0
	for _, a := range arrays {
		if err := a.Err(); err != nil {
			return nil, err
		}
		n += a.NumTasks()
	}
	c := &collector{g: graph.New(4 * n), fuse: fuse, users: map[*Array]int{}, root: map[*Array]bool{},
		done: map[*Array]bool{}, exprs: map[*Array]*fused{}}
	for _, a := range arrays {
		c.root[a] = true
	}
	c.countUsers(arrays)
	for _, a := range arrays {
		if err := c.visit(a); err != nil {
			return nil, err
		}
	}
	for _, x := range c.extra {
		if err := c.g.Merge(x); err != nil {
			return nil, err
		}
	}
	return c.g, nil
}

// Graph returns the task graph of a's blocks (fused unless
// WithOptimize(false)); its keys are a.Keys().
func (a *Array) Graph(opts ...Option) (*graph.Graph, error) {
	c := newConfig(opts)
	return buildGraph([]*Array{a}, c.Optimize)
}

// Keys returns the keys of a's blocks in C order of their block indices.
func (a *Array) Keys() []graph.Key {
	if a.Err() != nil {
		return nil
	}
	out := make([]graph.Key, 0, a.NumTasks())
	forBlocks(a.NumBlocks(), func(idx []int) { out = append(out, a.Key(idx...)) })
	return out
}

// FinalKey returns the key of the task that assembles a's blocks into one
// nd.Array in the graph of BuildGraph.
func (a *Array) FinalKey() graph.Key {
	if a.Err() != nil {
		return ""
	}
	return graph.Key("finalize-" + a.name)
}

// BuildGraph returns the graph that Compute runs for arrays before the
// generic optimization (optimize.Optimize): their blocks, fused unless
// WithOptimize(false), and per array a finalize task that assembles its
// blocks into one *nd.Array. keys are the finalize keys, in order.
func BuildGraph(arrays []*Array, opts ...Option) (*graph.Graph, []graph.Key, error) {
	c := newConfig(opts)
	g, err := buildGraph(arrays, c.Optimize)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]graph.Key, len(arrays))
	for i, a := range arrays {
		keys[i] = a.FinalKey()
		refs := make([]graph.Arg, 0, a.NumTasks())
		forBlocks(a.NumBlocks(), func(idx []int) { refs = append(refs, graph.Ref(a.Key(idx...))) })
		fin := newOp(opFinalize, finalizeP{Shape: a.shape, Chunks: a.chunks, D: a.dtype})
		if err := g.Set(keys[i], graph.Task(fin, graph.List(refs...))); err != nil {
			return nil, nil, err
		}
	}
	return g, keys, nil
}

// Compute computes several arrays in one run over one graph, so that what
// they share is computed once (dask.compute(a, b)).
func Compute(ctx context.Context, arrays []*Array, opts ...Option) ([]*nd.Array, error) {
	c := newConfig(opts)
	g, keys, err := BuildGraph(arrays, opts...)
	if err != nil {
		return nil, err
	}
	vals, err := c.Run(ctx, g, keys)
	if err != nil {
		return nil, err
	}
	out := make([]*nd.Array, len(vals))
	for i, v := range vals {
		x, ok := v.(*nd.Array)
		if !ok {
			return nil, fmt.Errorf("chunkarray: compute %s: got %T, want *nd.Array", arrays[i].name, v)
		}
		out[i] = x
	}
	return out, nil
}

// Compute computes a into one nd.Array: collects its graph, fuses and
// optimizes it (unless WithOptimize(false)) and runs it on the scheduler
// (sched.Threaded{} unless WithScheduler). An error recorded while
// building a is returned as is; a task's failure is a *sched.TaskError.
func (a *Array) Compute(ctx context.Context, opts ...Option) (*nd.Array, error) {
	out, err := Compute(ctx, []*Array{a}, opts...)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// Persist computes a's blocks and returns an Array with the same name,
// shape and chunks whose blocks are literal values, so that Arrays built
// on it reuse them instead of computing them again.
//
// On a scheduler that keeps values where it computed them (a
// sched.Persister: the distributed client or cluster), the blocks stay
// there instead: the returned Array's blocks are nodes standing for the
// held values, which later computations on the same scheduler read
// where they are, without moving them through this process; the values
// are released when the Array is unreachable (or the client closes).
func (a *Array) Persist(ctx context.Context, opts ...Option) (*Array, error) {
	if err := a.Err(); err != nil {
		return nil, err
	}
	c := newConfig(opts)
	g, err := buildGraph([]*Array{a}, c.Optimize)
	if err != nil {
		return nil, err
	}
	keys := a.Keys()
	if _, ok := c.Scheduler.(sched.Persister); ok {
		nodes, err := c.Persist(ctx, g, keys)
		if err != nil {
			return nil, err
		}
		return &Array{name: a.name, shape: a.shape, chunks: a.chunks, dtype: a.dtype, lay: &nodeLayer{nodes: nodes, nb: a.NumBlocks()}}, nil
	}
	vals, err := c.Run(ctx, g, keys)
	if err != nil {
		return nil, err
	}
	blocks := make([]*nd.Array, len(vals))
	for i, v := range vals {
		x, ok := v.(*nd.Array)
		if !ok {
			return nil, fmt.Errorf("chunkarray: persist %s: block %s is %T", a.name, keys[i], v)
		}
		blocks[i] = x
	}
	return &Array{name: a.name, shape: a.shape, chunks: a.chunks, dtype: a.dtype, lay: &literalLayer{blocks: blocks, nb: a.NumBlocks()}}, nil
}

// Visualize draws a's graph into path with package viz (the format from
// the extension; all but .dot need the graphviz dot binary), as
// dask.visualize(arr) does: a's blocks are the outputs, with no finalize
// task (that one belongs to Compute). vo.Optimize is Dask's
// optimize_graph: false (the default) draws every operation as its own
// task; true draws what Compute runs, blockwise fusion and
// optimize.Optimize included. WithOptimize in opts overrides the fusion
// part.
func (a *Array) Visualize(ctx context.Context, path string, vo viz.Options, opts ...Option) error {
	c := sched.ComputeConfig{Optimize: vo.Optimize}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	g, err := buildGraph([]*Array{a}, c.Optimize)
	if err != nil {
		return err
	}
	if len(vo.Keys) == 0 {
		vo.Keys = a.Keys()
	}
	return viz.Render(ctx, g, path, "", vo)
}

// literalLayer holds computed blocks, in C order of block index.
type literalLayer struct {
	blocks []*nd.Array
	nb     []int
}

func (l *literalLayer) inputs() []*Array { return nil }

func (l *literalLayer) block(_ *Array, idx []int) graph.Node {
	return graph.Literal(l.blocks[flatIndex(idx, l.nb)])
}

// nodeLayer holds nodes standing for blocks persisted by a scheduler
// (sched.Persister), in C order of block index.
type nodeLayer struct {
	nodes []graph.Node
	nb    []int
}

func (l *nodeLayer) inputs() []*Array { return nil }

func (l *nodeLayer) block(_ *Array, idx []int) graph.Node { return l.nodes[flatIndex(idx, l.nb)] }

func flatIndex(idx, nb []int) int {
	f := 0
	for i, x := range idx {
		f = f*nb[i] + x
	}
	return f
}

// finalizeP assembles the blocks (args[0], C order) into one array.
type finalizeP struct {
	Shape  []int    `json:"shape"`
	Chunks [][]int  `json:"chunks"`
	D      nd.DType `json:"dtype"`
}

func (p finalizeP) run(_ context.Context, args []any) (any, error) {
	list, ok := args[0].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: argument is %T", opFinalize, args[0])
	}
	nb := make([]int, len(p.Chunks))
	for i, c := range p.Chunks {
		nb[i] = len(c)
	}
	if len(list) == 1 {
		return argArray(list[0], opFinalize)
	}
	if err := p.knowChunks(list, nb); err != nil {
		return nil, err
	}
	if c, err := sameConstant(list); err != nil || c != nil {
		// Every block is the same zero-stride constant (Ones, or an
		// expression of constants): the result is that constant broadcast
		// to the whole shape, as a one-block array's result already is,
		// instead of materialising it. Use Copy for a writable array.
		if err != nil {
			return nil, err
		}
		if c.DType() != p.D {
			if c, err = c.AsType(p.D); err != nil {
				return nil, err
			}
		}
		return c.BroadcastTo(p.Shape...)
	}
	out, err := nd.Zeros(p.D, p.Shape...)
	if err != nil {
		return nil, err
	}
	st := make([][]int, len(p.Chunks))
	for i, c := range p.Chunks {
		st[i] = starts(c)
	}
	i := 0
	sl := make([]nd.Slice1, len(nb))
	forBlocks(nb, func(idx []int) {
		if err != nil {
			return
		}
		var b *nd.Array
		if b, err = argArray(list[i], opFinalize); err != nil {
			return
		}
		i++
		for ax, x := range idx {
			sl[ax] = nd.Slice1{Start: st[ax][x], Stop: st[ax][x] + p.Chunks[ax][x], Step: 1}
		}
		err = copyRegion(out, sl, b)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sameConstant returns the one-element view of the blocks in list when
// they are all zero-stride constants of one dtype and one value (by bits),
// and nil otherwise.
func sameConstant(list []any) (*nd.Array, error) {
	var c *nd.Array
	var bits scalar
	for _, v := range list {
		b, err := argArray(v, opFinalize)
		if err != nil {
			return nil, err
		}
		if !isConst(b) {
			return nil, nil
		}
		one, err := first(b)
		if err != nil {
			return nil, err
		}
		z, err := one.Reshape()
		if err != nil {
			return nil, err
		}
		s, err := scalarFromND(z)
		if err != nil {
			return nil, nil
		}
		if c == nil {
			c, bits = one, s
		} else if s != bits {
			return nil, nil
		}
	}
	return c, nil
}

// knowChunks replaces the Unknown chunk lengths of p (unknown.go) with
// those of the blocks in list (C order of the block grid nb), and the
// shape with their sums; the blocks along one chunk must agree.
func (p *finalizeP) knowChunks(list []any, nb []int) error {
	if !slices.ContainsFunc(p.Chunks, func(c []int) bool { return slices.Contains(c, Unknown) }) {
		return nil
	}
	ch := make([][]int, len(p.Chunks))
	for ax, c := range p.Chunks {
		ch[ax] = slices.Clone(c)
	}
	i := 0
	var err error
	forBlocks(nb, func(idx []int) {
		var b *nd.Array
		if err != nil {
			return
		}
		if b, err = argArray(list[i], opFinalize); err != nil {
			return
		}
		i++
		if b.NDim() != len(idx) {
			err = fmt.Errorf("%s: block %v has %d axes, want %d", opFinalize, idx, b.NDim(), len(idx))
			return
		}
		for ax, k := range idx {
			if p.Chunks[ax][k] != Unknown {
				continue
			}
			switch ch[ax][k] {
			case Unknown:
				ch[ax][k] = b.Shape()[ax]
			case b.Shape()[ax]:
			default:
				err = fmt.Errorf("%s: blocks of chunk %d along axis %d have lengths %d and %d", opFinalize, k, ax, ch[ax][k], b.Shape()[ax])
			}
		}
	})
	if err != nil {
		return err
	}
	p.Chunks = ch
	p.Shape = make([]int, len(ch))
	for ax, c := range ch {
		p.Shape[ax] = sum(c)
	}
	return nil
}
