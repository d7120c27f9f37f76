package delayed

import (
	"context"
	"fmt"
	"reflect"

	"github.com/tessera-go/tessera/graph"
)

// Functions of several results (Dask's nout). A call is one task whose
// value holds every result; each result is a getitem task on it, so
// computing several results runs the function once. Typed tuples (Tuple2,
// Tuple3, Tuple4) hold results of different types; the Nout wrappers
// (Fn1Nout, …) split a function returning []R into a declared number of
// Delayed[R].

// Tuple2 is the delayed result of a function returning two values (Dask's
// nout=2). The pair is one task; First and Second are getitem tasks on it,
// so computing both runs the function once.
type Tuple2[A, B any] struct{ d Delayed[[]any] }

// Tuple3 is the delayed result of a function returning three values.
type Tuple3[A, B, C any] struct{ d Delayed[[]any] }

// Tuple4 is the delayed result of a function returning four values.
type Tuple4[A, B, C, D any] struct{ d Delayed[[]any] }

var (
	_ Valuer = Tuple2[int, int]{}
	_ Valuer = Tuple3[int, int, int]{}
	_ Valuer = Tuple4[int, int, int, int]{}
)

// item returns the getitem task of result i of a tuple.
func item[T any](d Delayed[[]any], i int) Delayed[T] {
	a, n := d.arg()
	return Delayed[T]{pureNode(getitemOp, "getitem", []graph.Arg{a, graph.Lit(i)}, []*node{n})}
}

// computeTuple computes a tuple of n results in one run.
func computeTuple(ctx context.Context, t Valuer, n int, opts []Option) ([]any, error) {
	vals, err := Compute(ctx, []Valuer{t}, opts...)
	if err != nil {
		return nil, err
	}
	p, ok := vals[0].([]any)
	if !ok || len(p) != n {
		return nil, &TypeError{Op: "compute " + string(t.Key()), Arg: -1, Want: fmt.Sprintf("[]any of length %d", n), Got: typeName(vals[0])}
	}
	return p, nil
}

// result converts result i of a computed tuple to T; the first failure is
// kept in *err.
func result[T any](p []any, i int, err *error) T {
	var zero T
	if *err != nil {
		return zero
	}
	v, ok := as[T](p[i])
	if !ok {
		*err = &TypeError{Op: "compute", Arg: -1, Want: reflect.TypeFor[T]().String(), Got: typeName(p[i])}
	}
	return v
}

// First returns the first value.
func (t Tuple2[A, B]) First() Delayed[A] { return item[A](t.d, 0) }

// Second returns the second value.
func (t Tuple2[A, B]) Second() Delayed[B] { return item[B](t.d, 1) }

// Items returns both values, for a, b := t.Items().
func (t Tuple2[A, B]) Items() (Delayed[A], Delayed[B]) { return t.First(), t.Second() }

// Key returns the key of the pair, whose value is a []any of length 2.
func (t Tuple2[A, B]) Key() graph.Key { return t.d.Key() }

// Err returns the error recorded while building.
func (t Tuple2[A, B]) Err() error { return t.d.Err() }

// Graph collects the graph that computes the pair.
func (t Tuple2[A, B]) Graph() (*graph.Graph, error) { return t.d.Graph() }

func (t Tuple2[A, B]) node() *node { return t.d.node() }

// Compute computes the pair in one run.
func (t Tuple2[A, B]) Compute(ctx context.Context, opts ...Option) (a A, b B, err error) {
	p, err := computeTuple(ctx, t, 2, opts)
	if err != nil {
		return a, b, err
	}
	a, b = result[A](p, 0, &err), result[B](p, 1, &err)
	return a, b, err
}

// First returns the first value.
func (t Tuple3[A, B, C]) First() Delayed[A] { return item[A](t.d, 0) }

// Second returns the second value.
func (t Tuple3[A, B, C]) Second() Delayed[B] { return item[B](t.d, 1) }

// Third returns the third value.
func (t Tuple3[A, B, C]) Third() Delayed[C] { return item[C](t.d, 2) }

// Items returns the three values, for a, b, c := t.Items().
func (t Tuple3[A, B, C]) Items() (Delayed[A], Delayed[B], Delayed[C]) {
	return t.First(), t.Second(), t.Third()
}

// Key returns the key of the triple, whose value is a []any of length 3.
func (t Tuple3[A, B, C]) Key() graph.Key { return t.d.Key() }

// Err returns the error recorded while building.
func (t Tuple3[A, B, C]) Err() error { return t.d.Err() }

// Graph collects the graph that computes the triple.
func (t Tuple3[A, B, C]) Graph() (*graph.Graph, error) { return t.d.Graph() }

func (t Tuple3[A, B, C]) node() *node { return t.d.node() }

// Compute computes the three values in one run.
func (t Tuple3[A, B, C]) Compute(ctx context.Context, opts ...Option) (a A, b B, c C, err error) {
	p, err := computeTuple(ctx, t, 3, opts)
	if err != nil {
		return a, b, c, err
	}
	a, b, c = result[A](p, 0, &err), result[B](p, 1, &err), result[C](p, 2, &err)
	return a, b, c, err
}

// First returns the first value.
func (t Tuple4[A, B, C, D]) First() Delayed[A] { return item[A](t.d, 0) }

// Second returns the second value.
func (t Tuple4[A, B, C, D]) Second() Delayed[B] { return item[B](t.d, 1) }

// Third returns the third value.
func (t Tuple4[A, B, C, D]) Third() Delayed[C] { return item[C](t.d, 2) }

// Fourth returns the fourth value.
func (t Tuple4[A, B, C, D]) Fourth() Delayed[D] { return item[D](t.d, 3) }

// Items returns the four values, for a, b, c, d := t.Items().
func (t Tuple4[A, B, C, D]) Items() (Delayed[A], Delayed[B], Delayed[C], Delayed[D]) {
	return t.First(), t.Second(), t.Third(), t.Fourth()
}

// Key returns the key of the quadruple, whose value is a []any of length 4.
func (t Tuple4[A, B, C, D]) Key() graph.Key { return t.d.Key() }

// Err returns the error recorded while building.
func (t Tuple4[A, B, C, D]) Err() error { return t.d.Err() }

// Graph collects the graph that computes the quadruple.
func (t Tuple4[A, B, C, D]) Graph() (*graph.Graph, error) { return t.d.Graph() }

func (t Tuple4[A, B, C, D]) node() *node { return t.d.node() }

// Compute computes the four values in one run.
func (t Tuple4[A, B, C, D]) Compute(ctx context.Context, opts ...Option) (a A, b B, c C, d D, err error) {
	p, err := computeTuple(ctx, t, 4, opts)
	if err != nil {
		return a, b, c, d, err
	}
	a, b, c, d = result[A](p, 0, &err), result[B](p, 1, &err), result[C](p, 2, &err), result[D](p, 3, &err)
	return a, b, c, d, err
}

// wrap1 and wrap2 build the wrappers of this file: run computes the task's
// value from converted arguments, out makes the call's result from its
// node. f is the user's function, which names the registration.
func wrap1[A, Out any](name string, f any, opts []FnOption, run func(A) (any, error), out func(*node) Out) Func1[A, Out] {
	op := OpPrefix + name
	w := wrap(name, f, func(_ context.Context, args []any) (any, error) {
		a, err := unpack1[A](op, args)
		if err != nil {
			return nil, err
		}
		return run(a)
	}, opts)
	return func(a In[A]) Out { return out(w.call(a)) }
}

func wrap2[A, B, Out any](name string, f any, opts []FnOption, run func(A, B) (any, error), out func(*node) Out) Func2[A, B, Out] {
	op := OpPrefix + name
	w := wrap(name, f, func(_ context.Context, args []any) (any, error) {
		a, b, err := unpack2[A, B](op, args)
		if err != nil {
			return nil, err
		}
		return run(a, b)
	}, opts)
	return func(a In[A], b In[B]) Out { return out(w.call(a, b)) }
}

func tuple2[A, B any](n *node) Tuple2[A, B]             { return Tuple2[A, B]{Delayed[[]any]{n}} }
func tuple3[A, B, C any](n *node) Tuple3[A, B, C]       { return Tuple3[A, B, C]{Delayed[[]any]{n}} }
func tuple4[A, B, C, D any](n *node) Tuple4[A, B, C, D] { return Tuple4[A, B, C, D]{Delayed[[]any]{n}} }

// Fn1Tuple2 wraps a function of one argument returning two values, as Fn2
// does; the result is a Tuple2.
func Fn1Tuple2[A, R1, R2 any](name string, f func(A) (R1, R2), opts ...FnOption) Func1[A, Tuple2[R1, R2]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2 := f(a)
		return []any{r1, r2}, nil
	}, tuple2[R1, R2])
}

// Fn1Tuple2E is Fn1Tuple2 for a function that can fail.
func Fn1Tuple2E[A, R1, R2 any](name string, f func(A) (R1, R2, error), opts ...FnOption) Func1[A, Tuple2[R1, R2]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2, err := f(a)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2}, nil
	}, tuple2[R1, R2])
}

// Fn2Tuple2 wraps a function of two arguments returning two values, such
// as divmod.
func Fn2Tuple2[A, B, R1, R2 any](name string, f func(A, B) (R1, R2), opts ...FnOption) Func2[A, B, Tuple2[R1, R2]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2 := f(a, b)
		return []any{r1, r2}, nil
	}, tuple2[R1, R2])
}

// Fn2Tuple2E is Fn2Tuple2 for a function that can fail.
func Fn2Tuple2E[A, B, R1, R2 any](name string, f func(A, B) (R1, R2, error), opts ...FnOption) Func2[A, B, Tuple2[R1, R2]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2, err := f(a, b)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2}, nil
	}, tuple2[R1, R2])
}

// Fn1Tuple3 wraps a function of one argument returning three values.
func Fn1Tuple3[A, R1, R2, R3 any](name string, f func(A) (R1, R2, R3), opts ...FnOption) Func1[A, Tuple3[R1, R2, R3]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2, r3 := f(a)
		return []any{r1, r2, r3}, nil
	}, tuple3[R1, R2, R3])
}

// Fn1Tuple3E is Fn1Tuple3 for a function that can fail.
func Fn1Tuple3E[A, R1, R2, R3 any](name string, f func(A) (R1, R2, R3, error), opts ...FnOption) Func1[A, Tuple3[R1, R2, R3]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2, r3, err := f(a)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2, r3}, nil
	}, tuple3[R1, R2, R3])
}

// Fn2Tuple3 wraps a function of two arguments returning three values.
func Fn2Tuple3[A, B, R1, R2, R3 any](name string, f func(A, B) (R1, R2, R3), opts ...FnOption) Func2[A, B, Tuple3[R1, R2, R3]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2, r3 := f(a, b)
		return []any{r1, r2, r3}, nil
	}, tuple3[R1, R2, R3])
}

// Fn2Tuple3E is Fn2Tuple3 for a function that can fail.
func Fn2Tuple3E[A, B, R1, R2, R3 any](name string, f func(A, B) (R1, R2, R3, error), opts ...FnOption) Func2[A, B, Tuple3[R1, R2, R3]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2, r3, err := f(a, b)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2, r3}, nil
	}, tuple3[R1, R2, R3])
}

// Fn1Tuple4 wraps a function of one argument returning four values.
func Fn1Tuple4[A, R1, R2, R3, R4 any](name string, f func(A) (R1, R2, R3, R4), opts ...FnOption) Func1[A, Tuple4[R1, R2, R3, R4]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2, r3, r4 := f(a)
		return []any{r1, r2, r3, r4}, nil
	}, tuple4[R1, R2, R3, R4])
}

// Fn1Tuple4E is Fn1Tuple4 for a function that can fail.
func Fn1Tuple4E[A, R1, R2, R3, R4 any](name string, f func(A) (R1, R2, R3, R4, error), opts ...FnOption) Func1[A, Tuple4[R1, R2, R3, R4]] {
	return wrap1(name, f, opts, func(a A) (any, error) {
		r1, r2, r3, r4, err := f(a)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2, r3, r4}, nil
	}, tuple4[R1, R2, R3, R4])
}

// Fn2Tuple4 wraps a function of two arguments returning four values.
func Fn2Tuple4[A, B, R1, R2, R3, R4 any](name string, f func(A, B) (R1, R2, R3, R4), opts ...FnOption) Func2[A, B, Tuple4[R1, R2, R3, R4]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2, r3, r4 := f(a, b)
		return []any{r1, r2, r3, r4}, nil
	}, tuple4[R1, R2, R3, R4])
}

// Fn2Tuple4E is Fn2Tuple4 for a function that can fail.
func Fn2Tuple4E[A, B, R1, R2, R3, R4 any](name string, f func(A, B) (R1, R2, R3, R4, error), opts ...FnOption) Func2[A, B, Tuple4[R1, R2, R3, R4]] {
	return wrap2(name, f, opts, func(a A, b B) (any, error) {
		r1, r2, r3, r4, err := f(a, b)
		if err != nil {
			return nil, err
		}
		return []any{r1, r2, r3, r4}, nil
	}, tuple4[R1, R2, R3, R4])
}

// checkNout returns r when it has nout elements, else a *NoutError that
// the scheduler reports under the task's key.
func checkNout[R any](op string, nout int, r []R) (any, error) {
	if len(r) != nout {
		return nil, &NoutError{Op: op, Nout: nout, Got: len(r)}
	}
	return r, nil
}

// split returns the function making nout getitem tasks on a call's node.
// A negative nout gives one Delayed carrying a *NoutError.
func split[R any](op string, nout int) func(*node) []Delayed[R] {
	return func(n *node) []Delayed[R] {
		if nout < 0 {
			return []Delayed[R]{{&node{key: n.key, err: &NoutError{Op: op, Nout: nout, Got: -1}}}}
		}
		d := Delayed[[]R]{n}
		out := make([]Delayed[R], nout)
		for i := range out {
			out[i] = Index(d, i)
		}
		return out
	}
}

// noutOpts adds nout to the wrapper's identity: its op checks it.
func noutOpts(nout int, opts []FnOption) []FnOption {
	return append([]FnOption{withVariant(fmt.Sprintf("nout=%d", nout))}, opts...)
}

// Fn1Nout wraps a function of one argument returning a slice of nout
// values, and splits its result into nout Delayed values (Dask's nout for
// a function returning a list or tuple of one type): one task for the
// call, one getitem task per value. The function returning a slice of
// another length is the task's error, a *NoutError naming the function.
func Fn1Nout[A, R any](name string, nout int, f func(A) []R, opts ...FnOption) Func1[A, []Delayed[R]] {
	op := OpPrefix + name
	return wrap1(name, f, noutOpts(nout, opts), func(a A) (any, error) { return checkNout(op, nout, f(a)) }, split[R](op, nout))
}

// Fn1NoutE is Fn1Nout for a function that can fail.
func Fn1NoutE[A, R any](name string, nout int, f func(A) ([]R, error), opts ...FnOption) Func1[A, []Delayed[R]] {
	op := OpPrefix + name
	return wrap1(name, f, noutOpts(nout, opts), func(a A) (any, error) {
		r, err := f(a)
		if err != nil {
			return nil, err
		}
		return checkNout(op, nout, r)
	}, split[R](op, nout))
}

// Fn2Nout is Fn1Nout for a function of two arguments.
func Fn2Nout[A, B, R any](name string, nout int, f func(A, B) []R, opts ...FnOption) Func2[A, B, []Delayed[R]] {
	op := OpPrefix + name
	return wrap2(name, f, noutOpts(nout, opts), func(a A, b B) (any, error) { return checkNout(op, nout, f(a, b)) }, split[R](op, nout))
}

// Fn2NoutE is Fn2Nout for a function that can fail.
func Fn2NoutE[A, B, R any](name string, nout int, f func(A, B) ([]R, error), opts ...FnOption) Func2[A, B, []Delayed[R]] {
	op := OpPrefix + name
	return wrap2(name, f, noutOpts(nout, opts), func(a A, b B) (any, error) {
		r, err := f(a, b)
		if err != nil {
			return nil, err
		}
		return checkNout(op, nout, r)
	}, split[R](op, nout))
}
