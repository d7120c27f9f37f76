package graph_test

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

var _ = func() bool {
	graph.RegisterRequirement("graphtest.req/at-init")
	return true
}()

// A requirement registered under package initialization counts as at
// init, one registered while a test runs does not, and registering again
// keeps what the first registration said.
func TestRegisterRequirement(t *testing.T) {
	graph.RegisterRequirement("graphtest.req/late")
	graph.RegisterRequirement("graphtest.req/at-init") // again, late: still at init
	graph.RegisterRequirement("")                      // ignored
	for _, tt := range []struct {
		name        string
		has, atInit bool
	}{
		{"graphtest.req/at-init", true, true},
		{"graphtest.req/late", true, false},
		{"graphtest.req/never", false, false},
		{"", false, false},
	} {
		has, atInit := graph.HasRequirement(tt.name)
		if has != tt.has || atInit != tt.atInit {
			t.Errorf("HasRequirement(%q) = %v, %v; want %v, %v", tt.name, has, atInit, tt.has, tt.atInit)
		}
	}
	all := graph.RegisteredRequirements()
	if !slices.IsSorted(all) || !slices.Contains(all, "graphtest.req/at-init") || !slices.Contains(all, "graphtest.req/late") || slices.Contains(all, "") {
		t.Errorf("RegisteredRequirements() = %v", all)
	}
}
