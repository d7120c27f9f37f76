package nd_test

import (
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestValuesEmptyViewPastData is the regression of a panic that
// chunkarray's TestDiffNumpy found: Values of an empty view whose offset
// lies past its (empty) data sliced out of range. Every such view must
// give an empty slice.
func TestValuesEmptyViewPastData(t *testing.T) {
	a, err := nd.Zeros(nd.Float64, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		row, err := a.Index(0, i)
		if err != nil {
			t.Fatal(err)
		}
		v, err := nd.Values[float64](row)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		if len(v) != 0 {
			t.Fatalf("row %d: %d values, want 0", i, len(v))
		}
	}
	b, err := nd.Zeros(nd.Int32, 4, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := b.Slice(nd.Slice1{Start: 2, Stop: 4, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := nd.Values[int32](s); err != nil || len(v) != 0 {
		t.Fatalf("slice 2:4: %v, %v; want no values", v, err)
	}
}
