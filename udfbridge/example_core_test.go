package udfbridge_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/udfbridge"
)

// frameMax is a minimal UDF: the maximum of each frame, into a nav buffer.
type frameMax struct{}

func (frameMax) Name() string            { return "example.framemax" }
func (frameMax) Params() ([]byte, error) { return nil, nil }
func (frameMax) Buffers(m *udfbridge.Meta) ([]udfbridge.BufferDecl, error) {
	return []udfbridge.BufferDecl{udfbridge.NavBuffer("max", nd.Float32)}, nil
}
func (frameMax) ProcessFrame(c *udfbridge.Ctx, frame *nd.Array) error {
	m, err := nd.Reduce(nd.Max, frame, nil, false)
	if err != nil {
		return err
	}
	m, err = m.Reshape(1)
	if err != nil {
		return err
	}
	dst := c.Buf("max")
	return nd.BinaryInto(nd.Add, dst, dst, m)
}

func init() {
	udfbridge.RegisterUDF("example.framemax", func([]byte) (udfbridge.UDF, error) { return frameMax{}, nil })
}

func ExampleRun() {
	vals := make([]float32, 2*3*2*2)
	for i := range vals {
		vals[i] = float32(i)
	}
	data, _ := nd.FromSlice(vals, 2, 3, 2, 2) // nav 2×3, sig 2×2
	ds, _ := udfbridge.NewMemoryDataset(data, 2)
	res, err := udfbridge.Run(context.Background(), ds, []udfbridge.UDF{frameMax{}}, udfbridge.WithPartitions(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := res[0].Data("max")
	v, _ := nd.Values[float32](m)
	fmt.Println(m.Shape(), v)
	// Output: [2 3] [3 7 11 15 19 23]
}
