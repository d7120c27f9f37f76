package udfbridge_test

import (
	"context"
	"fmt"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/udfbridge"
)

// SumUDF and SumSigUDF in one pass over a 2×2 nav × 2×3 sig dataset of
// uint16 (summed as float32, their preferred input dtype), with a mask
// stack applied beside them.
func ExampleSumUDF() {
	v := make([]uint16, 24)
	for i := range v {
		v[i] = uint16(i)
	}
	data, _ := nd.FromSlice(v, 2, 2, 2, 3)
	ds, err := udfbridge.NewMemoryDataset(data, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := nd.FromSlice([]float32{1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1}, 2, 2, 3) // pixel (0, 0); all
	masks, _ := udfbridge.DenseMasks(m, []int{2, 3})
	res, err := udfbridge.Run(context.Background(), ds,
		[]udfbridge.UDF{&udfbridge.SumUDF{}, &udfbridge.SumSigUDF{}, udfbridge.ApplyMasks(masks)},
		udfbridge.WithScheduler(sched.Sync{}), udfbridge.WithPartitions(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		d, _ := r.Data("intensity")
		x, _ := nd.Values[float32](d)
		fmt.Println(d.DType(), d.Shape(), x)
	}
	// Output:
	// float32 [2 3] [36 40 44 48 52 56]
	// float32 [2 2] [15 51 87 123]
	// float32 [2 2 2] [0 15 6 51 12 87 18 123]
}
