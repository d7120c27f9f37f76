package distributed

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// A scripted run of the state machine through the fuzz harness, with
// checkServer after every step: two workers, a reduction tree, a blip of
// one worker (same address, new session) after it finished some roots, a
// forged result from the new session, completion, a lost output, a bad job and
// a cancellation.
func TestServerStateScripted(t *testing.T) {
	ss := newSimServer(3)
	ok := func(what string) { t.Helper(); ss.check(t, func() string { return " " + what }) }
	a := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 1})
	b := ss.register(t, &pb.Register{Name: "b", DataAddress: "10.0.0.2:1", Nthreads: 1})
	ok("two workers")

	// leaf0..3, s4 = leaf0+leaf1, s5 = leaf2+leaf3, root = s4+s5.
	defs := []*pb.TaskDef{
		{Key: "leaf-0"}, {Key: "leaf-1", Priority: 1}, {Key: "leaf-2", Priority: 2}, {Key: "leaf-3", Priority: 3},
		{Key: "s-4", Deps: []int32{0, 1}}, {Key: "s-5", Deps: []int32{2, 3}}, {Key: "root-6", Deps: []int32{4, 5}},
	}
	j := ss.submit(t, &pb.ClientMessage{Tasks: defs, Run: &pb.Run{Outputs: []int32{6}}})
	ok("job submitted")
	// One thread, saturation 2: each worker takes two roots.
	if got := jobStateCounts(ss, j); got[tsProcessing] != 4 || got[tsWaiting] != 3 {
		t.Fatalf("after submit: states %v, want 4 processing and 3 waiting", got)
	}
	if len(a.specs) != 2 || len(b.specs) != 2 {
		t.Fatalf("worker a was sent %d tasks, b %d; want 2 each", len(a.specs), len(b.specs))
	}

	// a finishes its two roots, then blips: the new session at the same
	// address replaces it, and what only a held is recomputed.
	ss.send(t, a, doneAll(a))
	ok("a reported its roots")
	a2 := ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 1})
	ok("a blipped")
	if !a.w.gone || a2.w.gone {
		t.Fatalf("after the blip: old session gone %v, new gone %v", a.w.gone, a2.w.gone)
	}
	if got := liveIDs(ss); !slices.Equal(got, []int32{b.w.id, a2.w.id}) {
		t.Fatalf("live workers %v, want [%d %d]", got, b.w.id, a2.w.id)
	}
	// b and the job's client were told to abandon fetches from the old
	// session's address.
	if !slices.Contains(b.lost, "10.0.0.1:1") || !slices.Contains(ss.lostPeers[j], "10.0.0.1:1") {
		t.Fatalf("after a's blip: b was told of lost peers %v, the client of %v; want 10.0.0.1:1 in both", b.lost, ss.lostPeers[j])
	}

	// a2 forges a result for a task assigned to b (the recomputed roots
	// went to b, the only live worker while the old session was dropped;
	// a2 is offered some of them by stealing): refused.
	forged := slices.IndexFunc(b.specs, func(p *pb.TaskSpec) bool { return p.Job == j.id })
	if forged < 0 {
		t.Fatal("b has none of the job's tasks")
	}
	key := b.specs[forged].Key
	ss.send(t, a2, &pb.WorkerMessage{Done: []*pb.TaskDone{{Job: j.id, Key: key, Nbytes: 8}}})
	ok("a2 forged a result")
	ss.s.mu.Lock()
	x, _ := j.lookupKey(key)
	st, proc := j.state[x], j.proc[x]
	ss.s.mu.Unlock()
	if st != tsProcessing || proc != b.w.id {
		t.Fatalf("after a2's forged result for %q: %s on %d, want processing on %d", key, stateNames[st], proc, b.w.id)
	}

	// Everyone behaves: the job completes.
	ss.settle(t, nil)
	ss.s.mu.Lock()
	holder := j.who[6]
	ss.s.mu.Unlock()
	if holder == 0 || ss.s.byID[holder].gone {
		t.Fatalf("the output is held by %d, not a live worker", holder)
	}

	// The client cannot fetch the output at its holder: it is recomputed
	// from lineage (its inputs were released) and announced again.
	ss.client(t, j, &pb.ClientMessage{Lost: []*pb.LostOutput{{Index: 6, Address: ss.s.byID[holder].reg.DataAddress}}})
	ok("the output was lost")
	if got := jobStateCounts(ss, j); got[tsMemory] != 0 || got[tsProcessing] == 0 {
		t.Fatalf("after the lost output: states %v, want recomputation under way", got)
	}
	ss.settle(t, nil)

	// A job with a duplicate key fails at once with BAD_GRAPH.
	bad := ss.submit(t)
	ss.client(t, bad, &pb.ClientMessage{Tasks: []*pb.TaskDef{{Key: "x"}, {Key: "x"}}, Run: &pb.Run{Outputs: []int32{1}}})
	ss.s.mu.Lock()
	ev := bad.out
	ss.s.mu.Unlock()
	if ev == nil || ev.Error == nil || ev.Error.Kind != pb.JobError_BAD_GRAPH || !strings.Contains(ev.Error.Message, "duplicate key") {
		t.Fatalf("a job with a duplicate key answered %v, want a BAD_GRAPH error", ev)
	}
	ok("a bad job")

	// The client of the first job goes away: the job is dropped and the
	// workers are told.
	ss.cancel(t, j, false)
	ok("the job was cancelled")
	if len(ss.s.jobs) != 0 {
		t.Fatalf("%d jobs left after the cancellation", len(ss.s.jobs))
	}

	// b leaves, the others are lost: no live worker is left.
	ss.disconnect(t, b, true)
	for _, sess := range ss.sessions {
		ss.disconnect(t, sess, false)
	}
	ok("every worker gone")
	if len(ss.s.live) != 0 || len(ss.s.score) != 0 {
		t.Fatalf("%d live workers and %d scores left", len(ss.s.live), len(ss.s.score))
	}
}

// checkServer must catch the corruptions it is there for; each case
// breaks one piece of bookkeeping of a healthy state.
func TestCheckServerCatches(t *testing.T) {
	cases := []struct {
		name, want string
		break_     func(s *Server, j *srvJob)
	}{
		{"stale slot", "has slot", func(s *Server, _ *srvJob) { s.live[0].slot = 1 }},
		{"gone but live", "listed as live", func(s *Server, _ *srvJob) { s.live[0].gone = true }},
		{"scores", "scores for", func(s *Server, _ *srvJob) { s.score = s.score[:1] }},
		{"stealIn", "stealIn", func(s *Server, _ *srvJob) { s.live[1].stealIn++ }},
		{"held", "held", func(s *Server, _ *srvJob) { s.live[0].held = -1 }},
		{"proc list", "does not list it", func(s *Server, j *srvJob) {
			for _, w := range s.live {
				if len(w.proc) > 0 {
					w.proc = w.proc[:len(w.proc)-1]
					return
				}
			}
		}},
		{"waiting count", "waits for", func(s *Server, j *srvJob) { j.waiting[6]++ }},
		{"need count", "need", func(s *Server, j *srvJob) { j.need[0]++ }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ss := newSimServer(3)
			ss.register(t, &pb.Register{Name: "a", DataAddress: "10.0.0.1:1", Nthreads: 1})
			ss.register(t, &pb.Register{Name: "b", DataAddress: "10.0.0.2:1", Nthreads: 1})
			j := ss.submit(t, &pb.ClientMessage{Tasks: []*pb.TaskDef{
				{Key: "l0"}, {Key: "l1"}, {Key: "l2"}, {Key: "l3"},
				{Key: "s4", Deps: []int32{0, 1}}, {Key: "s5", Deps: []int32{2, 3}}, {Key: "r6", Deps: []int32{4, 5}},
			}, Run: &pb.Run{Outputs: []int32{6}}})
			ss.check(t, func() string { return " setup" })
			ss.s.mu.Lock()
			defer ss.s.mu.Unlock()
			c.break_(ss.s, j)
			err := checkServer(ss.s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("checkServer after breaking %s: %v, want an error mentioning %q", c.name, err, c.want)
			}
		})
	}
}

// doneAll reports every task sess was sent as finished.
func doneAll(sess *simSession) *pb.WorkerMessage {
	m := &pb.WorkerMessage{}
	for _, p := range sess.specs {
		m.Done = append(m.Done, &pb.TaskDone{Job: p.Job, Key: p.Key, Nbytes: 8})
	}
	sess.specs = nil
	return m
}

func jobStateCounts(ss *simServer, j *srvJob) map[uint8]int {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	m := map[uint8]int{}
	for _, st := range j.state {
		m[st]++
	}
	return m
}

func liveIDs(ss *simServer) []int32 {
	ss.s.mu.Lock()
	defer ss.s.mu.Unlock()
	var ids []int32
	for _, w := range ss.s.live {
		ids = append(ids, w.id)
	}
	return ids
}

// Long random walks through the harness on every test run (the fuzz
// target covers only its seeds without -fuzz): 1000 sequences of up to
// 300 events from a fixed generator, each checked after every event and
// settled at the end.
func TestServerRandomWalks(t *testing.T) {
	n := uint64(1000)
	if testing.Short() {
		n = 200
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(seed, 11))
		data := make([]byte, 1500)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		runEvents(t, data, 300)
	}
}

// A worker's pending message whose tasks carry more bytes than one batch
// (large literals) is cut into several, in order, each under the limit
// unless one task alone is larger, and the last carries the message's
// other parts; a small message goes as it is.
func TestSplitSchedulerMessage(t *testing.T) {
	spec := func(key string, n int) *pb.TaskSpec { return &pb.TaskSpec{Job: 1, Key: key, Node: make([]byte, n)} }
	small := &pb.SchedulerMessage{Compute: []*pb.TaskSpec{spec("a", 10)}, Release: []*pb.KeyRef{{Job: 1, Key: "r"}}}
	if got := splitSchedulerMessage(small, 1000); len(got) != 1 || got[0] != small {
		t.Fatalf("a small message was cut into %d", len(got))
	}
	m := &pb.SchedulerMessage{
		Compute:    []*pb.TaskSpec{spec("a", 400), spec("b", 400), spec("c", 2000), spec("d", 100), spec("e", 300)},
		Steal:      []*pb.KeyRef{{Job: 1, Key: "s"}},
		Release:    []*pb.KeyRef{{Job: 1, Key: "r"}},
		CancelJobs: []uint64{7},
		LostPeers:  []string{"10.0.0.1:1"},
		Replicate:  []*pb.Dep{{Key: "h", Job: 1}},
		Retire:     true,
	}
	parts := splitSchedulerMessage(m, 1000)
	var keys [][]string
	for i, p := range parts {
		var ks []string
		size := 0
		for _, s := range p.Compute {
			ks = append(ks, s.Key)
			size += specSize(s)
		}
		keys = append(keys, ks)
		if size > 1000 && len(p.Compute) > 1 {
			t.Errorf("part %d holds %d bytes of tasks in %d specs, over the limit", i, size, len(p.Compute))
		}
		last := i == len(parts)-1
		if (len(p.Steal) > 0) != last || (len(p.Release) > 0) != last || (len(p.CancelJobs) > 0) != last || (len(p.LostPeers) > 0) != last {
			t.Errorf("part %d of %d: steals %v, releases %v, cancels %v, lost peers %v; want them in the last part only", i, len(parts), p.Steal, p.Release, p.CancelJobs, p.LostPeers)
		}
		if (len(p.Replicate) > 0) != last || p.Retire != last {
			t.Errorf("part %d of %d: replicate %v, retire %v; want them in the last part only", i, len(parts), p.Replicate, p.Retire)
		}
	}
	want := [][]string{{"a", "b"}, {"c"}, {"d", "e"}}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("tasks by part %v, want %v", keys, want)
	}
}
