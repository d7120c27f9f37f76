package nd

import "testing"

// An empty view cut from an empty array keeps an offset beyond its backing
// data; encoding it must give no bytes, not a panic (found by chunkarray's
// conformance table sending empty blocks through the graph codec).
func TestAppendBytesEmptyView(t *testing.T) {
	z, err := FromSlice([]float64{}, 0, 4)
	if err != nil {
		t.Fatal(err)
	}
	v, err := z.Slice(Slice1{Start: 0, Stop: 0, Step: 1}, Slice1{Start: 2, Stop: 4, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, fortran := range []bool{false, true} {
		if got := v.AppendBytes([]byte{7}, fortran); len(got) != 1 || got[0] != 7 {
			t.Errorf("fortran=%v: got %v, want [7]", fortran, got)
		}
	}
}
