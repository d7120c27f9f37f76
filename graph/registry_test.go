package graph_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

func init() {
	graph.RegisterOp("graphtest.nil-decoder-result", func([]byte) (graph.Op, error) { return nil, nil })
}

func TestLookupOp(t *testing.T) {
	tests := []struct {
		name    string
		op      string
		params  []byte
		want    graph.Op
		unknown bool
	}{
		{"plain", "graphtest.add", nil, addOp{}, false},
		{"params", "graphtest.scale", []byte(`{"factor":4}`), scaleOp{Factor: 4}, false},
		{"unknown", "graphtest.nope", nil, nil, true},
		{"params-for-plain-op", "graphtest.add", []byte("x"), nil, false},
		{"bad-params", "graphtest.scale", []byte("{"), nil, false},
		{"decoder-returns-nil", "graphtest.nil-decoder-result", nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := graph.LookupOp(tt.op, tt.params)
			if tt.want != nil {
				if err != nil || op != tt.want {
					t.Fatalf("LookupOp = %#v, %v; want %#v", op, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("LookupOp = %#v, want an error", op)
			}
			var ue *graph.UnknownOpError
			if got := errors.As(err, &ue); got != tt.unknown {
				t.Errorf("errors.As(%v, *UnknownOpError) = %v, want %v", err, got, tt.unknown)
			}
		})
	}
}

func TestRegistryListing(t *testing.T) {
	ops := graph.RegisteredOps()
	if !slices.IsSorted(ops) {
		t.Errorf("RegisteredOps not sorted: %v", ops)
	}
	for _, name := range []string{"graphtest.add", "graphtest.scale", "graphtest.bin"} {
		if !slices.Contains(ops, name) || !graph.IsRegistered(name) {
			t.Errorf("%s not listed as registered", name)
		}
	}
	if graph.IsRegistered("graphtest.nope") {
		t.Errorf("an unregistered op is reported registered")
	}
	types := graph.RegisteredTypes()
	if !slices.IsSorted(types) || !slices.Contains(types, "graphtest.point") {
		t.Errorf("RegisteredTypes = %v, want sorted with graphtest.point", types)
	}
}

// Registering twice is a programmer error and panics; so do empty names.
func TestRegisterPanics(t *testing.T) {
	dec := func([]byte) (graph.Op, error) { return addOp{}, nil }
	tests := []struct {
		name string
		f    func()
	}{
		{"duplicate-op", func() { graph.RegisterOp("graphtest.add", dec) }},
		{"duplicate-register", func() { graph.Register(addOp{}) }},
		{"empty-name", func() { graph.RegisterOp("", dec) }},
		{"nil-decoder", func() { graph.RegisterOp("graphtest.nil-decoder", nil) }},
		{"duplicate-type-name", func() {
			graph.RegisterType("graphtest.point", func(int8) ([]byte, error) { return nil, nil }, func([]byte) (int8, error) { return 0, nil })
		}},
		{"duplicate-type", func() {
			graph.RegisterType("graphtest.point2", func(point) ([]byte, error) { return nil, nil }, func([]byte) (point, error) { return point{}, nil })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			tt.f()
		})
	}
}

func TestOpParamsAndFuncOp(t *testing.T) {
	if p, err := graph.OpParams(addOp{}); p != nil || err != nil {
		t.Errorf("OpParams(plain op) = %q, %v; want nil, nil", p, err)
	}
	if p, err := graph.OpParams(scaleOp{Factor: 5}); string(p) != `{"factor":5}` || err != nil {
		t.Errorf("OpParams(scaleOp) = %q, %v", p, err)
	}
	f := &graph.FuncOp{OpName: "graphtest.len", Fn: func(_ context.Context, args []any) (any, error) { return len(args), nil }}
	if f.Name() != "graphtest.len" {
		t.Errorf("Name = %q", f.Name())
	}
	if v, err := f.Run(context.Background(), []any{1, 2, 3}); v != 3 || err != nil {
		t.Errorf("Run = %v, %v; want 3", v, err)
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    graph.Kind
		want string
	}{
		{graph.KindTask, "task"},
		{graph.KindLiteral, "literal"},
		{graph.KindAlias, "alias"},
		{0, "invalid"},
		{200, "invalid"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q", tt.k, got, tt.want)
		}
	}
}

// Registered at package initialization two ways: a package-level
// variable's initializer and an init function (above).
var _ = func() bool {
	graph.RegisterOp("graphtest.at-init-var", func([]byte) (graph.Op, error) { return nil, nil })
	return true
}()

// TestRegisteredAtInit: registrations under package initialization (a
// package-level variable, an init function) count as at init; one made
// while a test runs, or from a goroutine it starts, does not; an unknown
// name is not.
func TestRegisteredAtInit(t *testing.T) {
	graph.RegisterOp("graphtest.late", func([]byte) (graph.Op, error) { return nil, nil })
	done := make(chan struct{})
	go func() {
		defer close(done)
		graph.RegisterOp("graphtest.late-goroutine", func([]byte) (graph.Op, error) { return nil, nil })
	}()
	<-done
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"graphtest.at-init-var", true},
		{"graphtest.nil-decoder-result", true},
		{"graphtest.add", true},
		{"graphtest.late", false},
		{"graphtest.late-goroutine", false},
		{"graphtest.never-registered", false},
	} {
		if got := graph.RegisteredAtInit(tt.name); got != tt.want {
			t.Errorf("RegisteredAtInit(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
