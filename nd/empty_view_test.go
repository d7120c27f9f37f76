package nd

import "testing"

// An empty view cut from an empty array at a non-zero position (column 1
// of a (0, 3) array) reads as empty everywhere: Values, Contiguous, Copy,
// a reduction and an elementwise op, none panicking (issue 13: nd.Values
// sliced beyond the empty backing slice).
func TestEmptyViewOffset(t *testing.T) {
	a, err := Zeros(Float64, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	col, err := a.Slice(Slice1{Start: 0, Stop: 0, Step: 1}, Slice1{Start: 1, Stop: 2, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := col.Shape(); len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Fatalf("shape %v, want (0, 1)", got)
	}
	v, err := Values[float64](col)
	if err != nil || len(v) != 0 {
		t.Fatalf("Values = %v, %v; want empty", v, err)
	}
	if c := col.Contiguous(); c.Size() != 0 {
		t.Fatalf("Contiguous has %d elements", c.Size())
	}
	if c := col.Copy(); c.Size() != 0 {
		t.Fatalf("Copy has %d elements", c.Size())
	}
	s, err := Reduce(Sum, col, []int{0}, false)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := Values[float64](s)
	if err != nil || len(sv) != 1 || sv[0] != 0 {
		t.Fatalf("sum over axis 0 = %v, %v; want [0]", sv, err)
	}
	d, err := Binary(Add, col, col)
	if err != nil || d.Size() != 0 {
		t.Fatalf("col+col: %v, %v", d, err)
	}
}
