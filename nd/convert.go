package nd

import (
	"fmt"
	"reflect"
	"slices"
)

// AsType returns a converted to d with numpy's unsafe casting rules: floats
// truncate toward zero into integers, complex numbers drop their imaginary
// part into reals, anything non-zero is true. Converting to the same dtype
// returns a itself.
func (a *Array) AsType(d DType) (*Array, error) {
	if err := checkArrays("AsType", a); err != nil {
		return nil, err
	}
	if !d.Valid() {
		return nil, &DTypeError{Text: d.String(), Reason: "invalid dtype"}
	}
	if d == a.dtype {
		return a, nil
	}
	out := alloc(d, a.shape)
	convertInto(out.data, a)
	return out, nil
}

// ScalarOf returns a 0-d array holding the Go value v: a bool, any sized or
// plain integer (int → int64, uint → uint64), float or complex.
func ScalarOf(v any) (*Array, error) {
	switch x := v.(type) {
	case bool:
		return Scalar(x), nil
	case int:
		return Scalar(int64(x)), nil
	case uint:
		return Scalar(uint64(x)), nil
	case int8:
		return Scalar(x), nil
	case int16:
		return Scalar(x), nil
	case int32:
		return Scalar(x), nil
	case int64:
		return Scalar(x), nil
	case uint8:
		return Scalar(x), nil
	case uint16:
		return Scalar(x), nil
	case uint32:
		return Scalar(x), nil
	case uint64:
		return Scalar(x), nil
	case float32:
		return Scalar(x), nil
	case float64:
		return Scalar(x), nil
	case complex64:
		return Scalar(x), nil
	case complex128:
		return Scalar(x), nil
	case *Array:
		if x.NDim() != 0 {
			return nil, &ShapeError{Op: "ScalarOf", Shapes: [][]int{x.shape}, Reason: "not 0-d"}
		}
		return x, nil
	}
	return nil, fmt.Errorf("nd: %T is not a scalar", v)
}

// setFromAny stores the Go scalar v, converted, at dst[i] (dst a backing
// slice).
func setFromAny(dst any, i int, v any) error {
	s, err := ScalarOf(v)
	if err != nil {
		return err
	}
	one := reflect.MakeSlice(reflect.TypeOf(dst), 1, 1).Interface()
	convertInto(one, s)
	reflect.ValueOf(dst).Index(i).Set(reflect.ValueOf(one).Index(0))
	return nil
}

// convertInto writes the elements of src, converted, in C order into the
// backing slice dst (len = src.Size()).
func convertInto(dst any, src *Array) {
	switch s := src.data.(type) {
	case []bool:
		fromBool(dst, s, src)
	case []int8:
		fromReal(dst, s, src)
	case []int16:
		fromReal(dst, s, src)
	case []int32:
		fromReal(dst, s, src)
	case []int64:
		fromReal(dst, s, src)
	case []uint8:
		fromReal(dst, s, src)
	case []uint16:
		fromReal(dst, s, src)
	case []uint32:
		fromReal(dst, s, src)
	case []uint64:
		fromReal(dst, s, src)
	case []float32:
		fromReal(dst, s, src)
	case []float64:
		fromReal(dst, s, src)
	case []complex64:
		fromComplex(dst, s, src)
	case []complex128:
		fromComplex(dst, s, src)
	}
}

func fromReal[S Real](dst any, s []S, g *Array) {
	switch d := dst.(type) {
	case []bool:
		convToBool(d, s, g)
	case []int8:
		convRR(d, s, g)
	case []int16:
		convRR(d, s, g)
	case []int32:
		convRR(d, s, g)
	case []int64:
		convRR(d, s, g)
	case []uint8:
		convRR(d, s, g)
	case []uint16:
		convRR(d, s, g)
	case []uint32:
		convRR(d, s, g)
	case []uint64:
		convRR(d, s, g)
	case []float32:
		convRR(d, s, g)
	case []float64:
		convRR(d, s, g)
	case []complex64:
		convRC(d, s, g)
	case []complex128:
		convRC(d, s, g)
	}
}

func fromComplex[S ~complex64 | ~complex128](dst any, s []S, g *Array) {
	switch d := dst.(type) {
	case []bool:
		convToBool(d, s, g)
	case []int8:
		convCR(d, s, g)
	case []int16:
		convCR(d, s, g)
	case []int32:
		convCR(d, s, g)
	case []int64:
		convCR(d, s, g)
	case []uint8:
		convCR(d, s, g)
	case []uint16:
		convCR(d, s, g)
	case []uint32:
		convCR(d, s, g)
	case []uint64:
		convCR(d, s, g)
	case []float32:
		convCR(d, s, g)
	case []float64:
		convCR(d, s, g)
	case []complex64:
		convCC(d, s, g)
	case []complex128:
		convCC(d, s, g)
	}
}

func fromBool(dst any, s []bool, g *Array) {
	switch d := dst.(type) {
	case []bool:
		gather(d, s, g)
	case []int8:
		convFromBool(d, s, g)
	case []int16:
		convFromBool(d, s, g)
	case []int32:
		convFromBool(d, s, g)
	case []int64:
		convFromBool(d, s, g)
	case []uint8:
		convFromBool(d, s, g)
	case []uint16:
		convFromBool(d, s, g)
	case []uint32:
		convFromBool(d, s, g)
	case []uint64:
		convFromBool(d, s, g)
	case []float32:
		convFromBool(d, s, g)
	case []float64:
		convFromBool(d, s, g)
	case []complex64:
		convFromBool(d, s, g)
	case []complex128:
		convFromBool(d, s, g)
	}
}

func convRR[D, S Real](dst []D, src []S, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		d := dst[i : i+n]
		if step == 1 {
			for k, x := range src[off : off+n] {
				d[k] = D(x)
			}
		} else {
			for k := range d {
				d[k] = D(src[off+k*step])
			}
		}
		i += n
	})
}

func convRC[D ~complex64 | ~complex128, S Real](dst []D, src []S, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			dst[i+k] = D(complex(float64(src[off+k*step]), 0))
		}
		i += n
	})
}

func convCR[D Real, S ~complex64 | ~complex128](dst []D, src []S, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			dst[i+k] = D(real(complex128(src[off+k*step])))
		}
		i += n
	})
}

func convCC[D, S ~complex64 | ~complex128](dst []D, src []S, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			dst[i+k] = D(src[off+k*step])
		}
		i += n
	})
}

func convToBool[S Number](dst []bool, src []S, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			dst[i+k] = src[off+k*step] != 0
		}
		i += n
	})
}

func convFromBool[D Number](dst []D, src []bool, g *Array) {
	i := 0
	ForEachOffset(g.shape, g.strides, g.offset, func(off, n, step int) {
		for k := 0; k < n; k++ {
			if src[off+k*step] {
				dst[i+k] = 1
			} else {
				dst[i+k] = 0
			}
		}
		i += n
	})
}

// AsTypeInto writes src converted to dst's dtype (numpy's unsafe casting,
// as AsType) into dst, a C-contiguous array of src's shape: AsType
// without the allocation, for evaluators that reuse buffers.
func AsTypeInto(dst, src *Array) error {
	if !dst.IsCContiguous() || !slices.Equal(dst.shape, src.shape) {
		return &ShapeError{Op: "astype", Shapes: [][]int{dst.shape, src.shape}, Reason: "dst must be C-contiguous with src's shape"}
	}
	var d any
	switch x := dst.data.(type) {
	case []bool:
		d = x[dst.offset:]
	case []int8:
		d = x[dst.offset:]
	case []int16:
		d = x[dst.offset:]
	case []int32:
		d = x[dst.offset:]
	case []int64:
		d = x[dst.offset:]
	case []uint8:
		d = x[dst.offset:]
	case []uint16:
		d = x[dst.offset:]
	case []uint32:
		d = x[dst.offset:]
	case []uint64:
		d = x[dst.offset:]
	case []float32:
		d = x[dst.offset:]
	case []float64:
		d = x[dst.offset:]
	case []complex64:
		d = x[dst.offset:]
	case []complex128:
		d = x[dst.offset:]
	default:
		return &DTypeError{Text: dst.dtype.String(), Reason: "astype into an unknown dtype"}
	}
	convertInto(d, src)
	return nil
}
