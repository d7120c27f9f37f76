package distributed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
)

// The store holds a worker's values by job and key. Under a memory limit
// it keeps the bytes held in memory below spillFraction of the limit by
// writing the least recently used values to files, in the value codec,
// and reads them back when a task needs them again (unspilling). A peer
// fetching a spilled value gets the file's bytes as they are: they are
// already the encoding that the data plane sends, and decoding them only
// to encode them again would cost two copies and memory that the limit is
// there to save.
//
// Spilling encodes and writes outside the store's lock, so that tasks and
// fetches reading other values do not wait for the disk. An entry being
// spilled stays readable from memory; if it is read meanwhile, or
// released, the finished file is thrown away instead of replacing the
// value. The first design held the lock across the write; a worker with
// a slow disk then stalled every thread on its first spill.

// spillFraction is the part of the memory limit above which values spill.
const spillFraction = 0.6

type entryState uint8

const (
	inMemory entryState = iota
	spilling            // being written; v is still valid
	onDisk              // v is nil; path holds the encoding
)

type entry struct {
	job   uint64
	key   string
	v     any
	state entryState
	// nbytes is the value's size in memory: Nbytes() when it has that
	// method, else an estimate, replaced by the encoded size once the
	// value has been encoded.
	nbytes      int64
	sized       bool   // nbytes is exact
	path        string // spill file, while spilling or on disk
	fileSize    int64
	unencodable bool // spilling failed to encode it: it stays in memory
	dead        bool // deleted while spilling
	touched     bool // read while spilling
	prev, next  *entry
}

// storeStats are the counters a worker reports in its heartbeat.
type storeStats struct {
	memory, spilled          int64 // bytes in memory, bytes in spill files
	keys                     int64
	spillCount, unspillCount int64
}

type store struct {
	limit   int64          // spill above this many bytes in memory; 0: never
	parent  string         // where the spill directory is made
	buffers *freelist.List // encoding buffers (the worker's); nil: new memory

	mu       sync.Mutex
	jobs     map[uint64]map[string]*entry
	lru      entry // sentinel of the in-memory entries, least recent first
	dir      string
	seq      uint64
	closed   bool
	stats    storeStats
	inFlight int64 // bytes of entries being spilled
}

// newStore returns a store that spills above spillFraction×memoryLimit
// bytes (never when memoryLimit is 0) into a new directory under dir
// (default os.TempDir()), made at the first spill (dir too, when missing)
// and removed by close; dir itself stays.
//
// checkSpillDir is what a worker calls first: a memory limit whose spill
// directory cannot be written would silently stop limiting anything.
func newStore(memoryLimit int64, dir string) *store {
	s := &store{jobs: map[uint64]map[string]*entry{}, parent: dir}
	if memoryLimit > 0 {
		s.limit = max(1, int64(float64(memoryLimit)*spillFraction))
	}
	if s.parent == "" {
		s.parent = os.TempDir()
	}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s
}

// checkSpillDir reports whether spill files can be written under dir
// (default os.TempDir(), made if missing): it creates and removes a
// probe file there, so that a worker with a memory limit fails at start
// rather than keep every value in memory at the first spill.
func checkSpillDir(dir string) error {
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("spill directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".tessera-probe-")
	if err != nil {
		return fmt.Errorf("spill directory %s cannot be written: %w", dir, err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe"))
	cerr := f.Close()
	os.Remove(name)
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("spill directory %s cannot be written: %w", dir, err)
	}
	return nil
}

func (s *store) unlink(e *entry) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (s *store) pushRecent(e *entry) {
	e.prev, e.next = s.lru.prev, &s.lru
	s.lru.prev.next = e
	s.lru.prev = e
}

func (s *store) touch(e *entry) {
	s.unlink(e)
	s.pushRecent(e)
}

// put stores v as job's value of key, replacing any, and returns its size
// in bytes. It spills other values (or v itself) before returning when
// the store is over its limit.
func (s *store) put(job uint64, key string, v any) int64 {
	n, exact := sizeOf(v)
	e := &entry{job: job, key: key, v: v, nbytes: n, sized: exact}
	var drop string
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return n
	}
	m := s.jobs[job]
	if m == nil {
		m = map[string]*entry{}
		s.jobs[job] = m
	}
	if old := m[key]; old != nil {
		drop = s.remove(old)
	}
	m[key] = e
	s.stats.keys++
	s.stats.memory += n
	s.pushRecent(e)
	s.mu.Unlock()
	removeFile(drop)
	s.spillExcess()
	return n
}

// remove takes e out of the store and its counters, and returns the spill
// file to remove ("" for none). s.mu is held.
func (s *store) remove(e *entry) string {
	delete(s.jobs[e.job], e.key)
	if len(s.jobs[e.job]) == 0 {
		delete(s.jobs, e.job)
	}
	s.stats.keys--
	switch e.state {
	case inMemory:
		s.unlink(e)
		s.stats.memory -= e.nbytes
	case spilling:
		// The spiller removes the file when it sees dead.
		e.dead = true
		s.stats.memory -= e.nbytes
		return ""
	case onDisk:
		s.stats.spilled -= e.fileSize
		return e.path
	}
	return ""
}

func removeFile(path string) {
	if path != "" {
		os.Remove(path)
	}
}

// has reports whether job's value of key is held, in memory or on disk.
func (s *store) has(job uint64, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jobs[job][key] != nil
}

// get returns job's value of key, reading it back from disk when it was
// spilled; ok is false when it is not held. An error is a spill file
// that cannot be read or decoded.
func (s *store) get(job uint64, key string) (v any, ok bool, err error) {
	for {
		s.mu.Lock()
		e := s.jobs[job][key]
		switch {
		case e == nil:
			s.mu.Unlock()
			return nil, false, nil
		case e.state == inMemory:
			s.touch(e)
			v := e.v
			s.mu.Unlock()
			return v, true, nil
		case e.state == spilling:
			e.touched = true
			v := e.v
			s.mu.Unlock()
			return v, true, nil
		}
		path := e.path
		s.mu.Unlock()

		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // read back or released meanwhile: look again
		}
		if err != nil {
			return nil, false, fmt.Errorf("distributed: unspill %q: %w", key, err)
		}
		v, err := graph.Unmarshal(b)
		if err != nil {
			return nil, false, fmt.Errorf("distributed: unspill %q from %s: %w", key, path, err)
		}
		s.mu.Lock()
		if s.jobs[job][key] != e || e.state != onDisk {
			s.mu.Unlock()
			continue
		}
		e.v, e.state, e.path = v, inMemory, ""
		if !e.sized {
			e.nbytes, e.sized = e.fileSize, true
		}
		s.stats.spilled -= e.fileSize
		s.stats.memory += e.nbytes
		s.stats.unspillCount++
		s.pushRecent(e)
		s.mu.Unlock()
		removeFile(path)
		s.spillExcess()
		return v, true, nil
	}
}

// appendEncoded implements valueSource: a value in memory is encoded, a
// spilled one is its file's bytes.
// sizeHint implements sizeHinter: the value's size in memory (its
// encoded size once known) and room for the codec's header; 0 for a
// value the store does not hold.
func (s *store) sizeHint(job uint64, key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.jobs[job][key]; e != nil {
		return int(max(e.nbytes, 0) + encodingSlack)
	}
	return 0
}

// encodingSlack is what an encoding may take beyond a value's bytes (its
// header: dtype, shape, kind): sizes from sizeOf plus this make most
// encoding buffers right the first time.
const encodingSlack = 256

func (s *store) appendEncoded(dst []byte, job uint64, key string) ([]byte, bool, error) {
	for {
		s.mu.Lock()
		e := s.jobs[job][key]
		if e == nil {
			s.mu.Unlock()
			return dst, false, nil
		}
		if e.state != onDisk {
			if e.state == inMemory {
				s.touch(e)
			}
			v, sized := e.v, e.sized
			s.mu.Unlock()
			b, err := graph.EncodeValue(dst, v)
			if err != nil {
				return dst, true, err
			}
			if !sized {
				s.setSize(e, int64(len(b)-len(dst)))
			}
			return b, true, nil
		}
		path := e.path
		s.mu.Unlock()
		b, err := appendFile(dst, path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return dst, true, fmt.Errorf("distributed: read spilled %q: %w", key, err)
		}
		return b, true, nil
	}
}

// setSize replaces e's estimated size by its encoded size n.
func (s *store) setSize(e *entry, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.sized || e.dead || s.jobs[e.job][e.key] != e {
		return
	}
	if e.state != onDisk {
		s.stats.memory += n - e.nbytes
	}
	e.nbytes, e.sized = n, true
}

func appendFile(dst []byte, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return dst, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return dst, err
	}
	n := int(st.Size())
	dst = growTo(dst, len(dst)+n)
	k := len(dst)
	dst = dst[:k+n]
	if _, err := readFull(f, dst[k:]); err != nil {
		return dst[:k], err
	}
	return dst, nil
}

func growTo(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	return append(b[:cap(b)], make([]byte, n-cap(b))...)[:len(b)]
}

func readFull(f *os.File, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := f.Read(b[n:])
		n += k
		if err != nil {
			if n == len(b) {
				break
			}
			return n, fmt.Errorf("%s: %d of %d bytes: %w", f.Name(), n, len(b), err)
		}
	}
	return n, nil
}

// release drops job's value of key and its spill file.
func (s *store) release(job uint64, key string) {
	s.mu.Lock()
	var drop string
	if e := s.jobs[job][key]; e != nil {
		drop = s.remove(e)
	}
	s.mu.Unlock()
	removeFile(drop)
}

// dropJob drops every value of job and their spill files.
func (s *store) dropJob(job uint64) {
	s.mu.Lock()
	var drop []string
	for _, e := range s.jobs[job] {
		drop = append(drop, s.remove(e))
	}
	s.mu.Unlock()
	for _, p := range drop {
		removeFile(p)
	}
}

// dropAll drops every value of every job.
func (s *store) dropAll() {
	s.mu.Lock()
	var drop []string
	for _, m := range s.jobs {
		for _, e := range m {
			drop = append(drop, s.remove(e))
		}
	}
	s.mu.Unlock()
	for _, p := range drop {
		removeFile(p)
	}
}

// close drops everything and removes the spill directory; later puts are
// ignored.
func (s *store) close() {
	s.dropAll()
	s.mu.Lock()
	s.closed = true
	dir := s.dir
	s.mu.Unlock()
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func (s *store) statsNow() storeStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// spillExcess writes least recently used values to disk until the bytes
// in memory are within the limit, or only values that cannot be encoded
// are left.
func (s *store) spillExcess() {
	if s.limit == 0 {
		return
	}
	for {
		s.mu.Lock()
		if s.closed || s.stats.memory-s.inFlight <= s.limit {
			s.mu.Unlock()
			return
		}
		var e *entry
		for c := s.lru.next; c != &s.lru; c = c.next {
			if !c.unencodable {
				e = c
				break
			}
		}
		if e == nil {
			s.mu.Unlock()
			return
		}
		if s.dir == "" {
			// A directory of its own under parent (made if missing), so
			// that workers sharing parent never see each other's files,
			// and close removes only what this store wrote.
			err := os.MkdirAll(s.parent, 0o755)
			dir := ""
			if err == nil {
				dir, err = os.MkdirTemp(s.parent, "tessera-spill-")
			}
			if err != nil {
				// Without a directory nothing can spill; the values stay.
				e.unencodable = true
				s.mu.Unlock()
				continue
			}
			s.dir = dir
		}
		s.unlink(e)
		s.seq++
		e.state, e.path = spilling, filepath.Join(s.dir, strconv.FormatUint(s.seq, 10))
		flight := e.nbytes
		s.inFlight += flight
		v, path := e.v, e.path
		s.mu.Unlock()

		size, err := writeSpill(s.buffers, path, v, flight+encodingSlack)

		s.mu.Lock()
		s.inFlight -= flight
		switch {
		case err != nil:
			e.unencodable = true
			e.state, e.path = inMemory, ""
			if !e.dead {
				s.pushRecent(e)
			}
			path = ""
		case e.dead:
			// Released meanwhile; remove counted it already.
		case e.touched:
			e.touched = false
			e.state, e.path = inMemory, ""
			s.pushRecent(e)
		default:
			e.state, e.v, e.fileSize = onDisk, nil, size
			if !e.sized {
				e.nbytes, e.sized = size, true
			}
			s.stats.memory -= e.nbytes
			s.stats.spilled += size
			s.stats.spillCount++
			path = ""
		}
		s.mu.Unlock()
		removeFile(path)
	}
}

// writeSpill writes v's encoding, about hint bytes, to a new file at path
// and returns its size; the encoding buffer comes from fl and goes back.
func writeSpill(fl *freelist.List, path string, v any, hint int64) (int64, error) {
	buf := fl.Get(int(max(hint, 0)))[:0]
	b, err := graph.EncodeValue(buf, v)
	defer func() {
		fl.Put(buf)
		if !sameMemory(b, buf) {
			fl.Put(b) // grown past the hint: new memory, also reusable
		}
	}()
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return 0, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return 0, err
	}
	return int64(len(b)), nil
}

// sizeOf returns the bytes v holds in memory and whether that is exact:
// Nbytes() for values that have it, the length of strings and byte
// slices, 8 per scalar, and sums over lists and maps of those. Other
// values get an estimate, replaced by their encoded size once encoded.
func sizeOf(v any) (int64, bool) { return sizeOfDepth(v, 0) }

const estimatedSize = 64

func sizeOfDepth(v any, depth int) (int64, bool) {
	switch x := v.(type) {
	case nil:
		return 0, true
	case interface{ Nbytes() int }:
		return int64(x.Nbytes()), true
	case string:
		return int64(len(x)), true
	case []byte:
		return int64(len(x)), true
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64,
		float32, float64, complex64, graph.Key:
		return 8, true
	case complex128:
		return 16, true
	case []int:
		return 8 * int64(len(x)), true
	case []int64:
		return 8 * int64(len(x)), true
	case []float64:
		return 8 * int64(len(x)), true
	case []string:
		n := int64(0)
		for _, s := range x {
			n += int64(len(s))
		}
		return n, true
	case []any:
		if depth > 8 || len(x) > 1<<16 {
			return estimatedSize + 8*int64(len(x)), false
		}
		n, exact := int64(0), true
		for _, e := range x {
			k, ok := sizeOfDepth(e, depth+1)
			n, exact = n+k, exact && ok
		}
		return n, exact
	case map[string]any:
		if depth > 8 || len(x) > 1<<16 {
			return estimatedSize + 16*int64(len(x)), false
		}
		n, exact := int64(0), true
		for k, e := range x {
			m, ok := sizeOfDepth(e, depth+1)
			n, exact = n+m+int64(len(k)), exact && ok
		}
		return n, exact
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		return estimatedSize + int64(rv.Len())*int64(rv.Type().Elem().Size()), false
	}
	return estimatedSize, false
}
