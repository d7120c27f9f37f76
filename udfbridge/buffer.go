package udfbridge

import (
	"errors"
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// BufferKind says how a result buffer relates to the dataset.
type BufferKind uint8

const (
	// Nav: one element of shape Extra per nav position; (r_p,)+E in a
	// partition, (r,)+E flat in RawData, nav+E in Data.
	Nav BufferKind = iota + 1
	// Sig: shape sig+E, viewed at the tile's sig region while processing.
	Sig
	// Single: shape Extra, or (1,) when Extra is empty.
	Single
)

func (k BufferKind) String() string {
	switch k {
	case Nav:
		return "nav"
	case Sig:
		return "sig"
	case Single:
		return "single"
	}
	return fmt.Sprintf("BufferKind(%d)", k)
}

// Where says where a buffer lives.
type Where uint8

const (
	Host Where = iota
	Device
)

// Use says how a buffer is returned.
type Use uint8

const (
	// UseDefault buffers are allocated, merged and returned.
	UseDefault Use = iota
	// UsePrivate buffers are merged like any other, never returned.
	UsePrivate
	// UseResultOnly buffers are never allocated on workers; GetResults
	// must set them.
	UseResultOnly
)

// ObjectDType and BytesDType stand for numpy's dtype=object and 'S1'
// (one-byte strings), which LiberTEM allows for buffers. tessera does not:
// a buffer is an nd.Array, whose elements are fixed-size numbers or bools
// that views, merges, the fill value and the wire codec all rely on, and
// an object element (any Go value) would need a second buffer type through
// every one of them. A declaration with either is refused at the start of
// the run with a *BufferError wrapping ErrUnsupportedDType. What to use
// instead: for 'S1', Uint8 (the same bytes, one per element); for
// per-frame values of varying size, a nav buffer of a fixed extra shape
// with a length buffer beside it, or a result_only buffer that GetResults
// fills from a UDF-side summary.
const (
	ObjectDType nd.DType = 0xfd
	BytesDType  nd.DType = 0xfe
)

// ErrUnsupportedDType is wrapped by the *BufferError of a buffer declared
// with ObjectDType or BytesDType.
var ErrUnsupportedDType = errors.New("object and byte-string buffers are not supported (nd arrays hold fixed-size numbers and bools): use Uint8 for 'S1', a fixed extra shape or a result_only buffer for objects")

// BufferDecl declares one result buffer (LiberTEM's self.buffer(...)).
// DType Invalid (zero) means Float32.
type BufferDecl struct {
	Name  string
	Kind  BufferKind
	Extra []int
	DType nd.DType
	Where Where
	Use   Use
}

// NavBuffer, SigBuffer and SingleBuffer are shorthands for declarations.
func NavBuffer(name string, dt nd.DType, extra ...int) BufferDecl {
	return BufferDecl{Name: name, Kind: Nav, DType: dt, Extra: extra}
}
func SigBuffer(name string, dt nd.DType, extra ...int) BufferDecl {
	return BufferDecl{Name: name, Kind: Sig, DType: dt, Extra: extra}
}
func SingleBuffer(name string, dt nd.DType, extra ...int) BufferDecl {
	return BufferDecl{Name: name, Kind: Single, DType: dt, Extra: extra}
}

// shape returns the buffer's shape for nav length navLen (partition or
// flat ROI-compressed) and the dataset's sig shape.
func (d BufferDecl) shape(navLen int, sig []int) []int {
	switch d.Kind {
	case Nav:
		return append([]int{navLen}, d.Extra...)
	case Sig:
		return append(append([]int(nil), sig...), d.Extra...)
	default:
		if len(d.Extra) == 0 {
			return []int{1}
		}
		return append([]int(nil), d.Extra...)
	}
}

func (d BufferDecl) dtype() nd.DType {
	if d.DType == nd.Invalid {
		return nd.Float32
	}
	return d.DType
}

// BufferError is an error about one buffer of one UDF.
type BufferError struct {
	UDF, Buffer string
	Err         error
}

func (e *BufferError) Error() string {
	return fmt.Sprintf("udfbridge: UDF %s: buffer %q: %v", e.UDF, e.Buffer, e.Err)
}
func (e *BufferError) Unwrap() error { return e.Err }

// UDFError is an error about one UDF, in the named step.
type UDFError struct {
	UDF, Step string
	Err       error
}

func (e *UDFError) Error() string {
	return fmt.Sprintf("udfbridge: UDF %s: %s: %v", e.UDF, e.Step, e.Err)
}
func (e *UDFError) Unwrap() error { return e.Err }
