package chunkarray

import (
	"context"
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
)

// Computing one block into memory the caller owns: a consumer that reads
// blocks one after the other (a partition task walking its frames) keeps
// one buffer and has every block written into it, instead of a new block
// allocated (and collected) per read.

// ComputeBlockInto computes block idx of a into dst, which must have the
// block's shape and a's dtype (any strides; C-contiguous is fastest). A
// block that a fused elementwise expression or a random generator makes
// is evaluated straight into dst, tile by tile through tile buffers from
// the run's free list: no block-sized memory is allocated. Any other block is
// computed as Compute computes it (its culled graph, on sched.Sync unless
// WithScheduler) and copied into dst. a's graph is built on each call:
// a caller computing many blocks builds it once (Graph) and calls
// ComputeKeyInto.
func (a *Array) ComputeBlockInto(ctx context.Context, idx []int, dst *nd.Array, opts ...Option) error {
	const opName = "ComputeBlockInto"
	if err := a.Err(); err != nil {
		return err
	}
	if err := needKnown(opName, a); err != nil { // unknown.go
		return err
	}
	nb := a.NumBlocks()
	if len(idx) != len(nb) {
		return &Error{Op: opName, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("block index %v has %d axes, array has %d", idx, len(idx), len(nb))}
	}
	for i, j := range idx {
		if j < 0 || j >= nb[i] {
			return &Error{Op: opName, Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("block index %v out of the %v blocks", idx, nb)}
		}
	}
	if err := checkDst(opName, dst, a.blockShape(idx), a.dtype); err != nil {
		return err
	}
	// Sync unless asked otherwise: one block's graph is small, and the
	// caller is usually a task on a worker already.
	c := newConfig(append([]Option{WithScheduler(sched.Sync{})}, opts...))
	g, err := buildGraph([]*Array{a}, c.Optimize)
	if err != nil {
		return err
	}
	if len(c.Callbacks) > 0 {
		ctx = sched.WithCallbacks(ctx, c.Callbacks...)
	}
	return ComputeKeyInto(ctx, g, a.Key(idx...), dst, c.Scheduler)
}

func checkDst(opName string, dst *nd.Array, shape []int, d nd.DType) error {
	if dst == nil {
		return &Error{Op: opName, Shapes: [][]int{shape}, Reason: "nil destination"}
	}
	if !slices.Equal(dst.Shape(), shape) {
		return &Error{Op: opName, Shapes: [][]int{dst.Shape(), shape}, Reason: "destination shape is not the block's"}
	}
	if dst.DType() != d {
		return &Error{Op: opName, Shapes: [][]int{shape}, Reason: fmt.Sprintf("destination is %s, the array %s", dst.DType(), d)}
	}
	return nil
}

// ComputeKeyInto computes the value of key in g (a block of a graph from
// Array.Graph or BuildGraph, or one decoded from its JSON) into dst, which
// must have the value's shape and dtype. A fused elementwise task (its
// inputs computed first, on s) and a random block are evaluated straight
// into dst; any other value is computed on s (nil: sched.Sync) from the
// graph culled to key and copied into dst.
func ComputeKeyInto(ctx context.Context, g *graph.Graph, key graph.Key, dst *nd.Array, s sched.Scheduler) error {
	const opName = "ComputeKeyInto"
	if s == nil {
		s = sched.Sync{}
	}
	if dst == nil {
		return &Error{Op: opName, Reason: fmt.Sprintf("nil destination for %s", key)}
	}
	n, ok := g.Get(key)
	for hops := 0; ok && n.Kind == graph.KindAlias && hops < g.Len(); hops++ {
		key = n.Target
		n, ok = g.Get(key)
	}
	if !ok {
		return &Error{Op: opName, Reason: fmt.Sprintf("key %s not in the graph", key)}
	}
	if n.Kind == graph.KindTask {
		switch o := n.Op.(type) {
		case *op[randomP]:
			if done, err := randomInto(o.p, n.Args, dst); done || err != nil {
				return err
			}
		case *op[elemP]:
			args, err := resolveArgs(ctx, g, n.Args, s)
			if err != nil {
				return err
			}
			if args != nil {
				return elemInto(ctx, &o.p, args, dst)
			}
		}
	}
	sub, _, err := optimize.Cull(g, []graph.Key{key})
	if err != nil {
		return err
	}
	vals, err := s.Get(ctx, sub, []graph.Key{key})
	if err != nil {
		return err
	}
	v, ok := vals[0].(*nd.Array)
	if !ok {
		return &Error{Op: opName, Reason: fmt.Sprintf("%s is %T, not an array", key, vals[0])}
	}
	if err := checkDst(opName, dst, v.Shape(), v.DType()); err != nil {
		return err
	}
	return nd.Assign(dst, v)
}

// randomInto fills dst with the random block of args (start, shape) when
// dst is C-contiguous; done is false when it is not (then the caller
// computes the block and copies it).
func randomInto(p randomP, args []graph.Arg, dst *nd.Array) (done bool, err error) {
	if len(args) != 2 || args[0].Kind != graph.ArgLit || args[1].Kind != graph.ArgLit || !dst.IsCContiguous() {
		return false, nil
	}
	lits := []any{args[0].Lit, args[1].Lit}
	st, err := argInts(lits, 0, opRandom)
	if err != nil {
		return true, err
	}
	sh, err := argInts(lits, 1, opRandom)
	if err != nil {
		return true, err
	}
	if err := checkDst("ComputeKeyInto", dst, sh, p.dtype()); err != nil {
		return true, err
	}
	if size(sh) == 0 {
		return true, nil
	}
	return true, p.fill(dst.Data(), dst.Offset(), st, sh)
}

// resolveArgs returns the values of a task's arguments: literals as they
// are, references computed (all in one run on s). nil when an argument
// is of another kind (the caller then runs the task as the scheduler
// would).
func resolveArgs(ctx context.Context, g *graph.Graph, args []graph.Arg, s sched.Scheduler) ([]any, error) {
	out := make([]any, len(args))
	var refs []graph.Key
	var at []int
	for i, a := range args {
		switch a.Kind {
		case graph.ArgLit:
			out[i] = a.Lit
		case graph.ArgRef:
			refs = append(refs, a.Ref)
			at = append(at, i)
		default:
			return nil, nil
		}
	}
	if len(refs) == 0 {
		return out, nil
	}
	uniq := slices.Clone(refs)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	sub, _, err := optimize.Cull(g, uniq)
	if err != nil {
		return nil, err
	}
	vals, err := s.Get(ctx, sub, uniq)
	if err != nil {
		return nil, err
	}
	for k, i := range at {
		j, _ := slices.BinarySearch(uniq, refs[k])
		out[i] = vals[j]
	}
	return out, nil
}

// elemInto evaluates a fused elementwise task straight into dst.
func elemInto(ctx context.Context, p *elemP, args []any, dst *nd.Array) error {
	ev, shape, err := newEvaluator(ctx, p, args, opElemwise, false)
	if err != nil {
		return err
	}
	defer ev.release()
	if err := checkDst("ComputeKeyInto", dst, shape, p.D); err != nil {
		return err
	}
	return ev.into(dst)
}

// into evaluates the whole block into dst (its shape and dtype checked).
func (ev *evaluator) into(dst *nd.Array) error {
	if size(ev.shape) == 0 {
		return nil
	}
	if ev.constant() {
		r, err := ev.block(ev.shape, false) // one element, zero-stride
		if err != nil {
			return err
		}
		return nd.Assign(dst, r)
	}
	return ev.tiles(dst)
}
