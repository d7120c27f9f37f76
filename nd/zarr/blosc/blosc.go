package blosc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/tessera-go/tessera/freelist"
)

// Sentinels that every *Error unwraps to, for errors.Is.
var (
	// ErrUnsupported marks a well-formed buffer that uses a variant this
	// package does not decode (blosclz, snappy, bit-shuffle, blosc2).
	ErrUnsupported = errors.New("blosc: unsupported variant")
	// ErrCorrupt marks a buffer that is truncated or inconsistent.
	ErrCorrupt = errors.New("blosc: corrupt buffer")
	// ErrShortDst marks a destination too small for the decompressed bytes.
	ErrShortDst = errors.New("blosc: destination too small")
)

// Error is the error every function of this package returns. Reason says
// what was found, naming the variant, block or stream; Kind is one of the
// sentinels; Cause, if any, is the codec's own error.
type Error struct {
	Reason string
	Kind   error
	Cause  error
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return "blosc: " + e.Reason + ": " + e.Cause.Error()
	}
	return "blosc: " + e.Reason
}

// Unwrap gives the sentinel and the cause, for errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	errs := []error{}
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	return errs
}

func unsupported(format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...), Kind: ErrUnsupported}
}

func corrupt(cause error, format string, args ...any) error {
	return &Error{Reason: fmt.Sprintf(format, args...), Kind: ErrCorrupt, Cause: cause}
}

// The blosc1 header, as c-blosc 1.x writes it (all integers little-endian):
//
//	byte 0      format version (2)
//	byte 1      codec format version (1 for every codec)
//	byte 2      flags
//	byte 3      type size in bytes
//	bytes 4-7   nbytes: uncompressed size
//	bytes 8-11  blocksize
//	bytes 12-15 cbytes: compressed size, header included
const (
	headerSize    = 16
	formatVersion = 2
	codecVersion  = 1

	flagShuffle    = 0x01
	flagMemcpyed   = 0x02
	flagBitShuffle = 0x04
	flagReserved   = 0x08 // "compressor flags from the future" to c-blosc 1.x
	flagDontSplit  = 0x10

	maxSplits     = 16  // c-blosc MAX_SPLITS
	minBufferSize = 128 // c-blosc MIN_BUFFERSIZE
	// maxBlockSize is c-blosc's BLOSC_MAX_BLOCKSIZE.
	maxBlockSize = (1<<31 - 1 - 255*4) / 3
)

// Codec codes, the top three bits of the flags byte.
const (
	codecBloscLZ = 0
	codecLZ4     = 1 // lz4 and lz4hc share the format
	codecSnappy  = 2
	codecZlib    = 3
	codecZstd    = 4
)

var codecNames = [8]string{"blosclz", "lz4", "snappy", "zlib", "zstd", "code 5", "code 6", "code 7"}

// maxRatio bounds, per codec, how many output bytes one input byte can
// become, so that a short garbage buffer claiming gigabytes is refused before
// the gigabytes are allocated. LZ4: a 255 length byte adds 255 bytes;
// deflate: 258 bytes per 2 bits at best (1032:1); zstd: an RLE block is 4
// bytes for up to 128 KiB.
var maxRatio = [8]int{codecLZ4: 256, codecZlib: 1032, codecZstd: 32768}

// Info is what a blosc1 header says about its buffer.
type Info struct {
	NBytes         int    // uncompressed size
	CompressedSize int    // the whole buffer, header included
	BlockSize      int    // uncompressed bytes per block (the last may be shorter)
	TypeSize       int    // element size the shuffle used
	Codec          string // "blosclz", "lz4", "snappy", "zlib", "zstd"
	Shuffle        bool   // byte shuffle
	BitShuffle     bool   // bit shuffle (not supported)
	Memcpyed       bool   // stored without compression
	DontSplit      bool   // blocks not split into type-size streams
}

// ReadInfo parses and checks the 16-byte header of a blosc1 buffer. It
// refuses what Decompress cannot decode, so a nil error means the header is
// supported; the blocks are not checked.
func ReadInfo(src []byte) (Info, error) {
	if len(src) < headerSize {
		return Info{}, corrupt(nil, "buffer of %d bytes is shorter than the %d-byte header", len(src), headerSize)
	}
	if bytes.Contains(src[:headerSize], []byte("b2frame")) {
		return Info{}, unsupported("blosc2 frames are not supported (only blosc1 buffers)")
	}
	if v := src[0]; v != formatVersion {
		if v > formatVersion {
			return Info{}, unsupported("format version %d (blosc2 chunk) is not supported (only blosc1 format version %d)", v, formatVersion)
		}
		return Info{}, unsupported("format version %d is not supported (only blosc1 format version %d)", v, formatVersion)
	}
	flags := src[2]
	h := Info{
		NBytes:         int(int32(binary.LittleEndian.Uint32(src[4:]))),
		BlockSize:      int(int32(binary.LittleEndian.Uint32(src[8:]))),
		CompressedSize: int(int32(binary.LittleEndian.Uint32(src[12:]))),
		TypeSize:       int(src[3]),
		Codec:          codecNames[flags>>5],
		Shuffle:        flags&flagShuffle != 0,
		BitShuffle:     flags&flagBitShuffle != 0,
		Memcpyed:       flags&flagMemcpyed != 0,
		DontSplit:      flags&flagDontSplit != 0,
	}
	if flags&flagReserved != 0 {
		return h, unsupported("flag 0x08 is set (a flag unknown to blosc1)")
	}
	if h.NBytes < 0 || h.CompressedSize < headerSize {
		return h, corrupt(nil, "header sizes out of range: nbytes %d, cbytes %d", h.NBytes, h.CompressedSize)
	}
	if h.CompressedSize > len(src) {
		return h, corrupt(nil, "truncated: header says %d compressed bytes, buffer has %d", h.CompressedSize, len(src))
	}
	if h.NBytes == 0 {
		return h, nil
	}
	if h.TypeSize == 0 {
		return h, corrupt(nil, "type size 0")
	}
	if h.BlockSize <= 0 || h.BlockSize > maxBlockSize {
		return h, corrupt(nil, "block size %d out of range", h.BlockSize)
	}
	if h.Memcpyed {
		// Stored: no codec runs, and c-blosc copies the bytes back whatever
		// codec or shuffle the flags name.
		if h.CompressedSize != h.NBytes+headerSize {
			return h, corrupt(nil, "stored buffer of %d bytes has cbytes %d, want nbytes+16 = %d", h.NBytes, h.CompressedSize, h.NBytes+headerSize)
		}
		return h, nil
	}
	code := flags >> 5
	switch code {
	case codecLZ4, codecZlib, codecZstd:
	case codecBloscLZ, codecSnappy:
		return h, unsupported("codec %s is not supported (only lz4, lz4hc, zlib and zstd)", h.Codec)
	default:
		return h, unsupported("unknown codec %s", h.Codec)
	}
	if v := src[1]; v != codecVersion {
		return h, unsupported("%s format version %d is not supported (only version %d)", h.Codec, v, codecVersion)
	}
	if h.BitShuffle {
		return h, unsupported("bit-shuffle is not supported (only byte shuffle and no shuffle)")
	}
	nblocks := (h.NBytes + h.BlockSize - 1) / h.BlockSize
	if nblocks > (h.CompressedSize-headerSize)/4 {
		return h, corrupt(nil, "%d blocks do not fit their offsets in %d compressed bytes", nblocks, h.CompressedSize)
	}
	if h.NBytes/maxRatio[code] > h.CompressedSize {
		return h, corrupt(nil, "%d bytes cannot come from %d bytes of %s", h.NBytes, h.CompressedSize, h.Codec)
	}
	return h, nil
}

// Decompress decodes a whole blosc1 buffer into a new slice of the size its
// header gives. Bytes after the header's compressed size are ignored.
func Decompress(src []byte) ([]byte, error) {
	h, err := ReadInfo(src)
	if err != nil {
		return nil, err
	}
	dst := make([]byte, h.NBytes)
	var d Decoder
	if err := d.decompress(dst, src, h); err != nil {
		return nil, err
	}
	return dst, nil
}

// DecompressInto decodes a blosc1 buffer into dst and returns the number of
// bytes written, the header's nbytes; dst must hold at least that many
// (ReadInfo gives it). On error dst's contents are unspecified. It is a
// Decoder's DecompressInto with a new Decoder: a caller that decodes many
// buffers keeps a Decoder instead.
func DecompressInto(dst, src []byte) (int, error) {
	var d Decoder
	return d.DecompressInto(dst, src)
}

// A Decoder decodes blosc1 buffers one after the other, keeping what it
// can reuse: the scratch block that a shuffled buffer decodes into before
// the unshuffle comes from Buffers (a run's free list; nil: new memory
// per buffer) and goes back to it after each buffer, and a zlib reader
// (a 32 KiB window and its tables) is kept from one zlib stream to the
// next. The zero value is ready to use; a Decoder is for one goroutine
// at a time.
//
// Rejected: package-level sync.Pools for the scratch blocks and the zlib
// readers (the first version): every garbage collection empties them.
type Decoder struct {
	Buffers *freelist.List
	zr      *zlibReader
}

// DecompressInto is the package's DecompressInto with d's memory.
func (d *Decoder) DecompressInto(dst, src []byte) (int, error) {
	h, err := ReadInfo(src)
	if err != nil {
		return 0, err
	}
	if len(dst) < h.NBytes {
		return 0, &Error{Reason: fmt.Sprintf("destination holds %d bytes, the buffer decompresses to %d", len(dst), h.NBytes), Kind: ErrShortDst}
	}
	if err := d.decompress(dst[:h.NBytes], src, h); err != nil {
		return 0, err
	}
	return h.NBytes, nil
}

// decompress decodes src, whose header h has been checked, into dst, which
// has exactly h.NBytes bytes. Blocks are decoded one after the other: the
// chunkarray layer already runs one task per chunk on every core, so threads
// inside one buffer (c-blosc's nthreads) would only compete with them.
func (d *Decoder) decompress(dst, src []byte, h Info) error {
	if h.NBytes == 0 {
		return nil
	}
	src = src[:h.CompressedSize]
	if h.Memcpyed {
		copy(dst, src[headerSize:])
		return nil
	}
	code := src[2] >> 5
	ts := h.TypeSize
	shuffle := h.Shuffle && ts > 1
	var tmp []byte
	if shuffle {
		// Sized by the largest block there is, not by the header's
		// blocksize: c-blosc never writes a blocksize over nbytes, but a
		// header may say 700 MB for a 100-byte buffer, and sizing the
		// scratch by it allocated the 700 MB.
		tmp = d.Buffers.Get(min(h.BlockSize, h.NBytes))
		defer d.Buffers.Put(tmp)
	}
	nblocks := (h.NBytes + h.BlockSize - 1) / h.BlockSize
	for b := range nblocks {
		start := b * h.BlockSize
		bsize := min(h.BlockSize, h.NBytes-start)
		leftover := bsize < h.BlockSize
		out := dst[start : start+bsize]
		streams := out
		if shuffle {
			streams = tmp[:bsize]
		}
		// The split rule of c-blosc 1.21's blosc_d: the flag, and for
		// buffers from before the flag existed, the size test, which the
		// compressor also applied.
		nsplits := 1
		if !h.DontSplit && ts <= maxSplits && bsize/ts >= minBufferSize && !leftover {
			nsplits = ts
		}
		neblock := bsize / nsplits
		if neblock*nsplits != bsize {
			return corrupt(nil, "block %d of %d bytes does not split into %d streams", b, bsize, nsplits)
		}
		pos := int(int32(binary.LittleEndian.Uint32(src[headerSize+4*b:])))
		if pos < headerSize+4*nblocks || pos > len(src) {
			return corrupt(nil, "block %d starts at %d, outside %d..%d", b, pos, headerSize+4*nblocks, len(src))
		}
		for j := range nsplits {
			if len(src)-pos < 4 {
				return corrupt(nil, "block %d stream %d: size field at %d runs past the end (%d bytes)", b, j, pos, len(src))
			}
			cb := int(int32(binary.LittleEndian.Uint32(src[pos:])))
			pos += 4
			if cb < 0 || cb > len(src)-pos {
				return corrupt(nil, "block %d stream %d: %d compressed bytes at %d run past the end (%d bytes)", b, j, cb, pos, len(src))
			}
			in := src[pos : pos+cb]
			o := streams[j*neblock : (j+1)*neblock]
			if cb == neblock {
				copy(o, in) // stored raw: it did not compress
			} else if err := d.decodeStream(code, o, in); err != nil {
				return corrupt(err, "block %d stream %d (%s, %d bytes at %d)", b, j, codecNames[code], cb, pos)
			}
			pos += cb
		}
		if shuffle {
			unshuffle(out, streams, ts)
		}
	}
	return nil
}

// decodeStream decodes one stream, which must fill dst exactly.
func (d *Decoder) decodeStream(code byte, dst, src []byte) error {
	switch code {
	case codecLZ4:
		n, err := decodeLZ4(dst, src)
		if err != nil {
			return err
		}
		if n != len(dst) {
			return fmt.Errorf("lz4: block decodes to %d bytes, want %d", n, len(dst))
		}
		return nil
	case codecZlib:
		return d.decodeZlib(dst, src)
	case codecZstd:
		return decodeZstd(dst, src)
	}
	return fmt.Errorf("no decoder for codec code %d", code) // ReadInfo refused it
}

// zlibReader is a Decoder's zlib state: each holds a 32 KiB window and
// tables that are worth not reallocating for every stream.
type zlibReader struct {
	br bytes.Reader
	zr io.ReadCloser
}

func (d *Decoder) decodeZlib(dst, src []byte) error {
	r := d.zr
	if r == nil {
		r = &zlibReader{}
	}
	d.zr = nil // kept again only once the stream decodes
	r.br.Reset(src)
	var err error
	if r.zr == nil {
		r.zr, err = zlib.NewReader(&r.br)
	} else {
		err = r.zr.(zlib.Resetter).Reset(&r.br, nil)
	}
	if err != nil {
		return err // a bad zlib header; the reader is not kept
	}
	defer func() { d.zr = r }()
	if _, err := io.ReadFull(r.zr, dst); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return fmt.Errorf("zlib: stream ends before %d bytes", len(dst))
		}
		return err
	}
	// Read to the end, so that the checksum is verified and a longer stream
	// is caught.
	var one [1]byte
	n, err := r.zr.Read(one[:])
	if n > 0 {
		return fmt.Errorf("zlib: stream longer than %d bytes", len(dst))
	}
	if err != io.EOF {
		if err == nil {
			err = fmt.Errorf("zlib: no end after %d bytes", len(dst))
		}
		return err
	}
	return nil
}

// zstdDecoder is one decoder shared by every call, created on first use:
// DecodeAll is safe for concurrent use and a decoder's tables are expensive
// to build. It is the package's only lasting state.
// The cap limit makes DecodeAll stop at the stream's expected size instead
// of allocating what a corrupt frame header claims.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
		zstd.WithDecoderMaxMemory(maxBlockSize), zstd.WithDecodeAllCapLimit(true))
})

func decodeZstd(dst, src []byte) error {
	dec, err := zstdDecoder()
	if err != nil {
		return err
	}
	out, err := dec.DecodeAll(src, dst[:0:len(dst)])
	if err != nil {
		return err
	}
	if len(out) != len(dst) {
		return fmt.Errorf("zstd: frame decodes to %d bytes, want %d", len(out), len(dst))
	}
	if len(out) > 0 && &out[0] != &dst[0] {
		copy(dst, out) // not expected: DecodeAll appends within capacity
	}
	return nil
}
