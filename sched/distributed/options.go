package distributed

import (
	"log/slog"
	"time"
)

// SchedulerOptions configure a scheduler (NewServer, `tessera scheduler`).
// Zero fields take the defaults written next to them.
type SchedulerOptions struct {
	// Address is where the gRPC control plane listens; default
	// "127.0.0.1:0" (a free loopback port). Use ":8786" or a host's
	// address to serve other machines.
	Address string
	// StatusAddress is where the HTTP status endpoint listens (GET /status
	// answers JSON); "" serves none.
	StatusAddress string
	Security      Security
	// HeartbeatInterval is how often workers report; default 500ms.
	HeartbeatInterval time.Duration
	// WorkerTimeout: a worker silent for this long is lost, as if its
	// connection broke; default 10s. A killed process is noticed at once
	// by its broken connection.
	WorkerTimeout time.Duration
	// AllowedFailures is how many workers may die while running one task
	// before the task is reported as the error (Dask's
	// distributed.scheduler.allowed-failures); default 3.
	AllowedFailures int
	// WorkerSaturation bounds root tasks (tasks without dependencies) per
	// worker: a worker is given new root tasks only while it has fewer
	// than ceil(threads × WorkerSaturation) tasks queued or running, or
	// fewer than ceil(threads × WorkerSaturation) + B tasks queued or
	// running and root values held for consumers already running, so
	// that workers do not race ahead of the reductions that consume
	// them. B lets small roots go out in batches: it is 0 until one of
	// the job's roots has finished, then min(1024, 32 MiB / the mean size
	// of the job's finished root values, counted as at least 64 bytes),
	// so that roots queued, running or waiting for their release hold
	// about 32 MiB per worker beyond the first term. Default 2.0;
	// non-root tasks are not bounded.
	WorkerSaturation float64
	// Logger receives the scheduler's log; default slog.Default().
	Logger *slog.Logger
	// MaxJobTasks bounds the tasks of one job and MaxJobBytes the bytes of
	// its task definitions (keys, encoded nodes, dependency lists), so
	// that one client cannot exhaust the scheduler's memory: a job past
	// either fails at once with a BAD_GRAPH error saying which limit.
	// Defaults 10,000,000 tasks and 4 GiB (a 5M-task tree of delayed
	// calls is about 0.3 GB of definitions).
	MaxJobTasks int
	MaxJobBytes int64
	// Insecure allows Address or StatusAddress beyond loopback without
	// mutual TLS and a token (ErrInsecure otherwise): anyone who reaches
	// the port can then run tasks. The log and the status say so.
	Insecure bool
}

// WorkerOptions configure a worker (RunWorker, `tessera worker`).
type WorkerOptions struct {
	// Scheduler is the scheduler's control-plane address (host:port).
	Scheduler string
	// ListenAddress is where the data plane listens; default
	// "127.0.0.1:0" when Scheduler is a loopback address, else ":0".
	ListenAddress string
	// AdvertiseAddress is the data address peers and clients dial; default
	// the listen address, with an unspecified host replaced by the address
	// of the interface that reaches the scheduler.
	AdvertiseAddress string
	// Name is for people (status, logs); default host:pid.
	Name string
	// Threads is how many tasks run at once; default GOMAXPROCS.
	Threads int
	// Resources are what this worker offers, e.g. {"GPU": 1}. A task that
	// needs a resource runs only on workers that offer enough of it.
	Resources map[string]float64
	// MemoryLimit bounds the bytes of values held in memory; above 60%
	// of it the least recently used values spill to SpillDir, and come
	// back when needed. 0: no limit, nothing spills.
	MemoryLimit int64
	// SpillDir is where spilled values go; default a new directory under
	// os.TempDir(), removed when the worker stops.
	SpillDir string
	Security Security
	// ConnectTimeout bounds the wait for the scheduler at start and after
	// losing it; the worker stops with an error after it. Default 30s.
	ConnectTimeout time.Duration
	// Logger receives the worker's log; default slog.Default().
	Logger *slog.Logger
	// ConfineFiles, in a worker process (RunWorker), lets its tasks read
	// and write files only under DataDirs (none: no file at all); a task
	// naming another path fails with a *graph.PathError. tessera worker
	// always confines (-data-dir DIR, repeatable; -data-dir / allows
	// every path); a LocalCluster's workers do when ClusterOptions.DataDirs
	// is set.
	ConfineFiles bool
	DataDirs     []string
	// Insecure allows a data plane listening beyond loopback without
	// mutual TLS and a token (ErrInsecure otherwise): anyone who reaches
	// it can read the worker's values.
	Insecure bool

	// allOps: the worker shares its process, and so its op registry,
	// with the client (a Cluster's in-process worker): it registers as
	// having every op, even those registered after it started.
	allOps bool
}

// MaxRetries bounds ClientOptions.Retries (and a Run's retries from any
// client): a larger value is taken as MaxRetries.
const MaxRetries = 100

// ClientOptions configure a client (Connect).
type ClientOptions struct {
	Security Security
	// Retries is how many times a task whose op returns an error is run
	// again before its error is final (Dask's retries=); default 0.
	// Panics count as errors. Tasks lost with a dead worker are always
	// recomputed and do not count here. The scheduler caps it at
	// MaxRetries, so that a task that always fails ends its job.
	Retries int
	// Name names the client's jobs in the status endpoint.
	Name string
	// MaxResultBytes bounds the size of one result fetched from the
	// workers: a larger one fails Get with a *ValueTooLargeError before
	// its bytes are allocated (a 80 GB result once crashed the client
	// out of memory). Default half of the machine's memory (MemTotal in
	// /proc/meminfo), or 16 GiB where that cannot be read; negative: no
	// limit.
	MaxResultBytes int64
}
