package graph_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

func TestZeroGraphUsable(t *testing.T) {
	var g graph.Graph
	if err := g.AddLiteral("x", 1); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTask("y", addOp{}, graph.Ref("x"), graph.Lit(2)); err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Len() != 2 || !slices.Equal(g.Keys(), []graph.Key{"x", "y"}) {
		t.Errorf("keys = %v, want [x y]", g.Keys())
	}
}

func TestSetDedupe(t *testing.T) {
	closure := &graph.FuncOp{OpName: "graphtest.closure", Fn: func(context.Context, []any) (any, error) { return nil, nil }}
	tests := []struct {
		name string
		a, b graph.Node
	}{
		{"literal", graph.Literal(1), graph.Literal(1)},
		{"nan-literal", graph.Literal(math.NaN()), graph.Literal(math.NaN())},
		{"list-literal", graph.Literal([]any{1, "a", math.NaN()}), graph.Literal([]any{1, "a", math.NaN()})},
		{"alias", graph.Alias("t"), graph.Alias("t")},
		{"task", graph.Task(addOp{}, graph.Ref("t"), graph.Lit(1)), graph.Task(addOp{}, graph.Ref("t"), graph.Lit(1))},
		{"param-op", graph.Task(scaleOp{Factor: 2}, graph.Ref("t")), graph.Task(&scaleOp{Factor: 2}, graph.Ref("t"))},
		{"nested", graph.Task(addOp{}, graph.Nested(scaleOp{2}, graph.List(graph.Ref("t")))), graph.Task(addOp{}, graph.Nested(scaleOp{2}, graph.List(graph.Ref("t"))))},
		{"same-closure", graph.Task(closure), graph.Task(closure)},
		{"resources", graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{"GPU": 1}}, graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{"GPU": 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			mustSet(t, g, "k", tt.a)
			if err := g.Set("k", tt.b); err != nil {
				t.Fatalf("second Set of an equal node: %v", err)
			}
			if g.Len() != 1 {
				t.Errorf("Len = %d, want 1", g.Len())
			}
		})
	}
}

func TestSetConflict(t *testing.T) {
	mk := func(v int) *graph.FuncOp {
		return &graph.FuncOp{OpName: "graphtest.closure", Fn: func(context.Context, []any) (any, error) { return v, nil }}
	}
	tests := []struct {
		name string
		a, b graph.Node
	}{
		{"literal-value", graph.Literal(1), graph.Literal(2)},
		{"literal-type", graph.Literal(1), graph.Literal(int64(1))},
		{"kind", graph.Literal("t"), graph.Alias("t")},
		{"alias-target", graph.Alias("t"), graph.Alias("u")},
		{"op", graph.Task(addOp{}, graph.Ref("t")), graph.Task(listOp{}, graph.Ref("t"))},
		{"params", graph.Task(scaleOp{2}, graph.Ref("t")), graph.Task(scaleOp{3}, graph.Ref("t"))},
		{"arg-ref", graph.Task(addOp{}, graph.Ref("t")), graph.Task(addOp{}, graph.Ref("u"))},
		{"arg-kind", graph.Task(addOp{}, graph.Ref("t")), graph.Task(addOp{}, graph.Lit(graph.Key("t")))},
		{"arg-count", graph.Task(addOp{}, graph.Ref("t")), graph.Task(addOp{}, graph.Ref("t"), graph.Ref("t"))},
		{"nested-op", graph.Task(addOp{}, graph.Nested(scaleOp{2})), graph.Task(addOp{}, graph.Nested(scaleOp{3}))},
		{"list", graph.Task(addOp{}, graph.List(graph.Lit(1))), graph.Task(addOp{}, graph.List(graph.Lit(2)))},
		{"distinct-closures", graph.Task(mk(1)), graph.Task(mk(2))},
		{"resources", graph.Node{Kind: graph.KindTask, Op: addOp{}, Resources: map[string]float64{"GPU": 1}}, graph.Task(addOp{})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			mustSet(t, g, "k", tt.a)
			err := g.Set("k", tt.b)
			var ce *graph.ConflictError
			if !errors.As(err, &ce) || ce.Key != "k" {
				t.Fatalf("Set = %v, want *ConflictError for k", err)
			}
			if n, _ := g.Get("k"); !graph.NodesEqual(n, &tt.a) || g.Len() != 1 {
				t.Errorf("the first binding was replaced or a node added")
			}
		})
	}
}

func TestSetInvalid(t *testing.T) {
	tests := []struct {
		name    string
		key     graph.Key
		node    graph.Node
		wantNil bool // *NilOpError, else *InvalidNodeError
	}{
		{"nil-op", "k", graph.Task(nil), true},
		{"nil-nested-op", "k", graph.Task(addOp{}, graph.Nested(nil, graph.Lit(1))), true},
		{"nil-op-deep", "k", graph.Task(addOp{}, graph.List(graph.Nested(addOp{}, graph.Nested(nil)))), true},
		{"empty-key", "", graph.Literal(1), false},
		{"zero-kind", "k", graph.Node{}, false},
		{"bad-kind", "k", graph.Node{Kind: 99}, false},
		{"alias-to-empty", "k", graph.Alias(""), false},
		{"ref-to-empty", "k", graph.Task(addOp{}, graph.Ref("")), false},
		{"bad-arg-kind", "k", graph.Task(addOp{}, graph.Arg{Kind: 42}), false},
		{"bad-arg-kind-in-list", "k", graph.Task(addOp{}, graph.List(graph.Arg{})), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			err := g.Set(tt.key, tt.node)
			if tt.wantNil {
				var ne *graph.NilOpError
				if !errors.As(err, &ne) || ne.Key != tt.key {
					t.Fatalf("Set = %v, want *NilOpError for %q", err, tt.key)
				}
			} else {
				var ie *graph.InvalidNodeError
				if !errors.As(err, &ie) || ie.Key != tt.key {
					t.Fatalf("Set = %v, want *InvalidNodeError for %q", err, tt.key)
				}
			}
			if g.Len() != 0 {
				t.Errorf("a rejected node was added")
			}
		})
	}
}

func TestMerge(t *testing.T) {
	a := graph.New(0)
	mustSet(t, a, "x", graph.Literal(1))
	mustSet(t, a, "y", graph.Task(addOp{}, graph.Ref("x")))
	b := graph.New(0)
	mustSet(t, b, "y", graph.Task(addOp{}, graph.Ref("x"))) // same node: deduped
	mustSet(t, b, "z", graph.Task(addOp{}, graph.Ref("y")))
	conflicting := graph.New(0)
	mustSet(t, conflicting, "w", graph.Literal(0))
	mustSet(t, conflicting, "x", graph.Literal(2))
	mustSet(t, conflicting, "v", graph.Literal(0))

	t.Run("function", func(t *testing.T) {
		m, err := graph.Merge(a, nil, b)
		if err != nil {
			t.Fatal(err)
		}
		if want := []graph.Key{"x", "y", "z"}; !slices.Equal(m.Keys(), want) {
			t.Errorf("keys = %v, want %v", m.Keys(), want)
		}
		if a.Len() != 2 || b.Len() != 2 {
			t.Errorf("inputs modified: %d, %d nodes", a.Len(), b.Len())
		}
		if err := m.Validate(); err != nil {
			t.Error(err)
		}
	})
	t.Run("function-conflict", func(t *testing.T) {
		m, err := graph.Merge(a, conflicting)
		var ce *graph.ConflictError
		if !errors.As(err, &ce) || ce.Key != "x" || m != nil {
			t.Fatalf("Merge = %v, %v; want nil, *ConflictError for x", m, err)
		}
	})
	t.Run("method", func(t *testing.T) {
		g := a.Clone()
		if err := g.Merge(b); err != nil {
			t.Fatal(err)
		}
		if want := []graph.Key{"x", "y", "z"}; !slices.Equal(g.Keys(), want) {
			t.Errorf("keys = %v, want %v", g.Keys(), want)
		}
	})
	t.Run("method-conflict-keeps-prefix", func(t *testing.T) {
		g := a.Clone()
		err := g.Merge(conflicting)
		var ce *graph.ConflictError
		if !errors.As(err, &ce) || ce.Key != "x" {
			t.Fatalf("Merge = %v, want *ConflictError for x", err)
		}
		if want := []graph.Key{"x", "y", "w"}; !slices.Equal(g.Keys(), want) {
			t.Errorf("keys = %v, want %v (what came before the conflict)", g.Keys(), want)
		}
	})
}

func TestClone(t *testing.T) {
	g := graph.New(0)
	mustSet(t, g, "x", graph.Literal(1))
	mustSet(t, g, "y", graph.Task(addOp{}, graph.Ref("x")))
	c := g.Clone()
	if !graph.Equal(g, c) || !slices.Equal(g.Keys(), c.Keys()) {
		t.Fatalf("clone differs")
	}
	mustSet(t, c, "z", graph.Literal(3))
	c.At(0).Value = 100
	if g.Len() != 2 || g.Has("z") {
		t.Errorf("adding to the clone changed the original")
	}
	if n, _ := g.Get("x"); n.Value != 1 {
		t.Errorf("changing a cloned node changed the original: %v", n.Value)
	}
	mustSet(t, g, "w", graph.Literal(4))
	if c.Has("w") {
		t.Errorf("adding to the original changed the clone")
	}
	for i, k := range c.Keys() {
		if j, ok := c.Index(k); !ok || j != i {
			t.Errorf("clone Index(%q) = %d, %v; want %d", k, j, ok, i)
		}
	}
	var zero graph.Graph
	if z := zero.Clone(); z.Len() != 0 {
		t.Errorf("clone of an empty graph has %d nodes", z.Len())
	}
}

func TestSubgraph(t *testing.T) {
	g := graph.New(0)
	for i := 0; i < 6; i++ {
		mustSet(t, g, graph.BlockKey("b", i), graph.Literal(i))
	}
	s := g.Subgraph([]int32{4, 1, 4, 2})
	want := []graph.Key{graph.BlockKey("b", 1), graph.BlockKey("b", 2), graph.BlockKey("b", 4)}
	if !slices.Equal(s.Keys(), want) {
		t.Fatalf("Subgraph keys = %v, want %v", s.Keys(), want)
	}
	for i, k := range s.Keys() {
		if j, ok := s.Index(k); !ok || j != i {
			t.Errorf("Index(%q) = %d, %v; want %d", k, j, ok, i)
		}
		n, _ := g.Get(k)
		if !graph.NodesEqual(s.At(i), n) {
			t.Errorf("node %q differs from the original", k)
		}
	}
	mustSet(t, s, "new", graph.Literal(0))
	if g.Has("new") || g.Len() != 6 {
		t.Errorf("adding to the subgraph changed the original")
	}
}

func TestEqualIgnoresOrder(t *testing.T) {
	a, b := graph.New(0), graph.New(0)
	mustSet(t, a, "x", graph.Literal(1))
	mustSet(t, a, "y", graph.Alias("x"))
	mustSet(t, b, "y", graph.Alias("x"))
	mustSet(t, b, "x", graph.Literal(1))
	if !graph.Equal(a, b) {
		t.Errorf("graphs that differ only in order are not Equal")
	}
	mustSet(t, b, "z", graph.Literal(1))
	if graph.Equal(a, b) || graph.Equal(b, a) {
		t.Errorf("graphs of different sizes are Equal")
	}
}

// randomDAG builds a graph of n nodes, each referring to earlier ones
// through plain refs (with repeats), lists, nested tasks and aliases,
// inserted in a shuffled order.
func randomDAG(r *rand.Rand, n int) *graph.Graph { return randomDAGIn(r, n, false) }

// randomDAGIn is randomDAG with the nodes set in dependency order (each
// after every node it refers to) when ordered, in a random order otherwise.
func randomDAGIn(r *rand.Rand, n int, ordered bool) *graph.Graph {
	key := func(i int) graph.Key { return graph.BlockKey("n", i) }
	var arg func(i, depth int) graph.Arg
	arg = func(i, depth int) graph.Arg {
		if i == 0 {
			return graph.Lit(r.IntN(10))
		}
		switch c := r.IntN(10); {
		case c < 5 || depth > 2:
			return graph.Ref(key(r.IntN(i)))
		case c < 6:
			return graph.Lit(r.IntN(10))
		case c < 8:
			l := make([]graph.Arg, r.IntN(4))
			for j := range l {
				l[j] = arg(i, depth+1)
			}
			return graph.List(l...)
		default:
			l := make([]graph.Arg, r.IntN(3))
			for j := range l {
				l[j] = arg(i, depth+1)
			}
			return graph.Nested(addOp{}, l...)
		}
	}
	nodes := make([]graph.Node, n)
	for i := range nodes {
		switch c := r.IntN(10); {
		case i == 0 || c == 0:
			nodes[i] = graph.Literal(i)
		case c == 1:
			nodes[i] = graph.Alias(key(r.IntN(i)))
		case c == 2:
			// A wide node, with repeats: past Dependencies' scan limit.
			args := make([]graph.Arg, 10+r.IntN(40))
			for j := range args {
				args[j] = graph.Ref(key(r.IntN(i)))
			}
			nodes[i] = graph.Task(addOp{}, args...)
		default:
			args := make([]graph.Arg, r.IntN(5))
			for j := range args {
				args[j] = arg(i, 0)
			}
			nodes[i] = graph.Task(addOp{}, args...)
		}
	}
	g := graph.New(n)
	order := r.Perm(n)
	if ordered {
		for i := range order {
			order[i] = i
		}
	}
	for _, i := range order {
		if err := g.Set(key(i), nodes[i]); err != nil {
			panic(err)
		}
	}
	return g
}

// naiveDeps is the oracle for Dependencies: walk each node's args with maps,
// deduplicating by key in first-use order; users are the sorted indices of
// the nodes that name a key.
func naiveDeps(g *graph.Graph) (deps, users [][]int32) {
	var walk func(args []graph.Arg, out *[]graph.Key)
	walk = func(args []graph.Arg, out *[]graph.Key) {
		for _, a := range args {
			switch a.Kind {
			case graph.ArgRef:
				*out = append(*out, a.Ref)
			case graph.ArgList, graph.ArgNested:
				walk(a.List, out)
			}
		}
	}
	n := g.Len()
	deps = make([][]int32, n)
	userSet := make([]map[int32]bool, n)
	for i := 0; i < n; i++ {
		var refs []graph.Key
		nd := g.At(i)
		switch nd.Kind {
		case graph.KindTask:
			walk(nd.Args, &refs)
		case graph.KindAlias:
			refs = append(refs, nd.Target)
		}
		seen := map[graph.Key]bool{}
		for _, r := range refs {
			if seen[r] {
				continue
			}
			seen[r] = true
			j, _ := g.Index(r)
			deps[i] = append(deps[i], int32(j))
			if userSet[j] == nil {
				userSet[j] = map[int32]bool{}
			}
			userSet[j][int32(i)] = true
		}
	}
	users = make([][]int32, n)
	for j, s := range userSet {
		for u := range s {
			users[j] = append(users[j], u)
		}
		slices.Sort(users[j])
	}
	return deps, users
}

func TestDependenciesOracle(t *testing.T) {
	for seed := uint64(0); seed < 30; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			g := randomDAG(r, 1+r.IntN(200))
			d, err := g.Dependencies()
			if err != nil {
				t.Fatal(err)
			}
			if d.Len() != g.Len() {
				t.Fatalf("Deps.Len = %d, want %d", d.Len(), g.Len())
			}
			wantDeps, wantUsers := naiveDeps(g)
			for i := 0; i < g.Len(); i++ {
				if got := d.Of(i); !slices.Equal(got, wantDeps[i]) {
					t.Errorf("Of(%d %q) = %v, want %v", i, g.Key(i), got, wantDeps[i])
				}
				if got := d.Users(i); !slices.Equal(got, wantUsers[i]) {
					t.Errorf("Users(%d %q) = %v, want %v", i, g.Key(i), got, wantUsers[i])
				}
			}
			if err := g.Validate(); err != nil {
				t.Errorf("Validate of a DAG: %v", err)
			}
		})
	}
}

func TestDependenciesWideFanIn(t *testing.T) {
	// One task refers to every other node, each twice: the dedupe must stay
	// linear-ish and exact.
	const n = 5000
	g := graph.New(n + 1)
	args := make([]graph.Arg, 0, 2*n)
	for i := 0; i < n; i++ {
		mustSet(t, g, graph.BlockKey("x", i), graph.Literal(i))
		args = append(args, graph.Ref(graph.BlockKey("x", i)))
	}
	for i := n - 1; i >= 0; i-- {
		args = append(args, graph.Ref(graph.BlockKey("x", i)))
	}
	mustSet(t, g, "sum", graph.Task(addOp{}, args...))
	d, err := g.Dependencies()
	if err != nil {
		t.Fatal(err)
	}
	wantDeps, wantUsers := naiveDeps(g)
	if got := d.Of(n); !slices.Equal(got, wantDeps[n]) {
		t.Errorf("Of(sum) has %d deps, want %d", len(got), len(wantDeps[n]))
	}
	for i := 0; i < n; i++ {
		if got := d.Users(i); !slices.Equal(got, wantUsers[i]) {
			t.Fatalf("Users(%d) = %v, want %v", i, got, wantUsers[i])
		}
	}
}

func TestDependenciesMissing(t *testing.T) {
	tests := []struct {
		name      string
		node      graph.Node
		wantKey   graph.Key
		buildOnly bool
	}{
		{"ref", graph.Task(addOp{}, graph.Ref("a"), graph.Ref("gone")), "gone", false},
		{"in-list", graph.Task(addOp{}, graph.List(graph.Lit(1), graph.Ref("gone"))), "gone", false},
		{"in-nested", graph.Task(addOp{}, graph.Nested(addOp{}, graph.Ref("gone"))), "gone", false},
		{"alias", graph.Alias("gone"), "gone", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph.New(0)
			mustSet(t, g, "a", graph.Literal(1))
			mustSet(t, g, "from", tt.node)
			for name, f := range map[string]func() error{
				"Dependencies": func() error { _, err := g.Dependencies(); return err },
				"Validate":     g.Validate,
			} {
				err := f()
				var me *graph.MissingKeyError
				if !errors.As(err, &me) || me.Key != tt.wantKey || me.From != "from" {
					t.Errorf("%s = %v, want *MissingKeyError{Key: %q, From: \"from\"}", name, err, tt.wantKey)
				}
			}
		})
	}
}

// cycleGraph is
//
//	a -> b -> c -> a      (a depends on b, ...)
//	d -> c                (behind the cycle)
//	e -> f -> e           (a second cycle)
//	s                     (a self-loop, when with self)
func cycleNodes(self bool) map[graph.Key]graph.Node {
	m := map[graph.Key]graph.Node{
		"b": graph.Task(addOp{}, graph.Ref("c")),
		"c": graph.Task(addOp{}, graph.List(graph.Ref("a"))),
		"a": graph.Task(addOp{}, graph.Nested(addOp{}, graph.Ref("b"))),
		"d": graph.Task(addOp{}, graph.Ref("c")),
		"f": graph.Alias("e"),
		"e": graph.Task(addOp{}, graph.Ref("f")),
		"x": graph.Literal(0),
	}
	if self {
		m["0self"] = graph.Task(addOp{}, graph.Ref("x"), graph.Ref("0self"))
	}
	return m
}

func TestValidateCycleStable(t *testing.T) {
	tests := []struct {
		name string
		self bool
		want []graph.Key
	}{
		{"three-cycle", false, []graph.Key{"a", "b", "c"}},
		{"self-loop", true, []graph.Key{"0self"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := cycleNodes(tt.self)
			keys := make([]graph.Key, 0, len(nodes))
			for k := range nodes {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			r := rand.New(rand.NewPCG(7, 7))
			for trial := 0; trial < 20; trial++ {
				g := graph.New(0)
				for _, i := range r.Perm(len(keys)) {
					mustSet(t, g, keys[i], nodes[keys[i]])
				}
				err := g.Validate()
				var ce *graph.CycleError
				if !errors.As(err, &ce) {
					t.Fatalf("Validate = %v, want *CycleError", err)
				}
				if !slices.Equal(ce.Keys, tt.want) {
					t.Fatalf("insertion order %v: cycle %v, want %v", g.Keys(), ce.Keys, tt.want)
				}
				checkCycle(t, g, ce.Keys)
				if _, err := g.ValidateDeps(); !errors.As(err, &ce) {
					t.Errorf("ValidateDeps = %v, want *CycleError", err)
				}
			}
		})
	}
}

// checkCycle verifies, from the nodes themselves, that keys is a cycle in
// dependency order starting at its smallest key.
func checkCycle(t *testing.T, g *graph.Graph, keys []graph.Key) {
	t.Helper()
	if len(keys) == 0 {
		t.Fatal("empty cycle")
	}
	if slices.Min(keys) != keys[0] {
		t.Errorf("cycle %v does not start at its smallest key", keys)
	}
	for i, k := range keys {
		next := keys[(i+1)%len(keys)]
		n, ok := g.Get(k)
		if !ok {
			t.Fatalf("cycle key %q not in graph", k)
		}
		if !slices.Contains(n.Refs(nil), next) {
			t.Errorf("%q on the cycle does not depend on %q", k, next)
		}
	}
}

func TestValidateRandomCycles(t *testing.T) {
	// Close a cycle in random DAGs by making an early node depend on a later
	// one; the reported cycle must be a real one.
	for seed := uint64(0); seed < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 2))
		g := randomDAG(r, 20+r.IntN(100))
		d, _ := g.Dependencies()
		// Pick a node with users, make its first dependency (transitively
		// reachable only through it) depend on one of the users.
		var from, to graph.Key
		for i := 0; i < g.Len(); i++ {
			if u := d.Users(i); len(u) > 0 {
				from, to = g.Key(i), g.Key(int(u[0]))
				break
			}
		}
		h := graph.New(0)
		for i, k := range g.Keys() {
			n := *g.At(i)
			if k == from {
				n = graph.Task(addOp{}, graph.Ref(to))
			}
			mustSet(t, h, k, n)
		}
		err := h.Validate()
		var ce *graph.CycleError
		if !errors.As(err, &ce) {
			t.Fatalf("seed %d: Validate = %v, want *CycleError", seed, err)
		}
		checkCycle(t, h, ce.Keys)
	}
}

func TestValidateNilOp(t *testing.T) {
	g := graph.New(0)
	mustSet(t, g, "k", graph.Task(addOp{}))
	g.At(0).Op = nil // only reachable by writing through At
	var ne *graph.NilOpError
	if err := g.Validate(); !errors.As(err, &ne) || ne.Key != "k" {
		t.Errorf("Validate = %v, want *NilOpError for k", err)
	}
}

func TestErrorMessagesNameKeys(t *testing.T) {
	errs := []struct {
		err  error
		want string
	}{
		{&graph.CycleError{Keys: []graph.Key{"a", "b"}}, `"a" -> "b" -> "a"`},
		{&graph.MissingKeyError{Key: "m", From: "f"}, `"f" refers to missing key "m"`},
		{&graph.MissingKeyError{Key: "m"}, `"m"`},
		{&graph.NilOpError{Key: "k"}, `"k"`},
		{&graph.ConflictError{Key: "k"}, `"k"`},
		{&graph.InvalidNodeError{Key: "k", Reason: "why"}, `"k": why`},
		{&graph.UnknownOpError{Name: "op"}, `"op"`},
	}
	for _, e := range errs {
		if got := e.err.Error(); !strings.Contains(got, e.want) {
			t.Errorf("%T message %q does not contain %q", e.err, got, e.want)
		}
	}
}

func TestResolve(t *testing.T) {
	vals := map[graph.Key]any{"a": 1, "b": 2}
	lookup := func(k graph.Key) any { return vals[k] }
	boom := &graph.FuncOp{OpName: "graphtest.boom", Fn: func(context.Context, []any) (any, error) { return nil, errors.New("boom") }}
	tests := []struct {
		name    string
		args    []graph.Arg
		want    []any
		wantErr bool
	}{
		{"empty", nil, []any{}, false},
		{"ref-and-lit", []graph.Arg{graph.Ref("a"), graph.Lit("s")}, []any{1, "s"}, false},
		{"list", []graph.Arg{graph.List(graph.Ref("b"), graph.Lit(3), graph.List())}, []any{[]any{2, 3, []any{}}}, false},
		{"nested", []graph.Arg{graph.Nested(addOp{}, graph.Ref("a"), graph.Ref("b"), graph.Lit(10))}, []any{13}, false},
		{"nested-in-nested", []graph.Arg{graph.Nested(scaleOp{3}, graph.Nested(addOp{}, graph.Ref("a"), graph.Ref("b")))}, []any{9}, false},
		{"nested-list", []graph.Arg{graph.Nested(listOp{}, graph.List(graph.Ref("a")))}, []any{[]any{[]any{1}}}, false},
		{"nested-error", []graph.Arg{graph.Lit(1), graph.Nested(boom)}, nil, true},
		{"bad-kind", []graph.Arg{{Kind: 77}}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := graph.Resolve(context.Background(), nil, tt.args, lookup)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Resolve = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Errorf("Resolve = %#v, want %#v", got, tt.want)
			}
		})
	}
	t.Run("reuses-dst", func(t *testing.T) {
		dst := make([]any, 1, 8)
		got, err := graph.Resolve(context.Background(), dst, []graph.Arg{graph.Ref("a"), graph.Ref("b")}, lookup)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &dst[:1][0] || !reflect.DeepEqual(got, []any{1, 2}) {
			t.Errorf("Resolve did not reuse dst or gave %v", got)
		}
	})
}

func TestNodesEqualLiterals(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"nan", nan, nan, true},
		{"nan32", float32(nan), float32(nan), true},
		{"nan-vs-number", nan, 1.0, false},
		{"complex-nan", complex(nan, 1), complex(nan, 1), true},
		{"complex64-nan", complex64(complex(float32(nan), 1)), complex64(complex(float32(nan), 1)), true},
		{"complex-differs", complex(nan, 1), complex(nan, 2), false},
		{"float64s-nan", []float64{1, nan}, []float64{1, nan}, true},
		{"float64s-differ", []float64{1, nan}, []float64{2, nan}, false},
		{"float64s-length", []float64{1}, []float64{1, 1}, false},
		{"list-nan", []any{nan}, []any{nan}, true},
		{"map-nan", map[string]any{"a": []any{nan}}, map[string]any{"a": []any{nan}}, true},
		{"map-differs", map[string]any{"a": 1}, map[string]any{"a": 2}, false},
		{"map-keys", map[string]any{"a": 1}, map[string]any{"b": 1}, false},
		{"map-nil-vs-empty", map[string]any(nil), map[string]any{}, true},
		{"ints-nil-vs-empty", []int(nil), []int{}, true},
		{"bytes-nil-vs-empty", []byte(nil), []byte{}, true},
		{"list-nil-vs-empty", []any(nil), []any{}, true},
		{"empty-of-other-type", []int{}, []int64{}, false},
		{"nil-vs-empty-slice", nil, []int{}, false},
		{"registered", point{1, 2}, point{1, 2}, true},
		{"registered-differs", point{1, 2}, point{2, 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := graph.Literal(tt.a), graph.Literal(tt.b)
			if got := graph.NodesEqual(&a, &b); got != tt.want {
				t.Errorf("NodesEqual(%#v, %#v) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := graph.NodesEqual(&b, &a); got != tt.want {
				t.Errorf("NodesEqual is not symmetric for %#v, %#v", tt.a, tt.b)
			}
		})
	}
}
