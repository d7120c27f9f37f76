package delayed

import (
	"fmt"
	"reflect"
)

// TypeError reports a value of the wrong type: an argument of a wrapper's
// Call that cannot be its parameter (found while building, and then
// sticky: Err and Compute return it), a value of the wrong type reaching a
// wrapped function at run time (a graph edited by hand, a FromGraph key of
// another type; the scheduler wraps it in a *sched.TaskError that names
// the key), or a computed result that is not the Delayed's type.
type TypeError struct {
	Op   string // the op, or "compute" for a result
	Arg  int    // the argument's position; -1 for a result
	Path string // within the argument, the element at fault ("[2]", `["k"]`), or ""
	Want string
	Got  string
}

func (e *TypeError) Error() string {
	if e.Arg < 0 {
		return fmt.Sprintf("delayed: %s: result is a %s, want %s", e.Op, e.Got, e.Want)
	}
	return fmt.Sprintf("delayed: %s: argument %d%s is a %s, want %s", e.Op, e.Arg, e.Path, e.Got, e.Want)
}

// ArgCountError reports a call with the wrong number of arguments: a
// wrapper's Call (sticky, like a TypeError) or a task of a hand-edited
// graph (at run time).
type ArgCountError struct {
	Op        string
	Got, Want int
}

func (e *ArgCountError) Error() string {
	return fmt.Sprintf("delayed: %s: got %d arguments, want %d", e.Op, e.Got, e.Want)
}

// NoutError reports a function wrapped with a declared number of outputs
// (Fn1Nout, …) that returned a slice of another length, as the task's
// error; or, with Got -1, a negative nout given to the wrapper.
type NoutError struct {
	Op   string
	Nout int // the declared number of outputs
	Got  int // the length returned; -1 for a negative Nout
}

func (e *NoutError) Error() string {
	if e.Got < 0 {
		return fmt.Sprintf("delayed: %s: nout %d is negative", e.Op, e.Nout)
	}
	return fmt.Sprintf("delayed: %s: returned %d values, declared nout %d", e.Op, e.Got, e.Nout)
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// as converts a computed value to T. The fast path is a type assertion.
// The slow path exists because the untyped ops of this package (Slice, Map,
// tuples) produce []any and map[string]any, which become []T and
// map[string]T here, recursively; and because nil is a valid value of
// nillable types.
func as[T any](v any) (T, bool) {
	if t, ok := v.(T); ok {
		return t, true
	}
	var zero T
	rv, ok := convert(v, reflect.TypeFor[T]())
	if !ok {
		return zero, false
	}
	// For an interface T, nil converts to the nil interface, which
	// rv.Interface() returns as a nil any: zero is that value.
	t, _ := rv.Interface().(T)
	return t, true
}

func convert(v any, t reflect.Type) (reflect.Value, bool) {
	if v == nil {
		switch t.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
			return reflect.Zero(t), true
		}
		return reflect.Value{}, false
	}
	vt := reflect.TypeOf(v)
	if vt.AssignableTo(t) {
		rv := reflect.New(t).Elem()
		rv.Set(reflect.ValueOf(v))
		return rv, true
	}
	switch x := v.(type) {
	case []any:
		if t.Kind() != reflect.Slice {
			return reflect.Value{}, false
		}
		out := reflect.MakeSlice(t, len(x), len(x))
		for i, e := range x {
			ev, ok := convert(e, t.Elem())
			if !ok {
				return reflect.Value{}, false
			}
			out.Index(i).Set(ev)
		}
		return out, true
	case map[string]any:
		if t.Kind() != reflect.Map || t.Key().Kind() != reflect.String {
			return reflect.Value{}, false
		}
		out := reflect.MakeMapWithSize(t, len(x))
		for k, e := range x {
			ev, ok := convert(e, t.Elem())
			if !ok {
				return reflect.Value{}, false
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		return out, true
	}
	return reflect.Value{}, false
}

// argAs returns args[i] as an A, or a *TypeError naming op.
func argAs[A any](op string, args []any, i int) (A, error) {
	a, ok := as[A](args[i])
	if !ok {
		return a, &TypeError{Op: op, Arg: i, Want: reflect.TypeFor[A]().String(), Got: typeName(args[i])}
	}
	return a, nil
}

func nargs(op string, args []any, n int) error {
	if len(args) != n {
		return &ArgCountError{Op: op, Got: len(args), Want: n}
	}
	return nil
}

// unpack1 … unpack4 check that a wrapped function got its number of
// arguments and convert each to its parameter type; an error names the op
// (and, from argAs, the argument).
func unpack1[A any](op string, args []any) (a A, err error) {
	if err = nargs(op, args, 1); err == nil {
		a, err = argAs[A](op, args, 0)
	}
	return a, err
}

func unpack2[A, B any](op string, args []any) (a A, b B, err error) {
	if err = nargs(op, args, 2); err != nil {
		return a, b, err
	}
	if a, err = argAs[A](op, args, 0); err != nil {
		return a, b, err
	}
	b, err = argAs[B](op, args, 1)
	return a, b, err
}

func unpack3[A, B, C any](op string, args []any) (a A, b B, c C, err error) {
	if err = nargs(op, args, 3); err != nil {
		return a, b, c, err
	}
	if a, err = argAs[A](op, args, 0); err != nil {
		return a, b, c, err
	}
	if b, err = argAs[B](op, args, 1); err != nil {
		return a, b, c, err
	}
	c, err = argAs[C](op, args, 2)
	return a, b, c, err
}

func unpack4[A, B, C, D any](op string, args []any) (a A, b B, c C, d D, err error) {
	if err = nargs(op, args, 4); err != nil {
		return a, b, c, d, err
	}
	if a, err = argAs[A](op, args, 0); err != nil {
		return a, b, c, d, err
	}
	if b, err = argAs[B](op, args, 1); err != nil {
		return a, b, c, d, err
	}
	if c, err = argAs[C](op, args, 2); err != nil {
		return a, b, c, d, err
	}
	d, err = argAs[D](op, args, 3)
	return a, b, c, d, err
}
