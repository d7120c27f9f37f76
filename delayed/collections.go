package delayed

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	"github.com/tessera-go/tessera/graph"
)

// The untyped ops of this package. They produce []any and map[string]any;
// the typed consumer (a wrapped function's argument, Compute's result)
// converts to []T and map[string]T. One registered op per shape, rather
// than one per element type, is what lets a worker rebuild them from their
// name alone.
const (
	mapOpName     = OpPrefix + "map"
	getitemOpName = OpPrefix + "getitem"
)

var (
	sliceOp   = &graph.FuncOp{OpName: OpPrefix + "slice", Fn: runSlice}
	mapOp     = &graph.FuncOp{OpName: OpPrefix + "map", Fn: runMap}
	getitemOp = &graph.FuncOp{OpName: getitemOpName, Fn: runGetitem}
)

func init() {
	reserve("slice", sliceOp)
	reserve("map", mapOp)
	reserve("getitem", getitemOp)
}

func runSlice(_ context.Context, args []any) (any, error) {
	// args may be shared with other tasks: copy.
	return append([]any(nil), args...), nil
}

// runMap takes alternating keys and values.
func runMap(_ context.Context, args []any) (any, error) {
	if len(args)%2 != 0 {
		return nil, fmt.Errorf("delayed: %s: odd number of arguments %d", mapOpName, len(args))
	}
	m := make(map[string]any, len(args)/2)
	for i := 0; i < len(args); i += 2 {
		k, ok := args[i].(string)
		if !ok {
			return nil, &TypeError{Op: mapOpName, Arg: i, Want: "string", Got: typeName(args[i])}
		}
		m[k] = args[i+1]
	}
	return m, nil
}

// runGetitem indexes a slice of any element type.
func runGetitem(_ context.Context, args []any) (any, error) {
	if err := nargs(getitemOpName, args, 2); err != nil {
		return nil, err
	}
	i, ok := args[1].(int)
	if !ok {
		return nil, &TypeError{Op: getitemOpName, Arg: 1, Want: "int", Got: typeName(args[1])}
	}
	if s, ok := args[0].([]any); ok {
		if i < 0 || i >= len(s) {
			return nil, fmt.Errorf("delayed: %s: index %d out of range [0, %d)", getitemOpName, i, len(s))
		}
		return s[i], nil
	}
	v := reflect.ValueOf(args[0])
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return nil, &TypeError{Op: getitemOpName, Arg: 0, Want: "slice", Got: typeName(args[0])}
	}
	if i < 0 || i >= v.Len() {
		return nil, fmt.Errorf("delayed: %s: index %d out of range [0, %d)", getitemOpName, i, v.Len())
	}
	return v.Index(i).Interface(), nil
}

// pureNode builds a node of one of this package's ops with a key from its
// arguments: prefix-token.
func pureNode(op graph.Op, prefix string, args []graph.Arg, deps []*node) *node {
	n := &node{nd: graph.Node{Kind: graph.KindTask, Op: op, Args: args}, deps: deps}
	for _, d := range deps {
		if d.err != nil {
			n.err = d.err
			break
		}
	}
	k, ok := callKey(prefix, op.Name(), args)
	if !ok {
		k = graph.Key(prefix + "-" + graph.ImpureToken())
	}
	n.key = k
	return n
}

// Slice gathers delayed values into one delayed slice, so that a function
// taking []T can take them all (Dask's delayed(list_of_delayed)):
// total(delayed.Slice(xs)). A wrapper's Call does the same for a
// []Delayed[T] argument: total.Call(xs).
func Slice[T any](xs []Delayed[T]) Delayed[[]T] {
	args := make([]graph.Arg, len(xs))
	deps := make([]*node, len(xs))
	for i, x := range xs {
		a, n := x.arg()
		args[i], deps[i] = a, n
	}
	return Delayed[[]T]{pureNode(sliceOp, "slice", args, deps)}
}

// Map gathers delayed values into one delayed map. Its key does not depend
// on Go's map iteration order: entries are sorted by key.
func Map[T any](m map[string]Delayed[T]) Delayed[map[string]T] {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	args := make([]graph.Arg, 0, 2*len(m))
	deps := make([]*node, 0, len(m))
	for _, k := range names {
		a, n := m[k].arg()
		args = append(args, graph.Lit(k), a)
		deps = append(deps, n)
	}
	return Delayed[map[string]T]{pureNode(mapOp, "map", args, deps)}
}

// Index returns the delayed element i of a delayed slice (Dask's getitem).
// An index out of range is the task's error.
func Index[T any](d Delayed[[]T], i int) Delayed[T] {
	a, n := d.arg()
	return Delayed[T]{pureNode(getitemOp, "getitem", []graph.Arg{a, graph.Lit(i)}, []*node{n})}
}

// Items splits a delayed slice of known length n into n delayed elements
// (Dask's nout for a function returning a list).
func Items[T any](d Delayed[[]T], n int) []Delayed[T] {
	out := make([]Delayed[T], n)
	for i := range out {
		out[i] = Index(d, i)
	}
	return out
}

// FnN wraps a function of a slice under name, as Fn2 does; the returned
// function takes any number of arguments and passes them as one []A
// (Dask's delayed(sum)(*values)): sum(x, y, delayed.Lit(3)),
// sum(delayed.Each(xs)...), or sum.Call(xs) for xs a []Delayed[A] or []A.
func FnN[A, R any](name string, f func([]A) R, opts ...FnOption) FuncN[A, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(_ context.Context, args []any) (any, error) {
		xs, err := sliceArgs[A](op, args)
		if err != nil {
			return nil, err
		}
		return f(xs), nil
	}, opts)
	return func(xs ...In[A]) Delayed[R] { return Delayed[R]{w.call(sources(xs)...)} }
}

// FnNE is FnN for a function that can fail.
func FnNE[A, R any](name string, f func([]A) (R, error), opts ...FnOption) FuncN[A, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(_ context.Context, args []any) (any, error) {
		xs, err := sliceArgs[A](op, args)
		if err != nil {
			return nil, err
		}
		return f(xs)
	}, opts)
	return func(xs ...In[A]) Delayed[R] { return Delayed[R]{w.call(sources(xs)...)} }
}

func sliceArgs[A any](op string, args []any) ([]A, error) {
	xs := make([]A, len(args))
	for i := range args {
		x, err := argAs[A](op, args, i)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	return xs, nil
}

func sources[A any](xs []In[A]) []argSource {
	out := make([]argSource, len(xs))
	for i, x := range xs {
		if x != nil {
			out[i] = x
		}
	}
	return out
}
