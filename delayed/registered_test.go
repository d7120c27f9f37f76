package delayed_test

import (
	"testing"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
)

// atInitDouble is wrapped at package level: its op is registered while
// the package initializes, as worker processes of the binary have it.
var atInitDouble = delayed.Fn1("delayedtest.at_init_double", func(x int) int { return 2 * x })

// TestWrapperRegisteredAtInit: a wrapper made by a package-level variable
// registers its op at package initialization (graph.RegisteredAtInit),
// one made inside a function does not.
func TestWrapperRegisteredAtInit(t *testing.T) {
	_ = atInitDouble
	late := delayed.Fn1("delayedtest.late_double", func(x int) int { return 2 * x })
	_ = late
	if !graph.RegisteredAtInit(delayed.OpPrefix + "delayedtest.at_init_double") {
		t.Error("a package-level wrapper's op is not registered at init")
	}
	if graph.RegisteredAtInit(delayed.OpPrefix + "delayedtest.late_double") {
		t.Error("a wrapper made in a test function counts as registered at init")
	}
}
