package udfbridge

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// The four-frame fast path of SumUDF's per-tile sum gives nd.Reduce's
// bits for every frame count, float and complex dtypes, a view at an
// offset, and falls back for integers and strided tiles.
func TestSumFramesScratchBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var scratch scratch
	for _, dt := range []nd.DType{nd.Float32, nd.Float64, nd.Complex64, nd.Complex128, nd.Uint16, nd.Int64} {
		for rows := 0; rows <= 9; rows++ {
			vals := make([]float64, (rows+1)*3*5)
			for i := range vals {
				vals[i] = (r.Float64() - 0.5) * 1e6
			}
			base, _ := nd.FromSlice(vals, rows+1, 3, 5)
			b, _ := base.AsType(dt)
			tile, _ := b.Slice(nd.Slice1{Start: 1, Stop: rows + 1, Step: 1}) // offset view
			tr, _ := tile.Transpose(0, 2, 1)
			for _, x := range []*nd.Array{tile, tr} {
				want, err := nd.Reduce(nd.Sum, x, []int{0}, false)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sumFramesScratch(&scratch, x)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.Shape(), want.Shape()) || !slices.Equal(got.Contiguous().AppendBytes(nil, false), want.AppendBytes(nil, false)) {
					t.Fatalf("%v rows %d: got %v want %v", dt, rows, got, want)
				}
			}
		}
	}
}
