package udfbridge

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// MapFunc computes one nav element from one frame (shape sig, input dtype).
type MapFunc func(frame *nd.Array) (*nd.Array, error)

// AutoUDF is LiberTEM's AutoUDF: f applied to every frame, the results
// collected in a nav buffer "result" whose extra shape and dtype are
// inferred by calling f once on a frame of ones of the input dtype
// (preferred float32, as LiberTEM's default). Nav buffers only: the
// default merge and merge_all apply.
//
// A task rebuilds its UDF from a registered name and encoded parameters,
// and a Go function cannot be encoded: the function is kept in a
// process-wide registry (the package's second explicit registry after
// RegisterUDF) under a name, and the UDF's parameters hold the name. Map
// registers f under a fresh name, which only this process knows; MapNamed
// uses a fixed name, so that a worker process that registers the same
// function in an init function (RegisterMapFunc) can rebuild the UDF.
type AutoUDF struct {
	Fn string `json:"fn"`
	f  MapFunc
}

var (
	_ FrameProcessor = (*AutoUDF)(nil)
	_ Requirer       = (*AutoUDF)(nil)
)

// Requires names the map function: a worker process has it only if it
// was registered there (RegisterMapFunc at init; a Map function made in
// main exists in this process alone).
func (u *AutoUDF) Requires() []string { return []string{requireMapFunc + u.Fn} }

var mapFuncs = struct {
	sync.RWMutex
	m    map[string]MapFunc
	next int
}{m: map[string]MapFunc{}}

// RegisterMapFunc records f under name for AutoUDFs; it panics on an empty
// or duplicate name or a nil f, a programmer error.
func RegisterMapFunc(name string, f MapFunc) {
	if name == "" || f == nil {
		panic("udfbridge: RegisterMapFunc with empty name or nil func")
	}
	mapFuncs.Lock()
	defer mapFuncs.Unlock()
	if _, dup := mapFuncs.m[name]; dup {
		panic("udfbridge: map function " + name + " registered twice")
	}
	mapFuncs.m[name] = f
	graph.RegisterRequirement(requireMapFunc + name)
}

// Map returns an AutoUDF applying f to every frame; f is registered under
// a fresh, process-local name (see AutoUDF).
func Map(f MapFunc) *AutoUDF {
	mapFuncs.Lock()
	mapFuncs.next++
	name := fmt.Sprintf("auto#%d", mapFuncs.next)
	mapFuncs.m[name] = f
	mapFuncs.Unlock()
	graph.RegisterRequirement(requireMapFunc + name)
	return &AutoUDF{Fn: name, f: f}
}

// MapNamed returns an AutoUDF applying the function registered under name
// with RegisterMapFunc.
func MapNamed(name string) (*AutoUDF, error) {
	mapFuncs.RLock()
	f, ok := mapFuncs.m[name]
	mapFuncs.RUnlock()
	if !ok {
		return nil, fmt.Errorf("udfbridge: UDF AutoUDF: map function %q is not registered (RegisterMapFunc)", name)
	}
	return &AutoUDF{Fn: name, f: f}, nil
}

func init() {
	RegisterUDF("AutoUDF", func(b []byte) (UDF, error) {
		var p AutoUDF
		if err := decodeParams("AutoUDF", b, &p); err != nil {
			return nil, err
		}
		return MapNamed(p.Fn)
	})
}

func (*AutoUDF) Name() string              { return "AutoUDF" }
func (u *AutoUDF) Params() ([]byte, error) { return json.Marshal(u) }

// Buffers calls f on a frame of ones of the input dtype to learn the
// result's shape and dtype.
func (u *AutoUDF) Buffers(m *Meta) ([]BufferDecl, error) {
	if u.f == nil {
		return nil, fmt.Errorf("udfbridge: UDF AutoUDF: no function")
	}
	ones, err := nd.Full(m.InputDType, 1, m.SigShape...)
	if err != nil {
		return nil, udfErr("AutoUDF", "inferring the result", err)
	}
	r, err := u.call(ones)
	if err != nil {
		return nil, err
	}
	return []BufferDecl{NavBuffer("result", r.DType(), r.Shape()...)}, nil
}

// call runs f, turning a panic into a *UDFError naming the UDF and the
// function that wraps a *sched.PanicError with the value and the stack.
func (u *AutoUDF) call(frame *nd.Array) (r *nd.Array, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &UDFError{UDF: "AutoUDF", Step: u.Fn, Err: &sched.PanicError{Value: p, Stack: debug.Stack()}}
		}
	}()
	r, err = u.f(frame)
	if err != nil {
		return nil, udfErr("AutoUDF", u.Fn, err)
	}
	if r == nil {
		return nil, fmt.Errorf("udfbridge: UDF AutoUDF (%s): function returned a nil array", u.Fn)
	}
	return r, nil
}

func (u *AutoUDF) ProcessFrame(c *Ctx, frame *nd.Array) error {
	r, err := u.call(frame)
	if err != nil {
		return err
	}
	dst := c.Buf("result")
	if r.Size() != dst.Size() {
		return fmt.Errorf("udfbridge: UDF AutoUDF (%s): function returned shape %v, inferred %v", u.Fn, r.Shape(), dst.Shape())
	}
	if r, err = r.Reshape(dst.Shape()...); err == nil {
		err = nd.Assign(dst, r)
	}
	return udfErr("AutoUDF", "process_frame", err)
}
