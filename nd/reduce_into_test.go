package nd

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// ReduceInto against Reduce: every op but Var/Std, several dtypes and axis
// sets, a strided input, a dst full of garbage (overwritten, not added to)
// in both the reduced and the keepdims shape: bit-identical values.
func TestReduceIntoMatchesReduce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4*5*6)
	for i := range vals {
		vals[i] = r.Float64()*100 - 50
	}
	base, _ := FromSlice(vals, 4, 5, 6)
	ops := []ReduceOp{Sum, Prod, Min, Max, Mean, Any, All}
	for _, dt := range []DType{Float32, Float64, Uint16, Int32, Complex128, Bool} {
		a0, err := base.AsType(dt)
		if err != nil {
			t.Fatal(err)
		}
		tr, _ := a0.Transpose(2, 0, 1)
		for _, a := range []*Array{a0, tr} {
			for _, axes := range [][]int{{0}, {1, 2}, {2}, {0, 1, 2}, nil, {}} {
				for _, op := range ops {
					want, err := Reduce(op, a, axes, false)
					if err != nil {
						t.Fatal(err)
					}
					wantK, _ := Reduce(op, a, axes, true)
					for _, sh := range [][]int{want.Shape(), wantK.Shape()} {
						f, _ := Full(ReduceResultType(op, dt), 7, sh...)
						dst := f.Copy()
						if err := ReduceInto(op, dst, a, axes); err != nil {
							t.Fatalf("%s %v axes %v: %v", op, dt, axes, err)
						}
						g, _ := dst.Reshape(want.Shape()...)
						if !slices.Equal(bitsOf(g), bitsOf(want)) {
							t.Fatalf("%s %v axes %v shape %v: got %v want %v", op, dt, axes, sh, g, want)
						}
					}
				}
			}
		}
	}
}

func bitsOf(a *Array) []byte { return a.Contiguous().AppendBytes(nil, false) }

func TestReduceIntoBadInput(t *testing.T) {
	a, _ := Zeros(Float32, 3, 4)
	ok, _ := Zeros(Float32, 4)
	wrongDT, _ := Zeros(Float64, 4)
	wrongSh, _ := Zeros(Float32, 3)
	big, _ := Zeros(Float32, 2, 4)
	view, _ := big.Index(0, 1)
	empty, _ := Zeros(Float32, 0, 4)
	cases := []struct {
		name string
		err  error
		want string
	}{
		{"nil dst", ReduceInto(Sum, nil, a, []int{0}), "nil array"},
		{"nil a", ReduceInto(Sum, ok, nil, []int{0}), "nil array"},
		{"dtype", ReduceInto(Sum, wrongDT, a, []int{0}), "dst dtype"},
		{"shape", ReduceInto(Sum, wrongSh, a, []int{0}), "dst shape"},
		{"offset", ReduceInto(Sum, view, a, []int{0}), "C-contiguous"},
		{"axis", ReduceInto(Sum, ok, a, []int{5}), "axis"},
		{"var", ReduceInto(Var, ok, a, []int{0}), "not supported"},
		{"max of nothing", ReduceInto(Max, ok, empty, []int{0}), "identity"},
	}
	for _, c := range cases {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, c.err, c.want)
		}
	}
}
