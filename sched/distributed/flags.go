package distributed

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The command-line flags of `tessera scheduler` and `tessera worker`, here
// so that the tessera command and a user's binary started as
// `myprog tessera-worker ...` (MaybeWorker) parse them identically.

// tokenEnv is the environment variable that holds the cluster token when no
// -token-file is given.
const tokenEnv = "TESSERA_TOKEN"

// securityFlags defines the flags of Security on fs: -tls-ca, -tls-cert,
// -tls-key, -tls-server-name and -token-file (the token comes from the
// TESSERA_TOKEN environment variable without it). The returned function,
// called after fs.Parse, builds the Security; insecure reports -insecure,
// without which listening beyond loopback needs TLS and a token.
func securityFlags(fs *flag.FlagSet) (build func() (Security, error), insecure *bool) {
	ca := fs.String("tls-ca", "", "PEM `file` of the CA that signs every peer's certificate (mutual TLS; with -tls-cert and -tls-key)")
	cert := fs.String("tls-cert", "", "PEM certificate `file` of this process")
	key := fs.String("tls-key", "", "PEM private key `file` of -tls-cert")
	name := fs.String("tls-server-name", "", "`name` checked in the certificates of the servers dialed (tessera for certificates from tessera certs); default the dialed host")
	tokenFile := fs.String("token-file", "", "`file` holding the cluster token; default the "+tokenEnv+" environment variable")
	insecure = fs.Bool("insecure", false, "listen beyond loopback without TLS and a token: anyone who reaches the port can run tasks or read values (refused without this flag)")
	return func() (Security, error) {
		sec := Security{CAFile: *ca, CertFile: *cert, KeyFile: *key, ServerName: *name}
		if sec.TLS() && (sec.CAFile == "" || sec.CertFile == "" || sec.KeyFile == "") {
			return Security{}, errors.New("-tls-ca, -tls-cert and -tls-key go together: give all three or none")
		}
		if *tokenFile != "" {
			b, err := os.ReadFile(*tokenFile)
			if err != nil {
				return Security{}, fmt.Errorf("-token-file: %w", err)
			}
			sec.Token = strings.TrimSpace(string(b))
			if sec.Token == "" {
				return Security{}, fmt.Errorf("-token-file %s is empty", *tokenFile)
			}
		} else {
			sec.Token = strings.TrimSpace(os.Getenv(tokenEnv))
		}
		return sec, nil
	}, insecure
}

// SchedulerFlags defines the flags of `tessera scheduler` on fs and returns
// the function that, after fs.Parse, builds its SchedulerOptions.
func SchedulerFlags(fs *flag.FlagSet) func() (SchedulerOptions, error) {
	addr := fs.String("address", ":8786", "`host:port` of the control plane (workers and clients dial it)")
	status := fs.String("status", ":8787", "`host:port` of the HTTP status endpoint (GET /status); empty for none")
	failures := fs.Int("allowed-failures", 3, "workers that may die running one task before it is the job's error")
	saturation := fs.Float64("worker-saturation", 2, "root tasks per worker thread queued at most")
	timeout := fs.Duration("worker-timeout", 10*time.Second, "a worker silent this long is lost")
	maxTasks := fs.Int("max-job-tasks", DefaultMaxJobTasks, "tasks one job may have; a larger job fails at once")
	maxBytes := fs.String("max-job-bytes", "4GiB", "bytes of task definitions one job may send, e.g. 512MiB; a larger job fails at once")
	sec, insecure := securityFlags(fs)
	return func() (SchedulerOptions, error) {
		s, err := sec()
		if err != nil {
			return SchedulerOptions{}, err
		}
		if *failures < 1 {
			return SchedulerOptions{}, fmt.Errorf("-allowed-failures %d: want at least 1", *failures)
		}
		if !(*saturation > 0) || math.IsInf(*saturation, 0) {
			return SchedulerOptions{}, fmt.Errorf("-worker-saturation %v: want a positive number", *saturation)
		}
		if *timeout <= 0 {
			return SchedulerOptions{}, fmt.Errorf("-worker-timeout %v: want a positive duration", *timeout)
		}
		if *maxTasks <= 0 {
			return SchedulerOptions{}, fmt.Errorf("-max-job-tasks %d: want a positive number", *maxTasks)
		}
		jobBytes, err := parseSizeFlag(*maxBytes)
		if err != nil || jobBytes <= 0 {
			return SchedulerOptions{}, fmt.Errorf("-max-job-bytes %q: want a positive size such as 4GiB", *maxBytes)
		}
		return SchedulerOptions{
			Address: *addr, StatusAddress: *status, Security: s,
			AllowedFailures: *failures, WorkerSaturation: *saturation, WorkerTimeout: *timeout,
			MaxJobTasks: *maxTasks, MaxJobBytes: jobBytes, Insecure: *insecure,
		}, nil
	}
}

// WorkerFlags defines the flags of `tessera worker` (and of a user's
// binary started as `myprog tessera-worker`) on fs and returns the function
// that, after fs.Parse, builds its WorkerOptions.
func WorkerFlags(fs *flag.FlagSet) func() (WorkerOptions, error) {
	sched := fs.String("scheduler", "", "`host:port` of the scheduler (required)")
	listen := fs.String("listen", "", "`host:port` where the data plane listens; default a free port (:0)")
	adv := fs.String("advertise", "", "`host:port` peers dial for data; default the listen address, its host the interface that reaches the scheduler")
	name := fs.String("name", "", "worker name for status and logs; default host:pid")
	threads := fs.Int("threads", 0, "tasks run at once; default the number of CPUs")
	res := fs.String("resources", "", "resources offered, e.g. GPU=1,MEM=2")
	mem := fs.String("memory-limit", "", "bytes of values held in memory, e.g. 4GiB; above 60% of it values spill to disk (default no limit)")
	spill := fs.String("spill-dir", "", "`directory` for spilled values; default a new one under the system's temporary directory")
	connect := fs.Duration("connect-timeout", 30*time.Second, "how long to wait for the scheduler, at start and after losing it")
	var dataDirs []string
	fs.Func("data-dir", "`directory` whose files tasks may read and write, repeatable; without it tasks may use no file (-data-dir / allows all)", func(s string) error {
		if s == "" {
			return errors.New("empty directory")
		}
		dataDirs = append(dataDirs, s)
		return nil
	})
	sec, insecure := securityFlags(fs)
	return func() (WorkerOptions, error) {
		s, err := sec()
		if err != nil {
			return WorkerOptions{}, err
		}
		if *sched == "" {
			return WorkerOptions{}, errors.New("-scheduler HOST:PORT is required")
		}
		if *threads < 0 {
			return WorkerOptions{}, fmt.Errorf("-threads %d: want a positive number", *threads)
		}
		r, err := parseResourceFlag(*res)
		if err != nil {
			return WorkerOptions{}, fmt.Errorf("-resources: %w", err)
		}
		var limit int64
		if *mem != "" {
			if limit, err = parseSizeFlag(*mem); err != nil {
				return WorkerOptions{}, fmt.Errorf("-memory-limit: %w", err)
			}
		}
		if *connect <= 0 {
			return WorkerOptions{}, fmt.Errorf("-connect-timeout %v: want a positive duration", *connect)
		}
		return WorkerOptions{
			Scheduler: *sched, ListenAddress: *listen, AdvertiseAddress: *adv, Name: *name,
			Threads: *threads, Resources: r, MemoryLimit: limit, SpillDir: *spill,
			Security: s, ConnectTimeout: *connect, Insecure: *insecure,
			ConfineFiles: true, DataDirs: dataDirs,
		}, nil
	}
}

// parseResourceFlag parses resources written as NAME=AMOUNT pairs separated by
// commas, e.g. "GPU=1,MEM=2"; "" is none (nil). Amounts are finite and not
// negative; a name given twice is an error.
func parseResourceFlag(s string) (map[string]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		name, amount, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=AMOUNT", item)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(amount), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return nil, fmt.Errorf("%q: amount %q is not a finite number ≥ 0", item, amount)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q given twice", name)
		}
		out[name] = v
	}
	return out, nil
}

// resourceFlagString writes resources as parseResourceFlag reads them, names
// sorted.
func resourceFlagString(r map[string]float64) string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + "=" + strconv.FormatFloat(r[n], 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1e3, "kb": 1e3, "kib": 1 << 10,
	"m": 1e6, "mb": 1e6, "mib": 1 << 20,
	"g": 1e9, "gb": 1e9, "gib": 1 << 30,
	"t": 1e12, "tb": 1e12, "tib": 1 << 40,
}

// parseSizeFlag parses a size such as "4GiB", "512MiB", "2GB", "1.5e9" or
// "0": decimal units (kB, MB, GB, TB, or k, M, G, T) are powers of 1000,
// binary ones (KiB, MiB, GiB, TiB) powers of 1024, case ignored.
func parseSizeFlag(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := len(t)
	for i > 0 && (t[i-1] >= 'a' && t[i-1] <= 'z' || t[i-1] >= 'A' && t[i-1] <= 'Z') {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(t[i:])
	mult, ok := byteUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)", s, t[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsNaN(v) {
		return 0, fmt.Errorf("size %q: want a number ≥ 0 and a unit, e.g. 4GiB", s)
	}
	v *= mult
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return int64(v), nil
}

// SlurmFlags defines the flags of `tessera slurm` on fs and returns the
// function that, after fs.Parse, builds its SlurmOptions. Without -tls-*
// flags the certificates and the token are generated (SlurmOptions.Dir);
// -insecure runs without them.
func SlurmFlags(fs *flag.FlagSet) func() (SlurmOptions, error) {
	workers := fs.Int("workers", 1, "workers to start and wait for (whole jobs: rounded up to a multiple of -workers-per-job)")
	perJob := fs.Int("workers-per-job", 1, "worker processes per Slurm job, on one node")
	cores := fs.Int("cores", 0, "CPUs per job (--cpus-per-task), shared by its workers' threads; default -workers-per-job")
	mem := fs.String("memory", "", "memory per job (--mem), e.g. 16GiB; default the partition's")
	limit := fs.String("memory-limit", "", "bytes of values a worker holds before spilling, e.g. 4GiB; default -memory divided by -workers-per-job")
	walltime := fs.Duration("time", 0, "time limit per job (--time), e.g. 2h; default the partition's")
	partition := fs.String("partition", "", "Slurm `partition` (--partition)")
	account := fs.String("account", "", "Slurm `account` charged (--account)")
	name := fs.String("job-name", "tessera", "job `name` (--job-name), also the prefix of the workers' names")
	var directives, prologue, dataDirs []string
	fs.Func("directive", "one more #SBATCH `option`, e.g. --gres=gpu:1 (repeatable)", func(s string) error {
		directives = append(directives, s)
		return nil
	})
	fs.Func("prologue", "shell `line` run in each job before the workers, e.g. 'module load cuda' (repeatable)", func(s string) error {
		prologue = append(prologue, s)
		return nil
	})
	fs.Func("data-dir", "`directory` whose files the workers' tasks may use (repeatable); default none", func(s string) error {
		if s == "" {
			return errors.New("empty directory")
		}
		dataDirs = append(dataDirs, s)
		return nil
	})
	workerCmd := fs.String("worker-command", "", "`program` the jobs run as workers, with tessera-worker and its flags after it: your own binary that calls distributed.MaybeWorker, on a filesystem the nodes see; default this binary")
	res := fs.String("resources", "", "resources each worker offers, e.g. GPU=1")
	spill := fs.String("spill-dir", "", "`directory` where workers spill; default one under the node's $TMPDIR")
	dir := fs.String("dir", "", "`directory` for the job script, logs and generated certificates and token, on a filesystem the nodes see; default a new one under ~/.tessera/slurm, removed at exit")
	host := fs.String("host", "", "host `name` or address the workers dial to reach the scheduler; default this machine's name")
	addr := fs.String("address", ":0", "`host:port` the scheduler listens on")
	status := fs.String("status", "127.0.0.1:0", "`host:port` of the status endpoint and dashboard")
	startTimeout := fs.Duration("start-timeout", 10*time.Minute, "how long to wait for the workers to join, queueing included")
	sec, insecure := securityFlags(fs)
	return func() (SlurmOptions, error) {
		s, err := sec()
		if err != nil {
			return SlurmOptions{}, err
		}
		if !s.TLS() {
			if fs.Lookup("token-file").Value.String() != "" {
				return SlurmOptions{}, errors.New("-token-file without -tls-ca, -tls-cert and -tls-key: give all, or none to have them generated")
			}
			s = Security{} // generated (or -insecure); $TESSERA_TOKEN is not used alone
		}
		if *workers < 0 || *perJob < 1 || *cores < 0 {
			return SlurmOptions{}, fmt.Errorf("-workers %d, -workers-per-job %d, -cores %d: want -workers ≥ 0, -workers-per-job ≥ 1, -cores ≥ 0", *workers, *perJob, *cores)
		}
		if *walltime < 0 || *startTimeout <= 0 {
			return SlurmOptions{}, fmt.Errorf("-time %v, -start-timeout %v: want -time ≥ 0 and a positive -start-timeout", *walltime, *startTimeout)
		}
		o := SlurmOptions{
			Workers: *workers, WorkersPerJob: *perJob, Cores: *cores, Walltime: *walltime,
			Partition: *partition, Account: *account, JobName: *name,
			Directives: directives, Prologue: prologue, DataDirs: dataDirs, SpillDir: *spill,
			Dir: *dir, SchedulerHost: *host, StartTimeout: *startTimeout,
			Security: s, Insecure: *insecure,
			Scheduler: SchedulerOptions{Address: *addr, StatusAddress: *status},
		}
		if *mem != "" {
			if o.Memory, err = parseSizeFlag(*mem); err != nil {
				return SlurmOptions{}, fmt.Errorf("-memory: %w", err)
			}
		}
		if *limit != "" {
			if o.WorkerMemoryLimit, err = parseSizeFlag(*limit); err != nil {
				return SlurmOptions{}, fmt.Errorf("-memory-limit: %w", err)
			}
		}
		if o.Resources, err = parseResourceFlag(*res); err != nil {
			return SlurmOptions{}, fmt.Errorf("-resources: %w", err)
		}
		o.WorkerCommand = strings.Fields(*workerCmd)
		if err := o.check(); err != nil {
			return SlurmOptions{}, err
		}
		return o, nil
	}
}
