package graph

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// CycleError reports a cycle. Keys lists the keys on the cycle in
// dependency order (each depends on the next, the last on the first),
// starting from the smallest key, so the same graph always reports the same
// list.
type CycleError struct{ Keys []Key }

func (e *CycleError) Error() string {
	parts := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		parts[i] = fmt.Sprintf("%q", string(k))
	}
	if len(parts) > 0 {
		parts = append(parts, parts[0])
	}
	return "graph: cycle: " + strings.Join(parts, " -> ")
}

// MissingKeyError reports a reference to a key the graph does not hold.
type MissingKeyError struct {
	Key  Key // the missing key
	From Key // the node that refers to it; empty for a requested key
}

func (e *MissingKeyError) Error() string {
	if e.From == "" {
		return fmt.Sprintf("graph: key %q is not in the graph", string(e.Key))
	}
	return fmt.Sprintf("graph: %q refers to missing key %q", string(e.From), string(e.Key))
}

// NilOpError reports a task without an op.
type NilOpError struct{ Key Key }

func (e *NilOpError) Error() string { return fmt.Sprintf("graph: task %q has a nil op", string(e.Key)) }

// ConflictError reports one key bound to two different nodes.
type ConflictError struct{ Key Key }

func (e *ConflictError) Error() string {
	return fmt.Sprintf("graph: key %q is bound to two different nodes", string(e.Key))
}

// InvalidNodeError reports a node that is malformed in some other way.
type InvalidNodeError struct {
	Key    Key
	Reason string
}

func (e *InvalidNodeError) Error() string {
	return fmt.Sprintf("graph: node %q: %s", string(e.Key), e.Reason)
}

// UnknownOpError reports an op name that is not registered.
type UnknownOpError struct{ Name string }

func (e *UnknownOpError) Error() string {
	return fmt.Sprintf("graph: op %q is not registered", e.Name)
}

// ErrUnregisteredType is wrapped by codec errors for values whose type was
// not registered with RegisterType.
var ErrUnregisteredType = errors.New("unregistered value type")

// Validate checks that every reference resolves and that there is no cycle;
// Set already rejects nil ops and malformed nodes. It returns the first
// problem as a *MissingKeyError or a *CycleError.
func (g *Graph) Validate() error {
	_, err := g.validate()
	return err
}

// ValidateDeps is Validate returning the dependencies it computed, for
// callers that need both.
func (g *Graph) ValidateDeps() (*Deps, error) { return g.validate() }

func (g *Graph) validate() (*Deps, error) {
	if c := g.cached(); c != nil && c.acyclic {
		return c.d, nil
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		if n.Kind == KindTask && n.Op == nil {
			return nil, &NilOpError{Key: g.keys[i]}
		}
	}
	d, err := g.Dependencies()
	if err != nil {
		return nil, err
	}
	if c := findCycle(g, d); c != nil {
		return nil, &CycleError{Keys: c}
	}
	g.deps.Store(&depsCache{d: d, acyclic: true})
	return d, nil
}

// findCycle returns the keys of one cycle, or nil. Kahn's algorithm finds
// whether there is one in O(n); only then does a depth-first search over the
// remaining nodes, in key order, extract a cycle deterministically.
func findCycle(g *Graph, d *Deps) []Key {
	n := g.Len()
	pending := make([]int32, n)
	queue := make([]int32, 0, n)
	for i := 0; i < n; i++ {
		pending[i] = int32(len(d.Of(i)))
		if pending[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	done := 0
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		done++
		for _, u := range d.Users(int(i)) {
			pending[u]--
			if pending[u] == 0 {
				queue = append(queue, u)
			}
		}
	}
	if done == n {
		return nil
	}
	// Nodes with pending > 0 are on or behind a cycle. Search them in key
	// order, following dependencies in key order.
	var rest []int32
	for i := 0; i < n; i++ {
		if pending[i] > 0 {
			rest = append(rest, int32(i))
		}
	}
	byKey := func(s []int32) []int32 {
		out := append([]int32(nil), s...)
		sort.Slice(out, func(a, b int) bool { return g.keys[out[a]] < g.keys[out[b]] })
		return out
	}
	const (
		white = 0
		grey  = 1
		black = 2
	)
	color := make([]uint8, n)
	type frame struct {
		node int32
		next []int32
	}
	for _, start := range byKey(rest) {
		if color[start] != white {
			continue
		}
		stack := []frame{{start, byKey(d.Of(int(start)))}}
		color[start] = grey
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if len(top.next) == 0 {
				color[top.node] = black
				stack = stack[:len(stack)-1]
				continue
			}
			j := top.next[0]
			top.next = top.next[1:]
			switch color[j] {
			case grey:
				// The cycle is j ... top.node on the stack.
				var cyc []Key
				on := false
				for _, f := range stack {
					if f.node == j {
						on = true
					}
					if on {
						cyc = append(cyc, g.keys[f.node])
					}
				}
				return rotateSmallest(cyc)
			case white:
				color[j] = grey
				stack = append(stack, frame{j, byKey(d.Of(int(j)))})
			}
		}
	}
	return nil
}

func rotateSmallest(c []Key) []Key {
	m := 0
	for i := range c {
		if c[i] < c[m] {
			m = i
		}
	}
	return append(append([]Key(nil), c[m:]...), c[:m]...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
