package distributed

import (
	"fmt"
	"strings"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched/distributed/pb"
)

// The client's part of placement constraints (constraints.go): the op
// table of a job, the refusal of ops that worker processes cannot have,
// the per-call options and the errors.

// NoWorkerForOpError is the error of a computation with a task whose op
// no connected worker has: the workers run a binary that does not
// register it (the stock tessera command, or another program). Workers
// are the names of the connected workers. It matches ErrNoWorker with
// errors.Is.
type NoWorkerForOpError struct {
	Op      string
	Key     graph.Key
	Workers []string
}

func (e *NoWorkerForOpError) Error() string {
	return fmt.Sprintf("distributed: no connected worker has op %q, which task %q needs (connected workers: %s); "+
		"the workers run a binary that does not register it: run your own binary as the workers, "+
		"calling distributed.MaybeWorker first thing in main (docs/cluster.md, \"Your own ops\")",
		e.Op, string(e.Key), strings.Join(e.Workers, ", "))
}

// Is reports whether target is ErrNoWorker.
func (e *NoWorkerForOpError) Is(target error) bool { return target == ErrNoWorker }

// LateOpError is the error of a computation (Get, Submit, Map, Persist)
// with a task whose op was registered after package initialization:
// typically a delayed wrapper built inside main or a function it calls.
// Worker processes run the binary's package initialization, never its
// main, so they cannot have the op. Nothing of the job is sent. Clients
// whose workers all share their process (StartCluster with InProcess)
// accept such ops.
type LateOpError struct {
	Op  string
	Key graph.Key
	// Requirement: Op is a requirement of the task's op (graph.Requirer),
	// such as a UDF or a block function registered in its own registry.
	Requirement bool
}

func (e *LateOpError) Error() string {
	if e.Requirement {
		return fmt.Sprintf("distributed: task %q needs %q, which was registered after package initialization (inside main or a function it calls), "+
			"so worker processes, which run only this binary's package initialization, do not have it: "+
			"register it in an init function (func init() { udfbridge.RegisterUDF(...) } or chunkarray.RegisterBlockFunc(...)), "+
			"and run the workers with distributed.MaybeWorker", string(e.Key), e.Op)
	}
	return fmt.Sprintf("distributed: task %q: op %q was registered after package initialization (inside main or a function it calls), "+
		"so worker processes, which run only this binary's package initialization, do not have it: "+
		"wrap the function at package level, e.g. `var add = delayed.Fn2(\"mypkg.add\", func(a, b int) int { return a + b })`, "+
		"and run the workers with distributed.MaybeWorker", string(e.Key), e.Op)
}

// opTable collects the op names of a job's tasks as it is encoded: the
// table sent in its first message (ClientMessage.place_ops), each task's
// index in it plus one (TaskDef.place_op), and the ops nested in the
// arguments of the few tasks that have some.
type opTable struct {
	names   []string
	index   map[string]int32 // name -> index + 1
	last    string           // the previous task's op name and its index + 1: runs of one op skip the map
	lastIdx int32
	of      []int32 // by task index; 0 for none
	nested  map[int32][]int32
	lateOK  bool
}

func newOpTable(n int, lateOK bool) *opTable {
	return &opTable{of: make([]int32, n), lateOK: lateOK}
}

// add notes the ops of node nd, task t with key k.
func (o *opTable) add(t int, k graph.Key, nd *graph.Node) error {
	if nd.Kind != graph.KindTask || nd.Op == nil || isHeld(nd) {
		return nil
	}
	op := innerOp(nd.Op)
	idx, err := o.lookup(op.Name(), k)
	if err != nil {
		return err
	}
	o.of[t] = idx
	if err := o.addRequired(int32(t), k, op); err != nil {
		return err
	}
	for _, a := range nd.Args {
		if a.Kind == graph.ArgList || a.Kind == graph.ArgNested {
			if err := o.addNested(int32(t), k, a); err != nil {
				return err
			}
		}
	}
	return nil
}

func (o *opTable) addNested(t int32, k graph.Key, a graph.Arg) error {
	if a.Kind == graph.ArgNested && a.Op != nil {
		op := innerOp(a.Op)
		idx, err := o.lookup(op.Name(), k)
		if err != nil {
			return err
		}
		o.addNestedIdx(t, idx)
		if err := o.addRequired(t, k, op); err != nil {
			return err
		}
	}
	for _, b := range a.List {
		if b.Kind == graph.ArgList || b.Kind == graph.ArgNested {
			if err := o.addNested(t, k, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// innerOp returns the op that op runs: the wrapped op of a task fused
// into another (optimize.Fused, which every worker has, as it is
// registered with package optimize), op itself otherwise.
func innerOp(op graph.Op) graph.Op {
	for {
		f, ok := op.(*optimize.Fused)
		if !ok || f.Op == nil {
			return op
		}
		op = f.Op
	}
}

// addNestedIdx lists op index idx among task t's nested ops.
func (o *opTable) addNestedIdx(t int32, idx int32) {
	if o.nested == nil {
		o.nested = map[int32][]int32{}
	}
	if idx != o.of[t] && !containsInt32(o.nested[t], idx) {
		o.nested[t] = append(o.nested[t], idx)
	}
}

// addRequired lists what op requires (graph.Requirer: the UDF or block
// function its parameters name) among task t's ops, so that the task
// goes only to workers that registered them. A requirement this process
// registered after package initialization is a *LateOpError unless
// lateOK, as for an op; one it never registered is sent as it is (the
// scheduler then finds no worker with it, or one that has it).
func (o *opTable) addRequired(t int32, k graph.Key, op graph.Op) error {
	r, ok := op.(graph.Requirer)
	if !ok {
		return nil
	}
	for _, name := range r.Requires() {
		if name == "" {
			continue
		}
		if _, seen := o.index[name]; !seen {
			// Checked once per job and name, as lookup checks ops.
			if has, atInit := graph.HasRequirement(name); has && !atInit && !o.lateOK {
				return &LateOpError{Op: name, Key: k, Requirement: true}
			}
		}
		idx, err := o.lookup(name, k)
		if err != nil {
			return err
		}
		o.addNestedIdx(t, idx)
	}
	return nil
}

func containsInt32(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// lookup returns op name's index + 1, adding it; an op registered after
// package initialization is a *LateOpError unless lateOK.
func (o *opTable) lookup(name string, k graph.Key) (int32, error) {
	if o.lastIdx != 0 && name == o.last {
		return o.lastIdx, nil
	}
	idx, ok := o.index[name]
	if !ok {
		if !o.lateOK && graph.IsRegistered(name) && !graph.RegisteredAtInit(name) {
			return 0, &LateOpError{Op: name, Key: k}
		}
		if o.index == nil {
			o.index = map[string]int32{}
		}
		o.names = append(o.names, name)
		idx = int32(len(o.names))
		o.index[name] = idx
	}
	o.last, o.lastIdx = name, idx
	return idx, nil
}

// Workers runs the task (every task of a Map, or of a submitted delayed
// value) only on the named workers: worker names, data addresses
// (host:port) or hosts (Dask's workers=). While none of them is
// connected the tasks wait, and fail with ErrNoWorker after the
// scheduler's WorkerTimeout. With AllowOtherWorkers the names are a
// preference instead.
func Workers(names ...string) SubmitOption {
	return func(c *submitConfig) { c.workers = append(c.workers, names...) }
}

// AllowOtherWorkers makes Workers a preference (Dask's
// allow_other_workers=True): the tasks run on the named workers while
// one of them is connected, and on any worker otherwise.
func AllowOtherWorkers() SubmitOption { return func(c *submitConfig) { c.loose = true } }

// Priority sets the priority of the call's tasks (Dask's priority=):
// higher runs first, across the jobs of the cluster, so that the task of
// a high-priority Submit overtakes the queued tasks of an earlier large
// Map, on the scheduler and in the workers' queues. Within one call the
// graph's order stands. The default is 0; negative values run after.
func Priority(n int) SubmitOption { return func(c *submitConfig) { c.priority = int64(n) } }

// placeRegister fills a worker's Register with its ops.
func placeRegister(reg *pb.Register, opts WorkerOptions) {
	if opts.allOps {
		reg.PlaceAllOps = true
		return
	}
	reg.PlaceOps = append(graph.RegisteredOps(), graph.RegisteredRequirements()...)
}
