package distributed

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// Placement constraints beyond resources: ops, worker restrictions and
// job priorities.
//
// Ops. A worker registers the names of the ops it has
// (Register.place_ops; an in-process worker, which shares the client's
// registry, says it has all of them), and the client names each task's
// op (TaskDef.place_op, an index in the job's op table sent once in its
// first message, so that a task costs a few bytes more on the wire and
// the scheduler still never decodes a node). The scheduler interns op
// names into ids for its lifetime; each worker keeps a bitmap of the ids
// it has, extended as new names come, so that the check per candidate
// worker is an index. A task goes only to workers that have its op (and
// the ops nested in its arguments): place, placeRoot, the root queues
// (keyed by op set as by resources) and stealing all ask canRun. A job
// with a task whose op no connected worker has fails when it starts
// (PLACE_NO_OP, naming the op and the connected workers), since waiting
// would not help unless someone starts other workers; with no worker
// connected at all the tasks wait as for missing resources
// (WorkerTimeout, then NO_WORKER), and a worker that joins with the op
// takes the tasks parked meanwhile.
//
// Restrictions. A job may be restricted to workers (Run.place_workers:
// names, data addresses or hosts), strictly or, with place_loose, as a
// preference: a task of a loose restriction goes to a named worker when
// some connected named worker could run it (resources, ops), and to any
// worker otherwise. A strict restriction to workers that are not
// connected parks the tasks like missing resources.
//
// Priority. A job's priority (Run.place_priority, higher first) comes
// before job order in laterThan, which orders the root queues and the
// choice of tasks to steal, and before the task's own priority in the
// workers' queues (TaskSpec.place_priority). A worker's root budget
// (rootFull) counts only its processing tasks of the same or a higher
// priority, so that a high-priority root is sent at once to a worker busy
// with a long queue of lower-priority ones, whose queue then runs it
// first.

// maxJobOps bounds the op table of one job, and maxOps the op names the
// scheduler interns in its lifetime (every worker keeps a flag per name):
// programs have tens to hundreds of ops; these only stop a client that
// sends names at random.
const (
	maxJobOps = 1 << 12
	maxOps    = 1 << 16
)

// placeState is the scheduler's part: the interned op names, the
// restrictions by signature, and a generation of the live worker set.
type placeState struct {
	opID    map[string]int32
	opNames []string
	restr   map[string]*restriction
}

// workerPlace is a worker's part.
type workerPlace struct {
	all   bool                // it has every op
	names map[string]struct{} // the ops it registered
	has   []bool              // by op id
	// Processing tasks by job priority, for the priorities other than
	// 0; nil while none (rootFull).
	prio map[int64]int32
}

// jobPlace is a job's part.
type jobPlace struct {
	ops    []int32 // op ids of the job's op table (TaskDef.place_op - 1)
	only   *restriction
	prio   int64
	rootQs map[uint64]*rootQueue // the root queue of (resource id, op index)
}

// restriction is a set of workers named by a job: names, data addresses
// or hosts.
type restriction struct {
	names []string
	loose bool
	sig   string
	match []int8 // by worker id: 0 not known yet, 1 named, 2 not
}

// internOp returns the id of op name, making one, and tells every live
// worker whether it has the new op.
func (s *Server) internOp(name string) int32 {
	if id, ok := s.pl.opID[name]; ok {
		return id
	}
	if s.pl.opID == nil {
		s.pl.opID = map[string]int32{}
	}
	id := int32(len(s.pl.opNames))
	s.pl.opID[name] = id
	s.pl.opNames = append(s.pl.opNames, name)
	for _, w := range s.live {
		s.updateOps(w)
	}
	return id
}

// initOps reads w's registered ops.
func (s *Server) initOps(w *srvWorker) {
	w.pl.all = w.reg.PlaceAllOps
	if !w.pl.all {
		w.pl.names = make(map[string]struct{}, len(w.reg.PlaceOps))
		for _, n := range w.reg.PlaceOps {
			w.pl.names[n] = struct{}{}
		}
	}
	s.updateOps(w)
}

// updateOps extends w's bitmap to every interned op.
func (s *Server) updateOps(w *srvWorker) {
	if w.pl.all {
		return
	}
	for id := len(w.pl.has); id < len(s.pl.opNames); id++ {
		_, ok := w.pl.names[s.pl.opNames[id]]
		w.pl.has = append(w.pl.has, ok)
	}
}

func (w *srvWorker) hasOp(id int32) bool {
	return w.pl.all || int(id) < len(w.pl.has) && w.pl.has[id]
}

// opsOK reports whether w has the ops of task t of j.
func (s *Server) opsOK(w *srvWorker, j *srvJob, t int32) bool {
	if w.pl.all {
		return true
	}
	if k := j.defs.op(t); k > 0 && !w.hasOp(j.pl.ops[k-1]) {
		return false
	}
	for _, k := range j.defs.nestedOps(t) {
		if !w.hasOp(j.pl.ops[k-1]) {
			return false
		}
	}
	return true
}

// canRun reports whether w may run task t of j, resources aside: it has
// the task's ops, and the job's restriction allows it (it is named, or
// the restriction is loose and no connected named worker could run t).
func (s *Server) canRun(w *srvWorker, j *srvJob, t int32) bool {
	if !s.opsOK(w, j, t) {
		return false
	}
	r := j.pl.only
	if r == nil || r.named(w) {
		return true
	}
	if !r.loose {
		return false
	}
	res := j.defs.resources(t)
	return !slices.ContainsFunc(s.live, func(x *srvWorker) bool {
		return !x.retiring && r.named(x) && covers(x.reg.Resources, res) && s.opsOK(x, j, t)
	})
}

// fits reports whether w may run task t of j.
func (s *Server) fits(w *srvWorker, j *srvJob, t int32) bool {
	return !w.retiring && covers(w.reg.Resources, j.defs.resources(t)) && s.canRun(w, j, t)
}

// named reports whether r names w: its name, data address, host, or the
// host of its data address.
func (r *restriction) named(w *srvWorker) bool {
	if int(w.id) < len(r.match) && r.match[w.id] != 0 {
		return r.match[w.id] == 1
	}
	host, _, _ := net.SplitHostPort(w.reg.DataAddress)
	ok := false
	for _, n := range r.names {
		if n != "" && (n == w.reg.Name || n == w.reg.DataAddress || n == w.reg.Host || n == host) {
			ok = true
			break
		}
	}
	if int(w.id) >= len(r.match) {
		r.match = append(r.match, make([]int8, int(w.id)+1-len(r.match))...)
	}
	r.match[w.id] = 2
	if ok {
		r.match[w.id] = 1
	}
	return ok
}

// restrictionFor returns the shared restriction of names.
func (s *Server) restrictionFor(names []string, loose bool) *restriction {
	names = slices.Clone(names)
	slices.Sort(names)
	names = slices.Compact(names)
	sig := strings.Join(names, "\x00")
	if loose {
		sig = "~" + sig
	}
	if r := s.pl.restr[sig]; r != nil {
		return r
	}
	if s.pl.restr == nil {
		s.pl.restr = map[string]*restriction{}
	}
	r := &restriction{names: names, loose: loose, sig: sig}
	s.pl.restr[sig] = r
	return r
}

// placeMessage takes a client message's op table into j's and checks its
// tasks' op indices (before they are added).
func (s *Server) placeMessage(j *srvJob, m *pb.ClientMessage) error {
	if len(m.PlaceOps) > 0 {
		if len(j.pl.ops)+len(m.PlaceOps) > maxJobOps {
			return fmt.Errorf("the job names more than %d distinct ops", maxJobOps)
		}
		if len(s.pl.opNames)+len(m.PlaceOps) > maxOps && slices.ContainsFunc(m.PlaceOps, func(n string) bool { _, ok := s.pl.opID[n]; return !ok }) {
			return fmt.Errorf("the scheduler knows %d op names, its limit; the job names more", len(s.pl.opNames))
		}
		for _, name := range m.PlaceOps {
			j.bytes += int64(len(name)) + defOverhead
		}
		if j.bytes > s.opts.MaxJobBytes {
			return fmt.Errorf("the job's task definitions pass %d bytes, the scheduler's limit per job (MaxJobBytes)", s.opts.MaxJobBytes)
		}
	}
	for _, name := range m.PlaceOps {
		j.pl.ops = append(j.pl.ops, s.internOp(name))
	}
	n := int32(len(j.pl.ops))
	for _, d := range m.Tasks {
		if d.PlaceOp < 0 || d.PlaceOp > n {
			return fmt.Errorf("task %.200q names op %d of a table of %d", d.Key, d.PlaceOp, n)
		}
		for _, k := range d.PlaceNestedOps {
			if k <= 0 || k > n {
				return fmt.Errorf("task %.200q names nested op %d of a table of %d", d.Key, k, n)
			}
		}
		if d.Held && (d.PlaceOp != 0 || len(d.PlaceNestedOps) > 0) {
			return fmt.Errorf("task %.200q is marked held but names an op", d.Key)
		}
	}
	return nil
}

// placeRun takes the job's priority and restriction from its Run.
func (s *Server) placeRun(j *srvJob, run *pb.Run) {
	j.pl.prio = run.PlacePriority
	if len(run.PlaceWorkers) > 0 {
		j.pl.only = s.restrictionFor(run.PlaceWorkers, run.PlaceLoose)
	}
}

// missingOp returns a task of j whose op (or nested op) no live worker
// has, and that op; -1 when there is none, or no worker is connected.
// Tasks linked to another job's values are not computed, and do not
// count.
func (s *Server) missingOp(j *srvJob) (int32, string) {
	if len(s.live) == 0 || len(j.pl.ops) == 0 {
		return -1, ""
	}
	missing := make([]bool, len(j.pl.ops))
	anyMissing := false
	for k, id := range j.pl.ops {
		if !slices.ContainsFunc(s.live, func(w *srvWorker) bool { return w.hasOp(id) }) {
			missing[k] = true
			anyMissing = true
		}
	}
	if !anyMissing {
		return -1, ""
	}
	for t := range int32(j.ntasks()) {
		if j.linked(t) {
			continue
		}
		if k := j.defs.op(t); k > 0 && missing[k-1] {
			return t, s.pl.opNames[j.pl.ops[k-1]]
		}
		for _, k := range j.defs.nestedOps(t) {
			if missing[k-1] {
				return t, s.pl.opNames[j.pl.ops[k-1]]
			}
		}
	}
	return -1, ""
}

// failMissingOp fails j, which has task t whose op no connected worker
// has.
func (s *Server) failMissingOp(j *srvJob, t int32, op string) {
	names := make([]string, len(s.live))
	for k, w := range s.live {
		names[k] = w.reg.Name
	}
	s.failJob(j, &pb.JobError{
		Index:        t,
		Kind:         pb.JobError_PLACE_NO_OP,
		PlaceOp:      op,
		PlaceWorkers: names,
		Message: fmt.Sprintf("no connected worker has op %q, which task %q needs (connected: %s)",
			op, j.key(t), strings.Join(names, ", ")),
	})
}

// noWorkerMessage says why task t of j found no worker, for NO_WORKER
// after WorkerTimeout.
func (s *Server) noWorkerMessage(j *srvJob, t int32) string {
	var why []string
	if len(s.live) == 0 && len(j.defs.resources(t)) == 0 {
		return fmt.Sprintf("no worker connected to run task %q (waited %v)", j.key(t), s.opts.WorkerTimeout)
	}
	if res := j.defs.resources(t); len(res) > 0 {
		why = append(why, "offers the resources "+formatResources(res))
	}
	for _, k := range append([]int32{j.defs.op(t)}, j.defs.nestedOps(t)...) {
		if k > 0 {
			id := j.pl.ops[k-1]
			if !slices.ContainsFunc(s.live, func(w *srvWorker) bool { return w.hasOp(id) }) {
				why = append(why, "has op "+strconv.Quote(s.pl.opNames[id]))
			}
		}
	}
	if r := j.pl.only; r != nil && !r.loose {
		names := r.names
		more := ""
		if len(names) > 10 {
			names, more = names[:10], fmt.Sprintf(" and %d more", len(r.names)-10)
		}
		why = append(why, "is one of the workers "+strconv.Quote(strings.Join(names, ", "))+more+" it is restricted to (Workers)")
	}
	if len(why) == 0 {
		return fmt.Sprintf("no worker connected to run task %q (waited %v)", j.key(t), s.opts.WorkerTimeout)
	}
	return fmt.Sprintf("no connected worker %s, as task %q needs (waited %v)",
		strings.Join(why, " and "), j.key(t), s.opts.WorkerTimeout)
}

// rootQueueOf returns the root queue of task t of j: by resources, ops
// and restriction.
func (s *Server) rootQueueOf(j *srvJob, t int32) *rootQueue {
	nested := j.defs.nestedOps(t)
	if len(j.pl.ops) == 0 && j.pl.only == nil {
		return s.rootQueueFor(j.defs.resources(t))
	}
	var ck uint64
	if len(nested) == 0 {
		ck = uint64(j.defs.resIndex(t))<<32 | uint64(uint32(j.defs.op(t)))
		if q := j.pl.rootQs[ck]; q != nil {
			return q
		}
	}
	res := j.defs.resources(t)
	var ops []int32
	for _, k := range append([]int32{j.defs.op(t)}, nested...) {
		if k > 0 {
			ops = append(ops, j.pl.ops[k-1])
		}
	}
	slices.Sort(ops)
	ops = slices.Compact(ops)
	var b strings.Builder
	b.WriteString(formatResources(res))
	b.WriteString("\x00ops")
	for _, id := range ops {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(int(id)))
	}
	if j.pl.only != nil {
		b.WriteString("\x00only ")
		b.WriteString(j.pl.only.sig)
	}
	sig := b.String()
	q := s.roots[sig]
	if q == nil {
		q = &rootQueue{res: res, ops: ops, only: j.pl.only}
		s.roots[sig] = q
		s.rootQs = append(s.rootQs, q)
	}
	if len(nested) == 0 {
		if j.pl.rootQs == nil {
			j.pl.rootQs = map[uint64]*rootQueue{}
		}
		j.pl.rootQs[ck] = q
	}
	return q
}

// queueFits reports whether w may run the tasks of root queue q, as
// fits does for one task.
func (s *Server) queueFits(w *srvWorker, q *rootQueue) bool {
	can := func(x *srvWorker) bool {
		if x.retiring || !covers(x.reg.Resources, q.res) {
			return false
		}
		for _, id := range q.ops {
			if !x.hasOp(id) {
				return false
			}
		}
		return true
	}
	if !can(w) {
		return false
	}
	r := q.only
	if r == nil || r.named(w) {
		return true
	}
	return r.loose && !slices.ContainsFunc(s.live, func(x *srvWorker) bool { return r.named(x) && can(x) })
}

// procAtLeast is the number of w's processing tasks whose job's priority
// is at least j's (rootFull).
func (w *srvWorker) procAtLeast(j *srvJob) int {
	if w.pl.prio == nil {
		if j.pl.prio > 0 {
			return 0
		}
		return len(w.proc)
	}
	p := j.pl.prio
	n := 0
	rest := len(w.proc) // tasks of priority 0
	for k, c := range w.pl.prio {
		rest -= int(c)
		if k >= p {
			n += int(c)
		}
	}
	if p <= 0 {
		n += rest
	}
	return n
}

// countPrio counts one more (d = 1) or one less (d = -1) processing task
// of j on w.
func (w *srvWorker) countPrio(j *srvJob, d int32) {
	p := j.pl.prio
	if p == 0 {
		return
	}
	if w.pl.prio == nil {
		w.pl.prio = map[int64]int32{}
	}
	w.pl.prio[p] += d
	if w.pl.prio[p] <= 0 {
		delete(w.pl.prio, p)
		if len(w.pl.prio) == 0 {
			w.pl.prio = nil
		}
	}
}
