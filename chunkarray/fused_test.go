package chunkarray

import (
	"context"
	"math"
	"testing"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// The fused paths (a reduction evaluating its input's expression tile by
// tile, random blocks generated inside fused tasks, constant blocks kept
// zero-stride) against the unfused graph (every operation its own task,
// every block materialised) and against eager nd on the materialised
// input. Integer and constant results must agree exactly; float sums of
// varying data within rounding (tiles are summed one after the other).
func TestFusedAgainstUnfusedAndEager(t *testing.T) {
	r := Random(7)
	type row struct {
		name  string
		in    func() *Array // the reduced input
		red   func(x *Array) *Array
		eager func(x *nd.Array) (*nd.Array, error)
		tol   float64
	}
	sum := func(axes ...int) (func(*Array) *Array, func(*nd.Array) (*nd.Array, error)) {
		return func(x *Array) *Array { return x.Sum(axes...) },
			func(x *nd.Array) (*nd.Array, error) { return nd.Reduce(nd.Sum, x, nilIfEmpty(axes), false) }
	}
	reduceBy := func(op nd.ReduceOp, axes []int, keep bool) (func(*Array) *Array, func(*nd.Array) (*nd.Array, error)) {
		return func(x *Array) *Array { return x.Reduce(op, axes, ReduceOpts{Keepdims: keep}) },
			func(x *nd.Array) (*nd.Array, error) { return nd.Reduce(op, x, axes, keep) }
	}
	rows := []row{}
	add := func(name string, in func() *Array, tol float64, f func(*Array) *Array, e func(*nd.Array) (*nd.Array, error)) {
		rows = append(rows, row{name, in, f, e, tol})
	}
	randint := func() *Array { return r.Integers(-50, 100, []int{70, 90, 130}, []int{30, 45, 100}) }
	f, e := sum()
	add("randint sum all", randint, 0, f, e)
	f, e = sum(1)
	add("randint sum axis1", randint, 0, f, e)
	f, e = sum(0, 2)
	add("randint sum axes02", randint, 0, f, e)
	f, e = reduceBy(nd.Max, []int{2}, true)
	add("randint max axis2 keepdims", randint, 0, f, e)
	f, e = reduceBy(nd.Min, nil, false)
	add("randint min all", randint, 0, f, e)
	f, e = sum()
	add("randint squared plus 1", func() *Array { return randint().Square().Add(1) }, 0, f, e)
	f, e = reduceBy(nd.Any, []int{0}, false)
	add("randint equal 3 any axis0", func() *Array { return randint().Equal(3) }, 0, f, e)
	f, e = reduceBy(nd.All, []int{1, 2}, false)
	add("randint below 99 all", func() *Array { return randint().Less(99) }, 0, f, e)
	f, e = sum()
	add("randint as int8 sum", func() *Array { return randint().AsType(nd.Int8) }, 0, f, e)
	uniform := func() *Array { return r.Uniform(-1, 2, []int{300, 257}, []int{128, 100}) }
	f, e = sum()
	add("uniform affine sum", func() *Array { return uniform().Mul(2.5).Add(1) }, 1e-13, f, e)
	f, e = sum(0)
	add("uniform sin sum axis0", func() *Array { return uniform().Sin() }, 1e-13, f, e)
	f, e = reduceBy(nd.Max, []int{1}, false)
	add("uniform exp max axis1", func() *Array { return uniform().Exp() }, 0, f, e)
	f, e = reduceBy(nd.Prod, []int{1}, false)
	add("uniform prod axis1", func() *Array { return r.Uniform(0.99, 1.01, []int{40, 300}, 64) }, 1e-12, f, e)
	f, e = sum()
	add("broadcast random row times column", func() *Array {
		return r.Uniform(0, 1, []int{1, 200}, []int{1, 64}).Mul(r.Normal(0, 1, []int{150, 1}, []int{64, 1}))
	}, 1e-12, f, e)
	f, e = sum()
	add("random plus constant of lower rank", func() *Array {
		return r.Uniform(0, 1, []int{20, 30, 40}, 16).Add(Ones([]int{40}, nd.Float64, 16))
	}, 1e-13, f, e)
	f, e = sum()
	add("float32 random", func() *Array { return r.Uniform(0, 1, []int{100, 100}, 33).AsType(nd.Float32) }, 1e-5, f, e)
	// constants: exact, the zero-stride sum repeats numpy's pairwise order
	f, e = sum()
	add("ones int64 sum", func() *Array { return Ones([]int{120, 130, 140}, nd.Int64, 50) }, 0, f, e)
	add("ones times sin 1", func() *Array {
		im := Ones([]int{1000, 1000}, nd.Float64, 300)
		return im.Index(All(), At(0)).Sin().Mul(im.T())
	}, 0, f, e)
	add("full where astype", func() *Array {
		c := Full([]int{50, 60}, 0.3, nd.Float64, 25)
		return Where(c.Greater(0), c.Mul(3), 7).AsType(nd.Float32)
	}, 0, f, e)
	f, e = reduceBy(nd.Max, []int{1, 2}, false)
	add("normalize max", func() *Array { return Ones([]int{3, 100, 100}, nd.Float64, []int{1, 60, 60}).Div(3) }, 0, f, e)
	f, e = sum(1)
	add("full sum axis1 keeps zero stride right", func() *Array { return Full([]int{7, 1000}, 0.1, nd.Float64, []int{3, 333}) }, 0, f, e)

	for _, tc := range rows {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			in := tc.in()
			want0, err := in.Compute(ctx, WithOptimize(false))
			if err != nil {
				t.Fatal(err)
			}
			eager, err := tc.eager(want0)
			if err != nil {
				t.Fatal(err)
			}
			unfused, err := tc.red(tc.in()).Compute(ctx, WithOptimize(false))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range schedulers {
				got, err := tc.red(tc.in()).Compute(ctx, WithScheduler(s.s))
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				if d := diff(unfused, got, tc.tol); d != "" {
					t.Errorf("%s fused vs unfused: %s", s.name, d)
				}
				etol := max(tc.tol, 1e-12) // chunked trees round differently from one pass
				if got.DType() == nd.Float32 {
					etol = 1e-6
				}
				if d := diff(eager, got, etol); d != "" {
					t.Errorf("%s fused vs eager: %s", s.name, d)
				}
			}
			// the fused input is never a task of its own
			red := tc.red(tc.in())
			g, err := red.Graph()
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range g.Keys() {
				if name, _, ok := k.Block(); ok && name == in.Name() {
					t.Errorf("input block %s is a task of the fused graph", k)
				}
			}
		})
	}
}

// Elementwise results are bit-identical fused or not, random leaves
// included, and constant expressions come out as zero-stride blocks.
func TestFusedElementwiseExact(t *testing.T) {
	r := Random(3)
	x := r.Uniform(0, 1, []int{50, 70}, []int{20, 30}).Mul(r.Integers(0, 9, []int{70}, 30)).Sqrt()
	a := computeAll(t, x)
	if a.Size() != 3500 {
		t.Fatalf("size %d", a.Size())
	}
	c := Ones([]int{40, 40}, nd.Float64, 20).Mul(2).Sin()
	g, err := c.Graph()
	if err != nil {
		t.Fatal(err)
	}
	k := c.Keys()[0]
	n, _ := g.Get(k)
	v, err := n.Op.Run(context.Background(), literalArgs(t, n.Args))
	if err != nil {
		t.Fatal(err)
	}
	b := v.(*nd.Array)
	if !isConst(b) || b.Strides()[0] != 0 {
		t.Errorf("constant block has strides %v, want zero-stride", b.Strides())
	}
	got := computeAll(t, c)
	if w := math.Sin(2); f64(t, got)[1599] != w {
		t.Errorf("got %v, want %v", f64(t, got)[1599], w)
	}
}

func literalArgs(t *testing.T, args []graph.Arg) []any {
	t.Helper()
	out := make([]any, len(args))
	for i, a := range args {
		if a.Kind != graph.ArgLit {
			t.Fatalf("argument %d is not a literal", i)
		}
		out[i] = a.Lit
	}
	return out
}

// A result whose blocks are all the same constant comes back as that
// constant broadcast (zero-stride), like a one-block result; blocks of
// different constants are materialised.
func TestFinalizeConstantBlocks(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		a      *Array
		const_ bool
		want   float64 // every element
	}{
		{"ones", Ones([]int{30, 40}, nd.Float64, 7), true, 1},
		{"normalize", func() *Array {
			im := Ones([]int{3, 100, 100}, nd.Float64, []int{1, 60, 60})
			return im.Div(im.Max(1, 2).Index(All(), NewAxis(), NewAxis()))
		}(), true, 1},
		{"halves 2 and 3", twoHalves(5, 4), false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.a.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			unfused, err := tc.a.Compute(ctx, WithOptimize(false))
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(unfused, got, 0); d != "" {
				t.Fatal(d)
			}
			if isConst(got) != tc.const_ {
				t.Errorf("zero-stride result %v, want %v (strides %v)", isConst(got), tc.const_, got.Strides())
			}
			if tc.const_ {
				for _, v := range f64(t, got) {
					if v != tc.want {
						t.Fatalf("element %v, want %v", v, tc.want)
					}
				}
			}
		})
	}
}

// twoHalves is a (2n, m) array of 2s over 3s chunked n rows at a time:
// its blocks are not all the same constant.
func twoHalves(n, m int) *Array {
	i := Arange(0, float64(2*n), 1, nd.Int64, n).Index(All(), NewAxis())
	return Where(i.Less(n), Full([]int{2 * n, m}, 2.0, nd.Float64, n), Full([]int{2 * n, m}, 3.0, nd.Float64, n))
}
