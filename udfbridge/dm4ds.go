package udfbridge

// Gatan DigitalMicrograph 4 (.dm4) files, the 3-D and 4-D stacks whose
// data block is contiguous and in C order. A .dm4 file is a header —
// version 4, the root directory's length and the byte order of the data
// (all three big-endian; byte order 1 is little-endian data) — and a tree
// of tags. A directory is sorted and closed flags (a byte each) and a tag
// count (uint64); a tag is its kind (20 directory, 21 data), a name
// (uint16 length, bytes) and its size (uint64), then a directory, or
// "%%%%", the length of its type description (uint64), the description
// (uint64s, big-endian) and the value. A description is [type] for a
// number, [20, type, n] for an array of n numbers, [15, 0, k, 0, t1, ...,
// 0, tk] for a struct, [20, 15, 0, k, 0, t1, ..., n] for an array of
// structs, [18, n] for a string. Number types: 2 int16, 3 int32, 4 uint16,
// 5 uint32, 6 float32, 7 float64, 8 bool, 9 int8, 10 uint8, 11 int64,
// 12 uint64.
//
// Images are ImageList's unnamed directories, each with ImageData: Data
// (the array), DataType (DM's code of the element type) and Dimensions
// (one number per axis, fastest first). As LiberTEM reads them, the axes
// reversed are the C-order shape; the last two are the sig. 3-D stacks are
// C order; 4-D STEM data is C order only where ImageTags' Meta Data says
// "Data Order Swapped" (older files interleave the axes: refused, as
// LiberTEM does unless forced).

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/tessera-go/tessera/nd"
)

// KindDM4 is the dataset kind of .dm4 files (OpenDM4).
const KindDM4 = "dm4"

func init() {
	RegisterDatasetKind(KindDM4, func(params []byte) (Dataset, error) {
		var p mibParams // path and nav
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: dm4 dataset parameters: %w", err)
		}
		return OpenDM4(p.Path, OpenOptions{NavShape: p.Nav, SyncOffset: p.Sync})
	})
}

// DMTag is a tag of a .dm4 file: a directory (Dir true, Tags) or data
// (Info, the type description, and the value's bytes at Offset, Size).
type DMTag struct {
	Name   string
	Dir    bool
	Tags   []*DMTag
	Info   []uint64
	Offset int64
	Size   int64
	Value  []byte // the value, when it is at most dmSmallValue bytes
}

// dmSmallValue bounds the values the parser keeps in memory: numbers,
// small arrays and strings; image data is left in the file.
const dmSmallValue = 256

// Limits on what a header may declare, checked before anything is sized
// from it.
const (
	dmMaxDepth = 64
	dmMaxTags  = 1 << 20 // tags in the whole file
	dmMaxInfo  = 1 << 10 // uint64s of one type description
)

var dmNumberSize = map[uint64]int64{2: 2, 3: 4, 4: 2, 5: 4, 6: 4, 7: 8, 8: 1, 9: 1, 10: 1, 11: 8, 12: 8}

// dmValueSize returns the bytes of a value of the type description.
func dmValueSize(info []uint64) (int64, error) {
	bad := fmt.Errorf("dm4: type description %v not understood", info)
	if len(info) == 0 {
		return 0, bad
	}
	mul := func(n uint64, size int64) (int64, error) {
		if size <= 0 || n > uint64(math.MaxInt64/size) {
			return 0, fmt.Errorf("dm4: type description %v: size overflows", info)
		}
		return int64(n) * size, nil
	}
	structSize := func(fields []uint64) (int64, error) { // (0, t) pairs
		if len(fields)%2 != 0 {
			return 0, bad
		}
		var s int64
		for i := 1; i < len(fields); i += 2 {
			n, ok := dmNumberSize[fields[i]]
			if !ok {
				return 0, bad
			}
			s += n
		}
		return s, nil
	}
	switch {
	case len(info) == 1:
		if n, ok := dmNumberSize[info[0]]; ok {
			return n, nil
		}
	case info[0] == 18 && len(info) == 2:
		return mul(info[1], 2) // UTF-16
	case info[0] == 15 && len(info) >= 3 && uint64(len(info)) == 3+2*info[2]:
		return structSize(info[3:])
	case info[0] == 20 && len(info) == 3:
		if n, ok := dmNumberSize[info[1]]; ok {
			return mul(info[2], n)
		}
	case info[0] == 20 && len(info) >= 5 && info[1] == 15 && uint64(len(info)) == 5+2*info[3]:
		s, err := structSize(info[4 : len(info)-1])
		if err != nil {
			return 0, err
		}
		return mul(info[len(info)-1], s)
	}
	return 0, bad
}

// dmParser reads a tag tree, tracking the offset.
type dmParser struct {
	r    *bufio.Reader
	f    io.ReadSeeker
	off  int64
	size int64
	tags int
	le   bool // data values little-endian
}

func (p *dmParser) read(n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(p.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("dm4: at byte %d: %w", p.off, err)
	}
	p.off += int64(n)
	return b, nil
}

func (p *dmParser) u64() (uint64, error) {
	b, err := p.read(8)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}

// skip moves n bytes ahead (a seek past image data).
func (p *dmParser) skip(n int64) error {
	if n > p.size-p.off {
		return fmt.Errorf("dm4: value of %d bytes at byte %d runs past the file's %d bytes: %w", n, p.off, p.size, io.ErrUnexpectedEOF)
	}
	if n <= int64(p.r.Buffered()) {
		p.r.Discard(int(n))
	} else {
		if _, err := p.f.Seek(p.off+n, io.SeekStart); err != nil {
			return err
		}
		p.r.Reset(p.f)
	}
	p.off += n
	return nil
}

// dir parses a directory's contents (after its name and size).
func (p *dmParser) dir(depth int) ([]*DMTag, error) {
	if depth > dmMaxDepth {
		return nil, fmt.Errorf("dm4: directories nested deeper than %d", dmMaxDepth)
	}
	if _, err := p.read(2); err != nil { // sorted, closed
		return nil, err
	}
	n, err := p.u64()
	if err != nil {
		return nil, err
	}
	if n > dmMaxTags || int(n) > dmMaxTags-p.tags {
		return nil, fmt.Errorf("dm4: directory of %d tags, more than the %d of a file", n, dmMaxTags)
	}
	var out []*DMTag
	for range n {
		p.tags++
		hd, err := p.read(3)
		if err != nil {
			return nil, err
		}
		kind, nameLen := hd[0], binary.BigEndian.Uint16(hd[1:])
		name, err := p.read(int(nameLen))
		if err != nil {
			return nil, err
		}
		if _, err := p.u64(); err != nil { // the tag's size: recomputed, not trusted
			return nil, err
		}
		t := &DMTag{Name: string(name)}
		switch kind {
		case 20:
			t.Dir = true
			if t.Tags, err = p.dir(depth + 1); err != nil {
				return nil, err
			}
		case 21:
			if err := p.data(t); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("dm4: tag %q of kind %d at byte %d (not 20 or 21)", name, kind, p.off-int64(nameLen)-11)
		}
		out = append(out, t)
	}
	return out, nil
}

// data parses a data tag's "%%%%", description and value.
func (p *dmParser) data(t *DMTag) error {
	b, err := p.read(4)
	if err != nil {
		return err
	}
	if string(b) != "%%%%" {
		return fmt.Errorf("dm4: data tag %q at byte %d without %%%%%%%%", t.Name, p.off-4)
	}
	n, err := p.u64()
	if err != nil {
		return err
	}
	if n == 0 || n > dmMaxInfo {
		return fmt.Errorf("dm4: data tag %q: type description of %d numbers", t.Name, n)
	}
	t.Info = make([]uint64, n)
	for i := range t.Info {
		if t.Info[i], err = p.u64(); err != nil {
			return err
		}
	}
	if t.Size, err = dmValueSize(t.Info); err != nil {
		return fmt.Errorf("dm4: data tag %q: %w", t.Name, err)
	}
	t.Offset = p.off
	if t.Size <= dmSmallValue {
		t.Value, err = p.read(int(t.Size))
		return err
	}
	return p.skip(t.Size)
}

// ParseDM4 parses the header and tag tree of a .dm4 file of size bytes,
// reading values of up to 256 bytes and leaving larger ones (image data)
// in the file. It returns the root tags and whether data is little-endian.
func ParseDM4(r io.ReadSeeker, size int64) ([]*DMTag, bool, error) {
	p := &dmParser{r: bufio.NewReaderSize(r, 64<<10), f: r, size: size}
	b, err := p.read(16)
	if err != nil {
		return nil, false, err
	}
	if v := binary.BigEndian.Uint32(b); v != 4 {
		return nil, false, fmt.Errorf("dm4: version %d, not 4", v)
	}
	order := binary.BigEndian.Uint32(b[12:])
	if order > 1 {
		return nil, false, fmt.Errorf("dm4: byte order %d (not 0 or 1)", order)
	}
	p.le = order == 1
	tags, err := p.dir(0)
	return tags, p.le, err
}

// find returns the tag at the path of names below tags, or nil.
func dmFind(tags []*DMTag, path ...string) *DMTag {
	var t *DMTag
	for _, name := range path {
		t = nil
		for _, c := range tags {
			if c.Name == name {
				t = c
				break
			}
		}
		if t == nil {
			return nil
		}
		tags = t.Tags
	}
	return t
}

// dmInt returns a number tag's value as an int64 (booleans and floats
// that hold integers included).
func dmInt(t *DMTag, le bool) (int64, bool) {
	if t == nil || t.Dir || len(t.Info) != 1 || int64(len(t.Value)) != t.Size {
		return 0, false
	}
	var bo binary.ByteOrder = binary.BigEndian
	if le {
		bo = binary.LittleEndian
	}
	v := t.Value
	switch t.Info[0] {
	case 2:
		return int64(int16(bo.Uint16(v))), true
	case 3:
		return int64(int32(bo.Uint32(v))), true
	case 4:
		return int64(bo.Uint16(v)), true
	case 5:
		return int64(bo.Uint32(v)), true
	case 8, 10:
		return int64(v[0]), true
	case 9:
		return int64(int8(v[0])), true
	case 11, 12:
		return int64(bo.Uint64(v)), true
	case 6:
		f := math.Float32frombits(bo.Uint32(v))
		return int64(f), float32(int64(f)) == f
	case 7:
		f := math.Float64frombits(bo.Uint64(v))
		return int64(f), float64(int64(f)) == f
	}
	return 0, false
}

// dmImageDType maps DM's image data type codes to dtypes.
var dmImageDType = map[int64]nd.DType{1: nd.Int16, 2: nd.Float32, 3: nd.Complex64, 6: nd.Uint8, 7: nd.Int32, 9: nd.Int8, 10: nd.Uint16, 11: nd.Uint32, 12: nd.Float64, 13: nd.Complex128, 14: nd.Bool}

// DM4Image is an image of a .dm4 file as OpenDM4 reads it.
type DM4Image struct {
	Index  int   // in ImageList
	Shape  []int // C order
	DType  nd.DType
	Offset int64 // of the data block
	COrder bool  // 3-D, or 4-D with Data Order Swapped
}

// dm4Images returns the images of 3 or more axes of a parsed file.
func dm4Images(tags []*DMTag, le bool) ([]DM4Image, error) {
	list := dmFind(tags, "ImageList")
	if list == nil || !list.Dir {
		return nil, fmt.Errorf("dm4: no ImageList")
	}
	var out []DM4Image
	for i, img := range list.Tags {
		data := dmFind(img.Tags, "ImageData", "Data")
		dims := dmFind(img.Tags, "ImageData", "Dimensions")
		code, ok := dmInt(dmFind(img.Tags, "ImageData", "DataType"), le)
		if data == nil || data.Dir || dims == nil || !dims.Dir || !ok {
			continue
		}
		dt, known := dmImageDType[code]
		if !known {
			return nil, fmt.Errorf("dm4: image %d: DataType %d not supported", i, code)
		}
		im := DM4Image{Index: i, DType: dt, Offset: data.Offset}
		for k := len(dims.Tags) - 1; k >= 0; k-- {
			v, ok := dmInt(dims.Tags[k], le)
			if !ok || v < 0 || v > math.MaxInt32 {
				return nil, fmt.Errorf("dm4: image %d: dimension %d is not a count", i, k)
			}
			im.Shape = append(im.Shape, int(v))
		}
		if len(im.Shape) < 3 {
			continue
		}
		want, ok := shapeBytes(dt.Size(), im.Shape)
		if !ok || want != data.Size {
			return nil, fmt.Errorf("dm4: image %d: data of %d bytes for shape %v of %v", i, data.Size, im.Shape, dt)
		}
		swapped, ok := dmInt(dmFind(img.Tags, "ImageTags", "Meta Data", "Data Order Swapped"), le)
		im.COrder = len(im.Shape) == 3 || (ok && swapped != 0)
		out = append(out, im)
	}
	return out, nil
}

// DM4Dataset is a .dm4 file's largest image of 3 or 4 axes: the last two
// are the sig, the others the nav.
type DM4Dataset struct {
	framedFile
	image DM4Image
}

var (
	_ Dataset           = (*DM4Dataset)(nil)
	_ TaskReaderDataset = (*DM4Dataset)(nil)
)

// OpenDM4 opens the largest image of 3 or more axes of a .dm4 file;
// opts.NavShape may reshape its nav (at most its frames). An image whose
// axes are not in C order (a 4-D image without Data Order Swapped) is
// refused, as is a file of big-endian data.
func OpenDM4(path string, opts OpenOptions) (*DM4Dataset, error) {
	f, bad, err := openFramedFile(KindDM4, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, bad(err, "stat")
	}
	tags, le, err := ParseDM4(f, st.Size())
	if err != nil {
		return nil, bad(err, "tags")
	}
	ims, err := dm4Images(tags, le)
	if err != nil {
		return nil, bad(err, "images")
	}
	if len(ims) == 0 {
		return nil, bad(nil, "no image of 3 or more axes")
	}
	best := ims[0]
	for _, im := range ims[1:] {
		if dsProd(im.Shape) > dsProd(best.Shape) {
			best = im
		}
	}
	if !le && best.DType.Size() > 1 {
		return nil, bad(nil, "big-endian image data is not supported")
	}
	if !best.COrder {
		return nil, bad(nil, "image %d of shape %v is not in C order (no Meta Data \"Data Order Swapped\"): the axes of older 4-D files are interleaved", best.Index, best.Shape)
	}
	k := len(best.Shape) - 2
	nav := dsClone(opts.NavShape)
	if nav == nil {
		nav = dsClone(best.Shape[:k])
	}
	sig := dsClone(best.Shape[k:])
	fb := dsProd(sig) * best.DType.Size()
	d := &DM4Dataset{image: best}
	d.framedFile = framedFile{kind: KindDM4, skip: opts.SyncOffset, name: "dm4 file " + path, path: path,
		runs: []frameRun{{path: path, count: dsProd(best.Shape[:k]), offset: best.Offset, stride: int64(fb)}},
		nav:  nav, sig: sig, dt: best.DType, stored: fb}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// Image returns the image read.
func (d *DM4Dataset) Image() DM4Image { return d.image }

func (d *DM4Dataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(mibParams{Path: d.path, Nav: d.nav, Sync: d.skip})
	return DatasetSpec{Kind: KindDM4, Params: b}, err
}
