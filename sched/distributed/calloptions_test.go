package distributed

import (
	"context"
	"fmt"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// pidGraph is n placePid tasks, keyed p-i.
func pidGraph(t *testing.T, p string, n int) (*graph.Graph, []graph.Key) {
	t.Helper()
	g := graph.New(n)
	keys := make([]graph.Key, n)
	for i := range n {
		keys[i] = graph.Key(fmt.Sprintf("%s-%d", p, i))
		if err := g.Set(keys[i], graph.Task(placePid, graph.Lit(i))); err != nil {
			t.Fatal(err)
		}
	}
	return g, keys
}

// Options on the context (WithOptions) reach Get and Persist, which take
// no options of their own: Workers pins a computation's tasks (Dask's
// compute(workers=...)), and Submit starts from them.
func TestWithOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	c := startCluster(t, ClusterOptions{Workers: 2, ThreadsPerWorker: 1, Quiet: true})
	pids := workerPids(c)
	check := func(what string, vals []any, want string) {
		t.Helper()
		for i, v := range vals {
			if v != pids[want] {
				t.Errorf("%s: task %d ran in pid %v, want %s's pid %d (workers' pids %v)", what, i, v, want, pids[want], pids)
			}
		}
	}
	const n = 12
	ctx1 := WithOptions(context.Background(), Workers("worker-1"))
	g, keys := pidGraph(t, "get", n)
	vals, err := c.Get(ctx1, g, keys)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", vals, "worker-1")

	ctx0 := WithOptions(context.Background(), Workers("worker-0"))
	g, keys = pidGraph(t, "persist", n)
	nodes, err := c.Persist(ctx0, g, keys)
	if err != nil {
		t.Fatal(err)
	}
	pg := graph.New(n)
	for i, nd := range nodes {
		if err := pg.Set(keys[i], nd); err != nil {
			t.Fatal(err)
		}
	}
	if vals, err = c.Get(context.Background(), pg, keys); err != nil {
		t.Fatal(err)
	}
	check("Persist", vals, "worker-0")

	f := c.Client().Submit(ctx1, placePid, 99)
	v, err := f.Result(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	check("Submit", []any{v}, "worker-1")
	f.Release()
}
