package chunkarray

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// A tree reduction of registered Go functions (dask.array.reduction): a
// chunk function per block, then levels that concatenate up to
// split_every partials along the reduced axes and combine them, then an
// aggregate. The tree has the shape of Reduce's (reduce.go: the same
// fan-in per axis, empty chunks of a reduced axis skipped); what differs
// is that the partials are concatenated before each combine, as dask's
// concatenate=True, so a partial may keep more than one element along a
// reduced axis (TopK keeps k, Percentile a sketch).
//
// A partial is a list of fields, each an *nd.Array with the input's
// number of axes (one field for RegisterReduction's functions; the
// built-in reductions of this package carry several, as dask's dicts:
// values and indices for ArgTopK, values and weights for Percentile).
// Fields are concatenated one by one.

// ReductionFuncs are the three functions of a user-defined tree reduction
// (dask.array.reduction's chunk, combine and aggregate). Each takes an
// array, the reduced axes (sorted, non-negative) and keepdims, and must
// not modify its input. Chunk gets one block with keepdims true; Combine
// (nil: Aggregate) gets the concatenation, along the reduced axes, of up
// to SplitEvery partials, with keepdims true; Aggregate gets the
// concatenation of the last partials and the caller's keepdims, and
// returns the result's block: along each reduced axis OutputSize elements
// (1 by default) with keepdims, the axis dropped without (OutputSize must
// then be 1). The partials in between may have any length along the
// reduced axes; the other axes are the block's.
type ReductionFuncs struct {
	Chunk     func(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error)
	Combine   func(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error)
	Aggregate func(x *nd.Array, axes []int, keepdims bool) (*nd.Array, error)
}

// ReductionOpts tune Reduction.
type ReductionOpts struct {
	Keepdims bool
	// SplitEvery is Reduce's: the fan-in of a level over all reduced
	// axes together; 0 means 4.
	SplitEvery int
	// DType is the result's dtype (dask's dtype=): Aggregate's result
	// is cast to it. The zero value declares the input's dtype, and then
	// an Aggregate that returns another dtype is an error at compute time
	// (rather than a silent cast: an int8 input's int64 sums would wrap).
	DType nd.DType
	// OutputSize is the length of each reduced axis in the result with
	// Keepdims (dask's output_size); 0 means 1.
	OutputSize int
}

// treeFuncs are a reduction's functions over partials of several fields.
type treeFuncs struct {
	chunk     func(x *nd.Array, origin []int, p *treeP) ([]*nd.Array, error)
	combine   func(parts []*nd.Array, p *treeP) ([]*nd.Array, error)
	aggregate func(parts []*nd.Array, p *treeP) (*nd.Array, error)
	user      ReductionFuncs // the registered functions (RegisterReduction)
}

// reductions is the registry of tree reductions by name; like
// blockFuncs, a process-wide registry that a worker looks a task's
// functions up in.
var reductions = struct {
	sync.RWMutex
	m map[string]treeFuncs
}{m: map[string]treeFuncs{}}

func sameFuncPtr[F any](a, b F) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.IsNil() || vb.IsNil() {
		return va.IsNil() == vb.IsNil()
	}
	return va.Pointer() == vb.Pointer()
}

// RegisterReduction records f under name for Reduction, in every process
// that runs its tasks (in an init function, as RegisterBlockFunc).
// Registering the same functions again is a no-op; other functions under
// a taken name, an empty name, or a nil Chunk or Aggregate is an error.
func RegisterReduction(name string, f ReductionFuncs) error {
	if name == "" || f.Chunk == nil || f.Aggregate == nil {
		return fmt.Errorf("chunkarray: register reduction %q: empty name or nil Chunk or Aggregate", name)
	}
	reductions.Lock()
	defer reductions.Unlock()
	if old, ok := reductions.m[name]; ok {
		u := old.user
		if u.Chunk != nil && sameFuncPtr(u.Chunk, f.Chunk) && sameFuncPtr(u.Combine, f.Combine) && sameFuncPtr(u.Aggregate, f.Aggregate) {
			return nil
		}
		return fmt.Errorf("chunkarray: register reduction %q: name taken by other functions", name)
	}
	comb := f.Combine
	if comb == nil {
		comb = f.Aggregate
	}
	reductions.m[name] = treeFuncs{
		chunk: func(x *nd.Array, _ []int, p *treeP) ([]*nd.Array, error) {
			r, err := f.Chunk(x, p.Axes, true)
			return []*nd.Array{r}, err
		},
		combine: func(parts []*nd.Array, p *treeP) ([]*nd.Array, error) {
			r, err := comb(parts[0], p.Axes, true)
			return []*nd.Array{r}, err
		},
		aggregate: func(parts []*nd.Array, p *treeP) (*nd.Array, error) {
			return f.Aggregate(parts[0], p.Axes, p.Keepdims)
		},
		user: f,
	}
	graph.RegisterRequirement(requireReduction + name)
	return nil
}

// registerTree records a built-in reduction; it panics on a taken name
// (a programmer error, at init).
func registerTree(name string, f treeFuncs) {
	reductions.Lock()
	defer reductions.Unlock()
	if _, ok := reductions.m[name]; ok {
		panic("chunkarray: reduction " + name + " registered twice")
	}
	reductions.m[name] = f
}

func lookupTree(name string) (treeFuncs, bool) {
	reductions.RLock()
	defer reductions.RUnlock()
	f, ok := reductions.m[name]
	return f, ok
}

const opTree = "chunkarray.tree"

func init() { register[treeP](opTree) }

// requires names a reduction registered with RegisterReduction (the
// built-in ones are in every process).
func (p treeP) requires() []string {
	if f, ok := lookupTree(p.Fn); ok && f.user.Chunk == nil {
		return nil
	}
	return []string{requireReduction + p.Fn}
}

// treeP is one stage of a tree reduction. Args: chunk stage, the block
// and its origin; combine and aggregate, the list of partials and the
// counts of their grid per axis.
type treeP struct {
	Stage    int      `json:"stage"`
	Fn       string   `json:"fn"`
	Op       string   `json:"op"` // the public name, for errors and labels
	Axes     []int    `json:"axes"`
	Keepdims bool     `json:"keepdims"`
	Out      nd.DType `json:"out"`
	OutSize  int      `json:"outsize"`
	Shape    []int    `json:"shape"` // the input's
	// parameters of the built-in reductions
	K       int       `json:"k,omitempty"`
	Q       []float64 `json:"q,omitempty"`
	Method  string    `json:"method,omitempty"`
	Ddof    int       `json:"ddof,omitempty"`
	SkipNaN bool      `json:"skipnan,omitempty"`
	// Strict: the aggregate must return Out (a Reduction without DType)
	Strict bool `json:"strict,omitempty"`
}

func (p treeP) Label() string {
	switch p.Stage {
	case stChunk:
		return p.Op
	case stCombine:
		return p.Op + "-partial"
	}
	return p.Op + "-aggregate"
}

func (p treeP) run(_ context.Context, args []any) (any, error) {
	f, ok := lookupTree(p.Fn)
	if !ok {
		return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("reduction %q is not registered in this process", p.Fn)}
	}
	if p.Stage == stChunk {
		b, err := argArray(args[0], opTree)
		if err != nil {
			return nil, err
		}
		origin, err := argInts(args, 1, opTree)
		if err != nil {
			return nil, err
		}
		fields, err := f.chunk(b, origin, &p)
		if err != nil {
			return nil, p.wrap(err)
		}
		return p.partial(fields)
	}
	list, ok := args[0].([]any)
	if !ok || len(list) == 0 {
		return nil, fmt.Errorf("%s: argument is %T", opTree, args[0])
	}
	cnt, err := argInts(args, 1, opTree)
	if err != nil {
		return nil, err
	}
	parts, err := concatPartials(p.Op, list, cnt)
	if err != nil {
		return nil, err
	}
	if p.Stage == stCombine {
		fields, err := f.combine(parts, &p)
		if err != nil {
			return nil, p.wrap(err)
		}
		return p.partial(fields)
	}
	r, err := f.aggregate(parts, &p)
	if err != nil {
		return nil, p.wrap(err)
	}
	return p.result(r)
}

func (p *treeP) wrap(err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return &Error{Op: p.Op, Reason: err.Error(), Err: err}
}

// partial checks a partial's fields and packs them.
func (p *treeP) partial(fields []*nd.Array) (any, error) {
	out := make([]any, len(fields))
	for i, f := range fields {
		if f == nil || f.NDim() != len(p.Shape) {
			sh := []int(nil)
			if f != nil {
				sh = f.Shape()
			}
			return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("partial field %d has shape %v, want %d axes", i, sh, len(p.Shape))}
		}
		out[i] = f
	}
	return out, nil
}

// result checks the aggregate's block: its shape (the reduced axes
// OutSize long, or dropped) and dtype (cast to Out).
func (p *treeP) result(r *nd.Array) (*nd.Array, error) {
	if r == nil {
		return nil, &Error{Op: p.Op, Reason: "aggregate returned nil"}
	}
	sh := r.Shape()
	if p.Keepdims {
		if len(sh) != len(p.Shape) {
			return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("aggregate returned shape %v, want %d axes", sh, len(p.Shape))}
		}
		for ax := range p.Shape {
			if slices.Contains(p.Axes, ax) && sh[ax] != p.OutSize {
				return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("aggregate returned shape %v, want %d along axis %d", sh, p.OutSize, ax)}
			}
		}
	} else {
		if len(sh) != len(p.Shape)-len(p.Axes) {
			return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("aggregate returned shape %v, want %d axes (keepdims false)", sh, len(p.Shape)-len(p.Axes))}
		}
	}
	if r.DType() != p.Out {
		if p.Strict {
			return nil, &Error{Op: p.Op, Reason: fmt.Sprintf("aggregate returned %s, declared %s (the input's: set ReductionOpts.DType)", r.DType(), p.Out)}
		}
		return r.AsType(p.Out)
	}
	return r, nil
}

// concatPartials concatenates, field by field, the partials of a grid
// with cnt blocks per axis (C order) along the axes where cnt > 1.
func concatPartials(opName string, list []any, cnt []int) ([]*nd.Array, error) {
	grid := make([][]*nd.Array, len(list))
	for i, v := range list {
		t, ok := v.([]any)
		if !ok {
			return nil, &Error{Op: opName, Reason: fmt.Sprintf("partial is %T", v)}
		}
		grid[i] = make([]*nd.Array, len(t))
		for j, f := range t {
			if grid[i][j], ok = f.(*nd.Array); !ok {
				return nil, &Error{Op: opName, Reason: fmt.Sprintf("partial field is %T", f)}
			}
		}
		if len(grid[i]) != len(grid[0]) {
			return nil, &Error{Op: opName, Reason: "partials with different numbers of fields"}
		}
	}
	if len(list) == 1 {
		return grid[0], nil
	}
	out := make([]*nd.Array, len(grid[0]))
	for f := range out {
		pieces := make([]*nd.Array, len(grid))
		for i := range grid {
			pieces[i] = grid[i][f]
		}
		c, err := concatGrid(pieces, cnt)
		if err != nil {
			return nil, &Error{Op: opName, Reason: err.Error(), Err: err}
		}
		out[f] = c
	}
	return out, nil
}

// concatGrid assembles a C-ordered grid of arrays (cnt per axis) into one.
func concatGrid(pieces []*nd.Array, cnt []int) (*nd.Array, error) {
	n := len(cnt)
	str := nd.CStrides(cnt)
	// sizes[ax][k]: the length along ax of the pieces at coordinate k
	sizes := make([][]int, n)
	shape := make([]int, n)
	for ax := range n {
		sizes[ax] = make([]int, cnt[ax])
		for k := range cnt[ax] {
			p := pieces[k*str[ax]]
			if p.NDim() != n {
				return nil, fmt.Errorf("partial of %d axes in a grid of %d", p.NDim(), n)
			}
			sizes[ax][k] = p.Shape()[ax]
			shape[ax] += sizes[ax][k]
		}
	}
	d := pieces[0].DType()
	out, err := nd.Zeros(d, shape...)
	if err != nil {
		return nil, err
	}
	sl := make([]nd.Slice1, n)
	var ferr error
	forBlocks(cnt, func(k []int) {
		if ferr != nil {
			return
		}
		i := 0
		for ax, j := range k {
			i += j * str[ax]
			lo := 0
			for _, s := range sizes[ax][:j] {
				lo += s
			}
			sl[ax] = nd.Slice1{Start: lo, Stop: lo + sizes[ax][j], Step: 1}
		}
		p := pieces[i]
		for ax := range n {
			if p.Shape()[ax] != sizes[ax][k[ax]] {
				ferr = fmt.Errorf("partials of shapes %v and %v do not tile", p.Shape(), shape)
				return
			}
		}
		if p.DType() != d {
			if p, ferr = p.AsType(d); ferr != nil {
				return
			}
		}
		var view *nd.Array
		if view, ferr = out.Slice(sl...); ferr == nil {
			ferr = nd.Assign(view, p)
		}
	})
	return out, ferr
}

// treeLayer is one stage of a tree reduction: the chunk stage reads input
// block src(idx) and passes its origin; the others read the groups of
// the previous stage's blocks and pass the group's grid counts.
type treeLayer struct {
	in     *Array
	op     *op[treeP]
	groups [][][2]int
	keep   [][]int
	red    []bool // the aggregate's reduced axes, nil before it
	drop   bool   // the aggregate's block index lacks the reduced axes
}

func (l *treeLayer) inputs() []*Array { return []*Array{l.in} }

func (l *treeLayer) block(a *Array, idx []int) graph.Node {
	if l.drop {
		full := make([]int, len(l.red))
		j := 0
		for i := range full {
			if !l.red[i] {
				full[i] = idx[j]
				j++
			}
		}
		idx = full
	}
	if l.op.p.Stage == stChunk {
		rl := reduceLayer{keep: l.keep}
		src := rl.src(idx)
		return graph.Task(l.op, graph.Ref(l.in.Key(src...)), graph.Lit(l.in.blockStart(src)))
	}
	n := len(idx)
	cnt := make([]int, n)
	lo := make([]int, n)
	for ax, j := range idx {
		g := l.groups[ax][j]
		lo[ax], cnt[ax] = g[0], g[1]-g[0]
	}
	var refs []graph.Arg
	src := make([]int, n)
	forBlocks(cnt, func(k []int) {
		for ax := range k {
			src[ax] = lo[ax] + k[ax]
		}
		refs = append(refs, graph.Ref(l.in.Key(src...)))
	})
	return graph.Task(l.op, graph.List(refs...), graph.Lit(cnt))
}

// Reduction reduces x over axes (nil: all) with the reduction registered
// under fn (RegisterReduction), as dask.array.reduction(x, chunk,
// aggregate, axis, keepdims, dtype, split_every, combine, output_size)
// with concatenate=True. Functions are named, not passed, so that the
// graph runs in other processes (as MapBlocks). Extra arguments
// (dask's partial(...)) are not supported: register a function per
// parameter value.
func Reduction(x *Array, fn string, axes []int, o ReductionOpts) *Array {
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	f, ok := lookupTree(fn)
	if !ok || f.user.Chunk == nil {
		return errorf("reduction", [][]int{x.shape}, "reduction %q is not registered (RegisterReduction)", fn)
	}
	return x.tree(treeP{Fn: fn, Op: fn, Out: o.DType, Strict: o.DType == nd.Invalid}, axes, o)
}

// tree builds a tree reduction of x with the stage parameters p (Fn, Op,
// Out and the built-ins' parameters set).
func (x *Array) tree(p treeP, axes []int, o ReductionOpts) *Array {
	if err := x.Err(); err != nil {
		return errArray(err)
	}
	name := p.Op
	ax, err := x.reduceAxes(name, axes)
	if err != nil {
		return errArray(err)
	}
	slices.Sort(ax)
	if p.Out == nd.Invalid {
		p.Out = x.dtype
	}
	if !p.Out.Valid() {
		return errorf(name, [][]int{x.shape}, "invalid dtype %d", int(p.Out))
	}
	p.OutSize = max(o.OutputSize, 1)
	if o.OutputSize < 0 || (!o.Keepdims && p.OutSize != 1) {
		return errorf(name, [][]int{x.shape}, "output size %d needs keepdims (and must be positive)", o.OutputSize)
	}
	p.Axes, p.Keepdims, p.Shape = ax, o.Keepdims, x.shape
	split, fan, red := treeFan(o.SplitEvery, ax, x.NDim())
	pj, err := json.Marshal(p)
	if err != nil {
		return errArray(&Error{Op: name, Reason: err.Error(), Err: err})
	}
	tok := []any{x.name, string(pj), split}
	keep, ch, sh := chunkStageGrid(x, red)
	cp := p
	cp.Stage = stChunk
	cur := newArray(name+"-chunk", sh, ch, x.dtype, &treeLayer{in: x, op: newOp(opTree, cp), keep: keep}, tok...)
	for level := 0; ; level++ {
		groups, ch, sh, done := planLevel(cur.chunks, cur.shape, red, fan, p.OutSize)
		sp := p
		if !done {
			sp.Stage = stCombine
			cur = newArray(name+"-partial", sh, ch, x.dtype, &treeLayer{in: cur, op: newOp(opTree, sp), groups: groups}, append(tok, level)...)
			continue
		}
		sp.Stage = stAgg
		fch, fsh := ch, sh
		if !o.Keepdims {
			fch, fsh = [][]int{}, []int{}
			for i := range ch {
				if !red[i] {
					fch = append(fch, ch[i])
					fsh = append(fsh, sh[i])
				}
			}
		}
		return newArray(name, fsh, fch, p.Out, &treeLayer{in: cur, op: newOp(opTree, sp), groups: groups, red: red, drop: !o.Keepdims}, append(tok, "agg")...)
	}
}

// planLevel plans the level of a tree over the blocks of chunks (shape:
// their sums): along a reduced axis, groups of up to fan consecutive
// blocks become one block of length 1, or, when every reduced axis has
// at most fan blocks (done: this is the aggregate), all of them one block
// of outSize; the other axes keep their blocks.
func planLevel(chunks [][]int, shape []int, red []bool, fan, outSize int) (groups [][][2]int, ch [][]int, sh []int, done bool) {
	done = true
	for i, c := range chunks {
		if red[i] && len(c) > fan {
			done = false
		}
	}
	groups = make([][][2]int, len(chunks))
	ch = make([][]int, len(chunks))
	sh = make([]int, len(chunks))
	for i, c := range chunks {
		nb := len(c)
		switch {
		case !red[i]:
			groups[i] = make([][2]int, nb)
			for j := range groups[i] {
				groups[i][j] = [2]int{j, j + 1}
			}
			ch[i], sh[i] = c, shape[i]
		case done:
			groups[i] = [][2]int{{0, nb}}
			ch[i], sh[i] = []int{outSize}, outSize
		default:
			for j := 0; j < nb; j += fan {
				groups[i] = append(groups[i], [2]int{j, min(j+fan, nb)})
			}
			ch[i], sh[i] = ones(len(groups[i])), len(groups[i])
		}
	}
	return groups, ch, sh, done
}
