package distributed

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/distributed/pb"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// Memory per task of a large job, on the scheduler and on the client.
// These are measurements, not tests (they assert nothing about the
// figures) and take tens of seconds and gigabytes at 5e6 tasks, so they
// run only when asked for:
//
//	go test ./sched/distributed -run '^$' -bench 'MemoryPerTask' -benchtime 1x
//
// The job is a binary reduction tree of schedtest.Add tasks over about
// n/2 leaves (addTreeN), the shape of Dask's delayed benchmark, with its
// short keys ("leaf[123]", "add-4[56]"); the -tokens runs name them as
// delayed and chunkarray do, with a 32-digit token ("leaf-3fa1…[123]").
//
// Scheduler: the client's messages are marshalled as gRPC would send
// them, then unmarshalled and handed to handleClient one by one, as
// Compute's receiver does, with one worker of one thread connected (so
// the roots wait in the root queue, as they do on a real cluster). B/task
// is the live heap (runtime.MemStats.HeapAlloc after a GC) the started
// job adds, divided by its tasks; inuse-B/task the same of HeapInuse
// (which counts partly empty spans too).
//
// Client: the live heap that Get holds beyond the caller's graph, per
// task: send-B/task while the encoded task list exists (sched.Plan,
// newJob, encode; Get builds one message at a time from it as it sends),
// run-B/task once it is sent (the job while it waits for its outputs), and events-B/task the latter with per-task
// callbacks (sched.Tracker and its bookkeeping). graph-B/task is the
// caller's graph itself, for comparison.
func BenchmarkSchedulerMemoryPerTask(b *testing.B) {
	for _, n := range memorySizes {
		b.Run(n.name, func(b *testing.B) {
			for b.Loop() {
				per, inuse := schedulerMemory(b, n.n, n.tokens)
				b.ReportMetric(per, "B/task")
				b.ReportMetric(inuse, "inuse-B/task")
			}
		})
	}
}

func BenchmarkClientMemoryPerTask(b *testing.B) {
	for _, n := range memorySizes {
		b.Run(n.name, func(b *testing.B) {
			for b.Loop() {
				gr, send, run := clientMemory(b, n.n, n.tokens, false)
				b.ReportMetric(gr, "graph-B/task")
				b.ReportMetric(send, "send-B/task")
				b.ReportMetric(run, "run-B/task")
				_, _, ev := clientMemory(b, n.n, n.tokens, true)
				b.ReportMetric(ev, "events-B/task")
			}
		})
	}
}

var memorySizes = []struct {
	name   string
	n      int
	tokens bool
}{{"1e5", 1e5, false}, {"1e6", 1e6, false}, {"5e6", 5e6, false}, {"1e6-tokens", 1e6, true}}

// addTreeN is schedtest.AddTree for any number of leaves: a binary tree
// of Add tasks over (n+1)/2 leaves Add(i, 1), an odd task out at a level
// carried to the next. It has 2*leaves-1 tasks. With tokens, every
// name carries a 32-digit token, as keys of delayed and chunkarray do.
func addTreeN(n int, tokens bool) (*graph.Graph, graph.Key) {
	leaves := max((n+1)/2, 1)
	g := graph.New(2 * leaves)
	name := func(s string) string {
		if !tokens {
			return s
		}
		tok, err := graph.Tokenize(s)
		if err != nil {
			panic(err)
		}
		return s + "-" + tok
	}
	leaf := name("leaf")
	level := make([]graph.Key, leaves)
	for i := range level {
		level[i] = graph.BlockKey(leaf, i)
		if err := g.AddTask(level[i], schedtest.Add, graph.Lit(i), graph.Lit(1)); err != nil {
			panic(err)
		}
	}
	for d := 1; len(level) > 1; d++ {
		name := name("add-" + strconv.Itoa(d))
		next := make([]graph.Key, 0, (len(level)+1)/2)
		for i := 0; i+1 < len(level); i += 2 {
			k := graph.BlockKey(name, i/2)
			if err := g.AddTask(k, schedtest.Add, graph.Ref(level[i]), graph.Ref(level[i+1])); err != nil {
				panic(err)
			}
			next = append(next, k)
		}
		if len(level)%2 == 1 {
			next = append(next, level[len(level)-1])
		}
		level = next
	}
	return g, level[0]
}

// liveHeap returns HeapAlloc and HeapInuse after two collections (the
// second frees what finalizers of the first kept).
func liveHeap() (alloc, inuse int64) {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc), int64(ms.HeapInuse)
}

// wireJob returns the client's messages for a tree of about n tasks,
// marshalled, and the number of tasks.
func wireJob(b *testing.B, n int, tokens bool) ([][]byte, int) {
	g, root := addTreeN(n, tokens)
	pg, d, want, err := sched.Plan(g, []graph.Key{root})
	if err != nil {
		b.Fatal(err)
	}
	j, err := newJob(pg, d, want, sched.HooksFrom(context.Background()))
	if err != nil {
		b.Fatal(err)
	}
	enc, err := j.encode(0, "memory")
	if err != nil {
		b.Fatal(err)
	}
	wire := make([][]byte, enc.count())
	for k := range wire {
		if wire[k], err = proto.Marshal(enc.message(k)); err != nil {
			b.Fatal(err)
		}
	}
	return wire, g.Len()
}

func schedulerMemory(b *testing.B, n int, tokens bool) (perTask, inusePerTask float64) {
	wire, tasks := wireJob(b, n, tokens)
	ss := newSimServer(3)
	w := ss.register(b, &pb.Register{Name: "w", DataAddress: "10.0.0.1:1", Nthreads: 1})
	a0, i0 := liveHeap()
	j := ss.submit(b)
	for _, buf := range wire {
		m := &pb.ClientMessage{}
		if err := proto.Unmarshal(buf, m); err != nil {
			b.Fatal(err)
		}
		ss.client(b, j, m)
	}
	// The first event (the job's id) and the roots sent to the worker
	// are on their way: not the scheduler's to keep.
	ss.s.mu.Lock()
	if j.out != nil && j.out.Error != nil {
		b.Fatalf("the job failed: %v", j.out.Error)
	}
	j.out, w.w.out = nil, nil
	ss.s.mu.Unlock()
	a1, i1 := liveHeap()
	if got := len(j.state); got != tasks {
		b.Fatalf("the scheduler started %d tasks, want %d", got, tasks)
	}
	runtime.KeepAlive(wire)
	runtime.KeepAlive(ss)
	return float64(a1-a0) / float64(tasks), float64(i1-i0) / float64(tasks)
}

func clientMemory(b *testing.B, n int, tokens, events bool) (graphBytes, send, run float64) {
	ag, _ := liveHeap()
	g, root := addTreeN(n, tokens)
	ctx := context.Background()
	if events {
		ctx = sched.WithCallbacks(ctx, &sched.Callbacks{Release: func(graph.Key) {}})
	}
	cb := sched.HooksFrom(ctx)
	a0, _ := liveHeap()
	pg, d, want, err := sched.Plan(g, []graph.Key{root})
	if err != nil {
		b.Fatal(err)
	}
	j, err := newJob(pg, d, want, cb)
	if err != nil {
		b.Fatal(err)
	}
	enc, err := j.encode(0, "memory")
	if err != nil {
		b.Fatal(err)
	}
	if j.events != events {
		b.Fatalf("job.events = %v, want %v", j.events, events)
	}
	a1, _ := liveHeap()
	runtime.KeepAlive(enc)
	a2, _ := liveHeap()
	runtime.KeepAlive(j)
	runtime.KeepAlive(g)
	tasks := float64(g.Len())
	return float64(a0-ag) / tasks, float64(a1-a0) / tasks, float64(a2-a0) / tasks
}
