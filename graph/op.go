package graph

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"sync"
)

// Op is the function of a task. Name identifies the op in the registry and
// in pictures; Run computes the task's value from its resolved arguments.
// Run must not modify its arguments: they may be shared with other tasks.
// Nor may it keep the args slice after it returns (copy it to return it):
// schedulers reuse one slice per worker.
type Op interface {
	Name() string
	Run(ctx context.Context, args []any) (any, error)
}

// ParamOp is an Op with parameters. Params must encode everything that
// distinguishes this op from others of the same name; the decoder given to
// RegisterOp rebuilds it.
type ParamOp interface {
	Op
	Params() ([]byte, error)
}

// OpDecoder rebuilds an op from its parameter bytes.
type OpDecoder func(params []byte) (Op, error)

var opRegistry = struct {
	sync.RWMutex
	m    map[string]OpDecoder
	late map[string]bool // names registered after package initialization
}{m: map[string]OpDecoder{}, late: map[string]bool{}}

// RegisterOp records how to rebuild ops named name. It is meant for init
// functions and panics if name is empty or already registered with a
// different decoder, which is a programmer error.
func RegisterOp(name string, dec OpDecoder) {
	if name == "" || dec == nil {
		panic("graph: RegisterOp with empty name or nil decoder")
	}
	opRegistry.Lock()
	defer opRegistry.Unlock()
	if _, dup := opRegistry.m[name]; dup {
		panic(fmt.Sprintf("graph: op %q registered twice", name))
	}
	opRegistry.m[name] = dec
	if !inPackageInit() {
		opRegistry.late[name] = true
	}
}

// RegisteredAtInit reports whether the op name was registered while
// packages were being initialized (a package-level variable or an init
// function), as opposed to later, by code that main (or a test) runs.
// Only the former is registered in every process started from the same
// binary: a worker process runs package initialization, never the code
// of main, so an op registered later is missing there. Clients of other
// processes (sched/distributed) refuse such ops. It reports false for a
// name that is not registered.
func RegisteredAtInit(name string) bool {
	opRegistry.RLock()
	defer opRegistry.RUnlock()
	_, ok := opRegistry.m[name]
	return ok && !opRegistry.late[name]
}

// inPackageInit reports whether the caller runs under package
// initialization: the runtime's init driver (runtime.doInit1, called by
// runtime.doInit; both on Go 1.21 to 1.26) is on the stack. Stack depth
// during initialization is small (main's init chain), so the walk is
// bounded by 64 frames; a registration deeper than that counts as late,
// which errs on the side of refusing an op. The cost, a stack walk per
// registration, is paid once per op.
func inPackageInit() bool {
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.doInit1", "runtime.doInit":
			return true
		}
		if !more {
			return false
		}
	}
}

// Register registers op, which has no parameters, under op.Name(). It
// panics like RegisterOp.
func Register(op Op) {
	RegisterOp(op.Name(), func(params []byte) (Op, error) {
		if len(params) != 0 {
			return nil, fmt.Errorf("graph: op %s takes no parameters, got %d bytes", op.Name(), len(params))
		}
		return op, nil
	})
}

// IsRegistered reports whether an op of that name is registered.
func IsRegistered(name string) bool {
	opRegistry.RLock()
	defer opRegistry.RUnlock()
	_, ok := opRegistry.m[name]
	return ok
}

// RegisteredOps returns the names of all registered ops, sorted.
func RegisteredOps() []string {
	opRegistry.RLock()
	defer opRegistry.RUnlock()
	names := make([]string, 0, len(opRegistry.m))
	for n := range opRegistry.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupOp rebuilds the op registered as name from its parameters. An
// unknown name gives an *UnknownOpError.
func LookupOp(name string, params []byte) (Op, error) {
	opRegistry.RLock()
	dec, ok := opRegistry.m[name]
	opRegistry.RUnlock()
	if !ok {
		return nil, &UnknownOpError{Name: name}
	}
	op, err := dec(params)
	if err != nil {
		return nil, fmt.Errorf("graph: decode op %s: %w", name, err)
	}
	if op == nil {
		return nil, fmt.Errorf("graph: decoder of op %s returned nil", name)
	}
	return op, nil
}

// OpParams returns op's parameters, or nil for an op without them.
func OpParams(op Op) ([]byte, error) {
	if p, ok := op.(ParamOp); ok {
		return p.Params()
	}
	return nil, nil
}

// FuncOp adapts a function to Op. It is registered like any other op when it
// must cross process boundaries.
type FuncOp struct {
	OpName string
	Fn     func(ctx context.Context, args []any) (any, error)
}

// Name returns f.OpName.
func (f *FuncOp) Name() string { return f.OpName }

// Run calls f.Fn.
func (f *FuncOp) Run(ctx context.Context, args []any) (any, error) { return f.Fn(ctx, args) }

var _ Op = (*FuncOp)(nil)
