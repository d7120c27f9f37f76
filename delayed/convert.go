package delayed

import (
	"fmt"
	"reflect"
)

// TypeError reports a value of the wrong type reaching a wrapped function
// at run time (a graph edited by hand, a FromGraph key of another type) or
// a computed result that is not the Delayed's type. The scheduler wraps it
// in a *sched.TaskError that names the key.
type TypeError struct {
	Op   string // the op, or "compute" for a result
	Arg  int    // the argument's position; -1 for a result
	Want string
	Got  string
}

func (e *TypeError) Error() string {
	if e.Arg < 0 {
		return fmt.Sprintf("delayed: %s: result is a %s, want %s", e.Op, e.Got, e.Want)
	}
	return fmt.Sprintf("delayed: %s: argument %d is a %s, want %s", e.Op, e.Arg, e.Got, e.Want)
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
	return rv.Interface().(T), true
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
		return fmt.Errorf("delayed: %s: got %d arguments, want %d", op, len(args), n)
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
