package distributed

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

// ClusterOptions configure StartCluster. Zero fields take the defaults
// written next to them.
type ClusterOptions struct {
	// Workers is how many workers start with the cluster; more join with
	// AddWorker.
	Workers int
	// ThreadsPerWorker: default max(1, NumCPU/Workers).
	ThreadsPerWorker int
	// MemoryLimit per worker, in bytes (WorkerOptions.MemoryLimit); 0: none.
	MemoryLimit int64
	// Resources[i] are what worker i offers (WorkerOptions.Resources);
	// optional, and may be shorter than Workers.
	Resources []map[string]float64
	// SpillDir is where workers spill; default a directory of their own
	// under os.TempDir().
	SpillDir string
	// DataDirs, when not nil, confines the files the worker processes'
	// tasks may use to these directories (WorkerOptions.ConfineFiles); an
	// empty, non-nil list allows none. In-process workers share the
	// caller's process and are not confined.
	DataDirs []string
	// Security is used by every process of the cluster: the scheduler (when
	// Scheduler.Security is zero), the workers and the client, each with
	// the certificate of its role when Security's is one of GenerateCerts'
	// role files (Security.ForRole): CertSecurity(dir, token) is enough.
	// Left zero, the cluster makes a random token of its own: its ports
	// are on loopback, but on a shared machine (an HPC login node) other
	// users reach loopback too. Cluster.ClientSecurity says what another
	// client needs; the dashboard's printed URL carries the token.
	Security Security
	// Scheduler configures the embedded scheduler; its Address defaults to
	// a free loopback port, and so does its StatusAddress, where the
	// dashboard is served (its URL is printed to Stderr).
	Scheduler SchedulerOptions
	// Quiet: do not print the dashboard's URL.
	Quiet bool
	// WorkerCommand is the command line of a worker process; default the
	// running binary itself, os.Executable(), which must call MaybeWorker
	// first thing in main. The worker's settings travel in environment
	// variables (TESSERA_WORKER and others), not arguments.
	WorkerCommand []string
	// Stderr receives the workers' standard output and error, every line
	// prefixed with the worker's name; default os.Stderr.
	Stderr io.Writer
	// InProcess runs the workers as goroutines of this process
	// (StartWorker) instead of processes: fast to start, for tests.
	InProcess bool
	// StartTimeout bounds the wait for the workers to register; default
	// 60 s (and the ctx given to StartCluster).
	StartTimeout time.Duration
}

// Cluster is a scheduler running in this process, workers, and a client
// connected to them. It implements sched.Scheduler.
type Cluster struct {
	opts   ClusterOptions
	server *Server
	client *Client
	out    *lockedWriter

	mu      sync.Mutex
	workers []*WorkerProcess
	next    int // number of the next worker's name
	closed  bool
}

var _ sched.Scheduler = (*Cluster)(nil)

// WorkerProcess is one worker that a Cluster started: a process, or with
// ClusterOptions.InProcess a set of goroutines (Pid is then this process's).
type WorkerProcess struct {
	Pid  int
	Name string

	cmd  *exec.Cmd
	tail *tailBuffer
	done chan struct{} // closed when the process exited or the worker stopped
	err  error         // why, after done

	w      *Worker // InProcess
	cancel context.CancelFunc
}

// Environment of the worker processes a Cluster starts; MaybeWorker reads
// it. The token travels as TESSERA_TOKEN, never on the command line.
const (
	envWorker     = "TESSERA_WORKER"
	envScheduler  = "TESSERA_WORKER_SCHEDULER"
	envName       = "TESSERA_WORKER_NAME"
	envThreads    = "TESSERA_WORKER_THREADS"
	envMemory     = "TESSERA_WORKER_MEMORY_LIMIT"
	envResources  = "TESSERA_WORKER_RESOURCES"
	envSpillDir   = "TESSERA_WORKER_SPILL_DIR"
	envTLSCA      = "TESSERA_WORKER_TLS_CA"
	envTLSCert    = "TESSERA_WORKER_TLS_CERT"
	envTLSKey     = "TESSERA_WORKER_TLS_KEY"
	envServerName = "TESSERA_WORKER_TLS_SERVER_NAME"
	envDataDirs   = "TESSERA_WORKER_DATA_DIRS" // os.PathListSeparator-joined; set: confined
)

// notWorkerMsg is what a binary started as a worker prints when it reaches
// StartCluster instead of MaybeWorker.
const notWorkerMsg = "this binary was started as a tessera worker but did not call distributed.MaybeWorker() at the start of main"

// LocalCluster starts a scheduler in this process and n worker processes on
// this machine, each the running binary itself (which must call
// MaybeWorker first thing in main), with the defaults of ClusterOptions.
func LocalCluster(n int) (*Cluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("distributed: LocalCluster(%d): want at least one worker", n)
	}
	return StartCluster(context.Background(), ClusterOptions{Workers: n})
}

// StartCluster starts a scheduler in this process, then opts.Workers
// workers, waits until every one has registered with the scheduler, and
// connects a client. ctx bounds the start only; the cluster runs until
// Close. A worker process that exits before registering fails the start,
// with the end of what it wrote to stderr in the error.
func StartCluster(ctx context.Context, opts ClusterOptions) (*Cluster, error) {
	if os.Getenv(envWorker) != "" {
		// A worker process whose main does not call MaybeWorker would
		// start a cluster of its own, recursively: stop here instead.
		fmt.Fprintln(os.Stderr, notWorkerMsg)
		os.Exit(3)
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("distributed: StartCluster: %d workers", opts.Workers)
	}
	if opts.ThreadsPerWorker <= 0 {
		opts.ThreadsPerWorker = max(1, runtime.NumCPU()/max(1, opts.Workers))
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 60 * time.Second
	}
	if !opts.InProcess && len(opts.WorkerCommand) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("distributed: StartCluster: the worker command: %w", err)
		}
		opts.WorkerCommand = []string{exe}
	}
	if opts.Security == (Security{}) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("distributed: StartCluster: a token: %w", err)
		}
		opts.Security.Token = hex.EncodeToString(b)
	}
	so := opts.Scheduler
	if so.Security == (Security{}) {
		so.Security = opts.Security.ForRole(RoleScheduler)
	}
	if so.StatusAddress == "" {
		so.StatusAddress = "127.0.0.1:0" // the dashboard, on loopback
	}
	srv, err := NewServer(so)
	if err != nil {
		return nil, err
	}
	c := &Cluster{opts: opts, server: srv, out: &lockedWriter{w: opts.Stderr}}
	if u := srv.DashboardURL(); u != "" && !opts.Quiet {
		fmt.Fprintf(c.out, "tessera: cluster dashboard at %s\n", u)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	var started []*WorkerProcess
	for i := 0; i < opts.Workers; i++ {
		var res map[string]float64
		if i < len(opts.Resources) {
			res = opts.Resources[i]
		}
		p, err := c.start(ctx, res)
		if err != nil {
			c.Close()
			return nil, err
		}
		started = append(started, p)
	}
	if err := c.waitRegistered(ctx, started); err != nil {
		c.Close()
		return nil, err
	}
	c.client, err = Connect(ctx, srv.Addr(), ClientOptions{Security: opts.Security.ForRole(RoleClient)})
	if err != nil {
		c.Close()
		return nil, err
	}
	// In-process workers share this process's op registry: ops registered
	// after package initialization reach them.
	c.client.lateOpsOK = opts.InProcess
	return c, nil
}

// Get runs g on the cluster (see Client.Get).
func (c *Cluster) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	return c.client.Get(ctx, g, keys)
}

// Persist computes keys of g and leaves their values on the workers
// (Client.Persist).
func (c *Cluster) Persist(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]graph.Node, error) {
	return c.client.Persist(ctx, g, keys)
}

var _ sched.Persister = (*Cluster)(nil)

// Client returns the cluster's client.
func (c *Cluster) Client() *Client { return c.client }

// Server returns the cluster's scheduler.
func (c *Cluster) Server() *Server { return c.server }

// ClientSecurity is what another client of the cluster (Connect) needs:
// the cluster's Security for the client role, with the token StartCluster
// made when none was given.
func (c *Cluster) ClientSecurity() Security { return c.opts.Security.ForRole(RoleClient) }

// Workers returns the workers the cluster started, including those that
// died since.
func (c *Cluster) Workers() []*WorkerProcess {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*WorkerProcess(nil), c.workers...)
}

// AddWorker starts one more worker offering res and waits until it has
// registered, so that a computation under way can use it.
func (c *Cluster) AddWorker(ctx context.Context, res map[string]float64) (*WorkerProcess, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.StartTimeout)
	defer cancel()
	p, err := c.start(ctx, res)
	if err != nil {
		return nil, err
	}
	if err := c.waitRegistered(ctx, []*WorkerProcess{p}); err != nil {
		p.stop(time.Second)
		return nil, err
	}
	return p, nil
}

// Close closes the client, stops the workers (SIGTERM, then SIGKILL for a
// process still there after 5 s) and the scheduler.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	ws := c.workers
	c.mu.Unlock()
	if c.client != nil {
		c.client.Close()
	}
	var wg sync.WaitGroup
	for _, p := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.stop(5 * time.Second)
		}()
	}
	wg.Wait()
	return c.server.Close()
}

// start starts one worker, process or goroutines, named worker-N.
func (c *Cluster) start(ctx context.Context, res map[string]float64) (*WorkerProcess, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("distributed: cluster closed")
	}
	name := "worker-" + strconv.Itoa(c.next)
	c.next++
	c.mu.Unlock()
	opts := WorkerOptions{
		Scheduler: c.server.Addr(), Name: name, Threads: c.opts.ThreadsPerWorker,
		Resources: res, MemoryLimit: c.opts.MemoryLimit, SpillDir: c.opts.SpillDir,
		Security:     c.opts.Security.ForRole(RoleWorker),
		ConfineFiles: c.opts.DataDirs != nil, DataDirs: c.opts.DataDirs,
	}
	p := &WorkerProcess{Name: name, done: make(chan struct{})}
	if c.opts.InProcess {
		opts.allOps = true
		wctx, cancel := context.WithCancel(context.Background())
		w, err := StartWorker(wctx, opts)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("distributed: start worker %s: %w", name, err)
		}
		p.Pid, p.w, p.cancel = os.Getpid(), w, cancel
		go func() {
			p.err = w.Wait()
			close(p.done)
		}()
	} else {
		p.tail = &tailBuffer{max: 8 << 10}
		cmd := exec.Command(c.opts.WorkerCommand[0], c.opts.WorkerCommand[1:]...)
		cmd.Env = workerEnv(os.Environ(), opts)
		out := &prefixWriter{dst: c.out, prefix: "[" + name + "] ", tail: p.tail}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = workerSysProcAttr()
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("distributed: start worker %s: %w", name, err)
		}
		p.cmd, p.Pid = cmd, cmd.Process.Pid
		go func() {
			p.err = cmd.Wait()
			out.flush()
			close(p.done)
		}()
	}
	c.mu.Lock()
	c.workers = append(c.workers, p)
	c.mu.Unlock()
	return p, nil
}

// waitRegistered waits until the scheduler lists every worker of ps, by
// name; a worker that stops first is an error.
func (c *Cluster) waitRegistered(ctx context.Context, ps []*WorkerProcess) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		names := map[string]bool{}
		for _, w := range c.server.Status().Workers {
			names[w.Name] = true
		}
		missing := 0
		for _, p := range ps {
			select {
			case <-p.done:
				return p.exitError()
			default:
			}
			if !names[p.Name] {
				missing++
			}
		}
		if missing == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("distributed: %d of %d workers did not register with the scheduler at %s: %w", missing, len(ps), c.server.Addr(), ctx.Err())
		case <-tick.C:
		}
	}
}

// exitError describes a worker that stopped before registering.
func (p *WorkerProcess) exitError() error {
	if p.cmd == nil {
		return fmt.Errorf("distributed: worker %s stopped before registering: %v", p.Name, p.err)
	}
	msg := strings.TrimSpace(p.tail.String())
	if msg == "" {
		msg = "(nothing)"
	}
	return fmt.Errorf("distributed: worker %s (pid %d, %s) exited before registering (%v); its output ends with:\n%s",
		p.Name, p.Pid, p.cmd.Path, p.err, msg)
}

// Kill stops the worker at once: SIGKILL for a process, Close for an
// in-process worker. The scheduler notices the broken connection.
func (p *WorkerProcess) Kill() error {
	if p.w != nil {
		err := p.w.Close()
		p.cancel()
		return err
	}
	return p.cmd.Process.Kill()
}

// Done is closed when the worker has stopped.
func (p *WorkerProcess) Done() <-chan struct{} { return p.done }

// stop stops the worker cleanly, or kills it after grace.
func (p *WorkerProcess) stop(grace time.Duration) {
	select {
	case <-p.done:
		return
	default:
	}
	if p.w != nil {
		p.cancel()
		p.w.Close()
		<-p.done
		return
	}
	if terminate(p.cmd.Process) != nil {
		p.cmd.Process.Kill()
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.done
	}
}

// workerEnv is env without the variables of the worker protocol, plus
// those that describe opts.
func workerEnv(env []string, o WorkerOptions) []string {
	out := make([]string, 0, len(env)+12)
	for _, kv := range env {
		if strings.HasPrefix(kv, "TESSERA_WORKER") || strings.HasPrefix(kv, tokenEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	set := func(k, v string) {
		if v != "" {
			out = append(out, k+"="+v)
		}
	}
	set(envWorker, "1")
	set(envScheduler, o.Scheduler)
	set(envName, o.Name)
	set(envThreads, strconv.Itoa(o.Threads))
	if o.MemoryLimit > 0 {
		set(envMemory, strconv.FormatInt(o.MemoryLimit, 10))
	}
	set(envResources, resourceFlagString(o.Resources))
	set(envSpillDir, o.SpillDir)
	if o.ConfineFiles {
		out = append(out, envDataDirs+"="+strings.Join(o.DataDirs, string(os.PathListSeparator)))
	}
	set(envTLSCA, o.Security.CAFile)
	set(envTLSCert, o.Security.CertFile)
	set(envTLSKey, o.Security.KeyFile)
	set(envServerName, o.Security.ServerName)
	set(tokenEnv, o.Security.Token)
	return out
}

// workerFromEnv reads the WorkerOptions that workerEnv wrote.
func workerFromEnv() (WorkerOptions, error) {
	o := WorkerOptions{
		Scheduler: os.Getenv(envScheduler),
		Name:      os.Getenv(envName),
		SpillDir:  os.Getenv(envSpillDir),
		Security: Security{
			CAFile: os.Getenv(envTLSCA), CertFile: os.Getenv(envTLSCert), KeyFile: os.Getenv(envTLSKey),
			ServerName: os.Getenv(envServerName), Token: os.Getenv(tokenEnv),
		},
	}
	if o.Scheduler == "" {
		return o, fmt.Errorf("%s is set but %s is not", envWorker, envScheduler)
	}
	if dirs, ok := os.LookupEnv(envDataDirs); ok {
		o.ConfineFiles = true
		if dirs != "" {
			o.DataDirs = strings.Split(dirs, string(os.PathListSeparator))
		}
	}
	var err error
	if s := os.Getenv(envThreads); s != "" {
		if o.Threads, err = strconv.Atoi(s); err != nil || o.Threads < 1 {
			return o, fmt.Errorf("%s=%q: want a positive number", envThreads, s)
		}
	}
	if s := os.Getenv(envMemory); s != "" {
		if o.MemoryLimit, err = strconv.ParseInt(s, 10, 64); err != nil || o.MemoryLimit < 0 {
			return o, fmt.Errorf("%s=%q: want a number of bytes", envMemory, s)
		}
	}
	if o.Resources, err = parseResourceFlag(os.Getenv(envResources)); err != nil {
		return o, fmt.Errorf("%s: %w", envResources, err)
	}
	return o, nil
}

// MaybeWorker makes the running binary a worker when it was started as
// one, and returns at once otherwise. Call it first thing in main (and in
// TestMain, for tests that start clusters), before flags are parsed:
//
//	func main() {
//		distributed.MaybeWorker()
//		...
//	}
//
// A binary is a worker when a Cluster started it (TESSERA_WORKER is set;
// its settings come from the environment), or when its first argument is
// "tessera-worker": then it takes the flags of `tessera worker` from the
// arguments after it, which is how a user's binary, whose registered ops
// the stock tessera command lacks, serves as a worker on other machines:
//
//	./myprog tessera-worker -scheduler HOST:8786 -threads 8
//
// The worker runs until SIGINT or SIGTERM (or until it loses the
// scheduler for good), and the process exits: status 0 after a signal, 1
// on error, 2 for bad flags. MaybeWorker never returns in a worker.
func MaybeWorker() {
	var opts WorkerOptions
	switch {
	case len(os.Args) > 1 && os.Args[1] == "tessera-worker":
		fs := flag.NewFlagSet(os.Args[0]+" tessera-worker", flag.ContinueOnError)
		parse := WorkerFlags(fs)
		if err := fs.Parse(os.Args[2:]); err != nil {
			os.Exit(2)
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(os.Stderr, "tessera-worker: unexpected arguments %q\n", fs.Args())
			os.Exit(2)
		}
		o, err := parse()
		if err != nil {
			fmt.Fprintf(os.Stderr, "tessera-worker: %v\n", err)
			os.Exit(2)
		}
		opts = o
	case os.Getenv(envWorker) != "":
		o, err := workerFromEnv()
		if err != nil {
			fmt.Fprintf(os.Stderr, "tessera worker: %v\n", err)
			os.Exit(2)
		}
		// The scheduler, in the parent, logs workers joining; a
		// cluster's workers speak up only about trouble.
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		opts = o
	default:
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := RunWorker(ctx, opts)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "tessera worker %s: %v\n", opts.Name, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// lockedWriter serialises whole lines from several workers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// prefixWriter writes complete lines to dst, each prefixed, and keeps the
// last bytes written in tail. exec calls Write from one goroutine at a time.
type prefixWriter struct {
	dst     io.Writer
	prefix  string
	tail    *tailBuffer
	partial []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.tail.Write(b)
	p.partial = append(p.partial, b...)
	var out []byte
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		out = append(out, p.prefix...)
		out = append(out, p.partial[:i+1]...)
		p.partial = p.partial[i+1:]
	}
	if len(out) > 0 {
		p.dst.Write(out)
	}
	if len(p.partial) == 0 {
		p.partial = nil
	}
	return len(b), nil
}

// flush writes an unterminated last line.
func (p *prefixWriter) flush() {
	if len(p.partial) > 0 {
		p.dst.Write(append(append([]byte(p.prefix), p.partial...), '\n'))
		p.partial = nil
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, b...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
