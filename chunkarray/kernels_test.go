package chunkarray

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// kernelInput is a (37, 53) array of dtype d with values over the whole
// range of d (integers wrap when squared), so that integer sums check
// wrapping arithmetic exactly.
func kernelInput(t *testing.T, d nd.DType, seed uint64) *nd.Array {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	n := 37 * 53
	var a *nd.Array
	var err error
	if d == nd.Float32 || d == nd.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64() * 1e3
		}
		a, err = nd.FromSlice(v, 37, 53)
	} else {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(rng.Uint64())
		}
		a, err = nd.FromSlice(v, 37, 53)
	}
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(d); err != nil {
		t.Fatal(err)
	}
	return a
}

// The sum kernels against the unfused graph (every operation its own
// task, nd's reductions) and eager nd on the whole array: exact for
// integer results, within rounding for floats. Inputs come from a zarr
// store with edge chunks (cropped, strided views) and from memory, where
// blocks are strided views of one array. Each row also checks that the
// kernel recognises (or rightly declines) the fused expression.
func TestSumKernels(t *testing.T) {
	ctx := context.Background()
	type expr struct {
		name   string
		lazy   func(x *Array) *Array
		eager  func(x *nd.Array) (*nd.Array, error)
		kernel bool
	}
	sq := func(x *nd.Array) (*nd.Array, error) { return nd.Binary(nd.Mul, x, x) }
	cast := func(d nd.DType, f func(*nd.Array) (*nd.Array, error)) func(*nd.Array) (*nd.Array, error) {
		return func(x *nd.Array) (*nd.Array, error) {
			c, err := x.AsType(d)
			if err != nil {
				return nil, err
			}
			return f(c)
		}
	}
	id := func(x *nd.Array) (*nd.Array, error) { return x, nil }
	exprs := []expr{
		{"sum", func(x *Array) *Array { return x }, id, true},
		{"x*x", func(x *Array) *Array { return x.Mul(x) }, sq, true},
		{"x**2", func(x *Array) *Array { return x.Pow(2) }, sq, true},
		{"square", func(x *Array) *Array { return x.Square() }, sq, true},
		{"int64 x**2", func(x *Array) *Array { return x.AsType(nd.Int64).Pow(2) }, cast(nd.Int64, sq), true},
		{"float64 square", func(x *Array) *Array { return x.AsType(nd.Float64).Square() }, cast(nd.Float64, sq), true},
		{"int8 x*x", func(x *Array) *Array { y := x.AsType(nd.Int8); return y.Mul(y) }, cast(nd.Int8, sq), true},
		{"uint16 sum", func(x *Array) *Array { return x.AsType(nd.Uint16) }, cast(nd.Uint16, id), true},
		{"x**3", func(x *Array) *Array { return x.Pow(3) }, func(x *nd.Array) (*nd.Array, error) {
			return nd.Binary(nd.Pow, x, must1(nd.ScalarOf(3)))
		}, false},
		{"x+1 squared", func(x *Array) *Array { return x.Add(1).Square() }, func(x *nd.Array) (*nd.Array, error) {
			y, err := nd.Binary(nd.Add, x, must1(nd.ScalarOf(1)))
			if err != nil {
				return nil, err
			}
			return sq(y)
		}, false},
	}
	dtypes := []nd.DType{nd.Int8, nd.Int16, nd.Int32, nd.Int64, nd.Uint8, nd.Uint16, nd.Uint32, nd.Uint64, nd.Float32, nd.Float64}
	dir := t.TempDir()
	for di, d := range dtypes {
		in := kernelInput(t, d, uint64(di))
		path := filepath.Join(dir, d.String()+".zarr")
		if err := FromNDArray(in, []int{16, 20}).ToZarr(ctx, path, ZarrOptions{}); err != nil {
			t.Fatal(err)
		}
		sources := []struct {
			name string
			x    func() *Array
		}{
			{"zarr", func() *Array { return FromZarr(path) }},
			{"memory", func() *Array { return FromNDArray(in, []int{16, 20}) }},
		}
		for _, e := range exprs {
			if d == nd.Float32 || d == nd.Float64 {
				if e.name == "int8 x*x" || e.name == "uint16 sum" {
					continue // float to integer casts of out-of-range values are undefined
				}
			}
			for _, src := range sources {
				t.Run(fmt.Sprintf("%s/%s/%s", d, e.name, src.name), func(t *testing.T) {
					x := src.x()
					lazy := e.lazy(x).Sum()
					ev, err := e.eager(in)
					if err != nil {
						t.Fatal(err)
					}
					want, err := nd.Reduce(nd.Sum, ev, nil, false)
					if err != nil {
						t.Fatal(err)
					}
					unfused, err := lazy.Compute(ctx, WithOptimize(false), WithScheduler(sched.Sync{}))
					if err != nil {
						t.Fatal(err)
					}
					if s := compareGolden(unfused, want); s != "" {
						t.Fatalf("unfused against eager: %s", s)
					}
					for _, s := range schedulers {
						got, err := lazy.Compute(ctx, WithScheduler(s.s))
						if err != nil {
							t.Fatal(err)
						}
						if d := compareGolden(got, want); d != "" {
							t.Fatalf("fused on %s against eager: %s", s.name, d)
						}
					}
					if src.name == "zarr" {
						// Float to integer casts are left to the generic path.
						wantK := e.kernel && !(isFloatDType(d) && e.name == "int64 x**2")
						if got := kernelMatches(t, lazy); got != wantK {
							t.Errorf("kernel recognises the expression: %v, want %v", got, wantK)
						}
					}
				})
			}
		}
	}
}

func must1(a *nd.Array, err error) *nd.Array {
	if err != nil {
		panic(err)
	}
	return a
}

// kernelMatches builds the fused graph of a (a sum over a zarr-fed
// expression, whose chunk tasks have only literal arguments) and reports
// whether the sum kernel recognises the expression of its first chunk
// task.
func kernelMatches(t *testing.T, a *Array) bool {
	t.Helper()
	g, err := a.Graph()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range g.Keys() {
		n, _ := g.Get(k)
		o, ok := n.Op.(*op[reduceFusedP])
		if !ok {
			continue
		}
		ev, _, err := newEvaluator(context.Background(), &o.p.E, literalArgs(t, n.Args), opReduceFused, false)
		if err != nil {
			t.Fatal(err)
		}
		defer ev.release()
		_, ok = ev.matchSum()
		return ok
	}
	t.Fatal("no fused reduction task in the graph")
	return false
}

// Mean, Var and Std fuse with their input as sums do: the chunk tasks
// evaluate the expression into a pooled buffer and take its moments. They
// agree with the unfused graph within rounding (the same moments code on
// the same block values), and the input's blocks are no tasks.
func TestFusedMoments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := kernelInput(t, nd.Int32, 9)
	path := filepath.Join(dir, "i4.zarr")
	if err := FromNDArray(in, []int{16, 20}).ToZarr(ctx, path, ZarrOptions{}); err != nil {
		t.Fatal(err)
	}
	r := Random(11)
	for _, tc := range []struct {
		name string
		a    func() *Array
	}{
		{"uniform affine mean", func() *Array { return r.Uniform(0, 1, []int{90, 70}, 32).Mul(2).Add(1).Mean() }},
		{"uniform var axis1", func() *Array {
			return r.Uniform(0, 1, []int{90, 70}, 32).Square().Reduce(nd.Var, []int{1}, ReduceOpts{})
		}},
		{"normal std ddof1 keepdims", func() *Array {
			return r.Normal(5, 2, []int{40, 50, 30}, 16).Reduce(nd.Std, []int{0, 2}, ReduceOpts{Ddof: 1, Keepdims: true})
		}},
		{"zarr int32 as float64 mean", func() *Array { return FromZarr(path).AsType(nd.Float64).Mean() }},
		{"zarr int32 var axis0", func() *Array { return FromZarr(path).Var(0) }},
		{"ones mean", func() *Array { return Ones([]int{30, 40}, nd.Float32, 7).Mul(3).Mean() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a()
			want, err := a.Compute(ctx, WithOptimize(false), WithScheduler(sched.Sync{}))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range schedulers {
				got, err := a.Compute(ctx, WithScheduler(s.s))
				if err != nil {
					t.Fatal(err)
				}
				if d := diff(want, got, 1e-12); d != "" {
					t.Fatalf("fused on %s against unfused: %s", s.name, d)
				}
			}
			g, err := a.Graph()
			if err != nil {
				t.Fatal(err)
			}
			fusedTasks := 0
			for _, k := range g.Keys() {
				n, _ := g.Get(k)
				if _, ok := n.Op.(*op[reduceFusedP]); ok {
					fusedTasks++
				}
			}
			if fusedTasks == 0 {
				t.Errorf("no fused reduction task in the graph")
			}
		})
	}
}

// The int32 square-sum kernel (vector code on amd64 with AVX2) against the
// generic Go kernel on every length up to 70 and every offset modulo 16,
// over values that reach both int32 extremes, so that tails, alignment and
// int64 wrapping are all exercised.
func TestSumSqInt32Kernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([]int32, 200)
	for i := range x {
		x[i] = int32(rng.Uint32())
	}
	x[3], x[20], x[41] = -1<<31, 1<<31-1, -1<<31
	for off := range 16 {
		for n := 0; n <= 70; n++ {
			got := sumSqInt32(x[off : off+n])
			want := sumSqRun[int32, int64, int64](x[off : off+n])
			if got != want {
				t.Fatalf("offset %d length %d: got %d, want %d", off, n, got, want)
			}
		}
	}
	big := make([]int32, 1<<20)
	for i := range big {
		big[i] = -1 << 31
	}
	if got, want := sumSqInt32(big), sumSqRun[int32, int64, int64](big); got != want {
		t.Fatalf("2^20 × minimum: got %d, want %d (wrapped)", got, want)
	}
}
