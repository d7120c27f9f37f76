// Package delayed builds task graphs from ordinary Go functions: typed,
// lazy values in the manner of dask.delayed. Wrap a function once, call
// the wrapper with delayed or plain arguments, and get a Delayed[R] that
// describes the call without running it; Compute runs it.
//
//	add := delayed.Fn2("add", func(a, b int) int { return a + b })
//	sq := delayed.Fn1("square", func(x int) int { return x * x })
//	r := add(sq(delayed.Lit(2)), sq(delayed.Lit(3)))
//	v, err := r.Compute(ctx) // 13
//
// # Values and arguments
//
// A Delayed[T] is a small immutable handle on a node: its key, the
// graph.Node that computes it and pointers to the nodes its arguments
// refer to. A wrapper's parameters have type In[T], which two kinds of
// value satisfy: a Delayed[T], passed by reference (the task depends on
// its key), and Lit(v), a plain value stored in the task's arguments, as
// plain arguments of a dask.delayed call are. Value(v) is the third way
// in: a literal node with a key of its own (dask.delayed(v)), for a value
// that several tasks share or that should appear in pictures.
//
// In[T] was chosen over the alternatives because it keeps the call typed
// without reflection at build time. Parameters of type any would accept
// delayed and plain values with no wrapping, but a wrong type would only
// show up at run time, and every call would pay for a type switch. One
// wrapper per combination of delayed and plain parameters (AddDD, AddDL,
// …) explodes. Requiring Delayed everywhere would force a literal node per
// constant, doubling the tasks of a tree of additions. In[T]'s methods are
// unexported and mention T, so an In[int] cannot be passed an In[string]
// and no other type can pose as an argument.
//
// Nested arguments are explicit: Slice turns []Delayed[T] into a
// Delayed[[]T] and Map turns map[string]Delayed[T] into a
// Delayed[map[string]T], each one task of this package's registered ops;
// FnN wraps a function of []A as a variadic wrapper.
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
// built inside a function that runs many times, or a pure and an Impure
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
// Keys are pure by default: "add-" followed by graph.Tokenize of the op
// name and the arguments (keys of delayed arguments, values of literal
// ones), so the same computation built twice has the same key and the
// graphs merge; this differs from dask.delayed, whose calls are impure
// unless pure=True. The Impure wrapper option gives every call a fresh
// unique key (pure=False), for functions with side effects or randomness.
// A literal that graph.Tokenize cannot hash also makes the call impure.
// Named gives a value an explicit key (dask_key_name). Tokens of keys and
// small scalars are computed by an allocation-free copy of Tokenize's
// FNV-128a, checked against graph.Tokenize by the tests.
//
// # Tuples
//
// A function returning two values is wrapped with Fn1Tuple2 or Fn2Tuple2
// and gives a Tuple2[A, B] (Dask's nout=2): one task returning both, and
// First/Second getitem tasks addressing each as a Delayed. A function
// returning a slice gives a Delayed[[]T]; Index and Items address its
// elements the same way.
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
// WithCallbacks attaches a profiler or progress bar to that one run; a
// progress bar on standard error (sched.StderrProgress) is attached when
// it is a terminal and CI is not set. The
// package-level Compute runs several values over one graph, so shared
// subexpressions run once. Persist computes a value and returns it as a
// literal node under the same key. Visualize draws the graph with package
// viz.
//
// # Errors
//
// Errors found while building (a name clash, a zero Delayed passed as an
// argument) are sticky: they travel to every value built on the failed
// one and come back from Err and Compute. A task that fails or panics
// comes back as a *sched.TaskError naming its key. A value of the wrong
// type reaching a wrapped function at run time (possible only through
// FromGraph or hand-edited graphs) is a *TypeError inside that
// TaskError, never a panic.
package delayed
