package chunkarray

import (
	"fmt"
	"math"

	"github.com/tessera-go/tessera/nd"
)

// The random samplers beyond uniform and integers: normal (a ziggurat),
// exponential, gamma, beta, binomial and Poisson, each element a pure
// function of the seed and its flat index, so that an array's values do
// not depend on its chunking (see RandomState). An element's first 64
// random bits are splitmix64's output at its index, as for Uniform; the
// elements that need more (a ziggurat rejection, the loops of gamma,
// binomial and Poisson) draw them from a stream of their own, splitmix64
// started at a second hash of the seed and the index. The streams are
// numpy's distributions but not numpy's bits: the values differ from
// numpy's for the same seed, the distributions do not.

const (
	distExponential = iota + 16
	distGamma
	distBeta
	distBinomial
	distPoisson
	distNegBinomial
	distWald
	distZipf
	distLogseries
	distNoncentralChisquare
	distHypergeometric
	distVonmises
)

// The keys mixed into the seed per distribution and for the elements'
// second streams, so that Normal(seed) and Uniform(seed) are not
// functions of the same bits.
const (
	keyNormal = 0x5deece66d
	keyExp    = 0x2545f4914f6cdd1d
	keyGamma  = 0x61c8864680b583eb
	keyBeta   = 0x3c6ef372fe94f82b
	keyBinom  = 0x7f4a7c159e3779b9
	keyPois   = 0x1b873593cc9e2d51
	keyNegBin = 0xe7037ed1a0b428db
	keyStream = 0xd6e8feb86659fd93
)

// elemStream is the second random stream of one element: splitmix64 from a
// hash of the element's seed and index.
type elemStream struct{ z uint64 }

func newElemStream(seed, e uint64) elemStream {
	return elemStream{z: mix(seed ^ keyStream + (e+1)*smGamma)}
}

func (s *elemStream) next() uint64 {
	s.z += smGamma
	return mix(s.z)
}

// unit returns a float64 in [0, 1).
func (s *elemStream) unit() float64 { return unit(s.next()) }

// open returns a float64 in (0, 1].
func (s *elemStream) open() float64 { return 1 - unit(s.next()) }

// The ziggurat of the standard normal density f(x) = exp(-x²/2):
// zigN strips of equal area zigV, the base strip with the tail beyond
// zigR (Marsaglia and Tsang's 256-strip constants). zigX[i] is the right
// edge of strip i (zigX[0] the base strip's width v/f(r), zigX[1] = r,
// zigX[zigN] = 0); a 64-bit draw picks the strip (8 bits), the sign (1)
// and a 53-bit position j; x = j·zigS[i] lies under the curve, with no
// test of the density, when j < zigK[i] (x < zigX[i+1]): 99% of draws.
const (
	zigN = 256
	zigR = 3.6541528853610088
	zigV = 0.00492867323399
)

var (
	zigX [zigN + 1]float64
	zigF [zigN + 1]float64 // f(zigX[i])
	zigS [zigN]float64     // zigX[i]·2^-53
	zigK [zigN]uint64      // the accept threshold of strip i
)

func init() {
	f := func(x float64) float64 { return math.Exp(-0.5 * x * x) }
	zigX[0] = zigV / f(zigR)
	zigX[1] = zigR
	for i := 1; i < zigN-1; i++ {
		zigX[i+1] = math.Sqrt(-2 * math.Log(zigV/zigX[i]+f(zigX[i])))
	}
	zigX[zigN] = 0
	for i := range zigX {
		zigF[i] = f(zigX[i])
	}
	for i := range zigN {
		zigS[i] = zigX[i] * (1.0 / (1 << 53))
		zigK[i] = uint64(zigX[i+1] / zigX[i] * (1 << 53))
	}
}

// zigFast is the ziggurat's common case on 64 random bits u: the signed
// value and true, or false when the draw needs zigSlow.
func zigFast(u uint64) (float64, bool) {
	i := u & (zigN - 1)
	j := u >> 11
	if j >= zigK[i] {
		return 0, false
	}
	x := float64(int64(j)) * zigS[i]
	if u&zigN != 0 {
		x = -x
	}
	return x, true
}

// zigSlow finishes a draw u that zigFast refused (the tail or a wedge),
// drawing again from s as long as the ziggurat rejects.
func zigSlow(u uint64, s *elemStream) float64 {
	for {
		i := u & (zigN - 1)
		j := u >> 11
		x := float64(int64(j)) * zigS[i]
		neg := u&zigN != 0
		if j < zigK[i] {
			if neg {
				return -x
			}
			return x
		}
		if i == 0 {
			// The tail beyond r: Marsaglia's exponential rejection.
			for {
				a := -math.Log(s.open()) / zigR
				b := -math.Log(s.open())
				if b+b >= a*a {
					x = zigR + a
					break
				}
			}
			if neg {
				return -x
			}
			return x
		}
		// The wedge of strip i, between f(x[i]) and f(x[i+1]).
		y := zigF[i] + s.unit()*(zigF[i+1]-zigF[i])
		if y < math.Exp(-0.5*x*x) {
			if neg {
				return -x
			}
			return x
		}
		u = s.next()
	}
}

// stdNormal is the standard normal value of element e (seed already
// keyed): the scalar path of fillNormal, which the tests hold it to.
func stdNormal(seed, e uint64) float64 {
	u := mix(seed + (e+1)*smGamma)
	if x, ok := zigFast(u); ok {
		return x
	}
	s := newElemStream(seed, e)
	return zigSlow(u, &s)
}

// fillNormal writes mu + sd·z for the region (sh at global flat offset
// base, global strides gstr) into out in C order, z the ziggurat's
// standard normal value of each element.
func fillNormal[T float32 | float64](out []T, seed uint64, mu, sd float64, sh, gstr []int, base int) {
	seed ^= keyNormal
	var b1, b2 [16]int
	sh, gstr = collapseRuns(sh, gstr, b1[:0], b2[:0])
	k := 0
	nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
		normalRun(out[k:k+m:k+m], seed, uint64(g), mu, sd)
		k += m
	})
}

// normalRun writes the values of the elements e0, e0+1, ... into o.
// mu + sd*x is rounded twice (the conversion keeps the compiler from
// fusing it), as the vector kernel rounds it.
func normalRun[T float32 | float64](o []T, seed, e0 uint64, mu, sd float64) {
	if d := normalSIMD(o, seed, e0, mu, sd); d > 0 {
		o = o[d:]
		e0 += uint64(d)
	}
	z := seed + (e0+1)*smGamma
	for j := range o {
		u := mix(z)
		z += smGamma
		i := u & (zigN - 1)
		jj := u >> 11
		// the sign from bit 8, without a branch (it is a coin flip)
		x := math.Float64frombits(math.Float64bits(float64(int64(jj))*zigS[i]) ^ (u<<55)&(1<<63))
		if jj >= zigK[i] {
			s := newElemStream(seed, e0+uint64(j))
			x = zigSlow(u, &s)
		}
		o[j] = T(mu + float64(sd*x))
	}
}

// stdExponential is the standard exponential value of element e:
// -log(1-U) of its first draw.
func stdExponential(seed, e uint64) float64 {
	return -math.Log(1 - unit(mix(seed+(e+1)*smGamma)))
}

// gammaFrom draws a Gamma(shape, 1) value from s: Marsaglia and Tsang's
// method for shape >= 1, boosted by U^(1/shape) below 1.
func gammaFrom(shape float64, s *elemStream) float64 {
	switch {
	case shape == 0:
		return 0
	case shape == 1:
		return -math.Log(s.open())
	case shape < 1:
		g := gammaFrom(shape+1, s)
		return g * math.Pow(s.open(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			u := s.next()
			var ok bool
			if x, ok = zigFast(u); !ok {
				x = zigSlow(u, s)
			}
			v = 1 + c*x
			if v > 0 {
				break
			}
		}
		v = v * v * v
		u := s.open()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// betaFrom draws a Beta(a, b) value from s: Jöhnk's method when both are
// at most 1 (in logarithms when the powers underflow), else the ratio
// of two gamma values.
func betaFrom(a, b float64, s *elemStream) float64 {
	if a <= 1 && b <= 1 {
		for {
			u, v := s.open(), s.open()
			x, y := math.Pow(u, 1/a), math.Pow(v, 1/b)
			if x+y <= 1 {
				if x+y > 0 {
					return x / (x + y)
				}
				lx, ly := math.Log(u)/a, math.Log(v)/b
				m := max(lx, ly)
				lx -= m
				ly -= m
				return math.Exp(lx - math.Log(math.Exp(lx)+math.Exp(ly)))
			}
		}
	}
	x := gammaFrom(a, s)
	y := gammaFrom(b, s)
	return x / (x + y)
}

// binomialFrom draws a Binomial(n, p) count from s: inversion (a
// sequential search from 0) when n·min(p, 1-p) < 10, else Hörmann's
// BTRS transformed rejection.
func binomialFrom(n int64, p float64, s *elemStream) int64 {
	if n == 0 || p == 0 {
		return 0
	}
	if p == 1 {
		return n
	}
	if p > 0.5 {
		return n - binomialFrom(n, 1-p, s)
	}
	q := 1 - p
	nf := float64(n)
	if nf*p < 10 {
		r := p / q
		a := (nf + 1) * r
		f0 := math.Pow(q, nf)
		for {
			u := s.unit()
			f := f0
			for k := int64(0); k <= n; k++ {
				if u < f {
					return k
				}
				u -= f
				f *= a/float64(k+1) - r
			}
			// rounding left u beyond the total mass: draw again
		}
	}
	spq := math.Sqrt(nf * p * q)
	b := 1.15 + 2.53*spq
	a := -0.0873 + 0.0248*b + 0.01*p
	c := nf*p + 0.5
	vr := 0.92 - 4.2/b
	alpha := (2.83 + 5.1/b) * spq
	lpq := math.Log(p / q)
	m := math.Floor((nf + 1) * p)
	lgm, _ := math.Lgamma(m + 1)
	lgnm, _ := math.Lgamma(nf - m + 1)
	h := lgm + lgnm
	for {
		u := s.unit() - 0.5
		v := s.unit()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + c)
		if k < 0 || k > nf {
			continue
		}
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		lk, _ := math.Lgamma(k + 1)
		lnk, _ := math.Lgamma(nf - k + 1)
		if math.Log(v*alpha/(a/(us*us)+b)) <= h-lk-lnk+(k-m)*lpq {
			return int64(k)
		}
	}
}

// poissonFrom draws a Poisson(lam) count from s: inversion (a sequential
// search from 0) below lam 10, else Hörmann's PTRS transformed rejection.
func poissonFrom(lam float64, s *elemStream) int64 {
	if lam == 0 {
		return 0
	}
	if lam < 10 {
		p0 := math.Exp(-lam)
		for {
			u := s.unit()
			p := p0
			for k := int64(0); k < 1000; k++ {
				if u < p {
					return k
				}
				u -= p
				p *= lam / float64(k+1)
			}
		}
	}
	slam := math.Sqrt(lam)
	loglam := math.Log(lam)
	b := 0.931 + 2.53*slam
	a := -0.059 + 0.02483*b
	invalpha := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := s.unit() - 0.5
		v := s.unit()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lam + 0.43)
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(invalpha)-math.Log(a/(us*us)+b) <= -lam+k*loglam-lg {
			return int64(k)
		}
	}
}

// distValue is the value of element e of distribution dist with
// parameters a and b (p.A, p.B), seed already keyed: the scalar path of
// fillDist.
func distValue(dist int, seed, e, a, b uint64) float64 {
	switch dist {
	case distExponential:
		return math.Float64frombits(a) * stdExponential(seed, e)
	}
	s := newElemStream(seed, e)
	switch dist {
	case distGamma:
		return math.Float64frombits(b) * gammaFrom(math.Float64frombits(a), &s)
	case distBeta:
		return betaFrom(math.Float64frombits(a), math.Float64frombits(b), &s)
	case distBinomial:
		return float64(binomialFrom(int64(a), math.Float64frombits(b), &s))
	case distPoisson:
		return float64(poissonFrom(math.Float64frombits(a), &s))
	case distNegBinomial:
		n, p := math.Float64frombits(a), math.Float64frombits(b)
		if p == 1 {
			return 0
		}
		return float64(poissonFrom(gammaFrom(n, &s)*(1-p)/p, &s))
	}
	return moreValue(dist, &s, a, b) // random_more.go
}

func distKey(dist int) uint64 {
	switch dist {
	case distExponential:
		return keyExp
	case distGamma:
		return keyGamma
	case distBeta:
		return keyBeta
	case distBinomial:
		return keyBinom
	case distNegBinomial:
		return keyNegBin
	case distPoisson:
		return keyPois
	}
	return keyPois ^ uint64(dist)*smMul1
}

func intDist(dist int) bool {
	switch dist {
	case distBinomial, distPoisson, distNegBinomial, distZipf, distLogseries, distHypergeometric:
		return true
	}
	return false
}

// distLabel is the numpy.random function name of dist (randomP.Label).
func distLabel(dist int) string {
	switch dist {
	case distExponential:
		return "exponential"
	case distGamma:
		return "gamma"
	case distBeta:
		return "beta"
	case distBinomial:
		return "binomial"
	case distPoisson:
		return "poisson"
	case distNegBinomial:
		return "negative_binomial"
	case distWald:
		return "wald"
	case distZipf:
		return "zipf"
	case distLogseries:
		return "logseries"
	case distNoncentralChisquare:
		return "noncentral_chisquare"
	case distHypergeometric:
		return "hypergeometric"
	case distVonmises:
		return "vonmises"
	}
	return ""
}

// fillDist is randomP.fill for the distributions of this file.
func (p *randomP) fillDist(data any, off, n int, sh, gstr []int, base int) error {
	seed := p.Seed ^ distKey(p.Dist)
	var b1, b2 [16]int
	sh, gstr = collapseRuns(sh, gstr, b1[:0], b2[:0])
	switch p.Dist {
	case distExponential, distGamma, distBeta, distWald, distNoncentralChisquare, distVonmises:
		out, ok := data.([]float64)
		if !ok || off+n > len(out) {
			return fmt.Errorf("%s: distribution %d into %T", opRandom, p.Dist, data)
		}
		k := off
		nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
			o := out[k : k+m]
			for j := range o {
				o[j] = distValue(p.Dist, seed, uint64(g+j), p.A, p.B)
			}
			k += m
		})
	case distBinomial, distPoisson, distNegBinomial, distZipf, distLogseries, distHypergeometric:
		out, ok := data.([]int64)
		if !ok || off+n > len(out) {
			return fmt.Errorf("%s: distribution %d into %T", opRandom, p.Dist, data)
		}
		k := off
		nd.ForEachOffset(sh, gstr, base, func(g, m, _ int) {
			o := out[k : k+m]
			for j := range o {
				o[j] = int64(distValue(p.Dist, seed, uint64(g+j), p.A, p.B))
			}
			k += m
		})
	default:
		return fmt.Errorf("%s: unknown distribution %d", opRandom, p.Dist)
	}
	return nil
}

// StandardNormal is numpy's Generator.standard_normal /
// da.random.standard_normal: Normal(0, 1).
func (r *RandomState) StandardNormal(shape []int, chunks any) *Array {
	return r.Normal(0, 1, shape, chunks)
}

// Exponential is numpy's Generator.exponential / da.random.exponential:
// float64 values of density exp(-x/scale)/scale.
func (r *RandomState) Exponential(scale float64, shape []int, chunks any) *Array {
	if !(scale >= 0) {
		return errorf("exponential", [][]int{shape}, "scale %v < 0", scale)
	}
	return r.make("exponential", randomP{Dist: distExponential, A: math.Float64bits(scale)}, shape, nd.Float64, chunks)
}

// StandardExponential is numpy's standard_exponential: Exponential(1).
func (r *RandomState) StandardExponential(shape []int, chunks any) *Array {
	return r.Exponential(1, shape, chunks)
}

// Gamma is numpy's Generator.gamma / da.random.gamma: float64 values of
// the gamma distribution of the shape k and scale θ (mean kθ).
func (r *RandomState) Gamma(shape, scale float64, size []int, chunks any) *Array {
	if !(shape >= 0) || !(scale >= 0) || math.IsInf(shape, 0) {
		return errorf("gamma", [][]int{size}, "shape %v, scale %v: both must be >= 0 and finite", shape, scale)
	}
	return r.make("gamma", randomP{Dist: distGamma, A: math.Float64bits(shape), B: math.Float64bits(scale)}, size, nd.Float64, chunks)
}

// Beta is numpy's Generator.beta / da.random.beta: float64 values of the
// beta distribution with a, b > 0.
func (r *RandomState) Beta(a, b float64, shape []int, chunks any) *Array {
	if !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return errorf("beta", [][]int{shape}, "a %v, b %v: both must be > 0 and finite", a, b)
	}
	return r.make("beta", randomP{Dist: distBeta, A: math.Float64bits(a), B: math.Float64bits(b)}, shape, nd.Float64, chunks)
}

// Binomial is numpy's Generator.binomial / da.random.binomial: int64
// counts of successes in n trials of probability p.
func (r *RandomState) Binomial(n int64, p float64, shape []int, chunks any) *Array {
	if n < 0 || !(p >= 0 && p <= 1) {
		return errorf("binomial", [][]int{shape}, "n %d, p %v: want n >= 0 and 0 <= p <= 1", n, p)
	}
	return r.make("binomial", randomP{Dist: distBinomial, A: uint64(n), B: math.Float64bits(p)}, shape, nd.Int64, chunks)
}

// poissonLamMax is numpy's largest Poisson mean.
const poissonLamMax = float64(math.MaxInt64) - 10*3037000499.97605

// Poisson is numpy's Generator.poisson / da.random.poisson: int64 counts
// of mean lam.
func (r *RandomState) Poisson(lam float64, shape []int, chunks any) *Array {
	if !(lam >= 0) || lam >= poissonLamMax {
		return errorf("poisson", [][]int{shape}, "lam %v: want 0 <= lam < %g", lam, poissonLamMax)
	}
	return r.make("poisson", randomP{Dist: distPoisson, A: math.Float64bits(lam)}, shape, nd.Int64, chunks)
}
