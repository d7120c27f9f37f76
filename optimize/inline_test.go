package optimize_test

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

func TestInline(t *testing.T) {
	gpuTen := T(opTen, 4)
	gpuTen.Resources = map[string]float64{"GPU": 1}
	tests := []struct {
		name    string
		picture string
		nodes   []entry
		keep    []graph.Key
		want    []graph.Key // keys left, sorted
		check   graph.Key   // a node to compare with wantNode
		wantN   graph.Node
	}{
		{
			name: "literal",
			picture: `
			b = inc(a)
			|
			a = 3`,
			nodes: []entry{E("a", graph.Literal(3)), E("b", T(opInc, graph.Key("a")))},
			keep:  keys("b"),
			want:  keys("b"),
			check: "b", wantN: T(opInc, 3),
		},
		{
			name: "kept literal stays",
			picture: `
			b = inc(a)
			|
			a = 3 (kept)`,
			nodes: []entry{E("a", graph.Literal(3)), E("b", T(opInc, graph.Key("a")))},
			keep:  keys("a", "b"),
			want:  keys("a", "b"),
			check: "b", wantN: T(opInc, 3),
		},
		{
			name:    "literal output stays",
			picture: `a = 3    z = leaf()`,
			// z is there because sched cannot yet run a graph without
			// tasks (see the report of this change).
			nodes: []entry{E("a", graph.Literal(3)), E("z", T(opLeaf))},
			want:  keys("a", "z"),
		},
		{
			name: "alias retargeted",
			picture: `
			s = inc(a)
			|
			a -> r
			|
			r = leaf()`,
			nodes: []entry{E("r", T(opLeaf)), E("a", graph.Alias("r")), E("s", T(opInc, graph.Key("a")))},
			keep:  keys("s"),
			want:  keys("r", "s"),
			check: "s", wantN: T(opInc, graph.Key("r")),
		},
		{
			name: "alias chain to a literal",
			picture: `
			s = inc(a2)
			|
			a2 -> a1 -> x = 5`,
			nodes: []entry{E("x", graph.Literal(5)), E("a1", graph.Alias("x")), E("a2", graph.Alias("a1")), E("s", T(opInc, graph.Key("a2")))},
			keep:  keys("s"),
			want:  keys("s"),
			check: "s", wantN: T(opInc, 5),
		},
		{
			name: "kept alias points at the end of its chain",
			picture: `
			s = inc(a2)
			|
			a2 (kept) -> a1 -> x = leaf()`,
			nodes: []entry{E("x", T(opLeaf)), E("a1", graph.Alias("x")), E("a2", graph.Alias("a1")), E("s", T(opInc, graph.Key("a2")))},
			keep:  keys("s", "a2"),
			want:  keys("a2", "s", "x"),
			check: "a2", wantN: graph.Alias("x"),
		},
		{
			name: "kept alias keeps its literal",
			picture: `
			a (kept) -> x = 5    z = leaf()`,
			nodes: []entry{E("x", graph.Literal(5)), E("a", graph.Alias("x")), E("z", T(opLeaf))},
			keep:  keys("a", "z"),
			want:  keys("a", "x", "z"),
		},
		{
			name: "cheap op on literals",
			picture: `
			s = inc(c)
			|
			c = ten(k)   (cheap)
			|
			k = 4`,
			nodes: []entry{E("k", graph.Literal(4)), E("c", T(opTen, graph.Key("k"))), E("s", T(opInc, graph.Key("c")))},
			keep:  keys("s"),
			want:  keys("s"),
			check: "s", wantN: T(opInc, graph.Nested(opTen, graph.Lit(4))),
		},
		{
			name: "cheap op on data stays",
			picture: `
			s = inc(c)
			|
			c = ten(r)   (cheap)
			|
			r = leaf()`,
			nodes: []entry{E("r", T(opLeaf)), E("c", T(opTen, graph.Key("r"))), E("s", T(opInc, graph.Key("c")))},
			keep:  keys("s"),
			want:  keys("c", "r", "s"),
		},
		{
			name: "cheap op with resources stays",
			picture: `
			s = inc(c)
			|
			c = ten(4) {GPU: 1}`,
			nodes: []entry{E("c", gpuTen), E("s", T(opInc, graph.Key("c")))},
			keep:  keys("s"),
			want:  keys("c", "s"),
		},
		{
			name: "cheap op shared by two dependents",
			picture: `
			    w
			   / \
			  s   u
			   \ /
			    c = ten(2)`,
			nodes: []entry{
				E("c", T(opTen, 2)),
				E("s", T(opInc, graph.Key("c"))),
				E("u", T(opDbl, graph.Key("c"))),
				E("w", T(opAdd, graph.Key("s"), graph.Key("u"))),
			},
			keep:  keys("w"),
			want:  keys("s", "u", "w"),
			check: "u", wantN: T(opDbl, graph.Nested(opTen, graph.Lit(2))),
		},
		{
			name: "cheap chain",
			picture: `
			s = inc(c2)
			|
			c2 = ten(c1)
			|
			c1 = ten(1)`,
			nodes: []entry{E("c1", T(opTen, 1)), E("c2", T(opTen, graph.Key("c1"))), E("s", T(opInc, graph.Key("c2")))},
			keep:  keys("s"),
			want:  keys("s"),
			check: "s", wantN: T(opInc, graph.Nested(opTen, graph.Nested(opTen, graph.Lit(1)))),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks := tt.keep
			if len(ks) == 0 {
				ks = tt.want
			}
			out := checkPass(t, optimize.Inline, mustGraph(t, tt.nodes...), tt.keep, ks)
			if got := sortedKeys(out); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
			if tt.check != "" {
				if got := mustGet(t, out, tt.check); !graph.NodesEqual(got, &tt.wantN) {
					t.Errorf("%s = %+v, want %+v", tt.check, *got, tt.wantN)
				}
			}
		})
	}
}

// TestInlineBounded builds cheap ops that each use the previous one twice,
// so that inlining everything would double the argument tree per level; the
// pass must stop inlining once a tree gets large and still compute 2^n.
func TestInlineBounded(t *testing.T) {
	// c20 = cheapadd(c19, c19) ... c1 = cheapadd(c0, c0), c0 = cheapadd(1)
	const n = 20
	g := graph.New(n + 1)
	if err := g.AddTask(graph.BlockKey("c", 0), opCheapAdd, graph.Lit(1)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		prev := graph.Ref(graph.BlockKey("c", i-1))
		if err := g.AddTask(graph.BlockKey("c", i), opCheapAdd, prev, prev); err != nil {
			t.Fatal(err)
		}
	}
	top := []graph.Key{graph.BlockKey("c", n)}
	out, _, err := optimize.Inline(g, top)
	if err != nil {
		t.Fatal(err)
	}
	if out.Len() < 2 {
		t.Errorf("everything was inlined into one node")
	}
	for i := 0; i < out.Len(); i++ {
		if s := argSize(out.At(i).Args); s > 1024 {
			t.Errorf("node %q has %d argument nodes", out.Key(i), s)
		}
	}
	if got := compute(t, out, top); got[0] != 1<<n {
		t.Errorf("computes %v, want %d", got[0], 1<<n)
	}
}

// argSize counts argument nodes, nested ones included.
func argSize(args []graph.Arg) int {
	s := 0
	for _, a := range args {
		s++
		if a.Kind == graph.ArgList || a.Kind == graph.ArgNested {
			s += argSize(a.List)
		}
	}
	return s
}
