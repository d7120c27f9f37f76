package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// Per-Future errors against a real cluster: a task that fails errs its
// own Future and its dependents', and no other. The oracle is the
// closed form i*i of squareBut, and the failing input chosen by the test.

// squareBut returns i*i for its first argument i, and for i equal to its
// second argument fails with an error wrapping schedtest.ErrBoom (a
// registered sentinel) naming i. With a third argument, a file path, it
// first waits for the file to exist (a gate the test opens).
var squareBut graph.Op = &graph.FuncOp{OpName: "distributed_test.futerr_square_but", Fn: func(ctx context.Context, args []any) (any, error) {
	if len(args) == 3 {
		if _, err := fileGate.Run(ctx, []any{args[2], nil}); err != nil {
			return nil, err
		}
	}
	i, bad := args[0].(int), args[1].(int)
	if i == bad {
		return nil, fmt.Errorf("%w: input %d refused", schedtest.ErrBoom, i)
	}
	return i * i, nil
}}

// flakyBut fails the first two runs for its argument i, and every run
// for i == 7; otherwise it returns i. Runs are counted per input, in this
// process (in-process workers).
var flakyBut graph.Op = &graph.FuncOp{OpName: "distributed_test.futerr_flaky_but", Fn: func(_ context.Context, args []any) (any, error) {
	i := args[0].(int)
	flakyButMu.Lock()
	flakyButRuns[i]++
	n := flakyButRuns[i]
	flakyButMu.Unlock()
	if i == 7 || n <= 2 {
		return nil, fmt.Errorf("flaky input %d, run %d", i, n)
	}
	return i, nil
}}

var (
	flakyButMu   sync.Mutex
	flakyButRuns = map[int]int{}
)

func init() {
	graph.Register(squareBut)
	graph.Register(flakyBut)
}

// wantTaskError checks that err is (or wraps) the *sched.TaskError of
// key, op squareBut, for input 7, wrapping ErrBoom.
func wantTaskError(t *testing.T, what string, err error, key graph.Key) {
	t.Helper()
	var te *sched.TaskError
	if !errors.As(err, &te) || te.Key != key || te.Op != squareBut.Name() ||
		!errors.Is(err, schedtest.ErrBoom) || !strings.Contains(err.Error(), "input 7 refused") {
		t.Errorf("%s: error %v (%T); want a *sched.TaskError for %s (op %s) wrapping ErrBoom, input 7", what, err, err, key, squareBut.Name())
	}
}

// checkSecondStage checks gs[i] = squareBut(fs[i]) + 1... computed as
// inc(fs[i]): the one on the erred fs[7] errs with fs[7]'s error, the
// others hold i*i+1.
func checkSecondStage(t *testing.T, ctx context.Context, cl *Client, fs, gs []*Future) {
	t.Helper()
	for i, g := range gs {
		if i == 7 {
			_, err := g.Result(ctx)
			wantTaskError(t, "the dependent of the erred future", err, fs[7].Key())
			if !errors.Is(err, ErrDependencyFailed) {
				t.Errorf("the dependent's error %v does not wrap ErrDependencyFailed", err)
			}
			continue
		}
		if v, err := g.Result(ctx); err != nil || v != i*i+1 {
			t.Errorf("inc(square(%d)) = %v, %v; want %d", i, v, err, i*i+1)
		}
	}
}

func TestFuturesPerFutureErrors(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()

	args := make([][]any, 20)
	for i := range args {
		args[i] = []any{i, 7}
	}
	fs := cl.Map(ctx, squareBut, args)
	if err := cl.Wait(ctx, fs...); err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		if i == 7 {
			wantTaskError(t, "the failing future", f.Err(), f.Key())
			if _, err := f.Result(ctx); err != f.Err() {
				t.Errorf("Result's error %v, want Err's %v", err, f.Err())
			}
			continue
		}
		if v, err := f.Result(ctx); err != nil || v != i*i {
			t.Errorf("square(%d) = %v, %v; want %d", i, v, err, i*i)
		}
	}
	// Gathering all of them fails with the failed one's error; skipping
	// errors gathers the others.
	if _, err := cl.Gather(ctx, fs...); err != fs[7].Err() {
		t.Errorf("Gather of all: %v, want fs[7]'s error %v", err, fs[7].Err())
	}
	vals, ok, err := cl.GatherSkip(ctx, fs...)
	if err != nil || len(vals) != 19 || len(ok) != 19 {
		t.Fatalf("GatherSkip: %d values of %d futures, %v; want 19", len(vals), len(ok), err)
	}
	for x, v := range vals {
		i := x
		if x >= 7 {
			i++
		}
		if ok[x] != fs[i] || v != i*i {
			t.Errorf("GatherSkip[%d] = %v of %s, want %d of %s", x, v, ok[x].Key(), i*i, fs[i].Key())
		}
	}
	// AsCompleted yields each one, the erred one too.
	n := 0
	for range cl.AsCompleted(fs...) {
		n++
	}
	if n != 20 {
		t.Errorf("AsCompleted yielded %d futures, want 20", n)
	}
	waitStored(t, c, 19) // the erred one holds nothing

	// A second stage on every future, sent once the first is over: the
	// one on the erred future errs with its error, the others run.
	gs := cl.Map(ctx, schedtest.Inc, oneEach(fs))
	checkSecondStage(t, ctx, cl, fs, gs)
	waitStored(t, c, 19+19)

	cl.Release(gs...)
	cl.Release(fs...)
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
	if h := cl.Held(); len(h) != 0 {
		t.Errorf("client still holds %v", h)
	}
}

// oneEach is the argument lists {fs[0]}, {fs[1]}, ...
func oneEach(fs []*Future) [][]any {
	out := make([][]any, len(fs))
	for i, f := range fs {
		out[i] = []any{f}
	}
	return out
}

// A second stage sent while the first still runs: the scheduler links
// its tasks to the first's, and the one linked to the task that fails
// errs there, with that task's error.
func TestFuturesErrorThroughLink(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()
	gate := filepath.Join(t.TempDir(), "open")
	args := make([][]any, 20)
	for i := range args {
		args[i] = []any{i, 7, gate}
	}
	fs := cl.Map(ctx, squareBut, args)
	gs := cl.Map(ctx, schedtest.Inc, oneEach(fs))
	// Both jobs run on the scheduler before any task of the first can
	// finish: the second links to the first's outputs.
	<-gs[0].st.started
	for _, f := range fs {
		if f.Err() != nil {
			t.Fatalf("%s failed before its gate opened: %v", f.Key(), f.Err())
		}
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	checkSecondStage(t, ctx, cl, fs, gs)
	wantTaskError(t, "the failing future", fs[7].Err(), fs[7].Key())
	cl.Release(gs...)
	cl.Release(fs...)
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
	if h := cl.Held(); len(h) != 0 {
		t.Errorf("client still holds %v", h)
	}
}

// Retries apply per task: inputs that fail twice succeed on their third
// run, and input 7, failing every run, errs after three runs, alone.
func TestFuturesRetriesPerTask(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()
	flakyButMu.Lock()
	clear(flakyButRuns)
	flakyButMu.Unlock()
	args := make([][]any, 10)
	for i := range args {
		args[i] = []any{i}
	}
	fs := cl.Map(ctx, flakyBut, args, Retries(2))
	if err := cl.Wait(ctx, fs...); err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		v, err := f.Result(ctx)
		if i == 7 {
			var te *sched.TaskError
			if !errors.As(err, &te) || te.Key != f.Key() || !strings.Contains(err.Error(), "flaky input 7, run 3") {
				t.Errorf("input 7: %v; want the TaskError of its third run", err)
			}
			continue
		}
		if err != nil || v != i {
			t.Errorf("input %d: %v, %v; want %d", i, v, err, i)
		}
	}
	flakyButMu.Lock()
	for i := range 10 {
		if flakyButRuns[i] != 3 {
			t.Errorf("input %d ran %d times, want 3", i, flakyButRuns[i])
		}
	}
	flakyButMu.Unlock()
	cl.Release(fs...)
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
}

// Compute (Get) does not keep going: a failing task fails it with that
// task's error, as before; Persist fails with the first error and holds
// nothing.
func TestComputeStillFailsFast(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client()
	g := graph.New(3)
	for i, k := range []graph.Key{"sq-0", "sq-7", "sq-3"} {
		if err := g.AddTask(k, squareBut, graph.Lit([]int{0, 7, 3}[i]), graph.Lit(7)); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddTask("inc-7", schedtest.Inc, graph.Ref("sq-7")); err != nil {
		t.Fatal(err)
	}
	keys := []graph.Key{"sq-0", "inc-7", "sq-3"}
	_, err := cl.Get(ctx, g, keys)
	wantTaskError(t, "Get", err, "sq-7")
	if errors.Is(err, ErrDependencyFailed) {
		t.Errorf("Get's error %v wraps ErrDependencyFailed; want the task's error as before", err)
	}
	_, err = cl.Persist(ctx, g, keys)
	wantTaskError(t, "Persist", err, "sq-7")
	if !errors.Is(err, ErrDependencyFailed) {
		t.Errorf("Persist's error %v (for inc-7) does not wrap ErrDependencyFailed", err)
	}
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
	if h := cl.Held(); len(h) != 0 {
		t.Errorf("client still holds %v", h)
	}
}

// A task that kills the worker process running it errs only its own
// Future (and its dependent's) once it has killed AllowedFailures
// workers; the job's other tasks run on the worker left. Resources keep
// the killer away from the others, so that nothing else is running where
// it strikes.
func TestFuturesKilledWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true,
		Resources: []map[string]float64{{"crash": 1}, {"safe": 1}},
		Scheduler: SchedulerOptions{AllowedFailures: 1}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()
	safe := map[string]float64{"safe": 1}
	g := graph.New(7)
	var keys []graph.Key
	for i := range 5 {
		k := graph.BlockKey("sq", i)
		nd := graph.Task(squareBut, graph.Lit(i), graph.Lit(-1))
		nd.Resources = safe
		if err := g.Set(k, nd); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	crash := graph.Task(die)
	crash.Resources = map[string]float64{"crash": 1}
	after := graph.Task(schedtest.Add, graph.Ref("crash"), graph.Ref(keys[0]))
	after.Resources = safe
	if err := g.Set("crash", crash); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("after", after); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, "crash", "after")
	fs := cl.submitGraph(ctx, g, keys, submitConfig{})
	if err := cl.Wait(ctx, fs...); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if v, err := fs[i].Result(ctx); err != nil || v != i*i {
			t.Errorf("square(%d) = %v, %v; want %d", i, v, err, i*i)
		}
	}
	var te *sched.TaskError
	var kw *KilledWorkerError
	if err := fs[5].Err(); !errors.As(err, &te) || te.Key != "crash" || te.Op != die.Name() || !errors.As(err, &kw) || kw.Failures != 1 {
		t.Errorf("crash: %v; want a TaskError for crash (op %s) wrapping a KilledWorkerError of 1 failure", err, die.Name())
	}
	if err := fs[6].Err(); !errors.As(err, &te) || te.Key != "crash" || !errors.As(err, &kw) || !errors.Is(err, ErrDependencyFailed) {
		t.Errorf("after: %v; want crash's error as a dependency's", err)
	}
	cl.Release(fs...)
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
	if h := cl.Held(); len(h) != 0 {
		t.Errorf("client still holds %v", h)
	}
}
