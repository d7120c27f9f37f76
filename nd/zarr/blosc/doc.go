// Package blosc decodes blosc1 buffers, the format of zarr-python's default
// compressor (numcodecs.Blosc, c-blosc 1.x), so that tessera reads zarr
// stores written with default settings. It only decompresses.
//
// # Format
//
// A blosc1 buffer is a 16-byte header (format version 2, codec format
// version 1, flags, type size, then little-endian int32 nbytes, blocksize
// and cbytes), then, unless the buffer is stored raw ("memcpyed" flag), one
// int32 start offset per block, then the blocks. The data is cut into
// blocks of blocksize bytes, the last one shorter when blocksize does not
// divide nbytes (the "leftover" block). A block is either one stream or,
// when split, typesize streams of blocksize/typesize bytes. c-blosc 1.21
// splits when the dont-split flag (0x10) is clear, typesize ≤ 16,
// blocksize/typesize ≥ 128 and the block is not the leftover one; with
// default settings that is every codec but zstd. Each stream is an int32
// compressed size and the codec's output; a size equal to the stream's
// uncompressed size means the bytes are stored as they are. With the byte
// shuffle flag and typesize > 1, the block's streams hold byte 0 of every
// element, then byte 1, and so on, and the block is unshuffled after
// decoding; bytes past the last whole element are not shuffled.
//
// Blocks need not be stored in order: c-blosc's threads write each one
// where the output stands when it finishes, so only the offset table says
// where a block is (two runs of testdata/gen.py can differ in this way).
//
// The flags byte: 0x01 byte shuffle, 0x02 memcpyed, 0x04 bit shuffle, 0x08
// reserved, 0x10 dont-split, and the codec in the top three bits (0
// blosclz, 1 lz4 and lz4hc, 2 snappy, 3 zlib, 4 zstd).
//
// # Supported and refused
//
// Supported: codecs lz4, lz4hc, zlib and zstd; no shuffle and byte shuffle;
// every type size; split and unsplit blocks; memcpyed buffers (whatever codec
// they name: no codec runs, as in c-blosc). Refused with an *Error that
// unwraps to ErrUnsupported and names the variant: blosclz, snappy, bit
// shuffle, blosc2 chunks (format version ≥ 3) and frames, format versions
// other than 2, codec format versions other than 1, the reserved flag.
// Anything truncated or inconsistent gives an *Error unwrapping to
// ErrCorrupt that names the block and stream; no input makes the decoder
// panic or write outside the destination, and a header that claims more
// output than its codec could produce from the buffer's size is refused
// before anything is allocated. Scratch memory is sized by nbytes, never
// by the header's blocksize alone (which a header may set to 600 MiB for a
// 1000-byte buffer); each stream decodes into its slice of the
// destination, so lz4, zlib and zstd are all capped at what the header
// declared (TestLyingHeadersBounded, FuzzDecompress, FuzzDecodeLZ4).
//
// # Why in-house
//
// There is no pure-Go blosc module, and tessera's dependency rules allow
// only the standard library and github.com/klauspost/compress here: cgo
// bindings to c-blosc would cost every user a C toolchain and libblosc. The
// LZ4 block decoder (lz4.go) is written from the LZ4 block format
// specification; zlib and zstd come from klauspost/compress. lz4hc writes the
// same block format as lz4, so one decoder serves both. blosclz and snappy
// are rare in zarr stores (numcodecs' default is lz4), and bit shuffle needs
// a bit-transpose kernel that no store in tessera's test data uses; they are
// refused by name rather than decoded wrongly.
//
// # Performance
//
// Blocks are decoded one after another; the chunkarray layer already runs a
// task per chunk on every core. Streams decode straight into the
// destination when the block is not shuffled, and into a scratch block
// when it is (from a Decoder's free list, package freelist); unshuffle has unrolled loops for type sizes 2, 4 and 8.
// The LZ4 match copy uses one copy() when source and destination do not
// overlap and a doubling copy when they do.
package blosc
