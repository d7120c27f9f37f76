package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/zarr/blosc"
)

// Error reports a problem with a store: Path is the file (metadata or
// chunk) or the store's folder.
type Error struct {
	Path   string
	Reason string
	Err    error // the cause, if any
}

func (e *Error) Error() string {
	s := "zarr: " + e.Path + ": " + e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Array is an open zarr array: its metadata and a way to read and write
// one chunk at a time. Its methods may be called from several goroutines
// at once (for different chunks when writing).
type Array struct {
	path       string
	meta       Meta
	codec      codecChain
	nchunks    []int  // chunks per axis
	fill       []byte // one element of the fill value, encoded as stored
	chunkBytes int    // bytes of one full chunk, decoded
	metaFile   string
}

// Open opens the array stored in the folder path: zarr v2 when it holds
// .zarray, v3 when it holds zarr.json. Only the metadata is read.
func Open(path string) (*Array, error) {
	v2 := filepath.Join(path, ".zarray")
	b, err := readMeta(v2)
	if err == nil {
		m, c, err := parseMetaV2(b)
		if err != nil {
			return nil, &Error{Path: v2, Reason: "bad metadata", Err: err}
		}
		return newArray(path, v2, m, c)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Path: v2, Reason: "reading metadata", Err: err}
	}
	v3 := filepath.Join(path, "zarr.json")
	b, err = readMeta(v3)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{Path: path, Reason: "not a zarr array: neither .zarray nor zarr.json is there", Err: err}
		}
		return nil, &Error{Path: v3, Reason: "reading metadata", Err: err}
	}
	m, c, err := parseMetaV3(b)
	if err != nil {
		return nil, &Error{Path: v3, Reason: "bad metadata", Err: err}
	}
	return newArray(path, v3, m, c)
}

// maxMetaBytes bounds the metadata file Open reads: .zarray is a few
// hundred bytes and zarr.json a few KiB with attributes. Without a bound a
// metadata path that is a link to /dev/zero made Open read forever.
const maxMetaBytes = 16 << 20

// readMeta reads a metadata file of at most maxMetaBytes.
func readMeta(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxMetaBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxMetaBytes {
		return nil, fmt.Errorf("metadata file is over %d bytes", maxMetaBytes)
	}
	return b, nil
}

func newArray(path, metaFile string, m Meta, c codecChain) (*Array, error) {
	a := &Array{path: path, meta: m, codec: c, metaFile: metaFile}
	n, _ := nd.SizeOf(m.Chunks)
	if n > maxChunkBytes/max(m.DType.Size(), 1) {
		return nil, &Error{Path: metaFile, Reason: fmt.Sprintf("chunks %v of %s exceed %d bytes", m.Chunks, m.DType, maxChunkBytes)}
	}
	a.chunkBytes = n * m.DType.Size()
	a.nchunks = make([]int, len(m.Shape))
	for i, s := range m.Shape {
		a.nchunks[i] = ceilDiv(s, m.Chunks[i])
	}
	fill := m.Fill
	if fill == nil {
		fill, _ = convertFill(0, m.DType)
	}
	one, err := nd.Full(m.DType, fill)
	if err != nil {
		return nil, &Error{Path: metaFile, Reason: "fill_value", Err: err}
	}
	a.fill = one.AppendBytes(nil, false)
	if c.bigEndian {
		nd.SwapBytes(a.fill, swapUnit(m.DType))
	}
	return a, nil
}

// ceilDiv is ceil(s/c) for s >= 0, c > 0; (s+c-1)/c, the usual form,
// overflows for s near MaxInt.
func ceilDiv(s, c int) int {
	q := s / c
	if s%c != 0 {
		q++
	}
	return q
}

func swapUnit(d nd.DType) int {
	if d.IsComplex() {
		return d.Size() / 2
	}
	return d.Size()
}

// Create makes a new array in the folder path (created if needed) and
// writes its metadata; an existing array there is overwritten (its old
// chunk files are not removed). Meta's zero fields take defaults: order
// "C", version 2, separator "." for v2 and "/" for v3, no compressor.
func Create(path string, meta Meta) (*Array, error) {
	m := meta
	m.Shape, m.Chunks = slices.Clone(m.Shape), slices.Clone(m.Chunks)
	if m.Version == 0 {
		m.Version = 2
	}
	if m.Order == "" {
		m.Order = "C"
	}
	bad := func(format string, args ...any) error {
		return &Error{Path: path, Reason: "Create: " + fmt.Sprintf(format, args...)}
	}
	if m.Version != 2 && m.Version != 3 {
		return nil, bad("version %d is neither 2 nor 3", m.Version)
	}
	if !m.DType.Valid() {
		return nil, bad("invalid dtype")
	}
	if err := checkGrid(m.Shape, m.Chunks, m.DType.Size()); err != nil {
		return nil, bad("%v", err)
	}
	if m.Order != "C" && m.Order != "F" {
		return nil, bad("order %q is neither \"C\" nor \"F\"", m.Order)
	}
	switch m.Compressor {
	case "", "gzip", "zstd":
	case "zlib":
		if m.Version == 3 {
			return nil, bad("zlib is not a zarr v3 codec; use gzip or zstd")
		}
	case "blosc":
		return nil, bad("%v", errBloscWrite)
	default:
		return nil, bad("compressor %q is not supported (\"\", zlib, gzip and zstd are)", m.Compressor)
	}
	switch m.Separator {
	case "":
		m.Separator = "."
		if m.Version == 3 && !m.V2Keys {
			m.Separator = "/"
		}
	case ".", "/":
	default:
		return nil, bad("separator %q is neither \".\" nor \"/\"", m.Separator)
	}
	if m.V2Keys && m.Version != 3 {
		return nil, bad("V2Keys is for v3 arrays")
	}
	fill, err := convertFill(m.Fill, m.DType)
	if err != nil {
		return nil, bad("fill value %v: %v", m.Fill, err)
	}
	m.Fill = fill
	c := codecChain{compressor: m.Compressor, level: m.Level}
	if m.Order == "F" && len(m.Shape) > 1 {
		c.perm = reversed(len(m.Shape))
	}
	var b []byte
	var metaFile string
	if m.Version == 2 {
		metaFile = filepath.Join(path, ".zarray")
		b, err = encodeMetaV2(m)
	} else {
		if m.Fill == nil {
			m.Fill, _ = convertFill(0, m.DType)
		}
		metaFile = filepath.Join(path, "zarr.json")
		b, err = encodeMetaV3(m, c)
	}
	if err != nil {
		return nil, &Error{Path: metaFile, Reason: "encoding metadata", Err: err}
	}
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, &Error{Path: path, Reason: "Create", Err: err}
	}
	if err := writeFileAtomic(metaFile, b); err != nil {
		return nil, &Error{Path: metaFile, Reason: "writing metadata", Err: err}
	}
	return newArray(path, metaFile, m, c)
}

// Path returns the store's folder.
func (a *Array) Path() string { return a.path }

// Meta returns the array's metadata. Do not modify its slices.
func (a *Array) Meta() Meta { return a.meta }

// Shape returns the array's shape. Do not modify it.
func (a *Array) Shape() []int { return a.meta.Shape }

// Chunks returns the chunk shape. Do not modify it.
func (a *Array) Chunks() []int { return a.meta.Chunks }

// NumChunks returns the number of chunks along each axis.
func (a *Array) NumChunks() []int { return slices.Clone(a.nchunks) }

// DType returns the element type.
func (a *Array) DType() nd.DType { return a.meta.DType }

// Fill returns the fill value as a Go value of the dtype's type, or nil
// when a v2 store has fill_value null (read as zero).
func (a *Array) Fill() any { return a.meta.Fill }

// ChunkPath returns the file that holds the chunk at idx.
func (a *Array) ChunkPath(idx []int) string {
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v)
	}
	key := strings.Join(parts, a.meta.Separator)
	if a.meta.Version == 3 && !a.meta.V2Keys {
		key = "c"
		if len(parts) > 0 {
			key += a.meta.Separator + strings.Join(parts, a.meta.Separator)
		}
	} else if len(parts) == 0 {
		key = "0"
	}
	return filepath.Join(a.path, filepath.FromSlash(key))
}

// checkIndex validates a chunk index. On an axis of length 0 the grid has
// no chunk (NumChunks says 0, as zarr-python's cdata_shape does), yet
// index 0 is accepted there: it names the one empty block by which
// readers tile an empty array (Dask's chunks ((0,), (0,)) for shape
// (0, 0)), so that they need no special case. That block holds no element
// and is never stored in a file (see empty).
func (a *Array) checkIndex(op string, idx []int) error {
	if len(idx) != len(a.nchunks) {
		return &Error{Path: a.path, Reason: fmt.Sprintf("%s: chunk index %v has %d axes, the array %d", op, idx, len(idx), len(a.nchunks))}
	}
	for i, v := range idx {
		if v == 0 && a.meta.Shape[i] == 0 {
			continue
		}
		if v < 0 || v >= a.nchunks[i] {
			return &Error{Path: a.path, Reason: fmt.Sprintf("%s: chunk index %v out of range (the grid is %v)", op, idx, a.nchunks)}
		}
	}
	return nil
}

// empty reports whether the chunk at idx (a valid index) holds no element:
// an index on an axis of length 0. Such a chunk has no file: zarr-python
// writes none for an empty array and reads none back.
func (a *Array) empty(idx []int) bool {
	for i := range idx {
		if a.meta.Shape[i] == 0 {
			return true
		}
	}
	return false
}

// chunkShape returns the shape of the chunk at idx cropped to the array.
func (a *Array) chunkShape(idx []int) []int {
	sh := make([]int, len(idx))
	for i, v := range idx {
		c := a.meta.Chunks[i]
		sh[i] = min(c, a.meta.Shape[i]-v*c)
	}
	return sh
}

// ChunkShape returns the shape of the chunk at idx, cropped to the array
// bounds (edge chunks are smaller).
func (a *Array) ChunkShape(idx []int) ([]int, error) {
	if err := a.checkIndex("ChunkShape", idx); err != nil {
		return nil, err
	}
	return a.chunkShape(idx), nil
}

// storedShape returns the chunk's shape in storage order (after the
// transpose codec).
func (a *Array) storedShape() []int {
	if a.codec.perm == nil {
		return a.meta.Chunks
	}
	s := make([]int, len(a.codec.perm))
	for i, p := range a.codec.perm {
		s[i] = a.meta.Chunks[p]
	}
	return s
}

// ReadChunk reads the chunk at idx (one file) and returns it cropped to
// the array bounds. A missing chunk file reads as the fill value (a
// zero-stride view that costs one element). Chunks stored in Fortran
// order, or transposed, come back as strided views; call Contiguous for
// C order. On an array with an axis of length 0, index 0 on that axis
// reads an empty array of the cropped shape without touching a file.
func (a *Array) ReadChunk(idx []int) (*nd.Array, error) {
	return a.ReadChunkInto(idx, nil)
}

// StoredChunkSize is the number of elements of a stored (uncropped)
// chunk: what a buffer for ReadChunkInto must hold.
func (a *Array) StoredChunkSize() int {
	n := 1
	for _, s := range a.meta.Chunks {
		n *= s
	}
	return n
}

// ReadChunkInto is ReadChunk decoding into the memory of buf (of the
// array's dtype, C-contiguous, at least StoredChunkSize elements) instead
// of new memory, so that a caller can reuse buffers from chunk to chunk;
// the result is then a view of buf. A nil buf, or one that does not fit,
// reads into new memory as ReadChunk does.
func (a *Array) ReadChunkInto(idx []int, buf *nd.Array) (*nd.Array, error) {
	return a.ReadChunkWith(idx, buf, nil)
}

// StreamChunk reads chunk idx in pieces of len(piece) bytes (a multiple
// of the item size; the last may be shorter) into piece, calling fn with
// each as it is read: a reduction over a chunk then reads it once through
// a buffer that stays in the processor's cache, instead of writing the
// whole chunk to memory and reading it back. It reports false, having
// read nothing, where the chunk's bytes are not its elements in C order
// and this machine's byte order (compressed or filtered, big-endian, F
// order), where the chunk is cropped at the array's edge, or where its
// file is missing (the fill value): ReadChunkWith reads those. A chunk
// file of the wrong size is a *Error, as ReadChunkWith reports it.
func (a *Array) StreamChunk(idx []int, piece []byte, fn func([]byte) error) (bool, error) {
	if err := a.checkIndex("StreamChunk", idx); err != nil {
		return false, err
	}
	es := a.meta.DType.Size()
	if a.codec.compressor != "" || a.codec.bigEndian || !hostLittleEndian || len(a.codec.perm) > 0 || a.empty(idx) ||
		!slices.Equal(a.chunkShape(idx), a.meta.Chunks) || len(piece) < es {
		return false, nil
	}
	piece = piece[:len(piece)-len(piece)%es]
	file := a.ChunkPath(idx)
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, &Error{Path: file, Reason: "reading chunk", Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false, &Error{Path: file, Reason: "reading chunk", Err: err}
	}
	if st.Size() != int64(a.chunkBytes) {
		return false, &Error{Path: file, Reason: "corrupt chunk", Err: fmt.Errorf("chunk is %d bytes, want %d", st.Size(), a.chunkBytes)}
	}
	for off := 0; off < a.chunkBytes; off += len(piece) {
		b := piece[:min(len(piece), a.chunkBytes-off)]
		if _, err := f.ReadAt(b, int64(off)); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return false, &Error{Path: file, Reason: "reading chunk", Err: err}
		}
		if err := fn(b); err != nil {
			return false, err
		}
	}
	return true, nil
}

// hostLittleEndian: this machine stores numbers little-endian, as the
// chunks StreamChunk hands out are.
var hostLittleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Scratch is the memory that one goroutine's chunk reads reuse: the
// buffer a compressed chunk file is read into comes from Buffers (a
// run's free list, package freelist; nil: new memory per chunk) and goes
// back after the chunk is decoded, and the blosc decoder keeps its state
// from chunk to chunk. The zero value works; a Scratch is for one
// goroutine at a time.
//
// Rejected: a package-level sync.Pool of read buffers (the first
// version), which every garbage collection empties.
type Scratch struct {
	Buffers *freelist.List
	blosc   blosc.Decoder
}

// ReadChunkWith is ReadChunkInto with the scratch memory s (nil: none).
func (a *Array) ReadChunkWith(idx []int, buf *nd.Array, s *Scratch) (*nd.Array, error) {
	if s == nil {
		s = &Scratch{}
	}
	s.blosc.Buffers = s.Buffers
	if err := a.checkIndex("ReadChunk", idx); err != nil {
		return nil, err
	}
	crop := a.chunkShape(idx)
	if a.empty(idx) {
		out, err := nd.Zeros(a.meta.DType, crop...)
		if err != nil {
			return nil, &Error{Path: a.path, Reason: "ReadChunk", Err: err}
		}
		return out, nil
	}
	file := a.ChunkPath(idx)
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		fill := a.meta.Fill
		if fill == nil {
			fill, _ = convertFill(0, a.meta.DType)
		}
		out, err := nd.Full(a.meta.DType, fill, crop...)
		if err != nil {
			return nil, &Error{Path: file, Reason: "fill", Err: err}
		}
		return out, nil
	}
	if err != nil {
		return nil, &Error{Path: file, Reason: "reading chunk", Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: file, Reason: "reading chunk", Err: err}
	}
	size := st.Size()
	if a.codec.compressor == "" && size != int64(a.chunkBytes) {
		// Checked before allocating: a truncated or foreign file.
		return nil, &Error{Path: file, Reason: "corrupt chunk", Err: fmt.Errorf("chunk is %d bytes, want %d", size, a.chunkBytes)}
	}
	// Decode straight into the new chunk's memory: an uncompressed chunk
	// is one read from the file, a compressed one is read into a scratch
	// buffer and decompressed in place.
	var ioErr bool
	fill := func(dst []byte) error {
		if a.codec.compressor == "" {
			if size != int64(len(dst)) {
				return fmt.Errorf("chunk is %d bytes, want %d", size, len(dst))
			}
			_, err := io.ReadFull(f, dst)
			ioErr = err != nil
			return err
		}
		if lim := maxEncoded(len(dst)); size > lim {
			return fmt.Errorf("chunk file is %d bytes, more than any %s encoding of a %d-byte chunk (at most %d)", size, a.codec.compressor, len(dst), lim)
		}
		enc := s.Buffers.Get(int(size))
		defer s.Buffers.Put(enc)
		if _, err := io.ReadFull(f, enc); err != nil {
			ioErr = true
			return err
		}
		return decodeInto(a.codec, dst, enc, &s.blosc)
	}
	var stored *nd.Array
	if buf != nil && buf.DType() == a.meta.DType && buf.Offset() == 0 && buf.IsCContiguous() && buf.Size() >= a.StoredChunkSize() {
		stored, err = nd.FillBytesInto(buf, a.meta.DType, a.storedShape(), false, a.codec.bigEndian, fill)
	} else {
		stored, err = nd.FillBytes(a.meta.DType, a.storedShape(), false, a.codec.bigEndian, fill)
	}
	if err != nil {
		reason := "corrupt chunk"
		if ioErr {
			reason = "reading chunk"
		}
		return nil, &Error{Path: file, Reason: reason, Err: err}
	}
	full := stored
	if p := a.codec.perm; p != nil {
		inv := make([]int, len(p))
		for i, ax := range p {
			inv[ax] = i
		}
		full, err = stored.Transpose(inv...)
		if err != nil {
			return nil, &Error{Path: file, Reason: "transpose", Err: err}
		}
	}
	if !slices.Equal(crop, a.meta.Chunks) {
		sl := make([]nd.Slice1, len(crop))
		for i, c := range crop {
			sl[i] = nd.Slice1{Start: 0, Stop: c, Step: 1}
		}
		full, err = full.Slice(sl...)
		if err != nil {
			return nil, &Error{Path: file, Reason: "crop", Err: err}
		}
	}
	return full, nil
}

// WriteChunk writes x as the chunk at idx, replacing the file atomically
// (a concurrent reader sees the old or the new chunk, never half). x must
// have the array's dtype and the chunk's shape: the full chunk shape, or
// for edge chunks the cropped shape (the rest is padded with the fill
// value, as zarr-python pads). An empty chunk (index 0 on an axis of
// length 0) writes no file.
func (a *Array) WriteChunk(idx []int, x *nd.Array) error {
	if err := a.checkIndex("WriteChunk", idx); err != nil {
		return err
	}
	file := a.ChunkPath(idx)
	if x == nil {
		return &Error{Path: file, Reason: "WriteChunk: nil array"}
	}
	if x.DType() != a.meta.DType {
		return &Error{Path: file, Reason: fmt.Sprintf("WriteChunk: dtype mismatch: chunk is %s, the array %s", x.DType(), a.meta.DType)}
	}
	crop := a.chunkShape(idx)
	if !slices.Equal(x.Shape(), crop) && !slices.Equal(x.Shape(), a.meta.Chunks) {
		return &Error{Path: file, Reason: fmt.Sprintf("WriteChunk: shape mismatch: chunk %v is %s, want %s", idx, nd.FormatShape(x.Shape()), nd.FormatShape(crop))}
	}
	if a.empty(idx) {
		return nil // nothing to store, and no file, as zarr-python
	}
	raw := a.encodeChunk(x)
	data, err := compress(a.codec, raw)
	if err != nil {
		return &Error{Path: file, Reason: "WriteChunk", Err: err}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return &Error{Path: file, Reason: "WriteChunk", Err: err}
	}
	if err := writeFileAtomic(file, data); err != nil {
		return &Error{Path: file, Reason: "WriteChunk", Err: err}
	}
	return nil
}

// encodeChunk returns the raw stored bytes of the full-size chunk holding
// x in its leading corner, padded with the fill value.
func (a *Array) encodeChunk(x *nd.Array) []byte {
	v := x
	full := a.meta.Chunks
	if p := a.codec.perm; p != nil {
		v, _ = x.Transpose(p...)
		full = a.storedShape()
	}
	var raw []byte
	if slices.Equal(v.Shape(), full) {
		raw = v.AppendBytes(nil, false)
	} else {
		// Fill the whole chunk, then copy x's rows (in storage order)
		// to their places: each run of ForEachOffset over x's shape
		// with the full chunk's strides is one row of x.
		es := a.meta.DType.Size()
		n, _ := nd.SizeOf(full)
		raw = make([]byte, n*es)
		fillPattern(raw, a.fill)
		xb := v.AppendBytes(nil, false)
		if a.codec.bigEndian {
			// fill is already big-endian; swap x's bytes before placing.
			nd.SwapBytes(xb, swapUnit(a.meta.DType))
		}
		pos := 0
		nd.ForEachOffset(v.Shape(), nd.CStrides(full), 0, func(off, n, _ int) {
			copy(raw[off*es:(off+n)*es], xb[pos:pos+n*es])
			pos += n * es
		})
		return raw
	}
	if a.codec.bigEndian {
		nd.SwapBytes(raw, swapUnit(a.meta.DType))
	}
	return raw
}

// maxChunkBytes bounds the decoded size of one chunk (2 GiB, numcodecs'
// own limit), so that corrupt metadata cannot ask for terabytes.
const maxChunkBytes = 1 << 31

// maxEncoded bounds the size of a compressed chunk file that ReadChunk
// reads into memory, for a chunk of n decoded bytes. Every supported codec
// stores incompressible data with a small overhead: blosc copies it after
// a 16-byte header, zlib and gzip spend 5 bytes per 64 KiB stored block,
// zstd 3 bytes per 128 KiB raw block, plus their headers. n/8 + 64 KiB
// covers all of them with room to spare; a file larger than that is not a
// chunk of this array, and reading it would let a corrupt or hostile
// store make every worker allocate the file's size (the first version
// allowed any file up to 4 GiB whatever the chunk size).
func maxEncoded(n int) int64 { return int64(n) + int64(n)/8 + 64<<10 }

// fillPattern repeats pat over b by doubling copies.
func fillPattern(b, pat []byte) {
	if len(b) == 0 {
		return
	}
	n := copy(b, pat)
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

// writeFileAtomic writes data to a temporary file beside path and renames
// it over path.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
