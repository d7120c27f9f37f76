package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

var schedulers = []struct {
	name string
	s    sched.Scheduler
}{{"sync", sched.Sync{}}, {"threads", sched.Threaded{Workers: 3}}}

// computeAll computes a on every scheduler, fused and unfused, and checks
// that all give the same array; it returns that array.
func computeAll(t *testing.T, a *Array) *nd.Array {
	t.Helper()
	var first *nd.Array
	for _, s := range schedulers {
		for _, opt := range []bool{true, false} {
			got, err := a.Compute(context.Background(), WithScheduler(s.s), WithOptimize(opt))
			if err != nil {
				t.Fatalf("%s optimize=%v: %v", s.name, opt, err)
			}
			if first == nil {
				first = got
				continue
			}
			if d := diff(first, got, 0); d != "" {
				t.Fatalf("%s optimize=%v differs from sync fused: %s", s.name, opt, d)
			}
		}
	}
	return first
}

// diff describes the first difference between a and b, with relative
// tolerance tol for floats; "" when equal.
func diff(a, b *nd.Array, tol float64) string {
	if a.DType() != b.DType() {
		return fmt.Sprintf("dtype got %s, want %s", b.DType(), a.DType())
	}
	if !slices.Equal(a.Shape(), b.Shape()) {
		return fmt.Sprintf("shape got %v, want %v", b.Shape(), a.Shape())
	}
	x, _ := a.AsType(nd.Complex128)
	y, _ := b.AsType(nd.Complex128)
	xv, _ := nd.Values[complex128](x)
	yv, _ := nd.Values[complex128](y)
	for i := range xv {
		p, q := xv[i], yv[i]
		if p == q || (p != p && q != q) {
			continue
		}
		d := math.Hypot(real(p)-real(q), imag(p)-imag(q))
		if d <= tol*math.Max(1, math.Hypot(real(p), imag(p))) {
			continue
		}
		return fmt.Sprintf("element %d: got %v, want %v", i, q, p)
	}
	return ""
}

func f64(t *testing.T, a *nd.Array) []float64 {
	t.Helper()
	b, err := a.AsType(nd.Float64)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[float64](b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestNormalizeChunks(t *testing.T) {
	tests := []struct {
		name  string
		spec  any
		shape []int
		want  [][]int
	}{
		{"int", 4, []int{10, 3}, [][]int{{4, 4, 2}, {3}}},
		{"per axis", []int{5, -1}, []int{10, 3}, [][]int{{5, 5}, {3}}},
		{"explicit", [][]int{{2, 8}, {1, 2}}, []int{10, 3}, [][]int{{2, 8}, {1, 2}}},
		{"empty axis", 4, []int{0}, [][]int{{0}}},
		{"auto small", "auto", []int{10, 3}, [][]int{{10}, {3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeChunks("test", tt.spec, tt.shape, nd.Float64)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	for _, bad := range []any{[]int{1}, [][]int{{3}, {3}}, "big", 0, 1.5} {
		if _, err := NormalizeChunks("test", bad, []int{10, 3}, nd.Float64); err == nil {
			t.Errorf("spec %v: no error", bad)
		}
	}
}

func TestAutoChunks(t *testing.T) {
	got := AutoChunks([]int{10000, 10000}, nd.Float64, 128<<20)
	// 16M elements: a 4096-square fits; the chunks are square-ish.
	if got[0][0] != got[1][0] || got[0][0]*got[1][0]*8 > 128<<20 || got[0][0] < 2000 {
		t.Errorf("got chunks %v..., want square ≤128 MiB", got[0][0])
	}
}

func TestOnesSumClosedForm(t *testing.T) {
	for _, ch := range []any{4, []int{3, 5, 7}, -1, [][]int{{1, 9}, {10}, {2, 2, 6}}} {
		t.Run(fmt.Sprint(ch), func(t *testing.T) {
			x := Ones([]int{10, 10, 10}, nd.Int64, ch)
			got := computeAll(t, x.Sum())
			if v := f64(t, got); v[0] != 1000 {
				t.Errorf("sum got %v, want 1000", v[0])
			}
			got = computeAll(t, x.Add(1).Mul(2).Sum(0, 2))
			for i, v := range f64(t, got) {
				if v != 400 {
					t.Fatalf("element %d got %v, want 400", i, v)
				}
			}
		})
	}
}

// TestAgainstEager compares lazy results with nd evaluated on the whole
// array (a second code path), over several chunkings.
func TestAgainstEager(t *testing.T) {
	shape := []int{7, 9, 5}
	base := Random(3).Uniform(-2, 3, shape, -1)
	whole, err := base.Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	eager := func(f func(*nd.Array) (*nd.Array, error)) *nd.Array {
		r, err := f(whole)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	exprs := []struct {
		name  string
		lazy  func(*Array) *Array
		eager func(*nd.Array) (*nd.Array, error)
	}{
		{"add-mul-sin", func(x *Array) *Array { return x.Add(1).Mul(x).Sin() }, func(x *nd.Array) (*nd.Array, error) {
			a, _ := nd.Binary(nd.Add, x, nd.Scalar(1.0))
			b, _ := nd.Binary(nd.Mul, a, x)
			return nd.Unary(nd.Sin, b)
		}},
		{"sum axis 1", func(x *Array) *Array { return x.Sum(1) }, func(x *nd.Array) (*nd.Array, error) { return nd.Reduce(nd.Sum, x, []int{1}, false) }},
		{"max keepdims", func(x *Array) *Array { return x.Reduce(nd.Max, []int{0, 2}, ReduceOpts{Keepdims: true}) }, func(x *nd.Array) (*nd.Array, error) { return nd.Reduce(nd.Max, x, []int{0, 2}, true) }},
		{"mean", func(x *Array) *Array { return x.Mean() }, func(x *nd.Array) (*nd.Array, error) { return nd.Reduce(nd.Mean, x, nil, false) }},
		{"var ddof1", func(x *Array) *Array { return x.Reduce(nd.Var, []int{2}, ReduceOpts{Ddof: 1}) }, func(x *nd.Array) (*nd.Array, error) { return nd.VarStd(x, []int{2}, false, 1, false) }},
		{"std", func(x *Array) *Array { return x.Std(0, 1) }, func(x *nd.Array) (*nd.Array, error) { return nd.VarStd(x, []int{0, 1}, false, 0, true) }},
		{"argmax 1", func(x *Array) *Array { return x.ArgMax(1, false) }, func(x *nd.Array) (*nd.Array, error) { return nd.ArgReduce(nd.ArgMax, x, 1, false) }},
		{"argmin flat", func(x *Array) *Array { return x.ArgMin(0, true) }, func(x *nd.Array) (*nd.Array, error) { return nd.ArgReduce(nd.ArgMin, x, -1, true) }},
		{"transpose", func(x *Array) *Array { return x.Transpose(2, 0, 1) }, func(x *nd.Array) (*nd.Array, error) { return x.Transpose(2, 0, 1) }},
		{"index", func(x *Array) *Array { return x.Index(All(), At(3)) }, func(x *nd.Array) (*nd.Array, error) { return x.Index(1, 3) }},
		{"broadcast col", func(x *Array) *Array { return x.Index(All(), At(-1), NewAxis()).Sub(x) }, func(x *nd.Array) (*nd.Array, error) {
			c, _ := x.Index(1, 8)
			c, _ = c.Reshape(7, 1, 5)
			return nd.Binary(nd.Sub, c, x)
		}},
		{"where", func(x *Array) *Array { return Where(x.Greater(0), x, 0.5) }, func(x *nd.Array) (*nd.Array, error) {
			c, _ := nd.Binary(nd.Greater, x, nd.Scalar(0.0))
			return nd.Where(c, x, nd.Scalar(0.5))
		}},
		{"astype", func(x *Array) *Array { return x.Mul(10).AsType(nd.Int32) }, func(x *nd.Array) (*nd.Array, error) {
			a, _ := nd.Binary(nd.Mul, x, nd.Scalar(10.0))
			return a.AsType(nd.Int32)
		}},
	}
	chunkings := []struct {
		name string
		spec any
	}{
		{"one chunk", -1},
		{"regular", 3},
		{"irregular", [][]int{{1, 6}, {4, 4, 1}, {2, 3}}},
		{"per axis", []int{2, 9, 1}},
	}
	for _, e := range exprs {
		want := eager(e.eager)
		for _, c := range chunkings {
			t.Run(e.name+"/"+c.name, func(t *testing.T) {
				x := base.Rechunk(c.spec)
				got := computeAll(t, e.lazy(x))
				if d := diff(want, got, 1e-12); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

func TestChunkUnification(t *testing.T) {
	a := Random(1).Uniform(0, 1, []int{10, 6}, []int{3, 2})
	b := Random(2).Uniform(0, 1, []int{10, 6}, []int{4, 6})
	c := a.Add(b)
	if want := [][]int{{3, 1, 2, 2, 1, 1}, {2, 2, 2}}; !slices.EqualFunc(c.Chunks(), want, slices.Equal) {
		t.Errorf("chunks got %v, want %v", c.Chunks(), want)
	}
	av, _ := a.Compute(context.Background())
	bv, _ := b.Compute(context.Background())
	want, _ := nd.Binary(nd.Add, av, bv)
	if d := diff(want, computeAll(t, c), 0); d != "" {
		t.Error(d)
	}
}

func TestRandomChunkingInvariant(t *testing.T) {
	for _, dist := range []string{"uniform", "normal", "integers"} {
		mk := func(ch any) *Array {
			r := Random(42)
			switch dist {
			case "uniform":
				return r.Uniform(0, 1, []int{13, 11}, ch)
			case "normal":
				return r.Normal(0, 1, []int{13, 11}, ch)
			}
			return r.Integers(0, 100, []int{13, 11}, ch)
		}
		a := computeAll(t, mk(-1))
		b := computeAll(t, mk([][]int{{5, 8}, {1, 3, 7}}))
		if d := diff(a, b, 0); d != "" {
			t.Errorf("%s: %s", dist, d)
		}
	}
}

func TestStickyErrors(t *testing.T) {
	a := Ones([]int{3, 4}, nd.Float64, 2)
	b := Ones([]int{5}, nd.Float64, 2)
	c := a.Add(b).Mul(2).Sum()
	want := "chunkarray: add: shapes (3, 4) and (5,) could not be broadcast"
	if c.Err() == nil || c.Err().Error() != want {
		t.Fatalf("Err() = %v, want %q", c.Err(), want)
	}
	_, err := c.Compute(context.Background())
	var e *Error
	if !errors.As(err, &e) || e.Op != "add" {
		t.Errorf("Compute error %v, want *Error for add", err)
	}
	for name, x := range map[string]*Array{
		"bad chunks": Ones([]int{3}, nd.Float64, []int{1, 2}),
		"bad axis":   a.Sum(5),
		"index":      a.Index(At(7)),
		"operand":    a.Add("x"),
		"transpose":  a.Transpose(0, 0),
	} {
		if x.Err() == nil || !strings.HasPrefix(x.Err().Error(), "chunkarray: ") {
			t.Errorf("%s: Err() = %v", name, x.Err())
		}
	}
}

func TestCreation(t *testing.T) {
	ar := computeAll(t, Arange(2, 11, 3, nd.Int64, 2))
	if v := f64(t, ar); !slices.Equal(v, []float64{2, 5, 8}) {
		t.Errorf("arange got %v", v)
	}
	ls := computeAll(t, Linspace(0, 1, 5, true, 2))
	if v := f64(t, ls); !slices.Equal(v, []float64{0, 0.25, 0.5, 0.75, 1}) {
		t.Errorf("linspace got %v", v)
	}
	ey := computeAll(t, Eye(3, 4, 1, nd.Float64, 2))
	want := []float64{0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	if v := f64(t, ey); !slices.Equal(v, want) {
		t.Errorf("eye got %v, want %v", v, want)
	}
	src, _ := nd.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	fa := computeAll(t, FromNDArray(src, []int{1, 2}))
	if d := diff(src, fa, 0); d != "" {
		t.Error(d)
	}
}

func TestCodecRoundTrip(t *testing.T) {
	full, _ := nd.Full(nd.Int16, 7, 3, 4)
	x, _ := nd.FromSlice([]complex64{1, 2i, 3, 4}, 2, 2)
	xt, _ := x.Transpose()
	// A constant whose length-1 axis keeps a stride (what broadcasting a
	// [1,1,1] block gives) is still one element broadcast.
	one, _ := nd.FromSlice([]float64{3}, 1, 1, 1)
	wide, err := one.BroadcastTo(1, 500, 500)
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*nd.Array{"full": full, "full-strided-1": wide, "transposed": xt, "scalar": nd.Scalar(2.5)} {
		b, err := graph.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		v, err := graph.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if d := diff(a, v.(*nd.Array), 0); d != "" {
			t.Errorf("%s: %s", name, d)
		}
		if strings.HasPrefix(name, "full") && len(b) > 32 {
			t.Errorf("full block encodes to %d bytes, want one element", len(b))
		}
	}
}
