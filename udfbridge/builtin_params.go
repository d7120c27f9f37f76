package udfbridge

import (
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// The built-in UDFs encode their parameters as JSON; arrays (mask
// stacks) travel as EncodedArrays.

// EncodedArray is an nd.Array in a form encoding/json (or gob) can carry
// inside a UDF's Params: numpy's dtype name, the shape and the C-order
// little-endian bytes (base64 in JSON). A UDF with aux data or array
// parameters embeds one per array in its params struct (EncodeArray) and
// decodes it in its factory (Decode), as the built-in ApplyMasksUDF does.
type EncodedArray struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []byte `json:"data"`
}

// EncodeArray encodes a (nil for a nil array).
func EncodeArray(a *nd.Array) *EncodedArray {
	if a == nil {
		return nil
	}
	return &EncodedArray{DType: a.DType().String(), Shape: a.Shape(), Data: a.AppendBytes(nil, false)}
}

// Decode returns the array (nil for a nil EncodedArray); a dtype, shape
// or byte count that do not agree is an error.
func (e *EncodedArray) Decode() (*nd.Array, error) {
	if e == nil {
		return nil, nil
	}
	d, big, err := nd.ParseDType(e.DType)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: encoded array: %w", err)
	}
	a, err := nd.FromBytes(d, e.Shape, e.Data, false, big)
	if err != nil {
		return nil, fmt.Errorf("udfbridge: encoded array: %w", err)
	}
	return a, nil
}

// decodeParams unmarshals params into v, naming the UDF on error; empty
// params leave v at its zero value.
func decodeParams(udf string, params []byte, v any) error {
	if len(params) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return fmt.Errorf("udfbridge: UDF %s: decoding params: %w", udf, err)
	}
	return nil
}

// addInto adds src to the buffer view dst in place.
func addInto(dst, src *nd.Array) error { return nd.BinaryInto(nd.Add, dst, dst, src) }

// sumFrames sums a tile (t,)+region over its frames.
func sumFrames(tile *nd.Array) (*nd.Array, error) {
	return nd.Reduce(nd.Sum, tile, []int{0}, false)
}

// udfErr wraps err as a UDFError of the named step.
func udfErr(udf, step string, err error) error {
	if err == nil {
		return nil
	}
	return &UDFError{UDF: udf, Step: step, Err: err}
}
