package nd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"
)

// bytesLEFloat64s encodes vs with encoding/binary: the oracle for raw bytes.
func bytesLEFloat64s(order binary.AppendByteOrder, vs ...float64) []byte {
	var b []byte
	for _, v := range vs {
		b = order.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

func TestFromBytes(t *testing.T) {
	tests := []struct {
		name    string
		d       DType
		shape   []int
		b       []byte
		fortran bool
		big     bool
		want    []float64 // C order, converted to float64
	}{
		{"f8-c", Float64, []int{2, 3}, bytesLEFloat64s(binary.LittleEndian, 0, 1, 2, 3, 4, 5), false, false, []float64{0, 1, 2, 3, 4, 5}},
		{"f8-big", Float64, []int{3}, bytesLEFloat64s(binary.BigEndian, 1.5, -2, math.Inf(1)), false, true, []float64{1.5, -2, math.Inf(1)}},
		{"f8-fortran", Float64, []int{2, 3}, bytesLEFloat64s(binary.LittleEndian, 0, 3, 1, 4, 2, 5), true, false, []float64{0, 1, 2, 3, 4, 5}},
		{"i2-big", Int16, []int{2}, []byte{0x01, 0x02, 0xff, 0xfe}, false, true, []float64{0x0102, -2}},
		{"u2-little", Uint16, []int{2}, []byte{0x01, 0x02, 0xff, 0xfe}, false, false, []float64{0x0201, 0xfeff}},
		{"i4", Int32, []int{1}, []byte{0xfe, 0xff, 0xff, 0xff}, false, false, []float64{-2}},
		{"bool-any-byte", Bool, []int{3}, []byte{0, 1, 7}, false, false, []float64{0, 1, 1}},
		{"u1-big-ignored", Uint8, []int{2}, []byte{1, 2}, false, true, []float64{1, 2}},
		{"0-d", Float64, []int{}, bytesLEFloat64s(binary.LittleEndian, 7), false, false, []float64{7}},
		{"empty", Float32, []int{0, 4}, nil, false, false, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := FromBytes(tt.d, tt.shape, tt.b, tt.fortran, tt.big)
			if err != nil {
				t.Fatal(err)
			}
			if a.DType() != tt.d || FormatShape(a.Shape()) != FormatShape(tt.shape) {
				t.Fatalf("got %s %v, want %s %v", a.DType(), a.Shape(), tt.d, tt.shape)
			}
			f, _ := a.AsType(Float64)
			got, _ := Values[float64](f)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestFromBytesComplexBigEndian(t *testing.T) {
	// Real and imaginary parts are swapped separately.
	var b []byte
	b = binary.BigEndian.AppendUint32(b, math.Float32bits(1.5))
	b = binary.BigEndian.AppendUint32(b, math.Float32bits(-2))
	a, err := FromBytes(Complex64, []int{1}, b, false, true)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Values[complex64](a)
	if got[0] != complex(1.5, -2) {
		t.Errorf("got %v, want (1.5-2i)", got[0])
	}
}

func TestFromBytesErrors(t *testing.T) {
	tests := []struct {
		name  string
		d     DType
		shape []int
		n     int
	}{
		{"short", Float64, []int{2, 3}, 47},
		{"long", Int16, []int{3}, 7},
		{"negative-dim", Int8, []int{-1}, 0},
		{"invalid-dtype", Invalid, []int{1}, 1},
		{"overflow", Float64, []int{math.MaxInt / 4, 4}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromBytes(tt.d, tt.shape, make([]byte, tt.n), false, false)
			if err == nil {
				t.Fatal("no error")
			}
			var se *ShapeError
			var de *DTypeError
			if !errors.As(err, &se) && !errors.As(err, &de) {
				t.Errorf("error %T %v is neither ShapeError nor DTypeError", err, err)
			}
		})
	}
}

// TestAppendBytesRoundTrip writes every dtype, contiguous and strided, in
// both orders, and compares with encoding/binary and FromBytes.
func TestAppendBytesRoundTrip(t *testing.T) {
	for _, d := range DTypes {
		t.Run(d.String(), func(t *testing.T) {
			base := bytesArange(t, d, 24)
			a, _ := base.Reshape(2, 3, 4)
			tr, _ := a.Transpose(2, 0, 1)
			st, _ := a.Slice(Slice1{1, -1, -1}, Slice1{0, 3, 2}, Slice1{3, -1, -1})
			for _, v := range []struct {
				name string
				a    *Array
			}{{"c", a}, {"transposed", tr}, {"strided", st}} {
				for _, fortran := range []bool{false, true} {
					b := v.a.AppendBytes([]byte("xy"), fortran)
					if string(b[:2]) != "xy" {
						t.Fatalf("%s: prefix lost", v.name)
					}
					b = b[2:]
					if len(b) != v.a.Nbytes() {
						t.Fatalf("%s: %d bytes, want %d", v.name, len(b), v.a.Nbytes())
					}
					back, err := FromBytes(d, v.a.Shape(), b, fortran, false)
					if err != nil {
						t.Fatal(err)
					}
					if !bytesEqualC(v.a, back) {
						t.Errorf("%s fortran=%v: round trip differs", v.name, fortran)
					}
				}
			}
		})
	}
}

func TestAppendBytesOracle(t *testing.T) {
	a, _ := FromSlice([]float64{0, 1, 2, 3, 4, 5}, 2, 3)
	if got, want := a.AppendBytes(nil, false), bytesLEFloat64s(binary.LittleEndian, 0, 1, 2, 3, 4, 5); !bytes.Equal(got, want) {
		t.Errorf("C order: got %x, want %x", got, want)
	}
	if got, want := a.AppendBytes(nil, true), bytesLEFloat64s(binary.LittleEndian, 0, 3, 1, 4, 2, 5); !bytes.Equal(got, want) {
		t.Errorf("Fortran order: got %x, want %x", got, want)
	}
	b, _ := FromSlice([]bool{true, false, true})
	if got := b.AppendBytes(nil, false); !bytes.Equal(got, []byte{1, 0, 1}) {
		t.Errorf("bool: got %v", got)
	}
	full, _ := Full(Int16, 258, 3)
	if got := full.AppendBytes(nil, false); !bytes.Equal(got, []byte{2, 1, 2, 1, 2, 1}) {
		t.Errorf("zero-stride: got %v", got)
	}
}

func TestSwapBytes(t *testing.T) {
	for _, w := range []int{1, 2, 4, 8, 16} {
		b := make([]byte, 32)
		for i := range b {
			b[i] = byte(i)
		}
		SwapBytes(b, w)
		for i := range b {
			unit, pos := i/w, i%w
			if want := byte(unit*w + w - 1 - pos); b[i] != want {
				t.Fatalf("width %d: b[%d] = %d, want %d", w, i, b[i], want)
			}
		}
	}
}

func bytesArange(t testing.TB, d DType, n int) *Array {
	t.Helper()
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i % 7)
	}
	f, _ := FromSlice(v)
	a, err := f.AsType(d)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// bytesEqualC compares two arrays of one dtype element by element in C order.
func bytesEqualC(a, b *Array) bool {
	if a.DType() != b.DType() || FormatShape(a.Shape()) != FormatShape(b.Shape()) {
		return false
	}
	return bytes.Equal(a.Copy().AppendBytes(nil, false), b.Copy().AppendBytes(nil, false))
}

func BenchmarkAppendBytes(b *testing.B) {
	a, _ := Zeros(Float64, 1<<20)
	buf := make([]byte, 0, a.Nbytes())
	b.ReportAllocs()
	for b.Loop() {
		buf = a.AppendBytes(buf[:0], false)
	}
	b.ReportMetric(float64(a.Nbytes())*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func BenchmarkFromBytes(b *testing.B) {
	a, _ := Zeros(Float64, 1<<20)
	raw := a.AppendBytes(nil, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromBytes(Float64, []int{1 << 20}, raw, false, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(raw))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
}

func TestReadRawWriteRaw(t *testing.T) {
	for _, d := range DTypes {
		t.Run(d.String(), func(t *testing.T) {
			a, _ := bytesArange(t, d, 60).Reshape(3, 4, 5)
			st, _ := a.Slice(Slice1{2, -1, -1}, Slice1{0, 4, 3})
			for _, v := range []*Array{a, st} {
				for _, fortran := range []bool{false, true} {
					var buf bytes.Buffer
					if err := v.WriteRaw(&buf, fortran); err != nil {
						t.Fatal(err)
					}
					if want := v.AppendBytes(nil, fortran); !bytes.Equal(buf.Bytes(), want) {
						t.Fatalf("WriteRaw(fortran=%v) differs from AppendBytes", fortran)
					}
					back, err := ReadRaw(&buf, d, v.Shape(), fortran, false)
					if err != nil {
						t.Fatal(err)
					}
					if !bytesEqualC(v, back) {
						t.Errorf("fortran=%v: round trip differs", fortran)
					}
				}
			}
		})
	}
}

func TestReadRawShort(t *testing.T) {
	for _, n := range []int{0, 5} {
		_, err := ReadRaw(bytes.NewReader(make([]byte, n)), Float64, []int{2}, false, false)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%d bytes: err = %v, want ErrUnexpectedEOF", n, err)
		}
	}
}

func TestFillBytes(t *testing.T) {
	want := bytesLEFloat64s(binary.BigEndian, 1, 2, 3, 4, 5, 6)
	a, err := FillBytes(Float64, []int{3, 2}, true, true, func(dst []byte) error {
		if len(dst) != len(want) {
			t.Fatalf("dst is %d bytes, want %d", len(dst), len(want))
		}
		copy(dst, want)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Fortran order over (3, 2): C order reads 1 4 2 5 3 6.
	if got := a.AppendBytes(nil, false); !bytes.Equal(got, bytesLEFloat64s(binary.LittleEndian, 1, 4, 2, 5, 3, 6)) {
		t.Errorf("got %x", got)
	}
	sentinel := errors.New("boom")
	if _, err := FillBytes(Int8, []int{2}, false, false, func([]byte) error { return sentinel }); err != sentinel {
		t.Errorf("err = %v, want the fill error", err)
	}
	b, _ := FillBytes(Bool, []int{3}, false, false, func(dst []byte) error { copy(dst, []byte{0, 2, 1}); return nil })
	if v, _ := Values[bool](b); v[0] || !v[1] || !v[2] {
		t.Errorf("bools %v, want [false true true]", v)
	}
}
