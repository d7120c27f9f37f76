package chunkarray

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/sched"

	"github.com/tessera-go/tessera/nd"
)

// TestReshapeLikeDask checks values against nd.Reshape and chunks against
// what Dask 2022.12 gives for the same input chunks.
func TestReshapeLikeDask(t *testing.T) {
	tests := []struct {
		name   string
		shape  []int
		chunks any
		to     []int
		want   [][]int
	}{
		{"merge 2d", []int{6, 4}, []int{2, 3}, []int{24}, [][]int{{4, 4, 4, 4, 4, 4}}},
		{"split lead", []int{6, 4}, []int{2, 3}, []int{2, 3, 4}, [][]int{{1, 1}, {3}, {3, 1}}},
		{"split tail", []int{6, 4}, []int{2, 3}, []int{6, 2, 2}, [][]int{{2, 2, 2}, {1, 1}, {2}}},
		{"new lead 1", []int{6, 4}, []int{2, 3}, []int{1, 6, 4}, [][]int{{1}, {2, 2, 2}, {3, 1}}},
		{"new tail 1", []int{6, 4}, []int{2, 3}, []int{6, 4, 1}, [][]int{{2, 2, 2}, {3, 1}, {1}}},
		{"split 1d", []int{24}, 5, []int{4, 6}, [][]int{{1, 1, 1, 1}, {6}}},
		{"split 1d 3", []int{24}, 5, []int{2, 3, 4}, [][]int{{1, 1}, {3}, {4}}},
		{"1d to column", []int{24}, 5, []int{24, 1}, [][]int{{5, 5, 5, 5, 4}, {1}}},
		{"merge 3d", []int{4, 4, 4}, 2, []int{64}, [][]int{{16, 16, 16, 16}}},
		{"merge lead", []int{4, 4, 4}, 2, []int{16, 4}, [][]int{{4, 4, 4, 4}, {2, 2}}},
		{"merge tail", []int{4, 4, 4}, 2, []int{4, 16}, [][]int{{2, 2}, {4, 4, 4, 4}}},
		{"split merged", []int{4, 4, 4}, 2, []int{2, 2, 16}, [][]int{{1, 1}, {2}, {4, 4, 4, 4}}},
		{"by one", []int{4, 4, 4}, []int{1, 1, 2}, []int{16, 4}, [][]int{slices.Repeat([]int{1}, 16), {2, 2}}},
		{"by one flat", []int{4, 4, 4}, []int{1, 1, 2}, []int{64}, [][]int{slices.Repeat([]int{2}, 32)}},
		{"infer", []int{6, 4}, []int{2, 3}, []int{-1, 3, 4}, [][]int{{1, 1}, {3}, {3, 1}}},
		{"one block", []int{6, 4}, -1, []int{3, 8}, [][]int{{3}, {8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := seqND(t, nd.Float64, tt.shape...)
			a := FromNDArray(x, tt.chunks).Reshape(tt.to...)
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(a.Chunks(), tt.want, slices.Equal) {
				t.Errorf("chunks %v, want %v", a.Chunks(), tt.want)
			}
			want, err := x.Reshape(tt.to...)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(want, computeAll(t, a), 0); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestReshapeRegroup: reshapes that neither merge nor split whole axes,
// which Dask 2022.12 refuses with more than one chunk (NotImplementedError)
// and numpy does, against nd.Reshape (the eager reshape) on every
// scheduler, fused and not. blocks is the number of output blocks: the
// trailing axes of a regrouped pair are taken whole and its leading axis
// cut finer by as many (expandChunks), then rounded to whole rows of both
// shapes, so a plan that gives up and makes one block fails.
func TestReshapeRegroup(t *testing.T) {
	tests := []struct {
		name   string
		shape  []int
		chunks any
		to     []int
		blocks int
	}{
		{"7x9 to 21x3 by 2", []int{7, 9}, 2, []int{21, 3}, 7},
		{"7x9 to 21x3 irregular", []int{7, 9}, [][]int{{1, 3, 3}, {4, 5}}, []int{21, 3}, 7},
		{"7x9 to 21x3 edge", []int{7, 9}, []int{6, 8}, []int{-1, 3}, 3},
		{"7x9 to 3x21 whole rows", []int{7, 9}, 2, []int{3, 21}, 1},
		{"6x4 to 3x8", []int{6, 4}, []int{2, 3}, []int{3, 8}, 3},
		{"6x4 to 4x6", []int{6, 4}, []int{2, 3}, []int{4, 6}, 2},
		{"6x4 to 8x3", []int{6, 4}, 1, []int{8, 3}, 2},
		{"4x6 to 6x4 by one row", []int{4, 6}, []int{1, 2}, []int{6, 4}, 2},
		{"3d keep lead", []int{3, 6, 4}, 2, []int{3, 4, 6}, 4},
		{"3d keep tail", []int{6, 4, 5}, []int{2, 3, 2}, []int{4, 6, 5}, 6},
		{"3d to 2d regroup", []int{4, 3, 10}, []int{3, 2, 4}, []int{6, 20}, 2},
		{"with ones", []int{7, 1, 9}, 2, []int{21, 1, 3}, 7},
		{"two groups", []int{6, 4, 7, 9}, []int{3, 2, 2, 3}, []int{4, 6, 21, 3}, 14},
		{"empty", []int{0, 6}, []int{1, 4}, []int{3, 0, 2}, 1},
		{"empty many chunks", []int{4, 0, 6}, []int{1, 1, 4}, []int{6, 4, 0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := seqND(t, nd.Int64, tt.shape...)
			a := FromNDArray(x, tt.chunks).Reshape(tt.to...)
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			want, err := x.Reshape(tt.to...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Shape(), want.Shape()) {
				t.Fatalf("shape %v, want %v", a.Shape(), want.Shape())
			}
			if a.NumTasks() != tt.blocks {
				t.Errorf("%d blocks (chunks %v), want %d", a.NumTasks(), a.Chunks(), tt.blocks)
			}
			if d := diff(want, computeAll(t, a), 0); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestReshapeRandom reshapes seeded random shapes with random chunks into
// random other factorizations of the same size, against nd.Reshape.
func TestReshapeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 16))
	factors := []int{2, 2, 2, 3, 3, 5, 1}
	shapeOf := func() []int {
		// A random grouping of a shuffled multiset of factors.
		f := slices.Clone(factors)
		r.Shuffle(len(f), func(i, j int) { f[i], f[j] = f[j], f[i] })
		var s []int
		for _, x := range f {
			if len(s) > 0 && r.IntN(2) == 0 {
				s[len(s)-1] *= x
			} else {
				s = append(s, x)
			}
		}
		return s
	}
	x := seqND(t, nd.Float64, 360)
	for i := range 40 {
		from, to := shapeOf(), shapeOf()
		chunks := make([]int, len(from))
		for k, n := range from {
			chunks[k] = 1 + r.IntN(n)
		}
		t.Run(fmt.Sprint(i, from, chunks, to), func(t *testing.T) {
			src, err := x.Reshape(from...)
			if err != nil {
				t.Fatal(err)
			}
			a := FromNDArray(src, chunks).Reshape(to...)
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			want, err := x.Reshape(to...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := a.Compute(context.Background(), WithScheduler(sched.Sync{}))
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(want, got, 0); d != "" {
				t.Error(d)
			}
		})
	}
}

func TestReshapeErrors(t *testing.T) {
	a := Ones([]int{6, 4}, nd.Float64, []int{2, 3})
	for _, tt := range []struct {
		name string
		to   []int
		want string
	}{
		{"size", []int{5, 5}, "total size of new array must be unchanged"},
		{"two unknown", []int{-1, -1}, "only specify one unknown"},
		{"not divisible", []int{-1, 5}, "cannot reshape array of size 24"},
		{"negative", []int{-2, 12}, "negative dimension"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := a.Reshape(tt.to...).Err()
			if err == nil || !contains(err.Error(), tt.want) || !contains(err.Error(), "reshape: shapes (6, 4)") {
				t.Fatalf("error %v, want it to name reshape, the shapes and %q", err, tt.want)
			}
		})
	}
}

func TestSqueezeExpandDims(t *testing.T) {
	x := seqND(t, nd.Float64, 1, 5, 1, 3)
	a := FromNDArray(x, []int{1, 2, 1, 2})
	tests := []struct {
		name  string
		a     *Array
		shape []int
	}{
		{"squeeze all", a.Squeeze(), []int{5, 3}},
		{"squeeze one", a.Squeeze(-2), []int{1, 5, 3}},
		{"expand front", a.Squeeze().ExpandDims(0), []int{1, 5, 3}},
		{"expand end", a.Squeeze().ExpandDims(-1), []int{5, 3, 1}},
		{"expand middle", a.Squeeze().ExpandDims(1), []int{5, 1, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err != nil {
				t.Fatal(err)
			}
			want, _ := x.Reshape(tt.shape...)
			if d := diff(want, computeAll(t, tt.a), 0); d != "" {
				t.Error(d)
			}
		})
	}
	if err := a.Squeeze(1).Err(); err == nil || !contains(err.Error(), "squeeze: shapes (1, 5, 1, 3) cannot select axis 1") {
		t.Errorf("squeeze(1): %v", err)
	}
	if err := a.ExpandDims(5).Err(); err == nil || !contains(err.Error(), "axis 5 is out of bounds") {
		t.Errorf("expand_dims(5): %v", err)
	}
}

// TestSqueezeExpandDimsNames computes, in one graph, two squeezes and two
// expand_dims of one input that have the same shape but different chunks
// (the input's size-1 axes chunked (1, 0)): their names must differ, and
// each must hold the input's values reshaped.
func TestSqueezeExpandDimsNames(t *testing.T) {
	x := seqND(t, nd.Float64, 1, 1)
	a := FromNDArray(x, [][]int{{1, 0}, {1}})
	v := seqND(t, nd.Float64, 1)
	b := FromNDArray(v, [][]int{{1, 0}})
	for _, pair := range [][2]*Array{{a.Squeeze(0), a.Squeeze(1)}, {b.ExpandDims(0), b.ExpandDims(1)}} {
		p, q := pair[0], pair[1]
		if p.Name() == q.Name() {
			t.Errorf("%v and %v share the name %s", p.Chunks(), q.Chunks(), p.Name())
		}
		got, err := Compute(context.Background(), []*Array{p, q})
		if err != nil {
			t.Fatalf("%s and %s in one graph: %v", p.Name(), q.Name(), err)
		}
		for i, g := range got {
			want, _ := x.Reshape(pair[i].Shape()...)
			if d := diff(want, g, 0); d != "" {
				t.Errorf("%s: %s", pair[i].Name(), d)
			}
		}
	}
}

// refConcat concatenates nd arrays along axis element by element.
func refConcat(t *testing.T, xs []*nd.Array, axis int, d nd.DType) *nd.Array {
	t.Helper()
	shape := slices.Clone(xs[0].Shape())
	shape[axis] = 0
	for _, x := range xs {
		shape[axis] += x.Shape()[axis]
	}
	out, _ := nd.Zeros(d, shape...)
	o := 0
	forBlocks(shape, func(idx []int) {
		k, i := 0, idx[axis]
		for i >= xs[k].Shape()[axis] {
			i -= xs[k].Shape()[axis]
			k++
		}
		src := slices.Clone(idx)
		src[axis] = i
		v, err := xs[k].At(src...)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := nd.ScalarOf(v)
		s, _ = s.AsType(d)
		w, _ := s.At()
		setFlat(t, out, o, w)
		o++
	})
	return out
}

func TestConcatenateStack(t *testing.T) {
	x := seqND(t, nd.Float64, 10, 3)
	y := seqND(t, nd.Int32, 4, 3)
	z := seqND(t, nd.Float64, 0, 3)
	ax, ay, az := FromNDArray(x, []int{3, 2}), FromNDArray(y, []int{2, 1}), FromNDArray(z, 2)
	c := Concatenate([]*Array{ax, ay, az, ax}, 0)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{3, 3, 3, 1, 2, 2, 3, 3, 3, 1}, {1, 1, 1}}; !slices.EqualFunc(c.Chunks(), want, slices.Equal) {
		t.Errorf("chunks %v, want %v", c.Chunks(), want)
	}
	if d := diff(refConcat(t, []*nd.Array{x, y, z, x}, 0, nd.Float64), computeAll(t, c), 0); d != "" {
		t.Error(d)
	}
	c1 := Concatenate([]*Array{ax.T(), ax.T()}, -1)
	xt, _ := x.Transpose()
	if d := diff(refConcat(t, []*nd.Array{xt, xt}, 1, nd.Float64), computeAll(t, c1), 0); d != "" {
		t.Error(d)
	}
	// Stack: chunks (1,) per input along the new axis, as Dask.
	s := Stack([]*Array{ax, ax.Add(1)}, 1)
	if want := [][]int{{3, 3, 3, 1}, {1, 1}, {2, 1}}; !slices.EqualFunc(s.Chunks(), want, slices.Equal) {
		t.Errorf("stack chunks %v, want %v", s.Chunks(), want)
	}
	got := computeAll(t, s)
	x1, _ := nd.Binary(nd.Add, x, nd.Scalar(1.0))
	r0, _ := x.Reshape(10, 1, 3)
	r1, _ := x1.Reshape(10, 1, 3)
	if d := diff(refConcat(t, []*nd.Array{r0, r1}, 1, nd.Float64), got, 0); d != "" {
		t.Error(d)
	}
	for _, tt := range []struct {
		name string
		a    *Array
		want string
	}{
		{"none", Concatenate(nil, 0), "need at least one array"},
		{"mismatch", Concatenate([]*Array{ax, ax.T()}, 0), "concatenate: shapes (10, 3) and (3, 10) all the input array dimensions"},
		{"ndim", Concatenate([]*Array{ax, ax.Sum(0)}, 0), "same number of dimensions"},
		{"axis", Concatenate([]*Array{ax}, 2), "axis 2 is out of bounds"},
		{"stack shape", Stack([]*Array{ax, ay}, 0), "stack: shapes (10, 3) and (4, 3) all input arrays must have the same shape"},
		{"sticky", Concatenate([]*Array{ax, ax.Index(At(20))}, 0), "index 20 is out of bounds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}
