package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
)

// The wire form of one node, for schedulers that send tasks to other
// processes one by one (sched/distributed). It is binary and compact: a
// kind byte, then for a task the op (name and parameter bytes), the
// arguments and the resources; for a literal the value in the value codec;
// for an alias the target key. Ops must be registered, as for JSON, and
// are rebuilt through the registry on decoding.

const maxWireDepth = 256

// EncodeNode appends the wire form of n to dst.
func EncodeNode(dst []byte, n *Node) ([]byte, error) {
	dst = append(dst, byte(n.Kind))
	switch n.Kind {
	case KindTask:
		var err error
		if dst, err = appendWireOp(dst, n.Op); err != nil {
			return nil, err
		}
		if dst, err = appendWireArgs(dst, n.Args, 0); err != nil {
			return nil, err
		}
		names := make([]string, 0, len(n.Resources))
		for r := range n.Resources {
			names = append(names, r)
		}
		sort.Strings(names)
		dst = binary.AppendUvarint(dst, uint64(len(names)))
		for _, r := range names {
			if r == "" {
				return nil, errors.New("graph: encode node: a resource with an empty name")
			}
			if !validResource(n.Resources[r]) {
				return nil, fmt.Errorf("graph: encode node: resource %q = %v, want a finite amount >= 0", r, n.Resources[r])
			}
			dst = appendWireString(dst, r)
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(n.Resources[r]))
		}
		return dst, nil
	case KindLiteral:
		return EncodeValue(dst, n.Value)
	case KindAlias:
		return appendWireString(dst, string(n.Target)), nil
	}
	return nil, fmt.Errorf("graph: encode node: invalid kind %d", n.Kind)
}

// DecodeNode rebuilds a node from its wire form. Ops are looked up in the
// registry; an unknown op is an *UnknownOpError.
func DecodeNode(b []byte) (Node, error) {
	d := wireDecoder{b: b}
	n := d.node()
	if d.err == nil && len(d.b) != 0 {
		d.fail(fmt.Errorf("%d trailing bytes", len(d.b)))
	}
	if d.err != nil {
		return Node{}, d.err
	}
	return n, nil
}

// WireOpName returns the op name of a task node in its wire form
// (EncodeNode) without decoding the node or looking the op up: a
// scheduler that forwards nodes unread names a failing task's op with it.
// It reports false for another kind of node or bytes too short to hold a
// name.
func WireOpName(b []byte) (string, bool) {
	if len(b) == 0 || Kind(b[0]) != KindTask {
		return "", false
	}
	d := wireDecoder{b: b[1:]}
	name := d.bytes()
	if d.err != nil || len(name) == 0 {
		return "", false
	}
	return string(name), true
}

func validResource(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

func appendWireString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendWireOp(dst []byte, op Op) ([]byte, error) {
	if op == nil {
		return nil, errors.New("graph: encode node: nil op")
	}
	name := op.Name()
	if name == "" {
		return nil, errors.New("graph: encode node: op with an empty name")
	}
	if !IsRegistered(name) {
		return nil, &UnknownOpError{Name: name}
	}
	p, err := OpParams(op)
	if err != nil {
		return nil, fmt.Errorf("graph: op %s params: %w", name, err)
	}
	dst = appendWireString(dst, name)
	if p == nil {
		return append(dst, 0), nil
	}
	dst = append(dst, 1)
	dst = binary.AppendUvarint(dst, uint64(len(p)))
	return append(dst, p...), nil
}

func appendWireArgs(dst []byte, args []Arg, depth int) ([]byte, error) {
	if depth > maxWireDepth {
		return nil, errors.New("graph: encode node: arguments nested too deeply")
	}
	dst = binary.AppendUvarint(dst, uint64(len(args)))
	for i := range args {
		a := &args[i]
		dst = append(dst, byte(a.Kind))
		var err error
		switch a.Kind {
		case ArgRef:
			dst = appendWireString(dst, string(a.Ref))
		case ArgLit:
			dst, err = EncodeValue(dst, a.Lit)
		case ArgList:
			dst, err = appendWireArgs(dst, a.List, depth+1)
		case ArgNested:
			if dst, err = appendWireOp(dst, a.Op); err == nil {
				dst, err = appendWireArgs(dst, a.List, depth+1)
			}
		default:
			err = fmt.Errorf("graph: encode node: invalid argument kind %d", a.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	return dst, nil
}

type wireDecoder struct {
	b   []byte
	err error
}

func (d *wireDecoder) fail(err error) {
	if d.err == nil {
		d.err = &CodecError{Op: "decode", Msg: "node: " + err.Error()}
	}
	d.b = nil
}

func (d *wireDecoder) byte1() byte {
	if len(d.b) == 0 {
		d.fail(errors.New("truncated"))
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *wireDecoder) count() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) {
		d.fail(errors.New("bad length"))
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *wireDecoder) bytes() []byte {
	n := d.count()
	if d.err != nil {
		return nil
	}
	if n > len(d.b) {
		d.fail(errors.New("truncated"))
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

func (d *wireDecoder) value() any {
	if d.err != nil {
		return nil
	}
	v, rest, err := DecodeValue(d.b)
	if err != nil {
		d.err = err
		d.b = nil
		return nil
	}
	d.b = rest
	return v
}

func (d *wireDecoder) op() Op {
	name := string(d.bytes())
	var params []byte
	switch d.byte1() {
	case 0:
	case 1:
		params = append([]byte{}, d.bytes()...)
	default:
		d.fail(errors.New("bad op params flag"))
	}
	if d.err != nil {
		return nil
	}
	op, err := LookupOp(name, params)
	if err != nil {
		d.err = err
		d.b = nil
		return nil
	}
	return op
}

func (d *wireDecoder) args(depth int) []Arg {
	if depth > maxWireDepth {
		d.fail(errors.New("arguments nested too deeply"))
		return nil
	}
	n := d.count()
	if d.err != nil || n == 0 {
		return nil
	}
	out := make([]Arg, n)
	for i := range out {
		a := &out[i]
		a.Kind = ArgKind(d.byte1())
		switch a.Kind {
		case ArgRef:
			a.Ref = Key(d.bytes())
		case ArgLit:
			a.Lit = d.value()
		case ArgList:
			a.List = d.args(depth + 1)
			if a.List == nil {
				a.List = []Arg{}
			}
		case ArgNested:
			a.Op = d.op()
			a.List = d.args(depth + 1)
		default:
			d.fail(fmt.Errorf("invalid argument kind %d", a.Kind))
		}
		if d.err != nil {
			return nil
		}
	}
	return out
}

func (d *wireDecoder) node() Node {
	var n Node
	n.Kind = Kind(d.byte1())
	switch n.Kind {
	case KindTask:
		n.Op = d.op()
		n.Args = d.args(0)
		nr := d.count()
		if nr > 0 && d.err == nil {
			n.Resources = make(map[string]float64, nr)
			for range nr {
				r := string(d.bytes())
				if len(d.b) < 8 {
					d.fail(errors.New("truncated resource"))
					break
				}
				v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
				d.b = d.b[8:]
				if !validResource(v) || r == "" {
					d.fail(fmt.Errorf("resource %q = %v, want a name and a finite amount >= 0", r, v))
					break
				}
				n.Resources[r] = v
			}
		}
	case KindLiteral:
		n.Value = d.value()
	case KindAlias:
		n.Target = Key(d.bytes())
	default:
		d.fail(fmt.Errorf("invalid node kind %d", n.Kind))
	}
	return n
}

// Errors that cross process boundaries. An error returned by a task on a
// worker reaches the client as text; a sentinel error registered here under
// a name travels as that name too, so that errors.Is still recognises it
// on the client (the way schedtest.ErrBoom is checked on every scheduler).

var errRegistry = struct {
	sync.RWMutex
	byName map[string]error
	order  []string
}{byName: map[string]error{}}

func init() {
	RegisterError("context.Canceled", context.Canceled)
	RegisterError("context.DeadlineExceeded", context.DeadlineExceeded)
}

// RegisterError records a sentinel error under name, so that schedulers in
// other processes can send it by name. Like RegisterOp it is meant for init
// functions and panics on an empty name or a name registered twice.
func RegisterError(name string, err error) {
	if name == "" || err == nil {
		panic("graph: RegisterError with empty name or nil error")
	}
	errRegistry.Lock()
	defer errRegistry.Unlock()
	if _, dup := errRegistry.byName[name]; dup {
		panic(fmt.Sprintf("graph: error %q registered twice", name))
	}
	errRegistry.byName[name] = err
	errRegistry.order = append(errRegistry.order, name)
}

// ErrorName returns the name of the first registered sentinel (in order of
// registration) that errors.Is finds in err's chain.
func ErrorName(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	errRegistry.RLock()
	defer errRegistry.RUnlock()
	for _, name := range errRegistry.order {
		if errors.Is(err, errRegistry.byName[name]) {
			return name, true
		}
	}
	return "", false
}

// LookupError returns the sentinel registered under name.
func LookupError(name string) (error, bool) {
	errRegistry.RLock()
	defer errRegistry.RUnlock()
	err, ok := errRegistry.byName[name]
	return err, ok
}
