package freelist

import (
	"context"
	"math/bits"
	"sync"
	"unsafe"
)

const (
	minShift = 12    // the smallest class: 4 KiB
	maxShift = 40    // no class beyond 2^40 bytes
	steps    = 4     // classes per power of two
	reach    = steps // Get looks this many classes up: at most twice the size
	nClasses = (maxShift-minShift)*steps + 1
	// MinSize is the smallest buffer a List keeps: smaller requests are
	// plain allocations.
	MinSize = 1 << minShift
)

// List is a bounded free list of byte buffers; see the package doc. Its
// methods are safe for concurrent use. Make one with New or NewAuto (the
// zero List has a bound of 0: it keeps nothing); a nil *List allocates on
// Get and drops on Put.
type List struct {
	mu      sync.Mutex
	limit   int64 // fixed bound in bytes; 0 with slots > 0: auto
	slots   int64 // auto: the bound is slots × largest
	largest int64 // the largest buffer Get has handed out
	held    int64 // bytes in free
	closed  bool
	free    [nClasses][][]byte // per class, buffers of at least its size
	stats   Stats
}

// Stats counts what a List did; for tests and benchmarks.
type Stats struct {
	Gets      int64 // calls of Get of at least MinSize bytes
	Hits      int64 // of those, served from the list
	Allocated int64 // bytes of new buffers Get allocated
	Puts      int64 // calls of Put with a buffer of at least MinSize bytes
	Dropped   int64 // of those, dropped: past the limit, or after Close
	Held      int64 // bytes held now
}

// New returns a list that holds at most limit bytes of free buffers
// (limit <= 0: none; every Put drops).
func New(limit int64) *List { return &List{limit: max(limit, 0)} }

// NewAuto returns a list that holds at most slots times the size of the
// largest buffer it has handed out: a run with W workers keeps about
// slots/W buffers of its largest size per worker.
func NewAuto(slots int) *List { return &List{slots: int64(max(slots, 1))} }

// classSize returns the size in bytes of class c.
func classSize(c int) int {
	e, k := minShift+c/steps, c%steps
	return 1<<e + k<<(e-2)
}

// ceilClass returns the smallest class of at least n bytes (n >= MinSize,
// n <= 2^maxShift).
func ceilClass(n int) int {
	e := bits.Len(uint(n)) - 1 // 2^e <= n < 2^(e+1)
	step := 1 << (e - 2)
	k := (n - 1<<e + step - 1) / step
	return (e-minShift)*steps + k // k == steps is the next power's class 0
}

// floorClass returns the largest class of at most n bytes (n >= MinSize).
func floorClass(n int) int {
	e := bits.Len(uint(n)) - 1
	if e >= maxShift {
		return nClasses - 1
	}
	k := (n - 1<<e) >> (e - 2)
	return (e-minShift)*steps + k
}

// Get returns a buffer of n bytes (n >= 0) whose contents are garbage;
// its capacity is at least its size class's. Give it back with Put when
// done.
func (l *List) Get(n int) []byte {
	if l == nil || n < MinSize || n > 1<<maxShift {
		return alloc((n + 7) &^ 7)[:n]
	}
	c := ceilClass(n)
	l.mu.Lock()
	l.stats.Gets++
	if !l.closed {
		for j := c; j < min(c+reach+1, nClasses); j++ {
			fl := l.free[j]
			if len(fl) == 0 {
				continue
			}
			b := fl[len(fl)-1]
			fl[len(fl)-1] = nil
			l.free[j] = fl[:len(fl)-1]
			l.held -= int64(cap(b))
			l.stats.Hits++
			l.largest = max(l.largest, int64(cap(b)))
			l.mu.Unlock()
			return b[:n]
		}
	}
	size := classSize(c)
	l.largest = max(l.largest, int64(size))
	l.stats.Allocated += int64(size)
	l.mu.Unlock()
	return alloc(size)[:n]
}

// alloc returns n new bytes (n >= 0, a multiple of 8) aligned to 8 bytes, so
// that they can be viewed as any numeric type: allocated as uint64s,
// which also tells the collector that they hold no pointers.
func alloc(n int) []byte {
	w := make([]uint64, n/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

// Put gives b back (its whole capacity, from its first element): the list
// keeps it unless that would pass the limit or the list is closed. A
// buffer under MinSize bytes, or not 8-byte aligned, is dropped. Putting
// a buffer that the list already holds panics (a programmer error: two
// owners would then get the same memory).
func (l *List) Put(b []byte) {
	if l == nil || cap(b) < MinSize {
		return
	}
	b = b[:cap(b)]
	p := unsafe.Pointer(unsafe.SliceData(b))
	c := floorClass(cap(b))
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stats.Puts++
	if l.closed || uintptr(p)%8 != 0 || l.held+int64(cap(b)) > l.bound() {
		l.stats.Dropped++
		return
	}
	for _, x := range l.free[c] {
		if unsafe.Pointer(unsafe.SliceData(x)) == p {
			panic("freelist: a buffer put twice")
		}
	}
	l.free[c] = append(l.free[c], b)
	l.held += int64(cap(b))
}

// bound returns the limit now; l.mu is held.
func (l *List) bound() int64 {
	if l.slots > 0 {
		return l.slots * l.largest
	}
	return l.limit
}

// Close drops every held buffer and makes later Puts drop theirs; Get
// still works (it allocates). The owner calls it when its run ends.
func (l *List) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for c := range l.free {
		clear(l.free[c])
		l.free[c] = nil
	}
	l.held = 0
}

// Stats returns the list's counts so far (zero for a nil list).
func (l *List) Stats() Stats {
	if l == nil {
		return Stats{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Held = l.held
	return s
}

type ctxKey struct{}

// NewContext returns a copy of ctx that carries l.
func NewContext(ctx context.Context, l *List) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// FromContext returns the list ctx carries, or nil.
func FromContext(ctx context.Context) *List {
	if ctx == nil {
		return nil
	}
	l, _ := ctx.Value(ctxKey{}).(*List)
	return l
}
