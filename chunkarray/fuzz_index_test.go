package chunkarray

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// Fuzz targets for chunk-spec normalisation and for Index with random
// selectors on random shapes. Run each for about 30 s:
//
//	go test ./chunkarray -run '^$' -fuzz FuzzNormalizeChunks -fuzztime 30s
//	go test ./chunkarray -run '^$' -fuzz FuzzIndexSelectors -fuzztime 30s

// fuzzBytes reads small values off a byte string, zero when exhausted.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

// int returns a small signed value, now and then an extreme one.
func (f *fuzzBytes) int() int {
	c := f.byte()
	switch c {
	case 0xff:
		return math.MaxInt
	case 0xfe:
		return math.MinInt
	case 0xfd:
		return 1 << 40
	case 0xfc:
		return math.MaxInt - 1
	case 0xfb:
		return math.MinInt + 1
	case 0xfa:
		return 1 << 62
	case 0xf9:
		return -(1 << 62)
	}
	return int(int8(c))
}

func FuzzNormalizeChunks(f *testing.F) {
	f.Add([]byte{2, 5, 7, 0, 2})
	f.Add([]byte{3, 0, 4, 9, 1, 3, 0xff, 2})
	f.Add([]byte{1, 8, 2, 3, 3, 2, 0})
	f.Add([]byte{2, 6, 6, 1, 0xfe, 0xfd})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{data}
		ndim := int(in.byte() % 4)
		shape := make([]int, ndim)
		for i := range shape {
			shape[i] = int(in.byte() % 40)
		}
		if in.byte()%16 == 0 && ndim > 0 {
			shape[0] = in.int() // negative or huge dimensions too
		}
		var spec any
		kind := in.byte() % 5
		switch kind {
		case 0:
			spec = in.int()
		case 1:
			per := make([]int, ndim+int(in.byte()%8)/7) // now and then one too many
			for i := range per {
				per[i] = in.int()
			}
			spec = per
		case 2:
			lists := make([][]int, ndim)
			for i := range lists {
				k := int(in.byte() % 6)
				for range k {
					lists[i] = append(lists[i], in.int()%20)
				}
			}
			spec = lists
		case 3:
			spec = nil
		case 4:
			spec = "auto"
		}
		out, err := func() (out [][]int, err error) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("NormalizeChunks(%v, %v) panicked: %v", spec, shape, r)
				}
			}()
			return NormalizeChunks("fuzz", spec, shape, nd.Float64)
		}()
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Op != "fuzz" {
				t.Fatalf("NormalizeChunks(%v, %v): error %v (%T), want a *Error naming the op", spec, shape, err, err)
			}
			return
		}
		if len(out) != ndim {
			t.Fatalf("NormalizeChunks(%v, %v) = %v: %d axes, want %d", spec, shape, out, len(out), ndim)
		}
		for ax, c := range out {
			if len(c) == 0 {
				t.Fatalf("NormalizeChunks(%v, %v) = %v: axis %d has no chunks", spec, shape, out, ax)
			}
			sum := 0
			for _, x := range c {
				if x < 0 {
					t.Fatalf("NormalizeChunks(%v, %v) = %v: negative chunk", spec, shape, out)
				}
				sum += x
			}
			if sum != shape[ax] {
				t.Fatalf("NormalizeChunks(%v, %v) = %v: axis %d sums to %d", spec, shape, out, ax, sum)
			}
			// Regular specs: every chunk but the last is min(c, n) long
			// (c = -1: the whole axis), as dask's normalize_chunks.
			var c0 int
			switch s := spec.(type) {
			case int:
				c0 = s
			case []int:
				c0 = s[ax]
			default:
				continue
			}
			n := shape[ax]
			if n == 0 {
				continue
			}
			if c0 == -1 || c0 > n {
				c0 = n
			}
			want := n/c0 + min(1, n%c0)
			if len(c) != want {
				t.Fatalf("NormalizeChunks(%v, %v) = %v: axis %d has %d chunks, want %d", spec, shape, out, ax, len(c), want)
			}
			for _, x := range c[:len(c)-1] {
				if x != c0 {
					t.Fatalf("NormalizeChunks(%v, %v) = %v: axis %d chunk %d, want %d", spec, shape, out, ax, x, c0)
				}
			}
		}
	})
}

// sliceLen is Python's len(range(*slice(start, stop, step).indices(n))),
// written from the language reference; none marks an omitted bound.
func sliceLen(start, stop, step int, noStart, noStop bool, n int) int {
	lower, upper := 0, n
	if step < 0 {
		lower, upper = -1, n-1
	}
	clamp := func(v int, none bool, dflt int) int {
		switch {
		case none:
			return dflt
		case v < 0:
			if v < -n {
				return lower
			}
			return max(v+n, lower)
		default:
			return min(v, upper)
		}
	}
	if step > 0 {
		b, e := clamp(start, noStart, lower), clamp(stop, noStop, upper)
		if e <= b {
			return 0
		}
		return int(uint(e-b-1)/uint(step)) + 1
	}
	b, e := clamp(start, noStart, upper), clamp(stop, noStop, lower)
	if b <= e {
		return 0
	}
	return int(uint(b-e-1)/(uint(-(step+1))+1)) + 1
}

// fuzzSel is one decoded selector with what the oracle needs.
type fuzzSel struct {
	sel              Sel
	kind             int // 0 All, 1 At, 2 slice, 3 NewAxis, 4 Ellipsis, 5 Ints, 6 Bools
	i                int
	start, stop, stp int
	noStart, noStop  bool
	ints             []int
	bools            []bool
}

// wantIndexShape applies numpy's indexing rules to shape; ok is false
// where numpy (or this package's one-advanced-index limit) raises.
func wantIndexShape(shape []int, sels []fuzzSel) (out []int, ok bool) {
	consumed, ell, adv := 0, 0, 0
	for _, s := range sels {
		switch s.kind {
		case 3:
		case 4:
			ell++
		default:
			consumed++
			if s.kind >= 5 {
				adv++
			}
		}
	}
	if ell > 1 || adv > 1 || consumed > len(shape) {
		return nil, false
	}
	var full []fuzzSel
	for _, s := range sels {
		if s.kind == 4 {
			for range len(shape) - consumed {
				full = append(full, fuzzSel{kind: 0})
			}
			continue
		}
		full = append(full, s)
	}
	for len(full)-fuzzCountNew(full) < len(shape) {
		full = append(full, fuzzSel{kind: 0})
	}
	ax, advOut := 0, -1
	for _, s := range full {
		if s.kind == 3 {
			out = append(out, 1)
			continue
		}
		n := shape[ax]
		ax++
		if s.kind >= 5 {
			advOut = len(out)
		}
		switch s.kind {
		case 0:
			out = append(out, n)
		case 1:
			if s.i < -n || s.i >= n {
				return nil, false
			}
		case 2:
			if s.stp == 0 {
				return nil, false
			}
			out = append(out, sliceLen(s.start, s.stop, s.stp, s.noStart, s.noStop, n))
		case 5:
			for _, i := range s.ints {
				if i < -n || i >= n {
					return nil, false
				}
			}
			out = append(out, len(s.ints))
		case 6:
			if len(s.bools) != n {
				return nil, false
			}
			k := 0
			for _, b := range s.bools {
				if b {
					k++
				}
			}
			out = append(out, k)
		}
	}
	// numpy counts an integer beside an array index as advanced too; the
	// advanced indices' axis goes first unless they are adjacent.
	first, last, nadv := -1, -1, 0
	for i, s := range sels {
		if s.kind == 1 || s.kind >= 5 {
			if first < 0 {
				first = i
			}
			last, nadv = i, nadv+1
		}
	}
	if adv == 1 && last-first+1 != nadv {
		n := out[advOut]
		out = append([]int{n}, slices.Delete(out, advOut, advOut+1)...)
	}
	if out == nil {
		out = []int{}
	}
	return out, true
}

func fuzzCountNew(s []fuzzSel) int {
	k := 0
	for _, x := range s {
		if x.kind == 3 {
			k++
		}
	}
	return k
}

func FuzzIndexSelectors(f *testing.F) {
	f.Add([]byte{2, 5, 7, 2, 3, 2, 1, 4, 0xff, 2, 0, 1})
	f.Add([]byte{3, 4, 3, 6, 1, 2, 4, 0, 5, 3, 1, 0xfe, 2})
	f.Add([]byte{1, 9, 3, 3, 5, 4, 1, 0xfc, 3, 7})
	f.Add([]byte{2, 0, 4, 1, 2, 6, 0, 1, 0, 1})
	// x[3::-2**63] on 7 elements in chunks of 2: numpy gives [3].
	f.Add([]byte{1, 7, 1, 1, 2, 3, 0, 0xfe, 3})
	f.Add([]byte{1, 7, 1, 1, 2, 0xfc, 0xfb, 0xfb, 0})
	f.Add([]byte{2, 6, 2, 5, 3, 2, 2, 0xff, 0xfe, 0xfa, 0, 2, 0xf9, 0xff, 0xf9, 0})
	// x[0, :, [1, 2]]-like: an integer and an integer array separated by a
	// slice put the array's axis first.
	f.Add([]byte{3, 4, 2, 5, 3, 3, 2, 3, 1, 0, 0, 5, 2, 1, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &fuzzBytes{data}
		ndim := int(in.byte() % 4)
		shape := make([]int, ndim)
		chunks := make([]int, ndim)
		for i := range shape {
			shape[i] = int(in.byte() % 8)
			chunks[i] = int(in.byte()%4) + 1
		}
		nsel := int(in.byte() % 5)
		sels := make([]fuzzSel, nsel)
		for k := range sels {
			s := &sels[k]
			s.kind = int(in.byte() % 7)
			switch s.kind {
			case 0:
				s.sel = All()
			case 1:
				s.i = in.int()
				s.sel = At(s.i)
			case 2:
				s.start, s.stop, s.stp = in.int(), in.int(), in.int()
				switch in.byte() % 5 {
				case 0:
					s.sel = RangeStep(s.start, s.stop, s.stp)
				case 1:
					s.stp = 1
					s.sel = Range(s.start, s.stop)
				case 2:
					s.noStart, s.noStop = true, true
					s.sel = Step(s.stp)
				case 3:
					s.noStop = true
					s.sel = From(s.start, s.stp)
				default:
					s.stp = 1 + int(in.byte()%3)
					s.sel = RangeStep(s.start, s.stop, s.stp)
				}
			case 3:
				s.sel = NewAxis()
			case 4:
				s.sel = Ellipsis()
			case 5:
				for range int(in.byte() % 5) {
					s.ints = append(s.ints, int(int8(in.byte()))%9)
				}
				s.sel = Ints(s.ints...)
			case 6:
				n := int(in.byte() % 8)
				for range n {
					s.bools = append(s.bools, in.byte()&1 == 1)
				}
				s.sel = Bools(s.bools...)
			}
		}
		want, ok := wantIndexShape(shape, sels)
		x := Arange(0, float64(max(1, fuzzSizeOf(shape))), 1, nd.Int64, -1)
		if fuzzSizeOf(shape) == 0 {
			x = Zeros([]int{0}, nd.Int64, -1)
		}
		x = x.Reshape(shape...).Rechunk(chunks)
		if err := x.Err(); err != nil {
			t.Fatalf("building %v chunks %v: %v", shape, chunks, err)
		}
		list := make([]Sel, len(sels))
		for i, s := range sels {
			list[i] = s.sel
		}
		var y *Array
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("Index on %v with %+v panicked: %v", shape, sels, r)
				}
			}()
			y = x.Index(list...)
		}()
		if err := y.Err(); err != nil {
			if ok {
				t.Fatalf("Index on %v with %+v: error %v, want shape %v", shape, sels, err, want)
			}
			var e *Error
			var ie *IndexError
			if !errors.As(err, &e) && !errors.As(err, &ie) {
				t.Fatalf("Index on %v: error %v (%T) is not typed", shape, err, err)
			}
			return
		}
		if !ok {
			t.Fatalf("Index on %v with %+v: shape %v, want an error", shape, sels, y.Shape())
		}
		if !slices.Equal(y.Shape(), want) {
			t.Fatalf("Index on %v with %+v: shape %v, want %v", shape, sels, y.Shape(), want)
		}
		for ax, c := range y.Chunks() {
			sum := 0
			for _, n := range c {
				sum += n
			}
			if sum != want[ax] {
				t.Fatalf("Index on %v with %+v: chunks %v do not sum to shape %v", shape, sels, y.Chunks(), want)
			}
		}
		got, err := y.Compute(context.Background())
		if err != nil {
			t.Fatalf("Index on %v with %+v: compute: %v", shape, sels, err)
		}
		if !slices.Equal(got.Shape(), want) {
			t.Fatalf("Index on %v with %+v: computed shape %v, want %v", shape, sels, got.Shape(), want)
		}
	})
}

func fuzzSizeOf(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}
