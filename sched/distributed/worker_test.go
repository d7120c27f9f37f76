package distributed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// The worker tests drive workers from a fake scheduler written here with
// pb directly, so that they test the worker alone: the fake sends
// TaskSpecs, and the tests read what the worker answers.

// hangGuard bounds every wait of these tests; reaching it is a failure (a
// hang), never a timing assertion.
const hangGuard = 20 * time.Second

type stubSched struct {
	pb.UnimplementedSchedulerServer
	addr  string
	srv   *grpc.Server
	conns chan *stubConn
	ids   atomic.Int32
}

// stubConn is one worker session seen by the fake scheduler.
type stubConn struct {
	t    testing.TB
	reg  *pb.Register
	send chan *pb.SchedulerMessage
	recv chan *pb.WorkerMessage
	end  chan struct{} // close it to end the session from the scheduler's side
	once sync.Once

	// pending holds workerResults read from recv but not yet asked for.
	pending []*pb.WorkerMessage
	last    *pb.Heartbeat
}

func startStubSched(t testing.TB, sec Security) *stubSched {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opts, err := sec.serverOptions(quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	f := &stubSched{addr: lis.Addr().String(), srv: grpc.NewServer(opts...), conns: make(chan *stubConn, 16)}
	pb.RegisterSchedulerServer(f.srv, f)
	go f.srv.Serve(lis)
	t.Cleanup(f.srv.Stop)
	return f
}

func (f *stubSched) Connect(stream grpc.BidiStreamingServer[pb.WorkerMessage, pb.SchedulerMessage]) error {
	m, err := stream.Recv()
	if err != nil {
		return err
	}
	if m.Register == nil {
		return errors.New("fake scheduler: first message without Register")
	}
	id := f.ids.Add(1)
	if err := stream.Send(&pb.SchedulerMessage{Welcome: &pb.Welcome{WorkerId: id, HeartbeatIntervalMs: 20}}); err != nil {
		return err
	}
	c := &stubConn{reg: m.Register, send: make(chan *pb.SchedulerMessage, 64), recv: make(chan *pb.WorkerMessage, 1024), end: make(chan struct{})}
	f.conns <- c
	errc := make(chan error, 1)
	go func() {
		for {
			m, err := stream.Recv()
			if err != nil {
				errc <- err
				close(c.recv)
				return
			}
			c.recv <- m
		}
	}()
	for {
		select {
		case m := <-c.send:
			if err := stream.Send(m); err != nil {
				return err
			}
		case err := <-errc:
			return err
		case <-c.end:
			return errors.New("fake scheduler: session ended")
		}
	}
}

// accept waits for the next worker session.
func (f *stubSched) accept(t testing.TB) *stubConn {
	t.Helper()
	select {
	case c := <-f.conns:
		c.t = t
		return c
	case <-time.After(hangGuard):
		t.Fatal("no worker connected")
		return nil
	}
}

func (c *stubConn) close() { c.once.Do(func() { close(c.end) }) }

func (c *stubConn) compute(specs ...*pb.TaskSpec) {
	c.send <- &pb.SchedulerMessage{Compute: specs}
}

// next returns the worker's next message that carries more than a
// heartbeat, remembering the latest heartbeat.
func (c *stubConn) next() *pb.WorkerMessage {
	c.t.Helper()
	if len(c.pending) > 0 {
		m := c.pending[0]
		c.pending = c.pending[1:]
		return m
	}
	timeout := time.After(hangGuard)
	for {
		select {
		case m, ok := <-c.recv:
			if !ok {
				c.t.Fatal("worker session ended")
			}
			if m.Heartbeat != nil {
				c.last = m.Heartbeat
			}
			if len(m.Done)+len(m.Failed)+len(m.Missing)+len(m.Stolen) > 0 {
				return m
			}
		case <-timeout:
			c.t.Fatal("no message from the worker")
		}
	}
}

// workerResults collects n workerResults (done, failed or missing) by task key.
type workerResults struct {
	done    map[string]*pb.TaskDone
	failed  map[string]*pb.TaskFailed
	missing map[string][]*pb.MissingDep
	stolen  []*pb.StealReply
	order   []string // keys in the order they were reported
}

func (c *stubConn) results(n int) workerResults {
	c.t.Helper()
	r := workerResults{done: map[string]*pb.TaskDone{}, failed: map[string]*pb.TaskFailed{}, missing: map[string][]*pb.MissingDep{}}
	for got := 0; got < n; {
		m := c.next()
		for _, d := range m.Done {
			r.done[d.Key] = d
			r.order = append(r.order, d.Key)
			got++
		}
		for _, f := range m.Failed {
			r.failed[f.Key] = f
			r.order = append(r.order, f.Key)
			got++
		}
		for _, d := range m.Missing {
			if len(r.missing[d.Key]) == 0 {
				got++
				r.order = append(r.order, d.Key)
			}
			r.missing[d.Key] = append(r.missing[d.Key], d)
		}
		r.stolen = append(r.stolen, m.Stolen...)
		if len(m.Stolen) > 0 && len(m.Done)+len(m.Failed)+len(m.Missing) == 0 {
			c.pending = append(c.pending, m)
			break
		}
	}
	return r
}

// run computes specs (whose dependencies are done) and waits for their
// workerResults.
func (c *stubConn) run(specs ...*pb.TaskSpec) workerResults {
	c.t.Helper()
	c.compute(specs...)
	return c.results(len(specs))
}

// waitHeartbeat waits for a heartbeat for which ok holds.
func (c *stubConn) waitHeartbeat(ok func(*pb.Heartbeat) bool) *pb.Heartbeat {
	c.t.Helper()
	timeout := time.After(hangGuard)
	for {
		select {
		case m, open := <-c.recv:
			if !open {
				c.t.Fatal("worker session ended")
			}
			if len(m.Done)+len(m.Failed)+len(m.Missing)+len(m.Stolen) > 0 {
				c.pending = append(c.pending, m)
			}
			if m.Heartbeat != nil {
				c.last = m.Heartbeat
				if ok(m.Heartbeat) {
					return m.Heartbeat
				}
			}
		case <-timeout:
			c.t.Fatalf("no heartbeat as wanted; last %v", c.last)
		}
	}
}

// encode returns n's wire form.
func wireNode(t testing.TB, n graph.Node) []byte {
	t.Helper()
	b, err := graph.EncodeNode(nil, &n)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spec returns a TaskSpec of job 1 whose dependencies are at addrs.
func taskSpec(t testing.TB, key string, n graph.Node, deps map[string][]string) *pb.TaskSpec {
	s := &pb.TaskSpec{Job: 1, Key: key, Node: wireNode(t, n)}
	for _, k := range sortedDepKeys(deps) {
		s.Deps = append(s.Deps, &pb.Dep{Key: k, Addresses: deps[k]})
	}
	return s
}

func sortedDepKeys(m map[string][]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func startTestWorker(t testing.TB, f *stubSched, opts WorkerOptions) (*Worker, *stubConn) {
	t.Helper()
	opts.Scheduler = f.addr
	if opts.Threads == 0 {
		opts.Threads = 2
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = hangGuard
	}
	w, err := StartWorker(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, f.accept(t)
}

func fetchValue(t testing.TB, addr string, job uint64, key string) (any, error) {
	t.Helper()
	d := newDataClient(Security{})
	defer d.close()
	v, err := d.fetch(context.Background(), addr, job, []string{key})
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

func TestWorkerRunsTasks(t *testing.T) {
	f := startStubSched(t, Security{})
	w, c := startTestWorker(t, f, WorkerOptions{Name: "w1", Resources: map[string]float64{"GPU": 1}, MemoryLimit: 1 << 30})
	if c.reg.Name != "w1" || c.reg.DataAddress != w.DataAddr() || c.reg.Nthreads != 2 || c.reg.Resources["GPU"] != 1 || c.reg.MemoryLimit != 1<<30 || c.reg.Pid == 0 {
		t.Fatalf("register %v", c.reg)
	}
	me := []string{w.DataAddr()}
	//	a=1   b=inc(a)   c=add(a, b, 10)   d=alias(c)   e=sumlist([a, b, c])
	r := c.run(taskSpec(t, "a", graph.Literal(1), nil))
	if d := r.done["a"]; d == nil || d.Nbytes != 8 || d.Type != "int" {
		t.Fatalf("a: %v", r)
	}
	c.run(taskSpec(t, "b", graph.Task(schedtest.Inc, graph.Ref("a")), map[string][]string{"a": me}))
	c.run(taskSpec(t, "c", graph.Task(schedtest.Add, graph.Ref("a"), graph.Ref("b"), graph.Lit(10)), map[string][]string{"a": me, "b": me}))
	r = c.run(
		taskSpec(t, "d", graph.Alias("c"), map[string][]string{"c": me}),
		taskSpec(t, "e", graph.Task(schedtest.SumList, graph.List(graph.Ref("a"), graph.Ref("b"), graph.Ref("c"))), map[string][]string{"a": me, "b": me, "c": me}),
	)
	if len(r.done) != 2 {
		t.Fatalf("d, e: %+v", r)
	}
	for k, want := range map[string]any{"a": 1, "b": 2, "c": 13, "d": 13, "e": 16} {
		if got, err := fetchValue(t, w.DataAddr(), 1, k); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", k, got, err, want)
		}
	}

}

func TestWorkerFailures(t *testing.T) {
	f := startStubSched(t, Security{})
	_, c := startTestWorker(t, f, WorkerOptions{Name: "w1", Resources: map[string]float64{"GPU": 1}})
	unknown := wireNode(t, graph.Task(schedtest.Add, graph.Lit(1)))
	unknown = bytes.Replace(unknown, []byte("schedtest.add"), []byte("schedtest.zzz"), 1)
	gpu2 := taskSpec(t, "gpu2", graph.Task(schedtest.Inc, graph.Lit(1)), nil)
	gpu2.Resources = map[string]float64{"GPU": 2}
	r := c.run(
		taskSpec(t, "fail", graph.Task(schedtest.Fail), nil),
		taskSpec(t, "panic", graph.Task(schedtest.Panic), nil),
		&pb.TaskSpec{Job: 1, Key: "unknown", Node: unknown},
		&pb.TaskSpec{Job: 1, Key: "garbage", Node: []byte{0xff, 1, 2}},
		taskSpec(t, "badarg", graph.Task(schedtest.Inc, graph.Lit("x")), nil),
		taskSpec(t, "nodep", graph.Task(schedtest.Inc, graph.Ref("zz")), nil),
		gpu2,
	)
	tests := []struct {
		key, message, sentinel string
		panic                  bool
	}{
		{"fail", "schedtest: boom", "schedtest.ErrBoom", false},
		{"panic", "panic: schedtest: boom", "", true},
		{"unknown", `"schedtest.zzz"`, "", false},
		{"garbage", `"garbage"`, "", false},
		{"badarg", "want int", "", false},
		{"nodep", `"zz"`, "", false},
		{"gpu2", "GPU=2", "", false},
	}
	for _, tt := range tests {
		f := r.failed[tt.key]
		if f == nil {
			t.Errorf("%s: not failed; workerResults %v", tt.key, r.order)
			continue
		}
		if !strings.Contains(f.Failure.Message, tt.message) || f.Failure.Sentinel != tt.sentinel || f.Failure.Panic != tt.panic {
			t.Errorf("%s: failure %v; want message containing %q, sentinel %q, panic %v", tt.key, f.Failure, tt.message, tt.sentinel, tt.panic)
		}
		if tt.panic && (f.Failure.PanicValue != "schedtest: boom" || !bytes.Contains(f.Failure.Stack, []byte("schedtest.panicOp"))) {
			t.Errorf("%s: panic value %q, stack %d bytes", tt.key, f.Failure.PanicValue, len(f.Failure.Stack))
		}
	}
	if _, ok := graph.LookupError(r.failed["fail"].Failure.Sentinel); !ok {
		t.Errorf("sentinel %q is not registered", r.failed["fail"].Failure.Sentinel)
	}
}

// gauge records how many gaugeOp tasks run at once.
var gauge struct{ now, peak atomic.Int32 }

// gaugeOp sleeps for its int argument in milliseconds, or until its
// context is done, counting itself in gauge meanwhile, and returns the
// argument.
var gaugeOp graph.Op = &graph.FuncOp{OpName: "distributed_test.gauge", Fn: func(ctx context.Context, args []any) (any, error) {
	n := gauge.now.Add(1)
	defer gauge.now.Add(-1)
	for {
		p := gauge.peak.Load()
		if n <= p || gauge.peak.CompareAndSwap(p, n) {
			break
		}
	}
	select {
	case <-time.After(time.Duration(args[0].(int)) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return args[0], nil
}}

// bytesOp returns its int argument's worth of bytes, each the second
// argument.
var bytesOp graph.Op = &graph.FuncOp{OpName: "distributed_test.bytes", Fn: func(_ context.Context, args []any) (any, error) {
	return bytes.Repeat([]byte{byte(args[1].(int))}, args[0].(int)), nil
}}

// byteSumOp returns the sum of the bytes of its []byte arguments.
var byteSumOp graph.Op = &graph.FuncOp{OpName: "distributed_test.bytesum", Fn: func(_ context.Context, args []any) (any, error) {
	s := 0
	for _, a := range args {
		b, ok := a.([]byte)
		if !ok {
			return nil, fmt.Errorf("bytesum: argument of type %T", a)
		}
		for _, x := range b {
			s += int(x)
		}
	}
	return s, nil
}}

// opaqueOp returns a value that the codec cannot encode.
var opaqueOp graph.Op = &graph.FuncOp{OpName: "distributed_test.opaque", Fn: func(context.Context, []any) (any, error) {
	return unencodable{1}, nil
}}

func init() {
	graph.Register(gaugeOp)
	graph.Register(bytesOp)
	graph.Register(opaqueOp)
	graph.Register(byteSumOp)
}

func TestWorkerPriorityAndSteal(t *testing.T) {
	f := startStubSched(t, Security{})
	_, c := startTestWorker(t, f, WorkerOptions{Threads: 1})
	// One thread: the blocker runs, the rest queue behind it. It waits on
	// a gate opened after the steal, not for a time: a 300 ms sleep could
	// end before a loaded machine delivered the steal, and the task to
	// steal would have run.
	open := make(chan struct{})
	gateOpen.Store(&open)
	openGate := sync.OnceFunc(func() { close(open) })
	defer openGate()
	c.compute(taskSpec(t, "blocker", graph.Task(gate, graph.Lit(0)), nil))
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Executing == 1 })
	var specs []*pb.TaskSpec
	for i, p := range []int64{5, 1, 4, 2, 3, 1} {
		s := taskSpec(t, fmt.Sprint("p", p, "-", i), graph.Task(schedtest.Inc, graph.Lit(i)), nil)
		s.Priority = p
		specs = append(specs, s)
	}
	c.compute(specs...)
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Queued == 6 })
	c.send <- &pb.SchedulerMessage{Steal: []*pb.KeyRef{{Job: 1, Key: "p4-2"}, {Job: 1, Key: "blocker"}, {Job: 1, Key: "nope"}}}
	m := c.next()
	want := []*pb.StealReply{{Job: 1, Key: "p4-2", Stolen: true}, {Job: 1, Key: "blocker"}, {Job: 1, Key: "nope"}}
	if len(m.Stolen) != 3 {
		t.Fatalf("steal replies %v, want %v", m.Stolen, want)
	}
	for i := range want {
		if m.Stolen[i].Key != want[i].Key || m.Stolen[i].Stolen != want[i].Stolen {
			t.Fatalf("steal replies %v, want %v", m.Stolen, want)
		}
	}
	openGate()
	r := c.results(6) // the blocker and five left
	wantOrder := []string{"blocker", "p1-1", "p1-5", "p2-3", "p3-4", "p5-0"}
	if !reflect.DeepEqual(r.order, wantOrder) {
		t.Fatalf("ran %v, want %v (by priority, then arrival; p4-2 stolen)", r.order, wantOrder)
	}
}

func TestWorkerResources(t *testing.T) {
	f := startStubSched(t, Security{})
	_, c := startTestWorker(t, f, WorkerOptions{Threads: 4, Resources: map[string]float64{"GPU": 2}})
	gauge.peak.Store(0)
	var specs []*pb.TaskSpec
	for i := range 6 {
		s := taskSpec(t, fmt.Sprint("g", i), graph.Task(gaugeOp, graph.Lit(30)), nil)
		s.Resources = map[string]float64{"GPU": 1}
		specs = append(specs, s)
	}
	r := c.run(specs...)
	if len(r.done) != 6 {
		t.Fatalf("results %v", r.order)
	}
	if p := gauge.peak.Load(); p > 2 {
		t.Fatalf("%d tasks holding GPU=1 ran at once on a worker offering GPU=2", p)
	}
}

func TestWorkerCancelAndRelease(t *testing.T) {
	f := startStubSched(t, Security{})
	w, c := startTestWorker(t, f, WorkerOptions{Threads: 2})
	c.run(taskSpec(t, "x", graph.Literal("kept"), nil), taskSpec(t, "y", graph.Literal("released"), nil))
	other := taskSpec(t, "z", graph.Literal("other job"), nil)
	other.Job = 2
	c.run(other)

	c.send <- &pb.SchedulerMessage{Release: []*pb.KeyRef{{Job: 1, Key: "y"}}}
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.StoredKeys == 2 })
	var me *MissingDataError
	if _, err := fetchValue(t, w.DataAddr(), 1, "y"); !errors.As(err, &me) {
		t.Fatalf("released y: got %v, want *MissingDataError", err)
	}

	// A long task of job 1 runs; cancelling job 1 stops it and drops x.
	c.compute(taskSpec(t, "long", graph.Task(schedtest.Sleep, graph.Lit(60000), graph.Lit(0)), nil),
		taskSpec(t, "queued", graph.Task(schedtest.Sleep, graph.Lit(60000), graph.Lit(0)), nil),
		taskSpec(t, "queued2", graph.Task(schedtest.Sleep, graph.Lit(60000), graph.Lit(0)), nil))
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Executing == 2 && h.Queued == 1 })
	c.send <- &pb.SchedulerMessage{CancelJobs: []uint64{1}}
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Executing == 0 && h.Queued == 0 && h.StoredKeys == 1 })
	if _, err := fetchValue(t, w.DataAddr(), 1, "x"); !errors.As(err, &me) {
		t.Fatalf("x of a cancelled job: got %v, want *MissingDataError", err)
	}
	if v, err := fetchValue(t, w.DataAddr(), 2, "z"); err != nil || v != "other job" {
		t.Fatalf("z of job 2: %v, %v", v, err)
	}
	// Nothing was reported for the cancelled tasks, and late tasks of the
	// cancelled job are ignored.
	c.compute(taskSpec(t, "late", graph.Literal(1), nil))
	c.run(other) // job 2's value again: done at once
	if len(c.pending) > 0 {
		t.Fatalf("unexpected results %v", c.pending)
	}
}

func TestWorkerPeers(t *testing.T) {
	f := startStubSched(t, Security{})
	w1, c1 := startTestWorker(t, f, WorkerOptions{Name: "w1"})
	w2, c2 := startTestWorker(t, f, WorkerOptions{Name: "w2"})
	c1.run(taskSpec(t, "x", graph.Literal(5), nil), taskSpec(t, "big", graph.Task(bytesOp, graph.Lit(9<<20), graph.Lit(3)), nil))
	c2.run(taskSpec(t, "y", graph.Literal(7), nil))

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := lis.Addr().String()
	lis.Close()

	// x and big come from w1 in one call, y is local; the dead address is
	// tried first for x.
	r := c2.run(taskSpec(t, "sum", graph.Task(schedtest.Add, graph.Ref("x"), graph.Ref("y"), graph.Nested(schedtest.Inc, graph.Lit(0))),
		map[string][]string{"x": {dead, w1.DataAddr()}, "y": {w2.DataAddr()}}),
		taskSpec(t, "len", graph.Task(schedtest.Tuple, graph.Ref("big")), map[string][]string{"big": {w1.DataAddr()}}))
	if len(r.done) != 2 {
		t.Fatalf("results %+v", r)
	}
	if v, err := fetchValue(t, w2.DataAddr(), 1, "sum"); err != nil || v != 13 {
		t.Fatalf("sum = %v, %v; want 13", v, err)
	}
	v, err := fetchValue(t, w2.DataAddr(), 1, "len")
	if l, ok := v.([]any); err != nil || !ok || len(l) != 1 || !bytes.Equal(l[0].([]byte), bytes.Repeat([]byte{3}, 9<<20)) {
		t.Fatalf("len: %T, %v", v, err)
	}

	// A dependency that no address serves: MissingDep with the addresses
	// tried, and the task is dropped.
	r = c2.run(taskSpec(t, "m", graph.Task(schedtest.Add, graph.Ref("x"), graph.Ref("nope"), graph.Ref("nope2")),
		map[string][]string{"x": {w1.DataAddr()}, "nope": {w1.DataAddr(), dead}, "nope2": {w2.DataAddr()}}))
	md := r.missing["m"]
	if len(md) != 2 || len(r.done)+len(r.failed) != 0 {
		t.Fatalf("results %+v, want two MissingDep of m", r)
	}
	got := map[string][]string{}
	for _, d := range md {
		got[d.Dep] = d.Addresses
	}
	if want := map[string][]string{"nope": {w1.DataAddr(), dead}, "nope2": {w2.DataAddr()}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("missing %v, want %v", got, want)
	}

	// A dependency that cannot be sent fails the task: asking the
	// scheduler for it again would not help.
	c1.run(taskSpec(t, "opaque", graph.Task(opaqueOp), nil))
	r = c2.run(taskSpec(t, "o", graph.Task(schedtest.Tuple, graph.Ref("opaque")), map[string][]string{"opaque": {w1.DataAddr()}}))
	if f := r.failed["o"]; f == nil || !strings.Contains(f.Failure.Message, `"opaque"`) || !strings.Contains(f.Failure.Message, "cannot be sent") {
		t.Fatalf("results %+v, want o failed naming its dependency", r)
	}
	c2.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Executing == 0 && h.Queued == 0 })
}

func TestWorkerSpills(t *testing.T) {
	f := startStubSched(t, Security{})
	dir := t.TempDir() + "/not/yet"
	w, c := startTestWorker(t, f, WorkerOptions{MemoryLimit: 50000, SpillDir: dir})
	var specs []*pb.TaskSpec
	for i := range 20 {
		specs = append(specs, taskSpec(t, fmt.Sprint("b", i), graph.Task(bytesOp, graph.Lit(10000), graph.Lit(i)), nil))
	}
	r := c.run(specs...)
	if len(r.done) != 20 || r.done["b0"].Nbytes != 10000 {
		t.Fatalf("results %+v", r)
	}
	// Until the 17 least recently used values (b0 and b1 among them) are
	// on disk: spills are written in the background, and a value read
	// while its file is being written is read from memory (a loaded
	// machine once ran t then, and counted one unspill, not two).
	h := c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.SpillCount >= 17 })
	if h.MemoryBytes > 30000 || h.SpilledBytes < 100000 || h.RssBytes <= 0 {
		t.Fatalf("heartbeat %v: want at most 30000 bytes in memory, the rest spilled", h)
	}
	// A task reads spilled values back; a peer fetch streams them.
	c.run(taskSpec(t, "t", graph.Task(schedtest.Tuple, graph.Ref("b0"), graph.Ref("b1")), map[string][]string{"b0": {w.DataAddr()}, "b1": {w.DataAddr()}}))
	for _, k := range []string{"t", "b2", "b19"} {
		v, err := fetchValue(t, w.DataAddr(), 1, k)
		if err != nil {
			t.Fatal(err)
		}
		if k == "t" {
			l := v.([]any)
			if !bytes.Equal(l[0].([]byte), bytes.Repeat([]byte{0}, 10000)) || !bytes.Equal(l[1].([]byte), bytes.Repeat([]byte{1}, 10000)) {
				t.Fatal("t: values changed through a spill")
			}
		} else if i := int(k[1] - '0'); len(k) == 2 && !bytes.Equal(v.([]byte), bytes.Repeat([]byte{byte(i)}, 10000)) {
			t.Fatalf("%s changed through a spill", k)
		}
	}
	// At least one of t's inputs came back from disk. (Not always both:
	// on a loaded machine one was still, or again, in memory when t
	// read it, whatever the test waited for; the values above are
	// checked whole either way.)
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.UnspillCount >= 1 })
	c.send <- &pb.SchedulerMessage{CancelJobs: []uint64{1}}
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.StoredKeys == 0 && h.SpilledBytes == 0 })
	w.Close()
	if ents, err := readDirNames(dir); err != nil || len(ents) != 0 {
		t.Fatalf("spill dir after Close: %v, %v; want it empty and kept", ents, err)
	}
}

func TestWorkerToken(t *testing.T) {
	f := startStubSched(t, Security{Token: "right"})
	for _, tok := range []string{"", "wrong"} {
		_, err := StartWorker(context.Background(), WorkerOptions{Scheduler: f.addr, Security: Security{Token: tok}, Logger: quietLogger(), ConnectTimeout: hangGuard})
		if !errors.Is(err, ErrUnauthenticated) {
			t.Fatalf("token %q: got %v, want ErrUnauthenticated", tok, err)
		}
	}
	w, c := startTestWorker(t, f, WorkerOptions{Security: Security{Token: "right"}})
	// Its data plane wants the token too.
	if _, err := fetchValue(t, w.DataAddr(), 1, "x"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("fetch without the token: got %v, want ErrUnauthenticated", err)
	}
	c.close()
}

func TestWorkerSchedulerLost(t *testing.T) {
	t.Run("reconnects", func(t *testing.T) {
		f := startStubSched(t, Security{})
		w, c := startTestWorker(t, f, WorkerOptions{})
		c.run(taskSpec(t, "x", graph.Literal(1), nil))
		c.close() // the session breaks; the worker comes back, empty
		c2 := f.accept(t)
		if c2.reg.DataAddress != w.DataAddr() {
			t.Fatalf("registered again with %s, want %s", c2.reg.DataAddress, w.DataAddr())
		}
		var me *MissingDataError
		if _, err := fetchValue(t, w.DataAddr(), 1, "x"); !errors.As(err, &me) {
			t.Fatalf("x after reconnecting: got %v, want *MissingDataError", err)
		}
		c2.run(taskSpec(t, "y", graph.Literal(2), nil))
	})
	t.Run("gives up", func(t *testing.T) {
		f := startStubSched(t, Security{})
		w, c := startTestWorker(t, f, WorkerOptions{ConnectTimeout: 300 * time.Millisecond})
		c.compute(taskSpec(t, "long", graph.Task(schedtest.Sleep, graph.Lit(60000), graph.Lit(0)), nil))
		f.srv.Stop()
		errc := make(chan error, 1)
		go func() { errc <- w.Wait() }()
		select {
		case err := <-errc:
			if err == nil || !strings.Contains(err.Error(), f.addr) {
				t.Fatalf("Wait: %v, want an error naming %s", err, f.addr)
			}
		case <-time.After(hangGuard):
			t.Fatal("Wait did not return")
		}
	})
	t.Run("no scheduler at start", func(t *testing.T) {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := lis.Addr().String()
		lis.Close()
		_, err = StartWorker(context.Background(), WorkerOptions{Scheduler: addr, Logger: quietLogger(), ConnectTimeout: 200 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), addr) {
			t.Fatalf("got %v, want an error naming %s", err, addr)
		}
	})
}

func TestWorkerStopsCleanly(t *testing.T) {
	f := startStubSched(t, Security{})
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := StartWorker(ctx, WorkerOptions{Scheduler: f.addr, Threads: 3, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	c := f.accept(t)
	c.compute(taskSpec(t, "long", graph.Task(schedtest.Sleep, graph.Lit(60000), graph.Lit(0)), nil))
	c.waitHeartbeat(func(h *pb.Heartbeat) bool { return h.Executing == 1 })
	cancel()
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait after cancel: %v", err)
	}
	w.Close() // again: no effect
	deadline := time.Now().Add(hangGuard)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the worker stopped, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

// TestWorkerSpillEndToEnd runs, on a scheduler and two workers whose
// memory limits are far below the graph's data, a sum over 64 blocks of
// 20 kB: the blocks spill while they pile up, come back for the sum, and
// the result is the formula's.
//
//	b0 .. b63   (20 kB each, 1.28 MB in all; limit 200 kB per worker)
//	 \  |  /
//	   sum
func TestWorkerSpillEndToEnd(t *testing.T) {
	c, err := StartCluster(context.Background(), ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true, MemoryLimit: 200000})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n, size = 64, 20000
	g := graph.New(n + 1)
	var args []graph.Arg
	want := 0
	for i := range n {
		k := graph.Key(fmt.Sprint("b", i))
		if err := g.Set(k, graph.Task(bytesOp, graph.Lit(size), graph.Lit(i))); err != nil {
			t.Fatal(err)
		}
		args = append(args, graph.Ref(k))
		want += size * i
	}
	if err := g.Set("sum", graph.Task(byteSumOp, args...)); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(context.Background(), g, []graph.Key{"sum"})
	if err != nil || got[0] != want {
		t.Fatalf("sum = %v, %v; want %d", got, err, want)
	}
	deadline := time.Now().Add(hangGuard)
	for {
		var spills, unspills int64
		for _, w := range c.Server().Status().Workers {
			spills += w.SpillCount
			unspills += w.UnspillCount
		}
		if spills > 0 && unspills > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status shows %d spills, %d unspills; want some of each", spills, unspills)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A task the scheduler sends again as soon as the worker has reported it
// (a retry after a failure; also a MissingDep whose dependency came back,
// or a lost value recomputed here) runs again: the new copy used to be
// taken for the old one, which the runner had not yet forgotten, and
// dropped, so that the job waited for ever on a task the scheduler
// believed was running. The hook holds the runner in that window until
// the worker has handled the second copy (sent with a marker task).
func TestWorkerRerunsTaskSentAgainAtOnce(t *testing.T) {
	f := startStubSched(t, Security{})
	w, c := startTestWorker(t, f, WorkerOptions{Name: "w1", Threads: 2})
	fail := taskSpec(t, "fail", graph.Task(schedtest.Fail), nil)
	marker := taskSpec(t, "marker", graph.Task(schedtest.Inc, graph.Lit(1)), nil)
	var once sync.Once
	hook := func(key string) {
		if key != "fail" {
			return
		}
		once.Do(func() {
			c.compute(fail, marker)
			deadline := time.Now().Add(hangGuard)
			for {
				w.mu.Lock()
				_, handled := w.tasks[taskID{marker.Job, "marker"}]
				ran := w.store.has(marker.Job, "marker")
				w.mu.Unlock()
				if handled || ran || time.Now().After(deadline) {
					return
				}
				time.Sleep(time.Millisecond)
			}
		})
	}
	testHookTaskRan.Store(&hook)
	defer testHookTaskRan.Store(nil)
	c.compute(fail)
	r := c.results(3)
	if r.failed["fail"] == nil || r.done["marker"] == nil {
		t.Fatalf("results %v, want fail (twice) and marker", r.order)
	}
	n := 0
	for _, k := range r.order {
		if k == "fail" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("the task sent again ran %d times in all, want 2 (results %v)", n, r.order)
	}
}

// refusingSched refuses every worker session at once, as the scheduler
// does a worker whose token or certificate role is wrong.
type refusingSched struct {
	pb.UnimplementedSchedulerServer
}

func (refusingSched) Connect(grpc.BidiStreamingServer[pb.WorkerMessage, pb.SchedulerMessage]) error {
	return status.Error(codes.PermissionDenied, "refused a peer whose certificate is for another role")
}

// A refusal that reaches the worker before its Register went out is a
// refusal, not a broken stream: Send returns io.EOF, and hello asks Recv
// for the scheduler's status. The test waits until the refusal has
// arrived (a Send returns io.EOF) before hello sends, the order a loaded
// machine produced now and then.
func TestHelloAfterRefusal(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	pb.RegisterSchedulerServer(srv, refusingSched{})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	stream, err := pb.NewSchedulerClient(dialTest(t, lis.Addr().String(), Security{})).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(time.Millisecond) {
		if err := stream.Send(&pb.WorkerMessage{}); err == io.EOF {
			break
		} else if err != nil || time.Now().After(deadline) {
			t.Fatalf("the refusal did not arrive: %v", err)
		}
	}
	_, err = hello(stream, &pb.Register{Name: "w"})
	if status.Code(err) != codes.PermissionDenied || !errors.Is(unauthenticated(err), ErrUnauthenticated) {
		t.Fatalf("hello after a refusal: %v, want PermissionDenied (ErrUnauthenticated)", err)
	}
}
