package delayed

// The wrappers below differ only in arity; keep them identical in shape.

import "context"

// Fn0 wraps a function of no arguments (a source: a loader, a generator)
// under name. See Fn2 for the rules every wrapper follows. Every call is
// a task of its own (a loader may read new data each time); with Pure,
// every call of a Fn0 wrapper has the same key and runs once per graph.
func Fn0[R any](name string, f func() R, opts ...FnOption) Func0[Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		if err := nargs(op, args, 0); err != nil {
			return nil, err
		}
		return f(), nil
	}, opts)
	return func() Delayed[R] { return Delayed[R]{w.call()} }
}

// Fn0E is Fn0 for a function that can fail: its error becomes the
// task's error.
func Fn0E[R any](name string, f func() (R, error), opts ...FnOption) Func0[Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		if err := nargs(op, args, 0); err != nil {
			return nil, err
		}
		return f()
	}, opts)
	return func() Delayed[R] { return Delayed[R]{w.call()} }
}

// Fn1 wraps a function of 1 argument under name, as Fn2 does.
func Fn1[A, R any](name string, f func(A) R, opts ...FnOption) Func1[A, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, err := unpack1[A](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax), nil
	}, opts)
	return func(a0 In[A]) Delayed[R] { return Delayed[R]{w.call(a0)} }
}

// Fn1E is Fn1 for a function that can fail: its error becomes the
// task's error.
func Fn1E[A, R any](name string, f func(A) (R, error), opts ...FnOption) Func1[A, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, err := unpack1[A](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax)
	}, opts)
	return func(a0 In[A]) Delayed[R] { return Delayed[R]{w.call(a0)} }
}

// Fn2 wraps f under name and returns a function that takes delayed or
// literal (Lit) arguments and returns the delayed result; its Call method
// takes plain values too (add.Call(1, x)). The op is registered as
// OpPrefix+name so that a worker process can run it; keys are named after
// the part of name after its last '.' ("add" for "mypkg.add") and are
// unique per call unless the Pure option is given. Wrapping the same
// function under the same name again reuses the registration; a name
// already wrapping another function, or an empty name, gives Delayed
// values whose Err is a *NameError.
func Fn2[A, B, R any](name string, f func(A, B) R, opts ...FnOption) Func2[A, B, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, err := unpack2[A, B](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx), nil
	}, opts)
	return func(a0 In[A], b0 In[B]) Delayed[R] { return Delayed[R]{w.call(a0, b0)} }
}

// Fn2E is Fn2 for a function that can fail: its error becomes the task's
// error, a *sched.TaskError naming the key.
func Fn2E[A, B, R any](name string, f func(A, B) (R, error), opts ...FnOption) Func2[A, B, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, err := unpack2[A, B](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx)
	}, opts)
	return func(a0 In[A], b0 In[B]) Delayed[R] { return Delayed[R]{w.call(a0, b0)} }
}

// Fn3 wraps a function of 3 arguments under name, as Fn2 does.
func Fn3[A, B, C, R any](name string, f func(A, B, C) R, opts ...FnOption) Func3[A, B, C, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, cx, err := unpack3[A, B, C](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx, cx), nil
	}, opts)
	return func(a0 In[A], b0 In[B], c0 In[C]) Delayed[R] { return Delayed[R]{w.call(a0, b0, c0)} }
}

// Fn3E is Fn3 for a function that can fail: its error becomes the
// task's error.
func Fn3E[A, B, C, R any](name string, f func(A, B, C) (R, error), opts ...FnOption) Func3[A, B, C, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, cx, err := unpack3[A, B, C](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx, cx)
	}, opts)
	return func(a0 In[A], b0 In[B], c0 In[C]) Delayed[R] { return Delayed[R]{w.call(a0, b0, c0)} }
}

// Fn4 wraps a function of 4 arguments under name, as Fn2 does.
func Fn4[A, B, C, D, R any](name string, f func(A, B, C, D) R, opts ...FnOption) Func4[A, B, C, D, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, cx, dx, err := unpack4[A, B, C, D](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx, cx, dx), nil
	}, opts)
	return func(a0 In[A], b0 In[B], c0 In[C], d0 In[D]) Delayed[R] { return Delayed[R]{w.call(a0, b0, c0, d0)} }
}

// Fn4E is Fn4 for a function that can fail: its error becomes the
// task's error.
func Fn4E[A, B, C, D, R any](name string, f func(A, B, C, D) (R, error), opts ...FnOption) Func4[A, B, C, D, Delayed[R]] {
	op := OpPrefix + name
	w := wrap(name, f, func(ctx context.Context, args []any) (any, error) {
		ax, bx, cx, dx, err := unpack4[A, B, C, D](op, args)
		if err != nil {
			return nil, err
		}
		return f(ax, bx, cx, dx)
	}, opts)
	return func(a0 In[A], b0 In[B], c0 In[C], d0 In[D]) Delayed[R] { return Delayed[R]{w.call(a0, b0, c0, d0)} }
}
