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

func TestOptimize(t *testing.T) {
	//          out               unused
	//         /    \               |
	//       c2      s = add(al, k) u
	//       |        \      \
	//       c1        al -> r   k = 5 (literal)
	//       |              |
	//       c0 = ten(2)    leaf
	//       (cheap)
	g := mustGraph(t,
		E("k", graph.Literal(5)),
		E("r", T(opLeaf)),
		E("al", graph.Alias("r")),
		E("s", T(opAdd, graph.Key("al"), graph.Key("k"))),
		E("c0", T(opTen, 2)),
		E("c1", T(opInc, graph.Key("c0"))),
		E("c2", T(opDbl, graph.Key("c1"))),
		E("out", T(opAdd, graph.Key("c2"), graph.Key("s"))),
		E("u", T(opInc, graph.Key("k"))),
		E("unused", T(opDbl, graph.Key("u"))),
	)
	snap := snapshot(t, g)
	tests := []struct {
		name string
		keys []graph.Key
		want []graph.Key
	}{
		// Cull drops u and unused; Inline substitutes k, al and c0; Fuse
		// merges c1 into c2, and r into s (its only dependency once al is
		// gone). out has two dependencies, so c2 and s stay.
		{"one output", keys("out"), keys("c2", "out", "s")},
		{"inner key kept", keys("out", "c1"), keys("c1", "c2", "out", "s")},
		{"alias kept", keys("al"), keys("al", "r")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := checkPass(t, optimize.Optimize, g, tt.keys, nil)
			if got := sortedKeys(out); !slices.Equal(got, tt.want) {
				t.Errorf("keys %q, want %q", got, tt.want)
			}
		})
	}
	if !bytes.Equal(snapshot(t, g), snap) {
		t.Error("Optimize modified its input")
	}
}

func TestOptimizeRandom(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 4))
		g := randomDAG(rng, 300, 1+int(seed%4))
		d, err := g.Dependencies()
		if err != nil {
			t.Fatal(err)
		}
		outs := outputsOf(g, d)
		checkPass(t, optimize.Optimize, g, outs[:1+rng.IntN(len(outs))], nil)
	}
}

func TestOptimizeErrors(t *testing.T) {
	// a <-> b    c
	g := mustGraph(t,
		E("a", T(opInc, graph.Key("b"))),
		E("b", T(opInc, graph.Key("a"))),
		E("c", T(opLeaf)),
	)
	var ce *graph.CycleError
	if _, _, err := optimize.Optimize(g, keys("a")); !errors.As(err, &ce) {
		t.Errorf("cycle: err = %v, want *graph.CycleError", err)
	}
	if _, _, err := optimize.Optimize(g, keys("c")); err != nil {
		t.Errorf("a cycle outside what keys need: err = %v, want nil", err)
	}
	var mk *graph.MissingKeyError
	if _, _, err := optimize.Optimize(g, keys("zz")); !errors.As(err, &mk) || mk.Key != "zz" {
		t.Errorf("missing key: err = %v, want *graph.MissingKeyError for zz", err)
	}
}
