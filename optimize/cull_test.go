package optimize_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
)

func TestCull(t *testing.T) {
	//  y   z       w
	//  |   |       |
	//  b   c   d   v
	//   \ / \ /
	//    a   x
	g := mustGraph(t,
		E("a", graph.Literal(1)),
		E("x", graph.Literal(2)),
		E("b", T(opInc, graph.Key("a"))),
		E("c", T(opAdd, graph.Key("a"), graph.Key("x"))),
		E("d", T(opInc, graph.Key("x"))),
		E("y", T(opInc, graph.Key("b"))),
		E("z", T(opDbl, graph.Key("c"))),
		E("v", T(opInc, 6)),
		E("w", graph.Alias("v")),
	)
	before := g.Clone()
	tests := []struct {
		name string
		keys []graph.Key
		want []graph.Key // sorted
	}{
		{"one chain", keys("y"), keys("a", "b", "y")},
		{"shared ancestor", keys("y", "z"), keys("a", "b", "c", "x", "y", "z")},
		{"inner key", keys("c"), keys("a", "c", "x")},
		{"alias", keys("w"), keys("v", "w")},
		{"repeated key", keys("d", "d"), keys("d", "x")},
		{"everything", keys("y", "z", "d", "w"), sortedKeys(g)},
		{"nothing", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, d, err := optimize.Cull(g, tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedKeys(out); !slices.Equal(got, tt.want) {
				t.Errorf("kept %q, want %q", got, tt.want)
			}
			if d.Len() != out.Len() {
				t.Errorf("deps describe %d nodes, graph has %d", d.Len(), out.Len())
			}
			for i := 0; i < out.Len(); i++ {
				if n := out.At(i); !graph.NodesEqual(n, mustGet(t, g, out.Key(i))) {
					t.Errorf("node %q changed", out.Key(i))
				}
			}
			if len(tt.keys) > 0 {
				wantVals := compute(t, g, tt.keys)
				gotVals := compute(t, out, tt.keys)
				if !slices.Equal(gotVals, wantVals) {
					t.Errorf("values %v, want %v", gotVals, wantVals)
				}
			}
		})
	}
	if !graph.Equal(g, before) || !slices.Equal(g.Keys(), before.Keys()) {
		t.Error("Cull modified its input")
	}
}

func TestCullMissingKey(t *testing.T) {
	// a
	g := mustGraph(t, E("a", graph.Literal(1)))
	_, _, err := optimize.Cull(g, keys("a", "nope"))
	var mk *graph.MissingKeyError
	if !errors.As(err, &mk) || mk.Key != "nope" {
		t.Fatalf("err = %v, want *MissingKeyError for %q", err, "nope")
	}
}

func mustGet(t testing.TB, g *graph.Graph, k graph.Key) *graph.Node {
	t.Helper()
	n, ok := g.Get(k)
	if !ok {
		t.Fatalf("key %q not in graph", k)
	}
	return n
}
