package udfbridge

// NanoMegas .blo block files (ASTAR precession scans), as HyperSpy and
// LiberTEM read them: a packed little-endian header — "IMGBLO" (6 bytes),
// a magic number 258 or 259 (uint16), the offsets of the virtual
// bright-field image and of the diffraction patterns (uint32 at 8 and
// 12), the pattern side DP_SZ (uint16 at 20) and the scan size NX, NY
// (uint16 at 24 and 26) — then, for magic 259, lines of text from byte
// 240 up to the bright-field image ("Blo Bit Depth: 16 bits" makes the
// patterns uint16; uint8 otherwise), and from the patterns' offset NX·NY
// frames of a 6-byte frame header and DP_SZ×DP_SZ pixels. Nav (NY, NX).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/nd"
)

// KindBLO is the dataset kind of .blo files (OpenBLO).
const KindBLO = "blo"

// The parts of a .blo file.
const (
	bloHeaderBytes = 240 // the packed header; text follows for magic 259
	bloFrameHeader = 6
	bloMaxText     = 1 << 20
)

func init() {
	RegisterDatasetKind(KindBLO, func(params []byte) (Dataset, error) {
		var p mibParams // path and nav
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: blo dataset parameters: %w", err)
		}
		return OpenBLO(p.Path, OpenOptions{NavShape: p.Nav, SyncOffset: p.Sync})
	})
}

// BLOHeader is what OpenBLO reads of a .blo header.
type BLOHeader struct {
	Magic          int
	VBFOffset      int64 // Data_offset_1
	PatternsOffset int64 // Data_offset_2
	Side           int   // DP_SZ
	NX, NY         int
	DType          nd.DType // uint8, or uint16 by the text's bit depth
}

// ParseBLOHeader parses the 240-byte header and, for magic 259, the text
// after it (text: the bytes from 240 up to the bright-field image).
func ParseBLOHeader(head, text []byte) (BLOHeader, error) {
	if len(head) < bloHeaderBytes {
		return BLOHeader{}, fmt.Errorf("blo header: %d bytes, fewer than %d", len(head), bloHeaderBytes)
	}
	if string(head[:6]) != "IMGBLO" {
		return BLOHeader{}, fmt.Errorf("blo header: no IMGBLO magic")
	}
	le := binary.LittleEndian
	h := BLOHeader{
		Magic:          int(le.Uint16(head[6:])),
		VBFOffset:      int64(le.Uint32(head[8:])),
		PatternsOffset: int64(le.Uint32(head[12:])),
		Side:           int(le.Uint16(head[20:])),
		NX:             int(le.Uint16(head[24:])),
		NY:             int(le.Uint16(head[26:])),
		DType:          nd.Uint8,
	}
	if h.Magic != 258 && h.Magic != 259 {
		return BLOHeader{}, fmt.Errorf("blo header: magic %d, not 258 or 259", h.Magic)
	}
	if h.Side < 1 || h.NX < 1 || h.NY < 1 {
		return BLOHeader{}, fmt.Errorf("blo header: DP_SZ %d, NX %d, NY %d: must be positive", h.Side, h.NX, h.NY)
	}
	if h.PatternsOffset < bloHeaderBytes {
		return BLOHeader{}, fmt.Errorf("blo header: patterns at byte %d, inside the header", h.PatternsOffset)
	}
	if h.Magic == 259 {
		sc := bufio.NewScanner(bytes.NewReader(bytes.Trim(text, "\x00")))
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), "Blo Bit Depth") {
				continue
			}
			bits, err := strconv.Atoi(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(v)), " bits"))
			switch {
			case err != nil:
				return BLOHeader{}, fmt.Errorf("blo header: bit depth %q", v)
			case bits == 8:
			case bits == 16:
				h.DType = nd.Uint16
			default:
				return BLOHeader{}, fmt.Errorf("blo header: bit depth %d, not 8 or 16", bits)
			}
		}
	}
	return h, nil
}

// BLODataset is a .blo file's diffraction patterns.
type BLODataset struct {
	framedFile
	header BLOHeader
}

var (
	_ Dataset           = (*BLODataset)(nil)
	_ TaskReaderDataset = (*BLODataset)(nil)
)

// OpenBLO opens a .blo file: nav (NY, NX) unless opts.NavShape gives
// another of at most NX·NY frames, sig (DP_SZ, DP_SZ).
func OpenBLO(path string, opts OpenOptions) (*BLODataset, error) {
	f, bad, err := openFramedFile(KindBLO, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, bloHeaderBytes)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, bad(err, "reading the %d-byte header", bloHeaderBytes)
	}
	var text []byte
	if binary.LittleEndian.Uint16(head[6:]) == 259 {
		end := int64(binary.LittleEndian.Uint32(head[8:]))
		if n := end - bloHeaderBytes; n > 0 {
			text = make([]byte, min(n, bloMaxText))
			k, err := io.ReadFull(f, text)
			if err != nil && err != io.ErrUnexpectedEOF {
				return nil, bad(err, "reading the header text")
			}
			text = text[:k]
		}
	}
	h, err := ParseBLOHeader(head, text)
	if err != nil {
		return nil, bad(err, "header")
	}
	nav := dsClone(opts.NavShape)
	if nav == nil {
		nav = []int{h.NY, h.NX}
	}
	fb := h.Side * h.Side * h.DType.Size()
	d := &BLODataset{header: h}
	d.framedFile = framedFile{kind: KindBLO, skip: opts.SyncOffset, name: "blo file " + path, path: path,
		runs: []frameRun{{path: path, count: h.NX * h.NY, offset: h.PatternsOffset + bloFrameHeader, stride: int64(bloFrameHeader + fb)}},
		nav:  nav, sig: []int{h.Side, h.Side}, dt: h.DType, stored: fb}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// Header returns the parsed header.
func (d *BLODataset) Header() BLOHeader { return d.header }

func (d *BLODataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(mibParams{Path: d.path, Nav: d.nav, Sync: d.skip})
	return DatasetSpec{Kind: KindBLO, Params: b}, err
}
