package main

import (
	"context"
	"fmt"
	"io"

	"github.com/tessera-go/tessera/chunkarray"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/udfbridge"
)

// demoUDF runs LiberTEM's first example: SumUDF (the sum of all frames) and
// SumSigUDF (the sum of each frame) in one pass over a 4-D dataset, merged
// by a tree, then lazily and step by step.
func demoUDF(ctx context.Context, w io.Writer) error {
	fmt.Fprintln(w, "\n# UDFs: SumUDF and SumSigUDF in one pass over a 16×16 nav × 64×64 sig uint16 dataset")
	nav, sig := 16, 64
	v := make([]uint16, nav*nav*sig*sig)
	for i := range v {
		v[i] = uint16((i*7 + i/4096) % 1000)
	}
	a, err := nd.FromSlice(v, nav, nav, sig, sig)
	if err != nil {
		return err
	}
	ds, err := udfbridge.NewMemoryDataset(a, 2)
	if err != nil {
		return err
	}
	udfs := []udfbridge.UDF{&udfbridge.SumUDF{}, &udfbridge.SumSigUDF{}}
	res, err := udfbridge.Run(ctx, ds, udfs, udfbridge.WithPartitions(7))
	if err != nil {
		return err
	}
	sum, err := res[0].Data("intensity")
	if err != nil {
		return err
	}
	perFrame, err := res[1].Data("intensity")
	if err != nil {
		return err
	}
	s0, _ := sum.At(0, 0)
	f0, _ := perFrame.At(0, 0)
	fmt.Fprintf(w, "SumUDF intensity %v %v, [0,0] = %v; SumSigUDF intensity %v %v, [0,0] = %v (input dtype float32)\n",
		sum.DType(), sum.Shape(), s0, perFrame.DType(), perFrame.Shape(), f0)

	lazy, err := udfbridge.RunLazy(ds, udfs, udfbridge.WithPartitions(7), udfbridge.WithMerge(udfbridge.MergeAllNode))
	if err != nil {
		return err
	}
	got, err := chunkarray.Compute(ctx, []*chunkarray.Array{lazy[0].Arrays["intensity"], lazy[1].Arrays["intensity"]})
	if err != nil {
		return err
	}
	l0, _ := got[0].At(0, 0)
	fmt.Fprintf(w, "lazy (merge_all node), both buffers computed together: [0,0] = %v\n", l0)

	it, err := udfbridge.RunIter(ds, udfs[1:], udfbridge.WithPartitions(4))
	if err != nil {
		return err
	}
	for it.Next(ctx) {
		p := it.Partial()
		dm, _ := nd.Values[bool](p.Damage)
		n := 0
		for _, d := range dm {
			if d {
				n++
			}
		}
		fmt.Fprintf(w, "run_udf_iter: %d/%d partitions merged, damage covers %d of %d frames\n", p.Done, p.Total, n, len(dm))
	}
	return it.Err()
}
