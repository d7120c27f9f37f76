package chunkarray

import (
	"context"
	"math"
	"testing"
)

// BenchmarkFillNormal measures the ziggurat alone on one 1024x1024 block
// of a larger array: ns per element and allocations.
func BenchmarkFillNormal(b *testing.B) {
	sh := []int{1024, 1024}
	n := sh[0] * sh[1]
	p := randomP{Seed: 3, Dist: distNormal, Shape: []int{4096, 1024}, A: math.Float64bits(0), B: math.Float64bits(1)}
	data := make([]float64, n)
	st := []int{1024, 0}
	b.ReportAllocs()
	b.SetBytes(int64(8 * n))
	for b.Loop() {
		if err := p.fill(data, 0, st, sh); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(n), "ns/elem")
}

// BenchmarkFillDist measures the other samplers on one 256x256 block.
func BenchmarkFillDist(b *testing.B) {
	sh := []int{256, 256}
	n := sh[0] * sh[1]
	for _, tc := range []struct {
		name string
		p    randomP
	}{
		{"exponential", randomP{Dist: distExponential, A: math.Float64bits(1)}},
		{"gamma3", randomP{Dist: distGamma, A: math.Float64bits(3), B: math.Float64bits(1)}},
		{"beta2_5", randomP{Dist: distBeta, A: math.Float64bits(2), B: math.Float64bits(5)}},
		{"binomial1000", randomP{Dist: distBinomial, A: 1000, B: math.Float64bits(0.4)}},
		{"poisson50", randomP{Dist: distPoisson, A: math.Float64bits(50)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p := tc.p
			p.Seed, p.Shape = 5, sh
			var data any = make([]float64, n)
			if intDist(p.Dist) {
				data = make([]int64, n)
			}
			st := []int{0, 0}
			b.ReportAllocs()
			for b.Loop() {
				if err := p.fill(data, 0, st, sh); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(n), "ns/elem")
		})
	}
}

// BenchmarkNormalMean is issue 13's figure: mean(0) of a 12000x12000
// normal array, chunks "auto", on the default scheduler: numpy's
// np.random.default_rng(0).normal(size=(12000, 12000)).mean(0) beside it.
func BenchmarkNormalMean(b *testing.B) {
	const n = 12000
	b.ReportAllocs()
	for b.Loop() {
		m, err := Random(0).Normal(0, 1, []int{n, n}, "auto").Mean(0).Compute(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if m.Size() != n {
			b.Fatal(m.Shape())
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/(n*n), "ns/elem")
}
