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
// decodes them, so a standalone scheduler needs no op registered.
//
// # Scheduling
//
// The scheduler keeps, per job, every task's state (waiting, ready,
// queued on the scheduler, processing on a worker, in memory on some
// workers, released, erred) and
//   - places a ready task on the worker that holds the most bytes of its
//     dependencies (data locality), among the workers that offer its
//     resources, breaking ties by the shorter queue; a worker keeps the
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
//     AllowedFailures workers that died is the job's error;
//   - releases a value on its workers when no task of the job needs it.
package distributed
