package chunkarray

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"gonum.org/v1/gonum/stat/distuv"
)

// The derived distributions of random_more.go against their CDFs (gonum's
// or the formula) and moments, and the same values whatever the chunking,
// fused or not.
func randMoreCases() []randDistCase {
	type mk = func(r *RandomState, s []int, c any) *Array
	c := func(name string, m mk, cdf func(float64) float64, mean, sd, m4 float64) randDistCase {
		return randDistCase{name: name, make: m, cdf: cdf, mean: mean, sd: sd, m4: m4, noMoments: sd == 0}
	}
	v := func(sd float64, kurt float64) float64 { return (kurt + 3) * math.Pow(sd, 4) }
	lnS := 0.5
	lnVar := (math.Exp(lnS*lnS) - 1) * math.Exp(2*0.3+lnS*lnS)
	return []randDistCase{
		c("standard_gamma(2.5)", func(r *RandomState, s []int, ch any) *Array { return r.StandardGamma(2.5, s, ch) },
			distuv.Gamma{Alpha: 2.5, Beta: 1}.CDF, 2.5, math.Sqrt(2.5), v(math.Sqrt(2.5), 6/2.5)),
		c("chisquare(3)", func(r *RandomState, s []int, ch any) *Array { return r.Chisquare(3, s, ch) },
			distuv.ChiSquared{K: 3}.CDF, 3, math.Sqrt(6), v(math.Sqrt(6), 12.0/3)),
		c("lognormal(0.3,0.5)", func(r *RandomState, s []int, ch any) *Array { return r.Lognormal(0.3, lnS, s, ch) },
			distuv.LogNormal{Mu: 0.3, Sigma: lnS}.CDF, math.Exp(0.3+lnS*lnS/2), math.Sqrt(lnVar),
			v(math.Sqrt(lnVar), math.Exp(4*lnS*lnS)+2*math.Exp(3*lnS*lnS)+3*math.Exp(2*lnS*lnS)-6)),
		c("laplace(1,2)", func(r *RandomState, s []int, ch any) *Array { return r.Laplace(1, 2, s, ch) },
			distuv.Laplace{Mu: 1, Scale: 2}.CDF, 1, 2*math.Sqrt2, v(2*math.Sqrt2, 3)),
		c("logistic(-1,0.5)", func(r *RandomState, s []int, ch any) *Array { return r.Logistic(-1, 0.5, s, ch) },
			func(x float64) float64 { return 1 / (1 + math.Exp(-(x+1)/0.5)) }, -1, 0.5*math.Pi/math.Sqrt(3), v(0.5*math.Pi/math.Sqrt(3), 1.2)),
		c("gumbel(2,3)", func(r *RandomState, s []int, ch any) *Array { return r.Gumbel(2, 3, s, ch) },
			func(x float64) float64 { return math.Exp(-math.Exp(-(x - 2) / 3)) }, 2+3*0.5772156649015329, 3*math.Pi/math.Sqrt(6), v(3*math.Pi/math.Sqrt(6), 2.4)),
		c("rayleigh(2)", func(r *RandomState, s []int, ch any) *Array { return r.Rayleigh(2, s, ch) },
			func(x float64) float64 { return 1 - math.Exp(-x*x/8) }, 2*math.Sqrt(math.Pi/2), math.Sqrt((4-math.Pi)/2)*2,
			v(math.Sqrt((4-math.Pi)/2)*2, -(6*math.Pi*math.Pi-24*math.Pi+16)/((4-math.Pi)*(4-math.Pi)))),
		c("weibull(1.5)", func(r *RandomState, s []int, ch any) *Array { return r.Weibull(1.5, s, ch) },
			distuv.Weibull{K: 1.5, Lambda: 1}.CDF, 0, 0, 0),
		c("pareto(3)", func(r *RandomState, s []int, ch any) *Array { return r.Pareto(3, s, ch) },
			func(x float64) float64 { return distuv.Pareto{Xm: 1, Alpha: 3}.CDF(x + 1) }, 0, 0, 0),
		c("power(2.5)", func(r *RandomState, s []int, ch any) *Array { return r.Power(2.5, s, ch) },
			func(x float64) float64 { return math.Pow(max(min(x, 1), 0), 2.5) }, 0, 0, 0),
		c("standard_cauchy", func(r *RandomState, s []int, ch any) *Array { return r.StandardCauchy(s, ch) },
			func(x float64) float64 { return 0.5 + math.Atan(x)/math.Pi }, 0, 0, 0),
		c("standard_t(4)", func(r *RandomState, s []int, ch any) *Array { return r.StandardT(4, s, ch) },
			distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 4}.CDF, 0, 0, 0),
		c("f(5,8)", func(r *RandomState, s []int, ch any) *Array { return r.F(5, 8, s, ch) },
			distuv.F{D1: 5, D2: 8}.CDF, 0, 0, 0),
		{name: "geometric(0.3)", make: func(r *RandomState, s []int, ch any) *Array { return r.Geometric(0.3, s, ch) },
			cdf:  func(x float64) float64 { return 1 - math.Pow(0.7, math.Floor(x)) },
			mean: 1 / 0.3, sd: math.Sqrt(0.7) / 0.3, m4: (9 + 0.09/0.7) * math.Pow(math.Sqrt(0.7)/0.3, 4), discrete: true},
		{name: "geometric(1)", make: func(r *RandomState, s []int, ch any) *Array { return r.Geometric(1, s, ch) },
			cdf: func(x float64) float64 { return 1 }, mean: 1, discrete: true},
	}
}

func TestRandomMoreDistributions(t *testing.T) {
	for i, dc := range randMoreCases() {
		t.Run(dc.name, func(t *testing.T) { checkSamples(t, dc, uint64(100+i)) })
	}
}

func TestRandomMoreChunkIndependent(t *testing.T) {
	shape := []int{19, 23}
	for _, dc := range randMoreCases() {
		t.Run(dc.name, func(t *testing.T) {
			var first *nd.Array
			for _, ch := range []any{-1, 4, [][]int{{18, 1}, {0, 5, 18}}} {
				for _, opts := range [][]Option{{WithScheduler(sched.Sync{})}, {WithScheduler(sched.Threaded{Workers: 2}), WithOptimize(false)}} {
					got, err := dc.make(Random(31), shape, ch).Compute(context.Background(), opts...)
					if err != nil {
						t.Fatal(err)
					}
					if first == nil {
						first = got
					} else if d := randBitDiff(got, first); d != "" {
						t.Fatalf("chunks %v: %s", ch, d)
					}
				}
			}
		})
	}
}

func TestRandomMoreErrors(t *testing.T) {
	r := Random(1)
	var nilState *RandomState
	s := []int{3}
	for name, x := range map[string]*Array{
		"chisquare":       r.Chisquare(0, s, 2),
		"laplace":         r.Laplace(0, -1, s, 2),
		"logistic":        r.Logistic(0, math.NaN(), s, 2),
		"gumbel":          r.Gumbel(0, -1, s, 2),
		"rayleigh":        r.Rayleigh(-1, s, 2),
		"weibull":         r.Weibull(-1, s, 2),
		"pareto":          r.Pareto(0, s, 2),
		"power":           r.Power(-1, s, 2),
		"standard_t":      r.StandardT(0, s, 2),
		"f":               r.F(1, 0, s, 2),
		"geometric":       r.Geometric(0, s, 2),
		"negbin n":        r.NegativeBinomial(0, 0.5, s, 2),
		"negbin p":        r.NegativeBinomial(1, 0, s, 2),
		"nil laplace":     nilState.Laplace(0, 1, s, 2),
		"nil cauchy":      nilState.StandardCauchy(s, 2),
		"nil t":           nilState.StandardT(3, s, 2),
		"nil f":           nilState.F(3, 3, s, 2),
		"nil logistic":    nilState.Logistic(0, 1, s, 2),
		"nil gumbel":      nilState.Gumbel(0, 1, s, 2),
		"nil lognormal":   nilState.Lognormal(0, 1, s, 2),
		"nil negbinomial": nilState.NegativeBinomial(1, 0.5, s, 2),
	} {
		var e *Error
		if !errors.As(x.Err(), &e) {
			t.Errorf("%s: got %v, want a *chunkarray.Error", name, x.Err())
		}
	}
}

// randMoreCases2 are the samplers of random_more.go's second part, by
// their CDFs (KS only: several have heavy tails or awkward moments).
func randMoreCases2() []randDistCase {
	type mk = func(r *RandomState, s []int, c any) *Array
	ks := func(name string, m mk, cdf func(float64) float64, discrete bool) randDistCase {
		return randDistCase{name: name, make: m, cdf: cdf, noMoments: true, discrete: discrete}
	}
	// the mixtures' CDFs cost 40 central CDFs each: compared at every
	// 20th sample (the distance between two such points moves by at most
	// 20/n = 1e-4, a fiftieth of the limit)
	costly := func(c randDistCase) randDistCase { c.ksStride = 20; return c }
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	wald := func(x float64) float64 {
		const mu, l = 1.5, 2.0
		if x <= 0 {
			return 0
		}
		q := math.Sqrt(l / x)
		return phi(q*(x/mu-1)) + math.Exp(2*l/mu)*phi(-q*(x/mu+1))
	}
	// discrete CDFs from a pmf, cached
	fromPMF := func(pmf func(k float64) float64, kmin, kmax float64) func(float64) float64 {
		var cum []float64
		c := 0.0
		for k := kmin; k <= kmax; k++ {
			c += pmf(k)
			cum = append(cum, c)
		}
		return func(x float64) float64 {
			k := math.Floor(x)
			switch {
			case k < kmin:
				return 0
			case k > kmax:
				return cum[len(cum)-1]
			}
			return cum[int(k-kmin)]
		}
	}
	zeta := func(a float64) float64 {
		s := 0.0
		const n = 1_000_000
		for k := n; k >= 1; k-- {
			s += math.Pow(float64(k), -a)
		}
		return s + math.Pow(n, 1-a)/(a-1) - 0.5*math.Pow(n, -a)
	}
	za := zeta(2.5)
	zipfCDF := fromPMF(func(k float64) float64 { return math.Pow(k, -2.5) / za }, 1, 200_000)
	zipf := func(x float64) float64 {
		if x > 200_000 { // the tail: ∫ k^-a beyond
			return 1 - math.Pow(math.Floor(x)+0.5, -1.5)/1.5/za
		}
		return zipfCDF(x)
	}
	lp := 0.6
	logseries := fromPMF(func(k float64) float64 { return -math.Pow(lp, k) / (k * math.Log1p(-lp)) }, 1, 200)
	lchoose := func(n, k float64) float64 {
		a, _ := math.Lgamma(n + 1)
		b, _ := math.Lgamma(k + 1)
		c, _ := math.Lgamma(n - k + 1)
		return a - b - c
	}
	hyper := func(g, b, n float64) func(float64) float64 {
		return fromPMF(func(k float64) float64 {
			if k > g || n-k > b || k < 0 || n-k < 0 {
				return 0
			}
			return math.Exp(lchoose(g, k) + lchoose(b, n-k) - lchoose(g+b, n))
		}, 0, n)
	}
	// the noncentral χ² and F as Poisson mixtures of the central ones
	pois := func(lam float64, j int) float64 {
		lg, _ := math.Lgamma(float64(j) + 1)
		return math.Exp(-lam + float64(j)*math.Log(lam) - lg)
	}
	ncx2 := func(df, nonc float64) func(float64) float64 {
		return func(x float64) float64 {
			c := 0.0
			for j := range 40 {
				c += pois(nonc/2, j) * distuv.ChiSquared{K: df + 2*float64(j)}.CDF(x)
			}
			return c
		}
	}
	ncf := func(d1, d2, nonc float64) func(float64) float64 {
		return func(x float64) float64 {
			if x <= 0 {
				return 0
			}
			y := d1 * x / (d1*x + d2)
			c := 0.0
			for j := range 40 {
				c += pois(nonc/2, j) * distuv.Beta{Alpha: d1/2 + float64(j), Beta: d2 / 2}.CDF(y)
			}
			return c
		}
	}
	vonmises := func(mu, kappa float64) func(float64) float64 {
		const m = 20000
		h := 2 * math.Pi / m
		cum := make([]float64, m+1)
		f := func(x float64) float64 { return math.Exp(kappa * (math.Cos(x-mu) - 1)) }
		for i := 1; i <= m; i++ {
			a := -math.Pi + float64(i-1)*h
			cum[i] = cum[i-1] + h/6*(f(a)+4*f(a+h/2)+f(a+h)) // Simpson per interval
		}
		return func(x float64) float64 {
			t := (x + math.Pi) / h
			i := int(math.Floor(t))
			switch {
			case i < 0:
				return 0
			case i >= m:
				return 1
			}
			return (cum[i] + (t-float64(i))*(cum[i+1]-cum[i])) / cum[m]
		}
	}
	tri := func(x float64) float64 {
		const a, c, b = 1.0, 2.0, 5.0
		switch {
		case x <= a:
			return 0
		case x <= c:
			return (x - a) * (x - a) / ((b - a) * (c - a))
		case x < b:
			return 1 - (b-x)*(b-x)/((b-a)*(b-c))
		}
		return 1
	}
	return []randDistCase{
		ks("wald(1.5,2)", func(r *RandomState, s []int, c any) *Array { return r.Wald(1.5, 2, s, c) }, wald, false),
		ks("zipf(2.5)", func(r *RandomState, s []int, c any) *Array { return r.Zipf(2.5, s, c) }, zipf, true),
		ks("logseries(0.6)", func(r *RandomState, s []int, c any) *Array { return r.Logseries(lp, s, c) }, logseries, true),
		costly(ks("noncentral_chisquare(3,2)", func(r *RandomState, s []int, c any) *Array { return r.NoncentralChisquare(3, 2, s, c) }, ncx2(3, 2), false)),
		costly(ks("noncentral_chisquare(0.5,1.5)", func(r *RandomState, s []int, c any) *Array { return r.NoncentralChisquare(0.5, 1.5, s, c) }, ncx2(0.5, 1.5), false)),
		costly(ks("noncentral_f(3,10,2)", func(r *RandomState, s []int, c any) *Array { return r.NoncentralF(3, 10, 2, s, c) }, ncf(3, 10, 2), false)),
		ks("hypergeometric(20,30,15)", func(r *RandomState, s []int, c any) *Array { return r.Hypergeometric(20, 30, 15, s, c) }, hyper(20, 30, 15), true),
		ks("hypergeometric(100,5,90)", func(r *RandomState, s []int, c any) *Array { return r.Hypergeometric(100, 5, 90, s, c) }, hyper(100, 5, 90), true),
		ks("vonmises(0.5,2)", func(r *RandomState, s []int, c any) *Array { return r.Vonmises(0.5, 2, s, c) }, vonmises(0.5, 2), false),
		ks("vonmises(3,0.3)", func(r *RandomState, s []int, c any) *Array { return r.Vonmises(3, 0.3, s, c) }, vonmises(3, 0.3), false),
		ks("vonmises(0,1e-9)", func(r *RandomState, s []int, c any) *Array { return r.Vonmises(0, 1e-9, s, c) },
			func(x float64) float64 { return max(0, min(1, (x+math.Pi)/(2*math.Pi))) }, false),
		ks("triangular(1,2,5)", func(r *RandomState, s []int, c any) *Array { return r.Triangular(1, 2, 5, s, c) }, tri, false),
		ks("random_integers(3,7)", func(r *RandomState, s []int, c any) *Array { return r.RandomIntegers(3, 7, s, c) },
			func(x float64) float64 { return max(0, min(1, (math.Floor(x)-2)/5)) }, true),
	}
}

func TestRandomMoreDistributions2(t *testing.T) {
	for i, dc := range randMoreCases2() {
		t.Run(dc.name, func(t *testing.T) {
			checkSamples(t, dc, uint64(200+i))
			var first *nd.Array
			for _, ch := range []any{-1, 4, [][]int{{18, 1}, {0, 5, 18}}} {
				got, err := dc.make(Random(41), []int{19, 23}, ch).Compute(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = got
				} else if d := randBitDiff(got, first); d != "" {
					t.Fatalf("chunks %v: %s", ch, d)
				}
			}
		})
	}
	r := Random(1)
	for name, x := range map[string]*Array{
		"wald": r.Wald(0, 1, []int{2}, 1), "zipf": r.Zipf(1, []int{2}, 1), "logseries": r.Logseries(1, []int{2}, 1),
		"ncx2": r.NoncentralChisquare(1, -1, []int{2}, 1), "ncf": r.NoncentralF(1, 0, 1, []int{2}, 1),
		"hyper": r.Hypergeometric(2, 2, 5, []int{2}, 1), "vonmises": r.Vonmises(0, -1, []int{2}, 1),
		"triangular": r.Triangular(2, 1, 3, []int{2}, 1), "random_integers": r.RandomIntegers(0, math.MaxInt64, []int{2}, 1),
	} {
		var e *Error
		if !errors.As(x.Err(), &e) {
			t.Errorf("%s: got %v, want a *chunkarray.Error", name, x.Err())
		}
	}
}
