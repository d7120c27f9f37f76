package chunkarray

import (
	"slices"
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

// TestRechunkPerAxis checks per-axis chunk specs against their definition:
// -1 the whole axis, an int that length, "auto" the largest length (equal
// on every auto axis) whose block stays within DefaultChunkBytes beside the
// other axes' largest chunks, and for Rechunk an axis left out (or nil)
// keeping its chunks.
func TestRechunkPerAxis(t *testing.T) {
	a := Ones([]int{50, 1000, 100000}, nd.Float64, []int{10, 1000, 1000})
	r := a.Rechunk(map[int]any{0: -1, 1: 100, 2: "auto"})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	ch := r.Chunks()
	if !slices.Equal(ch[0], []int{50}) || len(ch[1]) != 10 || ch[1][0] != 100 {
		t.Fatalf("chunks %v %v, want [50] and ten of 100", ch[0], ch[1])
	}
	c := ch[2][0]
	if blk := 50 * 100 * 8; blk*c > DefaultChunkBytes || blk*(c+1) <= DefaultChunkBytes {
		t.Errorf("auto axis chunk %d: 50*100*%d float64s is not the largest block within %d bytes", c, c, DefaultChunkBytes)
	}
	if sum(ch[2]) != 100000 {
		t.Errorf("auto chunks %v do not sum to 100000", ch[2])
	}

	two := Ones([]int{4, 100000, 100000}, nd.Float64, 1000).Rechunk([]any{-1, "auto", "auto"})
	if err := two.Err(); err != nil {
		t.Fatal(err)
	}
	c1, c2 := two.Chunks()[1][0], two.Chunks()[2][0]
	if c1 != c2 || 4*c1*c2*8 > DefaultChunkBytes || 4*(c1+1)*(c2+1)*8 <= DefaultChunkBytes {
		t.Errorf("two auto axes: %d and %d, want equal and the largest square within the budget", c1, c2)
	}

	// Left out or nil: Rechunk keeps the current chunks; NormalizeChunks
	// (a creation) takes the whole axis.
	b := Ones([]int{6, 7, 8}, nd.Int32, []int{4, 3, 5})
	for _, spec := range []any{map[int]int{-1: 2}, map[int]any{2: 2, 0: nil}, []any{nil, nil, 2}} {
		got := b.Rechunk(spec)
		if err := got.Err(); err != nil {
			t.Fatalf("%v: %v", spec, err)
		}
		want := [][]int{{4, 2}, {3, 3, 1}, {2, 2, 2, 2}}
		if !slices.EqualFunc(got.Chunks(), want, slices.Equal) {
			t.Errorf("Rechunk(%v) = %v, want %v", spec, got.Chunks(), want)
		}
	}
	got, err := NormalizeChunks("ones", map[int]any{1: []int{2, 5}}, []int{6, 7, 8}, nd.Int32)
	if err != nil || !slices.EqualFunc(got, [][]int{{6}, {2, 5}, {8}}, slices.Equal) {
		t.Errorf("NormalizeChunks(map) = %v, %v", got, err)
	}

	for _, bad := range []struct {
		spec any
		want string
	}{
		{map[int]any{3: 2}, "axis 3 is out of bounds for 3 axes"},
		{map[int]any{1: 2, -2: 3}, "axis 1 is given twice"},
		{map[int]any{0: "big"}, `"big": want "auto"`},
		{[]any{1, 2.5, 3}, "entry of type float64"},
		{[]any{1, []int{3, 3}, 3}, "axis 1 sums to 6, not 7"},
		{[]any{1, -2, 3}, "length -2 on axis 1"},
		{[]any{1, 2}, "2 entries for 3 axes"},
	} {
		if err := b.Rechunk(bad.spec).Err(); err == nil || !contains(err.Error(), bad.want) {
			t.Errorf("Rechunk(%v): %v, want an error containing %q", bad.spec, err, bad.want)
		}
	}
}
