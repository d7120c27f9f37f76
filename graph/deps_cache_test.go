package graph_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// checkDeps compares g's Dependencies with naiveDeps.
func checkDeps(t *testing.T, what string, g *graph.Graph) {
	t.Helper()
	d, err := g.Dependencies()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if d.Len() != g.Len() {
		t.Fatalf("%s: Deps.Len = %d, want %d", what, d.Len(), g.Len())
	}
	wantDeps, wantUsers := naiveDeps(g)
	for i := 0; i < g.Len(); i++ {
		if got := d.Of(i); !slices.Equal(got, wantDeps[i]) {
			t.Fatalf("%s: Of(%d %q) = %v, want %v", what, i, g.Key(i), got, wantDeps[i])
		}
		if got := d.Users(i); !slices.Equal(got, wantUsers[i]) {
			t.Fatalf("%s: Users(%d %q) = %v, want %v", what, i, g.Key(i), got, wantUsers[i])
		}
	}
}

// Graphs set in dependency order have their references resolved by Set;
// the dependencies must be those of the map-lookup path (naiveDeps), also
// after Clone, Subgraph, Merge, a JSON round trip and nodes added after
// the dependencies were first asked for.
func TestDependenciesResolvedBySet(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			g := randomDAGIn(r, 1+r.IntN(300), true)
			checkDeps(t, "ordered", g)
			checkDeps(t, "ordered, cached", g)
			checkDeps(t, "clone", g.Clone())
			keep := make([]int32, 0, g.Len())
			for i := 0; i < g.Len(); i += 2 {
				keep = append(keep, int32(i))
			}
			sub := g.Subgraph(keep)
			if err := sub.Validate(); err == nil {
				checkDeps(t, "subgraph", sub)
			}
			m, err := graph.Merge(g.Clone(), randomDAGIn(rand.New(rand.NewPCG(seed, 8)), 50, true))
			if err == nil {
				checkDeps(t, "merge", m)
			}
			b, err := json.Marshal(g)
			if err != nil {
				t.Fatal(err)
			}
			var back graph.Graph
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			checkDeps(t, "json", &back)
			// Nodes added after Dependencies: the cache must not hide them.
			n := g.Len()
			mustSet(t, g, "extra-1", graph.Task(addOp{}, graph.Ref(g.Key(0)), graph.Ref(g.Key(n-1)), graph.Ref(g.Key(0))))
			mustSet(t, g, "extra-2", graph.Alias("extra-1"))
			checkDeps(t, "after Set", g)
			// A reference to a key set later: Set cannot resolve it.
			mustSet(t, g, "fwd", graph.Task(addOp{}, graph.Ref("later"), graph.Ref(g.Key(0))))
			if _, err := g.Dependencies(); !errors.As(err, new(*graph.MissingKeyError)) {
				t.Fatalf("forward reference before its key: %v, want *MissingKeyError", err)
			}
			mustSet(t, g, "later", graph.Literal(1))
			checkDeps(t, "forward reference", g)
		})
	}
}

// A cycle closed by a node added after a failed Validate is found: an
// error is not cached, and a graph validated once is validated again after
// Set.
func TestValidateAfterSet(t *testing.T) {
	g := graph.New(3)
	mustSet(t, g, "a", graph.Literal(1))
	mustSet(t, g, "b", graph.Task(addOp{}, graph.Ref("a")))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	mustSet(t, g, "c", graph.Task(addOp{}, graph.Ref("d")))
	if err := g.Validate(); !errors.As(err, new(*graph.MissingKeyError)) {
		t.Fatalf("Validate with a missing key: %v", err)
	}
	mustSet(t, g, "d", graph.Task(addOp{}, graph.Ref("c"), graph.Ref("b")))
	var ce *graph.CycleError
	if err := g.Validate(); !errors.As(err, &ce) {
		t.Fatalf("Validate with a cycle: %v, want *CycleError", err)
	}
}

// Dependencies and Validate of one graph from many goroutines at once (run
// under -race by .ci/run) agree.
func TestDependenciesConcurrent(t *testing.T) {
	g := randomDAGIn(rand.New(rand.NewPCG(3, 3)), 500, true)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var err error
			if w%2 == 0 {
				_, err = g.Dependencies()
			} else {
				err = g.Validate()
			}
			errs <- err
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkDeps(t, "after concurrent calls", g)
}
