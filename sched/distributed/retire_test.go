package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// The ops of the retirement tests, registered so that worker processes
// (this test binary, in MaybeWorker) rebuild them.
var (
	// retireGen returns i*i+1 for its int argument i: the values held.
	retireGen graph.Op = &graph.FuncOp{OpName: "retire_test.gen", Fn: func(_ context.Context, args []any) (any, error) {
		i, ok := args[0].(int)
		if !ok {
			return nil, fmt.Errorf("retire_test.gen: argument %T, want int", args[0])
		}
		return i*i + 1, nil
	}}
	// retireGate waits until the file named by its first argument exists
	// (or its context ends) and returns twice its second, an int: a task
	// that runs until the test lets it finish.
	retireGate graph.Op = &graph.FuncOp{OpName: "retire_test.gate", Fn: func(ctx context.Context, args []any) (any, error) {
		path, _ := args[0].(string)
		i, _ := args[1].(int)
		for {
			if _, err := os.Stat(path); err == nil {
				return 2 * i, nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}}
)

func init() {
	graph.Register(retireGen)
	graph.Register(retireGate)
}

// heldHolders returns, for every key a session of s holds, the names of
// the workers holding its value.
func heldHolders(s *Server) map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for _, sess := range s.sessions {
		for k := range sess.held {
			src, ok := sess.source(k)
			if !ok || src.j.state[src.i] != tsMemory {
				out[k] = nil
				continue
			}
			for id := range src.j.holders(src.i) {
				out[k] = append(out[k], s.byID[id].reg.Name)
			}
			slices.Sort(out[k])
		}
	}
	return out
}

// workerStatus returns the status of the worker named name, and whether
// it is connected.
func workerStatus(s *Server, name string) (WorkerStatus, bool) {
	for _, w := range s.Status().Workers {
		if w.Name == name {
			return w, true
		}
	}
	return WorkerStatus{}, false
}

// waitFor polls cond every 10 ms until it holds, failing the test after
// a minute with what.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// runsOn counts the successful runs of prefix on worker id in s's task
// stream.
func runsOn(s *Server, prefix string, id int32) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs, _, _ := s.stream.since(0, 0)
	n := 0
	for _, r := range recs {
		if r.Prefix == prefix && r.Worker == id && !r.Failed {
			n++
		}
	}
	return n
}

// TestRetireWorkersKeepsHeldValues: three worker processes hold futures
// (submitted and scattered); retiring the one that is the only holder of
// some of them moves those values, the process exits with status 0, and
// every future is still gettable without any task running again.
func TestRetireWorkersKeepsHeldValues(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	var logs logBuffer
	c := startCluster(t, ClusterOptions{Workers: 3, ThreadsPerWorker: 1, Quiet: true, Scheduler: SchedulerOptions{Logger: logs.debugLogger()}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()
	const n = 12
	fs := make([]*Future, n)
	for i := range n {
		fs[i] = cl.Submit(ctx, retireGen, i)
	}
	scattered := []any{"a", "b", "c", "d", "e", "f"}
	sc, err := cl.Scatter(ctx, scattered, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Wait(ctx, fs...); err != nil {
		t.Fatal(err)
	}
	prefix := fs[0].Key().Prefix()
	runs := runsOf(c.Server(), prefix)
	if runs != n {
		t.Fatalf("%d runs of %s, want %d", runs, prefix, n)
	}
	held := cl.Held()

	// The victim: the worker that alone holds the most values.
	only := map[string]int{}
	for _, hs := range heldHolders(c.Server()) {
		if len(hs) == 1 {
			only[hs[0]]++
		}
	}
	var victim string
	for _, w := range c.Server().Status().Workers {
		if victim == "" || only[w.Name] > only[victim] {
			victim = w.Name
		}
	}
	if only[victim] == 0 {
		t.Fatalf("no worker is the only holder of a value: %v", heldHolders(c.Server()))
	}
	var proc *WorkerProcess
	for _, p := range c.Workers() {
		if p.Name == victim {
			proc = p
		}
	}

	if err := cl.RetireWorkers(ctx, victim); err != nil {
		t.Fatalf("RetireWorkers(%s): %v", victim, err)
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		t.Fatalf("the retired worker %s (pid %d) did not exit", victim, proc.Pid)
	}
	if proc.err != nil {
		t.Errorf("the retired worker %s exited with %v, want status 0", victim, proc.err)
	}
	if _, ok := workerStatus(c.Server(), victim); ok {
		t.Errorf("the scheduler still lists the retired worker %s", victim)
	}
	if l := logs.String(); !strings.Contains(l, "worker left") || strings.Contains(l, "worker lost") || strings.Contains(l, "recomputing") {
		t.Errorf("the scheduler's log, want the worker to have left, not been lost, and nothing recomputed:\n%s", l)
	}
	for k, hs := range heldHolders(c.Server()) {
		if len(hs) == 0 || slices.Contains(hs, victim) {
			t.Errorf("held key %s: holders %v after retiring %s, want others", k, hs, victim)
		}
	}
	if got := cl.Held(); !slices.Equal(got, held) {
		t.Errorf("Held() = %v after the retirement, want %v", got, held)
	}
	got, err := cl.Gather(ctx, fs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i*i+1 {
			t.Errorf("future %d = %v, want %d", i, v, i*i+1)
		}
	}
	gotSc, err := cl.Gather(ctx, sc...)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gotSc, scattered) {
		t.Errorf("scattered values = %v, want %v", gotSc, scattered)
	}
	if r := runsOf(c.Server(), prefix); r != runs {
		t.Errorf("%d runs of %s after the retirement and the gather, want %d (none again)", r, prefix, runs)
	}
}

// gateGraph is n tasks that wait for the file gate, each returning 2i,
// and their sum, "total".
func gateGraph(t *testing.T, gate string, n int) (*graph.Graph, int) {
	t.Helper()
	g := graph.New(n + 1)
	refs := make([]graph.Arg, n)
	want := 0
	for i := range n {
		k := graph.Key(fmt.Sprintf("gate-%08x", i))
		if err := g.AddTask(k, retireGate, graph.Lit(gate), graph.Lit(i)); err != nil {
			t.Fatal(err)
		}
		refs[i] = graph.Ref(k)
		want += 2 * i
	}
	if err := g.AddTask("total", schedtest.Add, refs...); err != nil {
		t.Fatal(err)
	}
	return g, want
}

// TestRetireWorkersDuringJob: a worker retired while a job runs, with one
// task running there and more queued: the queued ones go to the others,
// the running one finishes there, and no other task of the job runs
// there; the job's result is right and no task ran twice.
func TestRetireWorkersDuringJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 3, ThreadsPerWorker: 1, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	gate := filepath.Join(t.TempDir(), "gate")
	const n = 30
	g, want := gateGraph(t, gate, n)
	type result struct {
		v   []any
		err error
	}
	res := make(chan result, 1)
	go func() {
		v, err := c.Client().Get(ctx, g, []graph.Key{"total"})
		res <- result{v, err}
	}()
	victim := c.Workers()[0].Name
	var vid int32
	waitFor(t, "a task running on "+victim+" and one queued", func() bool {
		w, ok := workerStatus(c.Server(), victim)
		vid = w.ID
		return ok && w.Executing == 1 && w.Processing >= 2
	})
	retired := make(chan error, 1)
	go func() { retired <- c.Server().RetireWorkers(ctx, victim) }()
	waitFor(t, victim+" retiring with only its running task left", func() bool {
		w, ok := workerStatus(c.Server(), victim)
		return ok && w.Retiring && w.Processing == 1
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := <-res
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.v[0] != want {
		t.Errorf("total = %v, want %d", r.v[0], want)
	}
	if err := <-retired; err != nil {
		t.Fatalf("RetireWorkers: %v", err)
	}
	if got := runsOn(c.Server(), "gate", vid); got != 1 {
		t.Errorf("%d gate tasks ran on the retired worker, want 1 (the one running when the retirement began)", got)
	}
	if got := runsOf(c.Server(), "gate"); got != n {
		t.Errorf("%d gate tasks ran, want %d (none twice)", got, n)
	}
	p := c.Workers()[0]
	<-p.Done()
	if p.err != nil {
		t.Errorf("the retired worker exited with %v, want status 0", p.err)
	}
}

// TestRetireWorkersRefused: retiring every worker, or one that is not
// connected, is refused before anything changes.
func TestRetireWorkersRefused(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := []string{c.Workers()[0].Name, c.Workers()[1].Name}
	for _, tc := range []struct {
		name    string
		retire  func() error
		workers []string
		want    error
	}{
		{"server, all", func() error { return c.Server().RetireWorkers(ctx, names...) }, names, ErrNoRecipient},
		{"client, all", func() error { return c.Client().RetireWorkers(ctx, names...) }, names, ErrNoRecipient},
		{"server, unknown", func() error { return c.Server().RetireWorkers(ctx, names[0], "nobody") }, nil, ErrUnknownWorker},
		{"client, unknown", func() error { return c.Client().RetireWorkers(ctx, "nobody") }, nil, ErrUnknownWorker},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.retire()
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want one wrapping %v", err, tc.want)
			}
			var re *RetireError
			if !errors.As(err, &re) {
				t.Fatalf("err = %T %v, want a *RetireError", err, err)
			}
			st := c.Server().Status()
			if len(st.Workers) != 2 {
				t.Fatalf("%d workers after a refused retirement, want 2", len(st.Workers))
			}
			for _, w := range st.Workers {
				if w.Retiring {
					t.Errorf("worker %s retiring after a refused retirement", w.Name)
				}
			}
		})
	}
	// The cluster still computes.
	g := graph.New(1)
	if err := g.AddTask("x", schedtest.Add, graph.Lit(1), graph.Lit(2)); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, g, []graph.Key{"x"}); err != nil || v[0] != 3 {
		t.Errorf("1+2 after the refusals = %v, %v; want 3", v, err)
	}
}

// TestRetireWorkersGivenUp: a retirement whose ctx ends while a task
// still runs on the worker is given up with an error saying so; the
// worker works on and is given tasks again.
func TestRetireWorkersGivenUp(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 3, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	victim := c.Workers()[0].Name

	// A context already cancelled: marked, then given up at once.
	done, stop := context.WithCancel(ctx)
	stop()
	err := c.Server().RetireWorkers(done, victim)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("RetireWorkers with a cancelled context: %v, want context.Canceled", err)
	}
	if w, ok := workerStatus(c.Server(), victim); !ok || w.Retiring {
		t.Fatalf("after a given-up retirement: connected %v, retiring %v; want connected, not retiring", ok, w.Retiring)
	}

	gate := filepath.Join(t.TempDir(), "gate")
	g, want := gateGraph(t, gate, 30)
	res := make(chan error, 1)
	go func() {
		v, err := c.Client().Get(ctx, g, []graph.Key{"total"})
		if err == nil && v[0] != want {
			err = fmt.Errorf("total = %v, want %d", v[0], want)
		}
		res <- err
	}()
	var vid int32
	waitFor(t, "a task running on "+victim, func() bool {
		w, ok := workerStatus(c.Server(), victim)
		vid = w.ID
		return ok && w.Executing == 1
	})
	rctx, rcancel := context.WithCancel(ctx)
	retired := make(chan error, 1)
	go func() { retired <- c.Server().RetireWorkers(rctx, victim) }()
	waitFor(t, victim+" retiring with only its running task left", func() bool {
		w, ok := workerStatus(c.Server(), victim)
		return ok && w.Retiring && w.Processing == 1
	})
	rcancel()
	err = <-retired
	var re *RetireError
	if !errors.As(err, &re) || !errors.Is(err, context.Canceled) {
		t.Fatalf("RetireWorkers given up: %v, want a *RetireError wrapping context.Canceled", err)
	}
	if re.Running != 1 {
		t.Errorf("RetireError.Running = %d, want 1: %v", re.Running, err)
	}
	if w, ok := workerStatus(c.Server(), victim); !ok || w.Retiring {
		t.Fatalf("after the given-up retirement: connected %v, retiring %v; want connected, not retiring", ok, w.Retiring)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	before := runsOn(c.Server(), "gate", vid)
	// Used again: a new job's roots go to every idle worker.
	g2, want2 := gateGraph(t, gate, 30)
	v, err := c.Client().Get(ctx, g2, []graph.Key{"total"})
	if err != nil || v[0] != want2 {
		t.Fatalf("second job: %v, %v; want %d", v, err, want2)
	}
	if after := runsOn(c.Server(), "gate", vid); after <= before {
		t.Errorf("%d gate tasks ran on %s after the given-up retirement, want some", after-before, victim)
	}
}

// submitGen submits retireGen for 0..n-1 and waits for the futures.
func submitGen(t *testing.T, ctx context.Context, cl *Client, n int) []*Future {
	t.Helper()
	fs := make([]*Future, n)
	for i := range n {
		fs[i] = cl.Submit(ctx, retireGen, i)
	}
	if err := cl.Wait(ctx, fs...); err != nil {
		t.Fatal(err)
	}
	return fs
}

// checkGen gathers fs (from submitGen) and checks their values and that
// retireGen ran runs times in all.
func checkGen(t *testing.T, ctx context.Context, s *Server, cl *Client, fs []*Future, runs int) {
	t.Helper()
	got, err := cl.Gather(ctx, fs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i*i+1 {
			t.Errorf("future %d = %v, want %d", i, v, i*i+1)
		}
	}
	if r := runsOf(s, "retire_test.gen"); r != runs {
		t.Errorf("%d runs of retire_test.gen, want %d (none again)", r, runs)
	}
}

// TestClusterScaleDown: Cluster.Scale up to three workers, futures held
// on them, and down to one: the two stopped workers were retired (their
// values moved, none computed again).
func TestClusterScaleDown(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Scale(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if n := len(c.Server().Status().Workers); n != 3 {
		t.Fatalf("%d workers after Scale(3), want 3", n)
	}
	const n = 12
	fs := submitGen(t, ctx, c.Client(), n)
	for _, hs := range heldHolders(c.Server()) {
		if len(hs) != 1 {
			t.Fatalf("a held value has holders %v, want one", hs)
		}
	}
	if err := c.Scale(ctx, 1); err != nil {
		t.Fatal(err)
	}
	st := c.Server().Status()
	if len(st.Workers) != 1 || st.Workers[0].Name != "worker-0" {
		t.Fatalf("workers after Scale(1): %+v, want worker-0 alone", st.Workers)
	}
	for _, p := range c.Workers()[1:] {
		<-p.Done()
		if !p.w.Retired() || p.err != nil {
			t.Errorf("worker %s: retired %v, stopped with %v; want retired, nil", p.Name, p.w.Retired(), p.err)
		}
	}
	for k, hs := range heldHolders(c.Server()) {
		if !slices.Equal(hs, []string{"worker-0"}) {
			t.Errorf("held key %s: holders %v, want [worker-0]", k, hs)
		}
	}
	checkGen(t, ctx, c.Server(), c.Client(), fs, n)
	// Scale(0) cannot retire the last worker: it is stopped.
	if err := c.Scale(ctx, 0); err != nil {
		t.Fatal(err)
	}
	<-c.Workers()[0].Done()
}

// TestSlurmFakeScaleDownKeepsFutures: on the fake Slurm, scaling down
// from two jobs to one retires the worker of the cancelled job first:
// the futures it alone held are still there, none computed again.
func TestSlurmFakeScaleDownKeepsFutures(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	fakeSlurm(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	o := fakeSlurmOptions(t)
	o.Workers = 2
	c, err := StartSlurmCluster(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 12
	fs := submitGen(t, ctx, c.Client(), n)
	only := 0
	for _, hs := range heldHolders(c.Server()) {
		if slices.Equal(hs, []string{"tessera-101-0"}) {
			only++
		}
	}
	if only == 0 {
		t.Fatalf("the worker of job 101 holds no value alone: %v", heldHolders(c.Server()))
	}
	held := c.Client().Held()
	if err := c.Scale(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitWorkerCount(t, c.Server(), 1)
	for k, hs := range heldHolders(c.Server()) {
		if !slices.Equal(hs, []string{"tessera-100-0"}) {
			t.Errorf("held key %s: holders %v after Scale(1), want [tessera-100-0]", k, hs)
		}
	}
	if got := c.Client().Held(); !slices.Equal(got, held) {
		t.Errorf("Held() = %v after Scale(1), want %v", got, held)
	}
	checkGen(t, ctx, c.Server(), c.Client(), fs, n)
}
