package optimize_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/optimize"
	"github.com/tessera-go/tessera/sched"
)

// intOp is a registered test op on int arguments; list arguments are
// summed into it.
type intOp struct {
	name string
	f    func([]int) int
}

func (o *intOp) Name() string { return o.name }

func (o *intOp) Run(_ context.Context, args []any) (any, error) {
	xs := make([]int, 0, len(args))
	for _, a := range args {
		switch v := a.(type) {
		case int:
			xs = append(xs, v)
		case []any:
			s := 0
			for _, e := range v {
				n, ok := e.(int)
				if !ok {
					return nil, fmt.Errorf("%s: list element %T, want int", o.name, e)
				}
				s += n
			}
			xs = append(xs, s)
		default:
			return nil, fmt.Errorf("%s: argument %T, want int", o.name, a)
		}
	}
	return o.f(xs), nil
}

// cheapOp is an intOp that asks to be inlined.
type cheapOp struct{ intOp }

func (*cheapOp) Cheap() bool { return true }

var _ optimize.Cheap = (*cheapOp)(nil)

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

var (
	opInc  = &intOp{"optimize_test.inc", func(x []int) int { return x[0] + 1 }}
	opDbl  = &intOp{"optimize_test.double", func(x []int) int { return 2 * x[0] }}
	opAdd  = &intOp{"optimize_test.add", sum}
	opLeaf = &intOp{"optimize_test.leaf", func([]int) int { return 1 }}
	// opTen is cheap: ten times its argument.
	opTen = &cheapOp{intOp{"optimize_test.ten", func(x []int) int { return 10 * x[0] }}}
	// opCheapAdd is a cheap add.
	opCheapAdd = &cheapOp{intOp{"optimize_test.cheapadd", sum}}
)

func init() {
	for _, op := range []graph.Op{opInc, opDbl, opAdd, opLeaf, opTen, opCheapAdd} {
		graph.Register(op)
	}
}

// T builds a task node: a graph.Key argument becomes a reference, a
// graph.Arg is used as is, anything else is a literal.
func T(op graph.Op, args ...any) graph.Node {
	as := make([]graph.Arg, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case graph.Key:
			as[i] = graph.Ref(v)
		case graph.Arg:
			as[i] = v
		default:
			as[i] = graph.Lit(v)
		}
	}
	return graph.Task(op, as...)
}

type entry struct {
	k graph.Key
	n graph.Node
}

func E(k string, n graph.Node) entry { return entry{graph.Key(k), n} }

func mustGraph(t testing.TB, es ...entry) *graph.Graph {
	t.Helper()
	g := graph.New(len(es))
	for _, e := range es {
		if err := g.Set(e.k, e.n); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func keys(ss ...string) []graph.Key {
	out := make([]graph.Key, len(ss))
	for i, s := range ss {
		out[i] = graph.Key(s)
	}
	return out
}

// sortedKeys returns g's keys sorted, for comparing key sets.
func sortedKeys(g *graph.Graph) []graph.Key {
	return slices.Sorted(slices.Values(g.Keys()))
}

// compute runs g with sched.Sync: the oracle every rewriting pass is
// checked against.
func compute(t testing.TB, g *graph.Graph, ks []graph.Key) []any {
	t.Helper()
	vals, err := sched.Sync{}.Get(context.Background(), g, ks)
	if err != nil {
		t.Fatalf("Sync.Get: %v", err)
	}
	return vals
}

// randomDAG returns n nodes in shuffled insertion order: node i is a leaf
// literal or an add of up to maxDeps random earlier nodes.
func randomDAG(rng *rand.Rand, n, maxDeps int) *graph.Graph {
	nodes := make([]graph.Node, n)
	for i := range nodes {
		k := 0
		if i > 0 {
			k = rng.IntN(maxDeps + 1)
		}
		if k == 0 {
			nodes[i] = graph.Literal(i)
			continue
		}
		args := make([]graph.Arg, k)
		for j := range args {
			args[j] = graph.Ref(graph.BlockKey("n", rng.IntN(i)))
		}
		nodes[i] = graph.Task(opAdd, args...)
	}
	g := graph.New(n)
	for _, i := range rng.Perm(n) {
		if err := g.Set(graph.BlockKey("n", i), nodes[i]); err != nil {
			panic(err)
		}
	}
	return g
}

// outputsOf returns the nodes without dependents.
func outputsOf(g *graph.Graph, d *graph.Deps) []graph.Key {
	var out []graph.Key
	for i := 0; i < g.Len(); i++ {
		if len(d.Users(i)) == 0 {
			out = append(out, g.Key(i))
		}
	}
	return out
}

// sequence turns priorities into the run sequence.
func sequence(prio []int32) []int32 {
	seq := make([]int32, len(prio))
	for i, p := range prio {
		seq[p] = int32(i)
	}
	return seq
}

// peakLive simulates running seq the way sched.Sync does: a value becomes
// live when its node has run and is released when its last dependent has
// run, unless it is wanted (a node without dependents). It returns the
// largest number of live values, counted just after each node runs.
func peakLive(d *graph.Deps, seq []int32) int {
	remaining := make([]int32, d.Len())
	for i := range remaining {
		remaining[i] = int32(len(d.Users(i)))
	}
	live, peak := 0, 0
	for _, i := range seq {
		live++
		peak = max(peak, live)
		for _, j := range d.Of(int(i)) {
			remaining[j]--
			if remaining[j] == 0 {
				live--
			}
		}
	}
	return peak
}

// levelOrder is the breadth-first contrast: every node of height h runs
// before any node of height h+1, in insertion order within a level.
func levelOrder(g *graph.Graph, d *graph.Deps) []int32 {
	n := g.Len()
	h := make([]int, n)
	var level func(i int) int
	level = func(i int) int {
		if h[i] > 0 {
			return h[i]
		}
		m := 1
		for _, j := range d.Of(i) {
			m = max(m, level(int(j))+1)
		}
		h[i] = m
		return m
	}
	seq := make([]int32, n)
	for i := range seq {
		seq[i] = int32(i)
		level(i)
	}
	slices.SortStableFunc(seq, func(a, b int32) int { return h[a] - h[b] })
	return seq
}

// binaryTree returns a reduction tree over 2^k leaf tasks: node (l, i) adds
// nodes (l-1, 2i) and (l-1, 2i+1). The root is ("t", k, 0). Leaves return 1.
func binaryTree(k int) (*graph.Graph, graph.Key) {
	g := graph.New(1 << (k + 1))
	for l := 0; l <= k; l++ {
		for i := 0; i < 1<<(k-l); i++ {
			key := graph.BlockKey("t", l, i)
			var err error
			if l == 0 {
				err = g.Set(key, graph.Task(opLeaf))
			} else {
				err = g.Set(key, graph.Task(opAdd, graph.Ref(graph.BlockKey("t", l-1, 2*i)), graph.Ref(graph.BlockKey("t", l-1, 2*i+1))))
			}
			if err != nil {
				panic(err)
			}
		}
	}
	return g, graph.BlockKey("t", k, 0)
}

// pass is the signature shared by Fuse, Inline and Optimize.
type pass func(*graph.Graph, []graph.Key) (*graph.Graph, *graph.Deps, error)

// checkPass runs p on g and checks what every pass promises: the returned
// dependencies match the graph, the values of ks are those of the input
// run with sched.Sync (the oracle), the input is unchanged, and the output
// survives a JSON round trip. ks defaults to keep.
func checkPass(t testing.TB, p pass, g *graph.Graph, keep, ks []graph.Key) *graph.Graph {
	t.Helper()
	if ks == nil {
		ks = keep
	}
	snap := snapshot(t, g)
	out, d, err := p(g, keep)
	if err != nil {
		t.Fatal(err)
	}
	checkDeps(t, out, d)
	if got, want := compute(t, out, ks), compute(t, g, ks); !slices.Equal(got, want) {
		t.Errorf("values after the pass %v, before %v", got, want)
	}
	if !bytes.Equal(snapshot(t, g), snap) {
		t.Error("the pass modified its input")
	}
	roundTrip(t, out, ks)
	return out
}
