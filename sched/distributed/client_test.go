package distributed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// fakeScheduler is a scheduler and a worker in one, for testing the client
// alone: it checks what the client sends (topological order, priorities,
// Run last), runs the tasks in task order in the test process, reports
// them, and serves their values to fakeData. It loses the first fetch of
// every key in lose once, to exercise LostOutput.
type fakeScheduler struct {
	pb.UnimplementedSchedulerServer

	mu     sync.Mutex
	jobs   map[uint64]map[string]any
	next   uint64
	lose   map[string]bool
	lost   []string // LostOutput received, by key
	msgs   int      // ClientMessages of the last job
	bigMsg int      // largest ClientMessage of the last job, in bytes
}

func (f *fakeScheduler) Compute(stream grpc.BidiStreamingServer[pb.ClientMessage, pb.ClientEvent]) error {
	ctx := stream.Context()
	var defs []*pb.TaskDef
	var run *pb.Run
	msgs, big := 0, 0
	for run == nil {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		msgs++
		big = max(big, proto.Size(m))
		defs = append(defs, m.Tasks...)
		run = m.Run
	}
	f.mu.Lock()
	f.next++
	id := f.next
	vals := map[string]any{}
	f.jobs[id] = vals
	f.msgs, f.bigMsg = msgs, big
	f.mu.Unlock()
	fail := func(kind pb.JobError_Kind, t int, format string, a ...any) error {
		return stream.Send(&pb.ClientEvent{Error: &pb.JobError{Index: int32(t), Kind: kind, Message: fmt.Sprintf(format, a...)}})
	}
	if err := stream.Send(&pb.ClientEvent{Job: id, Workers: []*pb.WorkerInfo{{Id: 3, Name: "fake", DataAddress: "fake:1"}}}); err != nil {
		return err
	}
	byKey := map[string]int{}
	for t, d := range defs {
		if d.Priority != int64(t) {
			return fail(pb.JobError_BAD_GRAPH, t, "priority %d at index %d", d.Priority, t)
		}
		for _, dep := range d.Deps {
			if dep < 0 || int(dep) >= t {
				return fail(pb.JobError_BAD_GRAPH, t, "dependency %d of %q not before it", dep, d.Key)
			}
		}
		byKey[d.Key] = t
	}
	out := map[int32]bool{}
	for _, o := range run.Outputs {
		if out[o] {
			return fail(pb.JobError_BAD_GRAPH, int(o), "output %d twice", o)
		}
		out[o] = true
	}
	local := make([]any, len(defs))
	lookup := func(k graph.Key) any { return local[byKey[string(k)]] }
	for t, d := range defs {
		var start, stop int64 // the run's times, as a worker reports them
		nd, err := graph.DecodeNode(d.Node)
		if err != nil {
			return fail(pb.JobError_INTERNAL, t, "%v", err)
		}
		switch nd.Kind {
		case graph.KindLiteral:
			local[t] = nd.Value
		case graph.KindAlias:
			local[t] = lookup(nd.Target)
		case graph.KindTask:
			start = time.Now().UnixNano()
			v, failure := runFake(ctx, &nd, lookup)
			stop = time.Now().UnixNano()
			if failure != nil {
				return stream.Send(&pb.ClientEvent{Error: &pb.JobError{Index: int32(t), Kind: pb.JobError_TASK, Failure: failure}})
			}
			local[t] = v
		}
		f.mu.Lock()
		vals[d.Key] = local[t]
		f.mu.Unlock()
		ev := &pb.ClientEvent{}
		if run.Events {
			ev.Events = []*pb.TaskEvent{{Index: int32(t), WorkerId: 3, StartUnixNano: start, StopUnixNano: stop}}
		}
		if out[int32(t)] {
			ev.Outputs = []*pb.OutputReady{{Index: int32(t), Addresses: []string{"fake:1"}}}
		}
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		for _, l := range m.Lost {
			f.mu.Lock()
			f.lost = append(f.lost, defs[l.Index].Key)
			f.mu.Unlock()
			if err := stream.Send(&pb.ClientEvent{Outputs: []*pb.OutputReady{{Index: l.Index, Addresses: []string{"fake:2"}}}}); err != nil {
				return err
			}
		}
	}
}

func runFake(ctx context.Context, nd *graph.Node, lookup func(graph.Key) any) (v any, failure *pb.Failure) {
	defer func() {
		if r := recover(); r != nil {
			failure = &pb.Failure{Message: fmt.Sprint(r), Panic: true, PanicValue: fmt.Sprint(r), Stack: debug.Stack()}
		}
	}()
	args, err := graph.Resolve(ctx, nil, nd.Args, lookup)
	if err == nil {
		v, err = nd.Op.Run(ctx, args)
	}
	if err != nil {
		name, _ := graph.ErrorName(err)
		return nil, &pb.Failure{Message: err.Error(), Sentinel: name}
	}
	return v, nil
}

// fakeData serves the fake scheduler's values.
type fakeData struct{ s *fakeScheduler }

func (d fakeData) fetch(ctx context.Context, addr string, job uint64, keys []string) ([]any, error) {
	d.s.mu.Lock()
	defer d.s.mu.Unlock()
	out := make([]any, len(keys))
	for i, k := range keys {
		if d.s.lose[k] {
			delete(d.s.lose, k)
			return nil, &MissingDataError{Address: addr, Key: k}
		}
		v, ok := d.s.jobs[job][k]
		if !ok {
			return nil, &MissingDataError{Address: addr, Key: k}
		}
		out[i] = v
	}
	return out, nil
}

func (fakeData) close()          {}
func (fakeData) dropPeer(string) {}

func startFake(t *testing.T) (*Client, *fakeScheduler) {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fs := &fakeScheduler{jobs: map[uint64]map[string]any{}, lose: map[string]bool{}}
	srv := grpc.NewServer()
	pb.RegisterSchedulerServer(srv, fs)
	go srv.Serve(lis)
	c, err := Connect(context.Background(), lis.Addr().String(), ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.data.close()
	c.data = fakeData{fs}
	t.Cleanup(func() {
		c.Close()
		srv.Stop()
	})
	return c, fs
}

// TestClientFake runs the conformance suite on a client whose scheduler
// and worker are the fake above: what it checks is the client's own part
// (validation, encoding, order, callbacks, error mapping, cancellation).
func TestClientFake(t *testing.T) {
	c, _ := startFake(t)
	schedtest.Run(t, c)
}

func TestClientLostOutput(t *testing.T) {
	c, fs := startFake(t)
	g, keys := schedtest.Wide(5)
	fs.mu.Lock()
	fs.lose[string(keys[2])] = true
	fs.mu.Unlock()
	got, err := c.Get(context.Background(), g, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != i+1 {
			t.Errorf("%s = %v, want %d", keys[i], v, i+1)
		}
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.lost) != 1 || fs.lost[0] != string(keys[2]) {
		t.Errorf("LostOutput for %v, want [%s]", fs.lost, keys[2])
	}
}

func TestClientLargeGraphMessages(t *testing.T) {
	c, fs := startFake(t)
	// Ten literals of 1 MiB, summed by length: at least five messages.
	//
	//	big-0 ... big-9   (1 MiB []byte each)
	//	     \    |    /
	//	      total = Σ len
	g := graph.New(0)
	var refs []graph.Arg
	for i := 0; i < 10; i++ {
		k := graph.BlockKey("big", i)
		if err := g.AddLiteral(k, make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("total", lenSum, refs...); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(context.Background(), g, []graph.Key{"total"})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != 10<<20 {
		t.Errorf("total = %v, want %d", got[0], 10<<20)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.msgs < 5 || fs.bigMsg > maxMessage+1<<20+4096 {
		t.Errorf("graph sent in %d messages, largest %d bytes; want ≥ 5, each ≤ about %d", fs.msgs, fs.bigMsg, maxMessage)
	}
}

var lenSum graph.Op = &graph.FuncOp{OpName: "distributed_test.lensum", Fn: func(_ context.Context, args []any) (any, error) {
	n := 0
	for _, a := range args {
		n += len(a.([]byte))
	}
	return n, nil
}}

var unregistered graph.Op = &graph.FuncOp{OpName: "distributed_test.unregistered", Fn: func(context.Context, []any) (any, error) { return 1, nil }}

func init() { graph.Register(lenSum) }

func TestClientEncodeError(t *testing.T) {
	c, fs := startFake(t)
	g, keys := schedtest.Wide(3)
	if err := g.AddTask("odd", unregistered, graph.Ref(keys[0])); err != nil {
		t.Fatal(err)
	}
	_, err := c.Get(context.Background(), g, []graph.Key{"odd"})
	var ee *EncodeError
	if !errors.As(err, &ee) || ee.Key != "odd" {
		t.Fatalf("Get error = %v (%T), want an *EncodeError naming %q", err, err, "odd")
	}
	var ue *graph.UnknownOpError
	if !errors.As(err, &ue) {
		t.Errorf("error %v does not wrap the *graph.UnknownOpError", err)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.next != 0 {
		t.Errorf("the scheduler saw %d jobs, want none", fs.next)
	}
}

func TestJobErrorMapping(t *testing.T) {
	g := graph.New(0)
	if err := g.AddLiteral("one", 1); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTask("b", schedtest.Inc, graph.Ref("one")); err != nil {
		t.Fatal(err)
	}
	d, err := g.Dependencies()
	if err != nil {
		t.Fatal(err)
	}
	j, err := newJob(g, d, []int32{1}, sched.HooksFrom(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	tb := j.prio[1] // task index of b
	tests := []struct {
		name  string
		je    *pb.JobError
		check func(error) bool
	}{
		{"task with sentinel", &pb.JobError{Index: tb, Kind: pb.JobError_TASK, Failure: &pb.Failure{Message: "schedtest: boom", Sentinel: "schedtest.ErrBoom"}},
			func(err error) bool {
				var te *sched.TaskError
				var re *RemoteError
				return errors.As(err, &te) && te.Key == "b" && te.Op == "schedtest.inc" && errors.As(err, &re) && errors.Is(err, schedtest.ErrBoom)
			}},
		{"task with unknown sentinel", &pb.JobError{Index: tb, Kind: pb.JobError_TASK, Failure: &pb.Failure{Message: "x", Sentinel: "nobody.Registered"}},
			func(err error) bool {
				var re *RemoteError
				return errors.As(err, &re) && re.Sentinel == nil && re.Message == "x"
			}},
		{"panic", &pb.JobError{Index: tb, Kind: pb.JobError_TASK, Failure: &pb.Failure{Panic: true, PanicValue: "oops", Stack: []byte("stack")}},
			func(err error) bool {
				var pe *sched.PanicError
				return errors.As(err, &pe) && pe.Value == "oops" && string(pe.Stack) == "stack"
			}},
		{"killed worker", &pb.JobError{Index: tb, Kind: pb.JobError_KILLED_WORKER, Message: `task "b" was running on 3 workers that died`},
			func(err error) bool {
				var te *sched.TaskError
				var ke *KilledWorkerError
				return errors.As(err, &te) && te.Key == "b" && errors.As(err, &ke) && ke.Key == "b" && ke.Failures == 3
			}},
		{"no worker", &pb.JobError{Index: tb, Kind: pb.JobError_NO_WORKER, Message: "no worker offers GPU=1"},
			func(err error) bool {
				var je *JobError
				return errors.As(err, &je) && je.Key == "b" && je.Kind == "no worker" && je.Message == "no worker offers GPU=1" &&
					errors.Is(err, ErrNoWorker) && !errors.Is(err, ErrBadGraph)
			}},
		{"internal without task", &pb.JobError{Index: -1, Kind: pb.JobError_INTERNAL, Message: "bug"},
			func(err error) bool {
				var je *JobError
				return errors.As(err, &je) && je.Key == "" && je.Kind == "internal" && errors.Is(err, ErrInternal) && !errors.Is(err, ErrNoWorker)
			}},
		{"bad graph", &pb.JobError{Index: -1, Kind: pb.JobError_BAD_GRAPH, Message: "the job asks for no outputs"},
			func(err error) bool {
				var je *JobError
				return errors.As(err, &je) && je.Kind == "bad graph" && errors.Is(err, ErrBadGraph) && !errors.Is(err, ErrInternal)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := j.jobError(tt.je); !tt.check(err) {
				t.Errorf("jobError(%v) = %#v (%v)", tt.je, err, err)
			}
		})
	}
}

func TestKilledCount(t *testing.T) {
	for msg, want := range map[string]int{
		`task "x-3" was running on 3 workers that died`: 3,
		"12 workers died":                   12,
		"killed worker":                     0,
		`task "a 7" ran on 4 worker(s)`:     4,
		"":                                  0,
		"allowed-failures 3 reached":        0,
		"on 2 workers, allowed failures 3.": 2,
	} {
		if got := killedCount(msg); got != want {
			t.Errorf("killedCount(%q) = %d, want %d", msg, got, want)
		}
	}
}

// fetchFailure's policy, case by case: a missing key is lost and the
// rest fetched again; a broken call loses all; a value that cannot be
// sent or is too large ends the job with an error naming it.
func TestClientFetchFailurePolicy(t *testing.T) {
	g := graph.New(3)
	for _, k := range []graph.Key{"a", "b", "c"} {
		if err := g.AddTask(k, schedtest.Inc, graph.Lit(1)); err != nil {
			t.Fatal(err)
		}
	}
	keys := []graph.Key{"a", "b", "c"}
	pg, d, want, err := sched.Plan(g, keys)
	if err != nil {
		t.Fatal(err)
	}
	j, err := newJob(pg, d, want, sched.HooksFrom(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	idx := slices.Clone(j.outputs)
	keyOf := func(ts []int32) []string {
		var ks []string
		for _, x := range ts {
			ks = append(ks, string(j.g.Key(int(j.byPrio[x]))))
		}
		slices.Sort(ks)
		return ks
	}
	const addr = "10.0.0.1:1"
	lost, again, err := j.fetchFailure(fetched{src: source{addr: addr}, idx: idx, err: &MissingDataError{Address: addr, Key: "b"}})
	if err != nil || !slices.Equal(keyOf(lost), []string{"b"}) || !slices.Equal(keyOf(again), []string{"a", "c"}) {
		t.Errorf("missing b: lost %v, again %v, err %v; want lost [b], again [a c]", keyOf(lost), keyOf(again), err)
	}
	lost, again, err = j.fetchFailure(fetched{src: source{addr: addr}, idx: idx, err: errors.New("connection reset")})
	if err != nil || len(lost) != 3 || len(again) != 0 {
		t.Errorf("broken call: lost %v, again %v, err %v; want all three lost", keyOf(lost), keyOf(again), err)
	}
	_, _, err = j.fetchFailure(fetched{src: source{addr: addr}, idx: idx, err: fmt.Errorf("wrapped: %w", &valueCodecError{Address: addr, Key: "c", Err: graph.ErrUnregisteredType})})
	var te *sched.TaskError
	if !errors.As(err, &te) || te.Key != "c" || !errors.Is(err, graph.ErrUnregisteredType) {
		t.Errorf("unencodable c: %v, want a *sched.TaskError for c wrapping graph.ErrUnregisteredType", err)
	}
	_, _, err = j.fetchFailure(fetched{src: source{addr: addr}, idx: idx, err: &ValueTooLargeError{Address: addr, Key: "a", Size: 10, Limit: 5}})
	var big *ValueTooLargeError
	if !errors.As(err, &big) || big.Key != "a" {
		t.Errorf("too large a: %v, want the *ValueTooLargeError", err)
	}
}

// The client's messages say what encoding each node and listing its
// dependencies by task index says (the oracle, node by node), in task
// index order, at most about maxMessage bytes a message, Run in the last.
//
//	big-0 .. big-2 (300 KiB, 1.5 MiB, 3 MiB literals)   leaf[0] .. leaf[1499]
//	          \  |  /                                      \  /   \  /
//	           lens                                        add-1[0] ...  (a tree)
func TestClientEncodedMessages(t *testing.T) {
	g, root := addTreeN(3000, false)
	keys := []graph.Key{root}
	var refs []graph.Arg
	for i, size := range []int{300 << 10, 3 << 19, 3 << 20} {
		k := graph.BlockKey("big", i)
		if err := g.AddLiteral(k, make([]byte, size)); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, graph.Ref(k))
	}
	if err := g.AddTask("lens", lenSum, refs...); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, "lens")
	pg, d, want, err := sched.Plan(g, keys)
	if err != nil {
		t.Fatal(err)
	}
	j, err := newJob(pg, d, want, sched.HooksFrom(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := j.encode(2, "name")
	if err != nil {
		t.Fatal(err)
	}
	var defs []*pb.TaskDef
	for m := range enc.count() {
		msg := enc.message(m)
		size := 0
		for _, def := range msg.Tasks {
			size += len(def.Node) + len(def.Key) + 5*len(def.Deps) + 16
		}
		if len(msg.Tasks) > 1 && size > maxMessage {
			t.Errorf("message %d: %d tasks of %d bytes, more than %d", m, len(msg.Tasks), size, maxMessage)
		}
		if (msg.Run != nil) != (m == enc.count()-1) {
			t.Errorf("message %d of %d: Run %v", m, enc.count(), msg.Run)
		}
		defs = append(defs, msg.Tasks...)
	}
	if enc.count() < 3 {
		t.Errorf("%d messages, want at least 3 (4.8 MiB of literals)", enc.count())
	}
	if len(defs) != pg.Len() {
		t.Fatalf("%d tasks sent, want %d", len(defs), pg.Len())
	}
	for ti, def := range defs {
		i := int(j.byPrio[ti])
		wantNode, err := graph.EncodeNode(nil, pg.At(i))
		if err != nil {
			t.Fatal(err)
		}
		var wantDeps []int32
		for _, dep := range d.Of(i) {
			wantDeps = append(wantDeps, j.prio[dep])
		}
		if def.Key != string(pg.Key(i)) || !bytes.Equal(def.Node, wantNode) || !slices.Equal(def.Deps, wantDeps) || def.Priority != int64(ti) {
			t.Fatalf("task %d: key %q, %d node bytes, deps %v, priority %d; want %q, %d bytes (equal: %v), %v, %d",
				ti, def.Key, len(def.Node), def.Deps, def.Priority, pg.Key(i), len(wantNode), bytes.Equal(def.Node, wantNode), wantDeps, ti)
		}
	}
	last := enc.message(enc.count() - 1).Run
	if last.Retries != 2 || last.Name != "name" || !slices.Equal(last.Outputs, j.outputs) {
		t.Errorf("Run = %v, want retries 2, name %q, outputs %v", last, "name", j.outputs)
	}
}
