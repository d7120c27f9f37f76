package distributed_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched/distributed"
)

// slurmDouble is run by the workers of TestSlurmReal: this test binary,
// started by Slurm as `distributed.test tessera-worker ...`.
var slurmDouble = delayed.Fn1("slurmtest.double", func(x int64) int64 { return 2 * x })
var slurmAdd = delayed.Fn2("slurmtest.add", func(a, b int64) int64 { return a + b })

// slurmCount appends a line to the file named by its first argument (the
// runs are counted there) and returns i*i+1 for its second, i.
var slurmCount graph.Op = &graph.FuncOp{OpName: "slurmtest.count", Fn: func(_ context.Context, args []any) (any, error) {
	path, _ := args[0].(string)
	i, ok := args[1].(int)
	if !ok {
		return nil, fmt.Errorf("slurmtest.count: argument %T, want int", args[1])
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, i); err != nil {
		return nil, err
	}
	return i*i + 1, nil
}}

func init() { graph.Register(slurmCount) }

// countLines returns the number of lines of the file at path (0 when it
// does not exist).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestSlurmReal runs a SlurmCluster on a real Slurm: two jobs of one
// worker each, submitted with sbatch to the local cluster that
// .ci/slurm-up.sh starts (TESSERA_SLURM=1 says it is up), a delayed tree
// and a chunked sum computed on them, futures held on both workers, Scale
// down to one worker (which retires the other first: the futures survive,
// none computed again) and the sum again, then Close, after which squeue
// lists none of the cluster's jobs.
func TestSlurmReal(t *testing.T) {
	if os.Getenv("TESSERA_SLURM") == "" {
		t.Skip("skipping the real-Slurm test: TESSERA_SLURM is not set (.ci/run sets it once .ci/slurm-up.sh has a one-node Slurm running)")
	}
	if out, err := exec.Command("sinfo", "--noheader", "--format=%t").CombinedOutput(); err != nil {
		t.Skipf("skipping the real-Slurm test: sinfo fails (%v): %s", err, strings.TrimSpace(string(out)))
	}
	ctx := context.Background()
	c, err := distributed.StartSlurmCluster(ctx, distributed.SlurmOptions{
		Workers: 2, Cores: 1, Memory: 512 << 20, Walltime: 10 * time.Minute, JobName: "tessera-ci",
		Dir: t.TempDir(), StartTimeout: 2 * time.Minute, PollInterval: time.Second,
		Prologue: []string{`echo "job $SLURM_JOB_ID on $(hostname -s)"`},
	})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			c.Close()
		}
	}()
	jobs := c.Jobs()
	if len(jobs) != 2 {
		t.Fatalf("Jobs() = %+v; want 2", jobs)
	}
	for _, j := range jobs {
		if len(j.Workers) != 1 {
			t.Errorf("job %s has workers %q; want one", j.ID, j.Workers)
		}
	}

	// A tree: sum over i < 64 of 2i, summed pairwise.
	level := make([]delayed.Delayed[int64], 64)
	for i := range level {
		level[i] = slurmDouble(delayed.Lit(int64(i)))
	}
	for len(level) > 1 {
		next := make([]delayed.Delayed[int64], 0, len(level)/2)
		for i := 0; i < len(level); i += 2 {
			next = append(next, slurmAdd(level[i], level[i+1]))
		}
		level = next
	}
	v, err := level[0].Compute(ctx, delayed.WithScheduler(c))
	if want := int64(2 * 63 * 64 / 2); err != nil || v != want {
		t.Errorf("delayed tree = %v, %v; want %d", v, err, want)
	}

	// sum over i < n of i, in 16 blocks.
	const n = 1 << 16
	x := chunkarray.Arange(0, n, 1, nd.Int64, n/16)
	s, err := x.Sum().Compute(ctx, chunkarray.WithScheduler(c))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := nd.Values[int64](s); err != nil || len(got) != 1 || got[0] != n*(n-1)/2 {
		t.Errorf("chunked sum = %v, %v; want %d", got, err, n*(n-1)/2)
	}

	// Futures held on both workers (roots go to the least loaded worker,
	// so half of them to each), each computed once.
	runs := filepath.Join(t.TempDir(), "runs")
	cl := c.Client()
	futs := make([]*distributed.Future, 16)
	for i := range futs {
		futs[i] = cl.Submit(ctx, slurmCount, runs, i)
	}
	if err := cl.Wait(ctx, futs...); err != nil {
		t.Fatal(err)
	}
	if got := countLines(t, runs); got != len(futs) {
		t.Fatalf("%d runs of slurmtest.count, want %d", got, len(futs))
	}
	held := cl.Held()

	// Down to one worker: the newest job's worker is retired (its values
	// move to the other) and the job cancelled, and the sum runs again on
	// the worker left.
	if err := c.Scale(ctx, 1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(c.Server().Status().Workers) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d workers 2 minutes after Scale(1), want 1", len(c.Server().Status().Workers))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if left := c.Jobs(); len(left) != 1 || left[0].ID != jobs[0].ID {
		t.Errorf("jobs after Scale(1): %+v; want the first, %s", left, jobs[0].ID)
	}
	if got := cl.Held(); !slices.Equal(got, held) {
		t.Errorf("Held() after Scale(1) = %v, want %v", got, held)
	}
	vals, err := cl.Gather(ctx, futs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != i*i+1 {
			t.Errorf("future %d after Scale(1) = %v, want %d", i, v, i*i+1)
		}
	}
	if got := countLines(t, runs); got != len(futs) {
		t.Errorf("%d runs of slurmtest.count after Scale(1) and a gather, want %d (none again)", got, len(futs))
	}
	s, err = x.Sum().Compute(ctx, chunkarray.WithScheduler(c))
	if got, verr := nd.Values[int64](s); err != nil || verr != nil || len(got) != 1 || got[0] != n*(n-1)/2 {
		t.Errorf("chunked sum on one worker = %v, %v, %v; want %d", got, err, verr, n*(n-1)/2)
	}

	closed = true
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	// squeue without --jobs lists only jobs not yet ended.
	out, err := exec.Command("squeue", "--noheader", "--format=%i %T").CombinedOutput()
	if err != nil {
		t.Fatalf("squeue: %v: %s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == ids[0] || f[0] == ids[1]) {
			t.Errorf("squeue still lists job %s after Close: %s", f[0], line)
		}
	}
}
