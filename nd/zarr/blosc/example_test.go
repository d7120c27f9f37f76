package blosc_test

import (
	"encoding/binary"
	"fmt"
	"os"

	"github.com/tessera-go/tessera/nd/zarr/blosc"
)

// A chunk file of a zarr array written by zarr-python with its default
// compressor (lz4, byte shuffle) holds one blosc buffer.
func ExampleDecompress() {
	src, err := os.ReadFile("testdata/lz4_shuffle_t8_small.blosc")
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, err := blosc.Decompress(src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(raw), "bytes; first values:", binary.LittleEndian.Uint64(raw), binary.LittleEndian.Uint64(raw[8:]), binary.LittleEndian.Uint64(raw[16:]))
	// Output: 4000 bytes; first values: 0 761 522
}

func ExampleReadInfo() {
	src, err := os.ReadFile("testdata/zstd_shuffle_t4_several.blosc")
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := blosc.ReadInfo(src)
	fmt.Printf("%s shuffle=%v typesize=%d nbytes=%d blocksize=%d err=%v\n", h.Codec, h.Shuffle, h.TypeSize, h.NBytes, h.BlockSize, err)
	// Output: zstd shuffle=true typesize=4 nbytes=333336 blocksize=262144 err=<nil>
}

func ExampleDecompress_unsupported() {
	src, err := os.ReadFile("testdata/unsupported_bitshuffle_lz4.blosc")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = blosc.Decompress(src)
	fmt.Println(err)
	// Output: blosc: bit-shuffle is not supported (only byte shuffle and no shuffle)
}
