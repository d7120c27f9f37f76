package distributed

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// Retirements in the scheduler's random walks (server_fuzz_test.go): the
// harness plays RetireWorkers' steps as events among the others, and
// checks after every event that no task was placed on a retiring worker
// after it began to retire (its processing list only shrinks), and, when
// a retirement ends with its workers leaving, that no value in memory
// that was still needed was lost with them.

// retireEvent starts a retirement, advances one, or gives one up.
func (ss *simServer) retireEvent(t testing.TB, f *fuzzReader) func() string {
	switch c := f.n(4); {
	case c == 0 || len(ss.retiring) == 0:
		var names []string
		for range 1 + f.n(2) {
			names = append(names, fuzzAddrs[f.n(len(fuzzAddrs))])
		}
		var r *retirement
		var err error
		ss.do(t, func() string { return fmt.Sprintf("retiring %v", names) }, func() {
			r, err = ss.s.startRetire(names)
			if r == nil {
				return
			}
			if ss.retSnap == nil {
				ss.retSnap = map[int32]map[taskRef]bool{}
			}
			for k, w := range r.ws {
				if r.mine[k] {
					ss.retSnap[w.id] = map[taskRef]bool{}
					for _, p := range w.proc {
						ss.retSnap[w.id][p] = true
					}
				}
			}
			ss.retiring = append(ss.retiring, r)
		})
		return func() string { return fmt.Sprintf("retire %v: %v", names, err) }
	case c == 1:
		k := f.n(len(ss.retiring))
		r := ss.retiring[k]
		ss.retiring = slices.Delete(ss.retiring, k, k+1)
		ss.do(t, func() string { return "giving a retirement up" }, func() {
			r.abort(context.Canceled)
			for k, w := range r.ws {
				if r.mine[k] {
					delete(ss.retSnap, w.id)
				}
			}
		})
		return func() string { return fmt.Sprintf("retirement of %v given up", r.names()) }
	default:
		k := f.n(len(ss.retiring))
		r := ss.retiring[k]
		done := false
		ss.do(t, func() string { return "a retirement's step" }, func() { done = r.step() })
		if !done {
			return func() string { return fmt.Sprintf("retirement of %v: a step", r.names()) }
		}
		ss.retiring = slices.Delete(ss.retiring, k, k+1)
		// Done: the workers are told to exit and close their sessions,
		// which must lose nothing needed.
		var needed []taskRef
		ss.do(t, func() string { return "a retirement's exit" }, func() {
			r.exit()
			for _, j := range ss.s.sortedJobs() {
				for t, st := range j.state {
					if st == tsMemory && (j.need[t] > 0 || j.isOut[t]) {
						needed = append(needed, taskRef{j, int32(t)})
					}
				}
			}
		})
		for _, sess := range ss.sessions {
			if slices.Contains(r.ws, sess.w) && !sess.w.gone {
				ss.disconnect(t, sess, true)
			}
		}
		var lost []string
		ss.do(t, func() string { return "after a retirement" }, func() {
			for _, w := range r.ws {
				delete(ss.retSnap, w.id)
			}
			for _, ref := range needed {
				if !ref.j.over && ref.j.state[ref.i] != tsMemory {
					lost = append(lost, fmt.Sprintf("%s of job %d (%s)", ref.j.key(ref.i), ref.j.id, stateNames[ref.j.state[ref.i]]))
				}
			}
		})
		if len(lost) > 0 {
			t.Fatalf("the retirement of %v lost values still needed: %v", r.names(), lost)
		}
		return func() string { return fmt.Sprintf("retirement of %v done; the workers left", r.names()) }
	}
}

// checkRetiring checks that every retiring worker processes only tasks it
// had when it began to retire, and that the retiring flags are those of
// the retirements under way. s.mu is held.
func (ss *simServer) checkRetiring() error {
	for _, w := range ss.s.live {
		snap, tracked := ss.retSnap[w.id]
		if w.retiring != tracked {
			return fmt.Errorf("worker %d: retiring %v, but %v by the retirements under way", w.id, w.retiring, tracked)
		}
		for _, p := range w.proc {
			if tracked && !snap[p] {
				return fmt.Errorf("task %q of job %d was placed on worker %d while it retires", p.j.key(p.i), p.j.id, w.id)
			}
		}
	}
	return nil
}
