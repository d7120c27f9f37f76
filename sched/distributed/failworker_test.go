package distributed

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// TestFailureWorkerID: the worker argument of the Pretask and Posttask
// calls for a failing task is the scheduler's id of the worker where it
// failed (JobError.worker_id), as it is the id of the worker that ran a
// task that succeeded.
//
//	ok (A only) ──▶ bad = Fail(ok) (B only)
func TestFailureWorkerID(t *testing.T) {
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, InProcess: true,
		Resources: []map[string]float64{{"A": 1}, {"B": 1}}})
	ids := map[string]int{}
	for _, w := range c.Server().Status().Workers {
		for r := range w.Resources {
			ids[r] = int(w.ID)
		}
	}
	if len(ids) != 2 || ids["A"] == ids["B"] {
		t.Fatalf("worker ids by resource: %v", ids)
	}
	g := graph.New(0)
	ok := graph.Task(schedtest.Inc, graph.Lit(1))
	ok.Resources = map[string]float64{"A": 1}
	bad := graph.Task(schedtest.Fail, graph.Ref("ok"))
	bad.Resources = map[string]float64{"B": 1}
	if err := g.Set("ok", ok); err != nil {
		t.Fatal(err)
	}
	if err := g.Set("bad", bad); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	pre, post := map[graph.Key]int{}, map[graph.Key]int{}
	var postErr error
	ctx := sched.WithCallbacks(context.Background(), &sched.Callbacks{
		Pretask: func(k graph.Key, w int) {
			mu.Lock()
			pre[k] = w
			mu.Unlock()
		},
		Posttask: func(k graph.Key, _ any, err error, w int) {
			mu.Lock()
			post[k] = w
			if k == "bad" {
				postErr = err
			}
			mu.Unlock()
		},
	})
	_, err := c.Get(ctx, g, []graph.Key{"bad"})
	var te *sched.TaskError
	if !errors.As(err, &te) || te.Key != "bad" || !errors.Is(err, schedtest.ErrBoom) {
		t.Fatalf("Get = %v; want a TaskError for bad wrapping ErrBoom", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if pre["ok"] != ids["A"] || post["ok"] != ids["A"] {
		t.Errorf("ok: Pretask worker %d, Posttask worker %d; want A's id %d", pre["ok"], post["ok"], ids["A"])
	}
	if pre["bad"] != ids["B"] || post["bad"] != ids["B"] {
		t.Errorf("bad: Pretask worker %d, Posttask worker %d; want B's id %d", pre["bad"], post["bad"], ids["B"])
	}
	if !errors.Is(postErr, schedtest.ErrBoom) {
		t.Errorf("bad: Posttask error %v; want ErrBoom", postErr)
	}
}
