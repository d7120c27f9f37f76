package chunkarray

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"gonum.org/v1/gonum/stat/distuv"
)

// The samplers are checked against their distributions (gonum's CDFs and
// the moments' formulas) on fixed seeds, so nothing is left to chance:
// the Kolmogorov–Smirnov distance of n samples must stay below
// randKSC/sqrt(n) (randKSC = 2.0: a sound sampler exceeds it with probability
// about 6e-4, and these seeds are fixed), the mean within 5 standard
// errors and the variance within 5 standard errors of the variance.

const randKSC = 2.0

// TestZigguratTable checks the ziggurat's strips: decreasing edges down
// to 0, each strip of area zigV, the top one closing at f(0) = 1.
func TestZigguratTable(t *testing.T) {
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	for i := 0; i < zigN; i++ {
		if !(zigX[i] > zigX[i+1]) {
			t.Fatalf("zigX[%d] = %v not above zigX[%d] = %v", i, zigX[i], i+1, zigX[i+1])
		}
	}
	for i := 1; i < zigN-1; i++ {
		if a := zigX[i] * (f(zigX[i+1]) - f(zigX[i])); math.Abs(a-zigV) > 1e-12 {
			t.Errorf("strip %d has area %v, want %v", i, a, zigV)
		}
	}
	// the top strip: x[255]·(1 - f(x[255])) is the area v too
	if a := zigX[zigN-1] * (1 - f(zigX[zigN-1])); math.Abs(a-zigV) > 1e-9 {
		t.Errorf("top strip has area %v, want %v", a, zigV)
	}
	// the base strip: r·f(r) plus the tail, ∫_r^∞ f = sqrt(π/2)·erfc(r/√2)
	tail := math.Sqrt(math.Pi/2) * math.Erfc(zigR/math.Sqrt2)
	if a := zigR*f(zigR) + tail; math.Abs(a-zigV) > 1e-9 {
		t.Errorf("base strip has area %v, want %v", a, zigV)
	}
}

type randDistCase struct {
	name      string
	make      func(r *RandomState, shape []int, chunks any) *Array
	cdf       func(x float64) float64
	mean, sd  float64
	m4        float64 // the fourth central moment, for the variance's standard error
	discrete  bool
	noMoments bool // heavy tails: the KS distance only
	ksStride  int  // > 1: the empirical CDF compared at every ksStride-th sample only (a costly CDF)
}

func randDistCases() []randDistCase {
	nrm := func(mu, sd float64) randDistCase {
		return randDistCase{name: fmt.Sprintf("normal(%g,%g)", mu, sd),
			make: func(r *RandomState, s []int, c any) *Array { return r.Normal(mu, sd, s, c) },
			cdf:  distuv.Normal{Mu: mu, Sigma: sd}.CDF, mean: mu, sd: sd, m4: 3 * math.Pow(sd, 4)}
	}
	gam := func(k, th float64) randDistCase {
		return randDistCase{name: fmt.Sprintf("gamma(%g,%g)", k, th),
			make: func(r *RandomState, s []int, c any) *Array { return r.Gamma(k, th, s, c) },
			cdf:  distuv.Gamma{Alpha: k, Beta: 1 / th}.CDF, mean: k * th, sd: math.Sqrt(k) * th,
			m4: 3 * k * (k + 2) * math.Pow(th, 4)}
	}
	bet := func(a, b float64) randDistCase {
		v := a * b / ((a + b) * (a + b) * (a + b + 1))
		ex := 6 * ((a-b)*(a-b)*(a+b+1) - a*b*(a+b+2)) / (a * b * (a + b + 2) * (a + b + 3))
		return randDistCase{name: fmt.Sprintf("beta(%g,%g)", a, b),
			make: func(r *RandomState, s []int, c any) *Array { return r.Beta(a, b, s, c) },
			cdf:  distuv.Beta{Alpha: a, Beta: b}.CDF, mean: a / (a + b), sd: math.Sqrt(v), m4: (ex + 3) * v * v}
	}
	bin := func(n int64, p float64) randDistCase {
		v := float64(n) * p * (1 - p)
		return randDistCase{name: fmt.Sprintf("binomial(%d,%g)", n, p),
			make: func(r *RandomState, s []int, c any) *Array { return r.Binomial(n, p, s, c) },
			cdf:  distuv.Binomial{N: float64(n), P: p}.CDF, mean: float64(n) * p, sd: math.Sqrt(v),
			m4: v * (1 + 3*(float64(n)-2)*p*(1-p)), discrete: true}
	}
	poi := func(l float64) randDistCase {
		return randDistCase{name: fmt.Sprintf("poisson(%g)", l),
			make: func(r *RandomState, s []int, c any) *Array { return r.Poisson(l, s, c) },
			cdf:  distuv.Poisson{Lambda: l}.CDF, mean: l, sd: math.Sqrt(l), m4: l * (1 + 3*l), discrete: true}
	}
	exp := func(sc float64) randDistCase {
		return randDistCase{name: fmt.Sprintf("exponential(%g)", sc),
			make: func(r *RandomState, s []int, c any) *Array { return r.Exponential(sc, s, c) },
			cdf:  distuv.Exponential{Rate: 1 / sc}.CDF, mean: sc, sd: sc, m4: 9 * math.Pow(sc, 4)}
	}
	nb := func(n, p float64) randDistCase {
		v := n * (1 - p) / (p * p)
		ex := 6/n + p*p/(n*(1-p))
		return randDistCase{name: fmt.Sprintf("negative_binomial(%g,%g)", n, p),
			make: func(r *RandomState, s []int, c any) *Array { return r.NegativeBinomial(n, p, s, c) },
			cdf: func(x float64) float64 {
				// Σ_{j<=x} Γ(j+n)/(Γ(n) j!) p^n (1-p)^j
				c := 0.0
				lgn, _ := math.Lgamma(n)
				for j := 0.0; j <= x; j++ {
					a, _ := math.Lgamma(j + n)
					b, _ := math.Lgamma(j + 1)
					c += math.Exp(a - lgn - b + n*math.Log(p) + j*math.Log1p(-p))
				}
				return min(c, 1)
			},
			mean: n * (1 - p) / p, sd: math.Sqrt(v), m4: (ex + 3) * v * v, discrete: true}
	}
	std := nrm(0, 1)
	std.name = "standard_normal"
	std.make = func(r *RandomState, s []int, c any) *Array { return r.StandardNormal(s, c) }
	return []randDistCase{nrm(2, 3), std, exp(2), gam(0.5, 2), gam(1, 1), gam(3, 1.5), gam(40, 0.5),
		bet(0.5, 0.7), bet(2, 5), bet(0.3, 3), bin(20, 0.3), bin(1000, 0.4), bin(100, 0.9), bin(0, 0.5),
		poi(3.5), poi(50), poi(0), nb(3, 0.4), nb(0.5, 0.9)}
}

func TestRandomDistributions(t *testing.T) {
	for seed, dc := range randDistCases() {
		t.Run(dc.name, func(t *testing.T) { checkSamples(t, dc, uint64(seed+11)) })
	}
}

// checkSamples draws 200000 values of dc with seed and checks their
// moments (unless dc.noMoments) and their Kolmogorov–Smirnov distance
// from dc.cdf.
func checkSamples(t *testing.T, dc randDistCase, seed uint64) {
	t.Helper()
	const n = 200_000
	x, err := dc.make(Random(seed), []int{n}, 7001).Compute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	f, _ := x.AsType(nd.Float64)
	v, _ := nd.Values[float64](f)
	mean, m2 := 0.0, 0.0
	for _, s := range v {
		mean += s
	}
	mean /= n
	for _, s := range v {
		m2 += (s - mean) * (s - mean)
	}
	m2 /= n
	if dc.sd == 0 && !dc.noMoments {
		if mean != dc.mean || m2 != 0 {
			t.Fatalf("degenerate: mean %v var %v, want %v and 0", mean, m2, dc.mean)
		}
		return
	}
	if !dc.noMoments {
		if se := dc.sd / math.Sqrt(n); math.Abs(mean-dc.mean) > 5*se {
			t.Errorf("mean %v, want %v ± %v", mean, dc.mean, 5*se)
		}
		vv := dc.sd * dc.sd
		if se := math.Sqrt((dc.m4 - vv*vv) / n); math.Abs(m2-vv) > 5*se {
			t.Errorf("variance %v, want %v ± %v", m2, vv, 5*se)
		}
	}
	sort.Float64s(v)
	d := 0.0
	for i := 0; i < n; {
		j := i
		for j < n && v[j] == v[i] {
			j++
		}
		if dc.ksStride > 1 && !dc.discrete && i%dc.ksStride != 0 {
			i = j
			continue
		}
		// the empirical CDF just below v[i] and at v[i]
		fv := dc.cdf(v[i])
		below := fv
		if dc.discrete {
			below = dc.cdf(v[i] - 1)
		}
		d = max(d, math.Abs(float64(i)/n-below), math.Abs(float64(j)/n-fv))
		i = j
	}
	if lim := randKSC / math.Sqrt(n); d > lim {
		t.Errorf("Kolmogorov–Smirnov distance %v > %v", d, lim)
	}
}

// TestRandomChunkIndependent: the same seed gives the same values bit for
// bit whatever the chunking, fused or not, on one or two workers, and
// equal to the scalar path (stdNormal, distValue) element by element.
func TestRandomChunkIndependent(t *testing.T) {
	shape := []int{37, 53}
	chunkings := []any{-1, 5, [][]int{{1, 0, 30, 6}, {20, 33}}, []int{37, 1}}
	for _, dc := range randDistCases() {
		t.Run(dc.name, func(t *testing.T) {
			var first *nd.Array
			for _, ch := range chunkings {
				for _, opts := range [][]Option{{WithScheduler(sched.Sync{})}, {WithScheduler(sched.Threaded{Workers: 2}), WithOptimize(false)}} {
					got, err := dc.make(Random(99), shape, ch).Compute(context.Background(), opts...)
					if err != nil {
						t.Fatal(err)
					}
					if first == nil {
						first = got
						continue
					}
					if d := randBitDiff(got, first); d != "" {
						t.Fatalf("chunks %v: %s", ch, d)
					}
				}
			}
			// fused into a consumer: the same values, doubled
			got, err := dc.make(Random(99), shape, 6).Mul(2).Compute(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			two, _ := nd.ScalarOf(2)
			want, _ := nd.Binary(nd.Mul, first, two)
			if d := randBitDiff(got, want); d != "" {
				t.Fatalf("fused: %s", d)
			}
			// the scalar path
			p := dc.make(Random(99), shape, 6).lay.(*randomLayer).op.p
			f, _ := first.AsType(nd.Float64)
			v, _ := nd.Values[float64](f)
			for e, x := range v {
				var w float64
				if p.Dist == distNormal {
					w = math.Float64frombits(p.A) + float64(math.Float64frombits(p.B)*stdNormal(p.Seed^keyNormal, uint64(e)))
				} else {
					w = distValue(p.Dist, p.Seed^distKey(p.Dist), uint64(e), p.A, p.B)
				}
				if math.Float64bits(w) != math.Float64bits(x) {
					t.Fatalf("element %d: %v, the scalar path gives %v", e, x, w)
				}
			}
		})
	}
}

// randBitDiff compares two arrays of one dtype bit for bit.
func randBitDiff(a, b *nd.Array) string {
	if a.DType() != b.DType() || !slices.Equal(a.Shape(), b.Shape()) {
		return fmt.Sprintf("%s%v vs %s%v", a.DType(), a.Shape(), b.DType(), b.Shape())
	}
	x, _ := a.Contiguous().AsType(nd.Float64)
	y, _ := b.Contiguous().AsType(nd.Float64)
	xv, _ := nd.Values[float64](x)
	yv, _ := nd.Values[float64](y)
	for i := range xv {
		if math.Float64bits(xv[i]) != math.Float64bits(yv[i]) {
			return fmt.Sprintf("element %d: %v vs %v", i, xv[i], yv[i])
		}
	}
	return ""
}

// TestRandomSeedsDiffer: different seeds, and different distributions of
// one seed, give different values.
func TestRandomSeedsDiffer(t *testing.T) {
	a, _ := Random(1).Normal(0, 1, []int{100}, 10).Compute(context.Background())
	b, _ := Random(2).Normal(0, 1, []int{100}, 10).Compute(context.Background())
	c, _ := Random(1).Exponential(1, []int{100}, 10).Compute(context.Background())
	if randBitDiff(a, b) == "" || randBitDiff(a, c) == "" {
		t.Fatal("two seeds or two distributions gave the same values")
	}
}

func TestRandomDistErrors(t *testing.T) {
	r := Random(1)
	for _, x := range []*Array{
		r.Exponential(-1, []int{3}, 2), r.Gamma(-1, 1, []int{3}, 2), r.Gamma(1, math.NaN(), []int{3}, 2),
		r.Beta(0, 1, []int{3}, 2), r.Beta(1, math.Inf(1), []int{3}, 2), r.Binomial(-1, 0.5, []int{3}, 2),
		r.Binomial(3, 1.5, []int{3}, 2), r.Poisson(-1, []int{3}, 2), r.Poisson(1e19, []int{3}, 2),
	} {
		var e *Error
		if !errors.As(x.Err(), &e) {
			t.Errorf("got %v, want a *chunkarray.Error", x.Err())
		}
	}
	var nilState *RandomState
	if nilState.Gamma(1, 1, []int{2}, 1).Err() == nil {
		t.Error("a nil RandomState made an array")
	}
}

// TestNormalSIMD: the vector kernel gives the portable loop's values bit
// for bit, for runs of every length modulo 8 and at any start, slow-path
// lanes included (a run of 5000 has about 60 of them).
func TestNormalSIMD(t *testing.T) {
	if !useSIMD {
		t.Skip("no AVX-512 here: the portable loop is the only path")
	}
	defer func(v bool) { useSIMD = v }(useSIMD)
	for _, n := range []int{8, 13, 5000, 4096 + 9} {
		for _, e0 := range []uint64{0, 3, 1 << 40} {
			a, b := make([]float64, n), make([]float64, n)
			useSIMD = true
			normalRun(a, 77, e0, 1.5, 2.5)
			useSIMD = false
			normalRun(b, 77, e0, 1.5, 2.5)
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("n %d e0 %d: element %d: vector %v, portable %v", n, e0, i, a[i], b[i])
				}
			}
		}
	}
}
