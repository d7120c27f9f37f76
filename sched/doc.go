// Package sched runs task graphs. Scheduler is the one interface; Sync
// runs on the calling goroutine, deterministically, and Threaded on N
// worker goroutines. Callbacks observe a run; Profiler and ProgressBar are
// built on them, and schedtest is the suite every scheduler passes.
//
// # One engine
//
// Sync and Threaded are one engine with a different number of workers, as
// Dask's get_sync is get_async with a synchronous executor. Get validates
// the graph (a bad graph returns graph.Validate's error), drops the nodes
// the requested keys do not need, gives every remaining node a priority
// with optimize.Order, and runs the engine. All state is dense slices over
// the graph's int32 node indices; keys are only looked at to call back.
//
// # Node states
//
// Every node is in exactly one state:
//
//   - waiting: some dependency has not finished; a per-node count of
//     pending dependencies says how many.
//   - ready: every dependency finished; the node's priority sits in a
//     binary min-heap shared by the workers.
//   - running: a worker popped it and runs its op, outside the lock.
//   - finished: its value is held, and its dependents' pending counts went
//     down; those that reached zero became ready.
//   - released: its last dependent finished and it was not requested, so
//     its value was dropped and Callbacks.Release called. Memory therefore
//     stays bounded by what Order keeps alive, O(depth) on reduction trees.
//
// Literals are finished before the first task starts, and an alias
// finishes the moment its target does, on the goroutine that finished the
// target: neither costs a worker round trip, and neither is a task for the
// callbacks (no Pretask or Posttask, but Release as any intermediate).
//
// # Workers
//
// Workers share one mutex-protected state. A worker pops the best ready
// task, runs it unlocked, then under the lock counts its dependents down,
// pushes those newly ready, and keeps the best of them to run next when
// nothing better waits in the heap, so a worker walks up a reduction tree
// without a heap round trip, the way Order intends. Idle workers wait on a
// sync.Cond and are signalled once per task pushed. A task whose arguments
// are all distinct references is resolved by index through the dependency
// lists, without a map lookup; the argument slice is reused per worker, so
// an op must not keep its args slice after Run returns.
//
// With one worker the heap pops priorities in increasing order, which is
// exactly optimize.Order: that is Sync's determinism.
//
// # Errors and cancellation
//
// A failing task gives a *TaskError naming its key and wrapping the cause;
// a panicking one, a *TaskError wrapping a *PanicError. A task that
// optimize.Fuse nested inside another is still named by its own key and op
// (its *optimize.FusedError becomes the TaskError, whose Fused field names
// the task that ran it), so errors read the same with and without
// optimization. After the first
// error no worker takes another task, and Get returns that error; a task
// another worker took just before it may still start (Threaded), at most
// one per worker. Tasks receive a context cancelled on the first error or
// when ctx is; Get returns ctx.Err() as soon as ctx is done, even while
// tasks run (Threaded), and a worker exits when its task returns. No
// callback runs after Finish.
//
// # Buffers
//
// Get gives its tasks a buffer free list (package freelist) in their
// context, unless the context already carries one (a run nested in a
// task, such as a block computed on Sync inside a partition task, shares
// its caller's): tasks take block, chunk and tile memory from it and give
// it back before they return, so that a run of many blocks allocates its
// large buffers about once per worker instead of once per task, whatever
// the garbage collector does. It keeps two buffers of the largest size
// asked for per worker (ComputeConfig.BufferLimit sets a byte limit
// instead) and is closed when Get returns. The library never changes the
// process's collector settings.
//
// # Rejected alternatives
//
//   - A goroutine per node, waiting on its inputs' channels: simple, but a
//     million-node graph would park a million goroutines (~2 KiB of stack
//     each) and the Go scheduler, not Order, would choose what runs next.
//   - A central dispatcher goroutine handing tasks to workers over channels
//     and receiving results back (dask.local's design, with a queue): every
//     task then costs two channel operations and two goroutine hand-offs.
//     BenchmarkHandoff measures a channel round trip between two
//     goroutines at about 240 ns on the 2-core development machine, against
//     5 ns for an uncontended mutex: the hand-offs alone would cost as much
//     as the engine's whole per-task figure (BenchmarkTree, about 0.25 µs
//     per task, validation and ordering included).
//   - A per-worker deque with work stealing: it pays off when the lock is
//     contended by many cores; at this task cost one lock acquisition per
//     task, mostly uncontended thanks to the keep-the-next-task fast path,
//     is cheaper, and one shared heap keeps the global priority order.
//   - Lock-free atomic pending counts: the ready heap needs the lock anyway,
//     and decrementing under the lock already held costs nothing extra.
package sched
