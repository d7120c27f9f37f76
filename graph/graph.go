package graph

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"sync/atomic"
)

// Graph is a task graph: keys bound to nodes, kept in insertion order. The
// zero value is an empty graph ready to use. A Graph is not safe for
// concurrent mutation; schedulers only read it.
type Graph struct {
	keys  []Key
	nodes []Node
	index map[Key]int32
	// deps caches what Dependencies and Validate computed (a *depsCache):
	// every pass of optimize and every scheduler asks for them, and on a
	// graph of a million tasks each computation costs a map lookup per
	// reference. Set clears it; nodes are not modified in place.
	deps atomic.Value
	// pre is the dependencies Set resolved as nodes were added, in Deps's
	// form (first-use order, a repeated reference once): preOff has
	// len(keys)+1 entries. A graph built in dependency order (as delayed
	// and chunkarray build theirs) resolves each reference while the key
	// it names was just inserted and is still in the processor's cache;
	// Dependencies then needs no map lookup at all, which on a graph of a
	// million tasks is most of its cost. preBroken is set once a reference
	// named a key not yet in the graph (or nodes were added another way),
	// and Dependencies looks every reference up instead.
	preDep, preOff []int32
	preBroken      bool
	preRefs        []Key   // Set's scratch for a node's references
	preMark        []int32 // preMark[j] == i+1: node i already depends on j (wide fan-in)
}

// depsCache is a graph's cached dependencies; acyclic is set once validate
// has also found no cycle.
type depsCache struct {
	d       *Deps
	acyclic bool
}

// cached returns the cached dependencies, or nil.
func (g *Graph) cached() *depsCache {
	c, _ := g.deps.Load().(*depsCache)
	return c
}

// New returns an empty graph with room for n nodes.
func New(n int) *Graph {
	return &Graph{keys: make([]Key, 0, n), nodes: make([]Node, 0, n), index: make(map[Key]int32, n),
		preOff: append(make([]int32, 0, n+1), 0)}
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.keys) }

// Keys returns the keys in insertion order. The slice is the graph's own:
// do not modify it.
func (g *Graph) Keys() []Key { return g.keys }

// Key returns the key of node i.
func (g *Graph) Key(i int) Key { return g.keys[i] }

// At returns node i. The pointer is valid until the graph is next modified;
// the node must not be modified through it (the graph caches what its
// nodes refer to).
func (g *Graph) At(i int) *Node { return &g.nodes[i] }

// Index returns the position of k.
func (g *Graph) Index(k Key) (int, bool) {
	i, ok := g.index[k]
	return int(i), ok
}

// Has reports whether k is bound.
func (g *Graph) Has(k Key) bool {
	_, ok := g.index[k]
	return ok
}

// Get returns the node bound to k.
func (g *Graph) Get(k Key) (*Node, bool) {
	i, ok := g.index[k]
	if !ok {
		return nil, false
	}
	return &g.nodes[i], true
}

// Set binds k to n. Binding a key again to an equal node is a no-op (that is
// how identical computations dedupe); binding it to a different node is a
// *ConflictError. An empty key, an invalid kind or a task without an op is
// an error too.
func (g *Graph) Set(k Key, n Node) error {
	if k == "" {
		return &InvalidNodeError{Key: k, Reason: "empty key"}
	}
	switch n.Kind {
	case KindTask:
		if n.Op == nil {
			return &NilOpError{Key: k}
		}
		if err := checkArgs(k, n.Args); err != nil {
			return err
		}
	case KindLiteral:
	case KindAlias:
		if n.Target == "" {
			return &InvalidNodeError{Key: k, Reason: "alias to an empty key"}
		}
	default:
		return &InvalidNodeError{Key: k, Reason: fmt.Sprintf("invalid node kind %d", n.Kind)}
	}
	if g.index == nil {
		g.index = map[Key]int32{}
	}
	if i, ok := g.index[k]; ok {
		if NodesEqual(&g.nodes[i], &n) {
			return nil
		}
		return &ConflictError{Key: k}
	}
	if g.cached() != nil {
		g.deps.Store((*depsCache)(nil))
	}
	if !g.preBroken {
		g.preResolve(&n)
	}
	g.index[k] = int32(len(g.keys))
	g.keys = append(g.keys, k)
	g.nodes = append(g.nodes, n)
	return nil
}

// scanRefs is how many references a node may have before finding its
// repeated ones switches from scanning its dependencies (cheaper for a
// handful) to a mark array (linear for a merge of every chunk).
const scanRefs = 16

// preResolve appends the dependencies of n, about to become node
// len(g.keys), to g.pre*, or gives up on them (preBroken) when a reference
// names a key not yet in g.
func (g *Graph) preResolve(n *Node) {
	i := int32(len(g.keys))
	if len(g.preOff) != len(g.keys)+1 {
		if len(g.keys) > 0 {
			g.dropPre()
			return
		}
		g.preOff = append(g.preOff[:0], 0)
	}
	g.preRefs = n.Refs(g.preRefs[:0])
	start := len(g.preDep)
	useMark := len(g.preRefs) > scanRefs
	if useMark && len(g.preMark) < len(g.keys) {
		g.preMark = append(g.preMark, make([]int32, len(g.keys)-len(g.preMark))...)
	}
	for _, r := range g.preRefs {
		j, ok := g.index[r]
		if !ok {
			g.dropPre()
			return
		}
		dup := false
		if useMark {
			dup = g.preMark[j] == i+1
			g.preMark[j] = i + 1
		} else {
			for _, e := range g.preDep[start:] {
				if e == j {
					dup = true
					break
				}
			}
		}
		if !dup {
			g.preDep = append(g.preDep, j)
		}
	}
	g.preOff = append(g.preOff, int32(len(g.preDep)))
	clear(g.preRefs) // drop the key strings it held
}

// dropPre gives up on Set-time dependencies for good.
func (g *Graph) dropPre() {
	g.preBroken = true
	g.preDep, g.preOff, g.preRefs, g.preMark = nil, nil, nil, nil
}

func checkArgs(k Key, args []Arg) error {
	for i := range args {
		a := &args[i]
		switch a.Kind {
		case ArgRef:
			if a.Ref == "" {
				return &InvalidNodeError{Key: k, Reason: "reference to an empty key"}
			}
		case ArgLit:
		case ArgList:
			if err := checkArgs(k, a.List); err != nil {
				return err
			}
		case ArgNested:
			if a.Op == nil {
				return &NilOpError{Key: k}
			}
			if err := checkArgs(k, a.List); err != nil {
				return err
			}
		default:
			return &InvalidNodeError{Key: k, Reason: fmt.Sprintf("invalid argument kind %d", a.Kind)}
		}
	}
	return nil
}

// AddTask binds k to op applied to args.
func (g *Graph) AddTask(k Key, op Op, args ...Arg) error { return g.Set(k, Task(op, args...)) }

// AddLiteral binds k to the value v.
func (g *Graph) AddLiteral(k Key, v any) error { return g.Set(k, Literal(v)) }

// AddAlias binds k to target's value.
func (g *Graph) AddAlias(k, target Key) error { return g.Set(k, Alias(target)) }

// Merge adds every node of the others to g, in order. A key bound to
// different nodes in two graphs is a *ConflictError; g keeps what was added
// before the conflict.
func (g *Graph) Merge(others ...*Graph) error {
	for _, o := range others {
		if o == nil {
			continue
		}
		for i, k := range o.keys {
			if err := g.Set(k, o.nodes[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Merge returns a new graph holding the nodes of all gs.
func Merge(gs ...*Graph) (*Graph, error) {
	n := 0
	for _, g := range gs {
		if g != nil {
			n += g.Len()
		}
	}
	out := New(n)
	if err := out.Merge(gs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Clone returns a copy of g. Nodes are copied; ops, argument slices and
// literal values are shared, since nothing modifies them.
func (g *Graph) Clone() *Graph {
	out := &Graph{
		keys:  append([]Key(nil), g.keys...),
		nodes: append([]Node(nil), g.nodes...),
		index: make(map[Key]int32, len(g.keys)),
	}
	if !g.preBroken && len(g.preOff) == len(g.keys)+1 {
		out.preDep = append([]int32(nil), g.preDep...)
		out.preOff = append([]int32(nil), g.preOff...)
	} else {
		out.preBroken = true
	}
	for i, k := range out.keys {
		out.index[k] = int32(i)
	}
	return out
}

// Subgraph returns a new graph of the nodes at the given indices, in
// increasing index order.
func (g *Graph) Subgraph(idx []int32) *Graph {
	sorted := append([]int32(nil), idx...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a] < sorted[b] })
	out := New(len(sorted))
	out.dropPre() // nodes are added below without Set
	last := int32(-1)
	for _, i := range sorted {
		if i == last {
			continue
		}
		last = i
		out.index[g.keys[i]] = int32(len(out.keys))
		out.keys = append(out.keys, g.keys[i])
		out.nodes = append(out.nodes, g.nodes[i])
	}
	return out
}

// NodesEqual reports whether two nodes describe the same computation: same
// kind, same op name and parameters, equal arguments, equal literals.
func NodesEqual(a, b *Node) bool {
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case KindTask:
		return opsEqual(a.Op, b.Op) && argsEqual(a.Args, b.Args) && resourcesEqual(a.Resources, b.Resources)
	case KindLiteral:
		return valuesEqual(a.Value, b.Value)
	case KindAlias:
		return a.Target == b.Target
	}
	return false
}

// resourcesEqual treats a nil and an empty map alike: JSON omits both.
func resourcesEqual(a, b map[string]float64) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func opsEqual(a, b Op) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Name() != b.Name() {
		return false
	}
	pa, ea := OpParams(a)
	pb, eb := OpParams(b)
	if ea != nil || eb != nil {
		return false
	}
	if string(pa) != string(pb) {
		return false
	}
	_, pok := a.(ParamOp)
	if pok {
		return true
	}
	// Unparameterised ops of the same name: registered ops are equal by
	// name; unregistered ones (closures) only if they are the same value.
	if IsRegistered(a.Name()) {
		return true
	}
	return sameValue(a, b)
}

func sameValue(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}

func argsEqual(a, b []Arg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Kind != y.Kind {
			return false
		}
		switch x.Kind {
		case ArgRef:
			if x.Ref != y.Ref {
				return false
			}
		case ArgLit:
			if !valuesEqual(x.Lit, y.Lit) {
				return false
			}
		case ArgList:
			if !argsEqual(x.List, y.List) {
				return false
			}
		case ArgNested:
			if !opsEqual(x.Op, y.Op) || !argsEqual(x.List, y.List) {
				return false
			}
		}
	}
	return true
}

// Equal reports whether two graphs bind the same keys to equal nodes,
// whatever their insertion order.
func Equal(a, b *Graph) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i, k := range a.keys {
		n, ok := b.Get(k)
		if !ok || !NodesEqual(&a.nodes[i], n) {
			return false
		}
	}
	return true
}

// Deps holds the dependencies and dependents of every node of a graph, by
// node index, in compact form. Repeated references count once. It is what
// passes hand to one another.
type Deps struct {
	depOff, dep []int32
	useOff, use []int32
}

// Of returns the indices of the nodes that node i depends on, in first-use
// order. Do not modify the slice.
func (d *Deps) Of(i int) []int32 { return d.dep[d.depOff[i]:d.depOff[i+1]] }

// Users returns the indices of the nodes that depend on node i, in
// increasing order. Do not modify the slice.
func (d *Deps) Users(i int) []int32 { return d.use[d.useOff[i]:d.useOff[i+1]] }

// Len returns the number of nodes described.
func (d *Deps) Len() int { return len(d.depOff) - 1 }

// Dependencies computes the dependencies and dependents of every node. A
// reference to a key that is not in the graph is a *MissingKeyError. The
// result is cached until the graph is next modified, so that the passes
// of optimize and the scheduler that follow one another share it; it is
// safe to call from several goroutines.
func (g *Graph) Dependencies() (*Deps, error) {
	if c := g.cached(); c != nil {
		return c.d, nil
	}
	d, err := g.dependencies()
	if err == nil {
		g.deps.Store(&depsCache{d: d})
	}
	return d, err
}

func (g *Graph) dependencies() (*Deps, error) {
	n := len(g.keys)
	d := &Deps{useOff: make([]int32, n+2)}
	if !g.preBroken && len(g.preOff) == n+1 {
		// Set resolved every reference; the slices are shared (capped,
		// so that a later Set appends beyond what d sees).
		d.depOff = g.preOff[: n+1 : n+1]
		d.dep = g.preDep[:len(g.preDep):len(g.preDep)]
		for _, j := range d.dep {
			d.useOff[j+2]++
		}
		d.fillUsers()
		return d, nil
	}
	d.depOff = make([]int32, n+1)
	d.dep = make([]int32, 0, n)
	var refs []Key
	// mark[j] == i+1 when node i already depends on j; allocated only for
	// a node of more than scanRefs references.
	var mark []int32
	for i := range g.nodes {
		refs = g.nodes[i].Refs(refs[:0])
		start := len(d.dep)
		useMark := len(refs) > scanRefs
		if useMark && mark == nil {
			mark = make([]int32, n)
		}
		for _, r := range refs {
			j, ok := g.index[r]
			if !ok {
				return nil, &MissingKeyError{Key: r, From: g.keys[i]}
			}
			dup := false
			if useMark {
				dup = mark[j] == int32(i+1)
				mark[j] = int32(i + 1)
			} else {
				for _, e := range d.dep[start:] {
					if e == j {
						dup = true
						break
					}
				}
			}
			if !dup {
				d.dep = append(d.dep, j)
				d.useOff[j+2]++
			}
		}
		d.depOff[i+1] = int32(len(d.dep))
	}
	d.fillUsers()
	return d, nil
}

// fillUsers computes the reverse edges by counting sort, from dep, depOff
// and useOff[j+2] holding the number of users of node j.
func (d *Deps) fillUsers() {
	n := len(d.depOff) - 1
	// useOff[j+1] ends as the start of j.
	for j := 2; j < n+2; j++ {
		d.useOff[j] += d.useOff[j-1]
	}
	d.use = make([]int32, len(d.dep))
	for i := 0; i < n; i++ {
		for _, j := range d.dep[d.depOff[i]:d.depOff[i+1]] {
			d.use[d.useOff[j+1]] = int32(i)
			d.useOff[j+1]++
		}
	}
	d.useOff = d.useOff[:n+1]
}

// Resolve turns task arguments into values: a reference becomes lookup(key),
// a list becomes []any, a nested task is run. dst is reused when it has
// room.
func Resolve(ctx context.Context, dst []any, args []Arg, lookup func(Key) any) ([]any, error) {
	dst = dst[:0]
	for i := range args {
		v, err := resolveArg(ctx, &args[i], lookup)
		if err != nil {
			return nil, err
		}
		dst = append(dst, v)
	}
	return dst, nil
}

func resolveArg(ctx context.Context, a *Arg, lookup func(Key) any) (any, error) {
	switch a.Kind {
	case ArgRef:
		return lookup(a.Ref), nil
	case ArgLit:
		return a.Lit, nil
	case ArgList:
		return Resolve(ctx, make([]any, 0, len(a.List)), a.List, lookup)
	case ArgNested:
		vals, err := Resolve(ctx, make([]any, 0, len(a.List)), a.List, lookup)
		if err != nil {
			return nil, err
		}
		return a.Op.Run(ctx, vals)
	}
	return nil, fmt.Errorf("graph: invalid argument kind %d", a.Kind)
}
