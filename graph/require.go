package graph

import (
	"sort"
	"sync"
)

// Requirements: what a task needs registered beyond its op. Some ops run
// functions their parameters name in registries of their own: a UDF
// (udfbridge.RegisterUDF), a block function (chunkarray.RegisterBlockFunc).
// Such an op exists in every process that imports its package, but the
// function it names exists only where the user's code registered it, so
// the op's name alone does not say which processes can run the task.
// Those registries record each name here as a requirement, an opaque
// string such as "udfbridge.udf/SumUDF", and the ops implement Requirer.
// sched/distributed's workers report their requirements beside their
// ops, its scheduler places a task only where both are, and its client
// refuses a requirement registered after package initialization, as it
// refuses such an op.

// Requirer is an op that needs more than its own registration to run:
// Requires lists the requirement names of what its parameters name.
type Requirer interface {
	Requires() []string
}

var requirements = struct {
	sync.RWMutex
	late map[string]bool // every requirement; true: registered after package initialization
}{late: map[string]bool{}}

// RegisterRequirement records that this process has the requirement
// name. Registering a name again is a no-op (the first registration says
// whether it happened during package initialization).
func RegisterRequirement(name string) {
	if name == "" {
		return
	}
	requirements.Lock()
	defer requirements.Unlock()
	if _, ok := requirements.late[name]; ok {
		return
	}
	requirements.late[name] = !inPackageInit()
}

// HasRequirement reports whether name was registered as a requirement,
// and whether that happened during package initialization.
func HasRequirement(name string) (has, atInit bool) {
	requirements.RLock()
	defer requirements.RUnlock()
	late, ok := requirements.late[name]
	return ok, ok && !late
}

// RegisteredRequirements returns every requirement name, sorted.
func RegisteredRequirements() []string {
	requirements.RLock()
	defer requirements.RUnlock()
	out := make([]string, 0, len(requirements.late))
	for n := range requirements.late {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
