package schedtest

import (
	"reflect"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// Every op of the suite must be rebuildable by name in a worker process,
// and every value it produces must survive the codec.
func TestOpsCrossProcesses(t *testing.T) {
	for _, op := range []graph.Op{Add, Inc, SumList, Tuple, Fail, Panic, Sleep} {
		got, err := graph.LookupOp(op.Name(), nil)
		if err != nil || got.Name() != op.Name() {
			t.Errorf("LookupOp(%q) = %v, %v; want the op", op.Name(), got, err)
		}
	}
	for _, v := range []any{0, -3, 1 << 40, []any{2, 2, 7}} {
		b, err := graph.Marshal(v)
		if err != nil {
			t.Fatalf("Marshal(%v): %v", v, err)
		}
		back, err := graph.Unmarshal(b)
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Errorf("Unmarshal(Marshal(%v)) = %v, %v", v, back, err)
		}
	}
}

// The builders' graphs are valid and have the advertised sizes.
func TestBuilders(t *testing.T) {
	tests := []struct {
		name string
		g    *graph.Graph
		want int
	}{
		{"AddTree(1)", must2(AddTree(1)), 1},
		{"AddTree(1024)", must2(AddTree(1024)), 2047},
		{"Chain(10)", must2(Chain(10)), 11},
		{"Wide(10)", must3(Wide(10)), 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.g.Validate(); err != nil {
				t.Fatal(err)
			}
			if tt.g.Len() != tt.want {
				t.Errorf("%d nodes, want %d", tt.g.Len(), tt.want)
			}
		})
	}
}

func must2(g *graph.Graph, _ graph.Key) *graph.Graph   { return g }
func must3(g *graph.Graph, _ []graph.Key) *graph.Graph { return g }
