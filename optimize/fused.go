package optimize

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/tessera-go/tessera/graph"
)

// FusedOpName is the registered name of Fused ops.
const FusedOpName = "optimize.fused"

// Fused is the op of a task that Fuse nested inside another: it runs the
// task's own op and, when that fails or panics, returns a *FusedError
// naming the key the task had before fusion. Without it a failure deep in
// a fused chain would be reported under the key and op of the chain's top,
// which ran nothing wrong (inc(add(fails(3), 1)) failing as "inc" with
// fails's message).
//
// Fused is a registered graph.ParamOp whose parameters carry Key and the
// wrapped op's name and parameters, so a fused graph still encodes and a
// worker process names the failing task too. Pictures show the wrapped
// op's label (Label), so fused tasks are drawn as before.
type Fused struct {
	Op  graph.Op  // the task's own op
	Key graph.Key // the task's key before fusion
}

var (
	_ graph.ParamOp = (*Fused)(nil)
	_ graph.Op      = (*Fused)(nil)
)

func init() { graph.RegisterOp(FusedOpName, decodeFused) }

// Name returns FusedOpName.
func (*Fused) Name() string { return FusedOpName }

// Run runs f.Op on args. An error, or a panic (recovered here, where the
// key is still known, with its stack), comes back as a *FusedError.
func (f *Fused) Run(ctx context.Context, args []any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, &FusedError{Key: f.Key, Op: f.Op.Name(), Panic: r, Stack: debug.Stack()}
		}
	}()
	v, err = f.Op.Run(ctx, args)
	if err != nil {
		// A constituent's own nested arguments are resolved by the
		// scheduler before this Run, so an error from below already came
		// back as its own *FusedError and never reaches here.
		return nil, &FusedError{Key: f.Key, Op: f.Op.Name(), Err: err}
	}
	return v, nil
}

// Label is the wrapped op's label in pictures: its own Label when it has
// one, else the part of its name after the last '.' or '/', as package viz
// shortens op names.
func (f *Fused) Label() string {
	if l, ok := f.Op.(interface{ Label() string }); ok {
		if s := l.Label(); s != "" {
			return s
		}
	}
	name := f.Op.Name()
	if i := strings.LastIndexAny(name, "./"); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// Params encodes Key, then the wrapped op's name and parameters, each as a
// uvarint length and bytes; a parameterless op has a zero flag byte where
// its parameters would start, as the graph wire codec writes ops.
func (f *Fused) Params() ([]byte, error) {
	if f.Op == nil {
		return nil, errors.New("optimize: Fused with a nil op")
	}
	name := f.Op.Name()
	if !graph.IsRegistered(name) {
		return nil, &graph.UnknownOpError{Name: name}
	}
	p, err := graph.OpParams(f.Op)
	if err != nil {
		return nil, err
	}
	dst := make([]byte, 0, 2*binary.MaxVarintLen64+len(f.Key)+len(name)+len(p)+1)
	dst = binary.AppendUvarint(dst, uint64(len(f.Key)))
	dst = append(dst, f.Key...)
	dst = binary.AppendUvarint(dst, uint64(len(name)))
	dst = append(dst, name...)
	if p == nil {
		return append(dst, 0), nil
	}
	dst = append(dst, 1)
	return append(dst, p...), nil
}

func decodeFused(b []byte) (graph.Op, error) {
	str := func() (string, error) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return "", fmt.Errorf("optimize: %s params: bad length", FusedOpName)
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, nil
	}
	key, err := str()
	if err != nil {
		return nil, err
	}
	name, err := str()
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("optimize: %s params: missing parameter flag", FusedOpName)
	}
	var params []byte
	switch b[0] {
	case 0:
		if len(b) != 1 {
			return nil, fmt.Errorf("optimize: %s params: %d trailing bytes", FusedOpName, len(b)-1)
		}
	case 1:
		params = b[1:]
	default:
		return nil, fmt.Errorf("optimize: %s params: bad parameter flag %d", FusedOpName, b[0])
	}
	if name == FusedOpName {
		// Fuse never wraps a Fused; refusing it bounds the decoder's
		// recursion on hostile input.
		return nil, fmt.Errorf("optimize: %s params: nested %s", FusedOpName, FusedOpName)
	}
	op, err := graph.LookupOp(name, params)
	if err != nil {
		return nil, err
	}
	return &Fused{Op: op, Key: graph.Key(key)}, nil
}

// FusedError is the error of a task that Fuse nested inside another: it
// names the task's own key and op, which the scheduler's error would
// otherwise replace with those of the task it was fused into. Package
// sched turns it into a *sched.TaskError under Key, so errors read the
// same with fusion on and off.
type FusedError struct {
	Key graph.Key // the failing task's key before fusion
	Op  string    // its op's name
	Err error     // what the op returned; nil when it panicked
	// Panic is the value the op panicked with, and Stack the stack at the
	// panic; nil when the op returned Err.
	Panic any
	Stack []byte
}

func (e *FusedError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("task %q (%s): panic: %v", string(e.Key), e.Op, e.Panic)
	}
	return fmt.Sprintf("task %q (%s): %v", string(e.Key), e.Op, e.Err)
}

// Unwrap returns Err, so errors.Is finds the op's sentinel errors.
func (e *FusedError) Unwrap() error { return e.Err }
