package chunkarray

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// TestShapeChunkIndependence: the shape functions give the same values
// whatever the chunking of their input. Random shapes of 1 to 3 axes
// (lengths 0 to 7), random chunkings (empty chunks included) and random
// parameters, from fixed seeds; each result is compared with the same
// expression over the input in one block (both must fail alike, or agree
// as compareGolden says), on Sync, fused and unfused. The numpy goldens
// (parity_shape_test.go) pin the values; this pins the chunk boundaries:
// the diagonal cut where it crosses blocks, pads and rolls that span
// several blocks, windows rounded to the factors.
func TestShapeChunkIndependence(t *testing.T) {
	const rounds = 1000
	ctx := context.Background()
	for seed := range uint64(rounds) {
		r := rand.New(rand.NewPCG(seed, 13))
		x := randomShapeInput(r)
		spec := shapeRandomChunks(r, x.Shape())
		name, f := randomShapeExpr(r, x.Shape())
		t.Run(fmt.Sprintf("%d-%s", seed, name), func(t *testing.T) {
			one := f(FromNDArray(x, -1))
			many := f(FromNDArray(x, spec))
			want, werr := protect(func() (*nd.Array, error) {
				if err := one.Err(); err != nil {
					return nil, err
				}
				return one.Compute(ctx, WithScheduler(sched.Sync{}))
			})
			for _, fuse := range []bool{true, false} {
				got, gerr := protect(func() (*nd.Array, error) {
					if err := many.Err(); err != nil {
						return nil, err
					}
					return many.Compute(ctx, WithScheduler(sched.Sync{}), WithOptimize(fuse))
				})
				switch {
				case (werr == nil) != (gerr == nil):
					t.Fatalf("shape %v chunks %v: one block: %v; chunked: %v", x.Shape(), spec, werr, gerr)
				case werr != nil:
					continue
				}
				if d := compareGolden(got, want); d != "" {
					t.Fatalf("shape %v chunks %v (fused %v): %s", x.Shape(), spec, fuse, d)
				}
			}
		})
	}
}

func randomShapeInput(r *rand.Rand) *nd.Array {
	shape := make([]int, 1+r.IntN(3))
	for i := range shape {
		shape[i] = r.IntN(8)
	}
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round(r.NormFloat64()*100) / 8
		if r.IntN(20) == 0 {
			v[i] = math.NaN()
		}
	}
	x, err := nd.FromSlice(v, shape...)
	if err != nil {
		panic(err)
	}
	return x
}

// shapeRandomChunks cuts each axis into random pieces, some empty.
func shapeRandomChunks(r *rand.Rand, shape []int) [][]int {
	out := make([][]int, len(shape))
	for i, s := range shape {
		left := s
		for left > 0 || len(out[i]) == 0 || r.IntN(4) == 0 {
			c := r.IntN(left + 1)
			if r.IntN(3) > 0 && left > 0 {
				c = 1 + r.IntN(left)
			}
			out[i] = append(out[i], c)
			left -= c
			if left == 0 && r.IntN(3) > 0 {
				break
			}
		}
	}
	return out
}

func randomShapeExpr(r *rand.Rand, shape []int) (string, func(*Array) *Array) {
	n := len(shape)
	ax := r.IntN(n)
	ax2 := (ax + 1 + r.IntN(max(n-1, 1))) % n
	modes := []string{PadConstant, PadEdge, PadReflect, PadSymmetric, PadWrap, PadMaximum, PadMinimum, PadMean, PadEmpty}
	switch r.IntN(25) {
	case 22:
		return "select", func(a *Array) *Array {
			return Select([]*Array{a.Greater(0), a.Less(-3)}, []any{a.Mul(2), -1}, 0.5)
		}
	case 23:
		return "choose", func(a *Array) *Array {
			i := Where(a.NotEqual(a), 0, a).AsType(nd.Int64).Mod(3) // NaN to 0
			return Choose(i, []any{a, a.Neg(), 2.5})
		}
	case 24:
		return "unravel", func(a *Array) *Array {
			i := Where(a.NotEqual(a), 0, a).Abs().AsType(nd.Int64).Mod(60)
			return shapeStacked(UnravelIndex(i, []int{3, 4, 5}))
		}
	case 16:
		return "along", func(a *Array) *Array { return ApplyAlongAxis("shape.stats", ax, a, AlongOpts{}) }
	case 17:
		vec := r.IntN(2) == 0
		return fmt.Sprintf("gufunc-swap-vec%v", vec), func(a *Array) *Array {
			return ApplyGufunc("shape.swap", "(i,j)->(j,i)", GufuncOpts{AllowRechunk: true, Vectorize: vec}, a)
		}
	case 18:
		return "map_blocks-drop", func(a *Array) *Array {
			return MapBlocks("shape.sum0", BlockOpts{DropAxis: []int{0}}, a)
		}
	case 19:
		k := r.IntN(9) - 4
		return "diag", func(a *Array) *Array { return a.Diag(k) }
	case 20:
		i := r.IntN(shape[ax]+1) - r.IntN(2)*shape[ax]
		return "insert-int", func(a *Array) *Array { return a.Insert(i, -7.25, ax) }
	case 21:
		return "moveaxis-flip", func(a *Array) *Array { return a.MoveAxis([]int{ax}, []int{-1}).Flip(0) }
	case 0:
		k := r.IntN(4)
		return "diff", func(a *Array) *Array { return a.Diff(k, ax, DiffOpts{Prepend: 1.5}) }
	case 1:
		w := make([][2]int, n)
		for i := range w {
			w[i] = [2]int{r.IntN(10), r.IntN(10)}
		}
		m := modes[r.IntN(len(modes))]
		return "pad-" + m, func(a *Array) *Array { return a.Pad(w, m, -3) }
	case 2:
		s := []int{r.IntN(41) - 20, r.IntN(41) - 20}
		return "roll", func(a *Array) *Array { return a.Roll(s, ax, ax2) }
	case 3:
		s := []int{r.IntN(41) - 20}
		return "roll-flat", func(a *Array) *Array { return a.Roll(s) }
	case 4:
		k := r.IntN(7) - 3
		return "rot90", func(a *Array) *Array { return a.Rot90(k, [2]int{ax, ax2}) }
	case 5:
		reps := make([]int, 1+r.IntN(n+1))
		for i := range reps {
			reps[i] = r.IntN(3)
		}
		return "tile", func(a *Array) *Array { return a.Tile(reps...) }
	case 6:
		k := r.IntN(4)
		return "repeat", func(a *Array) *Array { return a.Repeat(k, ax) }
	case 7:
		k := r.IntN(9) - 4
		if r.IntN(2) == 0 {
			return "tril", func(a *Array) *Array { return a.Tril(k) }
		}
		return "triu", func(a *Array) *Array { return a.Triu(k) }
	case 8:
		k := r.IntN(11) - 5
		return "diagonal", func(a *Array) *Array { return a.Diagonal(k, ax, ax2) }
	case 9:
		f := map[int]int{ax: 1 + r.IntN(3), ax2: 1 + r.IntN(3)}
		op := []nd.ReduceOp{nd.Sum, nd.Max, nd.Mean, nd.Any}[r.IntN(4)]
		return "coarsen-" + op.String(), func(a *Array) *Array { return a.Coarsen(op, f, true) }
	case 10:
		i := r.IntN(shape[ax]+3) - 1
		return "insert", func(a *Array) *Array { return a.Insert([]int{i, 0, i}, 9.5, ax) }
	case 11:
		i := []int{r.IntN(shape[ax] + 1), r.IntN(shape[ax] + 1)}
		return "delete", func(a *Array) *Array { return a.Delete(i, ax) }
	case 12:
		return "gradient", func(a *Array) *Array { return shapeOne(a.Gradient([]float64{0.5}, ax)) }
	case 13:
		b := Arange(1, 7, 1, nd.Float64, 2).Reshape(2, 3)
		return "kron", func(a *Array) *Array { return Kron(a, b) }
	case 14:
		k := 1 + r.IntN(4)
		return "array_split", func(a *Array) *Array {
			xs, err := a.ArraySplit(k, ax)
			return shapePieces(ax)(xs, err)
		}
	default:
		sh := append([]int{2}, shape...)
		return "broadcast_to", func(a *Array) *Array { return a.BroadcastTo(sh, nil).Sum(0) }
	}
}

// TestShapeReshapeMergeZeroChunk: merging trailing axes when an axis before
// them is chunked (1, 0, 2), as many chunks as elements but not chunked
// by one, rechunks rather than moving blocks (the random test above found
// Kron of such an input failing: "cannot reshape array of size 0").
func TestShapeReshapeMergeZeroChunk(t *testing.T) {
	v := make([]float64, 18)
	for i := range v {
		v[i] = float64(i)
	}
	x, _ := nd.FromSlice(v, 1, 2, 3, 3)
	a := FromNDArray(x, [][]int{{1}, {1, 1}, {1, 0, 2}, {3}})
	got, err := a.Reshape(2, 9).Compute(context.Background(), WithScheduler(sched.Sync{}))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := x.Reshape(2, 9)
	if d := compareGolden(got, want); d != "" {
		t.Error(d)
	}
}

// TestTriIndicesBruteForce: TrilIndices and TriuIndices against the
// enumeration of the triangle's elements, for random sizes, diagonals and
// chunk lengths (sumClamp's closed form and the search for a block's
// first row).
func TestTriIndicesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		n, m, k, c := r.IntN(12), r.IntN(12), r.IntN(31)-15, 1+r.IntN(9)
		upper := r.IntN(2) == 0
		var wr, wc []int64
		for i := range n {
			for j := range m {
				if (!upper && j <= i+k) || (upper && j >= i+k) {
					wr, wc = append(wr, int64(i)), append(wc, int64(j))
				}
			}
		}
		rows, cols := TrilIndices(n, k, m, c)
		if upper {
			rows, cols = TriuIndices(n, k, m, c)
		}
		for which, a := range []*Array{rows, cols} {
			got, err := a.Compute(context.Background(), WithScheduler(sched.Sync{}))
			if err != nil {
				t.Fatalf("n %d m %d k %d upper %v: %v", n, m, k, upper, err)
			}
			want := [][]int64{wr, wc}[which]
			v, _ := nd.Values[int64](got)
			if fmt.Sprint(v) != fmt.Sprint(want) && !(len(v) == 0 && len(want) == 0) {
				t.Fatalf("n %d m %d k %d upper %v chunk %d, %s: got %v, want %v", n, m, k, upper, c, []string{"rows", "cols"}[which], v, want)
			}
		}
	}
}

// TestShapeNamesDeterministic: building the same expression twice gives
// the same names (keys), scalar operands included, and different
// parameters give different ones.
func TestShapeNamesDeterministic(t *testing.T) {
	x := Ones([]int{6, 5}, nd.Float64, 2)
	for _, tc := range []struct {
		name   string
		build  func(k int) *Array
		differ bool // whether k = 1 and k = 2 must differ
	}{
		{"diff-prepend", func(k int) *Array { return x.Diff(1, 0, DiffOpts{Prepend: k}) }, true},
		{"pad", func(k int) *Array { return x.Pad([][2]int{{k, 1}}, PadReflect, nil) }, true},
		{"insert", func(k int) *Array { return x.Insert(k, 2.5, 1) }, true},
		{"repeat", func(k int) *Array { return x.Repeat(k+1, 1) }, true},
		{"coarsen", func(k int) *Array { return x.Coarsen(nd.Sum, map[int]int{0: k}, true) }, true},
		{"diagonal", func(k int) *Array { return x.Diagonal(k, 0, 1) }, true},
		{"tril_indices", func(k int) *Array { r, _ := TrilIndices(5, k, -1, 3); return r }, true},
		{"ediff1d", func(k int) *Array { return EDiff1D(x, nil, k) }, true},
		{"broadcast_to", func(k int) *Array { return x.BroadcastTo([]int{k, 6, 5}, nil) }, true},
		{"along", func(k int) *Array { return ApplyAlongAxis("shape.sum1d", k-1, x, AlongOpts{}) }, true},
		{"gufunc-vectorize", func(k int) *Array {
			return ApplyGufunc("shape.twice", "(i)->(i,k)", GufuncOpts{Vectorize: true, AllowRechunk: true, OutputSizes: map[string]int{"k": k}}, x)
		}, true},
		{"unravel", func(k int) *Array { u, _ := UnravelIndex(x.AsType(nd.Int64), []int{4, k}); return u[0] }, true},
		{"choose", func(k int) *Array { return Choose(x.AsType(nd.Int8), []any{k, 7.5}) }, true},
		{"select", func(k int) *Array { return Select([]*Array{x.Greater(0)}, []any{k}, 0) }, true},
		{"kron", func(k int) *Array { return Kron(x, Ones([]int{k}, nd.Float64, 1)) }, true},
		{"tile", func(k int) *Array { return x.Tile(k, 2) }, true},
	} {
		a1, a2, b := tc.build(1), tc.build(1), tc.build(2)
		if a1.Err() != nil || b.Err() != nil {
			t.Fatalf("%s: %v %v", tc.name, a1.Err(), b.Err())
		}
		if a1.Name() != a2.Name() {
			t.Errorf("%s: two builds named %s and %s", tc.name, a1.Name(), a2.Name())
		}
		if tc.differ && a1.Name() == b.Name() {
			t.Errorf("%s: different parameters, one name %s", tc.name, a1.Name())
		}
	}
}
