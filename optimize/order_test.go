package optimize_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

// checkTopo fails unless prio is a permutation of 0..n-1 with every node
// after its dependencies.
func checkTopo(t testing.TB, g *graph.Graph, d *graph.Deps, prio []int32) {
	t.Helper()
	if len(prio) != g.Len() {
		t.Fatalf("%d priorities for %d nodes", len(prio), g.Len())
	}
	seen := make([]bool, len(prio))
	for i, p := range prio {
		if p < 0 || int(p) >= len(prio) || seen[p] {
			t.Fatalf("priority %d of %q is out of range or repeated", p, g.Key(i))
		}
		seen[p] = true
		for _, j := range d.Of(i) {
			if prio[j] >= p {
				t.Fatalf("%q (priority %d) runs before its dependency %q (priority %d)", g.Key(i), p, g.Key(int(j)), prio[j])
			}
		}
	}
}

func mustOrder(t testing.TB, g *graph.Graph) ([]int32, *graph.Deps) {
	t.Helper()
	d, err := g.Dependencies()
	if err != nil {
		t.Fatal(err)
	}
	prio, err := optimize.Order(g, d)
	if err != nil {
		t.Fatal(err)
	}
	checkTopo(t, g, d, prio)
	return prio, d
}

func TestOrderRandomDAGs(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 2))
		g := randomDAG(rng, 50+rng.IntN(400), 1+rng.IntN(5))
		prio, d := mustOrder(t, g)
		again, err := optimize.Order(g, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(prio, again) {
			t.Fatalf("seed %d: two runs gave different orders", seed)
		}
		_ = d
	}
}

// subtreeContiguous checks, on a graph whose nodes each have at most one
// dependent, that every subtree runs as one contiguous stretch ending with
// its root: the order finishes what it started.
func subtreeContiguous(t testing.TB, g *graph.Graph, d *graph.Deps, prio []int32) {
	t.Helper()
	n := g.Len()
	lo, hi, size := make([]int32, n), make([]int32, n), make([]int32, n)
	for _, i := range sequence(prio) { // dependencies first
		lo[i], hi[i], size[i] = prio[i], prio[i], 1
		for _, j := range d.Of(int(i)) {
			lo[i] = min(lo[i], lo[j])
			size[i] += size[j]
		}
		if hi[i]-lo[i]+1 != size[i] {
			t.Errorf("subtree of %q spans priorities %d..%d for %d nodes", g.Key(int(i)), lo[i], hi[i], size[i])
		}
	}
}

// mergeTree is a LiberTEM-style UDF run over 2^k partitions: load chunk i,
// run the UDF on it, then merge the partition results pairwise, left
// before right. Its root is ("merge", k, 0).
func mergeTree(k int) (*graph.Graph, graph.Key) {
	g := graph.New(3 << k)
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	for i := 0; i < 1<<k; i++ {
		must(g.AddTask(graph.BlockKey("load", i), opLeaf))
		must(g.AddTask(graph.BlockKey("merge", 0, i), opInc, graph.Ref(graph.BlockKey("load", i))))
	}
	for l := 1; l <= k; l++ {
		for i := 0; i < 1<<(k-l); i++ {
			must(g.AddTask(graph.BlockKey("merge", l, i), opAdd,
				graph.Ref(graph.BlockKey("merge", l-1, 2*i)), graph.Ref(graph.BlockKey("merge", l-1, 2*i+1))))
		}
	}
	return g, graph.BlockKey("merge", k, 0)
}

func TestOrderShapes(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		build   func() *graph.Graph
		check   func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32)
	}{
		{
			name: "reduction tree",
			picture: `
			        t[3,0]
			      /        \
			  t[2,0]        t[2,1]
			  /    \        /    \
			t[1,0] t[1,1] t[1,2] t[1,3]
			 / \    / \    / \    / \
			 leaves t[0,0] .. t[0,7]`,
			build: func() *graph.Graph { g, _ := binaryTree(3); return g },
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				subtreeContiguous(t, g, d, prio)
				if got, want := peakLive(d, sequence(prio)), 3+2; got != want {
					t.Errorf("peak live %d, want %d (depth 3 + 2)", got, want)
				}
			},
		},
		{
			name: "merge tree",
			picture: `
			           merge[2,0]
			          /          \
			   merge[1,0]      merge[1,1]
			    /     \         /     \
			 m[0,0] m[0,1]  m[0,2]  m[0,3]   (UDF on each partition)
			   |      |       |       |
			 load[0] load[1] load[2] load[3]`,
			build: func() *graph.Graph { g, _ := mergeTree(2); return g },
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				subtreeContiguous(t, g, d, prio)
				var parts []int32
				for i := 0; i < 4; i++ {
					j, _ := g.Index(graph.BlockKey("merge", 0, i))
					parts = append(parts, prio[j])
				}
				if !slices.IsSorted(parts) {
					t.Errorf("partitions run in priorities %v, want left to right", parts)
				}
			},
		},
		{
			name: "two independent chains",
			picture: `
			a2   b2
			|    |
			a1   b1
			|    |
			a0   b0`,
			build: func() *graph.Graph {
				return mustGraph(t,
					E("b0", T(opLeaf)), E("a0", T(opLeaf)),
					E("b1", T(opInc, graph.Key("b0"))), E("a1", T(opInc, graph.Key("a0"))),
					E("a2", T(opInc, graph.Key("a1"))), E("b2", T(opInc, graph.Key("b1"))),
				)
			},
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				subtreeContiguous(t, g, d, prio)
			},
		},
		{
			name: "shared root",
			picture: `
			o0  o1  o2
			|   |   |
			a0  a1  a2
			 \  |  /
			    r`,
			build: func() *graph.Graph {
				es := []entry{E("r", T(opLeaf))}
				for _, i := range []string{"0", "1", "2"} {
					es = append(es, E("a"+i, T(opInc, graph.Key("r"))), E("o"+i, T(opDbl, graph.Key("a"+i))))
				}
				return mustGraph(t, es...)
			},
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				if r, _ := g.Index("r"); prio[r] != 0 {
					t.Errorf("root has priority %d, want 0", prio[r])
				}
				for _, i := range []string{"0", "1", "2"} {
					a, _ := g.Index(graph.Key("a" + i))
					o, _ := g.Index(graph.Key("o" + i))
					if prio[o] != prio[a]+1 {
						t.Errorf("o%s has priority %d, a%s %d: the output should follow its input at once", i, prio[o], i, prio[a])
					}
				}
			},
		},
		{
			name: "outputs sharing dependencies",
			picture: `
			o0    o1    o2    o3
			| \  / | \  / | \  / |
			x0  x1     x2     x3   x4`,
			build: func() *graph.Graph {
				var es []entry
				for i := 0; i < 5; i++ {
					es = append(es, E(string(graph.BlockKey("x", i)), T(opLeaf)))
				}
				for i := 0; i < 4; i++ {
					es = append(es, E(string(graph.BlockKey("o", i)), T(opAdd, graph.BlockKey("x", i), graph.BlockKey("x", i+1))))
				}
				return mustGraph(t, es...)
			},
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				// Outputs stay alive; besides them at most two inputs and
				// the output being computed.
				if got := peakLive(d, sequence(prio)); got > 4+3 {
					t.Errorf("peak live %d, want at most 4 outputs + 3", got)
				}
			},
		},
		{
			name: "long chain beside a bushy tree",
			picture: `
			          out
			        /     \
			    tree        c9
			   /    \       |
			  p1     p2     ..
			 / \    / \     |
			l0  l1 l2  l3   c0`,
			build: func() *graph.Graph {
				es := []entry{E(string(graph.BlockKey("c", 0)), T(opLeaf))}
				for i := 1; i < 10; i++ {
					es = append(es, E(string(graph.BlockKey("c", i)), T(opInc, graph.BlockKey("c", i-1))))
				}
				for i := 0; i < 4; i++ {
					es = append(es, E(string(graph.BlockKey("l", i)), T(opLeaf)))
				}
				es = append(es,
					E("p1", T(opAdd, graph.BlockKey("l", 0), graph.BlockKey("l", 1))),
					E("p2", T(opAdd, graph.BlockKey("l", 2), graph.BlockKey("l", 3))),
					E("tree", T(opAdd, graph.Key("p1"), graph.Key("p2"))),
					E("out", T(opAdd, graph.BlockKey("c", 9), graph.Key("tree"))),
				)
				return mustGraph(t, es...)
			},
			check: func(t *testing.T, g *graph.Graph, d *graph.Deps, prio []int32) {
				// The tree alone peaks at 4 live values (p1, l2, l3, p2);
				// the chain at 2. Tree first: max(4, 1+2, 3) = 4. Chain
				// first, as tallest-first would: 1+4 = 5.
				if got := peakLive(d, sequence(prio)); got != 4 {
					t.Errorf("peak live %d, want 4", got)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.build()
			prio, d := mustOrder(t, g)
			tt.check(t, g, d, prio)
		})
	}
}

// TestOrderOptimalOnTrees compares the peak of live values under Order with
// the least peak over every topological order, found by dynamic
// programming over the sets of finished nodes, on small random trees.
func TestOrderOptimalOnTrees(t *testing.T) {
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 3))
		n := 2 + rng.IntN(11)
		g := randomTree(rng, n)
		prio, d := mustOrder(t, g)
		got, want := peakLive(d, sequence(prio)), minPeak(d)
		if got != want {
			t.Fatalf("seed %d (%d nodes): peak live %d, best possible %d", seed, n, got, want)
		}
	}
}

// randomTree returns a tree of n tasks, node 0 the root, node i>0 a
// dependency of a random earlier node, inserted in random order.
func randomTree(rng *rand.Rand, n int) *graph.Graph {
	children := make([][]graph.Arg, n)
	for i := 1; i < n; i++ {
		p := rng.IntN(i)
		children[p] = append(children[p], graph.Ref(graph.BlockKey("n", i)))
	}
	g := graph.New(n)
	for _, i := range rng.Perm(n) {
		nd := graph.Task(opLeaf)
		if len(children[i]) > 0 {
			nd = graph.Task(opAdd, children[i]...)
		}
		if err := g.Set(graph.BlockKey("n", i), nd); err != nil {
			panic(err)
		}
	}
	return g
}

// minPeak is the least peak of live values over all topological orders,
// in peakLive's model, by dynamic programming over subsets (n <= 16).
func minPeak(d *graph.Deps) int {
	n := d.Len()
	const inf = 1 << 30
	best := make([]int, 1<<n)
	for i := range best {
		best[i] = inf
	}
	best[0] = 0
	for mask := 0; mask < 1<<n; mask++ {
		if best[mask] == inf {
			continue
		}
		live := 0
		for u := 0; u < n; u++ {
			if mask&(1<<u) == 0 {
				continue
			}
			users := d.Users(u)
			alive := len(users) == 0
			for _, v := range users {
				if mask&(1<<v) == 0 {
					alive = true
				}
			}
			if alive {
				live++
			}
		}
	next:
		for v := 0; v < n; v++ {
			if mask&(1<<v) != 0 {
				continue
			}
			for _, j := range d.Of(v) {
				if mask&(1<<j) == 0 {
					continue next
				}
			}
			m := mask | 1<<v
			best[m] = min(best[m], max(best[mask], live+1))
		}
	}
	return best[1<<n-1]
}

func TestOrderCycle(t *testing.T) {
	// a -> b -> c -> a
	g := mustGraph(t,
		E("a", T(opInc, graph.Key("b"))),
		E("b", T(opInc, graph.Key("c"))),
		E("c", T(opInc, graph.Key("a"))),
	)
	_, err := optimize.Order(g, nil)
	var ce *graph.CycleError
	if !errors.As(err, &ce) || len(ce.Keys) != 3 {
		t.Fatalf("err = %v, want a *graph.CycleError over 3 keys", err)
	}
}
