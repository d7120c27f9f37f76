package zarr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"github.com/tessera-go/tessera/nd/zarr/blosc"
)

// zstdDecoder is one decoder shared by every array: creating one costs
// far more than decoding a small chunk, and DecodeAll is safe for
// concurrent use. It is a lazily built cache, not mutable state.
//
// WithDecodeAllCapLimit bounds DecodeAll by the capacity of the buffer it
// is given, which decodeInto sets to the chunk's declared decoded size: a
// frame whose header claims more (a 15 GiB claim in a few bytes once made
// every worker reading it die of out-of-memory) is refused before anything
// is allocated, and a frame without a size that decodes past it stops
// there.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(1<<34), zstd.WithDecodeAllCapLimit(true))
})

// zstdEncoders caches one encoder per level (EncodeAll is safe for
// concurrent use); like zstdDecoder it is a cache of stateless encoders.
var zstdEncoders sync.Map // int (level) -> *zstd.Encoder

func zstdEncoder(level int, checksum bool) (*zstd.Encoder, error) {
	key := level*2 + boolInt(checksum)
	if e, ok := zstdEncoders.Load(key); ok {
		return e.(*zstd.Encoder), nil
	}
	lv := zstd.SpeedDefault
	if level != 0 {
		lv = zstd.EncoderLevelFromZstd(level)
	}
	// Single-segment frames always record the content size, which
	// numcodecs' decoder requires: without it klauspost omits the size of
	// frames under 256 bytes and zarr-python fails "invalid input data".
	// Zero frames make an empty chunk a valid frame too.
	e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(lv), zstd.WithEncoderCRC(checksum),
		zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(true), zstd.WithZeroFrames(true))
	if err != nil {
		return nil, err
	}
	actual, _ := zstdEncoders.LoadOrStore(key, e)
	return actual.(*zstd.Encoder), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// decodeInto decodes the chunk bytes of src into dst, which must come
// out exactly full; anything else is a corrupt chunk.
func decodeInto(c codecChain, dst, src []byte, bd *blosc.Decoder) error {
	want := len(dst)
	switch c.compressor {
	case "":
		if len(src) != want {
			return fmt.Errorf("chunk is %d bytes, want %d", len(src), want)
		}
		copy(dst, src)
	case "zlib", "gzip":
		var r io.Reader
		var err error
		if c.compressor == "zlib" {
			r, err = zlib.NewReader(bytes.NewReader(src))
		} else {
			r, err = gzip.NewReader(bytes.NewReader(src))
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.compressor, err)
		}
		n, err := io.ReadFull(r, dst)
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return fmt.Errorf("%s: decompressed to %d bytes, want %d", c.compressor, n, want)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.compressor, err)
		}
		// The stream must end here, with a valid checksum.
		var one [1]byte
		switch k, err := io.ReadFull(r, one[:]); {
		case k > 0:
			return fmt.Errorf("%s: decompresses to more than %d bytes", c.compressor, want)
		case err != io.EOF:
			return fmt.Errorf("%s: %w", c.compressor, err)
		}
	case "zstd":
		d, err := zstdDecoder()
		if err != nil {
			return err
		}
		out, err := d.DecodeAll(src, dst[:0:want])
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return fmt.Errorf("zstd: decompresses to more than the chunk's %d bytes: %w", want, err)
		}
		if err != nil {
			return fmt.Errorf("zstd: %w", err)
		}
		if len(out) != want {
			return fmt.Errorf("zstd: decompressed to %d bytes, want %d", len(out), want)
		}
		if want > 0 && &out[0] != &dst[0] {
			copy(dst, out) // cannot happen with len(out) == cap(dst), but be safe
		}
	case "blosc":
		info, err := blosc.ReadInfo(src)
		if err != nil {
			return err
		}
		if info.NBytes != want {
			return fmt.Errorf("blosc: buffer decompresses to %d bytes, want %d", info.NBytes, want)
		}
		if _, err := bd.DecompressInto(dst, src); err != nil {
			return err
		}
	default:
		return fmt.Errorf("compressor %q is not supported", c.compressor)
	}
	return nil
}

// compress encodes chunk bytes with the chain's compressor.
func compress(c codecChain, src []byte) ([]byte, error) {
	switch c.compressor {
	case "":
		return src, nil
	case "zlib", "gzip":
		var buf bytes.Buffer
		buf.Grow(len(src)/2 + 64)
		lv := c.level
		if lv == 0 {
			lv = -1 // the library's default
		}
		var w io.WriteCloser
		var err error
		if c.compressor == "zlib" {
			w, err = zlib.NewWriterLevel(&buf, lv)
		} else {
			w, err = gzip.NewWriterLevel(&buf, lv)
		}
		if err != nil {
			return nil, fmt.Errorf("%s level %d: %w", c.compressor, c.level, err)
		}
		if _, err := w.Write(src); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	case "zstd":
		e, err := zstdEncoder(c.level, c.checksum)
		if err != nil {
			return nil, err
		}
		return e.EncodeAll(src, make([]byte, 0, len(src)/2+64)), nil
	case "blosc":
		return nil, errBloscWrite
	}
	return nil, fmt.Errorf("compressor %q is not supported", c.compressor)
}

var errBloscWrite = fmt.Errorf("writing blosc is not supported; use zstd or zlib")
