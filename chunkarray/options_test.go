package chunkarray

import (
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestOptionErrors: options that do not apply, or bad values, are sticky
// errors naming the operation (the values themselves are checked against
// numpy in parity_test.go).
func TestOptionErrors(t *testing.T) {
	a := Ones([]int{4, 5}, nd.Float64, 2)
	tests := []struct {
		name string
		a    *Array
		want string
	}{
		{"argmax ddof", a.ArgReduce(nd.ArgMax, 0, false, ReduceOpts{Ddof: 1}), "argmax: shapes (4, 5) takes no ddof"},
		{"argmin device", a.ArgReduce(nd.ArgMin, 0, true, ReduceOpts{Device: DeviceCUDA}), "argmin: shapes (4, 5) takes no ddof"},
		{"argreduce op", a.ArgReduce(nd.ArgOp(7), 0, false, ReduceOpts{}), "is not ArgMin or ArgMax"},
		{"argmax axis", a.ArgReduce(nd.ArgMax, 2, false, ReduceOpts{Keepdims: true}), "axis 2 is out of bounds"},
		{"argmax dtype", a.ArgReduce(nd.ArgMax, 0, false, ReduceOpts{DType: nd.Int32}), "takes no ddof, dtype or device"},
		{"min dtype", a.Reduce(nd.Min, nil, ReduceOpts{DType: nd.Float32}), "min: shapes (4, 5) takes no dtype"},
		{"all dtype", a.Reduce(nd.All, []int{0}, ReduceOpts{DType: nd.Bool}), "all: shapes (4, 5) takes no dtype"},
		{"sum invalid dtype", a.Reduce(nd.Sum, nil, ReduceOpts{DType: nd.DType(99)}), "invalid dtype 99"},
		{"std int dtype axis", a.Reduce(nd.Std, []int{1}, ReduceOpts{DType: nd.Int16}), "cannot cast sqrt's float result to int16"},
		{"std int dtype keepdims", a.Reduce(nd.Std, nil, ReduceOpts{DType: nd.Uint8, Keepdims: true}), "cannot cast sqrt's float result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
