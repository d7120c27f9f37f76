package nd

import (
	"fmt"
	"io"
	"math"
	"slices"
	"unsafe"
)

// hostBigEndian is true on big-endian machines. Raw bytes are moved with
// one memory copy between a backing slice and a byte buffer; on a
// big-endian host the copy is followed by a byte swap, so that the files
// and the graph codec stay little-endian everywhere. Decoding element by
// element with encoding/binary was the first version: it ran at a tenth
// of memory speed for float64.
var hostBigEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}()

// rawBytes returns the memory of a backing slice as bytes (shared, not
// copied).
func rawBytes(data any) []byte {
	switch s := data.(type) {
	case []bool:
		return sliceBytes(s)
	case []int8:
		return sliceBytes(s)
	case []int16:
		return sliceBytes(s)
	case []int32:
		return sliceBytes(s)
	case []int64:
		return sliceBytes(s)
	case []uint8:
		return s
	case []uint16:
		return sliceBytes(s)
	case []uint32:
		return sliceBytes(s)
	case []uint64:
		return sliceBytes(s)
	case []float32:
		return sliceBytes(s)
	case []float64:
		return sliceBytes(s)
	case []complex64:
		return sliceBytes(s)
	case []complex128:
		return sliceBytes(s)
	}
	return nil
}

func sliceBytes[T Elem](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))
}

// swapWidth returns the width of the units to byte-swap for d: the element
// size, or half of it for complex dtypes (real and imaginary parts are
// swapped separately). 1 means nothing to swap.
func swapWidth(d DType) int {
	if d.IsComplex() {
		return d.Size() / 2
	}
	return d.Size()
}

// SwapBytes reverses the byte order of each width-byte unit of b in place
// (width 1, 2, 4, 8 or 16; len(b) a multiple of width).
func SwapBytes(b []byte, width int) {
	switch width {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			b[i], b[i+1], b[i+2], b[i+3], b[i+4], b[i+5], b[i+6], b[i+7] =
				b[i+7], b[i+6], b[i+5], b[i+4], b[i+3], b[i+2], b[i+1], b[i]
		}
	default:
		if width <= 1 {
			return
		}
		for i := 0; i+width <= len(b); i += width {
			u := b[i : i+width]
			for l, r := 0, width-1; l < r; l, r = l+1, r-1 {
				u[l], u[r] = u[r], u[l]
			}
		}
	}
}

// FStrides returns the Fortran-order (column-major) strides of shape, in
// elements.
func FStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := range shape {
		st[i] = s
		if shape[i] > 0 {
			s *= shape[i]
		}
	}
	return st
}

// FromBytes returns a new array of dtype d and the given shape whose
// elements are read from the raw bytes b: in C order, or Fortran order when
// fortran is set, little-endian unless bigEndian is set. b is copied. A
// Fortran-order result keeps Fortran strides (it is not rearranged); call
// Contiguous for C order. Bool bytes other than 0 and 1 are read as true.
// An error names the dtype and shape when len(b) is not the size of the
// shape times the element size.
func FromBytes(d DType, shape []int, b []byte, fortran, bigEndian bool) (*Array, error) {
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	n, err := SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if n > len(b)/max(d.Size(), 1) || n*d.Size() != len(b) {
		return nil, &ShapeError{Op: "FromBytes", Shapes: [][]int{shape},
			Reason: fmt.Sprintf("%s needs %d bytes, got %d", d, n*d.Size(), len(b))}
	}
	data := makeSlice(d, n)
	raw := rawBytes(data)
	if d == Bool {
		// Go requires bools to hold 0 or 1; numpy files may hold any byte.
		bs := data.([]bool)
		for i, c := range b {
			bs[i] = c != 0
		}
	} else {
		copy(raw, b)
		if bigEndian != hostBigEndian {
			SwapBytes(raw, swapWidth(d))
		}
	}
	strides := CStrides(shape)
	if fortran {
		strides = FStrides(shape)
	}
	return &Array{dtype: d, shape: append([]int{}, shape...), strides: strides, data: data}, nil
}

// ViewBytes returns a C-contiguous array of dtype d and the given shape
// over the first Size·d.Size() bytes of b's memory: shared, not copied,
// and its elements are whatever bytes b holds (in the host's byte order),
// so the caller writes every element before anything reads it (a bool
// element must hold 0 or 1 when read). It is how a buffer from a free
// list (package freelist) becomes a typed block or tile: b must be
// aligned for d's Go type (freelist buffers are 8-byte aligned), and
// whoever owns b must not give it back while the array is in use.
func ViewBytes(d DType, b []byte, shape ...int) (*Array, error) {
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	n, err := SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if n > len(b)/d.Size() {
		return nil, &ShapeError{Op: "ViewBytes", Shapes: [][]int{shape},
			Reason: fmt.Sprintf("%s needs %d bytes, got %d", d, n*d.Size(), len(b))}
	}
	var data any
	switch d {
	case Bool:
		data, err = viewAs[bool](b, n)
	case Int8:
		data, err = viewAs[int8](b, n)
	case Int16:
		data, err = viewAs[int16](b, n)
	case Int32:
		data, err = viewAs[int32](b, n)
	case Int64:
		data, err = viewAs[int64](b, n)
	case Uint8:
		data = b[:n:n]
	case Uint16:
		data, err = viewAs[uint16](b, n)
	case Uint32:
		data, err = viewAs[uint32](b, n)
	case Uint64:
		data, err = viewAs[uint64](b, n)
	case Float32:
		data, err = viewAs[float32](b, n)
	case Float64:
		data, err = viewAs[float64](b, n)
	case Complex64:
		data, err = viewAs[complex64](b, n)
	case Complex128:
		data, err = viewAs[complex128](b, n)
	}
	if err != nil {
		return nil, err
	}
	return &Array{dtype: d, shape: slices.Clone(shape), strides: CStrides(shape), data: data}, nil
}

// viewAs returns the first n elements of type T in b's memory.
func viewAs[T Elem](b []byte, n int) ([]T, error) {
	if n == 0 {
		return []T{}, nil
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	var zero T
	if uintptr(p)%unsafe.Alignof(zero) != 0 {
		return nil, &ShapeError{Op: "ViewBytes", Reason: fmt.Sprintf("buffer at %#x is not aligned for %T", uintptr(p), zero)}
	}
	return unsafe.Slice((*T)(p), n), nil
}

// AppendBytes appends the elements of a to dst as little-endian raw bytes
// in C order, or in Fortran order when fortran is set, and returns the
// extended slice. A C-contiguous array (or a Fortran-contiguous one written
// in Fortran order) is one memory copy on a little-endian host.
func (a *Array) AppendBytes(dst []byte, fortran bool) []byte {
	v := a
	if fortran && len(a.shape) > 1 {
		// Fortran order of a is C order of its full transpose.
		v, _ = a.Transpose()
	}
	es := a.dtype.Size()
	nbytes := v.Size() * es
	start := len(dst)
	dst = growBytes(dst, nbytes)
	if nbytes == 0 {
		// An empty view may keep an offset past its (empty) backing data.
		return dst
	}
	raw := rawBytes(v.data)
	if v.IsCContiguous() {
		o := v.offset * es
		dst = append(dst, raw[o:o+nbytes]...)
	} else {
		ForEachOffset(v.shape, v.strides, v.offset, func(off, n, step int) {
			if step == 1 {
				dst = append(dst, raw[off*es:(off+n)*es]...)
				return
			}
			switch es {
			case 8:
				for k := 0; k < n; k++ {
					p := (off + k*step) * 8
					dst = append(dst, raw[p:p+8]...)
				}
			case 4:
				for k := 0; k < n; k++ {
					p := (off + k*step) * 4
					dst = append(dst, raw[p:p+4]...)
				}
			default:
				for k := 0; k < n; k++ {
					p := (off + k*step) * es
					dst = append(dst, raw[p:p+es]...)
				}
			}
		})
	}
	if hostBigEndian {
		SwapBytes(dst[start:], swapWidth(a.dtype))
	}
	return dst
}

// growBytes makes room for n more bytes in b without changing len(b).
func growBytes(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), len(b)+n)
	copy(nb, b)
	return nb
}

// ReadRaw reads the raw bytes of an array of dtype d and the given shape
// from r, straight into the new array's memory (no intermediate buffer):
// C order, or Fortran order (kept as Fortran strides) when fortran is set,
// little-endian unless bigEndian is set. When r ends early, even before
// its first byte, the error wraps io.ErrUnexpectedEOF and says how many
// bytes were wanted. It is FillBytes filling from r.
func ReadRaw(r io.Reader, d DType, shape []int, fortran, bigEndian bool) (*Array, error) {
	return FillBytes(d, shape, fortran, bigEndian, func(raw []byte) error {
		got, err := io.ReadFull(r, raw)
		if err == nil {
			return nil
		}
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("nd: ReadRaw: %s %s needs %d bytes, got %d: %w", d, FormatShape(shape), len(raw), got, err)
	})
}

// WriteRaw writes the elements of a to w as AppendBytes lays them out. A
// contiguous array on a little-endian host is written from its own memory
// in one call; other arrays go through a buffer of at most about 1 MiB.
func (a *Array) WriteRaw(w io.Writer, fortran bool) error {
	v := a
	if fortran && len(a.shape) > 1 {
		v, _ = a.Transpose()
	}
	es := a.dtype.Size()
	if v.IsCContiguous() && !hostBigEndian {
		o := v.offset * es
		_, err := w.Write(rawBytes(v.data)[o : o+v.Size()*es])
		return err
	}
	if len(v.shape) == 0 || v.Size() == 0 {
		_, err := w.Write(v.AppendBytes(nil, false))
		return err
	}
	// Write slabs along the first axis, grouped to about 1 MiB.
	const target = 1 << 20
	rowBytes := v.Size() / v.shape[0] * es
	per := max(1, target/max(rowBytes, 1))
	buf := make([]byte, 0, min(per, v.shape[0])*rowBytes)
	for i := 0; i < v.shape[0]; i += per {
		s, err := v.Slice(Slice1{i, min(i+per, v.shape[0]), 1})
		if err != nil {
			return err
		}
		buf = s.AppendBytes(buf[:0], false)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// FillBytes returns a new array of dtype d and the given shape whose raw
// bytes are written by fill: fill receives the array's own memory (exactly
// Size·d.Size() bytes, zeroed) and must write the elements as FromBytes
// would read them from b (C or Fortran order, little-endian unless
// bigEndian). Decompressors and file readers use it to write straight into
// the array, saving FromBytes' copy. fill must not keep dst. An error from
// fill is returned as is.
func FillBytes(d DType, shape []int, fortran, bigEndian bool, fill func(dst []byte) error) (*Array, error) {
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	n, err := SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if d.Size() > 0 && n > math.MaxInt/d.Size() {
		return nil, &ShapeError{Op: "FillBytes", Shapes: [][]int{shape}, Reason: "too many bytes"}
	}
	return fillRaw(d, shape, fortran, bigEndian, makeSlice(d, n), n, fill)
}

// FillBytesInto is FillBytes writing into the memory of buf instead of
// new memory: buf must have dtype d, be C-contiguous from its first
// element and hold at least as many elements as shape (a buffer from a
// pool, say). Unlike FillBytes, dst is not zeroed first: fill must write
// every byte of it (or fail). The result is a view of buf's memory with
// the given shape (C order, or Fortran order when fortran).
func FillBytesInto(buf *Array, d DType, shape []int, fortran, bigEndian bool, fill func(dst []byte) error) (*Array, error) {
	n, err := SizeOf(shape)
	if err != nil {
		return nil, err
	}
	if buf == nil || buf.dtype != d || buf.offset != 0 || !buf.IsCContiguous() || buf.Size() < n {
		return nil, &ShapeError{Op: "FillBytesInto", Shapes: [][]int{shape}, Reason: "buffer of the wrong dtype, layout or size"}
	}
	return fillRaw(d, shape, fortran, bigEndian, buf.data, n, fill)
}

// fillRaw lets fill write the first n elements of the backing slice data
// as raw bytes, then makes them values of dtype d (bools to 0/1, bytes
// swapped from big-endian) and returns them as an array of shape in C or
// Fortran order.
func fillRaw(d DType, shape []int, fortran, bigEndian bool, data any, n int, fill func(dst []byte) error) (*Array, error) {
	raw := rawBytes(data)[: n*d.Size() : n*d.Size()]
	if err := fill(raw); err != nil {
		return nil, err
	}
	fixRaw(d, raw, bigEndian)
	strides := CStrides(shape)
	if fortran {
		strides = FStrides(shape)
	}
	return &Array{dtype: d, shape: append([]int{}, shape...), strides: strides, data: data}, nil
}

// fixRaw makes raw bytes written as FromBytes reads them values of dtype
// d in place: bools to 0/1, bytes swapped from the other byte order.
func fixRaw(d DType, raw []byte, bigEndian bool) {
	if d == Bool {
		for i, c := range raw {
			if c > 1 {
				raw[i] = 1
			}
		}
	} else if bigEndian != hostBigEndian {
		SwapBytes(raw, swapWidth(d))
	}
}

// FillRaw is FillBytesInto writing the elements of dst itself, which must
// be C-contiguous (from any offset): fill receives exactly dst's
// Size·d.Size() bytes of memory, must write every one of them as
// FromBytes would read them (C order, little-endian unless bigEndian),
// and must not keep them. With no new header, a reader that fills a
// reused tile view allocates nothing. An error from fill is returned as is.
func FillRaw(dst *Array, bigEndian bool, fill func(dst []byte) error) error {
	if err := checkArrays("FillRaw", dst); err != nil {
		return err
	}
	if !dst.IsCContiguous() {
		return &ShapeError{Op: "FillRaw", Shapes: [][]int{dst.shape}, Reason: "dst must be C-contiguous"}
	}
	sz := dst.dtype.Size()
	raw := rawBytes(dst.data)[dst.offset*sz : (dst.offset+dst.Size())*sz : (dst.offset+dst.Size())*sz]
	if err := fill(raw); err != nil {
		return err
	}
	fixRaw(dst.dtype, raw, bigEndian)
	return nil
}
