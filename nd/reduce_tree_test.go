package nd_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// The tree helpers are checked against a second code path: the direct
// reduction of the whole array. Splitting along the reduced axis at random
// points, reducing each piece and merging the partials must give the
// direct result.

func treeInputs(t *testing.T) map[string]*nd.Array {
	r := rand.New(rand.NewPCG(1, 2))
	f := make([]float64, 7*23*5)
	for i := range f {
		f[i] = r.NormFloat64()*3 + 1e4 // a large mean: naive Σx² would cancel
	}
	fnan := slices.Clone(f)
	fnan[40], fnan[300], fnan[301] = math.NaN(), math.NaN(), math.NaN()
	ints := make([]int32, 7*23*5)
	for i := range ints {
		ints[i] = int32(r.IntN(7)) // many ties
	}
	c := make([]complex128, 7*23*5)
	for i := range c {
		c[i] = complex(r.NormFloat64(), r.NormFloat64())
	}
	f32 := make([]float32, 7*23*5)
	for i := range f32 {
		f32[i] = float32(r.NormFloat64())
	}
	must := func(a *nd.Array, err error) *nd.Array {
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	return map[string]*nd.Array{
		"float64":    must(nd.FromSlice(f, 7, 23, 5)),
		"float64T":   must(must(nd.FromSlice(f, 7, 23, 5)).Transpose(2, 0, 1)),
		"float64nan": must(nd.FromSlice(fnan, 7, 23, 5)),
		"int32":      must(nd.FromSlice(ints, 7, 23, 5)),
		"complex":    must(nd.FromSlice(c, 7, 23, 5)),
		"float32":    must(nd.FromSlice(f32, 7, 23, 5)),
	}
}

// pieces cuts a along axis at random points into n pieces (some possibly
// empty when allowEmpty) and returns them with their offsets.
func pieces(t *testing.T, r *rand.Rand, a *nd.Array, axis, n int, allowEmpty bool) ([]*nd.Array, []int) {
	size := a.Shape()[axis]
	cuts := []int{0, size}
	for len(cuts) < n+1 {
		c := r.IntN(size + 1)
		if !allowEmpty && slices.Contains(cuts, c) {
			continue
		}
		cuts = append(cuts, c)
	}
	slices.Sort(cuts)
	var ps []*nd.Array
	var offs []int
	for i := 0; i+1 < len(cuts); i++ {
		sl := make([]nd.Slice1, a.NDim())
		for j := range sl {
			sl[j] = nd.Slice1{Start: 0, Stop: a.Shape()[j], Step: 1}
		}
		sl[axis] = nd.Slice1{Start: cuts[i], Stop: cuts[i+1], Step: 1}
		p, err := a.Slice(sl...)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
		offs = append(offs, cuts[i])
	}
	return ps, offs
}

func TestMomentsCombineMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for name, a := range treeInputs(t) {
		for _, tc := range []struct {
			name  string
			axes  []int
			split int
		}{
			{"axis0", []int{0}, 0},
			{"axis1", []int{1}, 1},
			{"axes12_split2", []int{1, 2}, 2},
			{"all_split1", nil, 1},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				ps, _ := pieces(t, r, a, tc.split, 4, true)
				var cs, ms, m2s []*nd.Array
				for _, p := range ps {
					c, m, m2, err := nd.Moments(p, tc.axes)
					if err != nil {
						t.Fatal(err)
					}
					cs, ms, m2s = append(cs, c), append(ms, m), append(m2s, m2)
				}
				// merge in two levels, as a tree would
				c1, m1, v1, err := nd.CombineMoments(cs[:2], ms[:2], m2s[:2])
				if err != nil {
					t.Fatal(err)
				}
				c2, m2, v2, err := nd.CombineMoments(cs[2:], ms[2:], m2s[2:])
				if err != nil {
					t.Fatal(err)
				}
				c, m, v, err := nd.CombineMoments([]*nd.Array{c1, c2}, []*nd.Array{m1, m2}, []*nd.Array{v1, v2})
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range []nd.ReduceOp{nd.Mean, nd.Var, nd.Std} {
					got, err := nd.MomentsResult(op, a.DType(), c, m, v, 1, tc.axes, false)
					if err != nil {
						t.Fatal(err)
					}
					var want *nd.Array
					if op == nd.Mean {
						want, err = nd.Reduce(op, a, tc.axes, false)
					} else {
						want, err = nd.VarStd(a, tc.axes, false, 1, op == nd.Std)
					}
					if err != nil {
						t.Fatal(err)
					}
					compareLoose(t, op.String(), got, want)
				}
			})
		}
	}
}

// compareLoose is compareArrays with room for the different rounding of
// a merge: 1e-9 relative for float64, 1e-4 for float32.
func compareLoose(t *testing.T, what string, got, want *nd.Array) {
	t.Helper()
	if got.DType() != want.DType() || !slices.Equal(got.Shape(), want.Shape()) {
		t.Fatalf("%s: got %s%v, want %s%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	tol := 1e-9
	if want.DType() == nd.Float32 || want.DType() == nd.Complex64 {
		tol = 1e-4
	}
	g, w := asComplex(t, got), asComplex(t, want)
	for i := range w {
		// relative, but absolute near zero (the inputs are of order 1)
		if !closeTo(g[i], w[i], tol, false) && cmplx.Abs(g[i]-w[i]) > tol {
			t.Fatalf("%s: element %d: got %v, want %v", what, i, g[i], w[i])
		}
	}
}

func TestArgChunkCombineMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for name, a := range treeInputs(t) {
		for _, op := range []nd.ArgOp{nd.ArgMin, nd.ArgMax} {
			for axis := range a.NDim() {
				t.Run(name+"/"+op.String()+"/"+string(rune('0'+axis)), func(t *testing.T) {
					n := min(4, a.Shape()[axis])
					ps, offs := pieces(t, r, a, axis, n, false)
					var vs, is []*nd.Array
					for i, p := range ps {
						v, x, err := nd.ArgChunk(op, p, axis, offs[i])
						if err != nil {
							t.Fatal(err)
						}
						vs, is = append(vs, v), append(is, x)
					}
					// shuffled: the merge must not depend on the order
					r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i]; is[i], is[j] = is[j], is[i] })
					_, idx, err := nd.ArgCombine(op, vs, is, axis)
					if err != nil {
						t.Fatal(err)
					}
					got, _ := idx.Index(axis, 0)
					want, err := nd.ArgReduce(op, a, axis, false)
					if err != nil {
						t.Fatal(err)
					}
					compareArrays(t, got.Copy(), want)
				})
			}
			t.Run(name+"/"+op.String()+"/flat", func(t *testing.T) {
				// 2×3 blocks over the first two axes
				var vs, is []*nd.Array
				rows, _ := pieces(t, r, a, 0, 2, false)
				ro := 0
				for _, row := range rows {
					cols, coffs := pieces(t, r, row, 1, 3, false)
					for j, blk := range cols {
						v, x, err := nd.ArgChunkFlat(op, blk, []int{ro, coffs[j], 0}, a.Shape())
						if err != nil {
							t.Fatal(err)
						}
						vs, is = append(vs, v), append(is, x)
					}
					ro += row.Shape()[0]
				}
				_, idx, err := nd.ArgCombine(op, vs, is, 0)
				if err != nil {
					t.Fatal(err)
				}
				want, err := nd.ArgReduce(op, a, 0, true)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := idx.Reshape()
				compareArrays(t, got, want)
			})
		}
	}
}

func TestTreeHelperErrors(t *testing.T) {
	a, _ := nd.Zeros(nd.Float64, 2, 3)
	b, _ := nd.Zeros(nd.Float64, 3, 2)
	empty, _ := nd.Zeros(nd.Float64, 0, 3)
	i8, _ := nd.Zeros(nd.Int8, 2, 3)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"moments bad axis", func() error { _, _, _, err := nd.Moments(a, []int{2}); return err }},
		{"combine nothing", func() error { _, _, _, err := nd.CombineMoments(nil, nil, nil); return err }},
		{"combine shapes", func() error {
			_, _, _, err := nd.CombineMoments([]*nd.Array{a, b}, []*nd.Array{a, b}, []*nd.Array{a, b})
			return err
		}},
		{"combine dtype", func() error {
			_, _, _, err := nd.CombineMoments([]*nd.Array{i8}, []*nd.Array{i8}, []*nd.Array{i8})
			return err
		}},
		{"argchunk empty", func() error { _, _, err := nd.ArgChunk(nd.ArgMax, empty, 0, 0); return err }},
		{"argchunk axis", func() error { _, _, err := nd.ArgChunk(nd.ArgMax, a, 5, 0); return err }},
		{"argcombine mismatch", func() error {
			_, _, err := nd.ArgCombine(nd.ArgMax, []*nd.Array{a, b}, []*nd.Array{a, b}, 0)
			return err
		}},
		{"argflat outside", func() error { _, _, err := nd.ArgChunkFlat(nd.ArgMax, a, []int{1, 0}, []int{2, 3}); return err }},
		{"result op", func() error { _, err := nd.MomentsResult(nd.Sum, nd.Float64, a, a, a, 0, nil, false); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); err == nil {
				t.Fatal("got nil error")
			}
		})
	}
}
