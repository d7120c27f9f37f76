package chunkarray

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/nd/zarr"
)

// Files: FromNPY and FromZarr read one block per task; Store, ToNPY and
// ToZarr write one block per task. Nothing here holds a whole array in
// memory: a block is read where its task runs, and written and released
// as soon as it is computed.
//
// Reading a region of a .npy file is one ReadAt per contiguous run of the
// region (axes the block spans whole merge into one run): a block of rows
// is one read, a 1000×1000 tile of a 10000×10000 file is 1000 reads of
// 8 KB. Reading whole rows and slicing (npy.File.ReadRange) was the first
// version; for tiles it reads and drops ten times the block.

const (
	opNPYRead  = "chunkarray.npy-read"
	opZarrRead = "chunkarray.zarr-read"
	opStore    = "chunkarray.store"
	opStored   = "chunkarray.stored"
)

func init() {
	register[npyReadP](opNPYRead)
	register[zarrReadP](opZarrRead)
	register[storeP](opStore)
	register[storedP](opStored)
}

// regionRuns calls fn with the byte offset and length of every contiguous
// run of the region [start, start+bshape) of a C-order array of shape,
// in C order of the region. Trailing axes the region spans whole merge
// into one run.
func regionRuns(shape, start, bshape []int, es int, fn func(off, n int64) error) error {
	nd0 := len(shape)
	for _, b := range bshape {
		if b == 0 {
			return nil
		}
	}
	if nd0 == 0 {
		return fn(0, int64(es))
	}
	strides := nd.CStrides(shape)
	// k: the first axis of the run; axes after k are whole.
	k := nd0 - 1
	for k > 0 && bshape[k] == shape[k] {
		k--
	}
	run := int64(bshape[k]) * int64(strides[k]) * int64(es)
	idx := make([]int, k) // over axes [0, k)
	for {
		off := int64(start[k]) * int64(strides[k])
		for ax := 0; ax < k; ax++ {
			off += int64(start[ax]+idx[ax]) * int64(strides[ax])
		}
		if err := fn(off*int64(es), run); err != nil {
			return err
		}
		ax := k - 1
		for ; ax >= 0; ax-- {
			idx[ax]++
			if idx[ax] < bshape[ax] {
				break
			}
			idx[ax] = 0
		}
		if ax < 0 {
			return nil
		}
	}
}

func reversedInts(s []int) []int {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// npyReadP reads one block of a .npy file. Args: block start, block shape.
type npyReadP struct {
	Path      string   `json:"path"`
	D         nd.DType `json:"dtype"`
	BigEndian bool     `json:"big_endian,omitempty"`
	Fortran   bool     `json:"fortran,omitempty"`
	Shape     []int    `json:"shape"`
	Offset    int64    `json:"offset"`
}

func (p npyReadP) run(_ context.Context, args []any) (any, error) {
	st, err := argInts(args, 0, opNPYRead)
	if err != nil {
		return nil, err
	}
	sh, err := argInts(args, 1, opNPYRead)
	if err != nil {
		return nil, err
	}
	return p.read(st, sh)
}

// read reads the block of shape sh at start st: the task's work, also
// done inside fused tasks (fuse_eval.go).
func (p npyReadP) read(st, sh []int) (*nd.Array, error) {
	if len(st) != len(p.Shape) || len(sh) != len(p.Shape) {
		return nil, &Error{Op: "from npy", Shapes: [][]int{p.Shape, sh}, Reason: "block of the wrong rank"}
	}
	if err := graph.CheckPath(opNPYRead, p.Path); err != nil {
		return nil, err
	}
	if p.Fortran && len(sh) > 1 && slices.Equal(sh[1:], p.Shape[1:]) {
		return p.readRows(st[0], sh)
	}
	f, err := os.Open(p.Path)
	if err != nil {
		return nil, &npy.Error{File: p.Path, Reason: "open", Err: err}
	}
	defer f.Close()
	// A Fortran-order file of shape S is a C-order file of shape
	// reversed(S): read the reversed region, whose bytes are the block in
	// Fortran order.
	fshape, fstart, fbshape := p.Shape, st, sh
	if p.Fortran {
		fshape, fstart, fbshape = reversedInts(p.Shape), reversedInts(st), reversedInts(sh)
	}
	return nd.FillBytes(p.D, sh, p.Fortran, p.BigEndian, func(dst []byte) error {
		rd := runReader{f: f, base: p.Offset, dst: dst}
		err := regionRuns(fshape, fstart, fbshape, p.D.Size(), rd.add)
		if err == nil {
			err = rd.flush()
		}
		if err != nil {
			return &npy.Error{File: p.Path, Reason: fmt.Sprintf("reading block at %v", st), Err: err}
		}
		return nil
	})
}

// readRows reads a block of whole rows of axis 0 of a Fortran-order file
// with npy.File.ReadRowsInto, which reads the file in large pieces and
// transposes them: in such a file the block is a run of sh[0] elements
// every Shape[0], across the whole file. The block comes back in C order.
func (p npyReadP) readRows(start int, sh []int) (*nd.Array, error) {
	f, err := npy.OpenFile(p.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if h := f.Header(); h.DType != p.D || h.BigEndian != p.BigEndian || !h.Fortran || !slices.Equal(h.Shape, p.Shape) {
		return nil, &npy.Error{File: p.Path, Reason: fmt.Sprintf("the file changed: header %v %v, was %v %v", h.DType, h.Shape, p.D, p.Shape)}
	}
	return nd.FillBytes(p.D, sh, false, p.BigEndian, func(dst []byte) error {
		return f.ReadRowsInto(dst, 1, start, sh[0])
	})
}

// runReader reads the runs of a region into dst one after the other,
// merging runs less than runGapBytes apart into one ReadAt through a
// buffer of at most runSpanBytes: a block of a Fortran-order file that
// is thin along axis 0 (rows of a file whose first axis varies fastest)
// is a run of a few bytes every few bytes, and a ReadAt per run made
// reading it a syscall per few elements.
type runReader struct {
	f    *os.File
	base int64
	dst  []byte
	pos  int64 // bytes of dst filled by the runs added so far

	runs   [][3]int64 // pending runs: file offset, length, position in dst
	lo, hi int64      // file span of the pending runs
	buf    []byte
}

const (
	runGapBytes  = 16 << 10 // a gap read rather than skipped (cheaper than a syscall)
	runSpanBytes = 4 << 20  // the most one merged read spans
)

// add takes the next run: n bytes at offset off of the region's file.
func (r *runReader) add(off, n int64) error {
	if len(r.runs) > 0 && (off < r.hi || off-r.hi > runGapBytes || off+n-r.lo > runSpanBytes) {
		if err := r.flush(); err != nil {
			return err
		}
	}
	if len(r.runs) == 0 {
		r.lo = off
	}
	r.runs = append(r.runs, [3]int64{off, n, r.pos})
	r.hi = off + n
	r.pos += n
	return nil
}

// flush reads the pending runs: straight into dst when there is one,
// else their span into the buffer and each run out of it.
func (r *runReader) flush() error {
	defer func() { r.runs = r.runs[:0] }()
	switch len(r.runs) {
	case 0:
		return nil
	case 1:
		x := r.runs[0]
		_, err := r.f.ReadAt(r.dst[x[2]:x[2]+x[1]], r.base+x[0])
		return err
	}
	span := r.hi - r.lo
	if int64(cap(r.buf)) < span {
		r.buf = make([]byte, span)
	}
	b := r.buf[:span]
	if _, err := r.f.ReadAt(b, r.base+r.lo); err != nil {
		return err
	}
	for _, x := range r.runs {
		copy(r.dst[x[2]:x[2]+x[1]], b[x[0]-r.lo:x[0]-r.lo+x[1]])
	}
	return nil
}

// sourceLayer: each block is read by one task of op whose arguments are
// the block's start and shape (npy) or its index (zarr).
type sourceLayer struct {
	op      graph.Op
	byIndex bool
}

func (l *sourceLayer) inputs() []*Array { return nil }

func (l *sourceLayer) block(a *Array, idx []int) graph.Node {
	if l.byIndex {
		return graph.Task(l.op, graph.Lit(slices.Clone(idx)))
	}
	return graph.Task(l.op, graph.Lit(a.blockStart(idx)), graph.Lit(a.blockShape(idx)))
}

// fileToken identifies a file's version for names: path, size and
// modification time, as dask tokenizes file-backed arrays, so that a
// rewritten file gets new keys.
func fileToken(path string) []any {
	st, err := os.Stat(path)
	if err != nil {
		return []any{path}
	}
	return []any{path, st.Size(), st.ModTime().UnixNano()}
}

// FromNPY returns the array stored in the .npy file at path, cut into
// chunks (any spec NormalizeChunks takes). The header is read once, now;
// each block's task opens the file and reads only the block's bytes. The
// file must not change until the array is computed. Errors (a missing
// file, a bad header) are sticky and name the file.
func FromNPY(path string, chunks any) *Array {
	const name = "from-npy"
	f, err := npy.OpenFile(path)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	h := f.Header()
	f.Close()
	shape := slices.Clone(h.Shape)
	ch, err := NormalizeChunks(name, chunks, shape, h.DType)
	if err != nil {
		return errArray(err)
	}
	p := npyReadP{Path: path, D: h.DType, BigEndian: h.BigEndian, Fortran: h.Fortran, Shape: shape, Offset: h.DataOffset}
	return newArray(name, shape, ch, h.DType, &sourceLayer{op: newOp(opNPYRead, p)},
		append(fileToken(path), chunksToken(ch)...)...)
}

// zarrHandle opens a store once per process for the tasks of one array
// built here; decoded ops (on a worker) have none and open per task.
type zarrHandle struct {
	once sync.Once
	a    *zarr.Array
	err  error
}

func (h *zarrHandle) open(path string) (*zarr.Array, error) {
	// A worker process confined to its data directories refuses others
	// (graph.RestrictPaths); elsewhere this costs a read lock.
	if err := graph.CheckPath("zarr", path); err != nil {
		return nil, err
	}
	if h == nil {
		return zarr.Open(path)
	}
	h.once.Do(func() { h.a, h.err = zarr.Open(path) })
	return h.a, h.err
}

// zarrReadP reads one chunk of a zarr store. Args: the chunk index.
type zarrReadP struct {
	Path string `json:"path"`
	h    *zarrHandle
}

func (p zarrReadP) run(ctx context.Context, args []any) (any, error) {
	idx, err := argInts(args, 0, opZarrRead)
	if err != nil {
		return nil, err
	}
	z, err := p.h.open(p.Path)
	if err != nil {
		return nil, err
	}
	// The chunk is the task's value, in new memory; only the file's
	// compressed bytes go through the run's free list.
	return z.ReadChunkWith(idx, nil, &zarr.Scratch{Buffers: freelist.FromContext(ctx)})
}

// FromZarr returns the zarr array (v2 or v3) stored in the folder path,
// one block per stored chunk: each block's task reads one chunk file
// (missing chunks read as the fill value). The metadata is read once, now;
// errors are sticky and name the file. An optional chunks spec (Dask's
// from_zarr(chunks=...): anything Rechunk takes, a per-axis map's missing
// axes keeping the stored chunks) gives the result other chunks, the
// stored ones read and rechunked; more than one spec is an error.
func FromZarr(path string, chunks ...any) *Array {
	const name = "from-zarr"
	if len(chunks) > 1 {
		return errorf(name, nil, "%d chunk specs: want at most one", len(chunks))
	}
	a := fromZarr(path)
	if len(chunks) == 1 && a.err == nil {
		a = a.Rechunk(chunks[0])
	}
	return a
}

func fromZarr(path string) *Array {
	const name = "from-zarr"
	z, err := zarr.Open(path)
	if err != nil {
		return errArray(&Error{Op: name, Err: err})
	}
	shape := slices.Clone(z.Shape())
	ch, err := NormalizeChunks(name, slices.Clone(z.Chunks()), shape, z.DType())
	if err != nil {
		return errArray(err)
	}
	h := &zarrHandle{}
	h.once.Do(func() { h.a = z })
	p := zarrReadP{Path: path, h: h}
	parts := append(fileToken(metaFile(path)), shape, slices.Clone(z.Chunks()), int(z.DType()))
	return newArray(name, shape, ch, z.DType(), &sourceLayer{op: newOp(opZarrRead, p), byIndex: true}, parts...)
}

// metaFile returns the metadata file of the store at path.
func metaFile(path string) string {
	for _, f := range []string{".zarray", "zarr.json"} {
		p := path + string(os.PathSeparator) + f
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return path
}

// Target receives the blocks of an array: Store calls WriteRegion once
// per block, from several goroutines at once (with disjoint regions).
// start is the block's first element in the whole array.
type Target interface {
	WriteRegion(start []int, block *nd.Array) error
}

// NDTarget returns a Target that copies blocks into dst, an array of the
// stored array's shape (Dask's store into a numpy array).
func NDTarget(dst *nd.Array) Target { return ndTarget{dst} }

type ndTarget struct{ dst *nd.Array }

func (t ndTarget) WriteRegion(start []int, b *nd.Array) error {
	if len(start) != t.dst.NDim() || b.NDim() != t.dst.NDim() {
		return &Error{Op: "store", Shapes: [][]int{t.dst.Shape(), b.Shape()}, Reason: "target of another rank"}
	}
	sl := make([]nd.Slice1, len(start))
	for i, s := range start {
		sl[i] = nd.Slice1{Start: s, Stop: s + b.Shape()[i], Step: 1}
		if sl[i].Stop > t.dst.Shape()[i] {
			return &Error{Op: "store", Shapes: [][]int{t.dst.Shape(), b.Shape()}, Reason: fmt.Sprintf("block at %v outside the target", start)}
		}
	}
	return copyRegion(t.dst, sl, b)
}

// npyTarget writes blocks into a preallocated C-order .npy file.
type npyTarget struct {
	Path   string   `json:"path"`
	Shape  []int    `json:"shape"`
	D      nd.DType `json:"dtype"`
	Offset int64    `json:"offset"`
}

// runWriter turns the sequential bytes of a block into WriteAts at the
// runs of its region.
type runWriter struct {
	f    *os.File
	runs [][2]int64 // file offset, length
	i    int
	done int64 // bytes of runs[i] already written
}

func (w *runWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if w.i >= len(w.runs) {
			return n, fmt.Errorf("block has more bytes than its region")
		}
		r := w.runs[w.i]
		k := min(int64(len(p)), r[1]-w.done)
		if _, err := w.f.WriteAt(p[:k], r[0]+w.done); err != nil {
			return n, err
		}
		n += int(k)
		p = p[k:]
		w.done += k
		if w.done == r[1] {
			w.i++
			w.done = 0
		}
	}
	return n, nil
}

func (t npyTarget) WriteRegion(start []int, b *nd.Array) error {
	if b.Size() == 0 {
		return nil
	}
	if b.DType() != t.D {
		var err error
		if b, err = b.AsType(t.D); err != nil {
			return err
		}
	}
	if err := graph.CheckPath("store npy", t.Path); err != nil {
		return err
	}
	f, err := os.OpenFile(t.Path, os.O_WRONLY, 0)
	if err != nil {
		return &npy.Error{File: t.Path, Reason: "open for writing", Err: err}
	}
	w := &runWriter{f: f}
	_ = regionRuns(t.Shape, start, b.Shape(), t.D.Size(), func(off, n int64) error {
		w.runs = append(w.runs, [2]int64{t.Offset + off, n})
		return nil
	})
	if err := b.WriteRaw(w, false); err != nil {
		f.Close()
		return &npy.Error{File: t.Path, Reason: fmt.Sprintf("writing block at %v", start), Err: err}
	}
	if err := f.Close(); err != nil {
		return &npy.Error{File: t.Path, Reason: "close", Err: err}
	}
	return nil
}

// zarrTarget writes each block as the store chunks it covers: blocks are
// aligned with the store's chunks (ToZarr rechunks otherwise).
type zarrTarget struct {
	Path   string `json:"path"`
	Chunks []int  `json:"chunks"`
	h      *zarrHandle
}

func (t zarrTarget) WriteRegion(start []int, b *nd.Array) error {
	z, err := t.h.open(t.Path)
	if err != nil {
		return err
	}
	if b.DType() != z.DType() {
		if b, err = b.AsType(z.DType()); err != nil {
			return err
		}
	}
	// The store chunks inside the block: from start/c on each axis.
	bs := b.Shape()
	first := make([]int, len(start))
	nb := make([]int, len(start))
	for i, s := range start {
		c := t.Chunks[i]
		first[i] = s / c
		nb[i] = (bs[i] + c - 1) / c
	}
	sl := make([]nd.Slice1, len(start))
	idx := make([]int, len(start))
	forBlocks(nb, func(rel []int) {
		if err != nil {
			return
		}
		for i, r := range rel {
			c := t.Chunks[i]
			idx[i] = first[i] + r
			sl[i] = nd.Slice1{Start: r * c, Stop: min((r+1)*c, bs[i]), Step: 1}
		}
		var v *nd.Array
		if v, err = b.Slice(sl...); err == nil {
			err = z.WriteChunk(idx, v)
		}
	})
	return err
}

// storeP writes one block to its target and returns the bytes written.
// Args: the block, its start.
type storeP struct {
	NPY  *npyTarget  `json:"npy,omitempty"`
	Zarr *zarrTarget `json:"zarr,omitempty"`
	t    Target      // any other target: this process only
}

func (p storeP) target() (Target, error) {
	switch {
	case p.NPY != nil:
		return *p.NPY, nil
	case p.Zarr != nil:
		return *p.Zarr, nil
	case p.t != nil:
		return p.t, nil
	}
	return nil, fmt.Errorf("%s: the target is a Go value that exists only in the process that built the graph", opStore)
}

func (p storeP) run(_ context.Context, args []any) (any, error) {
	b, err := argArray(args[0], opStore)
	if err != nil {
		return nil, err
	}
	st, err := argInts(args, 1, opStore)
	if err != nil {
		return nil, err
	}
	t, err := p.target()
	if err != nil {
		return nil, err
	}
	if err := t.WriteRegion(st, b); err != nil {
		return nil, err
	}
	return int64(b.Nbytes()), nil
}

// storedP sums the bytes the store tasks wrote (args[0], a list).
type storedP struct{}

func (storedP) run(_ context.Context, args []any) (any, error) {
	list, ok := args[0].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: argument is %T", opStored, args[0])
	}
	var n int64
	for _, v := range list {
		x, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("%s: element is %T", opStored, v)
		}
		n += x
	}
	return n, nil
}

// StoreGraph returns the graph that Store runs: a's blocks, one store
// task per block, and a final task (the returned key) whose value is the
// number of bytes written (int64). It is not optimized.
func (a *Array) storeGraph(p storeP, opts ...Option) (*graph.Graph, graph.Key, error) {
	c := newConfig(opts)
	g, err := buildGraph([]*Array{a}, c.Optimize)
	if err != nil {
		return nil, "", err
	}
	o := newOp(opStore, p)
	name := "store-" + a.name
	refs := make([]graph.Arg, 0, a.NumTasks())
	forBlocks(a.NumBlocks(), func(idx []int) {
		if err != nil {
			return
		}
		k := graph.BlockKey(name, idx...)
		err = g.Set(k, graph.Task(o, graph.Ref(a.Key(idx...)), graph.Lit(a.blockStart(idx))))
		refs = append(refs, graph.Ref(k))
	})
	if err != nil {
		return nil, "", err
	}
	final := graph.Key("stored-" + a.name)
	if err := g.Set(final, graph.Task(newOp(opStored, storedP{}), graph.List(refs...))); err != nil {
		return nil, "", err
	}
	return g, final, nil
}

func (a *Array) runStore(ctx context.Context, p storeP, opts ...Option) error {
	if err := a.Err(); err != nil {
		return err
	}
	c := newConfig(opts)
	g, final, err := a.storeGraph(p, opts...)
	if err != nil {
		return err
	}
	keys := []graph.Key{final}
	_, err = c.Run(ctx, g, keys)
	return err
}

// Store computes a and writes each block into dst as soon as it is
// computed (dask.array.store): the whole array is never held in memory.
// Graphs with a Target of your own run only in this process; ToNPY and
// ToZarr run on any scheduler.
func (a *Array) Store(ctx context.Context, dst Target, opts ...Option) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := needKnown("store", a); err != nil { // unknown.go
		return err
	}
	if dst == nil {
		return &Error{Op: "store", Reason: "nil target"}
	}
	return a.runStore(ctx, storeP{t: dst}, opts...)
}

// ToNPY computes a into the .npy file at path (C order, little-endian),
// block by block: the file is created with its header and preallocated
// at its full size, then each block's task writes the block's rows at
// their offsets. A failed computation leaves a partial file.
func (a *Array) ToNPY(ctx context.Context, path string, opts ...Option) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := needKnown("to npy", a); err != nil { // unknown.go
		return err
	}
	hdr := npy.EncodeHeader(npy.Header{DType: a.dtype, Shape: a.shape})
	f, err := os.Create(path)
	if err != nil {
		return &Error{Op: "to npy", Err: &npy.Error{File: path, Reason: "create", Err: err}}
	}
	_, err = f.Write(hdr)
	if err == nil {
		err = f.Truncate(int64(len(hdr)) + int64(a.Nbytes()))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &Error{Op: "to npy", Err: &npy.Error{File: path, Reason: "preallocate", Err: err}}
	}
	t := npyTarget{Path: path, Shape: a.shape, D: a.dtype, Offset: int64(len(hdr))}
	return a.runStore(ctx, storeP{NPY: &t}, opts...)
}

// ZarrOptions configures ToZarr.
type ZarrOptions struct {
	// Chunks is the store's chunk shape; nil takes a's largest chunk on
	// each axis.
	Chunks     []int
	Compressor string // "", "zlib", "gzip" or "zstd"
	Level      int    // compression level; 0 is the codec's default
	Version    int    // 2 (default) or 3
	Order      string // "C" (default) or "F"
	Fill       any    // fill value; nil is zarr v2's null
}

// aligned reports whether every block boundary of chunks falls on a
// multiple of c, so that every block covers whole store chunks.
func aligned(chunks [][]int, c []int) bool {
	for ax, cs := range chunks {
		pos := 0
		for i, x := range cs {
			pos += x
			if i < len(cs)-1 && pos%c[ax] != 0 {
				return false
			}
		}
	}
	return true
}

// ToZarr computes a into a new zarr store in the folder path (an
// existing array there is overwritten), one task per block writing the
// store chunks the block covers. Blocks must cover whole store chunks
// (Dask's rule, so that no two tasks write one chunk file); when a's
// chunks do not, a is rechunked to the store's chunks first.
func (a *Array) ToZarr(ctx context.Context, path string, zo ZarrOptions, opts ...Option) error {
	if err := a.Err(); err != nil {
		return err
	}
	if err := needKnown("to zarr", a); err != nil { // unknown.go
		return err
	}
	cs := slices.Clone(zo.Chunks)
	if cs == nil {
		cs = a.chunkSize()
	}
	if len(cs) != a.NDim() {
		return &Error{Op: "to zarr", Shapes: [][]int{a.shape}, Reason: fmt.Sprintf("chunks %v for %d axes", zo.Chunks, a.NDim())}
	}
	for i := range cs {
		if cs[i] <= 0 {
			cs[i] = max(1, a.shape[i])
		}
	}
	_, err := zarr.Create(path, zarr.Meta{Shape: a.shape, Chunks: cs, DType: a.dtype, Fill: zo.Fill,
		Order: zo.Order, Compressor: zo.Compressor, Level: zo.Level, Version: zo.Version})
	if err != nil {
		return &Error{Op: "to zarr", Err: err}
	}
	src := a
	if !aligned(a.chunks, cs) {
		src = a.Rechunk(cs)
	}
	t := zarrTarget{Path: path, Chunks: cs, h: &zarrHandle{}}
	return src.runStore(ctx, storeP{Zarr: &t}, opts...)
}
