package nd

import (
	"fmt"
	"reflect"
	"strings"
)

// DType is an element type, numpy's dtype. The zero value is Invalid.
type DType uint8

// The dtypes, in numpy's order of kinds.
const (
	Invalid DType = iota
	Bool
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
	Complex64
	Complex128
	numDTypes
)

// DTypes lists every valid dtype.
var DTypes = []DType{Bool, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Float32, Float64, Complex64, Complex128}

var dtypeInfo = [numDTypes]struct {
	name string
	kind byte
	size int
	typ  reflect.Type
}{
	Invalid:    {"invalid", 0, 0, nil},
	Bool:       {"bool", 'b', 1, reflect.TypeFor[bool]()},
	Int8:       {"int8", 'i', 1, reflect.TypeFor[int8]()},
	Int16:      {"int16", 'i', 2, reflect.TypeFor[int16]()},
	Int32:      {"int32", 'i', 4, reflect.TypeFor[int32]()},
	Int64:      {"int64", 'i', 8, reflect.TypeFor[int64]()},
	Uint8:      {"uint8", 'u', 1, reflect.TypeFor[uint8]()},
	Uint16:     {"uint16", 'u', 2, reflect.TypeFor[uint16]()},
	Uint32:     {"uint32", 'u', 4, reflect.TypeFor[uint32]()},
	Uint64:     {"uint64", 'u', 8, reflect.TypeFor[uint64]()},
	Float32:    {"float32", 'f', 4, reflect.TypeFor[float32]()},
	Float64:    {"float64", 'f', 8, reflect.TypeFor[float64]()},
	Complex64:  {"complex64", 'c', 8, reflect.TypeFor[complex64]()},
	Complex128: {"complex128", 'c', 16, reflect.TypeFor[complex128]()},
}

// Valid reports whether d is one of DTypes.
func (d DType) Valid() bool { return d > Invalid && d < numDTypes }

// String returns numpy's name: "float64", "uint16", "bool".
func (d DType) String() string {
	if !d.Valid() {
		return fmt.Sprintf("DType(%d)", uint8(d))
	}
	return dtypeInfo[d].name
}

// Kind returns numpy's kind character: 'b', 'i', 'u', 'f' or 'c'.
func (d DType) Kind() byte {
	if !d.Valid() {
		return 0
	}
	return dtypeInfo[d].kind
}

// Size returns the size of one element in bytes.
func (d DType) Size() int {
	if !d.Valid() {
		return 0
	}
	return dtypeInfo[d].size
}

// GoType returns the Go type of the elements.
func (d DType) GoType() reflect.Type {
	if !d.Valid() {
		return nil
	}
	return dtypeInfo[d].typ
}

// IsInteger, IsUnsigned, IsFloat, IsComplex and IsBool classify d.
func (d DType) IsInteger() bool  { k := d.Kind(); return k == 'i' || k == 'u' }
func (d DType) IsUnsigned() bool { return d.Kind() == 'u' }
func (d DType) IsFloat() bool    { return d.Kind() == 'f' }
func (d DType) IsComplex() bool  { return d.Kind() == 'c' }
func (d DType) IsBool() bool     { return d.Kind() == 'b' }

// Descr returns numpy's array-protocol type string in little-endian form,
// as .npy headers and zarr v2 metadata write it: "<f8", "|u1", "|b1".
func (d DType) Descr() string {
	if !d.Valid() {
		return ""
	}
	if d.Size() == 1 {
		return fmt.Sprintf("|%c%d", d.Kind(), d.Size())
	}
	return fmt.Sprintf("<%c%d", d.Kind(), d.Size())
}

// DTypeError reports a dtype name or descriptor tessera does not support.
type DTypeError struct {
	Text   string
	Reason string
}

func (e *DTypeError) Error() string { return fmt.Sprintf("nd: dtype %q: %s", e.Text, e.Reason) }

// ParseDType accepts numpy names ("float32", "uint8", "bool", "complex128"),
// and array-protocol strings ("<f4", "|u1", "f8", "i4", "?", ">i2"). It
// returns the dtype and whether the text names big-endian data; readers
// byte-swap such data.
func ParseDType(s string) (DType, bool, error) {
	t := strings.TrimSpace(s)
	for d := Bool; d < numDTypes; d++ {
		if t == dtypeInfo[d].name {
			return d, false, nil
		}
	}
	switch t {
	case "?", "b1", "|b1", "<b1", ">b1", "=b1":
		return Bool, false, nil
	}
	if t == "" {
		return Invalid, false, &DTypeError{Text: s, Reason: "empty"}
	}
	big := false
	switch t[0] {
	case '<', '|', '=':
		t = t[1:]
	case '>':
		big = true
		t = t[1:]
	}
	if len(t) < 2 {
		return Invalid, false, &DTypeError{Text: s, Reason: "not a numpy dtype"}
	}
	kind, size := t[0], t[1:]
	for d := Bool; d < numDTypes; d++ {
		if dtypeInfo[d].kind == kind && fmt.Sprint(dtypeInfo[d].size) == size {
			if d.Size() == 1 {
				big = false
			}
			return d, big, nil
		}
	}
	return Invalid, false, &DTypeError{Text: s, Reason: "unsupported dtype (tessera has bool, int8-64, uint8-64, float32/64, complex64/128)"}
}

// DTypeOf returns the dtype whose elements have Go type t.
func DTypeOf(t reflect.Type) (DType, bool) {
	for d := Bool; d < numDTypes; d++ {
		if dtypeInfo[d].typ == t {
			return d, true
		}
	}
	return Invalid, false
}

// DTypeFor returns the dtype of T.
func DTypeFor[T Elem]() DType {
	d, _ := DTypeOf(reflect.TypeFor[T]())
	return d
}

// Elem is the set of Go element types of arrays.
type Elem interface {
	~bool | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Number is Elem without bool.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Real is Number without the complex types: the types with an order.
type Real interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}
