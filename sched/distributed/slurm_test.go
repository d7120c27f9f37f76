package distributed

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

var updateGolden = flag.Bool("update-slurm-golden", false, "rewrite testdata/slurm_job.golden")

// TestSlurmScriptGolden compares a job script with every option set
// against testdata/slurm_job.golden (go test -run SlurmScriptGolden
// -update-slurm-golden rewrites it after a deliberate change).
func TestSlurmScriptGolden(t *testing.T) {
	o := SlurmOptions{
		WorkersPerJob: 2, Cores: 8, Memory: 16<<30 + 1, Walltime: 26*time.Hour + 30*time.Minute + 1,
		Partition: "gpu", Account: "proj-42", JobName: "tess",
		Directives:    []string{"--gres=gpu:2", "  --constraint=skylake  "},
		Prologue:      []string{"module load cuda/12", "source $HOME/venv/bin/activate"},
		WorkerCommand: []string{"apptainer", "exec", "/shared/img.sif", "/app/my prog"},
		Resources:     map[string]float64{"GPU": 1, "MEM": 2.5},
		DataDirs:      []string{"/scratch/data", "/home/o'brien/in"},
		SpillDir:      "/local/tmp",
	}
	if err := o.defaults(); err != nil {
		t.Fatal(err)
	}
	got := slurmScript(slurmScriptParams{
		opts: o, scheduler: "login1:40123", sec: RoleSecurity("/home/u/.tessera/slurm/x/tls", RoleWorker, "secret"),
		tokenFile: "/home/u/.tessera/slurm/x/token", logDir: "/home/u/.tessera/slurm/x/logs",
	})
	if strings.Contains(got, "secret") {
		t.Fatal("the token is written into the job script")
	}
	path := filepath.Join("testdata", "slurm_job.golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("job script differs from %s:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
	// The script is valid shell.
	if sh, err := exec.LookPath("bash"); err == nil {
		f := filepath.Join(t.TempDir(), "job.sh")
		os.WriteFile(f, []byte(got), 0o600)
		if out, err := exec.Command(sh, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v\n%s", err, out)
		}
	}
}

func TestSlurmOptionsRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    SlurmOptions
		want string
	}{
		{"negative workers", SlurmOptions{Workers: -1}, "Workers -1"},
		{"job name with blank", SlurmOptions{JobName: "my job"}, "JobName"},
		{"job name with shell", SlurmOptions{JobName: "x;rm"}, "JobName"},
		{"directive with newline", SlurmOptions{Directives: []string{"--gres=gpu:1\nrm -rf /"}}, "directive"},
		{"empty directive", SlurmOptions{Directives: []string{" "}}, "directive"},
		{"partition with quote", SlurmOptions{Partition: "a'b"}, "Partition"},
		{"negative memory", SlurmOptions{Memory: -5}, "Memory"},
		{"negative walltime", SlurmOptions{Walltime: -time.Second}, "Walltime"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.defaults()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("defaults() = %v; want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestSlurmHelpers(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{time.Second, "00:00:01"}, {90 * time.Minute, "01:30:00"}, {time.Minute + time.Millisecond, "00:01:01"},
		{24 * time.Hour, "1-00:00:00"}, {49*time.Hour + 5*time.Second, "2-01:00:05"},
	} {
		if got := slurmDuration(tc.d); got != tc.want {
			t.Errorf("slurmDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"/a/b-c_d.e": "/a/b-c_d.e", "a b": "'a b'", "o'brien": `'o'\''brien'`, "": "''", "$HOME": "'$HOME'",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	for in, want := range map[string]string{"123\n": "123", "77;cluster2\n": "77", "sbatch: warning\n9": "9"} {
		if got, err := parseSbatchID(in); got != want || err != nil {
			t.Errorf("parseSbatchID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Submitted batch job 12", "12_3"} {
		if got, err := parseSbatchID(in); err == nil {
			t.Errorf("parseSbatchID(%q) = %q, want an error", in, got)
		}
	}
	q := parseSqueue("12 RUNNING None\n13 PENDING Resources\n\n14 PENDING ReqNodeNotAvail, Reserved\n")
	if len(q) != 3 || q["12"].state != "RUNNING" || q["13"].reason != "Resources" || q["14"].reason != "ReqNodeNotAvail, Reserved" {
		t.Errorf("parseSqueue: %+v", q)
	}
}

// fakeSlurm writes sbatch, squeue and scancel into a directory put first
// on PATH: sbatch starts the job script at once in a session of its own
// (SLURM_JOB_ID set, output where its --output says), squeue reports a
// job RUNNING while its shell lives, scancel sends SIGTERM to the job's
// process group. FAKE_SBATCH_FAIL makes sbatch fail as for a bad account;
// FAKE_SBATCH_PENDING leaves jobs pending for ever; FAKE_SCANCEL_FAIL
// makes scancel fail as for another user's job. Every call is logged
// in CALL.log in the returned directory.
func fakeSlurm(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the fake Slurm reads /proc")
	}
	for _, tool := range []string{"sh", "bash", "setsid", "sed", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the fake Slurm needs %s: %v", tool, err)
		}
	}
	dir := t.TempDir()
	scripts := map[string]string{
		"sbatch": `#!/bin/sh
D=$(dirname "$0")
echo "$@" >>"$D/sbatch.log"
if [ -n "$FAKE_SBATCH_FAIL" ]; then
  echo "sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified" >&2
  exit 1
fi
for a in "$@"; do script=$a; done
n=$(cat "$D/next" 2>/dev/null || echo 100)
echo $((n + 1)) >"$D/next"
touch "$D/job-$n.known"
if [ -n "$FAKE_SBATCH_PENDING" ]; then
  touch "$D/job-$n.pending"
else
  name=$(sed -n 's/^#SBATCH --job-name=//p' "$script")
  out=$(sed -n 's/^#SBATCH --output=//p' "$script" | sed "s/%x/$name/; s/%j/$n/")
  SLURM_JOB_ID=$n setsid bash "$script" </dev/null >"$out" 2>&1 &
  echo $! >"$D/job-$n.pid"
fi
echo "$n;fake"
`,
		"squeue": `#!/bin/sh
D=$(dirname "$0")
echo "$@" >>"$D/squeue.log"
ids=
for a in "$@"; do case "$a" in --jobs=*) ids=$(echo "${a#--jobs=}" | tr , ' ');; esac; done
found=0
for id in $ids; do
  [ -f "$D/job-$id.known" ] || continue
  found=1
  if [ -f "$D/job-$id.pending" ]; then echo "$id PENDING Resources"; continue; fi
  if [ -f "$D/job-$id.cancelled" ]; then state=CANCELLED; else state=COMPLETED; fi
  st=
  [ -f "$D/job-$id.pid" ] && st=$(awk '{print $3}' "/proc/$(cat "$D/job-$id.pid")/stat" 2>/dev/null)
  if [ -n "$st" ] && [ "$st" != Z ]; then
    if [ "$state" = CANCELLED ]; then state=COMPLETING; else state=RUNNING; fi
  fi
  echo "$id $state None"
done
if [ $found = 0 ]; then echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; fi
`,
		"scancel": `#!/bin/sh
D=$(dirname "$0")
echo "$@" >>"$D/scancel.log"
if [ -n "$FAKE_SCANCEL_FAIL" ]; then
  echo "scancel: error: Kill job error on job id $1: Access/permission denied" >&2
  exit 1
fi
# As some versions do, fail for jobs that have ended.
st=0
for id in "$@"; do
  if [ -f "$D/job-$id.cancelled" ]; then
    echo "scancel: error: Kill job error on job id $id: Job/step already completing or completed" >&2
    st=1
  fi
done
for id in "$@"; do
  rm -f "$D/job-$id.pending"
  touch "$D/job-$id.cancelled"
  [ -f "$D/job-$id.pid" ] && kill -TERM "-$(cat "$D/job-$id.pid")" 2>/dev/null
done
exit $st
`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Cleanup(func() {
		// Whatever a failed test left running.
		ms, _ := filepath.Glob(filepath.Join(dir, "job-*.pid"))
		for _, m := range ms {
			if b, err := os.ReadFile(m); err == nil {
				exec.Command("kill", "-KILL", "--", "-"+strings.TrimSpace(string(b))).Run()
			}
		}
	})
	return dir
}

// logLines returns the lines of the fake's log of command name.
func logLines(t *testing.T, dir, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// fakeSlurmOptions are the options of the tests on the fake Slurm: the
// workers are this test binary (TestMain calls MaybeWorker).
func fakeSlurmOptions(t *testing.T) SlurmOptions {
	return SlurmOptions{
		Dir: t.TempDir(), SchedulerHost: "127.0.0.1", PollInterval: 20 * time.Millisecond,
		StartTimeout: 60 * time.Second, Quiet: true,
	}
}

// waitWorkerCount waits until the scheduler has n workers.
func waitWorkerCount(t *testing.T, s *Server, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(s.Status().Workers) != n {
		if time.Now().After(deadline) {
			t.Fatalf("the scheduler has %d workers after 60 s, want %d", len(s.Status().Workers), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSlurmFake runs a SlurmCluster on the fake Slurm: two jobs start,
// their workers join with generated TLS and token, a graph runs, Scale
// goes up to three and down to one, and Close cancels the last job.
func TestSlurmFake(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	fake := fakeSlurm(t)
	ctx := context.Background()
	o := fakeSlurmOptions(t)
	o.Workers = 2
	c, err := StartSlurmCluster(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()
	if !c.ClientSecurity().TLS() || c.ClientSecurity().Token == "" {
		t.Errorf("ClientSecurity %+v: want generated TLS and a token", c.ClientSecurity())
	}
	if _, err := os.Stat(filepath.Join(c.Dir(), "tls", "ca-key.pem")); !os.IsNotExist(err) {
		t.Errorf("the CA's key is still in %s/tls: %v", c.Dir(), err)
	}
	if st, err := os.Stat(filepath.Join(c.Dir(), "token")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	if sb := logLines(t, fake, "sbatch"); len(sb) != 2 || sb[0] != "--parsable "+filepath.Join(c.Dir(), "tessera-worker.sbatch") {
		t.Errorf("sbatch calls %q; want two of --parsable SCRIPT", sb)
	}
	jobs := c.Jobs()
	if len(jobs) != 2 || jobs[0].ID != "100" || jobs[1].ID != "101" || len(jobs[0].Workers) != 1 || jobs[0].Workers[0] != "tessera-100-0" {
		t.Errorf("Jobs() = %+v; want jobs 100 and 101 with workers tessera-100-0 and tessera-101-0", jobs)
	}

	g, root := schedtest.AddTree(64)
	got, err := c.Get(ctx, g, []graph.Key{root})
	if err != nil || got[0] != 64*65/2 {
		t.Fatalf("Get = %v, %v; want %d", got, err, 64*65/2)
	}

	if err := c.Scale(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitForWorkers(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.Scale(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// The newest jobs go first.
	if sc := logLines(t, fake, "scancel"); len(sc) != 1 || sc[0] != "102 101" {
		t.Errorf("scancel calls %q; want one of 102 101", sc)
	}
	waitWorkerCount(t, c.Server(), 1)
	if w := c.Server().Status().Workers; w[0].Name != "tessera-100-0" {
		t.Errorf("worker left: %s, want tessera-100-0", w[0].Name)
	}
	got, err = c.Get(ctx, g, []graph.Key{root})
	if err != nil || got[0] != 64*65/2 {
		t.Fatalf("Get after scaling down = %v, %v; want %d", got, err, 64*65/2)
	}

	closed = true
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if sc := logLines(t, fake, "scancel"); len(sc) != 2 || sc[1] != "100" {
		t.Errorf("scancel calls %q; want the second to cancel 100", sc)
	}
	// Every job's shell ends (Close waited for 100's; 101 and 102 were
	// cancelled earlier and their shells end once their workers have).
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range []string{"100", "101", "102"} {
		b, _ := os.ReadFile(filepath.Join(fake, "job-"+id+".pid"))
		for {
			st, _ := os.ReadFile("/proc/" + strings.TrimSpace(string(b)) + "/stat")
			if f := strings.Fields(string(st)); len(f) < 3 || f[2] == "Z" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("job %s (pid %s) still runs 30 s after Close", id, strings.TrimSpace(string(b)))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestSlurmFakeJobOfTwo: jobs of two workers each, one of which ends by
// itself (as at its time limit); Scale to the same number replaces it.
func TestSlurmFakeJobOfTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	fake := fakeSlurm(t)
	ctx := context.Background()
	o := fakeSlurmOptions(t)
	o.Workers, o.WorkersPerJob, o.Cores, o.JobName = 3, 2, 4, "pair"
	c, err := StartSlurmCluster(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Three workers take two jobs, which start four.
	waitWorkerCount(t, c.Server(), 4)
	names := map[string]int{}
	for _, w := range c.Server().Status().Workers {
		names[w.Name] = w.Threads
	}
	for _, n := range []string{"pair-100-0", "pair-100-1", "pair-101-0", "pair-101-1"} {
		if names[n] != 2 {
			t.Errorf("worker %s: threads %d (workers %v); want it with 4 cores / 2 workers = 2 threads", n, names[n], names)
		}
	}
	// Job 101 ends without the cluster asking.
	if out, err := exec.Command("scancel", "101").CombinedOutput(); err != nil {
		t.Fatalf("scancel 101: %v: %s", err, out)
	}
	waitWorkerCount(t, c.Server(), 2)
	if err := c.Scale(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitForWorkers(ctx, 4); err != nil {
		t.Fatal(err)
	}
	if sb := logLines(t, fake, "sbatch"); len(sb) != 3 {
		t.Errorf("sbatch calls %q; want a third for the replacement", sb)
	}
	var ids []string
	for _, j := range c.Jobs() {
		ids = append(ids, j.ID)
	}
	if strings.Join(ids, ",") != "100,102" {
		t.Errorf("jobs %v; want 100 and its replacement 102", ids)
	}
	g, root := schedtest.AddTree(64)
	got, err := c.Get(ctx, g, []graph.Key{root})
	if err != nil || got[0] != 64*65/2 {
		t.Fatalf("Get = %v, %v; want %d", got, err, 64*65/2)
	}
	// Waiting for more workers than the jobs bring, once every job has
	// ended, fails at once rather than at the deadline.
	if out, err := exec.Command("scancel", "100", "102").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v: %s", err, out)
	}
	waitWorkerCount(t, c.Server(), 0)
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := c.WaitForWorkers(wctx, 1); !errors.Is(err, ErrNoSlurmJob) {
		t.Errorf("WaitForWorkers with every job ended: %v; want ErrNoSlurmJob", err)
	}
}

// TestSlurmFakeErrors: sbatch failing, a job whose worker cannot start,
// a job that stays pending past the deadline, and no Slurm at all each
// give an error that says which.
func TestSlurmFakeErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	t.Run("sbatch fails", func(t *testing.T) {
		fakeSlurm(t)
		t.Setenv("FAKE_SBATCH_FAIL", "1")
		o := fakeSlurmOptions(t)
		o.Workers, o.Account = 1, "nope"
		_, err := StartSlurmCluster(ctx, o)
		var se *SlurmError
		if !errors.As(err, &se) || se.Command[0] != "sbatch" || !strings.Contains(se.Stderr, "Invalid account") {
			t.Fatalf("err = %v; want a *SlurmError of sbatch quoting its stderr", err)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("err = %v; want it to wrap sbatch's exit status 1", err)
		}
	})
	t.Run("worker cannot start", func(t *testing.T) {
		fake := fakeSlurm(t)
		o := fakeSlurmOptions(t)
		o.Workers = 1
		o.WorkerCommand = []string{"/bin/sh", "-c", "echo no such program: myprog >&2; exit 3"}
		_, err := StartSlurmCluster(ctx, o)
		var je *SlurmJobError
		if !errors.As(err, &je) || je.JobID != "100" || !strings.Contains(je.LogTail, "no such program: myprog") {
			t.Fatalf("err = %v; want a *SlurmJobError of job 100 quoting its log", err)
		}
		// The failed start cancelled what it had submitted.
		if sc := logLines(t, fake, "scancel"); len(sc) != 1 || sc[0] != "100" {
			t.Errorf("scancel calls %q; want one of 100", sc)
		}
	})
	t.Run("pending past the deadline", func(t *testing.T) {
		fake := fakeSlurm(t)
		t.Setenv("FAKE_SBATCH_PENDING", "1")
		o := fakeSlurmOptions(t)
		c, err := StartSlurmCluster(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Scale(ctx, 1); err != nil {
			t.Fatal(err)
		}
		// squeue's answer is known before the deadline, however short.
		if err := c.refresh(ctx); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		err = c.WaitForWorkers(wctx, 1)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "0 of 1 workers") || !strings.Contains(err.Error(), "100 PENDING (Resources)") {
			t.Fatalf("err = %v; want the deadline, 0 of 1 workers and job 100 PENDING (Resources)", err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if sc := logLines(t, fake, "scancel"); len(sc) != 1 || sc[0] != "100" {
			t.Errorf("scancel calls %q; want one of 100", sc)
		}
	})
	t.Run("no slurm", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		o := fakeSlurmOptions(t)
		o.Workers = 1
		_, err := StartSlurmCluster(ctx, o)
		if !errors.Is(err, exec.ErrNotFound) || !strings.Contains(err.Error(), "sbatch") {
			t.Fatalf("err = %v; want exec.ErrNotFound naming sbatch", err)
		}
	})
}

// TestSlurmScancel: scancel failing for jobs that have already ended is
// no error; failing for another reason is a *SlurmError.
func TestSlurmScancel(t *testing.T) {
	fake := fakeSlurm(t)
	os.WriteFile(filepath.Join(fake, "job-7.cancelled"), nil, 0o644)
	c := &SlurmCluster{}
	if err := c.scancel(context.Background(), []string{"7"}); err != nil {
		t.Errorf("scancel of an ended job: %v; want nil", err)
	}
	t.Setenv("FAKE_SCANCEL_FAIL", "1")
	err := c.scancel(context.Background(), []string{"8"})
	var se *SlurmError
	if !errors.As(err, &se) || se.Command[0] != "scancel" || !strings.Contains(se.Stderr, "permission denied") {
		t.Errorf("scancel refused: %v; want a *SlurmError quoting its stderr", err)
	}
	if sc := logLines(t, fake, "scancel"); len(sc) != 2 {
		t.Errorf("scancel calls %q; want 2", sc)
	}
}

// FuzzSlurmOutput: whatever sbatch and squeue print, parsing neither
// panics nor returns an id that is not a number.
func FuzzSlurmOutput(f *testing.F) {
	for _, s := range []string{"12\n", "77;c2\n", "", "x", "12 RUNNING None\n13 PENDING Resources", ";;\n\n", "1;", "\n1\n2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := parseSbatchID(s); err == nil {
			if _, perr := strconv.ParseUint(id, 10, 64); perr != nil {
				t.Errorf("parseSbatchID(%q) = %q, not a number", s, id)
			}
		}
		for id, q := range parseSqueue(s) {
			if id == "" || strings.ContainsAny(id, " \t\n") || strings.ContainsAny(q.state, " \t\n") {
				t.Errorf("parseSqueue(%q): id %q state %q", s, id, q.state)
			}
		}
	})
}
