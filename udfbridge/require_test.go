package udfbridge

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// Every task of a run requires (graph.Requirer) its UDFs, what they
// require (an AutoUDF's map function) and its dataset's kind, under the
// names their registries record (graph.RegisterRequirement), so that a
// cluster places the tasks only on workers that registered them.
func TestRunTasksRequire(t *testing.T) {
	ds, _, _ := coreMemDS(t, nd.Float32)
	auto := Map(func(frame *nd.Array) (*nd.Array, error) { return frame, nil })
	p, err := plan(ds, []UDF{tNavSum{}, tSigSum{}, auto}, []RunOption{WithPartitions(3)})
	if err != nil {
		t.Fatal(err)
	}
	g := graph.New(0)
	if _, err := p.buildGraph(g, p.token(), p.nonEmpty()); err != nil {
		t.Fatal(err)
	}
	want := []string{requireUDF + tNavSum{}.Name(), requireUDF + tSigSum{}.Name(), requireUDF + auto.Name(), requireMapFunc + auto.Fn, requireDataset + "memory"}
	tasks := 0
	for i := range g.Len() {
		nd := g.At(i)
		if nd.Kind != graph.KindTask {
			continue
		}
		r, ok := nd.Op.(graph.Requirer)
		if !ok {
			t.Errorf("task %s: op %s is not a graph.Requirer", g.Key(i), nd.Op.Name())
			continue
		}
		tasks++
		if got := r.Requires(); !slices.Equal(got, want) {
			t.Errorf("task %s (%s) requires %v, want %v", g.Key(i), nd.Op.Name(), got, want)
		}
	}
	if tasks == 0 {
		t.Fatal("the run has no tasks")
	}
	// The registries record them: the UDFs and the dataset kind at
	// package initialization, the map function made by Map here, late.
	for _, name := range want {
		has, atInit := graph.HasRequirement(name)
		if !has || atInit != (name != requireMapFunc+auto.Fn) {
			t.Errorf("HasRequirement(%q) = %v, %v", name, has, atInit)
		}
	}
}
