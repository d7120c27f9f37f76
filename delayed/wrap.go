package delayed

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/graph"
)

// OpPrefix is prepended to a wrapped function's name to make its op name:
// Fn2("add", …) registers the op "delayed.add".
const OpPrefix = "delayed."

// NameError reports a wrapped-function name that cannot be used: empty,
// reserved, or already wrapping a different function. It is recorded on
// every Delayed the wrapper builds and returned by Compute.
type NameError struct {
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("delayed: function name %q: %s", e.Name, e.Reason)
}

// wrapped is the registry of wrapped functions, by name. Like
// graph.RegisterOp it is process-wide: a worker process rebuilds an op from
// its name alone, so one name must mean one function. It records the
// function's type and code pointer so that wrapping the same function under
// the same name again (a wrapper built inside a function that runs twice)
// reuses the first registration instead of failing.
var wrapped = struct {
	sync.Mutex
	m map[string]wrapEntry
}{m: map[string]wrapEntry{}}

type wrapEntry struct {
	typ     reflect.Type // nil for names reserved by this package
	pc      uintptr
	variant string // what else the op's run function depends on: "nout=3"
	op      graph.Op
}

// reserve claims name for an op of this package.
func reserve(name string, op graph.Op) {
	wrapped.Lock()
	wrapped.m[name] = wrapEntry{op: op}
	wrapped.Unlock()
	graph.Register(op)
}

// FnOption configures a wrapper.
type FnOption func(*wrapper)

// Pure makes the keys of the wrapper's calls deterministic (Dask's
// pure=True): a token of the function's name and its arguments (the keys
// of delayed ones, the values of plain ones), so that the same call built
// twice is one task and graphs built apart merge. Use it for functions
// without side effects whose result depends on their arguments only.
func Pure() FnOption { return func(w *wrapper) { w.pure = true } }

// Impure gives every call of the wrapper a fresh, unique key (Dask's
// pure=False). It is the default; the option remains so that a wrapper
// can say so, and so that code written when Pure was the default still
// compiles.
func Impure() FnOption { return func(w *wrapper) { w.pure = false } }

// wrapper is what a FnK call builds once: the registered op, the key prefix
// and the purity of its calls.
type wrapper struct {
	op     graph.Op
	opName string
	prefix string // key prefix: the name after its last '.'
	pure   bool
	// variant is part of the function's identity in the registry beside
	// its type and code: the nout of a Nout wrapper, which its op checks,
	// so that one name cannot stand for two different checks.
	variant string
	err     error
}

// withVariant sets wrapper.variant.
func withVariant(v string) FnOption { return func(w *wrapper) { w.variant = v } }

// wrap registers f under name with the given run function, or finds the
// earlier registration of the same function. Clashes are recorded in
// w.err rather than panicking: a clash is found while building, usually
// far from the wrap call, and the Delayed error path reports it with the
// name.
func wrap(name string, f any, run func(ctx context.Context, args []any) (any, error), opts []FnOption) *wrapper {
	w := &wrapper{opName: OpPrefix + name, prefix: name}
	if i := strings.LastIndexByte(name, '.'); i >= 0 && i < len(name)-1 {
		w.prefix = name[i+1:]
	}
	for _, o := range opts {
		o(w)
	}
	switch {
	case name == "":
		w.err = &NameError{Name: name, Reason: "empty"}
		return w
	case strings.ContainsAny(name, " \t\n[]"):
		w.err = &NameError{Name: name, Reason: "contains a space or a bracket"}
		return w
	}
	fv := reflect.ValueOf(f)
	if !fv.IsValid() || fv.Kind() != reflect.Func || fv.IsNil() {
		w.err = &NameError{Name: name, Reason: "nil function"}
		return w
	}
	typ, pc := fv.Type(), fv.Pointer()
	wrapped.Lock()
	defer wrapped.Unlock()
	if e, ok := wrapped.m[name]; ok {
		switch {
		case e.typ == nil:
			w.err = &NameError{Name: name, Reason: "reserved by package delayed"}
		case e.typ != typ:
			w.err = &NameError{Name: name, Reason: fmt.Sprintf("already wraps a %s, not a %s", e.typ, typ)}
		case e.pc != pc:
			w.err = &NameError{Name: name, Reason: "already wraps a different function of the same type"}
		case e.variant != w.variant:
			w.err = &NameError{Name: name, Reason: fmt.Sprintf("already wraps this function with %s, not %s", e.variant, w.variant)}
		default:
			w.op = e.op
		}
		return w
	}
	if graph.IsRegistered(w.opName) {
		w.err = &NameError{Name: name, Reason: "op " + w.opName + " is registered outside package delayed"}
		return w
	}
	op := &graph.FuncOp{OpName: w.opName, Fn: run}
	graph.Register(op)
	wrapped.m[name] = wrapEntry{typ: typ, pc: pc, variant: w.variant, op: op}
	w.op = op
	return w
}

// argSource is In[T] without its type parameter.
type argSource interface {
	arg() (graph.Arg, *node)
}

// call builds the task node of one call. It is the hot path of graph
// building: one allocation for the node with its argument and dependency
// arrays (newTaskNode), one for the key, no fmt.
func (w *wrapper) call(srcs ...argSource) *node {
	if w.err != nil {
		return &node{key: graph.Key(w.prefix + "-error"), err: w.err}
	}
	n, args, deps := newTaskNode(len(srcs))
	for i, s := range srcs {
		if s == nil {
			n.err = fmt.Errorf("delayed: %s: argument %d is a nil In", w.opName, i)
			return n
		}
		a, d := s.arg()
		args[i] = a
		if d != nil {
			if d.err != nil && n.err == nil {
				n.err = w.argErr(d.err, i)
			}
			deps = append(deps, d)
		}
	}
	n.nd = graph.Node{Kind: graph.KindTask, Op: w.op, Args: args}
	n.deps = deps
	n.key = w.key(args)
	return n
}

// argErr names the wrapper and the argument's position in an error found
// by Call while converting argument i, and returns any other error (a
// sticky one from upstream) as it is.
func (w *wrapper) argErr(err error, i int) error {
	ae, ok := err.(*argError)
	if !ok {
		return err
	}
	if ae.count {
		return &ArgCountError{Op: w.opName, Got: ae.got, Want: ae.want}
	}
	return &TypeError{Op: w.opName, Arg: i, Path: ae.path, Want: ae.wantType, Got: ae.gotType}
}

// key returns prefix-token: a token of the op name and the arguments' keys
// and literal values when pure, a unique token otherwise, or when a literal
// cannot be tokenized.
func (w *wrapper) key(args []graph.Arg) graph.Key {
	if w.pure {
		if k, ok := callKey(w.prefix, w.opName, args); ok {
			return k
		}
	}
	return graph.Key(w.prefix + "-" + graph.ImpureToken())
}

// Nodes of small arity are allocated with their argument and dependency
// arrays in one object: three allocations per task were a third of the
// cost of building a tree of additions.
type (
	node1 struct {
		n node
		a [1]graph.Arg
		d [1]*node
	}
	node2 struct {
		n node
		a [2]graph.Arg
		d [2]*node
	}
	node3 struct {
		n node
		a [3]graph.Arg
		d [3]*node
	}
	node4 struct {
		n node
		a [4]graph.Arg
		d [4]*node
	}
)

// newTaskNode returns a node with room for k arguments and dependencies;
// args has length k, deps length 0.
func newTaskNode(k int) (*node, []graph.Arg, []*node) {
	switch k {
	case 0:
		return &node{}, nil, nil
	case 1:
		x := &node1{}
		return &x.n, x.a[:], x.d[:0]
	case 2:
		x := &node2{}
		return &x.n, x.a[:], x.d[:0]
	case 3:
		x := &node3{}
		return &x.n, x.a[:], x.d[:0]
	case 4:
		x := &node4{}
		return &x.n, x.a[:], x.d[:0]
	}
	return &node{}, make([]graph.Arg, k), make([]*node, 0, k)
}
