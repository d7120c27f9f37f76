package npy

import (
	"fmt"
	"io"
	"slices"
	"unsafe"
)

// Reading rows of a Fortran-order file.
//
// A Fortran-order file of shape S = nav + sig stores the elements with
// the first axis varying fastest: seen as a C-order matrix, it has one
// row per sig element (in Fortran order) and one column per nav index (in
// Fortran order). A row of the array in the sense of ReadRowsInto — one
// nav index, all of its sig — is one column of that matrix: an element
// every prod(nav) elements, across the whole file. The first version read
// such rows with one ReadAt per matrix row (ReadRange: an io.SectionReader
// per column behind a MultiReader), a syscall per run of count elements;
// reading a 20 MB file of 4-byte runs took 86 s.
//
// ReadRowsInto reads the matrix rows in large contiguous pieces instead
// and transposes them in memory: the columns it needs are merged into
// segments wherever the gap between them is under rowsGapBytes (reading
// the gap costs less than a syscall), so that a range of nav indices that
// covers most of the nav makes each chunk of matrix rows one ReadAt of up
// to rowsChunkBytes; then, for blocks of rowsBlock output rows taken in
// file order, every matrix row of the chunk is scattered into them. The
// reads go through the file in order, each byte once per call; the
// scatter writes rowsBlock output rows at a time, which keeps the lines
// it writes in cache until they are full.

const (
	rowsChunkBytes = 4 << 20  // bytes of matrix rows read and scattered at a time
	rowsGapBytes   = 16 << 10 // a gap between needed columns read rather than skipped
	rowsBlock      = 32       // output rows filled together by the scatter
)

// ReadRowsInto reads rows [start, start+count) of the array seen as
// prod(shape[:lead]) rows of its trailing axes shape[lead:] (row i is the
// nav index i in C order, its trailing elements in C order), writing them
// to dst in C order: count · prod(shape[lead:]) elements of the file's
// bytes, unswapped (nd.FillBytes with the header's BigEndian makes values
// of them). dst must hold exactly that many bytes.
//
// A C-order file is one ReadAt. A Fortran-order file is read in large
// pieces and transposed in memory (see above); it allocates, besides dst,
// 8 bytes per row read and a buffer of at most rowsChunkBytes plus one
// matrix row.
func (f *File) ReadRowsInto(dst []byte, lead, start, count int) error {
	return f.readRows(dst, lead, start, count, rowsChunkBytes, rowsGapBytes)
}

// readRows is ReadRowsInto with the chunk and gap sizes as parameters, so
// that tests reach every path on small files.
func (f *File) readRows(dst []byte, lead, start, count, chunkBytes, gapBytes int) error {
	h := f.h
	if lead < 0 || lead > len(h.Shape) {
		return &Error{File: f.path, Reason: fmt.Sprintf("ReadRowsInto: %d leading axes of an array of %d", lead, len(h.Shape))}
	}
	nav, sig := h.Shape[:lead], h.Shape[lead:]
	rows, elems := 1, 1
	for _, d := range nav {
		rows *= d // OpenFile checked the non-zero axes' product fits
	}
	for _, d := range sig {
		elems *= d
	}
	if start < 0 || count < 0 || start > rows || count > rows-start {
		return &Error{File: f.path, Reason: fmt.Sprintf("ReadRowsInto(%d, %d): rows out of range [0, %d)", start, count, rows)}
	}
	es := h.DType.Size()
	if want := count * elems * es; len(dst) != want {
		return &Error{File: f.path, Reason: fmt.Sprintf("ReadRowsInto: %d bytes for %d rows of %d %s, want %d", len(dst), count, elems, h.DType, want)}
	}
	if len(dst) == 0 {
		return nil
	}
	if !h.Fortran || len(h.Shape) <= 1 {
		return f.readAt(dst, h.DataOffset+int64(start)*int64(elems)*int64(es))
	}
	return f.readRowsFortran(dst, nav, sig, start, count, chunkBytes, gapBytes)
}

func (f *File) readAt(dst []byte, off int64) error {
	if _, err := f.f.ReadAt(dst, off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &Error{File: f.path, Reason: fmt.Sprintf("reading %d bytes at %d", len(dst), off), Err: err}
	}
	return nil
}

// fortranRows is the plan of one ReadRowsInto of a Fortran-order file.
type fortranRows struct {
	L, T  int   // nav indices (matrix columns), sig elements (matrix rows)
	es    int   // item size
	order []int // output rows sorted by their matrix column
	cols  []int // matrix column of each output row
	pos   []int // position of each output row's column in a buffer row
	pitch int   // elements per buffer row
	dense bool  // one read per chunk of matrix rows (pitch L)
	segs  [][2]int
}

func (f *File) readRowsFortran(dst []byte, nav, sig []int, start, count, chunkBytes, gapBytes int) error {
	p := fortranRows{es: f.h.DType.Size(), L: 1, T: 1}
	for _, d := range nav {
		p.L *= d
	}
	for _, d := range sig {
		p.T *= d
	}
	p.planColumns(nav, start, count, gapBytes)
	chunkRows := max(1, chunkBytes/(p.pitch*p.es))
	chunkRows = min(chunkRows, p.T)
	var buf []byte
	if p.dense {
		lo, hi := p.segs[0][0], p.segs[0][1]
		buf = make([]byte, ((chunkRows-1)*p.L+hi-lo)*p.es)
	} else {
		buf = make([]byte, chunkRows*p.pitch*p.es)
	}
	qOf := make([]int, chunkRows)
	base := f.h.DataOffset
	for m0 := 0; m0 < p.T; m0 += chunkRows {
		m1 := min(m0+chunkRows, p.T)
		if err := p.read(f, buf, base, m0, m1); err != nil {
			return err
		}
		cOrderIndices(qOf[:m1-m0], sig, m0)
		scatter(dst, buf, &p, qOf[:m1-m0])
	}
	return nil
}

// planColumns finds the matrix column of each output row, sorts the rows
// by it and merges the columns into segments read together.
func (p *fortranRows) planColumns(nav []int, start, count, gapBytes int) {
	// Fortran strides of the nav axes, and the C-order digits of start.
	fst := make([]int, len(nav))
	s := 1
	for i, d := range nav {
		fst[i] = s
		s *= d
	}
	idx := make([]int, len(nav))
	r := start
	for i := len(nav) - 1; i >= 0; i-- {
		idx[i] = r % nav[i]
		r /= nav[i]
	}
	col := 0
	for i := range nav {
		col += idx[i] * fst[i]
	}
	p.cols = make([]int, count)
	for j := range count {
		p.cols[j] = col
		for i := len(nav) - 1; i >= 0; i-- { // next index in C order
			idx[i]++
			col += fst[i]
			if idx[i] < nav[i] {
				break
			}
			col -= idx[i] * fst[i]
			idx[i] = 0
		}
	}
	p.order = make([]int, count)
	for j := range p.order {
		p.order[j] = j
	}
	slices.SortFunc(p.order, func(a, b int) int { return p.cols[a] - p.cols[b] })
	gap := max(1, gapBytes/p.es)
	for _, j := range p.order {
		c := p.cols[j]
		if n := len(p.segs); n > 0 && c-p.segs[n-1][1] <= gap {
			p.segs[n-1][1] = max(p.segs[n-1][1], c+1)
			continue
		}
		p.segs = append(p.segs, [2]int{c, c + 1})
	}
	lo, hi := p.segs[0][0], p.segs[len(p.segs)-1][1]
	// One segment, and what lies outside it in a matrix row is itself a
	// gap worth reading: whole chunks of matrix rows in one read.
	p.dense = len(p.segs) == 1 && p.L-(hi-lo) <= gap
	p.pos = make([]int, count)
	if p.dense {
		p.pitch = p.L
		for j, c := range p.cols {
			p.pos[j] = c - lo
		}
		return
	}
	at := 0
	segAt := make([]int, len(p.segs))
	for k, sg := range p.segs {
		segAt[k] = at
		at += sg[1] - sg[0]
	}
	p.pitch = at
	k := 0
	for _, j := range p.order { // columns ascending: walk the segments once
		for p.cols[j] >= p.segs[k][1] {
			k++
		}
		p.pos[j] = segAt[k] + p.cols[j] - p.segs[k][0]
	}
}

// read fills buf with matrix rows [m0, m1): one ReadAt of the span when
// dense, else one per row and segment, packed.
func (p *fortranRows) read(f *File, buf []byte, base int64, m0, m1 int) error {
	es := int64(p.es)
	if p.dense {
		lo, hi := p.segs[0][0], p.segs[0][1]
		n := ((m1-m0-1)*p.L + hi - lo) * p.es
		return f.readAt(buf[:n], base+(int64(m0)*int64(p.L)+int64(lo))*es)
	}
	at := 0
	for m := m0; m < m1; m++ {
		for _, sg := range p.segs {
			n := (sg[1] - sg[0]) * p.es
			if err := f.readAt(buf[at:at+n], base+(int64(m)*int64(p.L)+int64(sg[0]))*es); err != nil {
				return err
			}
			at += n
		}
	}
	return nil
}

// cOrderIndices sets q[k] to the C-order flat index of the element whose
// Fortran-order flat index is m0+k in an array of the given shape.
func cOrderIndices(q []int, shape []int, m0 int) {
	cst := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		cst[i] = s
		s *= shape[i]
	}
	idx := make([]int, len(shape))
	r := m0
	c := 0
	for i, d := range shape { // Fortran digits: the first axis fastest
		idx[i] = r % d
		r /= d
		c += idx[i] * cst[i]
	}
	for k := range q {
		q[k] = c
		for i, d := range shape {
			idx[i]++
			c += cst[i]
			if idx[i] < d {
				break
			}
			c -= idx[i] * cst[i]
			idx[i] = 0
		}
	}
}

// scatter writes the chunk's matrix rows (buf, one per entry of qOf) into
// the output rows: element pos[j] of buffer row k is element qOf[k] of
// output row j.
func scatter(dst, buf []byte, p *fortranRows, qOf []int) {
	switch p.es {
	case 1:
		scatterT[uint8](dst, buf, p, qOf)
	case 2:
		scatterT[uint16](dst, buf, p, qOf)
	case 4:
		scatterT[uint32](dst, buf, p, qOf)
	case 8:
		scatterT[uint64](dst, buf, p, qOf)
	case 16:
		scatterT[[2]uint64](dst, buf, p, qOf)
	default:
		scatterBytes(dst, buf, p, qOf)
	}
}

func scatterT[T any](dstB, bufB []byte, p *fortranRows, qOf []int) {
	dst, ok1 := asElems[T](dstB)
	buf, ok2 := asElems[T](bufB)
	if !ok1 || !ok2 {
		scatterBytes(dstB, bufB, p, qOf)
		return
	}
	var outAt, srcAt [rowsBlock]int
	for b := 0; b < len(p.order); b += rowsBlock {
		blk := p.order[b:min(b+rowsBlock, len(p.order))]
		for i, j := range blk {
			outAt[i] = j * p.T
			srcAt[i] = p.pos[j]
		}
		oa, sa := outAt[:len(blk)], srcAt[:len(blk)]
		for k, q := range qOf {
			row := buf[k*p.pitch:]
			for i := range oa {
				dst[oa[i]+q] = row[sa[i]]
			}
		}
	}
}

// scatterBytes is scatter for any item size and alignment, a copy per
// element.
func scatterBytes(dst, buf []byte, p *fortranRows, qOf []int) {
	es := p.es
	for _, j := range p.order {
		for k, q := range qOf {
			s := (k*p.pitch + p.pos[j]) * es
			copy(dst[(j*p.T+q)*es:(j*p.T+q+1)*es], buf[s:s+es])
		}
	}
}

// asElems views b as a slice of T when b's start is aligned for T.
func asElems[T any](b []byte) ([]T, bool) {
	var z T
	size, align := int(unsafe.Sizeof(z)), uintptr(unsafe.Alignof(z))
	if len(b) == 0 {
		return nil, true
	}
	if uintptr(unsafe.Pointer(&b[0]))%align != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/size), true
}
