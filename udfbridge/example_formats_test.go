package udfbridge_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tessera-go/tessera/udfbridge"
)

// ExampleOpen writes a small MRC file (a 1024-byte header, then 4 frames
// of 2×3 uint16) and opens it without saying its format: Open reads the
// "MAP " stamp, and SumUDF sums its frames.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "example-open")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	head := make([]byte, 1024)
	for i, v := range []uint32{3, 2, 4, 6} { // NX, NY, NZ, MODE 6 (uint16)
		binary.LittleEndian.PutUint32(head[4*i:], v)
	}
	copy(head[208:], "MAP \x44\x44")
	b := head
	for i := range 4 * 2 * 3 {
		b = binary.LittleEndian.AppendUint16(b, uint16(i))
	}
	path := filepath.Join(dir, "stack.data")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		panic(err)
	}

	ds, err := udfbridge.Open(path, udfbridge.WithNavShape(2, 2))
	if err != nil {
		panic(err)
	}
	spec, _ := ds.Spec()
	fmt.Println(spec.Kind, ds.NavShape(), ds.SigShape(), ds.DType())
	res, err := udfbridge.Run(context.Background(), ds, []udfbridge.UDF{&udfbridge.SumUDF{}})
	if err != nil {
		panic(err)
	}
	sum, _ := res[0].Data("intensity")
	fmt.Println(sum)

	_, err = udfbridge.Open(filepath.Join(dir, "frames.raw"))
	fmt.Println(err != nil)
	// Output:
	// mrc [2 2] [2 3] uint16
	// [[36. 40. 44.]
	//  [48. 52. 56.]]
	// true
}
