package udfbridge

import (
	"encoding/json"
	"fmt"

	"github.com/tessera-go/tessera/nd"
)

// The built-in UDFs encode their parameters as JSON; arrays (mask
// stacks) travel as dtype, shape and little-endian C-order bytes, which
// encoding/json writes as base64.

type encArray struct {
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	Data  []byte `json:"data"`
}

func encodeArray(a *nd.Array) *encArray {
	if a == nil {
		return nil
	}
	return &encArray{DType: a.DType().String(), Shape: a.Shape(), Data: a.AppendBytes(nil, false)}
}

func (e *encArray) decode() (*nd.Array, error) {
	if e == nil {
		return nil, nil
	}
	d, big, err := nd.ParseDType(e.DType)
	if err != nil {
		return nil, err
	}
	return nd.FromBytes(d, e.Shape, e.Data, false, big)
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
