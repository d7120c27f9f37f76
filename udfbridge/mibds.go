package udfbridge

// Quantum Detectors Merlin .mib files. Every frame has an ASCII header of
// comma-separated fields, padded with NULs to the header's own size:
//
//	MQ1,<seq of first image>,<header bytes>,<chips>,<width>,<height>,
//	<U08|U16|U32|U64|R64>,<layout, e.g. "   1x1" or "  2x2G">, ...,<counter depth>
//
// U formats are big-endian counts of width×height pixels. R64 ("raw") is
// the readout order of the chips: 1-bit pixels packed 64 to 8 bytes (the
// bytes of each 8 in reverse, bits least significant first), 6-bit pixels
// as bytes reversed in groups of 8, 12-bit pixels as big-endian uint16
// reversed in groups of 4, and 24-bit as two 12-bit frames (high then low
// 12 bits; the header's width counts both). A quad (4 chips, layout 2x2)
// raw frame is a file row of four chip rows [4|3|2|1] per line, chips 3
// and 4 turned by 180 degrees; its header says width = 4·height.
//
// An acquisition is one multi-frame file or a numbered series of files
// (prefix1.mib, prefix2.mib, ...) ordered by their headers' sequence
// numbers, with a .hdr text file (prefix.hdr) from which the nav shape is
// taken (ScanX/ScanY, or frames in acquisition / frames per trigger).

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// KindMIB is the dataset kind of Merlin .mib files (OpenMIB).
const KindMIB = "mib"

func init() {
	RegisterDatasetKind(KindMIB, func(params []byte) (Dataset, error) {
		var p mibParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: mib dataset parameters: %w", err)
		}
		return OpenMIB(p.Path, OpenOptions{NavShape: p.Nav, SingleFile: p.Single, SyncOffset: p.Sync})
	})
}

type mibParams struct {
	Path   string `json:"path"`
	Nav    []int  `json:"nav"`
	Single bool   `json:"single,omitempty"`
	Sync   int    `json:"sync_offset,omitempty"`
}

// MIBHeader is the parsed header of one .mib frame.
type MIBHeader struct {
	Seq         int    // sequence number of the file's first frame
	HeaderBytes int    // bytes of the header before every frame
	Chips       int    // number of chips
	Width       int    // width as the header says it
	Height      int    // height as the header says it
	Format      string // "U08", "U16", "U32", "U64" or "R64"
	Layout      [2]int // chip layout, width × height ("2x2G" is 2x2)
	Depth       int    // counter depth in bits: 1, 6, 12 or 24

	// Derived: the decoded frame and the stored bytes of one frame.
	Sig         [2]int   // (rows, columns) of a decoded frame
	DType       nd.DType // of a decoded frame
	StoredBytes int      // bytes after the header of each frame
}

// Raw reports whether frames are in the chips' raw readout order.
func (h *MIBHeader) Raw() bool { return h.Format == "R64" }

// Quad reports whether frames are quad raw (four chips, 2x2).
func (h *MIBHeader) Quad() bool { return h.Raw() && h.Chips > 1 }

// maxMIBHeaderBytes bounds a header's declared size.
const maxMIBHeaderBytes = 1 << 16

// ParseMIBHeader parses a .mib frame header from its first bytes (at
// least the header's declared size). The error says which field is bad.
func ParseMIBHeader(head []byte) (MIBHeader, error) {
	var h MIBHeader
	bad := func(format string, args ...any) (MIBHeader, error) {
		return MIBHeader{}, fmt.Errorf("mib header: "+format, args...)
	}
	if !bytes.HasPrefix(head, []byte("MQ1,")) {
		return bad("no MQ1 magic")
	}
	first := strings.SplitN(string(head[:min(len(head), 64)]), ",", 4)
	if len(first) < 4 {
		return bad("fewer than 3 fields")
	}
	n, err := strconv.Atoi(strings.TrimSpace(first[2]))
	if err != nil || n < 64 || n > maxMIBHeaderBytes {
		return bad("header size %q not in [64, %d]", first[2], maxMIBHeaderBytes)
	}
	if len(head) < n {
		return bad("header of %d bytes declared, %d present", n, len(head))
	}
	h.HeaderBytes = n
	var parts []string
	for _, p := range strings.Split(string(head[:n]), ",") {
		if strings.ContainsRune(p, 0) {
			continue // the NUL padding
		}
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) < 9 {
		return bad("%d fields, fewer than 9", len(parts))
	}
	ints := []struct {
		dst  *int
		i    int
		name string
		max  int
	}{{&h.Seq, 1, "sequence number", math.MaxInt32}, {&h.Chips, 3, "chips", 64}, {&h.Width, 4, "width", 1 << 16}, {&h.Height, 5, "height", 1 << 16}, {&h.Depth, len(parts) - 1, "counter depth", 64}}
	for _, f := range ints {
		v, err := strconv.Atoi(parts[f.i])
		if err != nil || v < 0 || v > f.max {
			return bad("%s %q not in [0, %d]", f.name, parts[f.i], f.max)
		}
		*f.dst = v
	}
	if h.Chips < 1 || h.Width < 1 || h.Height < 1 {
		return bad("chips %d, width %d, height %d: must be positive", h.Chips, h.Width, h.Height)
	}
	h.Format = strings.ToUpper(parts[6])
	lay := strings.Split(strings.TrimSuffix(strings.ToUpper(parts[7]), "G"), "X")
	if len(lay) != 2 {
		return bad("layout %q is not WxH", parts[7])
	}
	for i := range 2 {
		v, err := strconv.Atoi(lay[i])
		if err != nil || v < 1 || v > 64 {
			return bad("layout %q is not WxH", parts[7])
		}
		h.Layout[i] = v
	}
	if err := h.derive(); err != nil {
		return bad("%v", err)
	}
	return h, nil
}

// derive sets Sig, DType and StoredBytes from the fields.
func (h *MIBHeader) derive() error {
	w, ht := h.Width, h.Height
	h.Sig = [2]int{ht, w}
	switch h.Format {
	case "U08", "U16", "U32", "U64":
		h.DType = map[string]nd.DType{"U08": nd.Uint8, "U16": nd.Uint16, "U32": nd.Uint32, "U64": nd.Uint64}[h.Format]
		h.StoredBytes = w * ht * h.DType.Size()
		return nil
	case "R64":
	default:
		return fmt.Errorf("pixel format %q is not U08, U16, U32, U64 or R64", h.Format)
	}
	group := map[int]int{1: 64, 6: 8, 12: 4, 24: 4}[h.Depth]
	if group == 0 {
		return fmt.Errorf("raw counter depth %d is not 1, 6, 12 or 24", h.Depth)
	}
	h.DType = map[int]nd.DType{1: nd.Uint8, 6: nd.Uint8, 12: nd.Uint16, 24: nd.Uint32}[h.Depth]
	if h.Depth == 24 {
		if h.Chips > 1 {
			return fmt.Errorf("raw 24-bit frames of %d chips are not supported", h.Chips)
		}
		if w%2 != 0 {
			return fmt.Errorf("raw 24-bit width %d is odd", w)
		}
		w /= 2 // the two 12-bit halves side by side
		h.Sig = [2]int{ht, w}
	}
	if h.Chips > 1 {
		if h.Chips != 4 || h.Layout != [2]int{2, 2} {
			return fmt.Errorf("raw frames of %d chips in layout %dx%d are not supported (only 1 chip, or 4 in 2x2)", h.Chips, h.Layout[0], h.Layout[1])
		}
		if w != 4*ht {
			return fmt.Errorf("raw quad frame of width %d is not 4 × its height %d", w, ht)
		}
		if ht%group != 0 {
			return fmt.Errorf("raw quad chip rows of %d pixels are not whole groups of %d", ht, group)
		}
		h.Sig = [2]int{2 * ht, 2 * ht}
	}
	px := w * ht
	if px%group != 0 {
		return fmt.Errorf("raw frame of %d pixels is not whole groups of %d", px, group)
	}
	switch h.Depth {
	case 1:
		h.StoredBytes = px / 8
	case 6:
		h.StoredBytes = px
	case 12:
		h.StoredBytes = 2 * px
	case 24:
		h.StoredBytes = 4 * px
	}
	return nil
}

// decoder returns the frame decoder of h's frames (nil: stored as is).
func (h *MIBHeader) decoder() frameDecoder {
	if !h.Raw() {
		return nil // big-endian counts, swapped by the reader (bigEndian)
	}
	var seg frameDecoder
	switch h.Depth {
	case 1:
		seg = decodeR1
	case 6:
		seg = decodeR6
	case 12:
		seg = decodeR12
	case 24:
		return decodeR24
	}
	if !h.Quad() {
		return seg
	}
	return quadDecoder(h.Height, h.DType.Size(), h.StoredBytes/(4*h.Height), seg)
}

// decodeR1 unpacks 1-bit raw pixels: each 8 stored bytes hold 64 pixels,
// byte 7-k holding pixels 8k..8k+7, least significant bit first. dst is
// one uint8 per pixel. A byte's 8 pixels come from r1Table as one
// little-endian uint64 (the bit loop ran at a third of the speed).
func decodeR1(dst, src []byte) {
	for g := 0; g+8 <= len(src); g += 8 {
		for k := range 8 {
			binary.LittleEndian.PutUint64(dst[8*(g+k):], r1Table[src[g+7-k]])
		}
	}
}

// r1Table[b] holds bit i of b in byte i.
var r1Table = func() (t [256]uint64) {
	for b := range 256 {
		for bit := range 8 {
			t[b] |= uint64(b>>bit&1) << (8 * bit)
		}
	}
	return t
}()

// decodeR6 reverses 6-bit raw pixels (one byte each) in groups of 8.
// Reversing 8 bytes is reading them big-endian and writing them
// little-endian: one 64-bit load and store per group, where a byte loop
// ran at a quarter of the speed.
func decodeR6(dst, src []byte) { reverse8(dst, src) }

// decodeR12 reverses 12-bit raw pixels (big-endian uint16) in groups of
// 4 into little-endian uint16: pixel 3-c of a group is the big-endian
// pair at 2c, which makes the group's 8 bytes reversed (reverse8).
func decodeR12(dst, src []byte) { reverse8(dst, src) }

// reverse8 writes each 8 bytes of src to dst in reverse order.
func reverse8(dst, src []byte) {
	for g := 0; g+8 <= len(src); g += 8 {
		binary.LittleEndian.PutUint64(dst[g:], binary.BigEndian.Uint64(src[g:]))
	}
}

// decodeR24 combines the two 12-bit raw halves of a 24-bit frame, high
// bits first, into little-endian uint32. Each half's group of 4 pixels is
// its 8 bytes reversed (decodeR12), so pixel i of a group is bits
// 16i..16i+15 of the group read big-endian.
func decodeR24(dst, src []byte) {
	half := len(src) / 2
	hi, lo := src[:half], src[half:]
	for g := 0; g+8 <= half; g += 8 {
		h, l := binary.BigEndian.Uint64(hi[g:]), binary.BigEndian.Uint64(lo[g:])
		o := dst[2*g : 2*g+16]
		for i := range 4 {
			binary.LittleEndian.PutUint32(o[4*i:], uint32(uint16(h>>(16*i)))<<12+uint32(uint16(l>>(16*i))))
		}
	}
}

// quadDecoder returns the decoder of quad raw frames: chips of side
// pixels, decoded segment by segment (segBytes stored bytes per chip row)
// by seg into item-byte pixels. Output rows [0, side) are chips 1 and 2 of
// file row y; rows [side, 2·side) are chips 3 and 4 of file row
// 2·side-1-y, each reversed.
func quadDecoder(side, item, segBytes int, seg frameDecoder) frameDecoder {
	rowOut := side * item
	return func(dst, src []byte) {
		fileRow := 4 * segBytes
		for y := range 2 * side {
			o := dst[2*y*rowOut : 2*(y+1)*rowOut]
			if y < side {
				fr := src[y*fileRow : (y+1)*fileRow]
				seg(o[:rowOut], fr[3*segBytes:4*segBytes])
				seg(o[rowOut:], fr[2*segBytes:3*segBytes])
				continue
			}
			fy := 2*side - 1 - y
			fr := src[fy*fileRow : (fy+1)*fileRow]
			seg(o[:rowOut], fr[segBytes:2*segBytes])
			seg(o[rowOut:], fr[:segBytes])
			reverseItems(o[:rowOut], item)
			reverseItems(o[rowOut:], item)
		}
	}
}

// reverseItems reverses the order of the item-byte elements of b.
func reverseItems(b []byte, item int) {
	for i, j := 0, len(b)-item; i < j; i, j = i+item, j-item {
		for k := range item {
			b[i+k], b[j+k] = b[j+k], b[i+k]
		}
	}
}

// ParseMIBHDR parses a Merlin .hdr file: "Key:\tvalue" lines after a
// first line starting "HDR", up to "End".
func ParseMIBHDR(r io.Reader) (map[string]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	out := map[string]string{}
	first := true
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if first {
			if !strings.HasPrefix(line, "HDR") {
				return nil, fmt.Errorf("mib hdr: first line %q does not start with HDR", truncate(line, 40))
			}
			first = false
			continue
		}
		if strings.HasPrefix(line, "End") {
			break
		}
		k, v, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		out[strings.TrimSuffix(strings.TrimSpace(k), ":")] = strings.TrimSpace(v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("mib hdr: %w", err)
	}
	if first {
		return nil, fmt.Errorf("mib hdr: empty")
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// mibNavFromHDR returns the nav shape an .hdr file gives: (ScanY, ScanX)
// when it has them, else (frames / frames per trigger, frames per
// trigger), as LiberTEM reads it.
func mibNavFromHDR(hdr map[string]string) ([]int, error) {
	num := func(k string) (int, error) {
		v, err := strconv.Atoi(hdr[k])
		if err != nil || v < 1 || v > math.MaxInt32 {
			return 0, fmt.Errorf("mib hdr: %s %q is not a positive count", k, hdr[k])
		}
		return v, nil
	}
	if _, ok := hdr["ScanX"]; ok {
		x, err := num("ScanX")
		if err != nil {
			return nil, err
		}
		y, err := num("ScanY")
		if err != nil {
			return nil, err
		}
		return []int{y, x}, nil
	}
	frames, err := num("Frames in Acquisition (Number)")
	if err != nil {
		return nil, err
	}
	per, err := num("Frames per Trigger (Number)")
	if err != nil {
		return nil, err
	}
	if frames/per < 1 {
		return nil, fmt.Errorf("mib hdr: %d frames in acquisition, fewer than the %d per trigger", frames, per)
	}
	return []int{frames / per, per}, nil
}

// mibSeriesFiles returns the .mib files of the series that path (a .mib
// or .hdr file) belongs to: for prefix12.mib or prefix.hdr, the files
// prefix<digits>.mib and prefix.mib in its directory. LiberTEM globs
// prefix*.mib; the digits-only match keeps prefix_old.mib out of the
// series (SingleFile turns the series off altogether).
func mibSeriesFiles(path string) ([]string, error) {
	dir, base := filepath.Split(path)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext)
	if strings.EqualFold(ext, ".mib") {
		prefix = strings.TrimRight(prefix, "0123456789")
	}
	ents, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.EqualFold(filepath.Ext(n), ".mib") || !strings.HasPrefix(n, prefix) {
			continue
		}
		mid := strings.TrimSuffix(n[len(prefix):], filepath.Ext(n))
		if strings.Trim(mid, "0123456789") == "" {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out, nil
}

// MIBDataset is a Merlin acquisition: one or more .mib files, frames in
// sequence order, decoded to uint8 (U08, raw 1 and 6 bit), uint16 (U16,
// raw 12 bit), uint32 (U32, raw 24 bit) or uint64 (U64). Frames past the
// nav shape's product are not read.
type MIBDataset struct {
	framedFile
	header MIBHeader
	files  []string
	single bool
}

var (
	_ Dataset           = (*MIBDataset)(nil)
	_ TaskReaderDataset = (*MIBDataset)(nil)
)

// OpenMIB opens a Merlin acquisition from one of its .mib files or its
// .hdr file. The nav shape is opts.NavShape, else the .hdr's (when path is
// the .hdr), else a square of the frame count when it is one, else the
// frame count. opts.SingleFile reads only path (a .mib). Every file's
// header must agree with the first one's format, and the files' sequence
// numbers must follow on from each other. Errors are *DatasetError naming
// the file.
func OpenMIB(path string, opts OpenOptions) (*MIBDataset, error) {
	bad := func(p string, err error, format string, args ...any) error {
		return &DatasetError{Kind: KindMIB, Path: p, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	if err := graph.CheckPath("udfbridge.open-mib", path); err != nil {
		return nil, bad(path, err, "refused")
	}
	isHDR := strings.EqualFold(filepath.Ext(path), ".hdr")
	var files []string
	switch {
	case opts.SingleFile && isHDR:
		return nil, bad(path, nil, "a single file must be a .mib file")
	case opts.SingleFile:
		files = []string{path}
	default:
		if _, err := os.Stat(path); err != nil {
			return nil, bad(path, err, "stat")
		}
		var err error
		if files, err = mibSeriesFiles(path); err != nil {
			return nil, bad(path, err, "listing the series")
		}
		if len(files) == 0 {
			return nil, bad(path, nil, "no .mib files of its series found")
		}
	}
	type fileHead struct {
		path string
		h    MIBHeader
		size int64
	}
	heads := make([]fileHead, 0, len(files))
	for _, p := range files {
		h, size, err := readMIBHeader(p)
		if err != nil {
			return nil, bad(p, err, "header")
		}
		heads = append(heads, fileHead{p, h, size})
	}
	sort.SliceStable(heads, func(i, j int) bool { return heads[i].h.Seq < heads[j].h.Seq })
	h0 := heads[0].h
	var runs []frameRun
	count := 0
	for _, fh := range heads {
		h := fh.h
		if h.Format != h0.Format || h.Depth != h0.Depth || h.Sig != h0.Sig || h.HeaderBytes != h0.HeaderBytes || h.Chips != h0.Chips {
			return nil, bad(fh.path, nil, "header (%s %d-bit %v, %d-byte header) differs from %s's (%s %d-bit %v, %d-byte header)",
				h.Format, h.Depth, h.Sig, h.HeaderBytes, heads[0].path, h0.Format, h0.Depth, h0.Sig, h0.HeaderBytes)
		}
		if want := h0.Seq + count; h.Seq != want {
			return nil, bad(fh.path, nil, "sequence number %d, want %d after the %d frames before it", h.Seq, want, count)
		}
		stride := int64(h.HeaderBytes) + int64(h.StoredBytes)
		n := fh.size / stride // a partial last frame is not a frame, as in LiberTEM
		if n == 0 {
			return nil, bad(fh.path, io.ErrUnexpectedEOF, "file of %d bytes holds no whole frame of %d bytes", fh.size, stride)
		}
		if n > math.MaxInt32 || count > math.MaxInt32 {
			return nil, bad(fh.path, nil, "too many frames")
		}
		runs = append(runs, frameRun{path: fh.path, first: count, count: int(n), offset: int64(h.HeaderBytes), stride: stride})
		count += int(n)
	}
	nav := dsClone(opts.NavShape)
	if nav == nil && isHDR {
		fh, err := os.Open(path)
		if err != nil {
			return nil, bad(path, err, "open")
		}
		hdr, err := ParseMIBHDR(io.LimitReader(fh, 1<<20))
		fh.Close()
		if err == nil {
			nav, err = mibNavFromHDR(hdr)
		}
		if err != nil {
			return nil, bad(path, err, "hdr")
		}
	}
	if nav == nil {
		nav = squareOrLine(count)
	}
	d := &MIBDataset{header: h0, files: files, single: opts.SingleFile}
	d.framedFile = framedFile{kind: KindMIB, skip: opts.SyncOffset, name: "mib file " + path, path: path, runs: runs, nav: nav,
		sig: []int{h0.Sig[0], h0.Sig[1]}, dt: h0.DType, stored: h0.StoredBytes, decode: h0.decoder(), bigEndian: !h0.Raw()}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// readMIBHeader reads and parses the first header of a .mib file.
func readMIBHeader(path string) (MIBHeader, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return MIBHeader{}, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return MIBHeader{}, 0, err
	}
	head := make([]byte, 1024)
	k, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return MIBHeader{}, 0, err
	}
	head = head[:k]
	if n, ok := mibDeclaredHeader(head); ok && n > len(head) && int64(n) <= st.Size() {
		head = append(head, make([]byte, n-len(head))...)
		if _, err := io.ReadFull(f, head[k:]); err != nil {
			return MIBHeader{}, 0, err
		}
	}
	h, err := ParseMIBHeader(head)
	return h, st.Size(), err
}

// mibDeclaredHeader returns the header size a header's third field
// declares, if it is a number in range.
func mibDeclaredHeader(head []byte) (int, bool) {
	f := strings.SplitN(string(head[:min(len(head), 64)]), ",", 4)
	if len(f) < 4 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(f[2]))
	return n, err == nil && n > 0 && n <= maxMIBHeaderBytes
}

// squareOrLine returns (s, s) when n = s², else (n,): LiberTEM's guess of
// a nav shape from a frame count.
func squareOrLine(n int) []int {
	s := int(math.Sqrt(float64(n)))
	for s*s > n {
		s--
	}
	for (s+1)*(s+1) <= n {
		s++
	}
	if s*s == n && n > 0 {
		return []int{s, s}
	}
	return []int{n}
}

// Header returns the first file's header.
func (d *MIBDataset) Header() MIBHeader { return d.header }

// Files returns the .mib files read, in sequence order.
func (d *MIBDataset) Files() []string {
	out := make([]string, len(d.runs))
	for i, r := range d.runs {
		out[i] = r.path
	}
	return out
}

func (d *MIBDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(mibParams{Path: d.path, Nav: d.nav, Single: d.single, Sync: d.skip})
	return DatasetSpec{Kind: KindMIB, Params: b}, err
}
