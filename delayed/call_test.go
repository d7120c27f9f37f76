package delayed_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/delayed"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/sched"
)

var (
	cAddF = delayed.Fn2("test.call.addf", func(a, b float64) float64 { return a + b })
	cLen  = delayed.Fn1("test.call.len", func(xs []int) int { return len(xs) })
	cSumS = delayed.Fn1("test.call.sums", func(xs []int) int {
		s := 0
		for _, x := range xs {
			s += x
		}
		return s
	})
	cDescribe = delayed.Fn1("test.call.describe", func(v any) string { return fmt.Sprintf("%T %v", v, v) })
	cMapSum   = delayed.Fn1("test.call.mapsum", func(m map[string]int) int {
		s := 0
		for k, v := range m {
			s += len(k) * v
		}
		return s
	})
	cNilable = delayed.Fn2("test.call.nilable", func(p *int, r io.Reader) string {
		return fmt.Sprint(p == nil, r == nil)
	})
	cByte  = delayed.Fn1("test.call.byte", func(b uint8) int { return int(b) })
	cGrid  = delayed.Fn1("test.call.grid", func(g [][]int) int { return len(g) * 100 })
	cThree = delayed.Fn3("test.call.three", func(a int, b string, c float64) string { return fmt.Sprint(a, b, c) })
	cFour  = delayed.Fn4("test.call.four", func(a, b, c, d int) int { return a*1000 + b*100 + c*10 + d })
)

// TestCall computes calls made with plain values, Delayed values and
// mixtures through Call, and compares each with the plain Go call.
func TestCall(t *testing.T) {
	x := dSquare(delayed.Lit(3)) // 9
	xs := []delayed.Delayed[int]{dSquare(delayed.Lit(1)), dSquare(delayed.Lit(2)), x}
	tests := []struct {
		name string
		v    delayed.Valuer
		want any
	}{
		{"plain", dAdd.Call(1, 2), add(1, 2)},
		{"mixed", dAdd.Call(x, 1), 9 + 1},
		{"lit-and-delayed", dAdd.Call(delayed.Lit(4), x), 4 + 9},
		{"untyped-constants-to-float", cAddF.Call(1, 2.5), 3.5},
		{"int-to-uint8", cByte.Call(200), 200},
		{"slice-of-delayed", cSumS.Call(xs), 1 + 4 + 9},
		{"slice-of-mixed", cSumS.Call([]any{x, 1, delayed.Lit(2)}), 9 + 1 + 2},
		{"slice-of-in", cSumS.Call(delayed.Each(xs)), 1 + 4 + 9},
		{"plain-slice", cLen.Call([]int{1, 2, 3}), 3},
		{"nested-slices", cGrid.Call([][]delayed.Delayed[int]{xs[:1], xs[1:]}), 200},
		{"map-of-delayed", cMapSum.Call(map[string]delayed.Delayed[int]{"a": x, "bb": xs[1]}), 1*9 + 2*4},
		{"any-param-plain", cDescribe.Call(7), "int 7"},
		{"any-param-delayed", cDescribe.Call(x), "int 9"},
		{"any-param-slice", cDescribe.Call([]delayed.Delayed[int]{x, x}), "[]interface {} [9 9]"},
		{"nil-pointer-and-interface", cNilable.Call(nil, nil), "true true"},
		{"three", cThree.Call(x, "b", 1), "9b1"},
		{"four", cFour.Call(1, 2, x, 4), 1000 + 200 + 90 + 4},
		{"variadic-plain", dSum.Call(1, 2, 3), 6},
		{"variadic-spread-delayed", dSum.Call(xs), 1 + 4 + 9},
		{"variadic-spread-plain-and-more", dSum.Call([]int{1, 2}, x, 3), 1 + 2 + 9 + 3},
		{"variadic-each", dSum(delayed.Each(xs)...), 1 + 4 + 9},
		{"variadic-none", dSum.Call(), 0},
	}
	for _, tt := range tests {
		for _, opt := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/optimize=%v", tt.name, opt), func(t *testing.T) {
				vals, err := delayed.Compute(ctx, []delayed.Valuer{tt.v}, delayed.WithOptimize(opt))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(vals[0], tt.want) {
					t.Errorf("got %#v, want %#v", vals[0], tt.want)
				}
			})
		}
	}
}

// TestCallErrors checks that a bad argument of Call is a sticky error
// naming the function and the argument, from Err, from Compute and from
// values built on the result; never a panic.
func TestCallErrors(t *testing.T) {
	x := dSquare(delayed.Lit(3))
	var zero delayed.Delayed[int]
	tests := []struct {
		name     string
		d        interface{ Err() error }
		op       string
		arg      int
		path     string
		count    bool
		wantZero bool
	}{
		{"string-for-int", dAdd.Call(1, "two"), "delayed.add", 1, "", false, false},
		{"delayed-of-other-type", dAdd.Call(dSquare(delayed.Lit(1)), cDescribe.Call(1)), "delayed.add", 1, "", false, false},
		{"inexact-float", dAdd.Call(1.5, 1), "delayed.add", 0, "", false, false},
		{"negative-to-uint", cByte.Call(-1), "delayed.test.call.byte", 0, "", false, false},
		{"overflow-to-uint8", cByte.Call(256), "delayed.test.call.byte", 0, "", false, false},
		{"nil-for-int", dAdd.Call(nil, 1), "delayed.add", 0, "", false, false},
		{"bad-slice-element", cSumS.Call([]any{x, "s"}), "delayed.test.call.sums", 0, "[1]", false, false},
		{"bad-map-value", cMapSum.Call(map[string]any{"a": x, "b": "s"}), "delayed.test.call.mapsum", 0, `["b"]`, false, false},
		{"slice-for-scalar", dInc.Call([]delayed.Delayed[int]{x}), "delayed.test.inc", 0, "", false, false},
		{"spread-bad-element", dSum.Call(1, []any{2, "three"}), "delayed.test.sum", 2, "", false, false},
		{"too-few", dAdd.Call(1), "delayed.add", 0, "", true, false},
		{"too-many", dAdd.Call(1, 2, 3), "delayed.add", 0, "", true, false},
		{"zero-delayed", dAdd.Call(zero, 1), "", 0, "", false, true},
		{"downstream", dInc(dAdd.Call(1, "two")), "delayed.add", 1, "", false, false},
		{"tuple", delayed.Fn2Tuple2("test.call.divmod", func(a, b int) (int, int) { return a / b, a % b }).Call(1, "x").First(), "delayed.test.call.divmod", 1, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Err()
			if err == nil {
				t.Fatal("Err() = nil")
			}
			_, cerr := delayed.Compute(ctx, []delayed.Valuer{tt.d.(delayed.Valuer)})
			if cerr != err {
				t.Errorf("Compute err = %v, want Err()'s %v", cerr, err)
			}
			switch {
			case tt.wantZero:
				if !errors.Is(err, delayed.ErrZero) {
					t.Errorf("err = %v, want ErrZero", err)
				}
			case tt.count:
				var ce *delayed.ArgCountError
				if !errors.As(err, &ce) || ce.Op != tt.op {
					t.Errorf("err = %v, want *ArgCountError for %s", err, tt.op)
				}
			default:
				var te *delayed.TypeError
				if !errors.As(err, &te) {
					t.Fatalf("err = %v (%T), want *TypeError", err, err)
				}
				if te.Op != tt.op || te.Arg != tt.arg || te.Path != tt.path {
					t.Errorf("TypeError{Op: %q, Arg: %d, Path: %q}, want {%q, %d, %q}", te.Op, te.Arg, te.Path, tt.op, tt.arg, tt.path)
				}
				if !strings.Contains(err.Error(), tt.op) {
					t.Errorf("message %q does not name %s", err, tt.op)
				}
			}
		})
	}
}

// TestNout compares the results of Nout and tuple wrappers with direct
// calls of the functions, checks that one call runs once for all its
// results, and that a function returning a slice of the wrong length is
// the task's *NoutError naming the function.
func TestNout(t *testing.T) {
	calls := 0
	splitN := func(xs []int, n int) []int {
		calls++
		out := make([]int, n)
		for i, x := range xs {
			out[i%n] += x
		}
		return out
	}
	split3 := delayed.Fn2Nout(uniq("test.split3"), 3, splitN)
	data := []int{1, 2, 3, 4, 5, 6, 7}
	parts := split3.Call(data, 3)
	if len(parts) != 3 {
		t.Fatalf("%d parts, want 3", len(parts))
	}
	vs := make([]delayed.Valuer, len(parts))
	for i, p := range parts {
		vs[i] = p
	}
	for _, opt := range []bool{true, false} {
		calls = 0
		vals, err := delayed.Compute(ctx, vs, delayed.WithOptimize(opt), delayed.WithScheduler(sched.Sync{}))
		if err != nil {
			t.Fatal(err)
		}
		want := splitN(data, 3)
		got := []int{vals[0].(int), vals[1].(int), vals[2].(int)}
		if !reflect.DeepEqual(got, want) || calls != 2 {
			t.Errorf("optimize=%v: got %v with %d calls (one of them the oracle), want %v with 2", opt, got, calls, want)
		}
	}
	// The function returns 2 values where 3 were declared.
	_, err := split3.Call(data, 2)[0].Compute(ctx)
	var ne *delayed.NoutError
	var te *sched.TaskError
	if !errors.As(err, &ne) || ne.Nout != 3 || ne.Got != 2 || !errors.As(err, &te) || !strings.HasPrefix(string(te.Key), "split3") {
		t.Errorf("short result: err = %v, want a *NoutError{3, 2} in split3's TaskError", err)
	}
	// A negative nout, and the same name with another nout.
	if d := delayed.Fn1Nout(uniq("test.neg"), -1, func(int) []int { return nil })(delayed.Lit(1)); len(d) != 1 || !errors.As(d[0].Err(), &ne) {
		t.Errorf("negative nout: %v, want one Delayed carrying a *NoutError", d)
	}
	name := uniq("test.nout.clash")
	f := func(int) []int { return []int{1, 2} }
	delayed.Fn1Nout(name, 2, f)
	if d := delayed.Fn1Nout(name, 3, f).Call(1); !errors.As(d[0].Err(), new(*delayed.NameError)) {
		t.Errorf("same name, other nout: Err = %v, want *NameError", d[0].Err())
	}
	failing := delayed.Fn1NoutE(uniq("test.nout.fail"), 2, func(x int) ([]int, error) { return nil, errBoom })
	if _, err := failing.Call(1)[1].Compute(ctx); !errors.Is(err, errBoom) {
		t.Errorf("NoutE: err = %v, want errBoom", err)
	}
	// Nout wrappers of two inputs with an error return, and of one.
	divs := delayed.Fn2NoutE(uniq("test.nout.divs"), 2, func(a, b int) ([]int, error) {
		if b == 0 {
			return nil, errBoom
		}
		return []int{a / b, a % b}, nil
	})
	q, r := divs.Call(17, 5)[0], divs.Call(17, 5)[1]
	if vals, err := delayed.Compute(ctx, []delayed.Valuer{q, r}); err != nil || !reflect.DeepEqual(vals, []any{17 / 5, 17 % 5}) {
		t.Errorf("divs = %v, %v", vals, err)
	}
	halves := delayed.Fn1Nout(uniq("test.nout.halves"), 2, func(xs []int) []int { return []int{xs[0], xs[1]} })
	if v, err := halves.Call([]int{4, 5})[1].Compute(ctx); err != nil || v != 5 {
		t.Errorf("halves[1] = %v, %v; want 5", v, err)
	}
}

func stats3(xs []float64) (lo, hi, mean float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		lo, hi, mean = min(lo, x), max(hi, x), mean+x
	}
	return lo, hi, mean / float64(len(xs))
}

func TestTuple34(t *testing.T) {
	data := []float64{2, -1, 5, 0}
	wantLo, wantHi, wantMean := stats3(data)
	stats := delayed.Fn1Tuple3(uniq("test.stats3"), stats3)
	lo, hi, mean, err := stats.Call(data).Compute(ctx)
	if err != nil || lo != wantLo || hi != wantHi || mean != wantMean {
		t.Errorf("Tuple3.Compute = %v %v %v %v; want %v %v %v", lo, hi, mean, err, wantLo, wantHi, wantMean)
	}
	a, b, c := stats.Call(data).Items()
	if vals, err := delayed.Compute(ctx, []delayed.Valuer{c, a, b}); err != nil || !reflect.DeepEqual(vals, []any{wantMean, wantLo, wantHi}) {
		t.Errorf("Tuple3 items = %v, %v", vals, err)
	}

	qr := func(a, b int) (int, int, int, string) { return a / b, a % b, a * b, fmt.Sprint(a, "/", b) }
	wq, wr, wp, ws := qr(17, 5)
	four := delayed.Fn2Tuple4(uniq("test.qr4"), qr)
	q, r, p, s, err := four.Call(17, 5).Compute(ctx)
	if err != nil || q != wq || r != wr || p != wp || s != ws {
		t.Errorf("Tuple4.Compute = %v %v %v %q %v; want %v %v %v %q", q, r, p, s, err, wq, wr, wp, ws)
	}
	d4 := four.Call(17, 5).Fourth()
	if v, err := d4.Compute(ctx); err != nil || v != ws {
		t.Errorf("Fourth = %q, %v; want %q", v, err, ws)
	}

	fails3 := delayed.Fn2Tuple3E(uniq("test.fail3"), func(a, b int) (int, int, int, error) { return 0, 0, 0, errBoom })
	if _, _, _, err := fails3.Call(1, 2).Compute(ctx); !errors.Is(err, errBoom) {
		t.Errorf("Fn2Tuple3E: err = %v, want errBoom", err)
	}
	fails4 := delayed.Fn1Tuple4E(uniq("test.fail4"), func(a int) (int, int, int, int, error) { return 0, 0, 0, 0, errBoom })
	if _, err := fails4.Call(1).Third().Compute(ctx); !errors.Is(err, errBoom) {
		t.Errorf("Fn1Tuple4E: err = %v, want errBoom", err)
	}
	ok2 := delayed.Fn1Tuple2E(uniq("test.ok2"), func(a int) (int, string, error) { return a + 1, fmt.Sprint(a), nil })
	if x, y, err := ok2.Call(41).Compute(ctx); err != nil || x != 42 || y != "41" {
		t.Errorf("Fn1Tuple2E = %v %q %v", x, y, err)
	}
	three := delayed.Fn2Tuple3(uniq("test.three"), func(a, b int) (int, int, int) { return a, b, a + b })
	if x, y, z, err := three.Call(1, 2).Compute(ctx); err != nil || x != 1 || y != 2 || z != 3 {
		t.Errorf("Fn2Tuple3 = %v %v %v %v", x, y, z, err)
	}
	one3 := delayed.Fn1Tuple3E(uniq("test.one3"), func(a int) (int, int, int, error) { return a, -a, 2 * a, nil })
	if x, y, z, err := one3.Call(3).Compute(ctx); err != nil || x != 3 || y != -3 || z != 6 {
		t.Errorf("Fn1Tuple3E = %v %v %v %v", x, y, z, err)
	}
	one4 := delayed.Fn1Tuple4(uniq("test.one4"), func(a int) (int, int, int, int) { return a, a + 1, a + 2, a + 3 })
	if w, x, y, z, err := one4.Call(3).Compute(ctx); err != nil || w != 3 || x != 4 || y != 5 || z != 6 {
		t.Errorf("Fn1Tuple4 = %v %v %v %v %v", w, x, y, z, err)
	}
	two4 := delayed.Fn2Tuple4E(uniq("test.two4"), func(a, b int) (int, int, int, int, error) { return a, b, a, b, nil })
	if w, x, y, z, err := two4.Call(1, 2).Compute(ctx); err != nil || w != 1 || x != 2 || y != 1 || z != 2 {
		t.Errorf("Fn2Tuple4E = %v %v %v %v %v", w, x, y, z, err)
	}
}

// TestErrorNamesFailedTask is the inc(add(fails(3), 1)): with
// fusion on, the three tasks run as one keyed inc; the error must still
// name fails and its key, as it does with fusion off. Panics likewise.
func TestErrorNamesFailedTask(t *testing.T) {
	fails := delayed.Fn1E("test.fails", func(x int) (int, error) { return 0, fmt.Errorf("fails(%d): %w", x, errBoom) })
	panics := delayed.Fn1("test.panics", func(x int) int { panic(fmt.Sprint("panics(", x, ")")) })
	for _, tt := range []struct {
		name    string
		leaf    delayed.Delayed[int]
		op      string
		isPanic bool
	}{
		{"error", fails.Call(3), "delayed.test.fails", false},
		{"panic", panics.Call(3), "delayed.test.panics", true},
	} {
		r := dInc(dAdd.Call(tt.leaf, 1))
		for _, sc := range schedulers {
			for _, opt := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/optimize=%v", tt.name, sc.name, opt), func(t *testing.T) {
					_, err := r.Compute(ctx, delayed.WithOptimize(opt), delayed.WithScheduler(sc.s))
					var te *sched.TaskError
					if !errors.As(err, &te) {
						t.Fatalf("err = %v, want *sched.TaskError", err)
					}
					if te.Key != tt.leaf.Key() || te.Op != tt.op {
						t.Errorf("TaskError names %q (%s), want %q (%s)", te.Key, te.Op, tt.leaf.Key(), tt.op)
					}
					if want := graph.Key(""); opt {
						want = r.Key()
						if te.Fused != want {
							t.Errorf("Fused = %q, want %q", te.Fused, want)
						}
					} else if te.Fused != want {
						t.Errorf("Fused = %q, want none", te.Fused)
					}
					if msg := err.Error(); !strings.Contains(msg, string(tt.leaf.Key())) || !strings.Contains(msg, tt.op) {
						t.Errorf("message %q does not name %q and %s", msg, tt.leaf.Key(), tt.op)
					}
					var pe *sched.PanicError
					if got := errors.As(err, &pe); got != tt.isPanic {
						t.Errorf("PanicError: %v, want %v", got, tt.isPanic)
					}
					if !tt.isPanic && !errors.Is(err, errBoom) {
						t.Errorf("err = %v, want it to wrap errBoom", err)
					}
				})
			}
		}
	}
}
