package npy

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/tessera-go/tessera/nd"
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
// and transposes them in memory. The columns it needs are merged into
// segments wherever the gap between them is under rowsGapBytes (reading
// the gap costs less than a syscall), so that a range of nav indices that
// covers most of the nav makes each chunk of matrix rows one ReadAt of up
// to rowsChunkBytes. A chunk holds whole slabs of the last sig axis (the
// file's slowest, the output's fastest), sixteen at a time where they
// fit, so that the transpose writes each output row in runs of sixteen
// consecutive elements (a cache line of float32), reading sixteen matrix
// rows a slab apart for them.
//
// Two earlier versions were slower: scattering each matrix row, in file
// order, into every output row wrote elements a frame-width apart and ran
// at 3 to 5 ns an element; transposing chunks into the output rows with
// the sig left in Fortran order, then reordering each row's sig through
// a one-row buffer, took two passes over the output (1.5 to 2 ns). A
// chunk smaller than one slab (a sig whose all-but-last axes hold more
// than rowsChunkBytes of the needed columns) takes the first, slow way.

const (
	rowsChunkBytes = 4 << 20  // bytes of matrix rows read and transposed at a time
	rowsGapBytes   = 16 << 10 // a gap between needed columns read rather than skipped
	rowsRun        = 16       // consecutive output elements written at a time
	// mapMinFraction: ReadRowsInto maps a file (unless Map did) for a
	// read of at least 1/mapMinFraction of the rows.
	mapMinFraction = 4
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
	if ok, err := f.readRowsMapped(dst, lead, start, count); ok || err != nil {
		return err
	}
	return f.readRows(dst, lead, start, count, rowsChunkBytes, rowsGapBytes)
}

// Map maps the file into memory (populated, read-only) for ReadRowsInto
// of a Fortran-order file, which then transposes the rows it reads
// straight from the mapping. Worth it for a file kept open for many reads
// of a few rows each (a dataset's partitions); without it ReadRowsInto
// maps the file at the first read of at least a quarter of the rows. It
// does nothing for a C-order file, or where files cannot be mapped (the
// reads use ReadAt), and the mapping ends with Close. An error says why
// mapping failed; reads work without it.
func (f *File) Map() error {
	if !f.h.Fortran || len(f.h.Shape) <= 1 {
		return nil
	}
	f.mapOnce.Do(func() {
		if f.closed.Load() {
			f.mapErr = &Error{File: f.path, Reason: "Map: the file is closed", Err: os.ErrClosed}
			return
		}
		if m, err := mapFile(f.f, f.size); err != nil {
			f.mapErr = &Error{File: f.path, Reason: "Map", Err: err}
		} else {
			f.mapped = m
		}
		f.mapDone.Store(true)
	})
	return f.mapErr
}

// isMapped reports whether Map has mapped the file.
func (f *File) isMapped() bool { return f.mapDone.Load() && f.mapped != nil }

// readRowsMapped reads rows of a Fortran-order file of more than one axis
// straight from the file mapped into memory, transposing only the columns
// it needs: no copy into a chunk buffer, and a range of rows touches only
// the cache lines of its own columns, where ReadAt has to read whole
// matrix rows (a partition of a quarter of the rows read the whole file).
// It reports false, with no error, where it does not apply (C order, no
// mapping on this system, an item size or alignment without a typed
// transposer), and ReadRowsInto reads instead. A fault on the mapping (the
// file truncated by someone else while mapped, or closed during the read)
// is an error, not a crash.
func (f *File) readRowsMapped(dst []byte, lead, start, count int) (ok bool, err error) {
	h := f.h
	if !h.Fortran || len(h.Shape) <= 1 || lead < 1 || lead >= len(h.Shape) || len(dst) == 0 {
		return false, nil
	}
	if start < 0 || count <= 0 {
		return false, nil // readRows reports the error
	}
	nav, sig := h.Shape[:lead], h.Shape[lead:]
	p := fortranRows{es: h.DType.Size(), L: 1, T: 1}
	for _, d := range nav {
		p.L *= d
	}
	for _, d := range sig {
		p.T *= d
	}
	if start > p.L || count > p.L-start || len(dst) != count*p.T*p.es {
		return false, nil // readRows reports the error
	}
	if !f.isMapped() && count*mapMinFraction < p.L {
		// A few rows of a file not mapped yet: mapping it costs about as
		// much as reading the whole file, as their columns lie on every
		// page (chunkarray opens the file for each block of rows).
		return false, nil
	}
	if f.Map() != nil || f.closed.Load() {
		return false, nil
	}
	n := int64(p.L) * int64(p.T) * int64(p.es)
	data := f.mapped[h.DataOffset : h.DataOffset+n]
	tr := transposerFor(dst, data, p.es)
	if tr == nil {
		return false, nil
	}
	p.planColumns(nav, start, count, 0)
	// The whole data is one chunk of matrix rows, a matrix row of pitch L
	// whose columns are the nav indices themselves.
	p.pitch = p.L
	copy(p.pos, p.cols)
	w := sig[len(sig)-1]
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok, err = true, &Error{File: f.path, Reason: fmt.Sprintf("ReadRowsInto(%d, %d): memory fault reading the mapped file (truncated or closed during the read?): %v", start, count, r)}
		}
	}()
	tr.slabs(&p, sig, p.T/w, 0, w)
	return true, nil
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
	// Matrix rows per slab (all sig axes but the last) and per chunk.
	w := 1
	if len(sig) > 0 {
		w = sig[len(sig)-1]
	}
	slab := p.T / w
	rowBytes := p.pitch * p.es
	slabs := chunkBytes / (slab * rowBytes)
	aligned := slabs >= 1
	chunkRows := max(1, chunkBytes/rowBytes)
	if aligned {
		if slabs >= rowsRun {
			slabs -= slabs % rowsRun
		}
		chunkRows = slabs * slab
	}
	chunkRows = min(chunkRows, p.T)
	var buf []byte
	if p.dense {
		lo, hi := p.segs[0][0], p.segs[0][1]
		buf = make([]byte, ((chunkRows-1)*p.L+hi-lo)*p.es)
	} else {
		buf = make([]byte, chunkRows*p.pitch*p.es)
	}
	tr := transposerFor(dst, buf, p.es)
	var k, q []int // matrix rows of a chunk and their C-order sig indices
	if tr == nil || !aligned {
		k, q = make([]int, chunkRows), make([]int, chunkRows)
	}
	base := f.h.DataOffset
	for m0 := 0; m0 < p.T; m0 += chunkRows {
		m1 := min(m0+chunkRows, p.T)
		if err := p.read(f, buf, base, m0, m1); err != nil {
			return err
		}
		switch {
		case tr != nil && aligned:
			tr.slabs(&p, sig, slab, m0/slab, m1/slab)
		case tr != nil:
			fortranOrder(k[:m1-m0], q[:m1-m0], sig, m0)
			tr.scatter(&p, k[:m1-m0], q[:m1-m0])
		default:
			fortranOrder(k[:m1-m0], q[:m1-m0], sig, m0)
			scatterBytes(dst, buf, &p, k[:m1-m0], q[:m1-m0])
		}
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
	cst := nd.CStrides(shape) // no axis is 0: the loop takes r % d
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

// A transposer moves a chunk's elements into the output rows for one
// item size, on typed views of the output and the chunk buffer.
type transposer interface {
	slabs(p *fortranRows, sig []int, slab, x0, x1 int)
	scatter(p *fortranRows, k, q []int)
}

// transposerFor returns the transposer of item size es over dst and buf,
// or nil when there is none (an unusual size, or memory not aligned for
// it): the byte-wise scatter then copies element by element.
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

// slabs transposes a chunk of slabs [x0, x1) of the last sig axis (slab
// matrix rows each): for each index of the other sig axes, in C order,
// and each run of up to rowsRun consecutive slabs, every output row gets
// the run's elements, read from matrix rows a slab apart at the row's
// column.
func (t *typedTransposer[T]) slabs(p *fortranRows, sig []int, slab, x0, x1 int) {
	dst, buf, pitch := t.dst, t.buf, p.pitch
	w := 1
	if len(sig) > 0 {
		w = sig[len(sig)-1]
	}
	other := sig[:max(len(sig)-1, 0)]
	outAt := make([]int, len(p.order))
	srcAt := make([]int, len(p.order))
	for i, j := range p.order {
		outAt[i], srcAt[i] = j*p.T, p.pos[j]
	}
	st := slab * pitch // buffer elements from one slab to the next
	idx := make([]int, len(other))
	fst := make([]int, len(other)) // Fortran strides of the other axes
	f := 1
	for i, d := range other {
		fst[i] = f
		f *= d
	}
	fo, co := 0, 0 // Fortran index among the other axes, C index of the run's row
	for {
		for xs := x0; xs < x1; xs += rowsRun {
			g := min(rowsRun, x1-xs)
			row := (fo + (xs-x0)*slab) * pitch
			qo := co*w + xs
			if g == rowsRun {
				for i, o := range outAt {
					s := row + srcAt[i]
					d := dst[o+qo : o+qo+rowsRun : o+qo+rowsRun]
					d[0] = buf[s]
					d[1] = buf[s+st]
					d[2] = buf[s+2*st]
					d[3] = buf[s+3*st]
					d[4] = buf[s+4*st]
					d[5] = buf[s+5*st]
					d[6] = buf[s+6*st]
					d[7] = buf[s+7*st]
					s += 8 * st
					d[8] = buf[s]
					d[9] = buf[s+st]
					d[10] = buf[s+2*st]
					d[11] = buf[s+3*st]
					d[12] = buf[s+4*st]
					d[13] = buf[s+5*st]
					d[14] = buf[s+6*st]
					d[15] = buf[s+7*st]
				}
				continue
			}
			for i, o := range outAt {
				s := row + srcAt[i]
				d := dst[o+qo : o+qo+g]
				for x := range d {
					d[x] = buf[s+x*st]
				}
			}
		}
		// Next index of the other axes in C order.
		i := len(other) - 1
		for ; i >= 0; i-- {
			idx[i]++
			fo += fst[i]
			if idx[i] < other[i] {
				break
			}
			fo -= idx[i] * fst[i]
			idx[i] = 0
		}
		if i < 0 {
			return
		}
		co++
	}
}

// scatter writes buffer rows k into the output rows at C-order sig
// indices q: the way for chunks smaller than a slab.
func (t *typedTransposer[T]) scatter(p *fortranRows, k, q []int) {
	for n, kn := range k {
		row := t.buf[kn*p.pitch:]
		qn := q[n]
		for _, j := range p.order {
			t.dst[j*p.T+qn] = row[p.pos[j]]
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
