package nd

// numpy's casting='same_kind' for in-place results (a += b with a float32
// and b float64): CanCastSameKind against numpy's can_cast table and
// BinaryInto's in-place additions against numpy's results, both from
// testdata/samekind.json (gen_samekind.py).

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"
)

type sameKindData struct {
	Table map[string]map[string]bool `json:"can_cast_same_kind"`
	Add   []struct {
		Dst, Src string
		A, B     []float64
		Want     []string
		OK       bool
	} `json:"add_inplace"`
}

func loadSameKind(t *testing.T) sameKindData {
	t.Helper()
	b, err := os.ReadFile("testdata/samekind.json")
	if err != nil {
		t.Fatal(err)
	}
	var d sameKindData
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCanCastSameKindNumpy(t *testing.T) {
	d := loadSameKind(t)
	n := 0
	for from, row := range d.Table {
		f, _, err := ParseDType(from)
		if err != nil {
			t.Fatal(err)
		}
		for to, want := range row {
			tt, _, err := ParseDType(to)
			if err != nil {
				t.Fatal(err)
			}
			if got := CanCastSameKind(f, tt); got != want {
				t.Errorf("CanCastSameKind(%v, %v) = %v, numpy %v", f, tt, got, want)
			}
			n++
		}
	}
	if n != 13*13 {
		t.Fatalf("table has %d pairs, want 169", n)
	}
	if CanCastSameKind(Invalid, Float64) || CanCastSameKind(Float64, DType(200)) {
		t.Error("an invalid dtype casts")
	}
}

func TestBinaryIntoSameKindNumpy(t *testing.T) {
	for _, c := range loadSameKind(t).Add {
		dd, _, _ := ParseDType(c.Dst)
		sd, _, _ := ParseDType(c.Src)
		a, err := FromSlice(c.A, len(c.A))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := FromSlice(c.B, len(c.B))
		if a, err = a.AsType(dd); err != nil {
			t.Fatal(err)
		}
		if b, err = b.AsType(sd); err != nil {
			t.Fatal(err)
		}
		err = BinaryInto(Add, a, a, b)
		if !c.OK {
			var te *TypeError
			if !errors.As(err, &te) {
				t.Errorf("%s += %s: got %v, want a *TypeError (numpy refuses the cast)", c.Dst, c.Src, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s += %s: %v", c.Dst, c.Src, err)
			continue
		}
		if a.DType() != dd {
			t.Errorf("%s += %s: dst became %v", c.Dst, c.Src, a.DType())
		}
		re, _ := a.AsType(Complex128)
		got, _ := Values[complex128](re)
		for i, w := range c.Want {
			wf, _ := strconv.ParseFloat(w, 64)
			if real(got[i]) != wf {
				t.Errorf("%s += %s: [%d] = %v, numpy %v", c.Dst, c.Src, i, real(got[i]), wf)
			}
		}
	}
}

// A strided dst view (a buffer's rows) takes the cast result in place.
func TestBinaryIntoSameKindView(t *testing.T) {
	a, _ := FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	v, err := a.Slice(Slice1{Start: 0, Stop: 3, Step: 2})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FromSlice([]float64{0.5, 0.25}, 2)
	if err := BinaryInto(Add, v, v, b); err != nil {
		t.Fatal(err)
	}
	got, _ := Values[float32](a)
	want := []float32{1.5, 2.25, 3, 4, 5.5, 6.25}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
