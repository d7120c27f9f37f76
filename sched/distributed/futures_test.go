package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// Futures against a real cluster: values computed locally are the
// oracle; the scheduler's task counts say what was computed, and the
// workers' stored keys (their heartbeats) what stays on them.

func futuresClusters(t *testing.T) map[string]*Cluster {
	t.Helper()
	cs := map[string]*Cluster{"in-process": startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})}
	if !testing.Short() {
		cs["processes"] = startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, Quiet: true})
	}
	return cs
}

// tasksDone sums the tasks the workers of c have finished.
func tasksDone(c *Cluster) int64 {
	var n int64
	for _, w := range c.Server().Status().Workers {
		n += w.TasksDone
	}
	return n
}

// waitStored waits (20 s at most) until the workers of c store want keys
// in all, as their heartbeats say.
func waitStored(t *testing.T, c *Cluster, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var got int64
	for time.Now().Before(deadline) {
		got = 0
		for _, w := range c.Server().Status().Workers {
			got += w.StoredKeys
		}
		if got == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("workers store %d keys after 20 s, want %d", got, want)
}

// waitJobs waits (20 s at most) until the scheduler has want jobs.
func waitJobs(t *testing.T, c *Cluster, want int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if len(c.Server().Status().Jobs) == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("scheduler has %d jobs after 20 s, want %d: %+v", len(c.Server().Status().Jobs), want, c.Server().Status().Jobs)
}

func TestFutures(t *testing.T) {
	for name, c := range futuresClusters(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cl := c.Client()
			base := tasksDone(c)

			//   x = add(40, 2)   ys[i] = inc(i), i < 50
			//        \                 |
			//   z = add(x, ys...)  (futures as arguments)
			x := cl.Submit(ctx, schedtest.Add, 40, 2)
			args := make([][]any, 50)
			for i := range args {
				args[i] = []any{i}
			}
			ys := cl.Map(ctx, schedtest.Inc, args)
			zargs := []any{x}
			want := 42
			for i, y := range ys {
				zargs = append(zargs, y)
				want += i + 1
			}
			z := cl.Submit(ctx, schedtest.Add, zargs...)
			got, err := z.Result(ctx)
			if err != nil || got != want {
				t.Fatalf("z = %v, %v; want %d", got, err, want)
			}
			vals, err := cl.Gather(ctx, ys...)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if v != i+1 {
					t.Fatalf("ys[%d] = %v, want %d", i, v, i+1)
				}
			}
			if v, err := x.Result(ctx); err != nil || v != 42 {
				t.Fatalf("x = %v, %v; want 42", v, err)
			}
			// 52 tasks, each once: x, the ys and z, whatever was asked twice.
			if n := tasksDone(c) - base; n != 52 {
				t.Errorf("%d tasks computed, want 52", n)
			}
			// The same key again: a Future of the held value, not computed.
			x2 := cl.Submit(ctx, schedtest.Add, 40, 2)
			if x2.Key() != x.Key() {
				t.Fatalf("same op and args, keys %s and %s", x2.Key(), x.Key())
			}
			w := cl.Submit(ctx, schedtest.Inc, x2)
			if v, err := w.Result(ctx); err != nil || v != 43 {
				t.Fatalf("inc(x) = %v, %v; want 43", v, err)
			}
			if n := tasksDone(c) - base; n != 53 {
				t.Errorf("%d tasks computed, want 53 (x not again)", n)
			}
			waitStored(t, c, 53)
			// AsCompleted yields each Future once.
			var seen []graph.Key
			for f := range cl.AsCompleted(ys...) {
				seen = append(seen, f.Key())
			}
			if len(seen) != len(ys) {
				t.Errorf("AsCompleted yielded %d futures, want %d", len(seen), len(ys))
			}
			// Releasing every Future drops every value on the workers;
			// x is held by x and x2 and goes with the second.
			x.Release()
			x.Release() // a no-op
			cl.Release(append(ys, z, w)...)
			waitStored(t, c, 1)
			x2.Release()
			waitStored(t, c, 0)
			waitJobs(t, c, 0)
			if h := cl.Held(); len(h) != 0 {
				t.Errorf("client still holds %v", h)
			}
		})
	}
}

func TestFuturesErrors(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client()

	// A failing task: its Future's error is the task's, and so is that
	// of a submission that depends on it.
	bad := cl.Submit(ctx, schedtest.Fail, 1)
	_, err := bad.Result(ctx)
	var te *sched.TaskError
	if !errors.As(err, &te) || te.Key != bad.Key() || !errors.Is(err, schedtest.ErrBoom) {
		t.Fatalf("Result of a failing task: %v; want a *sched.TaskError for %s wrapping ErrBoom", err, bad.Key())
	}
	if !errors.Is(bad.Err(), schedtest.ErrBoom) {
		t.Errorf("Err() = %v, want ErrBoom", bad.Err())
	}
	dep := cl.Submit(ctx, schedtest.Inc, bad)
	if _, err := dep.Result(ctx); !errors.Is(err, schedtest.ErrBoom) {
		t.Errorf("a task on a failed Future: %v, want ErrBoom", err)
	}
	// Neither an Op nor a delayed value.
	if _, err := cl.Submit(ctx, 42).Result(ctx); err == nil {
		t.Error("Submit(42) succeeded")
	}
	bad.Release()
	dep.Release()

	// Retries: flaky fails twice, then returns 42.
	flakyCalls.Store(0)
	fl := cl.SubmitWith(ctx, []SubmitOption{Retries(3)}, flaky)
	if v, err := fl.Result(ctx); err != nil || v != 42 {
		t.Errorf("flaky with 3 retries: %v, %v; want 42", v, err)
	}
	fl.Release()

	// Cancel: a task that waits for a file that never comes.
	gate := filepath.Join(t.TempDir(), "never")
	slow := cl.Submit(ctx, fileGate, gate, 7)
	slow.Cancel()
	if _, err := slow.Result(ctx); !errors.Is(err, ErrCancelled) {
		t.Errorf("cancelled: %v, want ErrCancelled", err)
	}
	waitJobs(t, c, 0)
	waitStored(t, c, 0)

	// Cancel one Future of a Map whose job goes on for the others: it
	// is cancelled, they are computed, and its value does not stay.
	gate2 := filepath.Join(t.TempDir(), "open")
	ms := cl.Map(ctx, fileGate, [][]any{{gate2, 1}, {gate2, 2}, {gate2, 3}})
	ms[1].Cancel()
	if err := os.WriteFile(gate2, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if vals, err := cl.Gather(ctx, ms[0], ms[2]); err != nil || !slices.Equal(vals, []any{1, 3}) {
		t.Errorf("the others: %v, %v; want [1 3]", vals, err)
	}
	if !errors.Is(ms[1].Err(), ErrCancelled) {
		t.Errorf("the cancelled one: %v, want ErrCancelled", ms[1].Err())
	}
	waitStored(t, c, 2)
	cl.Release(ms...)
	waitStored(t, c, 0)
	waitJobs(t, c, 0)

	// A held key that this session does not hold is a bad graph for
	// the scheduler, not a crash.
	other, err := Connect(ctx, c.Server().Addr(), ClientOptions{Security: c.ClientSecurity()})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	x := cl.Submit(ctx, schedtest.Inc, 1)
	if err := cl.Wait(ctx, x); err != nil {
		t.Fatal(err)
	}
	g := graph.New(1)
	if err := g.Set(x.Key(), x.Node()); err != nil {
		t.Fatal(err)
	}
	var je *JobError
	if _, err := other.Get(ctx, g, []graph.Key{x.Key()}); !errors.As(err, &je) || je.Kind != "bad graph" {
		t.Errorf("another client's held key: %v, want a bad graph", err)
	}
	if _, err := other.Gather(ctx, x); err == nil {
		t.Error("Gather of another client's Future succeeded")
	}
	x.Release()
	waitStored(t, c, 0)
}

// A client that disconnects: the scheduler drops everything it held.
func TestFuturesDisconnect(t *testing.T) {
	for name, c := range futuresClusters(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cl, err := Connect(ctx, c.Server().Addr(), ClientOptions{Security: c.ClientSecurity()})
			if err != nil {
				t.Fatal(err)
			}
			vals := []any{1.5, "two", []float64{3, 4}}
			fs, err := cl.Scatter(ctx, vals, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cl.Gather(ctx, fs...)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(vals) {
				t.Errorf("scattered %v, gathered %v", vals, got)
			}
			sq := cl.Submit(ctx, schedtest.Inc, 9)
			if err := cl.Wait(ctx, sq); err != nil {
				t.Fatal(err)
			}
			waitStored(t, c, 4)
			// Broadcast: every worker gets a copy of each scattered value.
			if err := cl.Replicate(ctx, fs...); err != nil {
				t.Fatal(err)
			}
			waitStored(t, c, 4+3)
			runtime.KeepAlive(fs) // unreachable Futures are released
			runtime.KeepAlive(sq)
			cl.Close() // no Release: the session's end releases
			waitStored(t, c, 0)
			waitJobs(t, c, 0)
		})
	}
}

// Futures that become unreachable are released (runtime.AddCleanup).
func TestFuturesCollected(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client()
	func() {
		f := cl.Submit(ctx, schedtest.Inc, 100)
		if v, err := f.Result(ctx); err != nil || v != 101 {
			t.Fatalf("inc(100) = %v, %v", v, err)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for len(cl.Held()) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if h := cl.Held(); len(h) > 0 {
		t.Fatalf("unreachable Future still held: %v", h)
	}
	waitStored(t, c, 0)

	// A Future released and then collected counts once: the key stays
	// held by the other Future of it.
	keep := cl.Submit(ctx, schedtest.Inc, 200)
	func() {
		other := cl.Submit(ctx, schedtest.Inc, 200)
		other.Release()
	}()
	for range 5 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if v, err := keep.Result(ctx); err != nil || v != 201 {
		t.Fatalf("inc(200) = %v, %v; want 201", v, err)
	}
	if h := cl.Held(); !slices.Equal(h, []graph.Key{keep.Key()}) {
		t.Errorf("held %v, want [%s]", h, keep.Key())
	}
	keep.Release()
	waitStored(t, c, 0)
}

// Two jobs of one client computing the same key at once compute it once:
// the second links to the first's task while it runs.
func TestFuturesSharedRunningKey(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client()
	gate := filepath.Join(t.TempDir(), "open")
	//   slow = filegate(gate, 5)
	//     |
	//   a = inc(slow)          (job 1)
	//   b = graph {slow, inc(slow) under another key}   (job 2, a delayed-like Valuer)
	slow := cl.SubmitWith(ctx, []SubmitOption{WithKey("slow-0123456789abcdef")}, fileGate, gate, 5)
	<-slow.st.started
	// A second job whose graph contains slow's key as an ordinary task:
	// linked to the running one, not computed again.
	g := graph.New(2)
	if err := g.AddTask("slow-0123456789abcdef", fileGate, graph.Lit(gate), graph.Lit(5)); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTask("double-0123456789abcdef", schedtest.Add, graph.Ref("slow-0123456789abcdef"), graph.Ref("slow-0123456789abcdef")); err != nil {
		t.Fatal(err)
	}
	base := tasksDone(c)
	type res struct {
		v   []any
		err error
	}
	done := make(chan res, 1)
	go func() {
		v, err := cl.Get(ctx, g, []graph.Key{"double-0123456789abcdef"})
		done <- res{v, err}
	}()
	waitJobs(t, c, 2)
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || !slices.Equal(r.v, []any{10}) {
		t.Fatalf("double = %v, %v; want [10]", r.v, r.err)
	}
	if n := tasksDone(c) - base; n != 2 {
		t.Errorf("%d tasks computed, want 2 (slow once, double)", n)
	}
	slow.Release()
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
}

// Held values lost with a worker are recomputed from lineage by the job
// that computed them (retired since), and a later job using them waits
// for them: every value comes back right.
//
//	ys[i] = inc(i), i < 20, held on two workers; one worker killed
//	zs[i] = inc(ys[i])     (a later job on the held values)
func TestFuturesLostWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl := c.Client()
	args := make([][]any, 20)
	for i := range args {
		args[i] = []any{i}
	}
	ys := cl.Map(ctx, schedtest.Inc, args)
	if err := cl.Wait(ctx, ys...); err != nil {
		t.Fatal(err)
	}
	waitStored(t, c, 20)
	perWorker := map[int32]int64{}
	for _, w := range c.Server().Status().Workers {
		perWorker[w.ID] = w.StoredKeys
	}
	if len(perWorker) != 2 || perWorker[1] == 0 || perWorker[2] == 0 {
		t.Logf("held per worker: %v (the test wants both to hold some)", perWorker)
	}
	if err := c.Workers()[0].Kill(); err != nil {
		t.Fatal(err)
	}
	zs := cl.Map(ctx, schedtest.Inc, func() [][]any {
		out := make([][]any, len(ys))
		for i, y := range ys {
			out[i] = []any{y}
		}
		return out
	}())
	vals, err := cl.Gather(ctx, zs...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vals {
		if v != i+2 {
			t.Errorf("zs[%d] = %v, want %d", i, v, i+2)
		}
	}
	yv, err := cl.Gather(ctx, ys...)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range yv {
		if v != i+1 {
			t.Errorf("ys[%d] = %v, want %d", i, v, i+1)
		}
	}
	for _, f := range append(ys, zs...) {
		f.Release()
	}
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
}

// Releasing a key and submitting it again at once: the release and the
// new job travel on different streams and may arrive in either order;
// the value must be there for the new Future either way, and go with it.
func TestFuturesReleaseResubmit(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2, InProcess: true, Quiet: true})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cl := c.Client()
	var prev *Future
	for i := range 50 {
		if prev != nil {
			prev.Release() // its job's hold goes, while f's job may link to it
		}
		f := cl.Submit(ctx, schedtest.Inc, 7)
		if err := cl.Wait(ctx, f); err != nil {
			t.Fatal(err)
		}
		prev = f
		// The value from the scheduler's view (a job of the held key),
		// not from where it was first held.
		g := graph.New(1)
		if err := g.Set(f.Key(), f.Node()); err != nil {
			t.Fatal(err)
		}
		v, err := cl.Get(ctx, g, []graph.Key{f.Key()})
		if err != nil || v[0] != 8 {
			t.Fatalf("round %d: inc(7) = %v, %v; want 8", i, v, err)
		}
	}
	prev.Release()
	waitStored(t, c, 0)
	waitJobs(t, c, 0)
}
