package chunkarray

import (
	"context"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// A random array cast to float32 is generated in float32 directly (one
// layer, no float64 block) with the values of the float64 array cast.
func TestRandomAsTypeFloat32Fused(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *Array
	}{
		{"uniform", Random(7).Uniform(-2, 3, []int{13, 9}, []int{5, 4})},
		{"normal", Random(7).Normal(1, 2, []int{13, 9}, []int{5, 4})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.a.AsType(nd.Float32)
			if _, ok := f.lay.(*randomLayer); !ok {
				t.Fatalf("AsType(float32) layer is %T, want *randomLayer", f.lay)
			}
			if f.Name() == tc.a.Name() {
				t.Fatalf("fused array shares the name %s of the float64 array", f.Name())
			}
			ctx := context.Background()
			got, err := f.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			w, err := tc.a.Compute(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.AsType(nd.Float32)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType() != nd.Float32 {
				t.Fatalf("dtype %v, want float32", got.DType())
			}
			gv, _ := nd.Values[float32](got)
			wv, _ := nd.Values[float32](want)
			for i := range wv {
				if gv[i] != wv[i] {
					t.Fatalf("[%d] = %v, want %v", i, gv[i], wv[i])
				}
			}
			// Casting again keeps the fused array; float64 is a plain cast.
			if f.AsType(nd.Float32) != f {
				t.Error("AsType(float32) of a float32 array is not itself")
			}
		})
	}
	if _, ok := Random(1).Integers(0, 9, []int{4}, 2).AsType(nd.Float32).lay.(*randomLayer); ok {
		t.Error("integers cast to float32 fused; want a cast layer")
	}
}
