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
