package distributed

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// A SlurmCluster is a scheduler running in this process and workers
// started as Slurm batch jobs, the way HPC sites hand out machines: the
// scheduler listens on this host (a login node, or the node of a job that
// runs the client), each job runs WorkersPerJob worker processes, and
// Scale submits or cancels jobs to reach a number of workers. This is the
// model of dask-jobqueue's SLURMCluster:
//
//   - one job script, generated (JobScript) with the cores, memory, time
//     limit, partition, account and extra #SBATCH directives of
//     SlurmOptions, and a preamble of the site's own lines (module load,
//     a virtual environment, exports);
//   - `sbatch --parsable SCRIPT` per job, `squeue` to follow the jobs,
//     `scancel` to end them; a failure of one of these commands is a
//     *SlurmError naming the command and quoting its stderr;
//   - workers named JOBNAME-JOBID-I, so the scheduler's list of workers
//     says which job each came from.
//
// Secure by default: the scheduler listens beyond loopback, so unless
// SlurmOptions.Security is given (or Insecure), StartSlurmCluster writes
// a CA, role certificates and a token into a private directory (mode
// 0700) that the jobs read through the shared filesystem (home and
// scratch are shared between login and compute nodes at HPC sites), and
// deletes the CA's key at once, since nothing else is signed.
//
// The worker processes run WorkerCommand, by default the running binary
// itself with the argument "tessera-worker" (MaybeWorker), so that the
// ops a program registered exist on its workers; the binary must then lie
// on a filesystem the compute nodes see.
//
// Rejected designs: one job array (sbatch --array) for all workers, which
// Slurm queues and reports as a unit, so that scaling down means
// cancelling array tasks by index and scaling up a second array; and
// passing the worker's settings in environment variables, as
// StartCluster does, which sites that set SBATCH_EXPORT=NONE strip
// before the job starts. The script holds every setting as a flag, and
// each job is on its own in squeue and scancel.
type SlurmCluster struct {
	opts   SlurmOptions
	server *Server
	client *Client
	out    io.Writer

	addr       string // host:port the workers dial
	dir        string
	ownDir     bool // made by StartSlurmCluster: removed by Close
	script     string
	scriptPath string
	clientSec  Security
	tokenFile  string

	scaleMu sync.Mutex // one Scale at a time

	mu        sync.Mutex
	jobs      []*slurmJob // live jobs, in submission order
	cancelled []string    // jobs Scale cancelled, which Close waits for too
	closed    bool
}

var _ sched.Scheduler = (*SlurmCluster)(nil)

// SlurmOptions configure StartSlurmCluster and `tessera slurm`. Zero fields
// take the defaults written next to them.
type SlurmOptions struct {
	// Workers is how many workers StartSlurmCluster asks for and waits for
	// (rounded up to whole jobs); 0 submits nothing (call Scale).
	Workers int
	// WorkersPerJob is how many worker processes one Slurm job runs, on
	// one node (dask-jobqueue's processes); default 1.
	WorkersPerJob int
	// Cores per job (--cpus-per-task), shared among its workers' threads;
	// default WorkersPerJob.
	Cores int
	// Memory per job in bytes (--mem, written in MiB rounded up); 0 leaves
	// the partition's default. Each worker's memory limit is
	// Memory/WorkersPerJob unless WorkerMemoryLimit says otherwise.
	Memory            int64
	WorkerMemoryLimit int64
	// Walltime is the job's time limit (--time); 0 leaves the partition's
	// default. Slurm counts in minutes and rounds up.
	Walltime time.Duration
	// Partition (--partition), Account (--account): "" leaves Slurm's
	// defaults.
	Partition string
	Account   string
	// JobName (--job-name) also prefixes the names of the workers;
	// letters, digits, '.', '_' and '-' only; default "tessera".
	JobName string
	// Directives are more #SBATCH options, one per element, such as
	// "--gres=gpu:1" or "--constraint=skylake"; written after the others,
	// so that they win where Slurm lets a later option override.
	Directives []string
	// Prologue holds shell lines run before the workers start, such as
	// "module load cuda" or "source ~/venv/bin/activate".
	Prologue []string
	// WorkerCommand is the program and first arguments of a worker;
	// "tessera-worker" and the worker's flags follow. Default the running
	// binary (os.Executable()), which must call MaybeWorker first thing in
	// main and lie on a filesystem the compute nodes see.
	WorkerCommand []string
	// Resources each worker offers (-resources), e.g. {"GPU": 1}.
	Resources map[string]float64
	// DataDirs are the directories whose files the workers' tasks may use
	// (-data-dir); none by default, as for `tessera worker`.
	DataDirs []string
	// SpillDir is where workers spill; default a directory of their own
	// under the node's temporary directory ($TMPDIR, which sites point at
	// node-local disk).
	SpillDir string
	// Dir is the directory of the job script, the job logs (logs/) and,
	// when generated, the certificates (tls/) and the token (token), which
	// replace those of an earlier cluster in the same Dir. It must be on a
	// filesystem the compute nodes see. Default a new directory under
	// $HOME/.tessera/slurm, removed by Close; a given Dir is made if
	// missing (mode 0700) and left in place.
	Dir string
	// Security of the scheduler, workers and client; CertSecurity(dir,
	// token) is enough when dir holds GenerateCerts' role files, which
	// must be readable on the compute nodes. Zero: generated into Dir
	// (unless Insecure). The token travels to the workers in a file of
	// Dir (mode 0600), never on a command line.
	Security Security
	// Insecure runs the cluster without TLS and token when Security is
	// zero: anyone who reaches the ports can run tasks and read values.
	Insecure bool
	// Scheduler configures the scheduler; Address defaults to ":0" (every
	// interface, a free port) and StatusAddress, where the dashboard is
	// served, to a free loopback port (reach it through ssh -L).
	Scheduler SchedulerOptions
	// SchedulerHost is the host name or address the workers dial; default
	// this machine's name (os.Hostname). Give the address of the fast
	// network's interface where the nodes have several.
	SchedulerHost string
	// StartTimeout bounds StartSlurmCluster's wait for Workers to join,
	// queueing included; default 10 min.
	StartTimeout time.Duration
	// PollInterval is how often squeue is asked about the jobs while
	// waiting for workers or for cancelled jobs to leave; default 2 s.
	PollInterval time.Duration
	// RetireTimeout bounds the graceful retirement of the workers of the
	// jobs Scale cancels (Server.RetireWorkers); default 1 min. Negative:
	// cancel them at once, as a node failure would.
	RetireTimeout time.Duration
	// Stderr receives what the cluster reports (the dashboard URL, the
	// job ids); default os.Stderr. Quiet: report nothing.
	Stderr io.Writer
	Quiet  bool
}

// SlurmError is the error of an sbatch, squeue or scancel that failed:
// Command is its command line, Stderr what it wrote there, Err the cause
// (an *exec.ExitError, or exec.ErrNotFound where Slurm is not installed).
type SlurmError struct {
	Command []string
	Stderr  string
	Err     error
}

func (e *SlurmError) Error() string {
	msg := fmt.Sprintf("distributed: slurm: %s: %v", strings.Join(e.Command, " "), e.Err)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap returns e.Err.
func (e *SlurmError) Unwrap() error { return e.Err }

// SlurmJobError is the error of a Slurm job that ended before any of its
// workers joined the scheduler: State is its last state in squeue
// ("" when squeue no longer listed it), Log the job log's path and
// LogTail its last lines, which usually say why (a worker command that
// does not exist, a prologue that failed, a scheduler the node cannot
// reach).
type SlurmJobError struct {
	JobID   string
	State   string
	Log     string
	LogTail string
}

func (e *SlurmJobError) Error() string {
	state := e.State
	if state == "" {
		state = "no longer in squeue"
	}
	tail := strings.TrimSpace(e.LogTail)
	if tail == "" {
		tail = "(nothing)"
	}
	return fmt.Sprintf("distributed: slurm job %s ended (%s) before its workers joined the scheduler; its log %s ends with:\n%s",
		e.JobID, state, e.Log, tail)
}

// SlurmJob is one job of a SlurmCluster, as squeue last reported it.
type SlurmJob struct {
	ID     string
	State  string // PENDING, RUNNING, ...; "" before squeue was first asked
	Reason string // squeue's reason for a pending job (Resources, Priority, ...)
	// Workers are the names of the job's workers connected now.
	Workers []string
}

// slurmJob is the cluster's record of one submitted job.
type slurmJob struct {
	id            string
	state, reason string
	joined        bool // a worker of the job has registered at some time
	gone          bool // ended: no longer in squeue, or in a final state
}

// slurmFinal are the states of jobs that have ended or are ending.
var slurmFinal = map[string]bool{
	"COMPLETING": true, "COMPLETED": true, "CANCELLED": true, "FAILED": true, "TIMEOUT": true,
	"NODE_FAIL": true, "PREEMPTED": true, "BOOT_FAIL": true, "DEADLINE": true, "OUT_OF_MEMORY": true,
	"REVOKED": true, "SPECIAL_EXIT": true,
}

// slurmCommandTimeout bounds one sbatch, squeue or scancel, which hang when
// slurmctld does not answer.
const slurmCommandTimeout = 60 * time.Second

// StartSlurmCluster starts a scheduler in this process, writes the job
// script, submits jobs for opts.Workers workers, waits until they have
// joined (or a job ended first, or StartTimeout passed) and connects a
// client. ctx bounds the start only; the cluster runs until Close, which
// cancels its jobs.
func StartSlurmCluster(ctx context.Context, opts SlurmOptions) (_ *SlurmCluster, err error) {
	if os.Getenv(envWorker) != "" {
		fmt.Fprintln(os.Stderr, notWorkerMsg)
		os.Exit(3)
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	c := &SlurmCluster{opts: opts, out: opts.Stderr}
	if opts.Quiet {
		c.out = io.Discard
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if err := c.makeDir(); err != nil {
		return nil, err
	}
	sec, err := c.security()
	if err != nil {
		return nil, err
	}
	so := opts.Scheduler
	if so.Security == (Security{}) {
		so.Security = sec.ForRole(RoleScheduler)
	}
	so.Insecure = so.Insecure || opts.Insecure
	if c.server, err = NewServer(so); err != nil {
		return nil, err
	}
	listenHost, port, err := net.SplitHostPort(c.server.Addr())
	if err != nil {
		return nil, fmt.Errorf("distributed: slurm: the scheduler's address %q: %w", c.server.Addr(), err)
	}
	c.addr = net.JoinHostPort(opts.SchedulerHost, port)
	c.clientSec = sec.ForRole(RoleClient)
	c.script = slurmScript(c.scriptParams(sec.ForRole(RoleWorker)))
	c.scriptPath = filepath.Join(c.dir, "tessera-worker.sbatch")
	if err := os.WriteFile(c.scriptPath, []byte(c.script), 0o600); err != nil {
		return nil, fmt.Errorf("distributed: slurm: %w", err)
	}
	if u := c.server.DashboardURL(); u != "" {
		fmt.Fprintf(c.out, "tessera: slurm cluster dashboard at %s\n", u)
	}
	fmt.Fprintf(c.out, "tessera: slurm cluster scheduler at %s; job script %s\n", c.addr, c.scriptPath)
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	if err := c.Scale(ctx, opts.Workers); err != nil {
		return nil, err
	}
	if err := c.WaitForWorkers(ctx, opts.Workers); err != nil {
		return nil, err
	}
	// The client dials the scheduler on loopback when it listens on every
	// interface: the advertised host may be an interface that this machine
	// does not route to itself.
	local := listenHost
	if ip := net.ParseIP(listenHost); listenHost == "" || ip != nil && ip.IsUnspecified() {
		local = "127.0.0.1"
	}
	if c.client, err = Connect(ctx, net.JoinHostPort(local, port), ClientOptions{Security: c.clientSec}); err != nil {
		return nil, err
	}
	return c, nil
}

// makeDir makes the cluster's directory and its logs/ directory.
func (c *SlurmCluster) makeDir() error {
	dir := c.opts.Dir
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("distributed: slurm: no Dir given and no home directory: %w", err)
		}
		base := filepath.Join(home, ".tessera", "slurm")
		if err := os.MkdirAll(base, 0o700); err != nil {
			return fmt.Errorf("distributed: slurm: %w", err)
		}
		if dir, err = os.MkdirTemp(base, c.opts.JobName+"-"); err != nil {
			return fmt.Errorf("distributed: slurm: %w", err)
		}
		c.ownDir = true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("distributed: slurm: Dir: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("distributed: slurm: Dir: %w", err)
	}
	if strings.ContainsAny(abs, " \t\r\n") {
		// #SBATCH --output takes no quotes.
		return fmt.Errorf("distributed: slurm: Dir %q: a path with blanks cannot be written in #SBATCH lines", abs)
	}
	c.dir = abs
	if err := os.MkdirAll(filepath.Join(abs, "logs"), 0o700); err != nil {
		return fmt.Errorf("distributed: slurm: %w", err)
	}
	return nil
}

// security returns the cluster's Security: the given one, or certificates
// and a token generated into the directory; the token is written to a
// file for the workers.
func (c *SlurmCluster) security() (Security, error) {
	sec := c.opts.Security
	if sec == (Security{}) && !c.opts.Insecure {
		tlsDir := filepath.Join(c.dir, "tls")
		// A Dir used before holds the certificates of an earlier
		// cluster: each cluster has its own.
		if err := os.RemoveAll(tlsDir); err != nil {
			return Security{}, fmt.Errorf("distributed: slurm: %w", err)
		}
		if err := GenerateCerts(tlsDir, []string{c.opts.SchedulerHost}, 30*24*time.Hour); err != nil {
			return Security{}, err
		}
		// Nothing else is signed: the CA's key goes at once.
		if err := os.Remove(filepath.Join(tlsDir, "ca-key.pem")); err != nil {
			return Security{}, fmt.Errorf("distributed: slurm: %w", err)
		}
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return Security{}, err
		}
		sec = RoleSecurity(tlsDir, RoleScheduler, hex.EncodeToString(b))
	}
	if sec.Token != "" {
		c.tokenFile = filepath.Join(c.dir, "token")
		if err := os.WriteFile(c.tokenFile, []byte(sec.Token+"\n"), 0o600); err != nil {
			return Security{}, fmt.Errorf("distributed: slurm: %w", err)
		}
	}
	return sec, nil
}

// Get runs g on the cluster (see Client.Get).
func (c *SlurmCluster) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	return c.client.Get(ctx, g, keys)
}

// Client returns the cluster's client.
func (c *SlurmCluster) Client() *Client { return c.client }

// Server returns the cluster's scheduler.
func (c *SlurmCluster) Server() *Server { return c.server }

// Address returns the scheduler's address as the workers dial it.
func (c *SlurmCluster) Address() string { return c.addr }

// Dir returns the cluster's directory (job script, logs/, tls/, token).
func (c *SlurmCluster) Dir() string { return c.dir }

// ClientSecurity returns the Security with which other clients connect:
// the generated client certificate and the token when StartSlurmCluster
// made them.
func (c *SlurmCluster) ClientSecurity() Security { return c.clientSec }

// JobScript returns the batch script each job runs.
func (c *SlurmCluster) JobScript() string { return c.script }

// Jobs returns the cluster's live jobs, in submission order, with the
// workers of each connected now.
func (c *SlurmCluster) Jobs() []SlurmJob {
	byJob := c.workersByJob()
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]SlurmJob, 0, len(c.jobs))
	for _, j := range c.jobs {
		out = append(out, SlurmJob{ID: j.id, State: j.state, Reason: j.reason, Workers: byJob[j.id]})
	}
	return out
}

// workersByJob returns the names of the connected workers, by the id of
// the job their name carries.
func (c *SlurmCluster) workersByJob() map[string][]string {
	out := map[string][]string{}
	prefix := c.opts.JobName + "-"
	for _, w := range c.server.Status().Workers {
		rest, ok := strings.CutPrefix(w.Name, prefix)
		if !ok {
			continue
		}
		if id, _, ok := strings.Cut(rest, "-"); ok {
			out[id] = append(out[id], w.Name)
		}
	}
	return out
}

// Scale submits or cancels jobs so that the cluster has the jobs for n
// workers: ceil(n/WorkersPerJob) of them. It does not wait for new
// workers to join (WaitForWorkers does). Scaling down cancels whole jobs:
// first those none of whose workers has joined (queued), newest first,
// then the newest running ones. The workers of running jobs are retired
// gracefully first (Server.RetireWorkers, bounded by RetireTimeout): the
// values only they hold that are still needed (futures, persisted
// collections, inputs of unfinished tasks) move to the other workers, and
// their running tasks finish. A retirement that fails or times out (or
// one that would leave no worker, as Scale(0)) is reported on Stderr and
// the jobs are cancelled anyway; the values lost with them are then
// recomputed elsewhere from the graph when needed.
func (c *SlurmCluster) Scale(ctx context.Context, n int) error {
	if n < 0 {
		return fmt.Errorf("distributed: slurm: Scale(%d): negative", n)
	}
	c.scaleMu.Lock()
	defer c.scaleMu.Unlock()
	// Learn which jobs have ended (a time limit reached, a node lost), so
	// that they are replaced, and which have workers, so that queued jobs
	// go first. A job that failed before its workers joined is dropped
	// here like any ended one.
	var je *SlurmJobError
	if err := c.refresh(ctx); err != nil && !errors.As(err, &je) {
		return err
	}
	want := (n + c.opts.WorkersPerJob - 1) / c.opts.WorkersPerJob
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errors.New("distributed: slurm: cluster closed")
	}
	c.dropGone()
	have := len(c.jobs)
	var victims []string
	if want < have {
		victims = c.pickVictims(have - want)
	}
	c.mu.Unlock()
	for range want - have {
		id, err := c.submit(ctx)
		if err != nil {
			return err
		}
		c.mu.Lock()
		c.jobs = append(c.jobs, &slurmJob{id: id})
		c.mu.Unlock()
		fmt.Fprintf(c.out, "tessera: submitted slurm job %s\n", id)
	}
	if len(victims) > 0 {
		c.retireJobs(ctx, victims)
		if err := c.scancel(ctx, victims); err != nil {
			return err
		}
		c.mu.Lock()
		c.jobs = slices.DeleteFunc(c.jobs, func(j *slurmJob) bool { return slices.Contains(victims, j.id) })
		c.cancelled = append(c.cancelled, victims...)
		c.mu.Unlock()
		fmt.Fprintf(c.out, "tessera: cancelled slurm jobs %s\n", strings.Join(victims, ","))
	}
	return nil
}

// dropGone forgets the jobs that have ended. c.mu is held.
func (c *SlurmCluster) dropGone() {
	c.jobs = slices.DeleteFunc(c.jobs, func(j *slurmJob) bool { return j.gone })
}

// pickVictims chooses k jobs to cancel: those with no worker joined yet,
// newest first, then the newest others. c.mu is held.
func (c *SlurmCluster) pickVictims(k int) []string {
	var queued, running []string
	for i := len(c.jobs) - 1; i >= 0; i-- {
		if j := c.jobs[i]; j.joined {
			running = append(running, j.id)
		} else {
			queued = append(queued, j.id)
		}
	}
	return append(queued, running...)[:k]
}

// submit submits the job script once and returns the job's id.
func (c *SlurmCluster) submit(ctx context.Context) (string, error) {
	out, err := c.command(ctx, "sbatch", "--parsable", c.scriptPath)
	if err != nil {
		return "", err
	}
	return parseSbatchID(out)
}

// parseSbatchID reads the job id from `sbatch --parsable`'s output:
// "ID" or "ID;CLUSTER" on its last line.
func parseSbatchID(out string) (string, error) {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	id, _, _ := strings.Cut(strings.TrimSpace(lines[len(lines)-1]), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("distributed: slurm: sbatch --parsable printed %q, not a job id", strings.TrimSpace(out))
	}
	return id, nil
}

// command runs a Slurm command and returns its standard output.
func (c *SlurmCluster) command(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, slurmCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		return stdout.String(), &SlurmError{Command: append([]string{name}, args...), Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.String(), nil
}

// scancel cancels jobs. A job that ended meanwhile (its time limit, a
// failure) is no error, though some versions of scancel exit 1 for it.
func (c *SlurmCluster) scancel(ctx context.Context, ids []string) error {
	_, err := c.command(ctx, "scancel", ids...)
	var se *SlurmError
	if errors.As(err, &se) && se.Stderr != "" && ctx.Err() == nil {
		ended := true
		for _, line := range strings.Split(se.Stderr, "\n") {
			if !strings.Contains(line, "Invalid job id") && !strings.Contains(line, "already completing or completed") {
				ended = false
			}
		}
		if ended {
			return nil
		}
	}
	return err
}

// slurmQueued is one line of squeue.
type slurmQueued struct{ state, reason string }

// squeue asks squeue about ids and returns those it lists.
func (c *SlurmCluster) squeue(ctx context.Context, ids []string) (map[string]slurmQueued, error) {
	out := map[string]slurmQueued{}
	if len(ids) == 0 {
		return out, nil
	}
	text, err := c.command(ctx, "squeue", "--noheader", "--format=%i %T %r", "--jobs="+strings.Join(ids, ","))
	if err != nil {
		// squeue refuses a list of jobs none of which it knows any more.
		var se *SlurmError
		if errors.As(err, &se) && strings.Contains(se.Stderr, "Invalid job id") {
			return out, nil
		}
		return nil, err
	}
	return parseSqueue(text), nil
}

// parseSqueue reads lines "ID STATE REASON".
func parseSqueue(text string) map[string]slurmQueued {
	out := map[string]slurmQueued{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		out[f[0]] = slurmQueued{state: f[1], reason: strings.Join(f[2:], " ")}
	}
	return out
}

// refresh asks squeue about the live jobs and records their states; a job
// that ended before any of its workers joined is returned as a
// *SlurmJobError.
func (c *SlurmCluster) refresh(ctx context.Context) error {
	c.mu.Lock()
	ids := make([]string, 0, len(c.jobs))
	for _, j := range c.jobs {
		ids = append(ids, j.id)
	}
	asked := append(slices.Clone(ids), c.cancelled...)
	c.mu.Unlock()
	q, err := c.squeue(ctx, asked)
	if err != nil {
		return err
	}
	c.noteJoined()
	c.mu.Lock()
	defer c.mu.Unlock()
	// Cancelled jobs are forgotten once they have ended.
	c.cancelled = slices.DeleteFunc(c.cancelled, func(id string) bool {
		s, listed := q[id]
		return slices.Contains(asked, id) && (!listed || slurmFinal[s.state] && s.state != "COMPLETING")
	})
	var failed *slurmJob
	for _, j := range c.jobs {
		if !slices.Contains(ids, j.id) {
			continue // submitted since
		}
		s, listed := q[j.id]
		if listed {
			j.state, j.reason = s.state, s.reason
		}
		if !listed || slurmFinal[s.state] {
			j.gone = true
			if !j.joined && failed == nil {
				failed = j
			}
		}
	}
	if failed != nil {
		log := filepath.Join(c.dir, "logs", c.opts.JobName+"-"+failed.id+".out")
		return &SlurmJobError{JobID: failed.id, State: failed.state, Log: log, LogTail: fileTail(log, 4<<10)}
	}
	return nil
}

// noteJoined marks the jobs whose workers have registered.
func (c *SlurmCluster) noteJoined() {
	byJob := c.workersByJob()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, j := range c.jobs {
		if len(byJob[j.id]) > 0 {
			j.joined = true
		}
	}
}

// fileTail returns the last max bytes of the file at path, or "" when it
// cannot be read.
func fileTail(path string, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > max {
		f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return string(b)
}

// WaitForWorkers waits until at least n workers are connected to the
// scheduler. It fails early, with a *SlurmJobError, when a job ends
// before any of its workers joined, and with ErrNoSlurmJob when no job is
// left to bring more; and when ctx is done, with the states squeue gives
// for the jobs (PENDING (Resources), ...).
func (c *SlurmCluster) WaitForWorkers(ctx context.Context, n int) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var lastPoll time.Time
	for {
		if len(c.server.Status().Workers) >= n {
			c.noteJoined()
			return nil
		}
		if time.Since(lastPoll) >= c.opts.PollInterval {
			lastPoll = time.Now()
			if err := c.refresh(ctx); err != nil {
				if ctx.Err() != nil {
					return c.waitError(n, ctx.Err())
				}
				return err
			}
			if c.liveJobs() == 0 && len(c.server.Status().Workers) < n {
				return c.waitError(n, ErrNoSlurmJob)
			}
		}
		select {
		case <-ctx.Done():
			return c.waitError(n, ctx.Err())
		case <-tick.C:
		}
	}
}

// ErrNoSlurmJob is the cause of the error of WaitForWorkers when no job of
// the cluster is queued or running: none was submitted (Scale), or all
// have ended.
var ErrNoSlurmJob = errors.New("no slurm job of the cluster is queued or running")

// liveJobs counts the jobs not known to have ended.
func (c *SlurmCluster) liveJobs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, j := range c.jobs {
		if !j.gone {
			n++
		}
	}
	return n
}

// waitError says how many workers joined and what squeue last said of
// the jobs.
func (c *SlurmCluster) waitError(n int, cause error) error {
	joined := len(c.server.Status().Workers)
	var states []string
	for _, j := range c.Jobs() {
		s := j.ID + " " + cmp.Or(j.State, "(not yet in squeue)")
		if j.Reason != "" && j.Reason != "None" {
			s += " (" + j.Reason + ")"
		}
		states = append(states, s)
	}
	return fmt.Errorf("distributed: slurm: %d of %d workers joined the scheduler at %s; jobs: %s: %w",
		joined, n, c.addr, cmp.Or(strings.Join(states, ", "), "none"), cause)
}

// Close closes the client, cancels the cluster's jobs with scancel and
// waits (at most a minute) until squeue shows them, and those Scale
// cancelled before, ended, then stops
// the scheduler and removes the directory StartSlurmCluster made (a Dir
// given in SlurmOptions stays).
func (c *SlurmCluster) Close() error {
	// A Scale under way finishes first (its commands are bounded), so that
	// no job it submits escapes the scancel below.
	c.scaleMu.Lock()
	defer c.scaleMu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	var ids []string
	for _, j := range c.jobs {
		ids = append(ids, j.id)
	}
	cancelled := c.cancelled
	c.jobs, c.cancelled = nil, nil
	c.mu.Unlock()
	var errs []error
	if c.client != nil {
		c.client.Close()
	}
	if len(ids)+len(cancelled) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		var err error
		if len(ids) > 0 {
			err = c.scancel(ctx, ids)
		}
		if err == nil {
			err = c.waitGone(ctx, append(ids, cancelled...))
		}
		if err != nil {
			errs = append(errs, err)
		}
		cancel()
	}
	if c.server != nil {
		errs = append(errs, c.server.Close())
	}
	if c.ownDir && c.dir != "" {
		errs = append(errs, os.RemoveAll(c.dir))
	}
	return errors.Join(errs...)
}

// waitGone waits until squeue lists none of ids, or lists them only as
// ended.
func (c *SlurmCluster) waitGone(ctx context.Context, ids []string) error {
	for {
		q, err := c.squeue(ctx, ids)
		if err != nil {
			return err
		}
		var left []string
		for id, s := range q {
			// COMPLETING: the job's processes are still being killed.
			if !slurmFinal[s.state] || s.state == "COMPLETING" {
				left = append(left, id+" "+s.state)
			}
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			slices.Sort(left)
			return fmt.Errorf("distributed: slurm: jobs still in squeue after scancel: %s: %w", strings.Join(left, ", "), ctx.Err())
		case <-time.After(min(c.opts.PollInterval, time.Second)):
		}
	}
}
