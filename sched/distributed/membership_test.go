package distributed

import (
	"log/slog"
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
