package udfbridge

// MRC files (MRC2014): a 1024-byte header of 32-bit words — NX, NY, NZ
// (words 1-3), MODE (4), NSYMBT (24, the bytes of the extended header
// after the main one), "MAP " (53, bytes 208-211) and the machine stamp
// (54: 0x44 0x44 little-endian, 0x11 0x11 big-endian) — then NSYMBT bytes
// of extended header, then NZ sections of NY rows of NX columns. A 4-D
// STEM stack or a tilt series is NZ frames of NY×NX: nav (NZ,), sig
// (NY, NX), as LiberTEM reads it. Modes: 0 int8, 1 int16, 2 float32,
// 3 complex int16 (read as complex64), 4 complex64, 6 uint16, 12 float16
// (read as float32).

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/tessera-go/tessera/nd"
)

// KindMRC is the dataset kind of MRC files (OpenMRC).
const KindMRC = "mrc"

const mrcHeaderBytes = 1024

func init() {
	RegisterDatasetKind(KindMRC, func(params []byte) (Dataset, error) {
		var p mibParams // path and nav
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: mrc dataset parameters: %w", err)
		}
		return OpenMRC(p.Path, OpenOptions{NavShape: p.Nav, SyncOffset: p.Sync})
	})
}

// MRCHeader is the part of an MRC header that locates and types the data.
type MRCHeader struct {
	NX, NY, NZ int
	Mode       int
	NSymBT     int // extended header bytes
	ExtType    string
	BigEndian  bool

	DType       nd.DType // of a decoded frame
	StoredItem  int      // bytes of one stored element
	DataOffset  int64    // 1024 + NSymBT
	StoredBytes int      // bytes of one stored NY×NX section
}

// ParseMRCHeader parses the 1024-byte MRC header. The byte order is the
// machine stamp's; a file without one (older writers) is read in the
// order in which its mode and sizes are plausible, little-endian first.
func ParseMRCHeader(head []byte) (MRCHeader, error) {
	if len(head) < mrcHeaderBytes {
		return MRCHeader{}, fmt.Errorf("mrc header: %d bytes, fewer than %d", len(head), mrcHeaderBytes)
	}
	try := func(bo binary.ByteOrder) (MRCHeader, error) {
		w := func(i int) int { return int(int32(bo.Uint32(head[4*i:]))) }
		h := MRCHeader{NX: w(0), NY: w(1), NZ: w(2), Mode: w(3), NSymBT: w(23), ExtType: string(head[104:108]), BigEndian: bo == binary.BigEndian}
		if h.NX < 1 || h.NY < 1 || h.NZ < 1 {
			return MRCHeader{}, fmt.Errorf("mrc header: NX, NY, NZ = %d, %d, %d: must be positive", h.NX, h.NY, h.NZ)
		}
		if h.NSymBT < 0 {
			return MRCHeader{}, fmt.Errorf("mrc header: negative extended header size NSYMBT %d", h.NSymBT)
		}
		switch h.Mode {
		case 0:
			h.DType, h.StoredItem = nd.Int8, 1
		case 1:
			h.DType, h.StoredItem = nd.Int16, 2
		case 2:
			h.DType, h.StoredItem = nd.Float32, 4
		case 3:
			h.DType, h.StoredItem = nd.Complex64, 4
		case 4:
			h.DType, h.StoredItem = nd.Complex64, 8
		case 6:
			h.DType, h.StoredItem = nd.Uint16, 2
		case 12:
			h.DType, h.StoredItem = nd.Float32, 2
		default:
			return MRCHeader{}, fmt.Errorf("mrc header: mode %d not supported (0, 1, 2, 3, 4, 6, 12)", h.Mode)
		}
		sec, ok := shapeBytes(h.StoredItem, []int{h.NY, h.NX})
		if !ok || sec > math.MaxInt32 {
			return MRCHeader{}, fmt.Errorf("mrc header: section of %d × %d is too large", h.NY, h.NX)
		}
		h.StoredBytes = int(sec)
		h.DataOffset = mrcHeaderBytes + int64(h.NSymBT)
		return h, nil
	}
	switch head[212] {
	case 0x44, 0x41:
		return try(binary.LittleEndian)
	case 0x11:
		return try(binary.BigEndian)
	}
	h, err := try(binary.LittleEndian)
	if err != nil {
		if hb, errb := try(binary.BigEndian); errb == nil {
			return hb, nil
		}
	}
	return h, err
}

// decoder returns the decoder of h's sections (nil: stored as is).
func (h *MRCHeader) decoder() frameDecoder {
	switch {
	case h.Mode == 12:
		big := h.BigEndian
		return func(dst, src []byte) {
			for i := 0; i+1 < len(src); i += 2 {
				var v uint16
				if big {
					v = binary.BigEndian.Uint16(src[i:])
				} else {
					v = binary.LittleEndian.Uint16(src[i:])
				}
				binary.LittleEndian.PutUint32(dst[2*i:], math.Float32bits(halfToFloat32(v)))
			}
		}
	case h.Mode == 3:
		big := h.BigEndian
		return func(dst, src []byte) {
			for i := 0; i+1 < len(src); i += 2 {
				var v int16
				if big {
					v = int16(binary.BigEndian.Uint16(src[i:]))
				} else {
					v = int16(binary.LittleEndian.Uint16(src[i:]))
				}
				binary.LittleEndian.PutUint32(dst[2*i:], math.Float32bits(float32(v)))
			}
		}
	}
	return nil // big-endian files are swapped by the reader (bigEndian)
}

// halfToFloat32 converts an IEEE 754 binary16 value.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: frac · 2^-24
		f := float32(frac) / (1 << 24)
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// MRCDataset is an MRC file's NZ sections of NY×NX as frames.
type MRCDataset struct {
	framedFile
	header MRCHeader
}

var (
	_ Dataset           = (*MRCDataset)(nil)
	_ TaskReaderDataset = (*MRCDataset)(nil)
)

// OpenMRC opens an MRC file: nav (NZ,) unless opts.NavShape gives another
// shape of at most NZ frames, sig (NY, NX). A file shorter than its
// header, extended header and data is refused, naming both sizes.
func OpenMRC(path string, opts OpenOptions) (*MRCDataset, error) {
	f, bad, err := openFramedFile(KindMRC, path)
	if err != nil {
		return nil, err
	}
	head := make([]byte, mrcHeaderBytes)
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil {
		return nil, bad(err, "reading the %d-byte header", mrcHeaderBytes)
	}
	h, err := ParseMRCHeader(head)
	if err != nil {
		return nil, bad(err, "header")
	}
	nav := dsClone(opts.NavShape)
	if nav == nil {
		nav = []int{h.NZ}
	}
	d := &MRCDataset{header: h}
	d.framedFile = framedFile{kind: KindMRC, skip: opts.SyncOffset, name: "mrc file " + path, path: path,
		runs: []frameRun{{path: path, count: h.NZ, offset: h.DataOffset, stride: int64(h.StoredBytes)}},
		nav:  nav, sig: []int{h.NY, h.NX}, dt: h.DType, stored: h.StoredBytes, decode: h.decoder(), bigEndian: h.BigEndian && h.decoder() == nil}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// Header returns the parsed header.
func (d *MRCDataset) Header() MRCHeader { return d.header }

func (d *MRCDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(mibParams{Path: d.path, Nav: d.nav, Sync: d.skip})
	return DatasetSpec{Kind: KindMRC, Params: b}, err
}
