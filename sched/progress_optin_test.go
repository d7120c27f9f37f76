package sched_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

// callbacksSeen is a scheduler that records how many callbacks the context
// of each Get carries, then runs the graph with Sync.
type callbacksSeen struct{ n []int }

func (c *callbacksSeen) Get(ctx context.Context, g *graph.Graph, keys []graph.Key) ([]any, error) {
	c.n = append(c.n, len(sched.CallbacksFrom(ctx)))
	return sched.Sync{}.Get(ctx, g, keys)
}

// No progress bar is attached unless asked for, on a terminal or not (Dask's
// ProgressBar() is opt-in too); ProgressTo writes one where it is told.
func TestProgressOptIn(t *testing.T) {
	g, root := schedtest.AddTree(8)
	seen := &callbacksSeen{}
	cfg := sched.NewComputeConfig([]func(*sched.ComputeConfig){func(c *sched.ComputeConfig) { c.Scheduler = seen }})
	if _, err := cfg.Run(context.Background(), g, []graph.Key{root}); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	cfg.Callbacks = []*sched.Callbacks{sched.ProgressTo(&buf)}
	if _, err := cfg.Run(context.Background(), g, []graph.Key{root}); err != nil {
		t.Fatal(err)
	}
	if len(seen.n) != 2 || seen.n[0] != 0 || seen.n[1] != 1 {
		t.Errorf("callbacks per run %v, want [0 1]", seen.n)
	}
	if !strings.Contains(buf.String(), "100%") {
		t.Errorf("the progress bar wrote %q, want it to reach 100%%", buf.String())
	}
}
