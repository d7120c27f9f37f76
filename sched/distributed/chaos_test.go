package distributed

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// TestChaos runs jobs on a cluster of four worker processes while a driver
// injects one fault per round, in turn: a SIGKILL (the worker is replaced
// after the job), a SIGSTOP until the job ends, then SIGCONT (the
// scheduler drops the frozen worker after WorkerTimeout; its peers'
// fetches from it fail), a blip (the scheduler drops the worker's
// session; the worker reconnects at the same address), a restart (a clean
// stop and a new worker joining during the job), or nothing. Every job must end within jobBound with its
// exact result or a typed error (a task on too many dying workers); none
// may hang or be wrong, the scheduler must never report an internal error,
// and at the end its worker list must equal the processes alive. The
// figures (faults by kind, outcomes, time from a fault to the job's end)
// are logged; none is asserted.
func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills worker processes")
	}
	rounds := 40
	if raceEnabled {
		rounds = 10
	}
	const jobBound = 90 * time.Second
	var logs logBuffer
	c := startCluster(t, ClusterOptions{Workers: 4, ThreadsPerWorker: 2, Scheduler: SchedulerOptions{
		WorkerTimeout: 2 * time.Second, HeartbeatInterval: 200 * time.Millisecond, Logger: logs.debugLogger(),
	}})
	rng := rand.New(rand.NewPCG(11, 17))
	type outcome struct {
		fault string
		err   error
		took  time.Duration // from the fault to the job's end
	}
	var outcomes []outcome
	faults := map[string]int{}
	var stopped []*WorkerProcess // SIGSTOPped, to SIGCONT when the round ends

	alive := func() []*WorkerProcess {
		var ps []*WorkerProcess
		for _, p := range c.Workers() {
			select {
			case <-p.Done():
			default:
				ps = append(ps, p)
			}
		}
		return ps
	}
	for round := range rounds {
		g, keys, check := chaosJob(rng, round)
		mark := logs.Len()
		ctx, cancel := context.WithTimeout(context.Background(), jobBound)
		errc := make(chan error, 1)
		go func() {
			got, err := c.Get(ctx, g, keys)
			if err == nil {
				err = check(got)
			}
			errc <- err
		}()
		// Let the job get going, then strike.
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		ps := alive()
		victim := ps[rng.IntN(len(ps))]
		fault := faultKinds[round%len(faultKinds)]
		faults[fault]++
		struck := time.Now()
		switch fault {
		case "kill":
			if err := victim.Kill(); err != nil {
				t.Fatalf("round %d: kill %s: %v", round, victim.Name, err)
			}
		case "stop":
			if err := syscall.Kill(victim.Pid, syscall.SIGSTOP); err != nil {
				t.Fatalf("round %d: SIGSTOP %s: %v", round, victim.Name, err)
			}
			stopped = append(stopped, victim)
		case "restart":
			// A clean stop (the worker leaves) and a new worker joining
			// while the job runs.
			victim.stop(time.Second)
			if _, err := c.AddWorker(context.Background(), nil); err != nil {
				t.Fatalf("round %d: restarting a worker: %v", round, err)
			}
		case "blip":
			srv := c.Server()
			srv.locked("a chaos blip", func() {
				// lose edits live: find the session first.
				if k := slices.IndexFunc(srv.live, func(w *srvWorker) bool { return w.reg.Name == victim.Name }); k >= 0 {
					srv.lose(srv.live[k], "chaos: session dropped")
				}
			})
		}
		var err error
		select {
		case err = <-errc:
		case <-time.After(jobBound + 10*time.Second):
			t.Fatalf("round %d (%s of %s): the job did not end within %v", round, fault, victim.Name, jobBound)
		}
		cancel()
		outcomes = append(outcomes, outcome{fault, err, time.Since(struck)})
		var te *sched.TaskError
		var kw *KilledWorkerError
		switch {
		case err == nil:
		case errors.As(err, &te) && errors.As(err, &kw):
			// A task that was running on too many workers that died.
		default:
			t.Errorf("round %d (%s of %s): %v\nthe scheduler's log of the round:\n%s\nunfinished tasks:\n%s", round, fault, victim.Name, err, logs.Since(mark), unfinished(c.Server()))
		}
		// End of round: frozen workers resume, killed ones are replaced,
		// so that four workers take part in the next round.
		for _, p := range stopped {
			syscall.Kill(p.Pid, syscall.SIGCONT)
		}
		stopped = nil
		if fault == "kill" {
			// Reaped before the count of live workers, so that the
			// next round neither counts it nor picks it as a victim.
			select {
			case <-victim.Done():
			case <-time.After(hangGuard):
				t.Fatalf("round %d: killed %s did not exit", round, victim.Name)
			}
		}
		for len(alive()) < 4 {
			if _, err := c.AddWorker(context.Background(), nil); err != nil {
				t.Fatalf("round %d: replacing a worker: %v", round, err)
			}
		}
	}

	// The scheduler's worker list converges to the processes alive (a
	// resumed worker reconnects; a killed one is gone).
	want := func() []string {
		var names []string
		for _, p := range alive() {
			names = append(names, p.Name)
		}
		sort.Strings(names)
		return names
	}
	listed := func() []string {
		var names []string
		for _, w := range c.Server().Status().Workers {
			names = append(names, w.Name)
		}
		sort.Strings(names)
		return names
	}
	eventually(t, "the worker list to match the live processes", func() bool { return slices.Equal(listed(), want()) })
	if msg := liveConsistent(c.Server()); msg != "" {
		t.Errorf("scheduler state: %s", msg)
	}
	if strings.Contains(logs.String(), "internal error") {
		t.Errorf("the scheduler logged an internal error:\n%s", logs.String())
	}

	byFault := map[string][]time.Duration{}
	ok, typed := 0, 0
	for _, o := range outcomes {
		if o.err == nil {
			ok++
			byFault[o.fault] = append(byFault[o.fault], o.took)
		} else {
			typed++
		}
	}
	median := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	t.Logf("chaos: %d rounds; faults %v; jobs exact %d, typed error %d, hung 0, wrong 0", rounds, faults, ok, typed)
	for _, f := range faultKinds {
		t.Logf("chaos: %s: median time from the fault to the job's end %v over %d jobs", f, median(byFault[f]).Round(time.Millisecond), len(byFault[f]))
	}
}

// faultKinds are injected in turn, one per round.
var faultKinds = []string{"kill", "stop", "blip", "restart", "none"}

// chaosJob returns one of the round's workloads with the check of its
// result against a formula: a tree of additions, a sum over sleeping
// tasks (work to interrupt), or 1 MiB values summed by tasks that fetch
// them from other workers.
func chaosJob(rng *rand.Rand, round int) (*graph.Graph, []graph.Key, func([]any) error) {
	switch round % 3 {
	case 0:
		n := 256 << rng.IntN(3)
		g, root := schedtest.AddTree(n)
		return g, []graph.Key{root}, func(got []any) error {
			if got[0] != n*(n+1)/2 {
				return fmt.Errorf("tree of %d: got %v, want %d", n, got[0], n*(n+1)/2)
			}
			return nil
		}
	case 1:
		g, root, want := sleepSum(32, 5+rng.IntN(20))
		return g, []graph.Key{root}, func(got []any) error {
			if got[0] != want {
				return fmt.Errorf("sleep sum: got %v, want %d", got[0], want)
			}
			return nil
		}
	default:
		const blocks, size = 12, 1 << 20
		g := graph.New(2*blocks + 1)
		var sums []graph.Arg
		want := 0
		for i := range blocks {
			b := graph.BlockKey("chaos-bytes", i)
			if err := g.AddTask(b, bytesOp, graph.Lit(size), graph.Lit(i)); err != nil {
				panic(err)
			}
			s := graph.BlockKey("chaos-sum", i)
			if err := g.AddTask(s, byteSumOp, graph.Ref(b)); err != nil {
				panic(err)
			}
			sums = append(sums, graph.Ref(s))
			want += size * i
		}
		if err := g.AddTask("chaos-total", schedtest.Add, sums...); err != nil {
			panic(err)
		}
		return g, []graph.Key{"chaos-total"}, func(got []any) error {
			if got[0] != want {
				return fmt.Errorf("byte sums: got %v, want %d", got[0], want)
			}
			return nil
		}
	}
}

// unfinished lists, for a failure's message, the tasks of the scheduler's
// jobs that are neither in memory nor released: key, state, the worker
// processing it and the dependencies it waits for.
func unfinished(s *Server) string {
	var b strings.Builder
	s.locked("listing unfinished tasks", func() {
		for _, j := range s.sortedJobs() {
			for i := range j.state {
				st := j.state[i]
				if st == tsMemory || st == tsReleased {
					continue
				}
				fmt.Fprintf(&b, "job %d %s: %s proc=%d waiting=%d\n", j.id, j.key(int32(i)), stateNames[st], j.proc[i], j.waiting[i])
			}
		}
		for _, w := range s.live {
			fmt.Fprintf(&b, "worker %d %s %s: processing %d\n", w.id, w.reg.Name, w.reg.DataAddress, len(w.proc))
		}
	})
	return b.String()
}
