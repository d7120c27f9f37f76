package udfbridge_test

import (
	"context"
	"fmt"
	"net"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/udfbridge"
)

// A detector stream: a goroutine plays the detector, sending a 2×3 scan
// of 2×2 frames; the dataset receives it and RunIter gives the frame sums (SumSigUDF) per
// partition as the frames arrive.
func ExampleDialLive() {
	v := make([]uint16, 24)
	for i := range v {
		v[i] = uint16(i)
	}
	scan, _ := nd.FromSlice(v, 2, 3, 2, 2)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		udfbridge.SendFrames(c, scan, 2, false)
	}()

	ctx := context.Background()
	ds, err := udfbridge.DialLive(ctx, ln.Addr().String(), udfbridge.LiveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ds.Close()
	fmt.Println(ds.NavShape(), ds.SigShape(), ds.DType())
	it, err := udfbridge.RunIter(ds, []udfbridge.UDF{&udfbridge.SumSigUDF{}}, udfbridge.WithPartitions(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	for it.Next(ctx) {
		p := it.Partial()
		sum, _ := p.Results[0].Data("intensity")
		fmt.Printf("%d of %d partitions: %v\n", p.Done, p.Total, sum)
	}
	if err := it.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// [2 3] [2 2] uint16
	// 1 of 2 partitions: [[ 6. 22. 38.]
	//  [nan nan nan]]
	// 2 of 2 partitions: [[ 6. 22. 38.]
	//  [54. 70. 86.]]
}
