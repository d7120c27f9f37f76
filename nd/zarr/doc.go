// Package zarr reads and writes zarr arrays (format versions 2 and 3) on a
// local file system, one chunk file at a time.
//
// # Model
//
// A zarr array is a folder: a metadata file (.zarray in v2, zarr.json in
// v3) and one file per chunk of a regular chunk grid. Open reads only the
// metadata; ReadChunk reads and decodes one chunk file; WriteChunk encodes
// and writes one. Nothing loads a whole store: a chunked array reads its
// blocks through ReadChunk as its tasks run. The Array's methods are safe
// for concurrent use, and WriteChunk replaces a file atomically (write a
// temporary file, rename), so that parallel tasks may write distinct
// chunks of one store.
//
// Edge chunks are stored full-size, padded with the fill value, as
// zarr-python stores them; ReadChunk crops them to the array bounds and
// WriteChunk accepts the cropped (or the full) shape. A chunk file that
// does not exist reads as the fill value, returned as a zero-stride view
// (nd.Full) that costs one element. Chunks stored in Fortran order (or
// through a v3 transpose codec) come back as strided views of the decoded
// bytes; call Contiguous for C order.
//
// # Zarr v2
//
// Supported in .zarray: zarr_format 2; shape; chunks; dtype as a
// typestring for every nd dtype, little- or big-endian ("<f8", ">i4",
// "|b1"; big-endian data is swapped on read and written big-endian to
// such a store); fill_value as a number, true/false, "NaN", "Infinity",
// "-Infinity", [re, im] for complex, or null (read as zero); order "C" or
// "F"; dimension_separator "." (chunk files "0.1") or "/" ("0/1"); a 0-d
// array's one chunk is "0". Compressors: null, zlib, gzip and zstd for
// reading and writing (github.com/klauspost/compress; one zstd decoder
// and one encoder per level are shared, since they cost far more to build
// than a small chunk costs to decode); blosc for reading only, through
// nd/zarr/blosc (zarr-python's default: lz4, zstd or zlib with
// byte shuffle or none). .zattrs is neither needed nor read.
//
// Refused, with an error naming the file: filters other than null (delta,
// fixedscaleoffset, ...: they change values, and silently skipping one
// would return wrong data); structured, string, object, datetime and
// float16 dtypes; other compressors (lz4, bz2, lzma); writing blosc
// ("writing blosc is not supported; use zstd or zlib": a blosc encoder
// would be a second compressor implementation to keep exact, and zstd
// reads everywhere blosc does).
//
// # Zarr v3
//
// The final v3 specification: zarr.json with node_type "array",
// data_type by name ("float32", "complex128", "bool", ...), chunk_grid
// "regular", chunk_key_encoding "default" ("c/0/1"; "c" for 0-d) with
// separator "/" or ".", or "v2" ("0.1"); fill_value as in v2 plus hex bit
// patterns ("0x7fc00000") for floats; codecs: an optional "transpose"
// (order a permutation, or "C"/"F" of earlier drafts), "bytes" with endian
// little or big, then at most one of "gzip" {level} and "zstd" {level,
// checksum} (and "blosc" for reading). Create writes "F" order as a
// transpose codec with the reversed axes. Refused: sharding, crc32c and
// other codecs, storage transformers, other chunk grids and data types.
// zlib is not a v3 codec, so Create refuses it for v3.
//
// Debian's zarr-python 2.13 cannot write final-spec v3 stores, so v3 is
// tested by Go round trips and by a store whose zarr.json is written by
// hand from the specification and whose chunks the test encodes with the
// standard library (TestReadV3HandWritten). v2 is tested against stores
// written by zarr-python (testdata/gen.py) and by zarr-python reading
// stores that Go wrote (TestInteropZarrPython, skipped when python3-zarr
// is missing).
//
// # Speed
//
// ReadChunk decodes straight into the new chunk's memory: an uncompressed
// chunk is one read from its file; a compressed one is read into a
// scratch buffer and decompressed in place (zstd DecodeAll, blosc
// DecompressInto, zlib/gzip streams). ReadChunkWith takes that buffer
// from a run's free list (package freelist) and keeps the blosc decoder's
// state in a Scratch from chunk to chunk; ReadChunk and ReadChunkInto
// allocate it per chunk. Reading a 4000×4000 int32 store in 1000×1000 chunks
// from the page cache (go test -bench Read4000 ./nd/zarr, 2 cores,
// noisy): none 4.6 GB/s, zstd 8.8 GB/s, gzip 4.1 GB/s, zlib 1.9 GB/s
// (values 0-99 compress well, so zstd beats a plain copy from the file).
//
// # Errors
//
// Every failure is an *Error whose Path names the metadata file, the
// chunk file or the store: missing or bad metadata JSON (FuzzParseMetadataV2
// and FuzzParseMetadataV3 hold the parsers to "no panic, and what parses
// round-trips"), unsupported dtype or codec, corrupt or truncated chunks
// (a chunk must decompress to exactly the chunk's bytes), chunk indices
// out of range, and dtype or shape mismatches on WriteChunk.
//
// # Bad data is refused, not obeyed
//
// A store may come from anyone, and a worker that obeys its sizes dies of
// out-of-memory, so every size read from a store is checked before it
// sizes anything. Metadata: at most 64 axes; no negative dimension; chunks
// positive; the shape's non-zero dimensions times the item size fit an
// int64 (numpy's rule: (0, 2**62, 2**62) holds no element, but its chunk
// grid overflows); a chunk of at most 2 GiB; the grid computed as
// ceil(shape/chunks) without the overflow of (s+c-1)/c; metadata files of
// at most 16 MiB. Chunks: a compressed file larger than any encoding of
// its chunk (chunk + chunk/8 + 64 KiB) is refused unread; every codec
// decodes into the chunk's own memory and is capped at its size (zstd by
// its cap limit, whatever the frame header claims; zlib and gzip by
// reading into the chunk and then one byte more; blosc by checking its
// header's nbytes against the chunk before decoding, and its blocks
// against the header), and a chunk that decodes to another size is an
// error. TestBadMetadataRefused and TestBadChunksRefused hold each failed
// read to a small allocation (runtime.MemStats.TotalAlloc); FuzzReadChunk
// and the metadata fuzz targets hold arbitrary input to it.
package zarr
