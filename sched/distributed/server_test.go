package distributed

import (
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// A reduction tree over 8 leaves on two workers: every output has the
// oracle's value at the address given, the client learns the workers, a
// TaskEvent comes for every task, and every value that is not an output
// is released by the end.
func TestServerTree(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{StatusAddress: "127.0.0.1:0"})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 2})
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 2})
	defs := tdefs(treeGraph(8))
	root := int32(len(defs) - 1)
	outs := []int32{root, 3}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs, Events: true, Name: "tree"})
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
	eventually(t, "all events", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.events) == len(defs) })
	c.mu.Lock()
	for id, w := range c.workers {
		if (id != a.id || w.DataAddress != a.addr) && (id != b.id || w.DataAddress != b.addr) {
			t.Errorf("worker info %d %q %q matches neither fake worker", id, w.Name, w.DataAddress)
		}
	}
	c.mu.Unlock()
	// Released: everything but the outputs, each once.
	eventually(t, "releases", func() bool {
		_, _, ra, _, _ := a.snapshot()
		_, _, rb, _, _ := b.snapshot()
		return len(ra)+len(rb) == len(defs)-len(outs)
	})
	_, _, ra, _, _ := a.snapshot()
	_, _, rb, _, _ := b.snapshot()
	released := append(ra, rb...)
	slices.Sort(released)
	if len(slices.Compact(released)) != len(defs)-len(outs) || slices.Contains(released, defs[root].Key) || slices.Contains(released, defs[3].Key) {
		t.Errorf("released %v: want every key but the outputs, once", released)
	}

	// The status endpoint's JSON has both workers and the job's tasks by state.
	resp, err := http.Get("http://" + s.StatusAddr() + "/status")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	if len(st.Workers) != 2 || st.Workers[0].Name != "a" || st.Workers[1].Name != "b" || st.Totals.Threads != 4 {
		t.Errorf("status workers %+v, want a and b with 2 threads each", st.Workers)
	}
	if len(st.Jobs) != 1 || st.Jobs[0].Name != "tree" || st.Jobs[0].States["memory"] != 2 || st.Jobs[0].States["released"] != len(defs)-2 {
		t.Errorf("status jobs %+v, want tree with 2 in memory and %d released", st.Jobs, len(defs)-2)
	}
	if done := st.Workers[0].TasksDone + st.Workers[1].TasksDone; done != int64(len(defs)) {
		t.Errorf("status: %d tasks done, want %d", done, len(defs))
	}

	// Closing the stream drops the job everywhere.
	c.stream.CloseSend()
	eventually(t, "cancel_jobs on both workers", func() bool {
		_, _, _, ca, _ := a.snapshot()
		_, _, _, cb, _ := b.snapshot()
		return slices.Contains(ca, c.jobID()) && slices.Contains(cb, c.jobID())
	})
	if n := len(s.Status().Jobs); n != 0 {
		t.Errorf("%d jobs after the client closed, want 0", n)
	}
}

// Locality: a task goes to the worker holding most of its dependencies'
// bytes.
//
//	big (X, on a)   small (Y, on b)
//	        \         /
//	           sum
func TestServerLocality(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 4, resources: map[string]float64{"X": 1}})
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 4, resources: map[string]float64{"Y": 1}})
	for _, tc := range []struct {
		bigOn, want string
	}{{"X", "a"}, {"Y", "b"}} {
		small := map[string]float64{"X": 1}
		if tc.bigOn == "X" {
			small = map[string]float64{"Y": 1}
		}
		defs := tdefs([]tnode{
			{key: "big-" + tc.bigOn, op: "big", res: map[string]float64{tc.bigOn: 1}},
			{key: "small-" + tc.bigOn, res: small},
			{key: "sum-" + tc.bigOn, deps: []int32{0, 1}},
		})
		c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{2}})
		eventually(t, "output", func() bool { return c.outputsReady([]int32{2}) })
		c.checkOutputs(sim, defs, []int32{2})
		if got := sim.ranOn("sum-" + tc.bigOn); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("sum with its big dependency on %s ran on %v, want [%s]", tc.want, got, tc.want)
		}
		c.cancel()
	}
}

// Root throttling: a worker that finishes nothing is sent at most
// ceil(threads × saturation) root tasks; the rest wait on the scheduler.
// Once a root has finished, the budget grows by 32 MiB / its size: here
// 8 MiB roots, so by 4 (3 + 4 = 7 processing at most).
func TestServerRootThrottle(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{WorkerSaturation: 1.5})
	sim := newSim()
	w := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 2, hold: func(*pb.TaskSpec) bool { return true }})
	var nodes []tnode
	for i := range 12 {
		nodes = append(nodes, tnode{key: "root-" + string(rune('a'+i)), prio: int64(12 - i), op: "size:8388608"})
	}
	defs := tdefs(nodes)
	outs := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "9 roots queued on the scheduler", func() bool { return jobStates(s)["queued"] == 9 })
	// The scheduler's state changes before its message reaches the
	// worker: wait for the three there (reading them at once failed
	// under -race, the message still on its way).
	eventually(t, "3 roots on the worker", func() bool { r, _, _, _, _ := w.snapshot(); return len(r) >= 3 })
	rec, _, _, _, _ := w.snapshot()
	// Lowest priority values first: root-l (1), root-k (2), root-j (3).
	if want := []string{"root-l", "root-k", "root-j"}; !slices.Equal(rec, want) {
		t.Fatalf("worker received %v, want %v", rec, want)
	}
	w.release(func(c *pb.TaskSpec) bool { return c.Key == "root-k" })
	eventually(t, "5 more roots", func() bool { r, _, _, _, _ := w.snapshot(); return len(r) == 8 })
	eventually(t, "4 queued", func() bool { return jobStates(s)["queued"] == 4 })
	if rec, _, _, _, _ := w.snapshot(); !slices.Equal(rec[3:], []string{"root-i", "root-h", "root-g", "root-f", "root-e"}) {
		t.Errorf("roots sent after the first finished: %v, want root-i to root-e", rec[3:])
	}
	for !c.outputsReady(outs) {
		w.release(nil)
		time.Sleep(time.Millisecond)
	}
	c.checkOutputs(sim, defs, outs)
}

// Stealing: every task sits on a, which holds them; b joins, and gets
// tasks through steal requests, lowest priority first.
//
//	     r
//	 /  / \  \
//	c1 c2 .. c6
func TestServerStealing(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 1,
		hold: func(c *pb.TaskSpec) bool { return strings.HasPrefix(c.Key, "c") }})
	nodes := []tnode{{key: "r", op: "big"}}
	for i := 1; i <= 6; i++ {
		nodes = append(nodes, tnode{key: "c" + string(rune('0'+i)), deps: []int32{0}, prio: int64(i)})
	}
	defs := tdefs(nodes)
	outs := []int32{1, 2, 3, 4, 5, 6}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "all tasks on a", func() bool { r, _, _, _, _ := a.snapshot(); return len(r) == 7 })
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 1})
	eventually(t, "b stealing 5", func() bool { r, _, _, _, _ := b.snapshot(); return len(r) == 5 })
	_, steals, _, _, _ := a.snapshot()
	if want := []string{"c6", "c5", "c4", "c3", "c2"}; !slices.Equal(steals, want) {
		t.Errorf("steal requests %v, want %v (highest priority value first, a keeps one per thread)", steals, want)
	}
	a.release(nil)
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
	if got := sim.ranOn("c1"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("c1 ran on %v, want [a]", got)
	}
}

// Resources: GPU tasks run only on the GPU worker; a task needing a
// resource nobody offers fails the job with NO_WORKER naming it.
func TestServerResources(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "cpu", threads: 2, heartbeat: 50 * time.Millisecond})
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "gpu", threads: 1, heartbeat: 50 * time.Millisecond, resources: map[string]float64{"GPU": 2}})
	gpu := map[string]float64{"GPU": 1}
	defs := tdefs([]tnode{
		{key: "g0", res: gpu}, {key: "g1", res: gpu}, {key: "g2", res: gpu},
		{key: "x0"}, {key: "x1"},
		{key: "g3", deps: []int32{3, 4}, res: gpu},
		{key: "y", deps: []int32{0, 1, 2, 5}},
	})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{6}})
	eventually(t, "output", func() bool { return c.outputsReady([]int32{6}) })
	c.checkOutputs(sim, defs, []int32{6})
	for _, k := range []string{"g0", "g1", "g2", "g3"} {
		if got := sim.ranOn(k); !slices.Equal(got, []string{"gpu"}) {
			t.Errorf("%s ran on %v, want [gpu]", k, got)
		}
	}
	c.cancel()

	defs = tdefs([]tnode{{key: "a"}, {key: "needs-tpu", deps: []int32{0}, res: map[string]float64{"TPU": 1}}})
	c = submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{1}})
	eventually(t, "needs-tpu parked", func() bool { return jobStates(s)["no-worker"] == 1 })
	waitedNoWorker(s, time.Hour)
	eventually(t, "job error", func() bool { return c.jobError() != nil })
	e := c.jobError()
	if e.Kind != pb.JobError_NO_WORKER || e.Index != 1 || !strings.Contains(e.Message, `"needs-tpu"`) || !strings.Contains(e.Message, "TPU=1") {
		t.Errorf("job error %v, want NO_WORKER for needs-tpu naming TPU=1", e)
	}
}

// With no worker at all, ready tasks fail the job after WorkerTimeout.
func TestServerNoWorkers(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{WorkerTimeout: 300 * time.Millisecond})
	c := submit(t, s, Security{}, tdefs([]tnode{{key: "lonely"}}), &pb.Run{Outputs: []int32{0}})
	eventually(t, "job error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_NO_WORKER || !strings.Contains(e.Message, `"lonely"`) {
		t.Errorf("job error %v, want NO_WORKER naming lonely", e)
	}
}

// Retries: a task failing twice succeeds with retries=2; with retries=1
// the second failure is the job's error, with the worker's Failure.
func TestServerRetries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		retries int32
		ok      bool
	}{{"enough", 2, true}, {"too-few", 1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, SchedulerOptions{})
			sim := newSim()
			startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
			defs := tdefs([]tnode{{key: "x"}, {key: "flaky", deps: []int32{0}, op: "fail:2"}})
			c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{1}, Retries: tc.retries})
			eventually(t, "the end", func() bool { return c.outputsReady([]int32{1}) || c.jobError() != nil })
			if tc.ok {
				if e := c.jobError(); e != nil {
					t.Fatalf("job error %v", e)
				}
				c.checkOutputs(sim, defs, []int32{1})
				return
			}
			e := c.jobError()
			if e == nil || e.Kind != pb.JobError_TASK || e.Index != 1 || e.Failure.GetMessage() != "boom flaky" || e.Failure.GetSentinel() != "schedtest.ErrBoom" {
				t.Errorf("job error %v, want TASK at 1 with the worker's failure", e)
			}
		})
	}
}

// A lost worker's values are recomputed from lineage, released
// dependencies included, and the output is announced again at its new
// address.
//
//	r1  r2
//	  \ /
//	   x (output)
func TestServerLostWorkerRecompute(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 2})
	defs := tdefs([]tnode{{key: "r1"}, {key: "r2"}, {key: "x", deps: []int32{0, 1}}})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{2}})
	eventually(t, "output", func() bool { return c.outputsReady([]int32{2}) })
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 2})
	a.kill()
	eventually(t, "output again", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.nout == 2 })
	c.mu.Lock()
	addrs := c.outputs[2].Addresses
	c.mu.Unlock()
	if !slices.Equal(addrs, []string{b.addr}) {
		t.Errorf("output now at %v, want [%s]", addrs, b.addr)
	}
	c.checkOutputs(sim, defs, []int32{2})
	for _, k := range []string{"r1", "r2", "x"} {
		if got := sim.ranOn(k); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("%s ran on %v, want [a b]", k, got)
		}
	}
}

// A worker reporting a missing dependency whose only copy is gone gets
// it recomputed, and its task resent.
func TestServerMissingDep(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	var ran atomic.Bool // once set, c runs when it comes back
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 2, hold: func(c *pb.TaskSpec) bool { return c.Key == "c" && !ran.Load() }})
	defs := tdefs([]tnode{{key: "r"}, {key: "c", deps: []int32{0}}})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{1}})
	eventually(t, "c on a", func() bool { _, _, _, _, h := a.snapshot(); return h == 1 })
	sim.mu.Lock()
	delete(sim.vals[a.addr], simKey(c.jobID(), "r"))
	sim.mu.Unlock()
	ran.Store(true)
	a.release(nil)
	eventually(t, "output", func() bool { return c.outputsReady([]int32{1}) })
	c.checkOutputs(sim, defs, []int32{1})
	if got := sim.ranOn("r"); len(got) != 2 {
		t.Errorf("r ran on %v, want twice", got)
	}
}

// A task that was running on AllowedFailures workers that died fails the
// job with KILLED_WORKER naming it.
func TestServerKilledWorker(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	holdAll := func(*pb.TaskSpec) bool { return true }
	w := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "w0", hold: holdAll})
	c := submit(t, s, Security{}, tdefs([]tnode{{key: "poison"}}), &pb.Run{Outputs: []int32{0}})
	for i := 1; i <= 3; i++ {
		eventually(t, "poison on "+w.name, func() bool { _, _, _, _, h := w.snapshot(); return h == 1 })
		next := w
		if i < 3 {
			next = startFakeWorker(t, s, sim, fakeWorkerOpts{name: "w" + string(rune('0'+i)), hold: holdAll})
		}
		w.kill()
		w = next
	}
	eventually(t, "job error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_KILLED_WORKER || e.Index != 0 || !strings.Contains(e.Message, `"poison"`) {
		t.Errorf("job error %v, want KILLED_WORKER naming poison", e)
	}
}

// Malformed graphs fail with BAD_GRAPH naming the task.
func TestServerBadGraph(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	for _, tc := range []struct {
		name  string
		nodes []tnode
		outs  []int32
		want  string
	}{
		{"forward-dep", []tnode{{key: "a", deps: []int32{1}}, {key: "b"}}, nil, `"a"`},
		{"self-dep", []tnode{{key: "a", deps: []int32{0}}}, nil, `"a"`},
		{"negative-dep", []tnode{{key: "a"}, {key: "b", deps: []int32{-1}}}, nil, `"b"`},
		{"duplicate-key", []tnode{{key: "a"}, {key: "a"}}, nil, `"a"`},
		{"duplicate-dep", []tnode{{key: "a"}, {key: "b", deps: []int32{0, 0}}}, nil, `"b"`},
		{"output-range", []tnode{{key: "a"}}, []int32{1}, "output index 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := submit(t, s, Security{}, tdefs(tc.nodes), &pb.Run{Outputs: tc.outs})
			eventually(t, "job error", func() bool { return c.jobError() != nil })
			if e := c.jobError(); e.Kind != pb.JobError_BAD_GRAPH || !strings.Contains(e.Message, tc.want) {
				t.Errorf("job error %v, want BAD_GRAPH containing %s", e, tc.want)
			}
			<-c.done // the stream ends after the error
		})
	}
}

// A client that goes away (cancelled stream) has its job cancelled on
// every worker.
func TestServerClientCancel(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", hold: func(*pb.TaskSpec) bool { return true }})
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", hold: func(*pb.TaskSpec) bool { return true }})
	c := submit(t, s, Security{}, tdefs(treeGraph(16)), &pb.Run{Outputs: []int32{30}})
	eventually(t, "tasks on both", func() bool {
		_, _, _, _, ha := a.snapshot()
		_, _, _, _, hb := b.snapshot()
		return ha > 0 && hb > 0
	})
	eventually(t, "the job's id", func() bool { return c.jobID() != 0 })
	c.cancel()
	eventually(t, "cancel_jobs", func() bool {
		_, _, _, ca, ha := a.snapshot()
		_, _, _, cb, hb := b.snapshot()
		return slices.Equal(ca, []uint64{c.jobID()}) && slices.Equal(cb, []uint64{c.jobID()}) && ha == 0 && hb == 0
	})
	eventually(t, "job gone", func() bool { return len(s.Status().Jobs) == 0 })
	for _, ws := range s.Status().Workers {
		if ws.Processing != 0 {
			t.Errorf("worker %s: %d processing after the job was cancelled", ws.Name, ws.Processing)
		}
	}
}

// With a token, peers without it are refused (Unauthenticated), on both
// methods and on the status endpoint.
func TestServerToken(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{StatusAddress: "127.0.0.1:0", Security: Security{Token: "s3cret"}})
	for _, sec := range []Security{{}, {Token: "wrong"}} {
		cl := pb.NewSchedulerClient(dialTest(t, s.Addr(), sec))
		ws, err := cl.Connect(t.Context())
		if err == nil {
			ws.Send(&pb.WorkerMessage{Register: &pb.Register{Name: "x", DataAddress: "x", Nthreads: 1}})
			_, err = ws.Recv()
		}
		if status.Code(err) != codes.Unauthenticated || !errors.Is(unauthenticated(err), ErrUnauthenticated) {
			t.Errorf("Connect with token %q: %v, want Unauthenticated", sec.Token, err)
		}
		cs, err := cl.Compute(t.Context())
		if err == nil {
			_, err = cs.Recv()
		}
		if status.Code(err) != codes.Unauthenticated {
			t.Errorf("Compute with token %q: %v, want Unauthenticated", sec.Token, err)
		}
	}
	sim := newSim()
	sec := Security{Token: "s3cret"}
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", sec: sec})
	defs := tdefs([]tnode{{key: "x"}})
	c := submit(t, s, sec, defs, &pb.Run{Outputs: []int32{0}})
	eventually(t, "output", func() bool { return c.outputsReady([]int32{0}) })
	c.checkOutputs(sim, defs, []int32{0})

	for _, tc := range []struct {
		header, value string
		want          int
	}{
		{"", "", http.StatusUnauthorized},
		{"Authorization", "Bearer nope", http.StatusUnauthorized},
		{"Authorization", "Bearer s3cret", http.StatusOK},
		{"tessera-token", "s3cret", http.StatusOK},
	} {
		req, _ := http.NewRequest("GET", "http://"+s.StatusAddr()+"/status", nil)
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("status with %s %q: %d, want %d", tc.header, tc.value, resp.StatusCode, tc.want)
		}
	}
}

// Close ends clients' streams with an error and workers' sessions.
func TestServerClose(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	w := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", hold: func(*pb.TaskSpec) bool { return true }})
	c := submit(t, s, Security{}, tdefs([]tnode{{key: "x"}}), &pb.Run{Outputs: []int32{0}})
	eventually(t, "task on a", func() bool { _, _, _, _, h := w.snapshot(); return h == 1 })
	s.Close()
	<-c.done
	if c.recvErr == nil || status.Code(c.recvErr) == codes.OK {
		t.Errorf("client stream after Close: %v, want an error", c.recvErr)
	}
	<-w.ended
}

// A worker that stops sending (no heartbeat) is lost after WorkerTimeout,
// and its task runs on another worker. mute's silence is made an hour
// long (silence) rather than waited for, so that chatty, which joined
// since, is not lost with it when the test process stalls.
func TestServerSilentWorker(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	mute := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "mute", hold: func(*pb.TaskSpec) bool { return true }})
	defs := tdefs([]tnode{{key: "x"}})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{0}})
	eventually(t, "x on mute", func() bool { _, _, _, _, h := mute.snapshot(); return h == 1 })
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "chatty", heartbeat: 20 * time.Millisecond})
	silence(t, s, "mute", time.Hour)
	eventually(t, "output", func() bool { return c.outputsReady([]int32{0}) })
	c.checkOutputs(sim, defs, []int32{0})
	<-mute.ended // its session was ended by the scheduler
	if ws := s.Status().Workers; len(ws) != 1 || ws[0].Name != "chatty" {
		t.Errorf("workers %+v, want only chatty", ws)
	}
	// chatty's heartbeats are heard (and keep it alive).
	eventually(t, "chatty's heartbeat", func() bool {
		ws := s.Status().Workers
		return len(ws) == 1 && ws[0].MemoryBytes == 123
	})
}

// Root tasks held on the scheduler for a resource whose only worker dies
// fail the job with NO_WORKER after WorkerTimeout, like any task no worker
// offers resources for.
func TestServerQueuedRootsOrphaned(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "cpu", heartbeat: 20 * time.Millisecond})
	gpu := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "gpu", heartbeat: 20 * time.Millisecond,
		resources: map[string]float64{"GPU": 1}, hold: func(*pb.TaskSpec) bool { return true }})
	var nodes []tnode
	for i := range 5 {
		nodes = append(nodes, tnode{key: "g" + string(rune('0'+i)), res: map[string]float64{"GPU": 1}, prio: int64(i)})
	}
	c := submit(t, s, Security{}, tdefs(nodes), &pb.Run{Outputs: []int32{0, 1, 2, 3, 4}})
	eventually(t, "3 queued", func() bool { return jobStates(s)["queued"] == 3 })
	gpu.kill()
	eventually(t, "every root parked", func() bool { return jobStates(s)["no-worker"] == 5 })
	waitedNoWorker(s, time.Hour)
	eventually(t, "job error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_NO_WORKER || !strings.Contains(e.Message, "GPU=1") {
		t.Errorf("job error %v, want NO_WORKER naming GPU=1", e)
	}
}

// With mutual TLS and a token, a job runs; the status endpoint is HTTPS
// and wants a client certificate as well as the token.
func TestServerTLS(t *testing.T) {
	dir := t.TempDir()
	if err := GenerateCerts(dir, nil, time.Hour); err != nil {
		t.Fatal(err)
	}
	sec := CertSecurity(dir, "tok")
	s := newTestServer(t, SchedulerOptions{StatusAddress: "127.0.0.1:0", Security: sec.ForRole(RoleScheduler)})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", sec: sec.ForRole(RoleWorker)})
	defs := tdefs([]tnode{{key: "x"}, {key: "y", deps: []int32{0}}})
	c := submit(t, s, sec, defs, &pb.Run{Outputs: []int32{1}})
	eventually(t, "output", func() bool { return c.outputsReady([]int32{1}) })
	c.checkOutputs(sim, defs, []int32{1})

	cfg, err := sec.tlsConfig(false)
	if err != nil {
		t.Fatal(err)
	}
	get := func(cfg *tls.Config) (int, error) {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: cfg}}
		defer hc.CloseIdleConnections()
		req, _ := http.NewRequest("GET", "https://"+s.StatusAddr()+"/status", nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := get(cfg); err != nil || code != http.StatusOK {
		t.Errorf("status over mutual TLS: %d, %v; want 200", code, err)
	}
	noCert := cfg.Clone()
	noCert.Certificates = nil
	if code, err := get(noCert); err == nil {
		t.Errorf("status without a client certificate: %d, want a TLS error", code)
	}
}

// A worker joining a long backlog is given up to an even split of it in
// its first steal round, not one task per idle thread.
func TestServerStealShare(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 1,
		hold: func(c *pb.TaskSpec) bool { return c.Key != "r" }})
	nodes := []tnode{{key: "r"}}
	var outs []int32
	for i := 1; i <= 40; i++ {
		nodes = append(nodes, tnode{key: fmt.Sprintf("c%02d", i), deps: []int32{0}, prio: int64(i)})
		outs = append(outs, int32(i))
	}
	defs := tdefs(nodes)
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "all tasks on a", func() bool { r, _, _, _, _ := a.snapshot(); return len(r) == 41 })
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 1, hold: func(*pb.TaskSpec) bool { return true }})
	eventually(t, "b's share", func() bool { r, _, _, _, _ := b.snapshot(); return len(r) == 20 })
	_, steals, _, _, _ := a.snapshot()
	var want []string
	for i := 40; i > 20; i-- {
		want = append(want, fmt.Sprintf("c%02d", i))
	}
	if !slices.Equal(steals, want) {
		t.Errorf("steal requests %v, want %v", steals, want)
	}
	for !c.outputsReady(outs) {
		a.release(nil)
		b.release(nil)
		time.Sleep(time.Millisecond)
	}
	c.checkOutputs(sim, defs, outs)
}

// Two idle thieves, one victim whose surplus the first takes whole: the
// second asks for nothing (this once indexed out of range).
func TestServerStealTwoThieves(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", threads: 1, resources: map[string]float64{"X": 1},
		hold: func(c *pb.TaskSpec) bool { return c.Key != "r" }})
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b", threads: 2})
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "c", threads: 2})
	defs := tdefs([]tnode{{key: "r", op: "big", res: map[string]float64{"X": 1}},
		{key: "c1", deps: []int32{0}, prio: 1}, {key: "c2", deps: []int32{0}, prio: 2}, {key: "c3", deps: []int32{0}, prio: 3}})
	outs := []int32{1, 2, 3}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "two stolen", func() bool { return len(sim.ranOn("c2"))+len(sim.ranOn("c3")) == 2 })
	a.release(nil)
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
	if _, steals, _, _, _ := a.snapshot(); !slices.Equal(steals, []string{"c3", "c2"}) {
		t.Errorf("steal requests %v, want [c3 c2]", steals)
	}
}

// A worker that closes its side of the session leaves: its session ends
// without an error and its task runs elsewhere.
func TestServerWorkerLeaves(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{})
	sim := newSim()
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", hold: func(*pb.TaskSpec) bool { return true }})
	defs := tdefs([]tnode{{key: "x"}})
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{0}})
	eventually(t, "x on a", func() bool { _, _, _, _, h := a.snapshot(); return h == 1 })
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b"})
	a.sendMu.Lock()
	a.stream.CloseSend()
	a.sendMu.Unlock()
	<-a.ended
	if _, err := a.stream.Recv(); err != io.EOF {
		t.Errorf("the session of a worker that left ended with %v, want EOF", err)
	}
	eventually(t, "output", func() bool { return c.outputsReady([]int32{0}) })
	c.checkOutputs(sim, defs, []int32{0})
}
