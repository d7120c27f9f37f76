package delayed

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/graph"
)

// node is one lazy value: its key, the graph node that computes it, and
// pointers to the nodes its arguments refer to. Nodes are immutable once
// built, so any number of Delayed values and goroutines may share them.
type node struct {
	key   graph.Key
	nd    graph.Node   // Kind 0 for a layer node
	deps  []*node      // the nodes nd refers to, in argument order
	layer *graph.Graph // for FromGraph: a whole graph that holds key
	err   error        // sticky: set when building failed here or upstream
	mark  uint64       // the last collect that reached this node; see collect
}

// ErrZero is returned for the zero Delayed, which stands for nothing.
var ErrZero = errors.New("delayed: zero Delayed value (not built by Fn, Value or FromGraph)")

var zeroNode = &node{err: ErrZero}

// Delayed is a lazy value of type T: a key and the graph that computes it.
// It is a small immutable handle; copy it freely. Build one with a wrapped
// function (Fn1, Fn2, …), Value, Slice, Map, Index or FromGraph.
type Delayed[T any] struct{ n *node }

// In is an argument of type T to a wrapped function: a Delayed[T], or a
// plain value made with Lit. The unexported methods close the set, and
// mention T so that an In[int] cannot be passed where an In[string] is due.
// A wrapper's Call method takes plain values without Lit.
type In[T any] interface {
	arg() (graph.Arg, *node)
	in(*T)
}

// Valuer is anything that Compute can run: a key and the graph that
// computes it. Every Delayed and Tuple2 is a Valuer, and so is any
// collection of another package that can describe itself as one key of a
// graph.
type Valuer interface {
	Key() graph.Key
	Graph() (*graph.Graph, error)
}

var (
	_ In[int] = Delayed[int]{}
	_ In[int] = lit[int]{}
	_ Valuer  = Delayed[int]{}
)

func (d Delayed[T]) node() *node {
	if d.n == nil {
		return zeroNode
	}
	return d.n
}

func (d Delayed[T]) arg() (graph.Arg, *node) {
	n := d.node()
	return graph.Ref(n.key), n
}

func (Delayed[T]) in(*T) {}

func (Delayed[T]) elem() reflect.Type { return reflect.TypeFor[T]() }

// Key returns the key of d's value.
func (d Delayed[T]) Key() graph.Key { return d.node().key }

// Err returns the error recorded while d or anything it depends on was
// built, such as a wrapped name that clashes (*NameError). Compute returns
// the same error.
func (d Delayed[T]) Err() error { return d.node().err }

// Graph collects the graph that computes d: d's node and, transitively,
// those of its arguments, deduplicated by key. Two different nodes under
// one key give a *graph.ConflictError.
func (d Delayed[T]) Graph() (*graph.Graph, error) { return collect([]*node{d.node()}) }

// String returns "Delayed[T](key)", as Dask prints Delayed('key').
func (d Delayed[T]) String() string {
	return fmt.Sprintf("Delayed[%s](%s)", reflect.TypeFor[T](), string(d.node().key))
}

// Named returns d under the explicit key name (Dask's dask_key_name). The
// node is copied, not aliased, so the graph gains no task; values built on
// d before renaming keep referring to the old key.
func (d Delayed[T]) Named(key string) Delayed[T] {
	n := d.node()
	if n.err != nil {
		return d
	}
	if key == "" {
		return Delayed[T]{&node{key: n.key, err: &NameError{Name: key, Reason: "empty key"}}}
	}
	if n.layer != nil {
		// The node lives inside someone else's graph: rename by alias.
		return Delayed[T]{&node{key: graph.Key(key), nd: graph.Alias(n.key), deps: []*node{n}}}
	}
	c := *n
	c.key = graph.Key(key)
	return Delayed[T]{&c}
}

// lit is an argument passed by value, embedded in the task that uses it.
type lit[T any] struct{ v T }

func (l lit[T]) arg() (graph.Arg, *node) { return graph.Lit(l.v), nil }
func (lit[T]) in(*T)                     {}
func (lit[T]) elem() reflect.Type        { return reflect.TypeFor[T]() }

// Lit passes v by value to a wrapped function: it is stored in the calling
// task's arguments and gets no key of its own, as plain arguments of a
// dask.delayed call do. Use Value for a value that deserves its own node.
func Lit[T any](v T) In[T] { return lit[T]{v} }

// Value wraps v as a literal node with a deterministic key named after its
// type ("int-3fa1…"), as dask.delayed(v) does. Values that graph.Tokenize
// does not understand get an impure key.
func Value[T any](v T) Delayed[T] {
	tok, err := graph.Tokenize(v)
	if err != nil {
		tok = graph.ImpureToken()
	}
	return Delayed[T]{&node{key: graph.Key(typePrefix(reflect.TypeFor[T]()) + "-" + tok), nd: graph.Literal(v)}}
}

func typePrefix(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	if n := t.Name(); n != "" && !strings.ContainsAny(n, "[]-") {
		return n
	}
	return t.Kind().String()
}

// FromGraph returns the value of key in g as a Delayed[T]: the way another
// collection (a chunk of an array, a UDF result) enters a delayed
// computation. g is merged, whole, into the graph of every value built on
// the result; it must not be modified afterwards. The key is not checked
// until the graph is collected.
func FromGraph[T any](g *graph.Graph, key graph.Key) Delayed[T] {
	if g == nil {
		return Delayed[T]{&node{key: key, err: fmt.Errorf("delayed: FromGraph(%q): nil graph", string(key))}}
	}
	return Delayed[T]{&node{key: key, layer: g}}
}

// collectMu and collectEpoch serialise the marking pass of collect, so
// that a node's mark is reliable: a node whose mark equals the running
// collect's epoch has been listed already. The rejected alternative, a
// map[*node]bool per collect, made collecting as expensive as building;
// marks make the walk allocation-free, and the pass holds the lock only
// for a walk over pointers.
var (
	collectMu    sync.Mutex
	collectEpoch uint64
)

// collect gathers the nodes reachable from roots into one graph, each
// dependency before its users, in O(nodes + edges). A first pass walks the
// DAG depth-first with an explicit stack (a deep chain must not overflow
// the goroutine stack) and lists every node once in post-order; the graph
// is then allocated at its final size and filled. graph.Set dedupes by
// key: it accepts a different but equal node under a key already present
// (the same pure computation built twice) and reports a
// *graph.ConflictError for a different one.
func collect(roots []*node) (*graph.Graph, error) {
	order, err := postorder(roots)
	if err != nil {
		return nil, err
	}
	g := graph.New(len(order))
	for _, n := range order {
		if n.layer != nil {
			if !n.layer.Has(n.key) {
				return nil, &graph.MissingKeyError{Key: n.key}
			}
			if err := g.Merge(n.layer); err != nil {
				return nil, err
			}
			continue
		}
		if err := g.Set(n.key, n.nd); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// postorder lists the nodes reachable from roots, dependencies first, each
// once; layer nodes sharing one graph are listed once.
func postorder(roots []*node) ([]*node, error) {
	collectMu.Lock()
	defer collectMu.Unlock()
	collectEpoch++
	epoch := collectEpoch
	type frame struct {
		n *node
		i int
	}
	var (
		order  []*node
		stack  []frame
		layers map[*graph.Graph]bool
	)
	// push reports an error, or marks n and pushes it when it is new.
	push := func(n *node) error {
		if n.err != nil {
			return n.err
		}
		if n.mark == epoch {
			return nil
		}
		n.mark = epoch
		if n.layer != nil {
			if layers[n.layer] {
				return nil
			}
			if layers == nil {
				layers = map[*graph.Graph]bool{}
			}
			layers[n.layer] = true
		}
		stack = append(stack, frame{n: n})
		return nil
	}
	for _, r := range roots {
		if err := push(r); err != nil {
			return nil, err
		}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i < len(f.n.deps) {
				c := f.n.deps[f.i]
				f.i++
				if err := push(c); err != nil {
					return nil, err
				}
				continue
			}
			order = append(order, f.n)
			stack = stack[:len(stack)-1]
		}
	}
	return order, nil
}
