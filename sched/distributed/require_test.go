package distributed

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/graph"
)

// placeReq is a requirement (graph.RegisterRequirement) of this test
// binary, as a UDF or a block function registered in its own registry is:
// a worker started with envPlaceNoOp lacks it.
const placeReq = "distributedtest.req/tripler"

// reqOp triples an int; it needs the requirement it names (graph.Requirer).
type reqOp struct{ req string }

func (o reqOp) Name() string                                { return "distributedtest.place-req" }
func (o reqOp) Params() ([]byte, error)                     { return []byte(o.req), nil }
func (o reqOp) Requires() []string                          { return []string{o.req} }
func (o reqOp) Run(_ context.Context, a []any) (any, error) { return 3 * a[0].(int), nil }

func init() {
	graph.RegisterOp("distributedtest.place-req", func(p []byte) (graph.Op, error) { return reqOp{req: string(p)}, nil })
	if os.Getenv(envPlaceNoOp) == "" {
		graph.RegisterRequirement(placeReq)
	}
}

func reqGraph(t *testing.T, op reqOp, n int) (*graph.Graph, []graph.Key) {
	t.Helper()
	g := graph.New(n)
	keys := make([]graph.Key, n)
	for i := range n {
		keys[i] = graph.Key(fmt.Sprintf("req-%d", i))
		if err := g.Set(keys[i], graph.Task(op, graph.Lit(i))); err != nil {
			t.Fatal(err)
		}
	}
	return g, keys
}

// TestPlaceRequirements: a task whose op requires something registered
// apart (graph.Requirer) runs only on workers that registered it, though
// every worker has the op itself; with none such connected the job fails
// at once naming the requirement; a requirement this process registered
// after package initialization is refused (before anything is sent: the
// error comes from the client's encoding, as TestLateOp checks for ops).
func TestPlaceRequirements(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 0, ThreadsPerWorker: 1, Quiet: true,
		Scheduler: SchedulerOptions{WorkerTimeout: time.Hour}})
	const n = 8
	t.Setenv(envPlaceNoOp, "1")
	if _, err := c.AddWorker(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	g, keys := reqGraph(t, reqOp{req: placeReq}, n)
	_, err := c.Get(context.Background(), g, keys)
	var nw *NoWorkerForOpError
	if !errors.As(err, &nw) || nw.Op != placeReq {
		t.Fatalf("Get with no worker having %s = %v; want a *NoWorkerForOpError naming it", placeReq, err)
	}
	t.Setenv(envPlaceNoOp, "")
	if _, err := c.AddWorker(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	ids := workerIDs(c)
	var ran workersRan
	got, err := c.Get(ran.ctx(), g, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 3*i {
			t.Errorf("%s = %v, want %d", keys[i], v, 3*i)
		}
		if w := ran.by[keys[i]]; w != ids["worker-1"] {
			t.Errorf("%s ran on worker %d, want %d, the only worker with %s", keys[i], w, ids["worker-1"], placeReq)
		}
	}

	late := fmt.Sprintf("distributedtest.req/late-%d", placeLog.lateSeqs.Add(1))
	graph.RegisterRequirement(late)
	g2, keys2 := reqGraph(t, reqOp{req: late}, 1)
	_, err = c.Get(context.Background(), g2, keys2)
	var le *LateOpError
	if !errors.As(err, &le) || le.Op != late || !le.Requirement || le.Key != keys2[0] || !strings.Contains(err.Error(), "init function") {
		t.Fatalf("Get needing a requirement registered late = %v; want a *LateOpError for %s", err, late)
	}
}
