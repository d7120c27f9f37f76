package distributed

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched/schedtest"
)

func TestReproStop(t *testing.T) {
	if os.Getenv("REPRO") == "" {
		t.Skip()
	}
	var logs logBuffer
	lg := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := startCluster(t, ClusterOptions{Workers: 4, ThreadsPerWorker: 2, Scheduler: SchedulerOptions{
		WorkerTimeout: 2 * time.Second, HeartbeatInterval: 200 * time.Millisecond, Logger: lg,
	}})
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 17))
	for round := range 30 {
		n := 256 << rng.IntN(3)
		g, root := schedtest.AddTree(n)
		ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
		errc := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := c.Get(ctx, g, []graph.Key{root})
			errc <- err
		}()
		time.Sleep(time.Duration(rng.IntN(60)) * time.Millisecond)
		var ps []*WorkerProcess
		for _, p := range c.Workers() {
			select {
			case <-p.Done():
			default:
				ps = append(ps, p)
			}
		}
		victim := ps[rng.IntN(len(ps))]
		mark := len(logs.String())
		syscall.Kill(victim.Pid, syscall.SIGSTOP)
		err := <-errc
		cancel()
		t.Logf("round %d n=%d victim %s: %v in %v", round, n, victim.Name, err, time.Since(start))
		if err != nil {
			t.Logf("scheduler log since the stop:\n%s", logs.String()[mark:])
			st := c.Server().Status()
			t.Logf("status: %+v", st)
			syscall.Kill(victim.Pid, syscall.SIGCONT)
			t.FailNow()
		}
		syscall.Kill(victim.Pid, syscall.SIGCONT)
		time.Sleep(3 * time.Second)
	}
}
