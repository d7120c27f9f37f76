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
