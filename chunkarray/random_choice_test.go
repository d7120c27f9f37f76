package chunkarray

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// Choice and Permutation against their probabilities: frequencies within
// 5 standard errors (sqrt(q(1-q)/n)) of the exact probabilities, on fixed
// seeds.

func randInts64(t *testing.T, x *Array, opts ...Option) []int64 {
	t.Helper()
	a, err := x.Compute(context.Background(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := nd.Values[int64](a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func randCheckFreq(t *testing.T, what string, count []int, total int, want []float64) {
	t.Helper()
	for i, q := range want {
		got := float64(count[i]) / float64(total)
		se := math.Sqrt(q * (1 - q) / float64(total))
		if q == 0 && count[i] != 0 || math.Abs(got-q) > 5*se+1e-12 {
			t.Errorf("%s: outcome %d has frequency %v, want %v ± %v", what, i, got, q, 5*se)
		}
	}
}

func TestChoiceWithReplacement(t *testing.T) {
	const n = 210_000
	for _, tc := range []struct {
		name string
		pop  int
		p    []float64
	}{
		{"uniform7", 7, nil},
		{"weighted", 4, []float64{0.1, 0, 0.5, 0.4}},
		{"one", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := randInts64(t, Random(5).Choice(tc.pop, []int{n}, true, tc.p, 9999))
			count := make([]int, tc.pop)
			for _, x := range v {
				if x < 0 || x >= int64(tc.pop) {
					t.Fatalf("index %d outside [0, %d)", x, tc.pop)
				}
				count[x]++
			}
			want := tc.p
			if want == nil {
				want = make([]float64, tc.pop)
				for i := range want {
					want[i] = 1 / float64(tc.pop)
				}
			}
			randCheckFreq(t, tc.name, count, n, want)
		})
	}
}

// TestChoiceChunkIndependent: the same values whatever the chunking and
// scheduler, fused or not; a population's values are its elements at the
// indices the integer form draws.
func TestChoiceChunkIndependent(t *testing.T) {
	shape := []int{23, 31}
	p := []float64{0.25, 0.25, 0.125, 0.375, 0}
	for _, w := range [][]float64{nil, p} {
		var first []int64
		for _, ch := range []any{-1, 4, [][]int{{20, 0, 3}, {1, 30}}} {
			for _, opts := range [][]Option{{WithScheduler(sched.Sync{})}, {WithScheduler(sched.Threaded{Workers: 2}), WithOptimize(false)}} {
				v := randInts64(t, Random(8).Choice(5, shape, true, w, ch), opts...)
				if first == nil {
					first = v
				} else if !slices.Equal(v, first) {
					t.Fatalf("weights %v, chunks %v: values differ", w, ch)
				}
			}
		}
		vals := []float64{1.5, -2, 7, 0.25, 99}
		pop, _ := nd.FromSlice(vals, 5)
		got, err := Random(8).Choice(pop, shape, true, w, 7).Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		gv, _ := nd.Values[float64](got)
		for i, ix := range first {
			if gv[i] != vals[ix] {
				t.Fatalf("population values: element %d is %v, want %v", i, gv[i], vals[ix])
			}
		}
	}
}

func TestChoiceWithoutReplacement(t *testing.T) {
	// ordered pairs of 2 drawn from 4 by successive sampling:
	// P(i, j) = p_i · p_j / (1 - p_i)
	for _, w := range [][]float64{nil, {0.5, 0.3, 0.2, 0}} {
		q := w
		if q == nil {
			q = []float64{0.25, 0.25, 0.25, 0.25}
		}
		const seeds = 40_000
		count := make([]int, 16)
		want := make([]float64, 16)
		for i := range 4 {
			for j := range 4 {
				if i != j && q[i] < 1 {
					want[i*4+j] = q[i] * q[j] / (1 - q[i])
				}
			}
		}
		for s := range seeds {
			idx := sampleIndices(uint64(s), 4, 2, w)
			if idx[0] == idx[1] {
				t.Fatalf("seed %d: %v repeats", s, idx)
			}
			count[idx[0]*4+idx[1]]++
		}
		randCheckFreq(t, "pairs", count, seeds, want)
	}
	// through the Array: distinct, in range, chunked as asked
	x := Random(3).Choice(50, []int{6, 5}, false, nil, 4)
	if !slices.Equal(x.Shape(), []int{6, 5}) || x.Chunks()[0][0] != 4 {
		t.Fatalf("shape %v chunks %v", x.Shape(), x.Chunks())
	}
	v := randInts64(t, x)
	seen := map[int64]bool{}
	for _, e := range v {
		if e < 0 || e >= 50 || seen[e] {
			t.Fatalf("%v: not distinct indices of 0..49", v)
		}
		seen[e] = true
	}
	if w := randInts64(t, Random(3).Choice(50, []int{30}, false, nil, -1)); !slices.Equal(w, v) {
		t.Fatal("the sample depends on the output's shape or chunks")
	}
}

func TestPermutation(t *testing.T) {
	v := randInts64(t, Random(4).Permutation(1000, 77))
	s := slices.Clone(v)
	slices.Sort(s)
	for i, x := range s {
		if x != int64(i) {
			t.Fatalf("not a permutation of 0..999: sorted[%d] = %d", i, x)
		}
	}
	if w := randInts64(t, Random(4).Permutation(1000, 1000)); !slices.Equal(w, v) {
		t.Fatal("the permutation depends on the chunks")
	}
	// an Array's rows in the order of the same shuffle
	vals := make([]float64, 1000*3)
	for i := range vals {
		vals[i] = float64(i)
	}
	m, _ := nd.FromSlice(vals, 1000, 3)
	got, err := Random(4).Permutation(FromNDArray(m, []int{128, 3}), nil).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gv, _ := nd.Values[float64](got)
	for i, r := range v {
		if gv[3*i+1] != float64(3*r+1) {
			t.Fatalf("row %d is row %v, want row %d", i, gv[3*i]/3, r)
		}
	}
	// where element 0 lands, over seeds: uniform over 5 places
	count := make([]int, 5)
	const seeds = 20_000
	for s := range seeds {
		for pos, x := range sampleIndices(uint64(s), 5, 5, nil) {
			if x == 0 {
				count[pos]++
			}
		}
	}
	randCheckFreq(t, "position of 0", count, seeds, []float64{0.2, 0.2, 0.2, 0.2, 0.2})
}

func TestChoiceErrors(t *testing.T) {
	r := Random(1)
	two, _ := nd.Zeros(nd.Float64, 2, 2)
	for name, x := range map[string]*Array{
		"larger sample":   r.Choice(3, []int{4}, false, nil, 2),
		"p length":        r.Choice(3, []int{4}, true, []float64{0.5, 0.5}, 2),
		"p negative":      r.Choice(2, []int{4}, true, []float64{1.5, -0.5}, 2),
		"p sum":           r.Choice(2, []int{4}, true, []float64{0.5, 0.4}, 2),
		"p nan":           r.Choice(2, []int{4}, true, []float64{math.NaN(), 1}, 2),
		"nonzero entries": r.Choice(3, []int{3}, false, []float64{0.5, 0.5, 0}, 2),
		"empty":           r.Choice(0, []int{1}, true, nil, 2),
		"negative a":      r.Choice(-2, []int{1}, true, nil, 2),
		"2-d population":  r.Choice(two, []int{1}, true, nil, 2),
		"type":            r.Choice("abc", []int{1}, true, nil, 2),
		"negative size":   r.Choice(3, []int{-1}, true, nil, 2),
		"perm type":       r.Permutation(2.5, 2),
		"perm 0-d":        r.Permutation(Full([]int{}, 1.0, nd.Float64, nil), nil),
	} {
		var e *Error
		if !errors.As(x.Err(), &e) {
			t.Errorf("%s: got %v, want a *chunkarray.Error", name, x.Err())
		}
	}
	// an empty sample of an empty population is allowed
	if v := randInts64(t, r.Choice(0, []int{0}, true, nil, 2)); len(v) != 0 {
		t.Fatal(v)
	}
}

// TestRandomThroughJSON: the graphs of the samplers survive their JSON
// encoding (as they travel to a worker process) with the same values.
func TestRandomThroughJSON(t *testing.T) {
	r := Random(12)
	pop, _ := nd.FromSlice([]int16{4, -5, 6, 70}, 4)
	for name, x := range map[string]*Array{
		"gamma":            r.Gamma(2.5, 1, []int{9, 7}, 4),
		"binomial fused":   r.Binomial(30, 0.2, []int{9, 7}, 4).Mul(2),
		"poisson":          r.Poisson(12, []int{20}, 6),
		"normal":           r.Normal(1, 2, []int{33}, 8),
		"choice":           r.Choice(pop, []int{5, 6}, true, []float64{0.1, 0.2, 0.3, 0.4}, 4),
		"choice no repl":   r.Choice(pop, []int{2, 2}, false, nil, 1),
		"permutation":      r.Permutation(17, 5),
		"permutation rows": r.Permutation(FromNDArray(pop, 2), nil),
	} {
		want, err := x.Compute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got, err := computeThroughJSON(x)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := randBitDiff(got, want); d != "" {
			t.Errorf("%s: %s", name, d)
		}
	}
}
