package nd

import (
	"errors"
	"testing"
)

// Every entry point that takes arrays answers a nil or zero-value one with
// an *InvalidArrayError, never a panic.
func TestInvalidArrays(t *testing.T) {
	x, _ := FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	for _, bad := range []struct {
		name string
		a    *Array
	}{{"nil", nil}, {"zero", &Array{}}} {
		a := bad.a
		for _, c := range []struct {
			name string
			fn   func() error
		}{
			{"Reduce", func() error { _, err := Reduce(Sum, a, nil, false); return err }},
			{"VarStd", func() error { _, err := VarStd(a, nil, false, 0, true); return err }},
			{"ArgReduce", func() error { _, err := ArgReduce(ArgMax, a, 0, true); return err }},
			{"Moments", func() error { _, _, _, err := Moments(a, nil); return err }},
			{"ArgChunk", func() error { _, _, err := ArgChunk(ArgMin, a, 0, 0); return err }},
			{"ArgChunkFlat", func() error { _, _, err := ArgChunkFlat(ArgMin, a, nil, nil); return err }},
			{"Matmul", func() error { _, err := Matmul(a, x); return err }},
			{"Dot", func() error { _, err := Dot(x, a); return err }},
			{"Tensordot", func() error { _, err := Tensordot(a, x, nil, nil); return err }},
			{"Binary", func() error { _, err := Binary(Add, x, a); return err }},
			{"Unary", func() error { _, err := Unary(Sqrt, a); return err }},
			{"Where", func() error { _, err := Where(a, x, x); return err }},
			{"AsType", func() error { _, err := a.AsType(Int8); return err }},
			{"Reshape", func() error { _, err := a.Reshape(4); return err }},
			{"Values", func() error { _, err := Values[float64](a); return err }},
		} {
			t.Run(bad.name+"/"+c.name, func(t *testing.T) {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic: %v", r)
					}
				}()
				var ia *InvalidArrayError
				if err := c.fn(); !errors.As(err, &ia) {
					t.Fatalf("got %v, want *InvalidArrayError", err)
				}
			})
		}
	}
}
