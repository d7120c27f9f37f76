package distributed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// End-to-end tests: a scheduler, workers and clients over loopback, as
// they run in production, checked against closed forms.

// die exits the worker process that runs it, as a task that crashes its
// machine would; the tests run it only on worker processes.
var die graph.Op = &graph.FuncOp{OpName: "distributed_test.e2e_die", Fn: func(context.Context, []any) (any, error) {
	if os.Getenv(envWorker) == "" {
		panic("distributed_test.die run outside a worker process")
	}
	os.Exit(7)
	return nil, nil
}}

func init() { graph.Register(die) }

// fileGate returns its second argument once the file named by its first
// exists (or its context ends): a gate that a test opens for worker
// processes by creating the file.
var fileGate graph.Op = &graph.FuncOp{OpName: "distributed_test.e2e_filegate", Fn: func(ctx context.Context, args []any) (any, error) {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if _, err := os.Stat(args[0].(string)); err == nil {
			return args[1], nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}}

func init() { graph.Register(fileGate) }

// sleepSum is
//
//	sleep[0] ... sleep[n-1]     each Sleep(ms, i): i after ms milliseconds
//	      \       /
//	        sum = n(n-1)/2
func sleepSum(n, ms int) (*graph.Graph, graph.Key, int) {
	g := graph.New(n + 1)
	var refs []graph.Arg
	for i := 0; i < n; i++ {
		k := graph.BlockKey("sleep", i)
		if err := g.AddTask(k, schedtest.Sleep, graph.Lit(ms), graph.Lit(i)); err != nil {
			panic(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("sum", schedtest.Add, refs...); err != nil {
		panic(err)
	}
	return g, "sum", n * (n - 1) / 2
}

func TestSecurity(t *testing.T) {
	dir, foreign := filepath.Join(t.TempDir(), "ours"), filepath.Join(t.TempDir(), "foreign")
	for _, d := range []string{dir, foreign} {
		if err := GenerateCerts(d, nil, time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	sec := CertSecurity(dir, "s3cret")
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 2, InProcess: true, Security: sec})
	g, root := schedtest.AddTree(16)
	got, err := c.Get(context.Background(), g, []graph.Key{root})
	if err != nil || got[0] != 16*17/2 {
		t.Fatalf("over mutual TLS with a token: %v, %v; want %d", got, err, 16*17/2)
	}

	t.Run("client without token", func(t *testing.T) {
		noToken := sec
		noToken.Token = ""
		// Refused at Connect (its identity call), as Dask's Client
		// fails at construction.
		cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Security: noToken})
		if err == nil {
			cl.Close()
			t.Fatal("a client without the token connected")
		}
		if !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Connect without the token: %v, want ErrUnauthenticated", err)
		}
	})
	t.Run("client with wrong token", func(t *testing.T) {
		wrong := sec
		wrong.Token = "guess"
		cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Security: wrong})
		if err == nil {
			cl.Close()
			t.Fatal("a client with a wrong token connected")
		}
		if !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Connect with a wrong token: %v, want ErrUnauthenticated", err)
		}
	})
	t.Run("client with a foreign CA", func(t *testing.T) {
		start := time.Now()
		cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Security: CertSecurity(foreign, "s3cret")})
		if err == nil {
			cl.Close()
			t.Fatal("a client with certificates from a foreign CA connected")
		}
		if !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Connect with a foreign CA: %v (after %v), want ErrUnauthenticated", err, time.Since(start))
		}
	})
	t.Run("worker with a foreign CA", func(t *testing.T) {
		w, err := StartWorker(context.Background(), WorkerOptions{
			Scheduler: c.Server().Addr(), Name: "intruder", Threads: 1,
			Security: CertSecurity(foreign, "s3cret"), ConnectTimeout: hangGuard,
		})
		if err == nil {
			w.Close()
			t.Fatal("a worker with certificates from a foreign CA joined")
		}
		if !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("StartWorker with a foreign CA: %v, want ErrUnauthenticated", err)
		}
		for _, ws := range c.Server().Status().Workers {
			if ws.Name == "intruder" {
				t.Errorf("the scheduler lists the refused worker: %+v", ws)
			}
		}
	})
	t.Run("worker without token", func(t *testing.T) {
		noToken := sec
		noToken.Token = ""
		w, err := StartWorker(context.Background(), WorkerOptions{
			Scheduler: c.Server().Addr(), Name: "intruder", Threads: 1, Security: noToken, ConnectTimeout: hangGuard,
		})
		if err == nil {
			w.Close()
			t.Fatal("a worker without the token joined")
		}
		if !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("StartWorker without the token: %v, want ErrUnauthenticated", err)
		}
	})
}

func TestSchedulerLost(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 2, InProcess: true})
	g, root, _ := sleepSum(4, 60_000)
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), g, []graph.Key{root})
		errc <- err
	}()
	// Wait until the tasks run, then the scheduler goes.
	deadline := time.Now().Add(10 * time.Second)
	for c.Server().Status().Totals.Processing == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	c.Server().Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrSchedulerLost) {
			t.Errorf("Get after the scheduler closed: %v, want ErrSchedulerLost", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Get still waits 20 s after its scheduler closed")
	}
}

// TestWorkerKilled kills a worker process while it holds values and
// runs tasks: the lost tasks and values are recomputed on the other, and
// the result is right.
//
//	inc[0] ... inc[23]        inc[i] = i+1, at once
//	  |          |
//	hold[0] ... hold[23]      inc[i], once the gate file exists
//	     \      /
//	       sum
//
// The holds keep the job from finishing before the kill, and the incs
// the victim ran alive in its memory, whatever the machine's speed. (The
// first version summed 24 sleeps of 40 ms and had to kill the victim
// after its first task and before the other worker was through them all.)
func TestWorkerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 2})
	open := filepath.Join(t.TempDir(), "open")
	const n = 24
	g := graph.New(2*n + 1)
	var refs []graph.Arg
	for i := range n {
		inc, hold := graph.BlockKey("inc", i), graph.BlockKey("hold", i)
		if err := g.AddTask(inc, schedtest.Inc, graph.Lit(i)); err != nil {
			t.Fatal(err)
		}
		if err := g.AddTask(hold, fileGate, graph.Lit(open), graph.Ref(inc)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(hold))
	}
	if err := g.AddTask("sum", schedtest.Add, refs...); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	var got []any
	go func() {
		var err error
		got, err = c.Get(context.Background(), g, []graph.Key{"sum"})
		errc <- err
	}()
	victim := c.Workers()[0]
	eventually(t, "the victim to finish a task", func() bool {
		for _, w := range c.Server().Status().Workers {
			if w.Name == victim.Name && w.TasksDone > 0 {
				return true
			}
		}
		return false
	})
	if err := victim.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(open, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if want := n * (n + 1) / 2; got[0] != want {
		t.Errorf("sum = %v, want %d", got[0], want)
	}
}

// TestKilledWorker runs a task that kills every worker process that runs
// it: after AllowedFailures deaths it is the error, naming the key.
func TestKilledWorker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 3, ThreadsPerWorker: 1, Scheduler: SchedulerOptions{AllowedFailures: 3}})
	g := graph.New(0)
	if err := g.AddTask("crash", die); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(context.Background(), g, []graph.Key{"crash"})
	var te *sched.TaskError
	var ke *KilledWorkerError
	if !errors.As(err, &te) || te.Key != "crash" || !errors.As(err, &ke) || ke.Key != "crash" {
		t.Fatalf("Get = %v (%T), want a TaskError for %q wrapping a KilledWorkerError", err, err, "crash")
	}
	if ke.Failures != 3 {
		t.Errorf("KilledWorkerError.Failures = %d, want 3", ke.Failures)
	}
}

// TestWorkerJoins adds a worker while a computation runs that one
// worker with one thread cannot finish before it joins: its leaves wait on
// a gate, opened once the newcomer runs one of them. (The first version
// summed 40 sleeps of 25 ms and expected the newcomer to take some before
// the first worker was through them, which a loaded machine need not
// allow.)
func TestWorkerJoins(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true})
	const n = 40
	g := graph.New(n + 1)
	var refs []graph.Arg
	for i := range n {
		k := graph.BlockKey("leaf", i)
		if err := g.AddTask(k, gate, graph.Lit(i)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("sum", schedtest.Add, refs...); err != nil {
		t.Fatal(err)
	}
	open := make(chan struct{})
	gateOpen.Store(&open)
	openGate := sync.OnceFunc(func() { close(open) })
	defer openGate()
	errc := make(chan error, 1)
	var got []any
	go func() {
		var err error
		got, err = c.Get(context.Background(), g, []graph.Key{"sum"})
		errc <- err
	}()
	executing := func(w *Worker) bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.executing > 0
	}
	eventually(t, "the first worker running a leaf", func() bool { return executing(c.Workers()[0].w) })
	p, err := c.AddWorker(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the newcomer running a leaf", func() bool { return executing(p.w) })
	openGate()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if want := n * (n - 1) / 2; got[0] != want {
		t.Errorf("sum = %v, want %d", got[0], want)
	}
	for _, w := range c.Server().Status().Workers {
		if w.Name == p.Name && w.TasksDone == 0 {
			t.Errorf("the worker that joined ran no task: %+v", w)
		}
	}
}

// TestCancelFreesWorkers cancels a computation and checks that the
// workers drop its values and tasks.
func TestCancelFreesWorkers(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true})
	// Values that stay in memory while a long task waits:
	//
	//	big[0..3] (1 MiB each) --\
	//	                          long = Sleep(60 s) using them
	g := graph.New(0)
	var refs []graph.Arg
	for i := 0; i < 4; i++ {
		k := graph.BlockKey("big", i)
		if err := g.AddTask(k, makeBytes, graph.Lit(1<<20)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("long", schedtest.Sleep, graph.Lit(60_000), graph.List(refs...)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, g, []graph.Key{"long"})
		errc <- err
	}()
	held := func() (mem int64, busy int) {
		st := c.Server().Status()
		for _, w := range st.Workers {
			mem += w.MemoryBytes
			busy += int(w.Executing) + int(w.Queued)
		}
		return mem, busy
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if mem, busy := held(); mem >= 4<<20 && busy > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the workers never held the values and the long task (status %+v)", c.Server().Status().Workers)
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("Get = %v, want context.Canceled", err)
	}
	for {
		mem, busy := held()
		if mem == 0 && busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after cancel the workers still hold %d bytes and %d tasks", mem, busy)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var makeBytes graph.Op = &graph.FuncOp{OpName: "distributed_test.e2e_bytes", Fn: func(_ context.Context, args []any) (any, error) {
	return make([]byte, args[0].(int)), nil
}}

func init() { graph.Register(makeBytes) }

// flakyCalls counts runs of the flaky op; the retry test runs it on
// in-process workers, so the count is shared.
var flakyCalls atomic.Int32

// flaky fails with ErrBoom until it has run three times, then returns 42.
var flaky graph.Op = &graph.FuncOp{OpName: "distributed_test.e2e_flaky", Fn: func(context.Context, []any) (any, error) {
	if flakyCalls.Add(1) <= 2 {
		return nil, schedtest.ErrBoom
	}
	return 42, nil
}}

func init() { graph.Register(flaky) }

// TestRetries: ClientOptions.Retries re-runs a failing task; with too few
// its error is the result.
func TestRetries(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 1, ThreadsPerWorker: 1, InProcess: true})
	g := graph.New(0)
	if err := g.AddTask("flaky", flaky); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		retries int
		want    any // or the error ErrBoom
	}{
		{1, schedtest.ErrBoom},
		{2, 42},
	} {
		flakyCalls.Store(0)
		cl, err := Connect(context.Background(), c.Server().Addr(), ClientOptions{Retries: tt.retries, Security: c.ClientSecurity()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := cl.Get(context.Background(), g, []graph.Key{"flaky"})
		cl.Close()
		if want, ok := tt.want.(error); ok {
			var te *sched.TaskError
			if !errors.Is(err, want) || !errors.As(err, &te) || te.Key != "flaky" {
				t.Errorf("retries %d: %v, %v; want a TaskError for flaky wrapping %v", tt.retries, got, err, want)
			}
		} else if err != nil || got[0] != tt.want {
			t.Errorf("retries %d: %v, %v; want %v", tt.retries, got, err, tt.want)
		}
		if n := flakyCalls.Load(); n != int32(tt.retries+1) {
			t.Errorf("retries %d: the op ran %d times, want %d", tt.retries, n, tt.retries+1)
		}
	}
}
