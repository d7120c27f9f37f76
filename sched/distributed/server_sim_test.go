package distributed

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The scheduler's tests drive a real Server over loopback gRPC with fake
// workers and a fake client that speak pb directly, so that they depend on
// nothing but the protocol. A fake worker "computes" task i of a graph as
// 1 + the sum of its dependencies' values, reading them from a simulated
// data plane (simData: values by data address) at the addresses the
// scheduler gave; so a wrong address, a value released too early or a
// lost value not recomputed shows as a MissingDep loop or a wrong result,
// checked against simOracle, the same formula evaluated directly.

func srvTestLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// simData is the simulated data plane: what each worker address holds.
type simData struct {
	mu       sync.Mutex
	vals     map[string]map[string]int64 // address → "job/key" → value
	attempts map[string]int              // key → runs
	ran      map[string][]string         // key → names of the workers that finished it
}

func newSim() *simData {
	return &simData{vals: map[string]map[string]int64{}, attempts: map[string]int{}, ran: map[string][]string{}}
}

func simKey(job uint64, key string) string { return strconv.FormatUint(job, 10) + "/" + key }

func (d *simData) get(addrs []string, job uint64, key string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range addrs {
		if v, ok := d.vals[a][simKey(job, key)]; ok {
			return v, true
		}
	}
	return 0, false
}

func (d *simData) ranOn(key string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.ran[key])
}

// tnode is a task of a test graph; op is its node bytes: "" (the sum
// formula), "big" (the same, reported as 1 MiB), "size:N" (reported as N
// bytes), "ms:N" (reported as having run for N milliseconds, whatever
// the machine took), "fail:N" (fails its first N runs).
type tnode struct {
	key  string
	deps []int32
	prio int64
	res  map[string]float64
	op   string
}

func tdefs(nodes []tnode) []*pb.TaskDef {
	defs := make([]*pb.TaskDef, len(nodes))
	for i, n := range nodes {
		defs[i] = &pb.TaskDef{Key: n.key, Node: []byte(n.op), Deps: n.deps, Priority: n.prio, Resources: n.res}
	}
	return defs
}

// simOracle evaluates the fake workers' formula on the graph directly.
func simOracle(defs []*pb.TaskDef) []int64 {
	v := make([]int64, len(defs))
	for i, d := range defs {
		v[i] = 1
		for _, dep := range d.Deps {
			v[i] += v[dep]
		}
	}
	return v
}

// fakeWorker is a worker session speaking pb: it registers, then runs
// what it is sent at once, unless hold says to keep a task until release.
type fakeWorker struct {
	t      testing.TB
	sim    *simData
	name   string
	addr   string
	id     int32
	stream pb.Scheduler_ConnectClient
	cancel context.CancelFunc
	sendMu sync.Mutex
	hold   func(*pb.TaskSpec) bool
	ended  chan struct{}

	mu       sync.Mutex
	held     []*pb.TaskSpec
	received []string // keys of the tasks sent here, in order
	steals   []string
	releases []string
	cancels  []uint64
}

type fakeWorkerOpts struct {
	name      string
	threads   int32
	resources map[string]float64
	hold      func(*pb.TaskSpec) bool
	sec       Security
	heartbeat time.Duration // 0: none
}

func dialTest(t testing.TB, addr string, sec Security) *grpc.ClientConn {
	t.Helper()
	dopts, err := sec.dialOptions()
	if err != nil {
		t.Fatal(err)
	}
	cc, err := grpc.NewClient(addr, dopts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return cc
}

func startFakeWorker(t testing.TB, s *Server, sim *simData, o fakeWorkerOpts) *fakeWorker {
	t.Helper()
	if o.threads == 0 {
		o.threads = 1
	}
	cc := dialTest(t, s.Addr(), o.sec)
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := pb.NewSchedulerClient(cc).Connect(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	w := &fakeWorker{t: t, sim: sim, name: o.name, addr: "sim-" + o.name, stream: stream, cancel: cancel, hold: o.hold, ended: make(chan struct{})}
	err = stream.Send(&pb.WorkerMessage{Register: &pb.Register{
		Name: o.name, DataAddress: w.addr, Nthreads: o.threads, Resources: o.resources, Pid: 1, Host: "sim",
	}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	m, err := stream.Recv()
	if err != nil {
		cancel()
		t.Fatalf("worker %s: waiting for welcome: %v", o.name, err)
	}
	if m.Welcome == nil {
		cancel()
		t.Fatalf("worker %s: first message %v has no welcome", o.name, m)
	}
	w.id = m.Welcome.WorkerId
	t.Cleanup(w.kill)
	go w.loop()
	if o.heartbeat > 0 {
		go func() {
			tk := time.NewTicker(o.heartbeat)
			defer tk.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tk.C:
					w.send(&pb.WorkerMessage{Heartbeat: &pb.Heartbeat{MemoryBytes: 123}})
				}
			}
		}()
	}
	return w
}

// kill breaks the session, as a SIGKILLed worker's connection breaks; the
// values it held are gone from the data plane.
func (w *fakeWorker) kill() {
	w.cancel()
	<-w.ended
	w.sim.mu.Lock()
	delete(w.sim.vals, w.addr)
	w.sim.mu.Unlock()
}

func (w *fakeWorker) send(m *pb.WorkerMessage) {
	w.sendMu.Lock()
	defer w.sendMu.Unlock()
	w.stream.Send(m) // an error shows as the session ending
}

func (w *fakeWorker) loop() {
	defer close(w.ended)
	for {
		m, err := w.stream.Recv()
		if err != nil {
			return
		}
		var run []*pb.TaskSpec
		reply := &pb.WorkerMessage{}
		w.mu.Lock()
		for _, c := range m.Compute {
			w.received = append(w.received, c.Key)
			if w.hold != nil && w.hold(c) {
				w.held = append(w.held, c)
			} else {
				run = append(run, c)
			}
		}
		for _, r := range m.Steal {
			w.steals = append(w.steals, r.Key)
			k := slices.IndexFunc(w.held, func(c *pb.TaskSpec) bool { return c.Job == r.Job && c.Key == r.Key })
			if k >= 0 {
				w.held = slices.Delete(w.held, k, k+1)
			}
			reply.Stolen = append(reply.Stolen, &pb.StealReply{Job: r.Job, Key: r.Key, Stolen: k >= 0})
		}
		for _, r := range m.Release {
			w.releases = append(w.releases, r.Key)
		}
		w.cancels = append(w.cancels, m.CancelJobs...)
		for _, job := range m.CancelJobs {
			w.held = slices.DeleteFunc(w.held, func(c *pb.TaskSpec) bool { return c.Job == job })
		}
		w.mu.Unlock()
		w.sim.mu.Lock()
		for _, r := range m.Release {
			delete(w.sim.vals[w.addr], simKey(r.Job, r.Key))
		}
		for _, job := range m.CancelJobs {
			for k := range w.sim.vals[w.addr] {
				if strings.HasPrefix(k, strconv.FormatUint(job, 10)+"/") {
					delete(w.sim.vals[w.addr], k)
				}
			}
		}
		w.sim.mu.Unlock()
		for _, c := range run {
			w.run(c, reply)
		}
		if len(reply.Done)+len(reply.Failed)+len(reply.Missing)+len(reply.Stolen) > 0 {
			w.send(reply)
		}
	}
}

// run computes c into reply.
func (w *fakeWorker) run(c *pb.TaskSpec, reply *pb.WorkerMessage) {
	v := int64(1)
	for _, d := range c.Deps {
		x, ok := w.sim.get(d.Addresses, c.Job, d.Key)
		if !ok {
			reply.Missing = append(reply.Missing, &pb.MissingDep{Job: c.Job, Key: c.Key, Dep: d.Key, Addresses: d.Addresses})
			return
		}
		v += x
	}
	op := string(c.Node)
	w.sim.mu.Lock()
	defer w.sim.mu.Unlock()
	w.sim.attempts[c.Key]++
	if n, ok := strings.CutPrefix(op, "fail:"); ok {
		if limit, _ := strconv.Atoi(n); w.sim.attempts[c.Key] <= limit {
			reply.Failed = append(reply.Failed, &pb.TaskFailed{Job: c.Job, Key: c.Key,
				Failure: &pb.Failure{Message: "boom " + c.Key, Sentinel: "schedtest.ErrBoom"}})
			return
		}
	}
	if w.sim.vals[w.addr] == nil {
		w.sim.vals[w.addr] = map[string]int64{}
	}
	w.sim.vals[w.addr][simKey(c.Job, c.Key)] = v
	w.sim.ran[c.Key] = append(w.sim.ran[c.Key], w.name)
	nbytes := int64(8)
	if op == "big" {
		nbytes = 1 << 20
	}
	if n, ok := strings.CutPrefix(op, "size:"); ok {
		nbytes, _ = strconv.ParseInt(n, 10, 64)
	}
	done := &pb.TaskDone{Job: c.Job, Key: c.Key, Nbytes: nbytes}
	if n, ok := strings.CutPrefix(op, "ms:"); ok {
		ms, _ := strconv.ParseInt(n, 10, 64)
		done.StartUnixNano = 1
		done.StopUnixNano = 1 + ms*int64(time.Millisecond)
	}
	reply.Done = append(reply.Done, done)
}

// release runs the held tasks that match (all when match is nil).
func (w *fakeWorker) release(match func(*pb.TaskSpec) bool) {
	w.mu.Lock()
	var run []*pb.TaskSpec
	keep := w.held[:0]
	for _, c := range w.held {
		if match == nil || match(c) {
			run = append(run, c)
		} else {
			keep = append(keep, c)
		}
	}
	w.held = keep
	w.mu.Unlock()
	reply := &pb.WorkerMessage{}
	for _, c := range run {
		w.run(c, reply)
	}
	w.send(reply)
}

func (w *fakeWorker) snapshot() (received, steals, releases []string, cancels []uint64, held int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.received), slices.Clone(w.steals), slices.Clone(w.releases), slices.Clone(w.cancels), len(w.held)
}

// fakeClient is one Compute stream.
type fakeClient struct {
	t      testing.TB
	stream pb.Scheduler_ComputeClient
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	job     uint64
	outputs map[int32]*pb.OutputReady
	nout    int // OutputReady messages received
	events  []*pb.TaskEvent
	workers map[int32]*pb.WorkerInfo
	err     *pb.JobError
	recvErr error
}

func submit(t testing.TB, s *Server, sec Security, defs []*pb.TaskDef, run *pb.Run) *fakeClient {
	t.Helper()
	cc := dialTest(t, s.Addr(), sec)
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := pb.NewSchedulerClient(cc).Compute(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	c := &fakeClient{t: t, stream: stream, cancel: cancel, done: make(chan struct{}),
		outputs: map[int32]*pb.OutputReady{}, workers: map[int32]*pb.WorkerInfo{}}
	t.Cleanup(func() { cancel(); <-c.done })
	go func() {
		defer close(c.done)
		for {
			ev, err := stream.Recv()
			c.mu.Lock()
			if err != nil {
				c.recvErr = err
				c.mu.Unlock()
				return
			}
			c.job = ev.Job
			for _, o := range ev.Outputs {
				c.outputs[o.Index] = o
				c.nout++
			}
			c.events = append(c.events, ev.Events...)
			for _, w := range ev.Workers {
				c.workers[w.Id] = w
			}
			if ev.Error != nil {
				c.err = ev.Error
			}
			c.mu.Unlock()
		}
	}()
	if err := stream.Send(&pb.ClientMessage{Tasks: defs, Run: run}); err != nil {
		t.Fatal(err)
	}
	return c
}

// outputsReady reports whether every output has an OutputReady.
func (c *fakeClient) outputsReady(outs []int32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range outs {
		if c.outputs[o] == nil {
			return false
		}
	}
	return true
}

// jobID returns the job's id, waiting for the scheduler's first event,
// which carries it: a worker may be sent the job's first tasks before the
// client has read that event, and a worker's report naming job 0 is
// ignored (this made the tests that read the id right after a task
// reached a worker fail now and then).
func (c *fakeClient) jobID() uint64 {
	c.t.Helper()
	var id uint64
	eventually(c.t, "the job's id", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		id = c.job
		return id != 0
	})
	return id
}

func (c *fakeClient) jobError() *pb.JobError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// checkOutputs compares the outputs' values on the simulated data plane
// with the oracle.
func (c *fakeClient) checkOutputs(sim *simData, defs []*pb.TaskDef, outs []int32) {
	c.t.Helper()
	want := simOracle(defs)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range outs {
		r := c.outputs[o]
		got, ok := sim.get(r.Addresses, c.job, defs[o].Key)
		if !ok {
			c.t.Errorf("output %q: not at %v", defs[o].Key, r.Addresses)
			continue
		}
		if got != want[o] {
			c.t.Errorf("output %q = %d, want %d", defs[o].Key, got, want[o])
		}
	}
}

// eventually polls cond until it holds, failing the test after a generous
// deadline (a hang, not a timing check).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// silence makes the scheduler take the live worker called name as
// silent for d longer than it has been, and runs the periodic checks. With
// the default WorkerTimeout (10 s) and d beyond it, the tests lose one
// worker on purpose, while the others, heard from a moment ago, stay
// however slowly a loaded machine runs the test. (A short WorkerTimeout
// lost those too when the test process stalled for as long.)
func silence(t testing.TB, s *Server, name string, d time.Duration) {
	t.Helper()
	found := false
	s.locked("the test's silence", func() {
		for _, w := range s.live {
			if w.reg.Name == name {
				w.lastSeen = w.lastSeen.Add(-d)
				found = true
			}
		}
		s.checkTimeouts(time.Now())
	})
	if !found {
		t.Fatalf("no live worker called %s", name)
	}
}

// waitedNoWorker makes the scheduler take every task parked for want of a
// worker as parked d earlier than it was, and runs the periodic checks:
// the failure WorkerTimeout brings, without a WorkerTimeout short enough
// to lose the live workers of a stalled test process.
func waitedNoWorker(s *Server, d time.Duration) {
	s.locked("the test's wait for workers", func() {
		for _, j := range s.jobs {
			for k := range j.noWorker {
				j.noWorker[k].since = j.noWorker[k].since.Add(-d)
			}
		}
		s.checkTimeouts(time.Now())
	})
}

func newTestServer(t testing.TB, o SchedulerOptions) *Server {
	t.Helper()
	if o.Logger == nil {
		o.Logger = srvTestLogger()
	}
	s, err := NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// jobStates returns the task counts by state of the scheduler's only job.
func jobStates(s *Server) map[string]int {
	st := s.Status()
	if len(st.Jobs) != 1 {
		return nil
	}
	return st.Jobs[0].States
}

// treeGraph is a binary reduction tree over n leaves (n a power of two):
// leaves first, then each level; the last task is the root.
func treeGraph(n int) []tnode {
	nodes := make([]tnode, 0, 2*n)
	for i := range n {
		nodes = append(nodes, tnode{key: fmt.Sprintf("leaf-%d", i), prio: int64(i)})
	}
	lo, hi := 0, n
	for hi-lo > 1 {
		for k := lo; k < hi; k += 2 {
			nodes = append(nodes, tnode{key: fmt.Sprintf("sum-%d", len(nodes)), deps: []int32{int32(k), int32(k + 1)}, prio: int64(len(nodes))})
		}
		lo, hi = hi, len(nodes)
	}
	return nodes
}
