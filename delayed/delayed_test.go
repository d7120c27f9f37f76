package delayed_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/viz"
)

var (
	dAdd    = delayed.Fn2("add", add)
	dSquare = delayed.Fn1("square", square)
	dInc    = delayed.Fn1("test.inc", inc)
	// Pure wrappers of the same functions: deterministic keys.
	pAdd    = delayed.Fn2("add", add, delayed.Pure())
	pSquare = delayed.Fn1("square", square, delayed.Pure())
	pInc    = delayed.Fn1("test.inc", inc, delayed.Pure())
	dSum    = delayed.FnN("test.sum", func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	})
)

func inc(x int) int { return x + 1 }

var ctx = context.Background()

// schedulers every computing test runs on.
var schedulers = []struct {
	name string
	s    sched.Scheduler
}{
	{"sync", sched.Sync{}},
	{"threaded", sched.Threaded{Workers: 3}},
}

// TestComputeMatchesGo computes expressions lazily and compares them with
// the same expression evaluated by plain Go, on every scheduler, with and
// without optimization.
func TestComputeMatchesGo(t *testing.T) {
	tests := []struct {
		name  string
		build func() delayed.Delayed[int]
		want  int
	}{
		{"add", func() delayed.Delayed[int] { return dAdd(delayed.Lit(1), delayed.Lit(2)) }, add(1, 2)},
		{"sum-squares", func() delayed.Delayed[int] {
			return dAdd(dSquare(delayed.Lit(2)), dSquare(delayed.Lit(3)))
		}, add(square(2), square(3))},
		{"value-node", func() delayed.Delayed[int] {
			x := delayed.Value(7)
			return dAdd(x, dSquare(x))
		}, 7 + 49},
		{"same-arg-twice", func() delayed.Delayed[int] {
			x := dInc(delayed.Lit(4))
			return dAdd(x, x)
		}, 10},
		{"chain", func() delayed.Delayed[int] {
			x := delayed.Value(0)
			for range 50 {
				x = dInc(x)
			}
			return x
		}, 50},
		{"variadic", func() delayed.Delayed[int] {
			return dSum(delayed.Lit(1), dSquare(delayed.Lit(3)), delayed.Value(5))
		}, 1 + 9 + 5},
		{"variadic-empty", func() delayed.Delayed[int] { return dSum() }, 0},
		{"tree-1024", func() delayed.Delayed[int] { return buildTree(benchAddImpure, 1024) }, 1024 * 1025 / 2},
	}
	for _, tt := range tests {
		for _, sc := range schedulers {
			for _, opt := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/optimize=%v", tt.name, sc.name, opt), func(t *testing.T) {
					got, err := tt.build().Compute(ctx, delayed.WithScheduler(sc.s), delayed.WithOptimize(opt))
					if err != nil {
						t.Fatal(err)
					}
					if got != tt.want {
						t.Errorf("got %d, want %d", got, tt.want)
					}
				})
			}
		}
	}
}

func TestDefaultScheduler(t *testing.T) {
	got, err := dAdd(dSquare(delayed.Lit(5)), delayed.Lit(1)).Compute(ctx)
	if want := 26; err != nil || got != want {
		t.Errorf("got %d, %v; want %d", got, err, want)
	}
}

// TestPureKeys checks the keys of Pure wrappers against graph.Tokenize of
// the op name and the arguments' keys and literal values, and that
// building twice gives the same keys.
func TestPureKeys(t *testing.T) {
	x := pSquare(delayed.Lit(2))
	y := pSquare(delayed.Lit(3))
	r := pAdd(x, y)

	tokX, err := graph.Tokenize("delayed.square", 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.Key("square-" + tokX); x.Key() != want {
		t.Errorf("square(2) key = %q, want %q", x.Key(), want)
	}
	tokR, err := graph.Tokenize("delayed.add", x.Key(), y.Key())
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.Key("add-" + tokR); r.Key() != want {
		t.Errorf("add key = %q, want %q", r.Key(), want)
	}
	if again := pAdd(pSquare(delayed.Lit(2)), pSquare(delayed.Lit(3))); again.Key() != r.Key() {
		t.Errorf("rebuilt key %q, want %q", again.Key(), r.Key())
	}
	// Call with plain values keys as Lit does.
	if again := pAdd.Call(pSquare.Call(2), pSquare.Call(3)); again.Key() != r.Key() {
		t.Errorf("rebuilt with Call: key %q, want %q", again.Key(), r.Key())
	}
	if other := pAdd(y, x); other.Key() == r.Key() {
		t.Errorf("add(y, x) has the key of add(x, y): %q", r.Key())
	}
	if got := r.Key().Prefix(); got != "add" {
		t.Errorf("prefix = %q, want add", got)
	}
	// A qualified name keys by its last element.
	if got := pInc(delayed.Lit(1)).Key().Prefix(); got != "inc" {
		t.Errorf("prefix of test.inc = %q, want inc", got)
	}
}

// TestTokenMatchesGraph compares the fast key path with graph.Tokenize,
// the reference, over every literal kind the fast path handles and some
// it hands over.
func TestTokenMatchesGraph(t *testing.T) {
	type point struct{ X, Y int }
	tests := []struct {
		name string
		lits []any
	}{
		{"ints", []any{0, 1, -1, math.MaxInt, math.MinInt}},
		{"int64", []any{int64(-5), int64(1 << 40)}},
		{"floats", []any{0.5, math.Inf(-1), -0.0}},
		{"strings", []any{"", "a", "hello, world"}},
		{"bools-nil", []any{true, false, nil}},
		{"keys", []any{graph.Key("x-1"), graph.Key("")}},
		{"slow-path", []any{uint8(3), []int{1, 2}, float32(1.5), map[string]any{"a": 1}}},
	}
	f := delayed.FnN("test.tok", func(xs []any) int { return len(xs) }, delayed.Pure())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins := make([]delayed.In[any], len(tt.lits))
			for i, v := range tt.lits {
				ins[i] = delayed.Lit(v)
			}
			tok, err := graph.Tokenize(append([]any{"delayed.test.tok"}, tt.lits...)...)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := f(ins...).Key(), graph.Key("tok-"+tok); got != want {
				t.Errorf("key = %q, want %q", got, want)
			}
		})
	}
	t.Run("untokenizable-is-impure", func(t *testing.T) {
		a := f(delayed.Lit[any](point{1, 2})).Key()
		b := f(delayed.Lit[any](point{1, 2})).Key()
		if a == b || !strings.HasPrefix(string(a), "tok-") {
			t.Errorf("keys %q and %q: want distinct tok- keys", a, b)
		}
	})
}

func TestImpure(t *testing.T) {
	// The default and the explicit option are the same: a key per call.
	for _, inc := range []func(delayed.In[int]) delayed.Delayed[int]{
		delayed.Fn1("test.impure.inc", inc),
		delayed.Fn1("test.impure.inc", inc, delayed.Impure()),
	} {
		a, b := inc(delayed.Lit(1)), inc(delayed.Lit(1))
		if a.Key() == b.Key() {
			t.Errorf("impure calls share key %q", a.Key())
		}
		if a.Key().Prefix() != "inc" {
			t.Errorf("prefix of %q, want inc", a.Key())
		}
		vals, err := delayed.Compute(ctx, []delayed.Valuer{a, b})
		if err != nil || !reflect.DeepEqual(vals, []any{2, 2}) {
			t.Errorf("got %v, %v; want [2 2]", vals, err)
		}
	}
}

// TestImpureRandom is the issue's [random() for 5]: five calls of an
// impure function of no arguments are five tasks that run five times and
// give the five values the function returned, in call order; the same
// function wrapped Pure is one task computed once.
func TestImpureRandom(t *testing.T) {
	var seq atomic.Int64
	// A counter stands for a random source: every call returns a value no
	// earlier call returned, and the oracle is the count of calls.
	next := func() int { return int(seq.Add(1)) }
	name := uniq("test.random")
	random := delayed.Fn0(name, next)
	pureRandom := delayed.Fn0(name, next, delayed.Pure())
	for _, opt := range []bool{true, false} {
		seq.Store(0)
		vs := make([]delayed.Valuer, 5)
		for i := range vs {
			vs[i] = random()
		}
		vals, err := delayed.Compute(ctx, vs, delayed.WithOptimize(opt), delayed.WithScheduler(sched.Sync{}))
		if err != nil {
			t.Fatal(err)
		}
		seen := map[any]bool{}
		for _, v := range vals {
			seen[v] = true
		}
		if len(seen) != 5 || seq.Load() != 5 {
			t.Errorf("optimize=%v: impure values %v from %d calls, want 5 distinct from 5 calls", opt, vals, seq.Load())
		}
		seq.Store(0)
		for i := range vs {
			vs[i] = pureRandom()
		}
		vals, err = delayed.Compute(ctx, vs, delayed.WithOptimize(opt))
		if err != nil {
			t.Fatal(err)
		}
		if want := []any{1, 1, 1, 1, 1}; !reflect.DeepEqual(vals, want) || seq.Load() != 1 {
			t.Errorf("optimize=%v: pure values %v from %d calls, want %v from 1", opt, vals, seq.Load(), want)
		}
	}
}

func TestNamed(t *testing.T) {
	x := dSquare(delayed.Lit(3)).Named("x")
	r := dAdd(x, delayed.Lit(1)).Named("result")
	if r.Key() != "result" || x.Key() != "x" {
		t.Fatalf("keys %q, %q", r.Key(), x.Key())
	}
	g, err := r.Graph()
	if err != nil {
		t.Fatal(err)
	}
	n, ok := g.Get("result")
	if !ok || !reflect.DeepEqual(n.Refs(nil), []graph.Key{"x"}) {
		t.Errorf("result node refs = %v, want [x]", n.Refs(nil))
	}
	got, err := r.Compute(ctx)
	if err != nil || got != 10 {
		t.Errorf("got %d, %v; want 10", got, err)
	}
	if _, err := x.Named("").Compute(ctx); !errors.As(err, new(*delayed.NameError)) {
		t.Errorf("empty name: err = %v, want *NameError", err)
	}
}

func TestConflict(t *testing.T) {
	a := dSquare(delayed.Lit(2)).Named("same")
	b := dSquare(delayed.Lit(3)).Named("same")
	_, err := dAdd(a, b).Graph()
	var ce *graph.ConflictError
	if !errors.As(err, &ce) || ce.Key != "same" {
		t.Errorf("err = %v, want *graph.ConflictError for key same", err)
	}
	// Equal nodes under one key are merged, not a conflict.
	c := dSquare(delayed.Lit(2)).Named("same")
	if got, err := dAdd(a, c).Compute(ctx); err != nil || got != 8 {
		t.Errorf("got %d, %v; want 8", got, err)
	}
}

func TestNameClash(t *testing.T) {
	first := func(a int) int { return a }
	second := func(a int) int { return -a }
	f1 := delayed.Fn1("test.clash", first)
	f1again := delayed.Fn1("test.clash", first)
	f2 := delayed.Fn1("test.clash", second)
	f3 := delayed.Fn1("test.clash", func(a string) string { return a })
	if got, err := f1again(delayed.Lit(4)).Compute(ctx); err != nil || got != 4 {
		t.Errorf("rewrapping the same function: got %d, %v; want 4", got, err)
	}
	if got, err := f1(delayed.Lit(4)).Compute(ctx); err != nil || got != 4 {
		t.Errorf("first wrapper: got %d, %v; want 4", got, err)
	}
	tests := []struct {
		name string
		d    interface {
			Err() error
			Key() graph.Key
		}
	}{
		{"other-function", f2(delayed.Lit(1))},
		{"other-type", f3(delayed.Lit("x"))},
		{"empty", delayed.Fn0("", func() int { return 0 })()},
		{"reserved", delayed.Fn1("getitem", first)(delayed.Lit(1))},
		{"space", delayed.Fn1("a b", first)(delayed.Lit(1))},
		{"nil-func", delayed.Fn1[int, int]("test.nil", nil)(delayed.Lit(1))},
		{"downstream", dInc(f2(delayed.Lit(1)))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ne *delayed.NameError
			if !errors.As(tt.d.Err(), &ne) {
				t.Errorf("Err() = %v, want *NameError", tt.d.Err())
			}
			_, err := delayed.Compute(ctx, []delayed.Valuer{tt.d.(delayed.Valuer)})
			if !errors.As(err, &ne) {
				t.Errorf("Compute err = %v, want *NameError", err)
			}
		})
	}
}

var errBoom = errors.New("boom")

func TestTaskError(t *testing.T) {
	fail := delayed.Fn1E("test.fail", func(x int) (int, error) {
		if x > 2 {
			return 0, errBoom
		}
		return x, nil
	})
	explode := delayed.Fn1("test.explode", func(x int) int { panic("explode") })
	failing := fail(delayed.Lit(3))
	panicking := explode(delayed.Lit(1))
	tests := []struct {
		name    string
		d       delayed.Delayed[int]
		key     graph.Key
		isPanic bool
	}{
		{"error", dInc(failing), failing.Key(), false},
		{"panic", dAdd(delayed.Lit(1), panicking), panicking.Key(), true},
	}
	for _, tt := range tests {
		for _, sc := range schedulers {
			t.Run(tt.name+"/"+sc.name, func(t *testing.T) {
				_, err := tt.d.Compute(ctx, delayed.WithScheduler(sc.s), delayed.WithOptimize(false))
				var te *sched.TaskError
				if !errors.As(err, &te) {
					t.Fatalf("err = %v, want *sched.TaskError", err)
				}
				if te.Key != tt.key {
					t.Errorf("TaskError key = %q, want %q", te.Key, tt.key)
				}
				var pe *sched.PanicError
				if got := errors.As(err, &pe); got != tt.isPanic {
					t.Errorf("panic error: %v, want %v", got, tt.isPanic)
				}
				if !tt.isPanic && !errors.Is(err, errBoom) {
					t.Errorf("err = %v, want it to wrap errBoom", err)
				}
			})
		}
	}
	if v, err := fail(delayed.Lit(1)).Compute(ctx); err != nil || v != 1 {
		t.Errorf("fail(1) = %d, %v; want 1, nil", v, err)
	}
}

// TestTypeMismatch feeds wrong-typed values through FromGraph: they must
// come back as errors naming the key, not as panics.
func TestTypeMismatch(t *testing.T) {
	g := graph.New(1)
	if err := g.AddLiteral("s", "not a number"); err != nil {
		t.Fatal(err)
	}
	wrong := delayed.FromGraph[int](g, "s")
	r := dInc(wrong)
	_, err := r.Compute(ctx, delayed.WithScheduler(sched.Sync{}))
	var te *sched.TaskError
	var ty *delayed.TypeError
	if !errors.As(err, &te) || te.Key != r.Key() || !errors.As(err, &ty) {
		t.Fatalf("err = %v, want *sched.TaskError for %q wrapping *TypeError", err, r.Key())
	}
	if ty.Arg != 0 || ty.Want != "int" || ty.Got != "string" {
		t.Errorf("TypeError = %+v", ty)
	}
	if _, err := wrong.Compute(ctx); !errors.As(err, &ty) || ty.Arg != -1 {
		t.Errorf("result mismatch: err = %v, want *TypeError for the result", err)
	}
	if _, err := delayed.FromGraph[int](g, "missing").Compute(ctx); !errors.As(err, new(*graph.MissingKeyError)) {
		t.Errorf("missing key: err = %v, want *graph.MissingKeyError", err)
	}
}

func TestFromGraph(t *testing.T) {
	g := graph.New(2)
	op := &graph.FuncOp{OpName: "test.double", Fn: func(_ context.Context, a []any) (any, error) { return 2 * a[0].(int), nil }}
	if err := g.AddLiteral("x", 21); err != nil {
		t.Fatal(err)
	}
	if err := g.AddTask("y", op, graph.Ref("x")); err != nil {
		t.Fatal(err)
	}
	y := delayed.FromGraph[int](g, "y")
	r := dAdd(y, delayed.FromGraph[int](g, "x"))
	got, err := r.Compute(ctx)
	if err != nil || got != 63 {
		t.Errorf("got %d, %v; want 63", got, err)
	}
	named := y.Named("z")
	if got, err := named.Compute(ctx); err != nil || got != 42 {
		t.Errorf("named: got %d, %v; want 42", got, err)
	}
}

// uniq makes a fresh wrapper name. Closures of one code share a
// registration (see the package doc), so a test whose closure captures a
// counter needs a name of its own each time it runs (-count=N).
func uniq(name string) string { return fmt.Sprintf("%s_%d", name, nameSeq.Add(1)) }

var nameSeq atomic.Int64

// countingSquare counts its calls, for the tests of shared work.
func countingSquare(name string) (func(delayed.In[int]) delayed.Delayed[int], *atomic.Int64) {
	var n atomic.Int64
	f := delayed.Fn1(uniq(name), func(x int) int { n.Add(1); return x * x }, delayed.Pure())
	return f, &n
}

func TestComputeSharesWork(t *testing.T) {
	for _, sc := range schedulers {
		for _, opt := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/optimize=%v", sc.name, opt), func(t *testing.T) {
				sq, calls := countingSquare(fmt.Sprintf("test.countsq.%s.%v", sc.name, opt))
				x := sq(delayed.Lit(3))
				a := dAdd(x, delayed.Lit(1))
				b := dAdd(x, delayed.Lit(2))
				// built again: pure keys make it the same node
				c := dInc(sq(delayed.Lit(3)))
				vals, err := delayed.Compute(ctx, []delayed.Valuer{a, b, c}, delayed.WithScheduler(sc.s), delayed.WithOptimize(opt))
				if err != nil {
					t.Fatal(err)
				}
				if want := []any{10, 11, 10}; !reflect.DeepEqual(vals, want) {
					t.Errorf("got %v, want %v", vals, want)
				}
				if n := calls.Load(); n != 1 {
					t.Errorf("square ran %d times, want 1", n)
				}
			})
		}
	}
}

func TestPersist(t *testing.T) {
	sq, calls := countingSquare("test.countsq.persist")
	x := dAdd(sq(delayed.Lit(4)), delayed.Lit(1))
	p, err := x.Persist(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.Key() != x.Key() {
		t.Errorf("persisted key %q, want %q", p.Key(), x.Key())
	}
	g, err := p.Graph()
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := g.Get(x.Key()); g.Len() != 1 || !ok || n.Kind != graph.KindLiteral || n.Value != 17 {
		t.Errorf("persisted graph: %d nodes, want one literal 17", g.Len())
	}
	for i := range 3 {
		got, err := dAdd(p, delayed.Lit(i)).Compute(ctx)
		if err != nil || got != 17+i {
			t.Errorf("got %d, %v; want %d", got, err, 17+i)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("square ran %d times, want 1", n)
	}
}

func TestSliceMap(t *testing.T) {
	total := delayed.Fn1("test.total", func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	})
	keys := delayed.Fn1("test.mapsum", func(m map[string]int) string {
		s := 0
		for _, v := range m {
			s += v
		}
		return fmt.Sprint(len(m), s)
	})
	var xs []delayed.Delayed[int]
	want := 0
	for i := range 10 {
		xs = append(xs, dSquare(delayed.Lit(i)))
		want += i * i
	}
	t.Run("slice", func(t *testing.T) {
		got, err := total(delayed.Slice(xs)).Compute(ctx)
		if err != nil || got != want {
			t.Errorf("got %d, %v; want %d", got, err, want)
		}
		all, err := delayed.Slice(xs).Compute(ctx)
		if err != nil || len(all) != 10 || all[9] != 81 {
			t.Errorf("got %v, %v", all, err)
		}
	})
	t.Run("nested-slice", func(t *testing.T) {
		nested := delayed.Slice([]delayed.Delayed[[]int]{delayed.Slice(xs[:2]), delayed.Slice(xs[2:4])})
		got, err := nested.Compute(ctx)
		if want := [][]int{{0, 1}, {4, 9}}; err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, %v; want %v", got, err, want)
		}
	})
	t.Run("map", func(t *testing.T) {
		m := map[string]delayed.Delayed[int]{"a": xs[2], "b": xs[3], "c": delayed.Value(5)}
		got, err := keys(delayed.Map(m)).Compute(ctx)
		if want := fmt.Sprint(3, 4+9+5); err != nil || got != want {
			t.Errorf("got %q, %v; want %q", got, err, want)
		}
		// The key does not depend on map iteration order.
		for range 5 {
			m2 := map[string]delayed.Delayed[int]{"c": delayed.Value(5), "b": xs[3], "a": xs[2]}
			if k1, k2 := delayed.Map(m).Key(), delayed.Map(m2).Key(); k1 != k2 {
				t.Fatalf("map keys differ: %q, %q", k1, k2)
			}
		}
	})
	t.Run("index-items", func(t *testing.T) {
		s := delayed.Slice(xs)
		items := delayed.Items(s, 10)
		vals, err := delayed.Compute(ctx, []delayed.Valuer{items[3], delayed.Index(s, 7)})
		if want := []any{9, 49}; err != nil || !reflect.DeepEqual(vals, want) {
			t.Errorf("got %v, %v; want %v", vals, err, want)
		}
		_, err = delayed.Index(s, 10).Compute(ctx)
		var te *sched.TaskError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("index 10: err = %v, want an out-of-range TaskError", err)
		}
	})
}

func TestTuple(t *testing.T) {
	var calls atomic.Int64
	minmax := delayed.Fn1Tuple2(uniq("test.minmax"), func(xs []int) (int, int) {
		calls.Add(1)
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		return lo, hi
	})
	data := []int{5, -3, 9, 0}
	tup := minmax(delayed.Lit(data))
	lo, hi := tup.Items()
	spread, err := delayed.Fn2("test.sub", func(a, b int) int { return a - b })(hi, lo).Compute(ctx)
	if err != nil || spread != 12 {
		t.Errorf("spread = %d, %v; want 12", spread, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("minmax ran %d times, want 1", n)
	}
	a, b, err := tup.Compute(ctx)
	if err != nil || a != -3 || b != 9 {
		t.Errorf("Compute = %d, %d, %v; want -3, 9", a, b, err)
	}
	divmodE := delayed.Fn2Tuple2E("test.divmod", func(a, b int) (int, int, error) {
		if b == 0 {
			return 0, 0, errBoom
		}
		return a / b, a % b, nil
	})
	q, r, err := divmodE(delayed.Lit(17), delayed.Lit(5)).Compute(ctx)
	if err != nil || q != 17/5 || r != 17%5 {
		t.Errorf("divmod = %d, %d, %v", q, r, err)
	}
	if _, _, err := divmodE(delayed.Lit(1), delayed.Lit(0)).Compute(ctx); !errors.Is(err, errBoom) {
		t.Errorf("divmod by 0: err = %v, want errBoom", err)
	}
}

func TestZeroDelayed(t *testing.T) {
	var z delayed.Delayed[int]
	if !errors.Is(z.Err(), delayed.ErrZero) {
		t.Errorf("Err() = %v, want ErrZero", z.Err())
	}
	if _, err := dInc(z).Compute(ctx); !errors.Is(err, delayed.ErrZero) {
		t.Errorf("Compute err = %v, want ErrZero", err)
	}
	if _, err := delayed.Compute(ctx, []delayed.Valuer{nil}); err == nil {
		t.Error("nil Valuer: no error")
	}
	if _, err := dAdd(nil, delayed.Lit(1)).Compute(ctx); err == nil {
		t.Error("nil In: no error")
	}
}

// TestGraphShape checks the collected graph against counts computed
// independently: a tree over n leaves has 2n-1 tasks, and a pure DAG
// built twice collects once.
func TestGraphShape(t *testing.T) {
	for _, leaves := range []int{1, 2, 3, 64, 1000} {
		t.Run(fmt.Sprint("tree-", leaves), func(t *testing.T) {
			g, err := buildTree(benchAddPure, leaves).Graph()
			if err != nil {
				t.Fatal(err)
			}
			// A binary tree with n leaves has n-1 inner nodes.
			if want := 2*leaves - 1; g.Len() != want {
				t.Errorf("%d nodes, want %d", g.Len(), want)
			}
			d, err := g.ValidateDeps()
			if err != nil {
				t.Fatal(err)
			}
			// Dependencies come before their users.
			for i := range g.Len() {
				for _, j := range d.Of(i) {
					if int(j) >= i {
						t.Fatalf("node %d depends on later node %d", i, j)
					}
				}
			}
		})
	}
	t.Run("dag-built-twice", func(t *testing.T) {
		// x = 1; y = x+x; z = y+y; …: 1 literal and 20 tasks however often
		// each node is reached.
		x := delayed.Value(1)
		for range 20 {
			x = pAdd(x, x)
		}
		y := delayed.Value(1)
		for range 20 {
			y = pAdd(y, y)
		}
		vals, err := delayed.Compute(ctx, []delayed.Valuer{x, y}, delayed.WithOptimize(false))
		if err != nil || vals[0] != 1<<20 || vals[1] != 1<<20 {
			t.Errorf("got %v, %v; want 2^20 twice", vals, err)
		}
		g, err := dAdd(x, y).Graph()
		if err != nil || g.Len() != 22 {
			t.Errorf("%v nodes (%v), want 22", g.Len(), err)
		}
	})
	t.Run("deep-chain", func(t *testing.T) {
		x := delayed.Value(0)
		for range 200000 {
			x = dInc(x)
		}
		g, err := x.Graph()
		if err != nil || g.Len() != 200001 {
			t.Fatalf("%d nodes (%v), want 200001", g.Len(), err)
		}
	})
}

// TestConcurrentBuild builds and collects values sharing nodes from many
// goroutines; run with -race.
func TestConcurrentBuild(t *testing.T) {
	shared := buildTree(benchAddPure, 256)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := dAdd(shared, delayed.Lit(w))
			for range 20 {
				g, err := r.Graph()
				if err != nil {
					errs <- err
					return
				}
				if g.Len() != 2*256-1+1 {
					errs <- fmt.Errorf("%d nodes, want %d", g.Len(), 2*256)
					return
				}
			}
			v, err := r.Compute(ctx)
			if err != nil || v != 256*257/2+w {
				errs <- fmt.Errorf("got %d, %v", v, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestCallbacks(t *testing.T) {
	var started, post atomic.Int64
	var ran sync.Map
	cb := &sched.Callbacks{
		Start: func(g *graph.Graph) { started.Add(1) },
		Posttask: func(k graph.Key, _ any, err error, _ int) {
			post.Add(1)
			ran.Store(k, true)
		},
	}
	r := dAdd(dSquare(delayed.Lit(2)), dSquare(delayed.Lit(3)))
	if _, err := r.Compute(ctx, delayed.WithCallbacks(cb), delayed.WithOptimize(false)); err != nil {
		t.Fatal(err)
	}
	if started.Load() != 1 || post.Load() != 3 {
		t.Errorf("Start ran %d times, Posttask %d; want 1 and 3", started.Load(), post.Load())
	}
	if _, ok := ran.Load(r.Key()); !ok {
		t.Errorf("no Posttask for %q", r.Key())
	}
}

func TestVisualize(t *testing.T) {
	r := dAdd(dSquare(delayed.Lit(2)), dSquare(delayed.Lit(3)))
	dir := t.TempDir()
	path := filepath.Join(dir, "g.dot")
	if err := r.Visualize(ctx, path, viz.Options{Optimize: true}); err != nil {
		t.Fatal(err)
	}
	g, err := r.Graph()
	if err != nil {
		t.Fatal(err)
	}
	want, err := viz.DOT(g, viz.Options{Optimize: true, Keys: []graph.Key{r.Key()}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(want) {
		t.Errorf("file differs from viz.DOT:\n%s\nwant\n%s", got, want)
	}
	if err := r.Visualize(ctx, filepath.Join(dir, "g.unknown"), viz.Options{}); err == nil {
		t.Error("unknown extension: no error")
	}
	var z delayed.Delayed[int]
	if err := z.Visualize(ctx, path, viz.Options{}); !errors.Is(err, delayed.ErrZero) {
		t.Errorf("zero: err = %v, want ErrZero", err)
	}
}

func TestString(t *testing.T) {
	d := dSquare(delayed.Lit(2))
	if got, want := d.String(), "Delayed[int]("+string(d.Key())+")"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestGraphCrossesProcess encodes a delayed graph as JSON, decodes it (as a
// worker would, rebuilding ops from the registry by name) and runs the
// copy: the ops of wrapped functions and of Slice, Map and tuples must be
// registered.
func TestGraphCrossesProcess(t *testing.T) {
	divmod := delayed.Fn2Tuple2("test.json.divmod", func(a, b int) (int, int) { return a / b, a % b })
	total := delayed.Fn1("test.json.total", func(m map[string][]int) int {
		s := 0
		for _, xs := range m {
			for _, x := range xs {
				s += x
			}
		}
		return s
	})
	q, r := divmod(dSquare(delayed.Lit(7)), delayed.Lit(5)).Items()
	d := total(delayed.Map(map[string]delayed.Delayed[[]int]{
		"qr":  delayed.Slice([]delayed.Delayed[int]{q, r}),
		"sum": delayed.Slice([]delayed.Delayed[int]{dSum(delayed.Lit(1), delayed.Value(2))}),
	}))
	want := 49/5 + 49%5 + 3
	g, err := d.Graph()
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var g2 graph.Graph
	if err := g2.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	if !graph.Equal(g, &g2) {
		t.Fatal("decoded graph differs")
	}
	vals, err := sched.Sync{}.Get(ctx, &g2, []graph.Key{d.Key()})
	if err != nil || vals[0] != want {
		t.Errorf("got %v, %v; want %d", vals, err, want)
	}
}
