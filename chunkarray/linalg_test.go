package chunkarray

import (
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// randND returns seeded small-integer values (exact in every dtype) of
// shape in dtype d.
func randND(t *testing.T, seed uint64, d nd.DType, shape ...int) *nd.Array {
	t.Helper()
	n := prod(shape)
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(int(splitmix(seed, uint64(i))%7) - 3)
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(d); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTensordotDotMatmul(t *testing.T) {
	type prodFn struct {
		lazy  func(a, b *Array) *Array
		eager func(a, b *nd.Array) (*nd.Array, error)
	}
	td := func(axA, axB []int) prodFn {
		return prodFn{
			func(a, b *Array) *Array { return Tensordot(a, b, axA, axB) },
			func(a, b *nd.Array) (*nd.Array, error) { return nd.Tensordot(a, b, axA, axB) },
		}
	}
	dot := prodFn{Dot, nd.Dot}
	mm := prodFn{Matmul, nd.Matmul}
	tests := []struct {
		name           string
		f              prodFn
		da, db         nd.DType
		sa, sb         []int
		chunkA, chunkB any
	}{
		{"matmul square", mm, nd.Float64, nd.Float64, []int{10, 12}, []int{12, 7}, []int{3, 5}, []int{4, 2}},
		{"matmul one k block", mm, nd.Float64, nd.Float64, []int{10, 12}, []int{12, 7}, []int{3, -1}, []int{-1, 2}},
		{"matmul many k", mm, nd.Float32, nd.Float32, []int{4, 40}, []int{40, 3}, []int{2, 3}, []int{5, 2}},
		{"matmul vec left", mm, nd.Float64, nd.Float64, []int{12}, []int{12, 7}, 5, []int{4, 3}},
		{"matmul vec right", mm, nd.Int32, nd.Int32, []int{6, 12}, []int{12}, 5, 4},
		{"matmul vec vec", mm, nd.Float64, nd.Float64, []int{12}, []int{12}, 5, 4},
		{"matmul batch bcast", mm, nd.Float64, nd.Float64, []int{3, 1, 4, 6}, []int{5, 6, 2}, []int{2, 1, 3, 4}, []int{2, 4, 1}},
		{"matmul int8 wraps", mm, nd.Int8, nd.Int8, []int{5, 30}, []int{30, 4}, 7, 7},
		{"matmul bool", mm, nd.Bool, nd.Bool, []int{5, 9}, []int{9, 4}, 2, 3},
		{"matmul mixed", mm, nd.Int32, nd.Float32, []int{5, 9}, []int{9, 4}, 2, 3},
		{"matmul complex", mm, nd.Complex64, nd.Complex64, []int{5, 9}, []int{9, 4}, 2, 3},
		{"matmul empty k", mm, nd.Float64, nd.Float64, []int{3, 0}, []int{0, 4}, 2, 2},
		{"dot 3d", dot, nd.Float64, nd.Float64, []int{3, 4, 6}, []int{2, 6, 5}, 2, 3},
		{"dot vec", dot, nd.Float64, nd.Float64, []int{7}, []int{7}, 3, 2},
		{"tensordot two axes", td([]int{1, 0}, []int{0, 2}), nd.Float64, nd.Float64, []int{6, 8, 3}, []int{8, 4, 6}, []int{4, 3, 2}, []int{2, 4, 5}},
		{"tensordot none", td(nil, nil), nd.Float64, nd.Float64, []int{3, 2}, []int{4}, 2, 3},
		{"tensordot all", td([]int{0, 1}, []int{1, 0}), nd.Float64, nd.Float64, []int{5, 6}, []int{6, 5}, 2, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, y := randND(t, 1, tt.da, tt.sa...), randND(t, 2, tt.db, tt.sb...)
			want, err := tt.f.eager(x, y)
			if err != nil {
				t.Fatal(err)
			}
			a := tt.f.lazy(FromNDArray(x, tt.chunkA), FromNDArray(y, tt.chunkB))
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Shape(), want.Shape()) || a.DType() != want.DType() {
				t.Fatalf("lazy %v %s, want %v %s", a.Shape(), a.DType(), want.Shape(), want.DType())
			}
			if d := diff(want, computeAll(t, a), 1e-6); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestProductErrors(t *testing.T) {
	a := Ones([]int{4, 5}, nd.Float64, 2)
	for _, tt := range []struct {
		name string
		a    *Array
		want string
	}{
		{"matmul core", Matmul(a, a), "matmul: shapes (4, 5) and (4, 5) mismatch in core dimension (size 5 is different from 4)"},
		{"matmul 0d", Matmul(a, a.Sum()), "not have enough dimensions"},
		{"matmul batch", Matmul(Ones([]int{2, 4, 5}, nd.Float64, 2), Ones([]int{3, 5, 4}, nd.Float64, 2)), "batch dimensions"},
		{"tensordot len", Tensordot(a, a, []int{0}, nil), "1 axes of a paired with 0 axes of b"},
		{"tensordot mismatch", Tensordot(a, a, []int{0}, []int{1}), "shape mismatch for sum"},
		{"tensordot axis", Tensordot(a, a, []int{3}, []int{0}), "tensordot: shapes (4, 5) and (4, 5)"},
		{"dot", Dot(a, a), "shape mismatch"},
		{"sticky", Dot(a.Index(At(9)), a), "out of bounds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
