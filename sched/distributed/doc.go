// Package distributed runs task graphs on many processes and machines: a
// scheduler, worker processes, and a client that implements
// sched.Scheduler, so that code that ran on sched.Threaded runs on a
// cluster by changing the scheduler and nothing else.
//
// # Processes
//
// The scheduler (NewServer, or `tessera scheduler`) serves the control
// plane over gRPC (the protocol is sched/distributed/pb/tessera.proto).
// Workers (RunWorker, `tessera worker`, or any binary that calls
// MaybeWorker first thing in main) connect to it, and each serves a data
// plane from which peers and clients fetch values as raw bytes in
// streamed frames; values never pass through the scheduler. A client
// (Connect) sends a graph, the scheduler places its tasks, and the client
// fetches the outputs from the workers that hold them. LocalCluster starts
// a scheduler in the calling process and n worker processes that are the
// calling binary itself, so that the ops the program registered exist on
// the workers. StartSlurmCluster does the same at HPC sites, with the
// workers submitted as Slurm batch jobs (sbatch), scaled by submitting and
// cancelling jobs, and certificates and a token generated for the cluster.
//
// Tasks travel as bytes in graph's wire form (graph.EncodeNode) and run
// only as registered ops: nothing is sent as code. The scheduler never
// decodes them, so a standalone scheduler needs no op registered. Each
// worker registers the names of the ops it has, the client names each
// task's op beside its bytes, and the scheduler places a task only on
// workers that have its op: a job with a task whose op no connected
// worker has fails at once with a *NoWorkerForOpError (the workers run
// another binary). An op registered after package initialization (a
// delayed wrapper built inside main) cannot exist in a worker process,
// which runs the binary anew: the client refuses it with a *LateOpError,
// unless its workers all share its process (StartCluster with
// InProcess).
//
// # Scheduling
//
// The scheduler keeps, per job, every task's state (waiting, ready,
// queued on the scheduler, processing on a worker, in memory on some
// workers, released, erred) and
//   - places a ready task on the worker that holds the most bytes of its
//     dependencies (data locality), among the workers that offer its
//     resources, have its op and are allowed by its job's restriction
//     (Workers), breaking ties by the shorter queue; a worker keeps the
//     values it fetched for a task (replicas), and counts as holding them
//     until they are released;
//   - sends tasks by priority (optimize.Order, computed by the client) and
//     holds root tasks back while workers are saturated (WorkerSaturation),
//     so that reductions keep up and memory stays bounded;
//   - moves queued tasks from busy workers to idle ones (work stealing),
//     unless the bytes the idle one would fetch take longer to move than
//     the task would wait;
//   - recomputes, from the graph (lineage), values lost with a worker, and
//     reruns the tasks that were running there; a task that was running on
//     AllowedFailures workers that died is the job's error (or, in a job
//     of Futures, that task's and its dependents');
//   - releases a value on its workers when no task of the job needs it.
//
// # Futures and values that stay on the cluster
//
// A client may open a session (the Session stream; Client does it on
// first use of a Future). A job of the session may hold some of its
// outputs: when the client ends the job's stream cleanly, the job is
// retired rather than dropped, and the held values stay on the workers
// that computed them, under the job's id. The session maps each held key
// to its source task. A later job of the same session that has a task of
// a held key (the client marks it held and sends no node for it, or the
// key merely appears in its graph) links that task to the source: it is
// never computed, its value is the source's, and the workers running its
// dependents fetch it from the source's holders (Dep.job), peer to peer
// as any dependency. A key held by a job that is still running is linked
// too, and taken when it finishes: a key is computed once per session.
// A held value lost with its workers is recomputed by its retired job,
// from lineage, and the linked tasks wait for it again.
//
// The session releases keys, one hold at a time (each job holding a key
// is one hold of it); a value with no hold left is dropped once no
// running job's linked task needs it, and a retired job holding nothing is
// dropped with everything it left on the workers. The end of the session
// stream (Client.Close, or a client that vanished) releases every key it
// held. A job whose stream breaks, rather than ending cleanly, is dropped
// at once, held outputs included (a cancelled submission).
//
// On the client, Submit, Map and Scatter return Futures; a Future counts
// one reference to its key, and the key is released when its last Future
// is released (Release, Cancel) or becomes unreachable
// (runtime.AddCleanup). Gather and Result fetch values from the workers;
// Replicate (and Scatter's broadcast) asks every live worker for a copy
// of held values (SchedulerMessage.replicate), which the scheduler counts
// as holders once the workers report them.
// Persist (sched.Persister, used by chunkarray's and delayed's Persist)
// returns nodes that stand for held values: later computations on the
// same client read them on the workers, and nothing moves through the
// client. Each Submit, Map or Persist is one job, which keeps going on
// the scheduler past a failing task (Run.keep_going): a task's final
// failure (after its retries; a task that killed AllowedFailures workers;
// no worker for its resources) errs that task and its unrun dependents,
// which never run and release their dependencies as if they had, and each
// erred output is reported to the client (ClientEvent.erred); the job's
// other tasks run on, and it ends when every output is held or erred. So
// each Future succeeds or fails on its own: a failed task's Future gets
// its *sched.TaskError, a Future depending on it an error wrapping
// ErrDependencyFailed and that same TaskError (the failed task's key), as
// Dask gives a dependent its dependency's exception; so does a later job
// whose task links to an erred held key. Wait waits for outcomes without
// returning them; Gather and Result return the first error, GatherSkip
// the values of the Futures that hold one (Dask's errors="skip").
// Compute (Get) does not keep going: it fails at the first failure. The
// per-call options of Submit and Map are Retries, Resources, WithKey,
// Workers (with AllowOtherWorkers, a preference) and Priority, which
// orders jobs across the cluster: a high-priority call's tasks overtake
// the queued tasks of earlier calls, on the scheduler and in the workers'
// queues.
//
// # Retiring workers
//
// Server.RetireWorkers and Client.RetireWorkers (the Retire call; Dask's
// retire_workers) take workers out gracefully: no new task goes to them,
// their unstarted tasks are stolen back to the others, their running
// tasks finish, the values only they hold that are still needed are
// copied to the others (SchedulerMessage.replicate), and then they are
// told to exit (SchedulerMessage.retire), which they do cleanly (status
// 0), leaving nothing to recompute. A retirement whose ctx ends first is
// given up (a *RetireError says what was left; the workers work on);
// retiring every live worker is refused (ErrNoRecipient). Cluster.Scale
// and SlurmCluster.Scale retire the workers they stop. server_retire.go
// describes the states.
package distributed
