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
// and transposes them in memory, in two passes. The columns it needs are
// merged into segments wherever the gap between them is under
// rowsGapBytes (reading the gap costs less than a syscall), so that a
// range of nav indices that covers most of the nav makes each chunk of
// matrix rows one ReadAt of up to rowsChunkBytes. The first pass
// transposes each chunk into the output rows, 8×8 elements at a time,
// leaving each output row's sig elements in Fortran order; the second
// turns each output row's sig to C order through a one-row buffer (a 2-d
// transpose for a 2-d sig, nothing for a 1-d one). A single pass writing
// C order straight from the chunk was the first version: consecutive
// matrix rows then land a frame-width apart in the output, and it ran at
// 3 to 5 ns an element against 1.5 to 2 for both passes.

const (
	rowsChunkBytes = 4 << 20  // bytes of matrix rows read and transposed at a time
	rowsGapBytes   = 16 << 10 // a gap between needed columns read rather than skipped
	rowsSub        = 512      // matrix rows of a chunk transposed together
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
	tr := transposerFor(dst, buf, p.es)
	var k, q []int // the byte-wise path's matrix rows and their C-order sig indices
	if tr == nil {
		k, q = make([]int, chunkRows), make([]int, chunkRows)
	}
	base := f.h.DataOffset
	for m0 := 0; m0 < p.T; m0 += chunkRows {
		m1 := min(m0+chunkRows, p.T)
		if err := p.read(f, buf, base, m0, m1); err != nil {
			return err
		}
		if tr == nil {
			fortranOrder(k[:m1-m0], q[:m1-m0], sig, m0)
			scatterBytes(dst, buf, &p, k[:m1-m0], q[:m1-m0])
			continue
		}
		tr.chunk(&p, m0, m1)
	}
	if tr != nil && len(sig) > 1 {
		tr.sigToC(&p, sig)
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

// fortranOrder sets k[i] = i and q[i] to the C-order flat index of the
// element whose Fortran-order flat index is m0+i in an array of the given
// shape: the chunk's matrix rows in file order.
func fortranOrder(k, q []int, shape []int, m0 int) {
	cst := cStrides(shape)
	idx := make([]int, len(shape))
	r := m0
	c := 0
	for i, d := range shape { // Fortran digits: the first axis fastest
		idx[i] = r % d
		r /= d
		c += idx[i] * cst[i]
	}
	for j := range q {
		k[j], q[j] = j, c
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

func cStrides(shape []int) []int {
	cst := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		cst[i] = s
		s *= shape[i]
	}
	return cst
}

// A transposer does the two passes for one item size on typed views of
// the output and the chunk buffer.
type transposer interface {
	chunk(p *fortranRows, m0, m1 int)
	sigToC(p *fortranRows, sig []int)
}

// transposerFor returns the transposer of item size es over dst and buf,
// or nil when there is none (an unusual size, or memory not aligned for
// it): the byte-wise path then writes C order directly.
func transposerFor(dst, buf []byte, es int) transposer {
	switch es {
	case 1:
		return newTransposer[uint8](dst, buf)
	case 2:
		return newTransposer[uint16](dst, buf)
	case 4:
		return newTransposer[uint32](dst, buf)
	case 8:
		return newTransposer[uint64](dst, buf)
	case 16:
		return newTransposer[[2]uint64](dst, buf)
	}
	return nil
}

type typedTransposer[T any] struct{ dst, buf []T }

func newTransposer[T any](dst, buf []byte) transposer {
	d, ok1 := asElems[T](dst)
	b, ok2 := asElems[T](buf)
	if !ok1 || !ok2 {
		return nil
	}
	return &typedTransposer[T]{d, b}
}

// chunk is the first pass over matrix rows [m0, m1) in the buffer: sig
// element m of output row j (Fortran order) is element pos[j] of buffer
// row m-m0. Output rows are taken eight at a time in file order (so that
// they read neighbouring elements of a buffer row) and rowsSub matrix
// rows at a time, eight by eight: each step reads eight buffer rows and
// writes eight consecutive elements of eight output rows.
func (t *typedTransposer[T]) chunk(p *fortranRows, m0, m1 int) {
	dst, buf, pitch := t.dst, t.buf, p.pitch
	var outAt, srcAt [8]int
	for s0 := m0; s0 < m1; s0 += rowsSub {
		s1 := min(s0+rowsSub, m1)
		for b := 0; b < len(p.order); b += 8 {
			blk := p.order[b:min(b+8, len(p.order))]
			for i, j := range blk {
				outAt[i], srcAt[i] = j*p.T, p.pos[j]
			}
			oa, sa := outAt[:len(blk)], srcAt[:len(blk)]
			m := s0
			for ; m+8 <= s1; m += 8 {
				k := (m - m0) * pitch
				for i, o := range oa {
					s := k + sa[i]
					d := dst[o+m : o+m+8 : o+m+8]
					d[0] = buf[s]
					d[1] = buf[s+pitch]
					d[2] = buf[s+2*pitch]
					d[3] = buf[s+3*pitch]
					d[4] = buf[s+4*pitch]
					d[5] = buf[s+5*pitch]
					d[6] = buf[s+6*pitch]
					d[7] = buf[s+7*pitch]
				}
			}
			for ; m < s1; m++ {
				k := (m - m0) * pitch
				for i, o := range oa {
					dst[o+m] = buf[k+sa[i]]
				}
			}
		}
	}
}

// sigToC is the second pass: each output row's sig, in Fortran order
// after the first, is copied to a one-row buffer and written back in C
// order.
func (t *typedTransposer[T]) sigToC(p *fortranRows, sig []int) {
	tmp := make([]T, p.T)
	for j := range len(t.dst) / p.T {
		row := t.dst[j*p.T : (j+1)*p.T]
		copy(tmp, row)
		if len(sig) == 2 {
			transpose2(row, tmp, sig[0], sig[1])
		} else {
			reverseAxes(row, tmp, sig)
		}
	}
}

// transpose2 sets dst (h rows of w, C order) to the transpose of src (w
// rows of h): dst[y*w+x] = src[x*h+y], in 8×8 tiles.
func transpose2[T any](dst, src []T, h, w int) {
	x0 := 0
	for ; x0+8 <= w; x0 += 8 {
		y := 0
		for ; y+8 <= h; y += 8 {
			for yy := y; yy < y+8; yy++ {
				s := x0*h + yy
				d := dst[yy*w+x0 : yy*w+x0+8 : yy*w+x0+8]
				d[0] = src[s]
				d[1] = src[s+h]
				d[2] = src[s+2*h]
				d[3] = src[s+3*h]
				d[4] = src[s+4*h]
				d[5] = src[s+5*h]
				d[6] = src[s+6*h]
				d[7] = src[s+7*h]
			}
		}
		for ; y < h; y++ {
			for x := x0; x < x0+8; x++ {
				dst[y*w+x] = src[x*h+y]
			}
		}
	}
	for ; x0 < w; x0++ {
		for y := range h {
			dst[y*w+x0] = src[x0*h+y]
		}
	}
}

// reverseAxes sets dst to src with its axes reversed: src is the
// Fortran-order layout of shape, dst the C-order one.
func reverseAxes[T any](dst, src []T, shape []int) {
	fst := make([]int, len(shape))
	s := 1
	for i, d := range shape {
		fst[i] = s
		s *= d
	}
	idx := make([]int, len(shape))
	f := 0
	for q := range dst {
		dst[q] = src[f]
		for i := len(shape) - 1; i >= 0; i-- { // next C-order index
			idx[i]++
			f += fst[i]
			if idx[i] < shape[i] {
				break
			}
			f -= idx[i] * fst[i]
			idx[i] = 0
		}
	}
}

// scatterBytes writes the chunk's matrix rows k (buffer rows) into the
// output rows at their C-order sig indices q, a copy per element: the
// path for item sizes and alignments without a transposer.
func scatterBytes(dst, buf []byte, p *fortranRows, k, q []int) {
	es := p.es
	for _, j := range p.order {
		for n, kn := range k {
			s := (kn*p.pitch + p.pos[j]) * es
			d := (j*p.T + q[n]) * es
			copy(dst[d:d+es], buf[s:s+es])
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
