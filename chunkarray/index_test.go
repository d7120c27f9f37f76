package chunkarray

import (
	"errors"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// seqND returns an nd.Array of shape holding 0, 1, 2, … in dtype d.
func seqND(t *testing.T, d nd.DType, shape ...int) *nd.Array {
	t.Helper()
	n := 1
	for _, s := range shape {
		n *= s
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)
	}
	a, err := nd.FromSlice(v, shape...)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(d); err != nil {
		t.Fatal(err)
	}
	return a
}

// positions lists what s selects on an axis of length n, by brute force:
// every position in Python order, kept when the slice's arithmetic
// reaches it. drop reports an integer index.
func positions(t *testing.T, s Sel, n int) (pos []int, drop, newAx bool) {
	t.Helper()
	switch s.kind {
	case selNew:
		return nil, false, true
	case selAt:
		i := s.start
		if i < 0 {
			i += n
		}
		return []int{i}, true, false
	case selAll:
		for i := 0; i < n; i++ {
			pos = append(pos, i)
		}
		return pos, false, false
	case selInts:
		for _, i := range s.ints {
			if i < 0 {
				i += n
			}
			pos = append(pos, i)
		}
		return pos, false, false
	case selBools:
		for i, b := range s.bools {
			if b {
				pos = append(pos, i)
			}
		}
		return pos, false, false
	}
	// Python: start/stop resolved with negative wrap, then clamped.
	res := func(v int, none bool, def int) int {
		if none {
			return def
		}
		if v < 0 {
			v += n
		}
		return v
	}
	if s.step > 0 {
		lo, hi := max(res(s.start, s.noStart, 0), 0), min(res(s.stop, s.noStop, n), n)
		for i := lo; i < hi; i += s.step {
			pos = append(pos, i)
		}
	} else {
		lo, hi := min(res(s.start, s.noStart, n-1), n-1), max(res(s.stop, s.noStop, -1), -1)
		if !s.noStop && s.stop < 0 && s.stop+n < 0 {
			hi = -1
		}
		for i := lo; i > hi; i += s.step {
			pos = append(pos, i)
		}
	}
	return pos, false, false
}

// refIndex applies sels to x element by element.
func refIndex(t *testing.T, x *nd.Array, sels []Sel) *nd.Array {
	t.Helper()
	var full []Sel
	nin := 0
	for _, s := range sels {
		if s.kind != selNew && s.kind != selEllipsis {
			nin++
		}
	}
	for _, s := range sels {
		if s.kind == selEllipsis {
			for k := nin; k < x.NDim(); k++ {
				full = append(full, All())
			}
			continue
		}
		full = append(full, s)
	}
	for len(full)-countNew(full) < x.NDim() {
		full = append(full, All())
	}
	var pos [][]int // per output axis: input axis positions (nil for new)
	var inAx []int  // per output axis: input axis, -1 for new
	fixed := make([]int, x.NDim())
	ax := 0
	var shape []int
	for _, s := range full {
		p, drop, nw := positions(t, s, x.Shape()[min(ax, x.NDim()-1)])
		switch {
		case nw:
			pos = append(pos, nil)
			inAx = append(inAx, -1)
			shape = append(shape, 1)
			continue
		case drop:
			fixed[ax] = p[0]
		default:
			pos = append(pos, p)
			inAx = append(inAx, ax)
			shape = append(shape, len(p))
		}
		ax++
	}
	out, err := nd.Zeros(x.DType(), shape...)
	if err != nil {
		t.Fatal(err)
	}
	o := 0
	src := slices.Clone(fixed)
	forBlocks(shape, func(idx []int) {
		for k, a := range inAx {
			if a >= 0 {
				src[a] = pos[k][idx[k]]
			}
		}
		v, err := x.At(src...)
		if err != nil {
			t.Fatal(err)
		}
		setFlat(t, out, o, v)
		o++
	})
	return out
}

func countNew(s []Sel) int {
	n := 0
	for _, x := range s {
		if x.kind == selNew {
			n++
		}
	}
	return n
}

func setFlat(t *testing.T, a *nd.Array, i int, v any) {
	t.Helper()
	switch d := a.Data().(type) {
	case []float64:
		d[i] = v.(float64)
	case []int32:
		d[i] = v.(int32)
	case []bool:
		d[i] = v.(bool)
	case []complex64:
		d[i] = v.(complex64)
	default:
		t.Fatalf("setFlat: %T", d)
	}
}

func TestIndexAgainstReference(t *testing.T) {
	x2 := seqND(t, nd.Float64, 10, 7)
	x3 := seqND(t, nd.Int32, 5, 6, 4)
	tests := []struct {
		name   string
		x      *nd.Array
		chunks any
		sels   []Sel
	}{
		{"reverse", x2, 3, []Sel{Step(-1)}},
		{"reverse both", x2, []int{4, 3}, []Sel{Step(-1), Step(-2)}},
		{"neg step bounds", x2, 3, []Sel{RangeStep(8, 1, -3), RangeStep(-1, -8, -2)}},
		{"step 2", x2, 3, []Sel{RangeStep(1, 9, 2)}},
		{"step larger than chunk", x2, 2, []Sel{RangeStep(0, 10, 5), RangeStep(6, -100, -4)}},
		{"out of range bounds", x2, 3, []Sel{Range(-100, 100), Range(20, 30)}},
		{"empty", x2, 3, []Sel{Range(5, 2)}},
		{"empty neg", x2, 3, []Sel{RangeStep(2, 5, -1)}},
		{"from", x2, 4, []Sel{From(-3, 1), From(5, -2)}},
		{"at negative", x2, 3, []Sel{At(-1), Range(1, 6)}},
		{"at both", x2, 3, []Sel{At(4), At(-7)}},
		{"newaxis", x2, 3, []Sel{NewAxis(), At(2), NewAxis(), Step(-1)}},
		{"ellipsis", x3, []int{2, 4, 3}, []Sel{Ellipsis(), At(1)}},
		{"ellipsis middle", x3, 2, []Sel{At(-1), Ellipsis(), Range(1, 3)}},
		{"ellipsis newaxis", x3, 2, []Sel{NewAxis(), Ellipsis(), NewAxis()}},
		{"ints unsorted dup", x2, 3, []Sel{Ints(5, 0, 1, 2, 9, 9, 3, -1)}},
		{"ints axis1", x2, []int{4, 2}, []Sel{Step(-1), Ints(6, 0, 0, 3, -7)}},
		{"ints empty", x2, 3, []Sel{All(), Ints()}},
		{"bools", x2, 3, []Sel{Bools(true, false, true, true, false, false, false, true, true, true)}},
		{"bools 3d", x3, 2, []Sel{All(), Bools(false, true, true, false, true, true), RangeStep(3, 0, -2)}},
		{"zero-size axis", seqND(t, nd.Float64, 0, 4), 2, []Sel{Step(-1), Ints(3, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := refIndex(t, tt.x, tt.sels)
			a := FromNDArray(tt.x, tt.chunks).Index(tt.sels...)
			if err := a.Err(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Shape(), want.Shape()) {
				t.Fatalf("lazy shape %v, want %v", a.Shape(), want.Shape())
			}
			got := computeAll(t, a)
			if d := diff(want, got, 0); d != "" {
				t.Error(d)
			}
		})
	}
}

// TestIndexChunksLikeDask compares output chunks with what Dask 2022.12
// gives for x = da.ones(10, chunks=3).
func TestIndexChunksLikeDask(t *testing.T) {
	x := Ones([]int{10}, nd.Float64, 3)
	tests := []struct {
		name string
		a    *Array
		want []int
	}{
		{"x[::-1]", x.Index(Step(-1)), []int{1, 3, 3, 3}},
		{"x[8:1:-3]", x.Index(RangeStep(8, 1, -3)), []int{1, 1, 1}},
		{"x[1:9:2]", x.Index(RangeStep(1, 9, 2)), []int{1, 2, 1}},
		{"x[[5,0,1,2,9,9,3]]", x.Index(Ints(5, 0, 1, 2, 9, 9, 3)), []int{1, 3, 2, 1}},
		{"x[mask]", x.Compress([]bool{true, false, true, false, true, false, true, false, true, false}, 0), []int{2, 1, 2}},
		{"x[-3:]", x.Index(Range(-3, 10)), []int{2, 1}},
		{"x[20:]", x.Index(Range(20, 30)), []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.a.Err(); err != nil {
				t.Fatal(err)
			}
			if got := tt.a.Chunks()[0]; !slices.Equal(got, tt.want) {
				t.Errorf("chunks %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTakeCompress(t *testing.T) {
	x := seqND(t, nd.Float64, 6, 5)
	a := FromNDArray(x, 2)
	got := computeAll(t, a.Take(-1, []int{4, 4, 0}))
	if d := diff(refIndex(t, x, []Sel{All(), Ints(4, 4, 0)}), got, 0); d != "" {
		t.Error(d)
	}
	m, _ := nd.FromSlice([]bool{true, false, true})
	got = computeAll(t, a.Compress(m, 0))
	if d := diff(refIndex(t, x, []Sel{Ints(0, 2)}), got, 0); d != "" {
		t.Error(d)
	}
}

func TestIndexErrors(t *testing.T) {
	a := Ones([]int{4, 5}, nd.Float64, 2)
	tests := []struct {
		name string
		a    *Array
		want string
	}{
		{"at out of range", a.Index(All(), At(5)), "index 5 is out of bounds for axis 1 with size 5"},
		{"at negative", a.Index(At(-5)), "index -5 is out of bounds for axis 0 with size 4"},
		{"ints out of range", a.Index(All(), Ints(0, 7)), "index 7 is out of bounds for axis 1"},
		{"take axis", a.Take(2, []int{0}), "axis 2 is out of bounds"},
		{"too many", a.Index(At(0), At(0), At(0)), "too many indices"},
		{"two ellipses", a.Index(Ellipsis(), Ellipsis()), "single ellipsis"},
		{"two arrays", a.Index(Ints(0), Ints(1)), "only one integer or boolean"},
		{"zero step", a.Index(RangeStep(0, 3, 0)), "step cannot be zero"},
		{"bool length", a.Index(Bools(true)), "boolean index of length 1"},
		{"compress long", a.Compress([]bool{false, false, false, false, false, false, true}, 0), "index 6 is out of bounds for axis 0 with size 4"},
		{"compress type", a.Compress([]int{1}, 0), "want []bool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.a.Err()
			if err == nil || !contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want it to contain %q", err, tt.want)
			}
			// sticky: an op on the result carries it
			if err2 := tt.a.Add(1).Err(); err2 == nil {
				t.Error("error not sticky")
			}
		})
	}
	var ie *IndexError
	if !errors.As(a.Index(At(9)).Err(), &ie) || ie.Axis != 0 || ie.Index != 9 {
		t.Errorf("At(9): %v, want *IndexError on axis 0", a.Index(At(9)).Err())
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
