package udfbridge_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/udfbridge"
)

func exampleDataset() *udfbridge.MemoryDataset {
	vals := make([]float32, 2*3*2*2)
	for i := range vals {
		vals[i] = float32(i)
	}
	data, _ := nd.FromSlice(vals, 2, 3, 2, 2) // nav 2×3, sig 2×2
	ds, _ := udfbridge.NewMemoryDataset(data, 2)
	return ds
}

// RunLazy returns chunkarray.Arrays; nav buffers have one block per
// partition, and computing several arrays together runs each partition
// once.
func ExampleRunLazy() {
	ds := exampleDataset()
	roi, _ := nd.FromSlice([]bool{true, false, true, true, true, false}, 2, 3)
	lr, err := udfbridge.RunLazy(ds, []udfbridge.UDF{frameMax{}},
		udfbridge.WithPartitions(3), udfbridge.WithROI(roi))
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, data := lr[0].Raw["max"], lr[0].Arrays["max"]
	fmt.Println("raw chunks:", raw.Chunks()[0])
	vals, err := chunkarray.Compute(context.Background(), []*chunkarray.Array{raw, data})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, _ := nd.Values[float32](vals[0])
	d, _ := nd.Values[float32](vals[1])
	fmt.Println("raw:", r)
	fmt.Println("data:", vals[1].Shape(), d)
	// Output:
	// raw chunks: [1 2 1]
	// raw: [3 11 15 19]
	// data: [2 3] [3 NaN 11 15 19 NaN]
}

// RunIter yields after each merged partition: partial results and the
// damage (the positions merged so far).
func ExampleRunIter() {
	ds := exampleDataset()
	it, err := udfbridge.RunIter(ds, []udfbridge.UDF{frameMax{}}, udfbridge.WithPartitions(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for it.Next(ctx) {
		p := it.Partial()
		m, _ := p.Results[0].RawData("max")
		v, _ := nd.Values[float32](m)
		dmg, _ := nd.Values[bool](p.Damage)
		fmt.Printf("%d/%d damage %v raw %v\n", p.Done, p.Total, dmg, v)
	}
	if err := it.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1/2 damage [true true true false false false] raw [3 7 11]
	// 2/2 damage [true true true true true true] raw [3 7 11 15 19 23]
}
