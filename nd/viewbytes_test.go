package nd

import (
	"bytes"
	"errors"
	"testing"
)

// TestViewBytes writes through a view of a byte buffer for every dtype
// and checks the buffer: its bytes are what AppendBytes of an array of the
// same values writes (the little-endian oracle, on a little-endian host),
// and the rest of the buffer is untouched.
func TestViewBytes(t *testing.T) {
	if hostBigEndian {
		t.Skip("the oracle is little-endian")
	}
	for d := Bool; d < numDTypes; d++ {
		t.Run(d.String(), func(t *testing.T) {
			w := make([]uint64, 16) // 8-byte aligned
			buf := sliceBytes(w)
			for i := range buf {
				buf[i] = 0xAB
			}
			v, err := ViewBytes(d, buf, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if v.DType() != d || !v.IsCContiguous() || v.Size() != 6 {
				t.Fatalf("view: %v %v contiguous %v", v.DType(), v.Shape(), v.IsCContiguous())
			}
			src, err := FromSlice([]int64{1, 0, 3, 1, 5, 0}, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			want, err := src.AsType(d)
			if err != nil {
				t.Fatal(err)
			}
			if err := AsTypeInto(v, src); err != nil {
				t.Fatal(err)
			}
			n := 6 * d.Size()
			if got, w := buf[:n], want.AppendBytes(nil, false); !bytes.Equal(got, w) {
				t.Fatalf("buffer % x, want % x", got, w)
			}
			for i, c := range buf[n:] {
				if c != 0xAB {
					t.Fatalf("byte %d past the view written: %#x", n+i, c)
				}
			}
		})
	}
}

func TestViewBytesErrors(t *testing.T) {
	w := make([]uint64, 4)
	buf := sliceBytes(w)
	for _, tc := range []struct {
		name  string
		d     DType
		b     []byte
		shape []int
	}{
		{"short", Float64, buf, []int{5}},
		{"misaligned", Float64, buf[1:], []int{2}},
		{"invalid dtype", Invalid, buf, []int{1}},
		{"negative shape", Float32, buf, []int{-1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ViewBytes(tc.d, tc.b, tc.shape...)
			var se *ShapeError
			var de *DTypeError
			if !errors.As(err, &se) && !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *ShapeError or *DTypeError", err)
			}
		})
	}
	// Empty arrays need no memory.
	if v, err := ViewBytes(Complex128, nil, 0, 4); err != nil || v.Size() != 0 {
		t.Fatalf("empty view: %v, %v", v, err)
	}
}
