package distributed

import (
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// liveConsistent checks the scheduler's worker list against itself: every
// live worker's slot indexes it, no live worker is gone, scores match.
func liveConsistent(s *Server) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.score) != len(s.live) {
		return "score and live differ in length"
	}
	for k, w := range s.live {
		if w.slot != k {
			return "worker " + w.reg.Name + " has a stale slot"
		}
		if w.gone {
			return "departed worker " + w.reg.Name + " is listed as live"
		}
	}
	return ""
}

func liveNames(s *Server) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for _, w := range s.live {
		names = append(names, w.reg.Name+"@"+w.reg.DataAddress)
	}
	return names
}

// A worker that comes back at the same data address (a network blip on a
// worker with a fixed -listen port) supersedes its old session; the blips
// repeated and the new session then lost must leave the worker list equal
// to the sessions still connected, with a job still running to the end.
//
//	a (sim-a) ─blip→ a' (sim-a) ─blip→ a'' (sim-a) ─killed
//	b (sim-b) stays
func TestServerReRegisterSameAddress(t *testing.T) {
	var logs logBuffer
	s := newTestServer(t, SchedulerOptions{Logger: logs.logger()})
	sim := newSim()
	b := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "b"})
	_ = startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
	a1 := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
	if msg := liveConsistent(s); msg != "" {
		t.Fatalf("after one blip: %s (live %v)", msg, liveNames(s))
	}
	a2 := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
	eventually(t, "old sessions dropped", func() bool { return len(liveNames(s)) == 2 })
	if msg := liveConsistent(s); msg != "" {
		t.Fatalf("after two blips: %s (live %v)", msg, liveNames(s))
	}
	a2.kill()
	eventually(t, "a'' lost", func() bool { return len(liveNames(s)) == 1 })
	if msg := liveConsistent(s); msg != "" {
		t.Fatalf("after losing a'': %s (live %v)", msg, liveNames(s))
	}
	if got := liveNames(s); len(got) != 1 || got[0] != "b@"+b.addr {
		t.Errorf("live workers %v, want only b", got)
	}
	_ = a1
	if strings.Contains(logs.String(), "internal error") {
		t.Errorf("the scheduler logged an internal error:\n%s", logs.String())
	}

	// The scheduler still runs jobs, on b.
	defs := tdefs(treeGraph(8))
	outs := []int32{int32(len(defs) - 1)}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
}

// logBuffer collects a scheduler's log for assertions.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// debugLogger logs everything, debug lines included.
func (l *logBuffer) debugLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Len is the length of what was logged so far, a mark for Since.
func (l *logBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Len()
}

// Since returns what was logged after mark.
func (l *logBuffer) Since(mark int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()[mark:]
}

// Jobs that would never end end at once or after a bounded number of runs:
// a job asking for no outputs is a BAD_GRAPH error, a task that always fails
// under Retries of MaxInt32 runs MaxRetries+1 times, and the scheduler's
// "job failed" log line names the key and the task's message.
func TestServerJobLimits(t *testing.T) {
	t.Run("no outputs", func(t *testing.T) {
		s := newTestServer(t, SchedulerOptions{})
		startFakeWorker(t, s, newSim(), fakeWorkerOpts{name: "a"})
		for _, defs := range [][]*pb.TaskDef{nil, tdefs([]tnode{{key: "x"}})} {
			c := submit(t, s, Security{}, defs, &pb.Run{})
			eventually(t, "the job's answer", func() bool { return c.jobError() != nil })
			if e := c.jobError(); e.Kind != pb.JobError_BAD_GRAPH || !strings.Contains(e.Message, "no outputs") {
				t.Errorf("%d tasks: job error %v, want BAD_GRAPH saying no outputs", len(defs), e)
			}
		}
	})
	t.Run("retries capped", func(t *testing.T) {
		var logs logBuffer
		s := newTestServer(t, SchedulerOptions{Logger: logs.logger()})
		sim := newSim()
		startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
		defs := tdefs([]tnode{{key: "always-fails", op: "fail:1000000000"}})
		c := submit(t, s, Security{}, defs, &pb.Run{Outputs: []int32{0}, Retries: math.MaxInt32})
		eventually(t, "the job's error", func() bool { return c.jobError() != nil })
		if e := c.jobError(); e.Kind != pb.JobError_TASK || e.Failure.GetMessage() != "boom always-fails" {
			t.Errorf("job error %v, want the task's failure", e)
		}
		sim.mu.Lock()
		runs := sim.attempts["always-fails"]
		sim.mu.Unlock()
		if runs != MaxRetries+1 {
			t.Errorf("the task ran %d times, want MaxRetries+1 = %d", runs, MaxRetries+1)
		}
		log := logs.String()
		if !strings.Contains(log, "job failed") || !strings.Contains(log, "key=always-fails") || !strings.Contains(log, `message="boom always-fails"`) {
			t.Errorf("the log does not name the failed key and its message:\n%s", log)
		}
	})
}

// A worker may report only what it was given: a result for a task the
// scheduler assigned to another worker, or a replica of a value for which
// it runs no consumer, is refused (logged, and the worker told to drop
// it), so a rogue worker cannot slip forged values to clients or peers.
//
//	x (needs A=1: only a offers it)  ← r claims x done, with a forged value
//	y = x + 1 (output)               ← r claims a replica of x
func TestServerRefusesUnassignedResults(t *testing.T) {
	var logs logBuffer
	s := newTestServer(t, SchedulerOptions{Logger: logs.logger()})
	sim := newSim()
	holdAll := func(*pb.TaskSpec) bool { return true }
	a := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a", resources: map[string]float64{"A": 1}, hold: holdAll})
	r := startFakeWorker(t, s, sim, fakeWorkerOpts{name: "rogue", hold: holdAll})
	defs := tdefs([]tnode{{key: "x", res: map[string]float64{"A": 1}}, {key: "y", deps: []int32{0}, res: map[string]float64{"A": 1}}})
	outs := []int32{1}
	c := submit(t, s, Security{}, defs, &pb.Run{Outputs: outs})
	eventually(t, "x sent to a", func() bool { received, _, _, _, _ := a.snapshot(); return len(received) == 1 })
	job := c.jobID()

	// The rogue "computes" x and y with forged values and reports them.
	sim.mu.Lock()
	sim.vals[r.addr] = map[string]int64{simKey(job, "x"): 1000, simKey(job, "y"): 1000}
	sim.mu.Unlock()
	r.send(&pb.WorkerMessage{Done: []*pb.TaskDone{{Job: job, Key: "x", Nbytes: 8}}})
	eventually(t, "the refusal logged", func() bool { return strings.Contains(logs.String(), "not assigned") })

	a.release(nil) // a runs x honestly
	eventually(t, "y sent to a", func() bool { received, _, _, _, _ := a.snapshot(); return len(received) == 2 })
	r.send(&pb.WorkerMessage{
		Replicas: []*pb.Replica{{Job: job, Key: "x"}},
		Done:     []*pb.TaskDone{{Job: job, Key: "y", Nbytes: 8}},
	})
	a.release(nil)
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, defs, outs)
	c.mu.Lock()
	addrs := c.outputs[1].Addresses
	c.mu.Unlock()
	if slices.Contains(addrs, r.addr) {
		t.Errorf("output y announced at the rogue's address: %v", addrs)
	}
	s.mu.Lock()
	for _, j := range s.jobs {
		if x, ok := j.lookupKey("x"); ok && j.holds(x, r.id) {
			t.Errorf("the rogue is listed as holding x")
		}
	}
	s.mu.Unlock()
	// The release goes out on the rogue's own stream, which nothing
	// above waited for: wait for it (it was read at once).
	eventually(t, "the rogue told to drop x", func() bool {
		_, _, released, _, _ := r.snapshot()
		return slices.Contains(released, "x")
	})
}

// One client cannot exhaust the scheduler's memory: a job past
// MaxJobTasks or MaxJobBytes fails at once saying which limit, and the
// scheduler goes on running jobs within them.
func TestServerJobBudgets(t *testing.T) {
	s := newTestServer(t, SchedulerOptions{MaxJobTasks: 20, MaxJobBytes: 4000})
	sim := newSim()
	startFakeWorker(t, s, sim, fakeWorkerOpts{name: "a"})
	big := treeGraph(16) // 31 tasks
	c := submit(t, s, Security{}, tdefs(big), &pb.Run{Outputs: []int32{int32(len(big) - 1)}})
	eventually(t, "the job's error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_BAD_GRAPH || !strings.Contains(e.Message, "MaxJobTasks") {
		t.Errorf("31 tasks: %v, want BAD_GRAPH naming MaxJobTasks", e)
	}
	fat := []tnode{{key: "fat", op: strings.Repeat("x", 5000)}}
	c = submit(t, s, Security{}, tdefs(fat), &pb.Run{Outputs: []int32{0}})
	eventually(t, "the job's error", func() bool { return c.jobError() != nil })
	if e := c.jobError(); e.Kind != pb.JobError_BAD_GRAPH || !strings.Contains(e.Message, "MaxJobBytes") {
		t.Errorf("5000-byte task: %v, want BAD_GRAPH naming MaxJobBytes", e)
	}
	small := tdefs(treeGraph(8)) // 15 tasks
	outs := []int32{int32(len(small) - 1)}
	c = submit(t, s, Security{}, small, &pb.Run{Outputs: outs})
	eventually(t, "outputs", func() bool { return c.outputsReady(outs) })
	c.checkOutputs(sim, small, outs)
}
