package workloads

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

func TestDelayedWorkloads(t *testing.T) {
	// Oracles computed here by plain Go, independently of Check's formulas.
	treeSum := 0
	for i := range TreeLeaves {
		treeSum += i + 1
	}
	tests := []struct {
		name   string
		want   int
		tasks  int
		pure   bool
		sched  sched.Scheduler
		byName string
	}{
		{"delayed-sum-squares", 2*2 + 3*3, 3, true, sched.Sync{}, "delayed-sum-squares"},
		{"delayed-tree", treeSum, 2*32768 - 1, false, sched.Threaded{}, "delayed_tree_65535"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Lookup(tt.byName)
			if err != nil {
				t.Fatal(err)
			}
			if w.Name != tt.name {
				t.Errorf("Lookup(%q).Name = %q, want %q", tt.byName, w.Name, tt.name)
			}
			g, keys, err := w.Build()
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			tasks := 0
			for i := range g.Len() {
				if g.At(i).Kind == graph.KindTask {
					tasks++
				}
			}
			if tasks != tt.tasks || w.Tasks != tt.tasks {
				t.Errorf("graph has %d tasks, Tasks = %d; want %d", tasks, w.Tasks, tt.tasks)
			}
			vals, err := tt.sched.Get(context.Background(), g, keys)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := vals[0].(int); !ok || got != tt.want {
				t.Errorf("got %v, want %d", vals[0], tt.want)
			}
			if err := w.Check(vals); err != nil {
				t.Errorf("Check(%v) = %v", vals, err)
			}
			if err := w.Check([]any{tt.want + 1}); err == nil {
				t.Errorf("Check accepts %d", tt.want+1)
			}
			// Pure workloads rebuild to the same keys, impure ones to new ones.
			g2, keys2, err := w.Build()
			if err != nil {
				t.Fatal(err)
			}
			shared := 0
			for _, k := range g2.Keys() {
				if g.Has(k) {
					shared++
				}
			}
			if tt.pure && (shared != g.Len() || keys2[0] != keys[0]) {
				t.Errorf("pure rebuild shares %d of %d keys", shared, g.Len())
			}
			if !tt.pure && shared != 0 {
				t.Errorf("impure rebuild shares %d keys", shared)
			}
		})
	}
}
