package delayed

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/tessera-go/tessera/graph"
)

// The types of wrappers, by number of parameters. Out is what a call
// returns: a Delayed[R] for Fn2, a Tuple2[R1, R2] for Fn2Tuple2, a
// []Delayed[R] for Fn2Nout. Calling the function itself takes typed
// arguments, checked by the compiler (a Delayed[T], Lit(v) or any In[T]);
// Call takes plain Go values as well, checked when the call is built.
type (
	// Func0 is a wrapper of a function of no arguments. It has no Call
	// method: there is nothing to convert.
	Func0[Out any] func() Out
	// Func1 is a wrapper of a function of one argument.
	Func1[A, Out any] func(In[A]) Out
	// Func2 is a wrapper of a function of two arguments.
	Func2[A, B, Out any] func(In[A], In[B]) Out
	// Func3 is a wrapper of a function of three arguments.
	Func3[A, B, C, Out any] func(In[A], In[B], In[C]) Out
	// Func4 is a wrapper of a function of four arguments.
	Func4[A, B, C, D, Out any] func(In[A], In[B], In[C], In[D]) Out
	// FuncN is a wrapper of a function of a slice, called with any number
	// of arguments.
	FuncN[A, Out any] func(...In[A]) Out
)

// Call calls f with args, which may be plain values: see Func2.Call.
func (f Func1[A, Out]) Call(args ...any) Out { return f(argIn[A](args, 0, 1)) }

// Call calls f with args converted to its parameters, each of which may be
//   - an In of the parameter's type: a Delayed[A] or Lit(v);
//   - a plain value of the parameter's type, or assignable to it (any
//     value for a parameter of type any), passed by value as Lit does;
//   - nil, for a parameter of a pointer, slice, map, channel, function or
//     interface type;
//   - an int or float64 (the types Go gives untyped constants) for a
//     parameter of another integer or floating-point type, when the value
//     converts exactly: Call(1, 2) for a func(float64, float64);
//   - a Delayed[X] of a type X assignable to the parameter's type;
//   - a slice or map[string] holding Delayed values (and plain ones),
//     gathered by a slice or map task as Slice and Map do, for a parameter
//     of a slice or map type, or of type any (then []any or
//     map[string]any), as dask.delayed finds delayed values inside lists
//     and dicts.
//
// A wrong number of arguments is an *ArgCountError and an argument that is
// none of the above a *TypeError naming the function and the argument's
// position; both are sticky on the result (Err, Compute), never a panic.
func (f Func2[A, B, Out]) Call(args ...any) Out {
	return f(argIn[A](args, 0, 2), argIn[B](args, 1, 2))
}

// Call calls f with args, which may be plain values: see Func2.Call.
func (f Func3[A, B, C, Out]) Call(args ...any) Out {
	return f(argIn[A](args, 0, 3), argIn[B](args, 1, 3), argIn[C](args, 2, 3))
}

// Call calls f with args, which may be plain values: see Func2.Call.
func (f Func4[A, B, C, D, Out]) Call(args ...any) Out {
	return f(argIn[A](args, 0, 4), argIn[B](args, 1, 4), argIn[C](args, 2, 4), argIn[D](args, 3, 4))
}

// Call calls f with args, each converted to an A as Func2.Call converts
// its arguments. An argument that is not an A but a slice or array of
// them (plain, Delayed or In) is spread into its elements, as *xs spreads
// a list in Python: sum.Call(xs) for xs of type []Delayed[int].
func (f FuncN[A, Out]) Call(args ...any) Out {
	ins := make([]In[A], 0, len(args))
	for _, x := range args {
		ins = appendSpread(ins, x)
	}
	return f(ins...)
}

// Each returns xs as a slice of In, for the variadic call of a FuncN
// wrapper: sum(delayed.Each(xs)...).
func Each[T any](xs []Delayed[T]) []In[T] {
	out := make([]In[T], len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func appendSpread[A any](ins []In[A], x any) []In[A] {
	in := toIn[A](x)
	if _, bad := in.(badIn[A]); !bad || x == nil {
		return append(ins, in)
	}
	v := reflect.ValueOf(x)
	if k := v.Kind(); k != reflect.Slice && k != reflect.Array {
		return append(ins, in)
	}
	for i := range v.Len() {
		// A bad element is reported at its position among the function's
		// arguments, where the spread put it.
		ins = append(ins, toIn[A](v.Index(i).Interface()))
	}
	return ins
}

// typedSource is an In of any element type: Delayed, Lit and the In
// values Call makes.
type typedSource interface {
	arg() (graph.Arg, *node)
	elem() reflect.Type
}

var typedSourceType = reflect.TypeFor[typedSource]()

// raw is an In[T] made by Call: an argument, and the node it refers to.
type raw[T any] struct {
	a graph.Arg
	n *node
}

func (r raw[T]) arg() (graph.Arg, *node) { return r.a, r.n }
func (raw[T]) in(*T)                     {}
func (raw[T]) elem() reflect.Type        { return reflect.TypeFor[T]() }

// badIn is an argument of Call that could not be converted. Its node
// carries the *argError, which wrapper.call turns into an error naming
// the function and the position.
type badIn[T any] struct{ err *argError }

func (b badIn[T]) arg() (graph.Arg, *node) { return graph.Lit(nil), &node{err: b.err} }
func (badIn[T]) in(*T)                     {}
func (badIn[T]) elem() reflect.Type        { return reflect.TypeFor[T]() }

// argError is what Call knows of a bad argument before the wrapper adds
// its name and the position: a *TypeError or an *ArgCountError then.
type argError struct {
	count             bool // a wrong number of arguments: got, want
	got, want         int
	path              string
	wantType, gotType string
}

func (e *argError) Error() string {
	if e.count {
		return fmt.Sprintf("delayed: got %d arguments, want %d", e.got, e.want)
	}
	return fmt.Sprintf("delayed: argument%s is a %s, want %s", e.path, e.gotType, e.wantType)
}

// at returns e for the element at path of the argument.
func (e *argError) at(path string) *argError {
	c := *e
	c.path = path + c.path
	return &c
}

func argIn[A any](args []any, i, n int) In[A] {
	if len(args) != n {
		return badIn[A]{&argError{count: true, got: len(args), want: n}}
	}
	return toIn[A](args[i])
}

// toIn converts one argument of Call to an In[A].
func toIn[A any](x any) In[A] {
	if in, ok := x.(In[A]); ok {
		return in
	}
	if v, ok := x.(A); ok {
		if t := reflect.TypeOf(x); t == nil || !mayHoldDelayed(t, 0) {
			return lit[A]{v}
		}
	}
	a, n, err := convertArg(x, reflect.TypeFor[A]())
	if err != nil {
		return badIn[A]{err}
	}
	return raw[A]{a, n}
}

// maxArgDepth bounds the walk into nested slices and maps, and into
// recursive types.
const maxArgDepth = 16

// convertArg returns x as an argument for a parameter of type want: a
// reference to a node (a Delayed, or a slice or map task gathering
// Delayed values) or a literal.
func convertArg(x any, want reflect.Type) (graph.Arg, *node, *argError) {
	bad := func() (graph.Arg, *node, *argError) {
		return graph.Arg{}, nil, &argError{wantType: want.String(), gotType: typeName(x)}
	}
	if s, ok := x.(typedSource); ok {
		if !s.elem().AssignableTo(want) {
			return bad()
		}
		a, n := s.arg()
		return a, n, nil
	}
	if x == nil {
		switch want.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
			return graph.Lit(reflect.Zero(want).Interface()), nil, nil
		}
		return bad()
	}
	t := reflect.TypeOf(x)
	if mayHoldDelayed(t, 0) {
		if v := reflect.ValueOf(x); hasDelayed(v, 0) {
			return gather(v, want)
		}
	}
	if t.AssignableTo(want) {
		return graph.Lit(x), nil, nil
	}
	if c, ok := exactNumber(x, want); ok {
		return graph.Lit(c), nil, nil
	}
	return bad()
}

// mayHoldDelayed reports whether a value of type t can hold a Delayed:
// t is one, an interface, or a slice, array or map of such. It lets
// convertArg skip the walk over a []float64.
func mayHoldDelayed(t reflect.Type, depth int) bool {
	if depth > maxArgDepth {
		return false
	}
	if t.Implements(typedSourceType) {
		return true
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Slice, reflect.Array, reflect.Map:
		return mayHoldDelayed(t.Elem(), depth+1)
	}
	return false
}

// hasDelayed reports whether v holds a Delayed (or another In) anywhere
// in its slices, arrays, maps and interfaces.
func hasDelayed(v reflect.Value, depth int) bool {
	if depth > maxArgDepth || !v.IsValid() {
		return false
	}
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return false
		}
		v = v.Elem()
	}
	if v.Type().Implements(typedSourceType) {
		return true
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if !mayHoldDelayed(v.Type().Elem(), 0) {
			return false
		}
		for i := range v.Len() {
			if hasDelayed(v.Index(i), depth+1) {
				return true
			}
		}
	case reflect.Map:
		if !mayHoldDelayed(v.Type().Elem(), 0) {
			return false
		}
		for it := v.MapRange(); it.Next(); {
			if hasDelayed(it.Value(), depth+1) {
				return true
			}
		}
	}
	return false
}

var (
	anySliceType = reflect.TypeFor[[]any]()
	anyMapType   = reflect.TypeFor[map[string]any]()
	anyType      = reflect.TypeFor[any]()
)

// gather turns a slice or map holding Delayed values into a task of this
// package's slice or map op, whose value is a []any or map[string]any
// that the wrapped function's argument conversion (as) makes a want.
func gather(v reflect.Value, want reflect.Type) (graph.Arg, *node, *argError) {
	bad := &argError{wantType: want.String(), gotType: v.Type().String()}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		var elem reflect.Type
		switch {
		case want.Kind() == reflect.Slice:
			elem = want.Elem()
		case want.Kind() == reflect.Interface && anySliceType.AssignableTo(want):
			elem = anyType
		default:
			return graph.Arg{}, nil, bad
		}
		args := make([]graph.Arg, v.Len())
		var deps []*node
		for i := range args {
			a, n, err := convertArg(v.Index(i).Interface(), elem)
			if err != nil {
				return graph.Arg{}, nil, err.at(fmt.Sprintf("[%d]", i))
			}
			args[i] = a
			if n != nil {
				deps = append(deps, n)
			}
		}
		n := pureNode(sliceOp, "slice", args, deps)
		return graph.Ref(n.key), n, nil
	case reflect.Map:
		var elem reflect.Type
		switch {
		case v.Type().Key().Kind() != reflect.String:
			return graph.Arg{}, nil, bad
		case want.Kind() == reflect.Map && want.Key().Kind() == reflect.String:
			elem = want.Elem()
		case want.Kind() == reflect.Interface && anyMapType.AssignableTo(want):
			elem = anyType
		default:
			return graph.Arg{}, nil, bad
		}
		keys := make([]string, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			keys = append(keys, it.Key().String())
		}
		sort.Strings(keys)
		args := make([]graph.Arg, 0, 2*len(keys))
		var deps []*node
		for _, k := range keys {
			a, n, err := convertArg(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())).Interface(), elem)
			if err != nil {
				return graph.Arg{}, nil, err.at(fmt.Sprintf("[%q]", k))
			}
			args = append(args, graph.Lit(k), a)
			if n != nil {
				deps = append(deps, n)
			}
		}
		n := pureNode(mapOp, "map", args, deps)
		return graph.Ref(n.key), n, nil
	}
	return graph.Arg{}, nil, bad
}

// exactNumber converts an int or a float64, the default types of Go's
// untyped constants, to another integer or floating-point type when the
// value survives the round trip: 1 becomes 1.0 for a float64 parameter,
// 1.5 is refused for an int one, -1 for a uint one.
func exactNumber(x any, want reflect.Type) (any, bool) {
	switch x.(type) {
	case int, float64:
	default:
		return nil, false
	}
	switch want.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Float32, reflect.Float64:
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v := reflect.ValueOf(x); (v.CanInt() && v.Int() < 0) || (v.CanFloat() && v.Float() < 0) {
			return nil, false
		}
	default:
		return nil, false
	}
	v := reflect.ValueOf(x)
	c := v.Convert(want)
	if !c.Convert(v.Type()).Equal(v) {
		return nil, false
	}
	return c.Interface(), true
}
