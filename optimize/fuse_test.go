package optimize_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

func TestFuse(t *testing.T) {
	gpu := T(opLeaf)
	gpu.Resources = map[string]float64{"GPU": 1}
	tests := []struct {
		name    string
		picture string
		nodes   []entry
		keep    []graph.Key
		want    []graph.Key // keys left, sorted
	}{
		{
			name: "chain",
			picture: `
			d
			|
			c
			|
			b
			|
			a (literal)`,
			nodes: []entry{
				E("a", graph.Literal(1)),
				E("b", T(opInc, graph.Key("a"))),
				E("c", T(opDbl, graph.Key("b"))),
				E("d", T(opInc, graph.Key("c"))),
			},
			keep: keys("d"),
			want: keys("a", "d"),
		},
		{
			name: "diamond is not fused",
			picture: `
			  d
			 / \
			b   c
			 \ /
			  r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("b", T(opInc, graph.Key("r"))),
				E("c", T(opDbl, graph.Key("r"))),
				E("d", T(opAdd, graph.Key("b"), graph.Key("c"))),
			},
			keep: keys("d"),
			want: keys("b", "c", "d", "r"),
		},
		{
			name: "keep cuts the chain",
			picture: `
			d
			|
			c
			|
			b  (kept)
			|
			r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("b", T(opInc, graph.Key("r"))),
				E("c", T(opInc, graph.Key("b"))),
				E("d", T(opInc, graph.Key("c"))),
			},
			keep: keys("d", "b"),
			want: keys("b", "d"),
		},
		{
			name: "dependency used twice",
			picture: `
			s = add(r, r)
			||
			r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("s", T(opAdd, graph.Key("r"), graph.Key("r"))),
			},
			keep: keys("s"),
			want: keys("r", "s"),
		},
		{
			name: "resources differ",
			picture: `
			t
			|
			s
			|
			r  {GPU: 1}`,
			nodes: []entry{
				E("r", gpu),
				E("s", T(opInc, graph.Key("r"))),
				E("t", T(opInc, graph.Key("s"))),
			},
			keep: keys("t"),
			want: keys("r", "t"),
		},
		{
			name: "alias is a barrier",
			picture: `
			s
			|
			a (alias)
			|
			r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("a", graph.Alias("r")),
				E("s", T(opInc, graph.Key("a"))),
			},
			keep: keys("s"),
			want: keys("a", "r", "s"),
		},
		{
			name: "chain above a merge",
			picture: `
			  v
			  |
			  w
			  |
			  z
			 / \
			x   y`,
			nodes: []entry{
				E("x", T(opLeaf)),
				E("y", T(opLeaf)),
				E("z", T(opAdd, graph.Key("x"), graph.Key("y"))),
				E("w", T(opInc, graph.Key("z"))),
				E("v", T(opDbl, graph.Key("w"))),
			},
			keep: keys("v"),
			want: keys("v", "x", "y"),
		},
		{
			name: "reference inside a list",
			picture: `
			s = add([r, 2])
			|
			r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("s", T(opAdd, graph.List(graph.Ref("r"), graph.Lit(2)))),
			},
			keep: keys("s"),
			want: keys("s"),
		},
		{
			name: "fan-out",
			picture: `
			s   t
			 \ /
			  r`,
			nodes: []entry{
				E("r", T(opLeaf)),
				E("s", T(opInc, graph.Key("r"))),
				E("t", T(opDbl, graph.Key("r"))),
			},
			keep: keys("s", "t"),
			want: keys("r", "s", "t"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := checkPass(t, optimize.Fuse, mustGraph(t, tt.nodes...), tt.keep, nil)
			if got := sortedKeys(out); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFuseNests checks the shape of a fused chain: the lower tasks become
// nested arguments in place of the references to them.
func TestFuseNests(t *testing.T) {
	// d = inc(c), c = dbl(b), b = inc(a), a literal
	g := mustGraph(t,
		E("a", graph.Literal(1)),
		E("b", T(opInc, graph.Key("a"))),
		E("c", T(opDbl, graph.Key("b"))),
		E("d", T(opInc, graph.Key("c"))),
	)
	out, _, err := optimize.Fuse(g, keys("d"))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Task(opInc, graph.Nested(&optimize.Fused{Op: opDbl, Key: "c"},
		graph.Nested(&optimize.Fused{Op: opInc, Key: "b"}, graph.Ref("a"))))
	if got := mustGet(t, out, "d"); !graph.NodesEqual(got, &want) {
		t.Errorf("fused d = %+v, want %+v", *got, want)
	}
}

// TestFuseLongChain fuses a 100,000-task chain: the pass must be iterative,
// and the result must be cut into tasks no deeper than MaxNestDepth so that
// it still resolves and encodes.
func TestFuseLongChain(t *testing.T) {
	// t[99999] - ... - t[1] - t[0] - x (literal 0)
	const n = 100_000
	g := graph.New(n + 1)
	if err := g.AddLiteral("x", 0); err != nil {
		t.Fatal(err)
	}
	prev := graph.Key("x")
	for i := 0; i < n; i++ {
		k := graph.BlockKey("t", i)
		if err := g.AddTask(k, opInc, graph.Ref(prev)); err != nil {
			t.Fatal(err)
		}
		prev = k
	}
	out := checkPass(t, optimize.Fuse, g, []graph.Key{prev}, nil)
	// A fused task of m links is m-1 levels deep.
	per := optimize.MaxNestDepth + 1
	if got, want := out.Len(), 1+(n+per-1)/per; got != want {
		t.Errorf("%d nodes after fusing, want %d", got, want)
	}
	for i := 0; i < out.Len(); i++ {
		if dep := argDepth(out.At(i).Args); dep > optimize.MaxNestDepth {
			t.Fatalf("node %q nests %d deep, more than %d", out.Key(i), dep, optimize.MaxNestDepth)
		}
	}
	if got := compute(t, out, []graph.Key{prev}); got[0] != n {
		t.Errorf("fused chain computes %v, want %d", got[0], n)
	}
}

// TestFuseRandom checks on random graphs rich in chains that fusing keeps
// every output's value.
func TestFuseRandom(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		g := randomDAG(rng, 200, 1+int(seed%3))
		d, err := g.Dependencies()
		if err != nil {
			t.Fatal(err)
		}
		checkPass(t, optimize.Fuse, g, outputsOf(g, d), nil)
	}
}

func TestFuseErrors(t *testing.T) {
	// a <-> b
	cyc := mustGraph(t, E("a", T(opInc, graph.Key("b"))), E("b", T(opInc, graph.Key("a"))))
	_, _, err := optimize.Fuse(cyc, keys("a"))
	var ce *graph.CycleError
	if !errors.As(err, &ce) {
		t.Errorf("cycle: err = %v, want *graph.CycleError", err)
	}
	g := mustGraph(t, E("a", T(opLeaf)))
	_, _, err = optimize.Fuse(g, keys("zz"))
	var mk *graph.MissingKeyError
	if !errors.As(err, &mk) || mk.Key != "zz" {
		t.Errorf("missing keep key: err = %v, want *graph.MissingKeyError for zz", err)
	}
}

// snapshot is an independent deep copy of g to detect mutation: Clone
// would share the argument slices a buggy pass might write to.
func snapshot(t testing.TB, g *graph.Graph) []byte {
	t.Helper()
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip checks that g survives JSON and computes the same values after.
func roundTrip(t testing.TB, g *graph.Graph, ks []graph.Key) {
	t.Helper()
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	back, err := graph.ReadJSON(&buf)
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if !graph.Equal(g, back) {
		t.Error("graph changed through JSON")
	}
	if got, want := compute(t, back, ks), compute(t, g, ks); !slices.Equal(got, want) {
		t.Errorf("values after JSON %v, before %v", got, want)
	}
}

// checkDeps compares the dependencies a pass returned with those computed
// afresh.
func checkDeps(t testing.TB, g *graph.Graph, d *graph.Deps) {
	t.Helper()
	want, err := g.Dependencies()
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != want.Len() {
		t.Fatalf("deps of %d nodes, graph has %d", d.Len(), want.Len())
	}
	for i := 0; i < g.Len(); i++ {
		if !slices.Equal(d.Of(i), want.Of(i)) || !slices.Equal(d.Users(i), want.Users(i)) {
			t.Fatalf("deps of %q differ", g.Key(i))
		}
	}
}

// argDepth is the nesting depth of args: 0 for references and literals,
// one more per list or nested task.
func argDepth(args []graph.Arg) int {
	m := 0
	for _, a := range args {
		if a.Kind == graph.ArgList || a.Kind == graph.ArgNested {
			m = max(m, 1+argDepth(a.List))
		}
	}
	return m
}
