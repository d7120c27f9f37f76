package sched

import "github.com/tessera-go/tessera/graph"

// Tracker is the completion bookkeeping that every scheduler shares: as
// nodes of a graph finish, it counts down their dependents' unfinished
// dependencies (a task whose count reaches zero is ready) and their
// dependencies' unfinished dependents (a node whose count reaches zero is
// released, unless requested), and finishes an alias together with its
// target. The engine of Sync and Threaded uses it to schedule; the
// distributed client, whose scheduler runs the tasks, uses it to emulate
// the same Release callbacks. One tracker, so that a fix to completion (an
// alias of an alias, a node requested twice) applies to every scheduler.
//
// It is not safe for concurrent use: the engine calls it under its mutex.
type Tracker struct {
	g *graph.Graph
	d *graph.Deps
	// Pending[i] is the number of i's dependencies not yet finished.
	Pending []int32
	// Users[i] is the number of i's dependents not yet finished.
	Users  []int32
	wanted []bool
	// Finished counts the nodes finished so far, of every kind.
	Finished int
}

// NewTracker returns the tracker of g (with dependencies d) for a
// computation that requests the nodes want: nothing finished yet.
func NewTracker(g *graph.Graph, d *graph.Deps, want []int32) *Tracker {
	n := g.Len()
	t := &Tracker{g: g, d: d, Pending: make([]int32, n), Users: make([]int32, n), wanted: make([]bool, n)}
	for _, j := range want {
		t.wanted[j] = true
	}
	for i := range n {
		t.Pending[i] = int32(len(d.Of(i)))
		t.Users[i] = int32(len(d.Users(i)))
	}
	return t
}

// Wanted reports whether node i was requested (it is never released).
func (t *Tracker) Wanted(i int32) bool { return t.wanted[i] }

// Complete marks node i finished: its dependencies whose last dependent
// this was are appended to rel (unless requested), its dependents that
// have no unfinished dependency left are appended to fresh when they are
// tasks, and those that are aliases finish at once, each after alias(a, i)
// is called with the alias a and its target i (so that the caller copies
// the value; alias may be nil). It returns rel and fresh.
func (t *Tracker) Complete(i int32, rel, fresh []int32, alias func(a, target int32)) ([]int32, []int32) {
	for {
		t.Finished++
		for _, j := range t.d.Of(int(i)) {
			t.Users[j]--
			if t.Users[j] == 0 && !t.wanted[j] {
				rel = append(rel, j)
			}
		}
		var next int32 = -1
		for _, u := range t.d.Users(int(i)) {
			t.Pending[u]--
			if t.Pending[u] != 0 {
				continue
			}
			if t.g.At(int(u)).Kind == graph.KindAlias {
				if alias != nil {
					alias(u, i)
				}
				if next < 0 {
					next = u
					continue
				}
				// A second alias of the same node: rare, recurse.
				rel, fresh = t.Complete(u, rel, fresh, alias)
				continue
			}
			fresh = append(fresh, u)
		}
		if next < 0 {
			return rel, fresh
		}
		// Loop rather than recurse: chains of aliases may be long.
		i = next
	}
}
