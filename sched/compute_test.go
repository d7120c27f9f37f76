package sched_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

type option func(*sched.ComputeConfig)

func TestComputeConfig(t *testing.T) {
	c := sched.NewComputeConfig([]option{nil})
	if _, ok := c.Scheduler.(sched.Threaded); !ok || !c.Optimize || len(c.Callbacks) != 0 {
		t.Fatalf("defaults: got %+v, want Threaded, optimize on, no callbacks", c)
	}
	// A chain of 10 Inc tasks from 0, run with and without optimization on
	// Sync, with a callback counting the tasks that ran: optimized, Fuse
	// makes the chain one task; raw, all 10 run. The value is 10 either way.
	for _, tc := range []struct {
		name     string
		optimize bool
		tasks    int64
	}{{"optimized", true, 1}, {"raw", false, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			g, root := schedtest.Chain(10)
			var ran atomic.Int64
			cb := &sched.Callbacks{Posttask: func(graph.Key, any, error, int) { ran.Add(1) }}
			c := sched.NewComputeConfig([]option{
				func(c *sched.ComputeConfig) { c.Scheduler = sched.Sync{} },
				func(c *sched.ComputeConfig) { c.Optimize = tc.optimize },
				func(c *sched.ComputeConfig) { c.Callbacks = append(c.Callbacks, cb) },
			})
			vals, err := c.Run(context.Background(), g, []graph.Key{root})
			if err != nil {
				t.Fatal(err)
			}
			if vals[0] != 10 {
				t.Errorf("got %v, want 10", vals[0])
			}
			if got := ran.Load(); got != tc.tasks {
				t.Errorf("%d tasks ran, want %d", got, tc.tasks)
			}
		})
	}
}
