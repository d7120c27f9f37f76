package graph

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func wireNodes(t testing.TB) []Node {
	t.Helper()
	inc := registeredTestOp(t)
	return []Node{
		Literal(nil),
		Literal(3.5),
		Literal([]any{1, "x", []byte{1, 2}}),
		Alias("target[0,1]"),
		Task(inc),
		Task(inc, Ref("a"), Lit(7), List(Ref("b"), Lit("s"), List()), Nested(inc, Ref("c"), Lit(int64(-1)))),
		{Kind: KindTask, Op: inc, Args: []Arg{Ref("x")}, Resources: map[string]float64{"GPU": 1, "MEM": 2.5}},
	}
}

var wireOpOnce = map[string]Op{}

func registeredTestOp(t testing.TB) Op {
	const name = "graph.wiretest.inc"
	if op, ok := wireOpOnce[name]; ok {
		return op
	}
	op := &FuncOp{OpName: name, Fn: func(context.Context, []any) (any, error) { return nil, nil }}
	Register(op)
	wireOpOnce[name] = op
	return op
}

func TestNodeWireRoundTrip(t *testing.T) {
	for i, n := range wireNodes(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			b, err := EncodeNode(nil, &n)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeNode(b)
			if err != nil {
				t.Fatal(err)
			}
			if !NodesEqual(&got, &n) {
				t.Errorf("round trip: got %+v, want %+v", got, n)
			}
			// Every strict prefix is an error, never a panic.
			for k := 0; k < len(b); k++ {
				if _, err := DecodeNode(b[:k]); err == nil {
					t.Errorf("prefix of %d/%d bytes decoded without error", k, len(b))
				}
			}
		})
	}
}

func TestNodeWireErrors(t *testing.T) {
	unreg := &FuncOp{OpName: "graph.wiretest.unregistered"}
	var ue *UnknownOpError
	if _, err := EncodeNode(nil, &Node{Kind: KindTask, Op: unreg}); !errors.As(err, &ue) {
		t.Errorf("unregistered op: err %v, want *UnknownOpError", err)
	}
	if _, err := EncodeNode(nil, &Node{}); err == nil {
		t.Error("zero node encoded without error")
	}
	b := []byte{byte(KindTask)}
	b = appendWireString(b, unreg.OpName)
	b = append(b, 0, 0, 0)
	if _, err := DecodeNode(b); !errors.As(err, &ue) || ue.Name != unreg.OpName {
		t.Errorf("decode unknown op: err %v, want *UnknownOpError naming it", err)
	}
}

// WireOpName reads the op name of every task node's wire form as
// DecodeNode does, reports false for other kinds, and never panics on a
// prefix.
func TestWireOpName(t *testing.T) {
	for i, n := range wireNodes(t) {
		b, err := EncodeNode(nil, &n)
		if err != nil {
			t.Fatal(err)
		}
		name, ok := WireOpName(b)
		want := n.Kind == KindTask
		if ok != want || (want && name != n.Op.Name()) {
			t.Errorf("node %d (%v): WireOpName = %q, %v; want %q, %v", i, n.Kind, name, ok, opNameOf(n), want)
		}
		for k := 0; k < len(b); k++ {
			if name, ok := WireOpName(b[:k]); ok && name != n.Op.Name() {
				t.Errorf("node %d: prefix of %d bytes names op %q", i, k, name)
			}
		}
	}
}

func opNameOf(n Node) string {
	if n.Kind == KindTask {
		return n.Op.Name()
	}
	return ""
}

func FuzzDecodeNode(f *testing.F) {
	for _, n := range wireNodes(f) {
		b, err := EncodeNode(nil, &n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := DecodeNode(b)
		if err != nil {
			return
		}
		b2, err := EncodeNode(nil, &n)
		if err != nil {
			t.Fatalf("decoded node does not encode: %v", err)
		}
		n2, err := DecodeNode(b2)
		if err != nil || !NodesEqual(&n, &n2) {
			t.Fatalf("re-decode: %v; %+v vs %+v", err, n, n2)
		}
	})
}

var errWireTest = errors.New("wire test sentinel")

// Registered once, in init: registering in the test body panicked when the
// test ran again in one process (-count, -cpu lists).
func init() { RegisterError("graph.errWireTest", errWireTest) }

func TestRegisteredErrors(t *testing.T) {
	wrapped := fmt.Errorf("outer: %w", errWireTest)
	name, ok := ErrorName(wrapped)
	if !ok || name != "graph.errWireTest" {
		t.Fatalf("ErrorName = %q, %v", name, ok)
	}
	if e, ok := LookupError(name); !ok || e != errWireTest {
		t.Errorf("LookupError = %v, %v", e, ok)
	}
	if name, ok := ErrorName(fmt.Errorf("x: %w", context.Canceled)); !ok || name != "context.Canceled" {
		t.Errorf("ErrorName(canceled) = %q, %v", name, ok)
	}
	if _, ok := ErrorName(errors.New("plain")); ok {
		t.Error("plain error has a name")
	}
}
