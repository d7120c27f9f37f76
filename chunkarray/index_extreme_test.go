package chunkarray

import (
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Slices whose start, stop or step sit at the ends of int's range, where
// (stop-start)/step and -step overflow. The expected values were computed
// with numpy 1.24 (np.arange(10)[slice(start, stop, step)]), e.g.
// x[3::-2**63] is [3], shape (1,).
func TestIndexExtremeSteps(t *testing.T) {
	cases := []struct {
		start, stop, step int
		noStart, noStop   bool
		want              []int64
	}{
		{0, 0, math.MinInt, true, true, []int64{9}},
		{0, 0, math.MinInt + 1, true, true, []int64{9}},
		{0, 0, -(1 << 62), true, true, []int64{9}},
		{0, 0, 1 << 62, true, true, []int64{0}},
		{0, 0, math.MaxInt, true, true, []int64{0}},
		{0, math.MinInt, math.MinInt, true, false, []int64{9}},
		{0, math.MinInt, math.MinInt + 1, true, false, []int64{9}},
		{0, math.MinInt, -(1 << 62), true, false, []int64{9}},
		{0, math.MinInt, 1 << 62, true, false, []int64{}},
		{0, math.MinInt, math.MaxInt, true, false, []int64{}},
		{0, 3, math.MinInt, true, false, []int64{9}},
		{0, 3, math.MinInt + 1, true, false, []int64{9}},
		{0, 3, -(1 << 62), true, false, []int64{9}},
		{0, 3, 1 << 62, true, false, []int64{0}},
		{0, 3, math.MaxInt, true, false, []int64{0}},
		{0, math.MaxInt, math.MinInt, true, false, []int64{}},
		{0, math.MaxInt, math.MinInt + 1, true, false, []int64{}},
		{0, math.MaxInt, -(1 << 62), true, false, []int64{}},
		{0, math.MaxInt, 1 << 62, true, false, []int64{0}},
		{0, math.MaxInt, math.MaxInt, true, false, []int64{0}},
		{math.MinInt, 0, math.MinInt, false, true, []int64{}},
		{math.MinInt, 0, math.MinInt + 1, false, true, []int64{}},
		{math.MinInt, 0, -(1 << 62), false, true, []int64{}},
		{math.MinInt, 0, 1 << 62, false, true, []int64{0}},
		{math.MinInt, 0, math.MaxInt, false, true, []int64{0}},
		{math.MinInt, math.MinInt, math.MinInt, false, false, []int64{}},
		{math.MinInt, math.MinInt, math.MinInt + 1, false, false, []int64{}},
		{math.MinInt, math.MinInt, -(1 << 62), false, false, []int64{}},
		{math.MinInt, math.MinInt, 1 << 62, false, false, []int64{}},
		{math.MinInt, math.MinInt, math.MaxInt, false, false, []int64{}},
		{math.MinInt, 3, math.MinInt, false, false, []int64{}},
		{math.MinInt, 3, math.MinInt + 1, false, false, []int64{}},
		{math.MinInt, 3, -(1 << 62), false, false, []int64{}},
		{math.MinInt, 3, 1 << 62, false, false, []int64{0}},
		{math.MinInt, 3, math.MaxInt, false, false, []int64{0}},
		{math.MinInt, math.MaxInt, math.MinInt, false, false, []int64{}},
		{math.MinInt, math.MaxInt, math.MinInt + 1, false, false, []int64{}},
		{math.MinInt, math.MaxInt, -(1 << 62), false, false, []int64{}},
		{math.MinInt, math.MaxInt, 1 << 62, false, false, []int64{0}},
		{math.MinInt, math.MaxInt, math.MaxInt, false, false, []int64{0}},
		{-4, 0, math.MinInt, false, true, []int64{6}},
		{-4, 0, math.MinInt + 1, false, true, []int64{6}},
		{-4, 0, -(1 << 62), false, true, []int64{6}},
		{-4, 0, 1 << 62, false, true, []int64{6}},
		{-4, 0, math.MaxInt, false, true, []int64{6}},
		{-4, math.MinInt, math.MinInt, false, false, []int64{6}},
		{-4, math.MinInt, math.MinInt + 1, false, false, []int64{6}},
		{-4, math.MinInt, -(1 << 62), false, false, []int64{6}},
		{-4, math.MinInt, 1 << 62, false, false, []int64{}},
		{-4, math.MinInt, math.MaxInt, false, false, []int64{}},
		{-4, 3, math.MinInt, false, false, []int64{6}},
		{-4, 3, math.MinInt + 1, false, false, []int64{6}},
		{-4, 3, -(1 << 62), false, false, []int64{6}},
		{-4, 3, 1 << 62, false, false, []int64{}},
		{-4, 3, math.MaxInt, false, false, []int64{}},
		{-4, math.MaxInt, math.MinInt, false, false, []int64{}},
		{-4, math.MaxInt, math.MinInt + 1, false, false, []int64{}},
		{-4, math.MaxInt, -(1 << 62), false, false, []int64{}},
		{-4, math.MaxInt, 1 << 62, false, false, []int64{6}},
		{-4, math.MaxInt, math.MaxInt, false, false, []int64{6}},
		{3, 0, math.MinInt, false, true, []int64{3}},
		{3, 0, math.MinInt + 1, false, true, []int64{3}},
		{3, 0, -(1 << 62), false, true, []int64{3}},
		{3, 0, 1 << 62, false, true, []int64{3}},
		{3, 0, math.MaxInt, false, true, []int64{3}},
		{3, math.MinInt, math.MinInt, false, false, []int64{3}},
		{3, math.MinInt, math.MinInt + 1, false, false, []int64{3}},
		{3, math.MinInt, -(1 << 62), false, false, []int64{3}},
		{3, math.MinInt, 1 << 62, false, false, []int64{}},
		{3, math.MinInt, math.MaxInt, false, false, []int64{}},
		{3, 3, math.MinInt, false, false, []int64{}},
		{3, 3, math.MinInt + 1, false, false, []int64{}},
		{3, 3, -(1 << 62), false, false, []int64{}},
		{3, 3, 1 << 62, false, false, []int64{}},
		{3, 3, math.MaxInt, false, false, []int64{}},
		{3, math.MaxInt, math.MinInt, false, false, []int64{}},
		{3, math.MaxInt, math.MinInt + 1, false, false, []int64{}},
		{3, math.MaxInt, -(1 << 62), false, false, []int64{}},
		{3, math.MaxInt, 1 << 62, false, false, []int64{3}},
		{3, math.MaxInt, math.MaxInt, false, false, []int64{3}},
		{9, 0, math.MinInt, false, true, []int64{9}},
		{9, 0, math.MinInt + 1, false, true, []int64{9}},
		{9, 0, -(1 << 62), false, true, []int64{9}},
		{9, 0, 1 << 62, false, true, []int64{9}},
		{9, 0, math.MaxInt, false, true, []int64{9}},
		{9, math.MinInt, math.MinInt, false, false, []int64{9}},
		{9, math.MinInt, math.MinInt + 1, false, false, []int64{9}},
		{9, math.MinInt, -(1 << 62), false, false, []int64{9}},
		{9, math.MinInt, 1 << 62, false, false, []int64{}},
		{9, math.MinInt, math.MaxInt, false, false, []int64{}},
		{9, 3, math.MinInt, false, false, []int64{9}},
		{9, 3, math.MinInt + 1, false, false, []int64{9}},
		{9, 3, -(1 << 62), false, false, []int64{9}},
		{9, 3, 1 << 62, false, false, []int64{}},
		{9, 3, math.MaxInt, false, false, []int64{}},
		{9, math.MaxInt, math.MinInt, false, false, []int64{}},
		{9, math.MaxInt, math.MinInt + 1, false, false, []int64{}},
		{9, math.MaxInt, -(1 << 62), false, false, []int64{}},
		{9, math.MaxInt, 1 << 62, false, false, []int64{9}},
		{9, math.MaxInt, math.MaxInt, false, false, []int64{9}},
		{math.MaxInt, 0, math.MinInt, false, true, []int64{9}},
		{math.MaxInt, 0, math.MinInt + 1, false, true, []int64{9}},
		{math.MaxInt, 0, -(1 << 62), false, true, []int64{9}},
		{math.MaxInt, 0, 1 << 62, false, true, []int64{}},
		{math.MaxInt, 0, math.MaxInt, false, true, []int64{}},
		{math.MaxInt, math.MinInt, math.MinInt, false, false, []int64{9}},
		{math.MaxInt, math.MinInt, math.MinInt + 1, false, false, []int64{9}},
		{math.MaxInt, math.MinInt, -(1 << 62), false, false, []int64{9}},
		{math.MaxInt, math.MinInt, 1 << 62, false, false, []int64{}},
		{math.MaxInt, math.MinInt, math.MaxInt, false, false, []int64{}},
		{math.MaxInt, 3, math.MinInt, false, false, []int64{9}},
		{math.MaxInt, 3, math.MinInt + 1, false, false, []int64{9}},
		{math.MaxInt, 3, -(1 << 62), false, false, []int64{9}},
		{math.MaxInt, 3, 1 << 62, false, false, []int64{}},
		{math.MaxInt, 3, math.MaxInt, false, false, []int64{}},
		{math.MaxInt, math.MaxInt, math.MinInt, false, false, []int64{}},
		{math.MaxInt, math.MaxInt, math.MinInt + 1, false, false, []int64{}},
		{math.MaxInt, math.MaxInt, -(1 << 62), false, false, []int64{}},
		{math.MaxInt, math.MaxInt, 1 << 62, false, false, []int64{}},
		{math.MaxInt, math.MaxInt, math.MaxInt, false, false, []int64{}},
	}
	// Chunks of 3 so that a slice starting inside an early chunk must find
	// its block: with one chunk the bug hid.
	x := Arange(0, 10, 1, nd.Int64, 3)
	for _, c := range cases {
		sel := Sel{kind: selRange, start: c.start, stop: c.stop, step: c.step, noStart: c.noStart, noStop: c.noStop}
		y := x.Index(sel)
		if err := y.Err(); err != nil {
			t.Errorf("x[%+v]: %v", c, err)
			continue
		}
		if !slices.Equal(y.Shape(), []int{len(c.want)}) {
			t.Errorf("x[%+v]: shape %v, numpy (%d,)", c, y.Shape(), len(c.want))
			continue
		}
		v, err := y.Compute(t.Context())
		if err != nil {
			t.Errorf("x[%+v]: compute: %v", c, err)
			continue
		}
		got := make([]int64, v.Size())
		for i := range got {
			e, err := v.At(i)
			if err != nil {
				t.Fatalf("x[%+v]: At(%d): %v", c, i, err)
			}
			got[i] = e.(int64)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("x[%+v] = %v, numpy %v", c, got, c.want)
		}
	}
}

// TestSlicePlanHugeAxis cuts slices of an axis of length math.MaxInt (two
// chunks; nothing is allocated) where every offset is near overflow. The
// expected length and first and last positions are Python's
// range(2**63-1)[slice(start, stop, step)].
func TestSlicePlanHugeAxis(t *testing.T) {
	chunks := []int{1 << 62, 1<<62 - 1}
	const n = math.MaxInt
	cases := []struct {
		start, stop, step   int
		noStart, noStop     bool
		length, first, last int
	}{
		{0, 0, 1, true, true, math.MaxInt, 0, math.MaxInt - 1},
		{0, 0, -1, true, true, math.MaxInt, math.MaxInt - 1, 0},
		{0, 0, math.MinInt, true, true, 1, math.MaxInt - 1, math.MaxInt - 1},
		{0, 0, math.MaxInt, true, true, 1, 0, 0},
		{0, 0, 1 << 62, true, true, 2, 0, 1 << 62},
		{0, 0, -(1 << 62), true, true, 2, math.MaxInt - 1, 4611686018427387902},
		{0, 0, math.MinInt + 1, true, true, 1, math.MaxInt - 1, math.MaxInt - 1},
		{1 << 62, 0, math.MinInt, false, true, 1, 1 << 62, 1 << 62},
		{1<<62 - 1, 0, math.MinInt, false, true, 1, 1<<62 - 1, 1<<62 - 1},
		{math.MaxInt - 1, 0, -(1 << 62), false, false, 2, math.MaxInt - 1, 4611686018427387902},
		{math.MinInt, math.MaxInt, 1 << 62, false, false, 2, 0, 1 << 62},
		{1, 0, 1<<62 - 1, false, true, 2, 1, 1 << 62},
		{1<<62 + 1, 0, -1, false, true, 4611686018427387906, 1<<62 + 1, 0},
		{-1, math.MinInt, -3, false, false, 3074457345618258603, math.MaxInt - 1, 0},
		{3, 0, math.MinInt, false, true, 1, 3, 3},
		{math.MaxInt, math.MinInt, math.MinInt + 1, false, false, 1, math.MaxInt - 1, math.MaxInt - 1},
	}
	st := starts(chunks)
	for _, c := range cases {
		var a, b *int
		if !c.noStart {
			a = &c.start
		}
		if !c.noStop {
			b = &c.stop
		}
		sl, err := nd.NormalizeSlice(a, b, c.step, n)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		plan := slicePlan(chunks, sl)
		total := 0
		for _, p := range plan {
			total += p.n
		}
		if total != c.length {
			t.Errorf("%+v: plan %+v selects %d, Python %d", c, plan, total, c.length)
			continue
		}
		if c.length == 0 {
			continue
		}
		p0, pl := plan[0], plan[len(plan)-1]
		first := st[p0.in] + p0.lo
		// The last piece's last element; its n is small when the step is
		// large, so (n-1)*step stays in range.
		last := st[pl.in] + pl.lo + (pl.n-1)*pl.step
		if first != c.first || last != c.last {
			t.Errorf("%+v: plan %+v spans %d..%d, Python %d..%d", c, plan, first, last, c.first, c.last)
		}
	}
}
