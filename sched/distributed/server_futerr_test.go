package distributed

import (
	"fmt"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The fuzz harness's checks of keep-going jobs (server_futerr.go).

// drainErred checks the FutErred reports of ev, an event of job j, and
// records them: each names an output of a keep-going job that is erred,
// once, with a failure and the key of a task that failed.
func (ss *simServer) drainErred(j *srvJob, ev *pb.ClientEvent) error {
	for _, e := range ev.Erred {
		if e.Index < 0 || int(e.Index) >= len(j.isOut) || !j.isOut[e.Index] {
			return fmt.Errorf("job %d: FutErred for index %d, not an output", j.id, e.Index)
		}
		if !j.keepGoing {
			return fmt.Errorf("job %d: FutErred for %q, but the job does not keep going", j.id, j.key(e.Index))
		}
		if j.state[e.Index] != tsErred {
			return fmt.Errorf("job %d: FutErred for %q, which is %s", j.id, j.key(e.Index), stateNames[j.state[e.Index]])
		}
		if ss.erred[j][e.Index] {
			return fmt.Errorf("job %d: FutErred for %q twice", j.id, j.key(e.Index))
		}
		if e.Error == nil || e.Key == "" {
			return fmt.Errorf("job %d: FutErred for %q without a failure (%v) or a failed key (%q)", j.id, j.key(e.Index), e.Error, e.Key)
		}
		if ss.erred[j] == nil {
			ss.erred[j] = map[int32]bool{}
		}
		ss.erred[j][e.Index] = true
	}
	// Erred is final: a task seen erred stays so.
	if !j.run || j.over {
		return nil
	}
	for t, st := range j.state {
		t := int32(t)
		if st == tsErred {
			if ss.erredTasks[j] == nil {
				ss.erredTasks[j] = map[int32]bool{}
			}
			ss.erredTasks[j][t] = true
		} else if ss.erredTasks[j][t] {
			return fmt.Errorf("job %d: task %q erred, and is %s now", j.id, j.key(t), stateNames[st])
		}
	}
	return nil
}

// forgedFailure reports whether erred task t of j failed on worker w
// itself: the harness has a worker report the failure of a task in the
// message whose handling assigned it the task (a real worker reports
// only tasks it received), and the assignment is then sent after the
// failure.
func forgedFailure(j *srvJob, t, w int32) bool {
	c := j.causes[t]
	return c != nil && c.key == j.key(t) && c.err.Kind == pb.JobError_TASK && c.err.WorkerId == w
}

// checkErred checks task t of running job j: an erred task has a cause
// and none of its dependents waits to run (each has finished, runs, or
// erred); a task that is not erred has no cause.
func checkErred(j *srvJob, t int32) error {
	if j.state[t] != tsErred {
		if j.causes[t] != nil {
			return fmt.Errorf("task %q is %s but has a cause of error", j.key(t), stateNames[j.state[t]])
		}
		return nil
	}
	if j.causes[t] == nil || j.causes[t].err == nil || j.causes[t].key == "" {
		return fmt.Errorf("task %q erred without a cause", j.key(t))
	}
	if j.proc[t] != 0 {
		return fmt.Errorf("task %q erred but is processing on worker %d", j.key(t), j.proc[t])
	}
	for _, c := range j.dependents(t) {
		if unrun(j.state[c]) {
			return fmt.Errorf("task %q erred, but its dependent %q is %s", j.key(t), j.key(c), stateNames[j.state[c]])
		}
	}
	return nil
}

// settledJob checks a running job once every worker has reported what it
// was sent: nothing is left to run, no reference is left (need is zero
// everywhere) and only outputs are in memory.
func settledJob(j *srvJob) error {
	for t, st := range j.state {
		t := int32(t)
		switch {
		case st != tsMemory && st != tsReleased && st != tsErred:
			return fmt.Errorf("task %q is %s after settling", j.key(t), stateNames[st])
		case j.need[t] != 0:
			return fmt.Errorf("task %q: need %d after settling", j.key(t), j.need[t])
		case st == tsMemory && !j.isOut[t]:
			return fmt.Errorf("task %q, not an output, is in memory after settling", j.key(t))
		}
	}
	return nil
}
