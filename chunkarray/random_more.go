package chunkarray

import (
	"math"

	"github.com/tessera-go/tessera/nd"
)

// More of numpy's distributions, each an elementwise expression of the
// samplers of random_dist.go (exponential, normal, gamma), so they stay
// chunk-independent and fuse with their neighbours: an expression that
// needs two independent variates takes the second from a stream of its
// own (sub). Each is a function of the seed, as every RandomState
// sampler is.

// sub returns the generator of stream k of r: independent of r's and of
// the other streams.
func (r *RandomState) sub(k uint64) *RandomState {
	return &RandomState{seed: mix(r.seed ^ (k+1)*0xa0761d6478bd642f)}
}

// nilState returns the error Array of a sampler called on a nil state.
func nilState(name string, shape []int) *Array {
	return errorf(name, [][]int{shape}, "nil RandomState: use Random(seed)")
}

func badParam(name string, shape []int, format string, args ...any) *Array {
	return errorf(name, [][]int{shape}, format, args...)
}

// StandardGamma is numpy's standard_gamma / da.random.standard_gamma: Gamma(k, 1).
func (r *RandomState) StandardGamma(k float64, shape []int, chunks any) *Array {
	return r.Gamma(k, 1, shape, chunks)
}

// Chisquare is numpy's chisquare / da.random.chisquare: Gamma(df/2, 2), df > 0.
func (r *RandomState) Chisquare(df float64, shape []int, chunks any) *Array {
	if !(df > 0) {
		return badParam("chisquare", shape, "df %v <= 0", df)
	}
	return r.Gamma(df/2, 2, shape, chunks)
}

// Lognormal is numpy's lognormal / da.random.lognormal: exp of
// Normal(mean, sigma).
func (r *RandomState) Lognormal(mean, sigma float64, shape []int, chunks any) *Array {
	return r.Normal(mean, sigma, shape, chunks).Exp()
}

// Laplace is numpy's laplace / da.random.laplace: loc + scale·(E1 - E2),
// E1 and E2 independent standard exponentials.
func (r *RandomState) Laplace(loc, scale float64, shape []int, chunks any) *Array {
	if r == nil {
		return nilState("laplace", shape)
	}
	if !(scale >= 0) {
		return badParam("laplace", shape, "scale %v < 0", scale)
	}
	d := r.Exponential(1, shape, chunks).Sub(r.sub(1).Exponential(1, shape, chunks))
	return d.Mul(scale).Add(loc)
}

// Logistic is numpy's logistic / da.random.logistic: loc + scale·(log E1
// - log E2), the difference of two independent standard Gumbel values.
func (r *RandomState) Logistic(loc, scale float64, shape []int, chunks any) *Array {
	if r == nil {
		return nilState("logistic", shape)
	}
	if !(scale >= 0) {
		return badParam("logistic", shape, "scale %v < 0", scale)
	}
	d := r.Exponential(1, shape, chunks).Log().Sub(r.sub(1).Exponential(1, shape, chunks).Log())
	return d.Mul(scale).Add(loc)
}

// Gumbel is numpy's gumbel / da.random.gumbel: loc - scale·log E.
func (r *RandomState) Gumbel(loc, scale float64, shape []int, chunks any) *Array {
	if !(scale >= 0) {
		return badParam("gumbel", shape, "scale %v < 0", scale)
	}
	return Sub(loc, r.Exponential(1, shape, chunks).Log().Mul(scale))
}

// Rayleigh is numpy's rayleigh / da.random.rayleigh: scale·sqrt(2E).
func (r *RandomState) Rayleigh(scale float64, shape []int, chunks any) *Array {
	if !(scale >= 0) {
		return badParam("rayleigh", shape, "scale %v < 0", scale)
	}
	return r.Exponential(2, shape, chunks).Sqrt().Mul(scale)
}

// Weibull is numpy's weibull / da.random.weibull: E^(1/a) (0 for a = 0).
func (r *RandomState) Weibull(a float64, shape []int, chunks any) *Array {
	if !(a >= 0) {
		return badParam("weibull", shape, "a %v < 0", a)
	}
	if a == 0 {
		return Zeros(shape, nd.Float64, chunks)
	}
	return r.Exponential(1, shape, chunks).Pow(1 / a)
}

// Pareto is numpy's pareto / da.random.pareto (the Lomax form, the
// classical Pareto minus 1): expm1(E/a), a > 0.
func (r *RandomState) Pareto(a float64, shape []int, chunks any) *Array {
	if !(a > 0) {
		return badParam("pareto", shape, "a %v <= 0", a)
	}
	return Expm1(r.Exponential(1/a, shape, chunks))
}

// Power is numpy's power / da.random.power: U^(1/a) for U uniform,
// computed as (-expm1(-E))^(1/a), a > 0.
func (r *RandomState) Power(a float64, shape []int, chunks any) *Array {
	if !(a > 0) {
		return badParam("power", shape, "a %v <= 0", a)
	}
	return Expm1(r.Exponential(1, shape, chunks).Neg()).Neg().Pow(1 / a)
}

// StandardCauchy is numpy's standard_cauchy / da.random.standard_cauchy:
// the ratio of two independent standard normal values.
func (r *RandomState) StandardCauchy(shape []int, chunks any) *Array {
	if r == nil {
		return nilState("standard_cauchy", shape)
	}
	return r.Normal(0, 1, shape, chunks).Div(r.sub(1).Normal(0, 1, shape, chunks))
}

// StandardT is numpy's standard_t / da.random.standard_t: N /
// sqrt(χ²(df)/df), df > 0.
func (r *RandomState) StandardT(df float64, shape []int, chunks any) *Array {
	if r == nil {
		return nilState("standard_t", shape)
	}
	if !(df > 0) {
		return badParam("standard_t", shape, "df %v <= 0", df)
	}
	return r.Normal(0, 1, shape, chunks).Div(r.sub(1).Gamma(df/2, 2/df, shape, chunks).Sqrt())
}

// F is numpy's f / da.random.f: (χ²(dfnum)/dfnum) / (χ²(dfden)/dfden).
func (r *RandomState) F(dfnum, dfden float64, shape []int, chunks any) *Array {
	if r == nil {
		return nilState("f", shape)
	}
	if !(dfnum > 0) || !(dfden > 0) {
		return badParam("f", shape, "dfnum %v, dfden %v: both must be > 0", dfnum, dfden)
	}
	return r.Gamma(dfnum/2, 2/dfnum, shape, chunks).Div(r.sub(1).Gamma(dfden/2, 2/dfden, shape, chunks))
}

// Geometric is numpy's geometric / da.random.geometric: int64 numbers of
// trials to the first success of probability p (0 < p <= 1), by
// inversion: ceil(E / -log1p(-p)), at least 1.
func (r *RandomState) Geometric(p float64, shape []int, chunks any) *Array {
	if !(p > 0 && p <= 1) {
		return badParam("geometric", shape, "p %v: want 0 < p <= 1", p)
	}
	if p == 1 {
		return Ones(shape, nd.Int64, chunks)
	}
	return Fmax(Ceil(r.Exponential(-1/math.Log1p(-p), shape, chunks)), 1).AsType(nd.Int64)
}

// NegativeBinomial is numpy's negative_binomial /
// da.random.negative_binomial: int64 numbers of failures before n
// successes of probability p (n > 0, 0 < p <= 1), as numpy draws them: a
// Poisson count of a Gamma(n, (1-p)/p) mean.
func (r *RandomState) NegativeBinomial(n, p float64, shape []int, chunks any) *Array {
	if !(n > 0) || math.IsInf(n, 0) || !(p > 0 && p <= 1) {
		return badParam("negative_binomial", shape, "n %v, p %v: want n > 0 and 0 < p <= 1", n, p)
	}
	return r.make("negative_binomial", randomP{Dist: distNegBinomial, A: math.Float64bits(n), B: math.Float64bits(p)}, shape, nd.Int64, chunks)
}

// moreValue is distValue for the samplers below: element e's value from
// its stream s, parameters a and b.
func moreValue(dist int, s *elemStream, a, b uint64) float64 {
	fa, fb := math.Float64frombits(a), math.Float64frombits(b)
	switch dist {
	case distWald:
		return waldFrom(fa, fb, s)
	case distZipf:
		return float64(zipfFrom(fa, s))
	case distLogseries:
		return float64(logseriesFrom(fa, s))
	case distNoncentralChisquare:
		return noncentralChisquareFrom(fa, fb, s)
	case distHypergeometric:
		return float64(hypergeometricFrom(int64(a>>32), int64(a&(1<<32-1)), int64(b), s))
	case distVonmises:
		return vonmisesFrom(fa, fb, s)
	}
	return math.NaN()
}

func normalFrom(s *elemStream) float64 {
	u := s.next()
	if x, ok := zigFast(u); ok {
		return x
	}
	return zigSlow(u, s)
}

// waldFrom is the inverse Gaussian of mean m and scale l (Michael,
// Schucany and Haas: a root of the chi-square transform, chosen by a
// uniform).
func waldFrom(m, l float64, s *elemStream) float64 {
	y := normalFrom(s)
	y = m * y * y
	d := 1 + y/(2*l) - math.Sqrt(4*l*y+y*y)/(2*l)
	x := m * d
	if s.unit() <= 1/(1+d) {
		return x
	}
	return m * m / x
}

// zipfFrom is the Zipf law of exponent a > 1 (Devroye's rejection).
func zipfFrom(a float64, s *elemStream) int64 {
	am1 := a - 1
	b := math.Pow(2, am1)
	for {
		u := s.open()
		v := s.unit()
		x := math.Floor(math.Pow(u, -1/am1))
		if x > math.MaxInt64 || x < 1 {
			continue
		}
		t := math.Pow(1+1/x, am1)
		if v*x*(t-1)/(b-1) <= t/b {
			return int64(x)
		}
	}
}

// logseriesFrom is the logarithmic series of parameter 0 < p < 1 (Kemp's
// second algorithm).
func logseriesFrom(p float64, s *elemStream) int64 {
	r := math.Log1p(-p)
	for {
		v := s.unit()
		if v >= p {
			return 1
		}
		q := -math.Expm1(r * s.unit())
		if v <= q*q {
			k := math.Floor(1 + math.Log(v)/math.Log(q))
			if k < 1 || v == 0 {
				continue
			}
			return int64(k)
		}
		if v >= q {
			return 1
		}
		return 2
	}
}

// noncentralChisquareFrom: χ²(df-1) + (N + √nonc)² for df > 1, else a
// Poisson mixture χ²(df + 2·Poisson(nonc/2)).
func noncentralChisquareFrom(df, nonc float64, s *elemStream) float64 {
	if nonc == 0 {
		return 2 * gammaFrom(df/2, s)
	}
	if df > 1 {
		c := 2 * gammaFrom((df-1)/2, s)
		n := normalFrom(s) + math.Sqrt(nonc)
		return c + n*n
	}
	i := poissonFrom(nonc/2, s)
	return 2 * gammaFrom(df/2+float64(i), s)
}

// hypergeometricFrom counts the good items among nsample drawn without
// replacement from good and bad ones, one draw at a time (from the
// smaller of the sample and its complement).
func hypergeometricFrom(good, bad, nsample int64, s *elemStream) int64 {
	total := good + bad
	m := min(nsample, total-nsample)
	g, t := good, total
	k := int64(0)
	for range m {
		if s.unit()*float64(t) < float64(g) {
			g--
			k++
		}
		t--
	}
	if m == nsample {
		return k
	}
	return good - k
}

// vonmisesFrom is the von Mises distribution of mode mu and concentration
// kappa on [-π, π) (Best and Fisher's rejection; uniform for kappa <
// 1e-8, a wrapped normal beyond 1e6).
func vonmisesFrom(mu, kappa float64, s *elemStream) float64 {
	if kappa < 1e-8 {
		return math.Pi * (2*s.unit() - 1)
	}
	var w float64
	if kappa > 1e6 {
		w = mu + math.Sqrt(1/kappa)*normalFrom(s)
		return wrapAngle(w)
	}
	var sv float64
	if kappa < 1e-5 {
		sv = 1/kappa + kappa
	} else {
		r := 1 + math.Sqrt(1+4*kappa*kappa)
		rho := (r - math.Sqrt(2*r)) / (2 * kappa)
		sv = (1 + rho*rho) / (2 * rho)
	}
	for {
		z := math.Cos(math.Pi * s.unit())
		w = (1 + sv*z) / (sv + z)
		y := kappa * (sv - w)
		v := s.open()
		if y*(2-y)-v >= 0 || math.Log(y/v)+1-y >= 0 {
			break
		}
	}
	x := math.Acos(max(-1, min(1, w)))
	if s.unit() < 0.5 {
		x = -x
	}
	return wrapAngle(x + mu)
}

// wrapAngle maps x onto [-π, π) as numpy's vonmises does.
func wrapAngle(x float64) float64 {
	neg := x < 0
	m := math.Mod(math.Abs(x)+math.Pi, 2*math.Pi) - math.Pi
	if neg {
		m = -m
	}
	return m
}

// Wald is numpy's wald / da.random.wald: the inverse Gaussian of the
// given mean and scale (both > 0).
func (r *RandomState) Wald(mean, scale float64, shape []int, chunks any) *Array {
	if !(mean > 0) || !(scale > 0) || math.IsInf(mean, 0) || math.IsInf(scale, 0) {
		return badParam("wald", shape, "mean %v, scale %v: both must be > 0", mean, scale)
	}
	return r.make("wald", randomP{Dist: distWald, A: math.Float64bits(mean), B: math.Float64bits(scale)}, shape, nd.Float64, chunks)
}

// Zipf is numpy's zipf / da.random.zipf: int64 values k >= 1 of
// probability k^-a/ζ(a), a > 1.
func (r *RandomState) Zipf(a float64, shape []int, chunks any) *Array {
	if !(a > 1) || math.IsInf(a, 0) {
		return badParam("zipf", shape, "a %v: want a > 1", a)
	}
	return r.make("zipf", randomP{Dist: distZipf, A: math.Float64bits(a)}, shape, nd.Int64, chunks)
}

// Logseries is numpy's logseries / da.random.logseries: int64 values k >=
// 1 of probability -p^k/(k·log(1-p)), 0 < p < 1.
func (r *RandomState) Logseries(p float64, shape []int, chunks any) *Array {
	if !(p > 0 && p < 1) {
		return badParam("logseries", shape, "p %v: want 0 < p < 1", p)
	}
	return r.make("logseries", randomP{Dist: distLogseries, A: math.Float64bits(p)}, shape, nd.Int64, chunks)
}

// NoncentralChisquare is numpy's noncentral_chisquare /
// da.random.noncentral_chisquare: df > 0, nonc >= 0.
func (r *RandomState) NoncentralChisquare(df, nonc float64, shape []int, chunks any) *Array {
	if !(df > 0) || !(nonc >= 0) || math.IsInf(df, 0) || math.IsInf(nonc, 0) {
		return badParam("noncentral_chisquare", shape, "df %v, nonc %v: want df > 0 and nonc >= 0", df, nonc)
	}
	return r.make("noncentral_chisquare", randomP{Dist: distNoncentralChisquare, A: math.Float64bits(df), B: math.Float64bits(nonc)}, shape, nd.Float64, chunks)
}

// NoncentralF is numpy's noncentral_f / da.random.noncentral_f:
// (χ²(dfnum, nonc)/dfnum) / (χ²(dfden)/dfden).
func (r *RandomState) NoncentralF(dfnum, dfden, nonc float64, shape []int, chunks any) *Array {
	if r == nil {
		return nilState("noncentral_f", shape)
	}
	if !(dfden > 0) {
		return badParam("noncentral_f", shape, "dfden %v <= 0", dfden)
	}
	return r.NoncentralChisquare(dfnum, nonc, shape, chunks).Div(dfnum).Div(r.sub(1).Gamma(dfden/2, 2/dfden, shape, chunks))
}

// Hypergeometric is numpy's hypergeometric / da.random.hypergeometric:
// int64 counts of good items in nsample drawn without replacement from
// ngood good and nbad bad ones (each below 2^31; nsample <= ngood +
// nbad). A draw costs min(nsample, ngood+nbad-nsample) uniforms.
func (r *RandomState) Hypergeometric(ngood, nbad, nsample int64, shape []int, chunks any) *Array {
	if ngood < 0 || nbad < 0 || nsample < 0 || ngood >= 1<<31 || nbad >= 1<<31 || nsample > ngood+nbad {
		return badParam("hypergeometric", shape, "ngood %d, nbad %d, nsample %d: want non-negative counts below 2^31 and nsample <= ngood + nbad", ngood, nbad, nsample)
	}
	return r.make("hypergeometric", randomP{Dist: distHypergeometric, A: uint64(ngood)<<32 | uint64(nbad), B: uint64(nsample)}, shape, nd.Int64, chunks)
}

// Vonmises is numpy's vonmises / da.random.vonmises: angles in [-π, π)
// of the von Mises distribution of mode mu and concentration kappa >= 0.
func (r *RandomState) Vonmises(mu, kappa float64, shape []int, chunks any) *Array {
	if !(kappa >= 0) || math.IsInf(kappa, 0) || math.IsNaN(mu) || math.IsInf(mu, 0) {
		return badParam("vonmises", shape, "mu %v, kappa %v: want finite mu and kappa >= 0", mu, kappa)
	}
	return r.make("vonmises", randomP{Dist: distVonmises, A: math.Float64bits(mu), B: math.Float64bits(kappa)}, shape, nd.Float64, chunks)
}

// Triangular is numpy's triangular / da.random.triangular: left <= mode
// <= right, left < right; by inversion of a uniform U (which the
// expression reads three times, so it is computed as blocks of its own).
func (r *RandomState) Triangular(left, mode, right float64, shape []int, chunks any) *Array {
	if !(left <= mode && mode <= right && left < right) {
		return badParam("triangular", shape, "left %v, mode %v, right %v: want left <= mode <= right and left < right", left, mode, right)
	}
	u := r.Uniform(0, 1, shape, chunks)
	base := right - left
	fc := (mode - left) / base
	lo := u.Mul(base * (mode - left)).Sqrt().Add(left)
	hi := Sub(right, Sub(1, u).Mul(base*(right-mode)).Sqrt())
	return Where(u.LessEqual(fc), lo, hi)
}

// RandomIntegers is the deprecated numpy random_integers /
// da.random.random_integers: int64 values in [low, high], both included.
func (r *RandomState) RandomIntegers(low, high int64, shape []int, chunks any) *Array {
	if high == math.MaxInt64 {
		return badParam("random_integers", shape, "high %d: the range does not fit int64", high)
	}
	return r.Integers(low, high+1, shape, chunks)
}
