// Package delayed builds task graphs from ordinary Go functions: typed,
// lazy values in the manner of dask.delayed. Wrap a function once, call
// the wrapper with delayed or plain arguments, and get a Delayed[R] that
// describes the call without running it; Compute runs it.
//
//	add := delayed.Fn2("add", func(a, b int) int { return a + b })
//	sq := delayed.Fn1("square", func(x int) int { return x * x })
//	r := add(sq.Call(2), sq.Call(3)) // or add(sq(delayed.Lit(2)), …)
//	v, err := r.Compute(ctx)         // 13
//
// # Values and arguments
//
// A Delayed[T] is a small immutable handle on a node: its key, the
// graph.Node that computes it and pointers to the nodes its arguments
// refer to. A wrapper is a function of one of the named types Func0 …
// Func4 and FuncN, and can be called two ways:
//
//	add(x, delayed.Lit(1)) // typed: each parameter an In[T]
//	add.Call(x, 1)         // plain Go values too, checked when built
//
// A wrapper's parameters have type In[T], which two kinds of value
// satisfy: a Delayed[T], passed by reference (the task depends on its
// key), and Lit(v), a plain value stored in the task's arguments, as plain
// arguments of a dask.delayed call are. The compiler checks such a call,
// and it costs no reflection: it is the form for hot loops. Call takes
// ...any and converts each argument to its parameter when the call is
// built: a plain value (Lit's job done for you, with Go's untyped
// constants converted exactly: Call(1, 2) for float64 parameters), a
// Delayed of an assignable type, nil, or a slice or map[string] holding
// Delayed values, which becomes a slice or map task as dask.delayed finds
// delayed values inside lists and dicts. A value that fits none is a
// *TypeError naming the function and the argument's position (a wrong
// count, an *ArgCountError), recorded on the result like any build error:
// never a panic. Value(v) is the third way in: a literal node with a key
// of its own (dask.delayed(v)), for a value that several tasks share or
// that should appear in pictures.
//
// Two forms because Go allows no single one. A plain int cannot satisfy
// In[int]: interfaces are satisfied by methods, and int has none, while a
// union such as int | Delayed[int] may only constrain a type parameter,
// not type a function parameter. Parameters of type any alone would
// accept everything with no wrapping, but would drop the compiler's check
// and pay for reflection in every call, hot loops included. One wrapper
// per combination of delayed and plain parameters (AddDD, AddDL, …)
// explodes. Requiring Delayed everywhere would force a literal node per
// constant, doubling the tasks of a tree of additions. Named function
// types keep the typed call exactly as it was (add(x, y) still compiles,
// and a Func2 is assignable to a plain func(In[A], In[B]) Delayed[R]) and
// carry a method for the untyped one; their last type parameter is what a
// call returns (Delayed[R], a Tuple3, a []Delayed[R]), so one type per
// number of parameters serves every kind of wrapper. In[T]'s methods are
// unexported and mention T, so an In[int] cannot be passed an In[string]
// and no other type can pose as an argument.
//
// Many values where one is expected: Slice turns []Delayed[T] into a
// Delayed[[]T] and Map turns map[string]Delayed[T] into a
// Delayed[map[string]T], each one task of this package's registered ops,
// so total(delayed.Slice(xs)) is dask's delayed(sum)(list_of_delayed),
// and total.Call(xs) does the same. FnN wraps a function of []A as a
// variadic wrapper (dask's delayed(f)(*xs)): sum(delayed.Each(xs)...), or
// sum.Call(xs), which spreads a slice that is not itself an A.
//
// # Names, ops and the registry
//
// Every wrapper registers a graph op named OpPrefix+name ("delayed.add"),
// so that a worker process of the distributed scheduler that runs the same
// wrapping code (package-level wrapper variables, as gob.Register is used)
// can rebuild the op by name. Names are therefore process-wide, like
// gob's: libraries should qualify theirs ("mypkg.add"); keys use only the
// part after the last dot ("add-3fa1…"), as Dask names keys after the
// function.
//
// Wrapping is never a panic. Wrapping the same function (same type, same
// code) under a name again reuses the first registration, so a wrapper
// built inside a function that runs many times, or an impure and a Pure
// wrapper of one function, just work. Wrapping a different function under
// a name already taken, an empty name, or one of this package's reserved
// names (slice, map, getitem) returns a wrapper whose Delayed values carry
// a *NameError: Err reports it at once and Compute returns it. An error
// value rather than a panic because the clash is usually between two
// packages, found far from either wrap call; silently replacing the first
// function would make workers and the local process run different code
// under one name. Closures of the same code that capture different values
// count as the same function: give them different names.
//
// # Keys
//
// Calls are impure by default, as dask.delayed's (pure=False): every call
// gets a fresh unique key ("add-" and a random token), so that five calls
// of a random source are five tasks and five values, never one value
// computed once and seen five times. The Pure wrapper option
// (pure=True) keys a call by "add-" followed by graph.Tokenize of the op
// name and the arguments (keys of delayed arguments, values of literal
// ones), so the same computation built twice has the same key and the
// graphs merge; use it for functions whose result depends on their
// arguments only. Impure still exists, as an explicit statement of the
// default. A literal that graph.Tokenize cannot hash makes even a Pure
// call impure. The keys of Value, Slice, Map and getitem tasks are always
// deterministic: they are functions of their arguments' keys, as Dask's
// are.
// Named gives a value an explicit key (dask_key_name). Pure keys hash the
// codec bytes of the arguments with graph.Hasher, Tokenize's own
// allocation-free form, so a key and graph.Tokenize never disagree.
//
// # Tuples
//
// Functions of several results are Dask's nout. A function returning two,
// three or four values of any types is wrapped with Fn1Tuple2 … Fn2Tuple4
// (one or two parameters; E forms for a trailing error) and gives a
// Tuple2[A, B], Tuple3 or Tuple4: one task returning all of them, and
// First, Second, … (or Items, for a, b, c := t.Items()) getitem tasks
// addressing each as a Delayed, so the function runs once however many
// results are used. For any number of results of one type, Fn1Nout and
// Fn2Nout (and E forms) wrap a function returning []R with a declared
// nout and give a []Delayed[R] of that length; a function that returns a
// slice of another length fails its task with a *NoutError naming it.
// Nout is part of the wrapper's identity: one name wrapped with two nouts
// is a *NameError. Without a declared length, a function returning a
// slice gives a Delayed[[]T], and Index and Items address its elements.
//
// # Building is cheap
//
// A node points at its dependencies rather than holding a copy of the
// graph (the rejected design: a map per value, merged on every call, made
// building a tree quadratic). Graph collects the DAG reachable from a
// value into one graph.Graph in O(nodes + edges) at compute time,
// deduplicating by key; two different nodes under one key are a
// *graph.ConflictError. A call allocates its node with its argument and
// dependency arrays in one object and its key in another. Building the
// 65,535-task addition tree and collecting its graph costs about 0.6 µs
// per task with impure keys and 0.9 µs with pure ones on a 2-core AMD EPYC
// (BenchmarkBuildTree, graph=true); Dask needs about 34 µs per task.
//
// # Computing
//
// Compute collects the graph, runs optimize.Optimize (cull, inline, fuse;
// WithOptimize(false) skips it, Dask's optimize_graph=False) and hands it
// to a scheduler: sched.Threaded{} unless WithScheduler says otherwise.
// WithCallbacks attaches a profiler or progress bar to that one run, and
// WithProgress a progress bar (none is drawn unless asked for, as Dask's
// ProgressBar()). The package-level Compute runs several values over one graph, so shared
// subexpressions run once. Persist computes a value and returns it as a
// literal node under the same key. Visualize draws the graph with package
// viz.
//
// # Errors
//
// Errors found while building (a name clash, a zero Delayed passed as an
// argument, an argument of Call of the wrong type or count) are sticky:
// they travel to every value built on the failed one and come back from
// Err and Compute. A task that fails or panics comes back as a
// *sched.TaskError naming its key and op, wrapping the function's error
// (errors.Is finds its sentinels) or a *sched.PanicError. That holds with
// optimization on too: when optimize.Fuse has merged inc(add(fails(3),
// 1)) into one task keyed like inc, the error still names fails and its
// own key (TaskError.Fused names the task that ran it), as it does with
// WithOptimize(false). A value of the wrong type reaching a wrapped
// function at run time (possible only through FromGraph or hand-edited
// graphs) is a *TypeError inside that TaskError, never a panic.
package delayed
