package freelist

import (
	"context"
	"sync"
	"testing"
	"unsafe"
)

func TestClasses(t *testing.T) {
	for _, tc := range []struct {
		name        string
		n           int
		ceil, floor int // class sizes
	}{
		{"min", MinSize, 4096, 4096},
		{"min+1", MinSize + 1, 5120, 4096},
		{"5KiB", 5120, 5120, 5120},
		{"just under 8KiB", 8191, 8192, 7168},
		{"8KiB", 8192, 8192, 8192},
		{"16MiB", 16 << 20, 16 << 20, 16 << 20},
		{"16MiB+1", 16<<20 + 1, 20 << 20, 16 << 20},
		{"odd", 3_000_000, 3_145_728, 2_621_440},
		{"max", 1 << maxShift, 1 << maxShift, 1 << maxShift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classSize(ceilClass(tc.n)); got != tc.ceil {
				t.Errorf("ceil class of %d = %d bytes, want %d", tc.n, got, tc.ceil)
			}
			if got := classSize(floorClass(tc.n)); got != tc.floor {
				t.Errorf("floor class of %d = %d bytes, want %d", tc.n, got, tc.floor)
			}
		})
	}
	// Every class: ceil and floor of its own size are itself, sizes grow,
	// and a class is at most a quarter of a power of two above the last.
	for c := range nClasses {
		s := classSize(c)
		if ceilClass(s) != c || floorClass(s) != c {
			t.Fatalf("class %d (%d bytes): ceil %d floor %d", c, s, ceilClass(s), floorClass(s))
		}
		if c > 0 {
			p := classSize(c - 1)
			if s <= p || 4*(s-p) > s {
				t.Fatalf("class %d: %d bytes after %d", c, s, p)
			}
			if ceilClass(p+1) != c || floorClass(s-1) != c-1 {
				t.Fatalf("class %d: ceil(%d) = %d, floor(%d) = %d", c, p+1, ceilClass(p+1), s-1, floorClass(s-1))
			}
		}
	}
}

func base(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

func TestReuse(t *testing.T) {
	l := New(64 << 20)
	a := l.Get(1 << 20)
	if len(a) != 1<<20 || cap(a) != 1<<20 {
		t.Fatalf("Get(1 MiB): len %d cap %d", len(a), cap(a))
	}
	l.Put(a)
	// A request of the same class, a smaller one of the class, and one of
	// a class below within reach all get the same memory back.
	for _, n := range []int{1 << 20, 1<<20 - 100, 600 << 10} {
		b := l.Get(n)
		if base(b) != base(a) || len(b) != n {
			t.Fatalf("Get(%d) after Put: new memory (len %d)", n, len(b))
		}
		l.Put(b)
	}
	// Out of reach below (more than twice smaller): new memory.
	if b := l.Get(400 << 10); base(b) == base(a) {
		t.Fatalf("Get(400 KiB) took the 1 MiB buffer")
	}
	// Larger: new memory.
	if b := l.Get(1<<20 + 1); base(b) == base(a) {
		t.Fatalf("Get(1 MiB + 1) took the 1 MiB buffer")
	}
	s := l.Stats()
	if s.Gets != 6 || s.Hits != 3 || s.Puts != 4 || s.Dropped != 0 || s.Held != 1<<20 {
		t.Fatalf("stats %+v", s)
	}
}

func TestLIFO(t *testing.T) {
	l := New(64 << 20)
	a, b := l.Get(1<<20), l.Get(1<<20)
	l.Put(a)
	l.Put(b)
	if c := l.Get(1 << 20); base(c) != base(b) {
		t.Fatal("Get did not return the buffer put last")
	}
}

func TestBound(t *testing.T) {
	l := New(3 << 20)
	bufs := [][]byte{l.Get(1 << 20), l.Get(1 << 20), l.Get(1 << 20), l.Get(1 << 20)}
	for _, b := range bufs {
		l.Put(b)
	}
	if s := l.Stats(); s.Held != 3<<20 || s.Dropped != 1 {
		t.Fatalf("limit 3 MiB, four 1 MiB puts: %+v", s)
	}
	if s := New(0); s.Get(MinSize) != nil {
		s.Put(s.Get(MinSize))
		if st := s.Stats(); st.Held != 0 || st.Dropped != 1 {
			t.Fatalf("limit 0: %+v", st)
		}
	}
}

func TestAutoBound(t *testing.T) {
	l := NewAuto(2)
	var bufs [][]byte
	for range 3 {
		bufs = append(bufs, l.Get(1<<20))
	}
	for _, b := range bufs {
		l.Put(b)
	}
	// Two slots of the largest buffer handed out (1 MiB).
	if s := l.Stats(); s.Held != 2<<20 || s.Dropped != 1 {
		t.Fatalf("auto(2) after three 1 MiB buffers: %+v", s)
	}
	// A larger buffer raises the bound.
	big := l.Get(4 << 20)
	l.Put(big)
	if s := l.Stats(); s.Held != 6<<20 {
		t.Fatalf("auto(2) after a 4 MiB buffer: %+v", s)
	}
}

func TestSmallAndForeign(t *testing.T) {
	l := New(64 << 20)
	small := l.Get(100)
	if len(small) != 100 {
		t.Fatalf("Get(100): len %d", len(small))
	}
	l.Put(small)
	if s := l.Stats(); s.Gets != 0 || s.Puts != 0 || s.Held != 0 {
		t.Fatalf("small buffers counted: %+v", s)
	}
	// A buffer from elsewhere, of an odd capacity, is kept under the class
	// below its capacity and served to requests of that class.
	f := make([]byte, 10, 5000)
	l.Put(f)
	if b := l.Get(4096); base(b) != base(f) || len(b) != 4096 {
		t.Fatalf("foreign 5000-byte buffer not served for 4096 bytes")
	}
	// Misaligned: dropped.
	m := make([]byte, 8192+1)
	l.Put(m[1:])
	if s := l.Stats(); s.Held != 0 || s.Dropped != 1 {
		t.Fatalf("misaligned buffer: %+v", s)
	}
}

func TestAlignment(t *testing.T) {
	l := New(64 << 20)
	for _, n := range []int{MinSize, 5000, 1 << 20, 3_000_001} {
		if p := uintptr(base(l.Get(n))); p%8 != 0 {
			t.Fatalf("Get(%d) at %#x, not 8-byte aligned", n, p)
		}
	}
}

func TestDoublePutPanics(t *testing.T) {
	l := New(64 << 20)
	b := l.Get(1 << 20)
	l.Put(b)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic on a second Put of the same buffer")
		}
	}()
	l.Put(b)
}

func TestClose(t *testing.T) {
	l := New(64 << 20)
	a := l.Get(1 << 20)
	b := l.Get(1 << 20)
	l.Put(a)
	l.Close()
	if s := l.Stats(); s.Held != 0 {
		t.Fatalf("held after Close: %+v", s)
	}
	l.Put(b)
	if s := l.Stats(); s.Held != 0 || s.Dropped != 1 {
		t.Fatalf("Put after Close: %+v", s)
	}
	if c := l.Get(1 << 20); base(c) == base(a) || base(c) == base(b) || len(c) != 1<<20 {
		t.Fatal("Get after Close reused a buffer")
	}
}

func TestNil(t *testing.T) {
	var l *List
	b := l.Get(1 << 20)
	if len(b) != 1<<20 {
		t.Fatalf("nil list Get: len %d", len(b))
	}
	l.Put(b)
	l.Close()
	if s := l.Stats(); s != (Stats{}) {
		t.Fatalf("nil list stats %+v", s)
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if FromContext(ctx) != nil {
		t.Fatal("background context carries a list")
	}
	l := New(1)
	if got := FromContext(NewContext(ctx, l)); got != l {
		t.Fatalf("FromContext = %p, want %p", got, l)
	}
	//nolint:staticcheck // a nil context is what FromContext must survive
	if FromContext(nil) != nil {
		t.Fatal("nil context carries a list")
	}
}

// TestConcurrent has goroutines take and give back buffers, writing a
// mark into each while they own it: no two owners ever share one (run
// with -race as well).
func TestConcurrent(t *testing.T) {
	l := NewAuto(8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				n := MinSize << (i % 5)
				b := l.Get(n)
				for j := range b {
					b[j] = byte(g)
				}
				for j := range b {
					if b[j] != byte(g) {
						t.Errorf("goroutine %d: buffer changed under its owner", g)
						return
					}
				}
				l.Put(b)
			}
		}()
	}
	wg.Wait()
	if s := l.Stats(); s.Gets != 1600 || s.Hits == 0 {
		t.Fatalf("stats %+v", s)
	}
}
