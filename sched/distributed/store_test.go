package distributed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/graph"
)

// spillFiles lists the files of s's spill directory.
func spillFiles(t *testing.T, s *store) []string {
	t.Helper()
	s.mu.Lock()
	dir := s.dir
	s.mu.Unlock()
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// chunk returns a distinct 1000-byte value.
func storeChunk(i int) []byte {
	b := make([]byte, 1000)
	for j := range b {
		b[j] = byte(i + j)
	}
	return b
}

func TestStoreSpill(t *testing.T) {
	const limit = 10000 // spills above 6000 bytes: six chunks fit
	s := newStore(limit, t.TempDir())
	defer s.close()
	for i := range 20 {
		if n := s.put(1, fmt.Sprint(i), storeChunk(i)); n != 1000 {
			t.Fatalf("put %d: size %d, want 1000", i, n)
		}
		if st := s.statsNow(); st.memory > limit*spillFraction {
			t.Fatalf("after put %d: %d bytes in memory, want <= %v", i, st.memory, limit*spillFraction)
		}
	}
	st := s.statsNow()
	if st.keys != 20 || st.spillCount != 14 || st.memory != 6000 || st.spilled <= 14000 {
		t.Fatalf("stats %+v, want 20 keys, 14 spilled (more than 14000 bytes on disk), 6000 in memory", st)
	}
	if files := spillFiles(t, s); len(files) != 14 {
		t.Fatalf("%d spill files, want 14", len(files))
	}
	// The least recently used went to disk first: 0..13.
	for i := range 20 {
		s.mu.Lock()
		state := s.jobs[1][fmt.Sprint(i)].state
		s.mu.Unlock()
		if want := i < 14; (state == onDisk) != want {
			t.Fatalf("value %d: on disk %v, want %v", i, state == onDisk, want)
		}
	}
	// Every value comes back equal; reading 0..19 in order keeps at most
	// six in memory.
	for i := range 20 {
		v, ok, err := s.get(1, fmt.Sprint(i))
		if err != nil || !ok || !reflect.DeepEqual(v, storeChunk(i)) {
			t.Fatalf("get %d: %v, %v (equal %v)", i, ok, err, reflect.DeepEqual(v, storeChunk(i)))
		}
		if st := s.statsNow(); st.memory > limit*spillFraction {
			t.Fatalf("after get %d: %d bytes in memory", i, st.memory)
		}
	}
	// 0..13 were on disk; reading each pushed out the least recent of
	// 14..19 before their turn came, so all twenty were read back.
	if st := s.statsNow(); st.unspillCount != 20 || st.spillCount != 34 {
		t.Fatalf("unspill count %d, spill count %d; want 20, 34", st.unspillCount, st.spillCount)
	}
	// A fetch of a spilled value sends the file's bytes, which are its
	// encoding, without reading it back.
	before := s.statsNow()
	b, ok, err := s.appendEncoded([]byte("prefix"), 1, "0")
	if err != nil || !ok {
		t.Fatalf("appendEncoded: %v, %v", ok, err)
	}
	if want, _ := graph.EncodeValue([]byte("prefix"), storeChunk(0)); !reflect.DeepEqual(b, want) {
		t.Fatalf("appendEncoded of a spilled value: %d bytes, want its encoding (%d bytes)", len(b), len(want))
	}
	if after := s.statsNow(); after.unspillCount != before.unspillCount {
		t.Fatalf("appendEncoded read the value back")
	}

	// Release and dropJob remove the files.
	for i := range 10 {
		s.release(1, fmt.Sprint(i))
	}
	s.put(2, "other", storeChunk(99))
	for i := range 3 {
		s.put(2, fmt.Sprint("x", i), storeChunk(i))
	}
	s.dropJob(1)
	st = s.statsNow()
	if st.keys != 4 {
		t.Fatalf("%d keys after dropJob, want 4", st.keys)
	}
	var onDiskNow int
	s.mu.Lock()
	for _, e := range s.jobs[2] {
		if e.state == onDisk {
			onDiskNow++
		}
	}
	s.mu.Unlock()
	if files := spillFiles(t, s); len(files) != onDiskNow {
		t.Fatalf("%d spill files, want %d (those of job 2)", len(files), onDiskNow)
	}
	dir := s.dir
	s.close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("spill directory %s still there after close: %v", dir, err)
	}
}

func TestStoreUnencodableStays(t *testing.T) {
	s := newStore(1000, t.TempDir())
	defer s.close()
	s.put(1, "u", unencodable{1}) // estimated size, cannot spill
	for i := range 5 {
		s.put(1, fmt.Sprint(i), storeChunk(i))
	}
	v, ok, err := s.get(1, "u")
	if err != nil || !ok || v != (unencodable{1}) {
		t.Fatalf("get u: %v %v %v", v, ok, err)
	}
	st := s.statsNow()
	if st.memory > 600 || st.spillCount != 5 {
		t.Fatalf("stats %+v: want the chunks spilled and the unencodable value kept", st)
	}
}

func TestStoreNoLimit(t *testing.T) {
	s := newStore(0, t.TempDir())
	defer s.close()
	for i := range 100 {
		s.put(1, fmt.Sprint(i), storeChunk(i))
	}
	if st := s.statsNow(); st.spillCount != 0 || st.memory != 100000 || spillFiles(t, s) != nil {
		t.Fatalf("stats %+v: want nothing spilled", st)
	}
	// Replacing a value counts it once.
	s.put(1, "0", "abc")
	if st := s.statsNow(); st.memory != 99003 || st.keys != 100 {
		t.Fatalf("after replace: %+v", st)
	}
}

func TestStoreConcurrent(t *testing.T) {
	const limit = 20000
	s := newStore(limit, t.TempDir())
	defer s.close()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := fmt.Sprint(g, "-", i%30)
				s.put(uint64(g%2), k, storeChunk(i))
				v, ok, err := s.get(uint64(g%2), k)
				// Another goroutine may replace k meanwhile only when it
				// has the same g: never.
				if err != nil || !ok || !reflect.DeepEqual(v, storeChunk(i)) {
					errs <- fmt.Errorf("g%d i%d: %v %v", g, i, ok, err)
					return
				}
				if i%7 == 0 {
					s.release(uint64(g%2), k)
				}
				if _, ok, err := s.appendEncoded(nil, uint64(g%2), fmt.Sprint(g, "-", (i+5)%30)); ok && err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := s.statsNow(); st.memory > limit*spillFraction || st.memory < 0 || st.spilled < 0 {
		t.Fatalf("stats %+v", st)
	}
	s.dropAll()
	if st := s.statsNow(); st != (storeStats{spillCount: st.spillCount, unspillCount: st.unspillCount}) {
		t.Fatalf("after dropAll: %+v, want zero bytes and keys", st)
	}
	if files := spillFiles(t, s); len(files) != 0 {
		t.Fatalf("%d spill files left after dropAll", len(files))
	}
}

func TestSizeOf(t *testing.T) {
	tests := []struct {
		name  string
		v     any
		n     int64
		exact bool
	}{
		{"int", 3, 8, true},
		{"string", "abcd", 4, true},
		{"bytes", make([]byte, 10), 10, true},
		{"list", []any{1, "ab", []byte{1}}, 11, true},
		{"floats", make([]float64, 4), 32, true},
		{"map", map[string]any{"k": 1.5}, 9, true},
		{"nbytes", sizedValue(100), 100, true},
		{"unknown", unencodable{}, estimatedSize, false},
		{"list with unknown", []any{1, unencodable{}}, 8 + estimatedSize, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, exact := sizeOf(tt.v)
			if n != tt.n || exact != tt.exact {
				t.Fatalf("sizeOf(%#v) = %d, %v; want %d, %v", tt.v, n, exact, tt.n, tt.exact)
			}
		})
	}
}

type sizedValue int

func (s sizedValue) Nbytes() int { return int(s) }

// A worker with a memory limit whose spill directory cannot be written
// fails at start, naming the directory (it used to keep every value in
// memory from its first spill on, silently); without a limit the
// directory is not used and not checked.
func TestWorkerSpillDirUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(file, "spill") // a directory under a regular file
	_, err := StartWorker(context.Background(), WorkerOptions{Scheduler: "127.0.0.1:1", Threads: 1,
		MemoryLimit: 1 << 20, SpillDir: bad, Logger: quietLogger()})
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "spill directory") {
		t.Errorf("StartWorker with spill directory %s: %v, want an error naming it", bad, err)
	}
	if err := checkSpillDir(t.TempDir()); err != nil {
		t.Errorf("checkSpillDir(a fresh temporary directory): %v", err)
	}
}
