package distributed

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The scheduler fuzz's placement constraints (server_fuzz_test.go):
// workers with some of the ops, all of them or none; tasks naming ops;
// jobs restricted to workers, strictly or loosely, and with priorities.

// fuzzOps are the op names of the fuzz's tasks.
var fuzzOps = []string{"op-a", "op-b", "op-c"}

// fuzzPlaceRegister gives reg some ops: every one (an in-process
// worker), some, or none (a worker running another binary).
func fuzzPlaceRegister(f *fuzzReader, reg *pb.Register) {
	switch f.n(4) {
	case 0:
		reg.PlaceAllOps = true
	case 1:
		reg.PlaceOps = fuzzOps[:1]
	case 2:
		reg.PlaceOps = fuzzOps[:2]
	}
}

// fuzzPlaceJob gives the tasks of a job ops (now and then nested ones)
// and returns the job's op table; the run a priority and, now and then,
// a restriction. A strict restriction always names the settling worker
// too, so that the job can finish.
func fuzzPlaceJob(f *fuzzReader, defs []*pb.TaskDef, run *pb.Run) []string {
	if f.n(4) == 0 {
		return nil // a job of ops nobody names (literals, an old client)
	}
	ops := fuzzOps[:1+f.n(len(fuzzOps))]
	for _, d := range defs {
		if d.Held {
			continue
		}
		d.PlaceOp = int32(f.n(len(ops) + 1))
		if f.n(8) == 0 {
			d.PlaceNestedOps = []int32{int32(1 + f.n(len(ops)))}
		}
	}
	if run != nil {
		run.PlacePriority = int64(f.n(3)) - 1
		switch f.n(8) {
		case 0:
			run.PlaceWorkers = []string{fuzzNames[1+f.n(3)], "settle"}
		case 1:
			run.PlaceWorkers = []string{fuzzAddrs[f.n(4)]}
			run.PlaceLoose = true
		case 2:
			run.PlaceWorkers = []string{"nobody"}
			run.PlaceLoose = true
		}
	}
	return ops
}

// checkPlace checks the placement constraints' bookkeeping: every
// processing task is on a worker that has its ops (and that its job's
// strict restriction names), and each worker's count of processing tasks
// by priority matches its processing list.
func checkPlace(s *Server) error {
	for _, w := range s.live {
		prio := map[int64]int32{}
		for _, r := range w.proc {
			j, t := r.j, r.i
			if !s.opsOK(w, j, t) {
				return fmt.Errorf("task %q (ops %d %v) is processing on worker %d, which lacks an op", j.key(t), j.defs.op(t), j.defs.nestedOps(t), w.id)
			}
			if o := j.pl.only; o != nil && !o.loose && !o.named(w) {
				return fmt.Errorf("task %q of a job restricted to %v is processing on worker %d (%s)", j.key(t), o.names, w.id, w.reg.Name)
			}
			if j.pl.prio != 0 {
				prio[j.pl.prio]++
			}
		}
		if len(prio) != len(w.pl.prio) {
			return fmt.Errorf("worker %d counts processing tasks by priority %v, its list has %v", w.id, w.pl.prio, prio)
		}
		for p, n := range prio {
			if w.pl.prio[p] != n {
				return fmt.Errorf("worker %d counts processing tasks by priority %v, its list has %v", w.id, w.pl.prio, prio)
			}
		}
		for id, has := range w.pl.has {
			if want := slices.Contains(w.reg.PlaceOps, s.pl.opNames[id]); has != want && !w.pl.all {
				return fmt.Errorf("worker %d has op %q: %v, registered %v", w.id, s.pl.opNames[id], has, w.reg.PlaceOps)
			}
		}
	}
	return nil
}
