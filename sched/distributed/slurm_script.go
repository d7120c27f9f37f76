package distributed

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The options of a SlurmCluster, checked and completed, and the job script
// they make: slurmScript is a pure function of its parameters, tested
// against a golden file (testdata/slurm_job.golden).

// check reports the first option of o that is out of range or would
// break the job script.
func (o *SlurmOptions) check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("distributed: SlurmOptions: "+format, a...)
	}
	switch {
	case o.Workers < 0:
		return bad("Workers %d is negative", o.Workers)
	case o.WorkersPerJob < 0:
		return bad("WorkersPerJob %d is negative", o.WorkersPerJob)
	case o.Cores < 0:
		return bad("Cores %d is negative", o.Cores)
	case o.Memory < 0 || o.WorkerMemoryLimit < 0:
		return bad("Memory %d or WorkerMemoryLimit %d is negative", o.Memory, o.WorkerMemoryLimit)
	case o.Walltime < 0:
		return bad("Walltime %v is negative", o.Walltime)
	case o.JobName != "" && !slurmNameOK(o.JobName):
		return bad("JobName %q: want letters, digits, '.', '_' and '-' only", o.JobName)
	}
	for what, v := range map[string]string{"Partition": o.Partition, "Account": o.Account} {
		if strings.ContainsAny(v, " \t\r\n'\"\\$`") {
			return bad("%s %q has blanks or shell characters", what, v)
		}
	}
	for _, d := range o.Directives {
		if d = strings.TrimSpace(d); d == "" || strings.ContainsAny(d, "\r\n") {
			return bad("directive %q: want one option such as --gres=gpu:1", d)
		}
	}
	return nil
}

// defaults checks o and fills in its defaults.
func (o *SlurmOptions) defaults() error {
	if err := o.check(); err != nil {
		return err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("distributed: SlurmOptions: "+format, a...)
	}
	if o.WorkersPerJob == 0 {
		o.WorkersPerJob = 1
	}
	if o.Cores == 0 {
		o.Cores = o.WorkersPerJob
	}
	if o.WorkerMemoryLimit == 0 && o.Memory > 0 {
		o.WorkerMemoryLimit = o.Memory / int64(o.WorkersPerJob)
	}
	if o.JobName == "" {
		o.JobName = "tessera"
	}
	if len(o.WorkerCommand) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return bad("the worker command: %v", err)
		}
		o.WorkerCommand = []string{exe}
	}
	if o.SchedulerHost == "" {
		h, err := os.Hostname()
		if err != nil {
			return bad("SchedulerHost: %v", err)
		}
		o.SchedulerHost = h
	}
	if o.Scheduler.Address == "" {
		o.Scheduler.Address = ":0"
	}
	if o.Scheduler.StatusAddress == "" {
		o.Scheduler.StatusAddress = "127.0.0.1:0"
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Minute
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.RetireTimeout == 0 {
		o.RetireTimeout = DefaultRetireTimeout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	return nil
}

// slurmNameOK reports whether s is a job name that is also safe in a
// worker's name and a shell word.
func slurmNameOK(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}

// slurmScriptParams is what the job script says.
type slurmScriptParams struct {
	opts      SlurmOptions
	scheduler string   // host:port
	sec       Security // the workers'
	tokenFile string
	logDir    string
}

func (c *SlurmCluster) scriptParams(workerSec Security) slurmScriptParams {
	return slurmScriptParams{opts: c.opts, scheduler: c.addr, sec: workerSec, tokenFile: c.tokenFile, logDir: filepath.Join(c.dir, "logs")}
}

// slurmScript writes the batch script of one job: the #SBATCH directives,
// the prologue, then WorkersPerJob workers in the background and a wait.
// scancel and the end of the time limit send SIGTERM to every process of
// the job; the trap passes it on for shells that do not.
func slurmScript(p slurmScriptParams) string {
	o := p.opts
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\n")
	dir := func(opt string) { fmt.Fprintf(&b, "#SBATCH %s\n", opt) }
	dir("--job-name=" + o.JobName)
	dir("--output=" + filepath.Join(p.logDir, "%x-%j.out"))
	dir("--nodes=1")
	dir("--ntasks=1")
	dir("--cpus-per-task=" + strconv.Itoa(o.Cores))
	if o.Memory > 0 {
		dir(fmt.Sprintf("--mem=%dM", (o.Memory+(1<<20)-1)>>20))
	}
	if o.Walltime > 0 {
		dir("--time=" + slurmDuration(o.Walltime))
	}
	if o.Partition != "" {
		dir("--partition=" + o.Partition)
	}
	if o.Account != "" {
		dir("--account=" + o.Account)
	}
	for _, d := range o.Directives {
		dir(strings.TrimSpace(d))
	}
	b.WriteString("# Written by tessera (distributed.SlurmCluster): each job runs its workers,\n")
	b.WriteString("# which join the scheduler below, until scancel or the time limit.\n")
	for _, l := range o.Prologue {
		b.WriteString(l)
		b.WriteString("\n")
	}
	b.WriteString("trap 'kill -TERM $(jobs -p) 2>/dev/null; wait; exit 0' TERM INT\n")
	threads := max(1, o.Cores/o.WorkersPerJob)
	for i := range o.WorkersPerJob {
		args := slices.Clone(o.WorkerCommand)
		args = append(args, "tessera-worker", "-scheduler", p.scheduler)
		words := make([]string, 0, len(args)+24)
		for _, a := range args {
			words = append(words, shellQuote(a))
		}
		// The name holds the job's id, which only the job knows.
		words = append(words, "-name", `"`+o.JobName+`-${SLURM_JOB_ID}-`+strconv.Itoa(i)+`"`)
		flag := func(name, v string) { words = append(words, name, shellQuote(v)) }
		flag("-threads", strconv.Itoa(threads))
		if o.WorkerMemoryLimit > 0 {
			flag("-memory-limit", strconv.FormatInt(o.WorkerMemoryLimit, 10))
		}
		if r := resourceFlagString(o.Resources); r != "" {
			flag("-resources", r)
		}
		if o.SpillDir != "" {
			flag("-spill-dir", o.SpillDir)
		}
		for _, d := range o.DataDirs {
			flag("-data-dir", d)
		}
		if p.sec.TLS() {
			flag("-tls-ca", p.sec.CAFile)
			flag("-tls-cert", p.sec.CertFile)
			flag("-tls-key", p.sec.KeyFile)
			if p.sec.ServerName != "" {
				flag("-tls-server-name", p.sec.ServerName)
			}
		}
		if p.tokenFile != "" {
			flag("-token-file", p.tokenFile)
		}
		if o.Insecure {
			words = append(words, "-insecure")
		}
		b.WriteString(strings.Join(words, " "))
		b.WriteString(" &\n")
	}
	b.WriteString("wait\n")
	return b.String()
}

// slurmDuration writes d as --time takes it: [D-]HH:MM:SS.
func slurmDuration(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	days, s := s/86400, s%86400
	hms := fmt.Sprintf("%02d:%02d:%02d", s/3600, s%3600/60, s%60)
	if days > 0 {
		return strconv.FormatInt(days, 10) + "-" + hms
	}
	return hms
}

// shellQuote quotes s as one shell word; words of safe characters only
// are left bare.
func shellQuote(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
