package distributed

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/graph"
)

// hintedSource is a mapSource that says each value's encoded size, as
// the worker's store does, so that the data server takes its buffers
// from the free list at their size.
type hintedSource struct{ mapSource }

func (h *hintedSource) sizeHint(job uint64, key string) int {
	h.mu.Lock()
	v, ok := h.vals[key]
	h.mu.Unlock()
	if !ok {
		return 0
	}
	b, _ := graph.EncodeValue(nil, v)
	return len(b)
}

// TestDataServerReusesBuffers fetches large values over and over from
// goroutines at once: every value arrives intact (a buffer given back to
// the free list while gRPC still wrote it would show as corrupt bytes),
// the server's encoding buffers come from the list and are reused, and
// none is lost (every Get is matched by a Put once the fetches end).
func TestDataServerReusesBuffers(t *testing.T) {
	vals := map[string]any{}
	for i := range 3 {
		b := make([]byte, (3+i)<<20+i*1000)
		for j := range b {
			b[j] = byte(j*(i+3) + j>>11)
		}
		vals[fmt.Sprint("v", i)] = b
	}
	src := &hintedSource{mapSource{vals: vals}}
	fl := freelist.NewAuto(8)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serveData(lis, Security{}, quietLogger(), src, fl)
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	d := newDataClient(Security{})
	defer d.close()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				k := fmt.Sprint("v", (g+i)%3)
				got, err := d.fetch(context.Background(), addr, srcJob, []string{k})
				if err != nil {
					t.Error(err)
					return
				}
				if b, ok := got[0].([]byte); !ok || !bytes.Equal(b, vals[k].([]byte)) {
					t.Errorf("goroutine %d fetch %d: %s arrived changed", g, i, k)
					return
				}
			}
		}()
	}
	wg.Wait()
	srv.Stop() // every frame written: every buffer given back
	s := fl.Stats()
	if s.Gets != 24 || s.Hits == 0 || s.Puts != s.Gets {
		t.Fatalf("24 fetches: list %+v", s)
	}
}
