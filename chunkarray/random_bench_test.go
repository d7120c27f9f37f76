package chunkarray

import (
	"math"
	"testing"
)

// BenchmarkFillUniform measures the generator alone on one 64x128x128
// block (as the udf bench's blocks), in float32 and float64.
func BenchmarkFillUniform(b *testing.B) {
	sh := []int{64, 128, 128}
	whole := []int{4096, 128, 128}
	n := sh[0] * sh[1] * sh[2]
	for _, tc := range []struct {
		name string
		f32  bool
	}{{"float32", true}, {"float64", false}} {
		b.Run(tc.name, func(b *testing.B) {
			p := randomP{Seed: 3, Dist: distUniform, Shape: whole, A: math.Float64bits(0), B: math.Float64bits(1), F32: tc.f32}
			var data any
			size := 8
			if tc.f32 {
				data, size = make([]float32, n), 4
			} else {
				data = make([]float64, n)
			}
			st := []int{64, 0, 0}
			b.ReportAllocs()
			b.SetBytes(int64(n * size))
			for b.Loop() {
				if err := p.fill(data, 0, st, sh); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
		})
	}
}
