package udfbridge

// Fixture generators of the detector formats, written from the format
// descriptions (the doc comments of mibds.go, empadds.go, mrcds.go) as
// the inverse of reading: each takes the frames it wants the file to hold
// and encodes them. The decoders are not called here, so a decoder and an
// encoder that disagree about the layout fail the frame-by-frame tests.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// mibSpec describes a Merlin acquisition to write.
type mibSpec struct {
	format    string // U08, U16, U32, U64, R64
	depth     int    // counter depth
	quad      bool   // 4 chips in 2x2
	rows      int    // decoded frame rows (and columns)
	frames    []int  // frames per file
	headerLen int    // 0: 384 (768 for quad)
	seq0      int    // first sequence number (0: 1)
}

// mibValues returns n frames of side×side pixel values below 2^depth
// (random, seeded by the spec), as an (n, side, side) array of the
// decoded dtype.
func mibValues(t testing.TB, dt nd.DType, depth, n, side int, seed uint64) *nd.Array {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, uint64(depth)))
	lim := uint64(1) << min(depth, 63)
	v := make([]uint64, n*side*side)
	for i := range v {
		v[i] = rng.Uint64N(lim)
		if i%17 == 0 {
			v[i] = lim - 1 // the top value of the depth
		}
	}
	a, err := nd.FromSlice(v, n, side, side)
	if err != nil {
		t.Fatal(err)
	}
	if a, err = a.AsType(dt); err != nil {
		t.Fatal(err)
	}
	return a
}

// mibHeaderText returns a frame header as Merlin writes it: the fields,
// then NUL padding to headerLen.
func mibHeaderText(seq, headerLen, chips, width, height int, format, layout string, depth int) []byte {
	s := fmt.Sprintf("MQ1,%06d,%05d,%02d,%04d,%04d,%s,%6s,%02d,2026-11-25 18:00:00.000000,0.001000,0,0,0,"+
		"1.200000E+2,5.110000E+2,0.000000E+0,0.000000E+0,0.000000E+0,0.000000E+0,0.000000E+0,0.000000E+0,"+
		"3RX,175,511,000,000,000,000,000,000,125,255,125,125,100,100,082,100,087,030,128,004,255,129,128,176,168,511,511,"+
		"MQ1A,2026-11-25T18:00:00.000000000Z,1000000ns,%d,",
		seq, headerLen, chips, width, height, format, layout, chips, depth)
	b := make([]byte, headerLen)
	copy(b, s)
	return b
}

// encR1 packs pixels (values 0/1) 64 to 8 bytes: byte 7-k of a group
// holds pixels 8k..8k+7, least significant bit first.
func encR1(px []uint64) []byte {
	out := make([]byte, len(px)/8)
	for g := 0; g < len(px)/64; g++ {
		for k := range 8 {
			var b byte
			for bit := range 8 {
				b |= byte(px[64*g+8*k+bit]&1) << bit
			}
			out[8*g+7-k] = b
		}
	}
	return out
}

// encR6 stores pixels as bytes reversed in groups of 8.
func encR6(px []uint64) []byte {
	out := make([]byte, len(px))
	for i := range px {
		g, c := i/8, i%8
		out[8*g+c] = byte(px[8*g+7-c])
	}
	return out
}

// encR12 stores pixels as big-endian uint16 reversed in groups of 4.
func encR12(px []uint64) []byte {
	out := make([]byte, 2*len(px))
	for i := range px {
		g, c := i/4, i%4
		binary.BigEndian.PutUint16(out[2*(4*g+c):], uint16(px[4*g+3-c]))
	}
	return out
}

// mibEncodeFrame encodes one decoded frame (side×side values) as the
// spec's stored bytes.
func mibEncodeFrame(s mibSpec, px []uint64) []byte {
	side := s.rows
	if !strings.HasPrefix(s.format, "R") {
		w := map[string]int{"U08": 1, "U16": 2, "U32": 4, "U64": 8}[s.format]
		out := make([]byte, len(px)*w)
		for i, v := range px {
			for k := range w { // big-endian
				out[i*w+k] = byte(v >> (8 * (w - 1 - k)))
			}
		}
		return out
	}
	enc := map[int]func([]uint64) []byte{1: encR1, 6: encR6, 12: encR12}[s.depth]
	if s.depth == 24 {
		hi, lo := make([]uint64, len(px)), make([]uint64, len(px))
		for i, v := range px {
			hi[i], lo[i] = v>>12, v&0xfff
		}
		return append(encR12(hi), encR12(lo)...)
	}
	if !s.quad {
		return enc(px)
	}
	// Quad: a frame of 2h×2h from chips of h×h; file row y holds the
	// chip rows [4|3|2|1]: chips 1 and 2 are output row y, chips 3 and
	// 4 are output row 2h-1-y, reversed.
	h := side / 2
	var out []byte
	for y := range h {
		top := px[y*side : (y+1)*side]
		bottom := px[(side-1-y)*side : (side-y)*side]
		rev := func(v []uint64) []uint64 {
			r := make([]uint64, len(v))
			for i := range v {
				r[len(v)-1-i] = v[i]
			}
			return r
		}
		out = append(out, enc(rev(bottom[h:]))...) // chip 4
		out = append(out, enc(rev(bottom[:h]))...) // chip 3
		out = append(out, enc(top[h:])...)         // chip 2
		out = append(out, enc(top[:h])...)         // chip 1
	}
	return out
}

// writeMIB writes the acquisition as prefix<k>.mib files in dir (prefix.mib
// when there is one file) and returns their paths and the frames they hold,
// (frames, rows, rows) in the decoded dtype.
func writeMIB(t testing.TB, dir, prefix string, s mibSpec, dt nd.DType) ([]string, *nd.Array) {
	t.Helper()
	total := 0
	for _, n := range s.frames {
		total += n
	}
	want := mibValues(t, dt, s.depth, total, s.rows, uint64(total*31+s.depth))
	px, err := want.AsType(nd.Uint64)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := nd.Values[uint64](px)
	if err != nil {
		t.Fatal(err)
	}
	chips, layout := 1, "1x1"
	width, height := s.rows, s.rows
	if s.quad {
		chips, layout = 4, "2x2G"
		if strings.HasPrefix(s.format, "R") {
			width, height = 2*s.rows, s.rows/2 // four chip rows side by side
		}
	}
	if s.format == "R64" && s.depth == 24 {
		width *= 2 // the header counts both 12-bit halves
	}
	hl := s.headerLen
	if hl == 0 {
		hl = 384
		if s.quad {
			hl = 768
		}
	}
	seq := s.seq0
	if seq == 0 {
		seq = 1
	}
	var paths []string
	frame := 0
	fpx := s.rows * s.rows
	for k, n := range s.frames {
		name := fmt.Sprintf("%s%d.mib", prefix, k+1)
		if len(s.frames) == 1 {
			name = prefix + ".mib"
		}
		var b []byte
		for j := range n {
			b = append(b, mibHeaderText(seq+frame+j, hl, chips, width, height, s.format, layout, s.depth)...)
			b = append(b, mibEncodeFrame(s, vals[(frame+j)*fpx:(frame+j+1)*fpx])...)
		}
		frame += n
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths, want
}

// writeMIBHDR writes prefix.hdr with the given key/value lines.
func writeMIBHDR(t testing.TB, dir, prefix string, kv [][2]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("HDR,\t\n")
	b.WriteString("Time and Date Stamp (day, mnth, yr, hr, min, s):\t25/11/2026 18:00:00\n")
	for _, p := range kv {
		fmt.Fprintf(&b, "%s:\t%s\n", p[0], p[1])
	}
	b.WriteString("End\t\n")
	p := filepath.Join(dir, prefix+".hdr")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// empadFrames returns n frames of 128×128 float32 or uint32 values.
func empadFrames(t testing.TB, dt nd.DType, n int) *nd.Array {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	switch dt {
	case nd.Float32:
		v := make([]float32, n*empadSide*empadSide)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 100)
		}
		a, err := nd.FromSlice(v, n, empadSide, empadSide)
		if err != nil {
			t.Fatal(err)
		}
		return a
	default:
		v := make([]uint32, n*empadSide*empadSide)
		for i := range v {
			v[i] = rng.Uint32()
		}
		a, err := nd.FromSlice(v, n, empadSide, empadSide)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
}

// writeEMPAD writes name.raw (frames of 130 rows, the last 2 of metadata
// bytes 0xEE) and name.xml naming it, with the acquire scan (ny, nx) and,
// if search is set, a search scan; xmlNav nil writes a <type>series
// with a count. It returns the xml path.
func writeEMPAD(t testing.TB, dir, name string, frames *nd.Array, acquire, search []int) string {
	t.Helper()
	n := frames.Shape()[0]
	frameBytes := empadSide * empadSide * empadItemBytes
	all := frames.AppendBytes(nil, false)
	var b []byte
	for i := range n {
		b = append(b, all[i*frameBytes:(i+1)*frameBytes]...)
		for range 2 * empadSide * empadItemBytes {
			b = append(b, 0xEE)
		}
	}
	raw := filepath.Join(dir, name+".raw")
	if err := os.WriteFile(raw, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var x strings.Builder
	fmt.Fprintf(&x, "<?xml version=\"1.0\"?>\n<root>\n  <raw_file filename=\"C:/acq/%s.raw\"/>\n", name)
	if len(acquire) == 1 {
		fmt.Fprintf(&x, "  <type>series</type>\n  <count>%d</count>\n", acquire[0])
	} else {
		x.WriteString("  <type>scan</type>\n")
		scan := func(mode string, s []int) {
			fmt.Fprintf(&x, "  <scan_parameters mode=%q>\n    <scan_resolution_x>%d</scan_resolution_x>\n    <scan_resolution_y>%d</scan_resolution_y>\n  </scan_parameters>\n", mode, s[1], s[0])
		}
		if search != nil {
			scan("search", search)
		}
		scan("acquire", acquire)
	}
	x.WriteString("</root>\n")
	p := filepath.Join(dir, name+".xml")
	if err := os.WriteFile(p, []byte(x.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mrcModeDType is the decoded dtype of each mode the generator writes.
var mrcModeDType = map[int]nd.DType{0: nd.Int8, 1: nd.Int16, 2: nd.Float32, 3: nd.Complex64, 4: nd.Complex64, 6: nd.Uint16, 12: nd.Float32}

// mrcValues returns nz sections of ny×nx values of the mode's decoded
// dtype that the mode stores exactly (float16: small integers and halves).
func mrcValues(t testing.TB, mode, nz, ny, nx int) *nd.Array {
	t.Helper()
	n := nz * ny * nx
	rng := rand.New(rand.NewPCG(uint64(mode), uint64(n)))
	f := make([]float64, n)
	for i := range f {
		switch mode {
		case 0:
			f[i] = float64(rng.IntN(256) - 128)
		case 1, 3:
			f[i] = float64(rng.IntN(65536) - 32768)
		case 6:
			f[i] = float64(rng.IntN(65536))
		case 12:
			f[i] = float64(rng.IntN(4096)-2048) / 2
		default:
			f[i] = rng.NormFloat64() * 1e3
		}
	}
	a, err := nd.FromSlice(f, nz, ny, nx)
	if err != nil {
		t.Fatal(err)
	}
	if mode == 3 || mode == 4 {
		im := make([]complex128, n)
		for i := range im {
			im[i] = complex(f[i], f[(i+7)%n])
		}
		if a, err = nd.FromSlice(im, nz, ny, nx); err != nil {
			t.Fatal(err)
		}
	}
	if a, err = a.AsType(mrcModeDType[mode]); err != nil {
		t.Fatal(err)
	}
	return a
}

// float32ToHalf converts a float32 that binary16 holds exactly.
func float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	frac := b & 0x7fffff
	if f == 0 {
		return sign
	}
	if exp <= 0 { // subnormal half
		return sign | uint16((frac|0x800000)>>(14-exp))
	}
	return sign | uint16(exp)<<10 | uint16(frac>>13)
}

// writeMRC writes an MRC2014 file of the sections, in the mode, with
// next bytes of extended header, little- or big-endian.
func writeMRC(t testing.TB, path string, data *nd.Array, mode, next int, big bool) {
	t.Helper()
	var bo interface {
		binary.ByteOrder
		binary.AppendByteOrder
	} = binary.LittleEndian
	if big {
		bo = binary.BigEndian
	}
	sh := data.Shape()
	nz, ny, nx := sh[0], sh[1], sh[2]
	h := make([]byte, mrcHeaderBytes)
	put := func(word int, v uint32) { bo.PutUint32(h[4*(word-1):], v) }
	put(1, uint32(nx))
	put(2, uint32(ny))
	put(3, uint32(nz))
	put(4, uint32(mode))
	put(8, uint32(nx))
	put(9, uint32(ny))
	put(10, uint32(nz))
	for w := 11; w <= 13; w++ {
		put(w, math.Float32bits(1))
	}
	put(17, 1)
	put(18, 2)
	put(19, 3)
	put(24, uint32(next))
	copy(h[104:], "FEI1")
	put(28, 20140)
	copy(h[208:], "MAP ")
	if big {
		copy(h[212:], []byte{0x11, 0x11, 0, 0})
	} else {
		copy(h[212:], []byte{0x44, 0x44, 0, 0})
	}
	put(56, 1)
	copy(h[224:], "tessera fixture")
	b := append(h, make([]byte, next)...)
	for i := range next {
		b[mrcHeaderBytes+i] = byte(i * 13)
	}
	switch mode {
	case 0, 1, 2, 4, 6:
		raw := data.Contiguous().AppendBytes(nil, false) // little-endian C order
		if w := data.DType().Size(); big && w > 1 {
			if mode == 4 {
				w = 4 // complex64: two float32
			}
			for i := 0; i < len(raw); i += w {
				for a, z := i, i+w-1; a < z; a, z = a+1, z-1 {
					raw[a], raw[z] = raw[z], raw[a]
				}
			}
		}
		b = append(b, raw...)
	case 3:
		c, _ := nd.Values[complex64](data.Contiguous())
		for _, v := range c {
			b = bo.AppendUint16(b, uint16(int16(real(v))))
			b = bo.AppendUint16(b, uint16(int16(imag(v))))
		}
	case 12:
		f, _ := nd.Values[float32](data.Contiguous())
		for _, v := range f {
			b = bo.AppendUint16(b, float32ToHalf(v))
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// DM4 writer, from the tag format in dm4ds.go's doc: entries are built
// bottom up, each with its size.

// dmEntry returns a tag entry: kind, name, size, content.
func dmEntry(kind byte, name string, content []byte) []byte {
	b := []byte{kind}
	b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint64(b, uint64(len(content)))
	return append(b, content...)
}

// dmDirContent returns a directory's contents: flags, count, entries.
func dmDirContent(entries ...[]byte) []byte {
	b := []byte{0, 1}
	b = binary.BigEndian.AppendUint64(b, uint64(len(entries)))
	for _, e := range entries {
		b = append(b, e...)
	}
	return b
}

func dmDir(name string, entries ...[]byte) []byte {
	return dmEntry(20, name, dmDirContent(entries...))
}

// dmData returns a data tag of the type description and value bytes.
func dmData(name string, info []uint64, val []byte) []byte {
	b := []byte("%%%%")
	b = binary.BigEndian.AppendUint64(b, uint64(len(info)))
	for _, x := range info {
		b = binary.BigEndian.AppendUint64(b, x)
	}
	return dmEntry(21, name, append(b, val...))
}

// dmU32 is a uint32 data tag (type 5), little-endian.
func dmU32(name string, v uint32) []byte {
	return dmData(name, []uint64{5}, binary.LittleEndian.AppendUint32(nil, v))
}

// dmFile returns a .dm4 file of the root entries (little-endian data).
func dmFile(entries ...[]byte) []byte {
	root := dmDirContent(entries...)
	b := binary.BigEndian.AppendUint32(nil, 4)
	b = binary.BigEndian.AppendUint64(b, uint64(len(root)))
	b = binary.BigEndian.AppendUint32(b, 1)
	b = append(b, root...)
	return append(b, make([]byte, 8)...)
}

var dmTypeOf = map[nd.DType]uint64{nd.Int16: 2, nd.Int32: 3, nd.Uint16: 4, nd.Uint32: 5, nd.Float32: 6, nd.Float64: 7, nd.Int8: 9, nd.Uint8: 10}
var dmCodeOf = map[nd.DType]uint32{nd.Int16: 1, nd.Float32: 2, nd.Uint8: 6, nd.Int32: 7, nd.Int8: 9, nd.Uint16: 10, nd.Uint32: 11, nd.Float64: 12}

// dmImage returns an ImageList entry holding data (C order) with its
// dimensions written fastest first; swapped adds Meta Data's "Data
// Order Swapped" = 1.
func dmImage(data *nd.Array, swapped bool, dimsOverride ...int) []byte {
	sh := data.Shape()
	if dimsOverride != nil {
		sh = dimsOverride
	}
	var dims [][]byte
	for k := len(sh) - 1; k >= 0; k-- {
		dims = append(dims, dmU32("", uint32(sh[k])))
	}
	sh = data.Shape()
	dt := data.DType()
	imageData := dmDir("ImageData",
		dmData("Calibrations", []uint64{20, 15, 0, 3, 0, 6, 0, 6, 0, 4, uint64(len(sh))}, make([]byte, 10*len(sh))),
		dmData("Data", []uint64{20, dmTypeOf[dt], uint64(data.Size())}, data.Contiguous().AppendBytes(nil, false)),
		dmData("DataType", []uint64{3}, binary.LittleEndian.AppendUint32(nil, dmCodeOf[dt])),
		dmDir("Dimensions", dims...),
		dmU32("PixelDepth", uint32(dt.Size())),
	)
	format := []byte{}
	for _, c := range "Diffraction image" {
		format = binary.LittleEndian.AppendUint16(format, uint16(c))
	}
	meta := []([]byte){dmData("Format", []uint64{20, 4, uint64(len(format) / 2)}, format)}
	if swapped {
		meta = append(meta, dmData("Data Order Swapped", []uint64{8}, []byte{1}))
	}
	tags := dmDir("ImageTags", dmDir("Meta Data", meta...), dmData("Name", []uint64{18, 3}, []byte("a\x00b\x00c\x00")))
	return dmDir("", imageData, tags, dmData("UniqueID", []uint64{15, 0, 4, 0, 5, 0, 5, 0, 5, 0, 5}, make([]byte, 16)))
}

// writeDM4 writes a .dm4 file whose ImageList holds a 2-D thumbnail and
// the data.
func writeDM4(t testing.TB, path string, data *nd.Array, swapped bool) {
	t.Helper()
	thumb := mrcValues(t, 6, 1, 4, 4)
	thumb = reshapeT(t, thumb, 4, 4)
	b := dmFile(
		dmDir("ApplicationBounds", dmU32("", 0)),
		dmDir("ImageList", dmImage(thumb, false), dmImage(data, swapped)),
		dmData("InImageMode", []uint64{8}, []byte{1}),
	)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeBLO writes a .blo file of the frames (ny·nx, side, side) of uint8
// or uint16 (magic 259 with the bit depth in the text; magic 258 only
// for uint8), each after a 6-byte frame header, with a bright-field image
// of ny×nx bytes between the text and the patterns.
func writeBLO(t testing.TB, path string, frames *nd.Array, ny, nx, magic int) {
	t.Helper()
	le := binary.LittleEndian
	side := frames.Shape()[1]
	text := "\r\nBlo Version: 3\r\nBlo Bit Depth: " + map[nd.DType]string{nd.Uint8: "8", nd.Uint16: "16"}[frames.DType()] + " bits\r\nOther: x\r\n"
	h := make([]byte, bloHeaderBytes)
	copy(h, "IMGBLO")
	le.PutUint16(h[6:], uint16(magic))
	vbf := bloHeaderBytes
	if magic == 259 {
		vbf += len(text) + 3
	}
	le.PutUint32(h[8:], uint32(vbf))
	le.PutUint32(h[12:], uint32(vbf+ny*nx+17))
	le.PutUint16(h[20:], uint16(side))
	le.PutUint16(h[24:], uint16(nx))
	le.PutUint16(h[26:], uint16(ny))
	le.PutUint64(h[30:], math.Float64bits(1.5))
	b := h
	if magic == 259 {
		b = append(append(b, text...), 0, 0, 0)
	}
	b = append(b, make([]byte, ny*nx+17)...) // the bright-field image and a gap
	fb := side * side * frames.DType().Size()
	all := frames.Contiguous().AppendBytes(nil, false)
	for i := range ny * nx {
		b = append(b, 0xAA, 0x55, byte(i), byte(i>>8), 0, 0)
		b = append(b, all[i*fb:(i+1)*fb]...)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
