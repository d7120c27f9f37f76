package blosc

import (
	"bytes"
	"testing"

	"github.com/tessera-go/tessera/freelist"
)

// TestDecoderReuse decodes every good fixture twice in a row with one
// Decoder on a free list: the bytes are the fixture's (the oracle the
// numcodecs generator wrote), the shuffled ones take their scratch block
// from the list and give it back (the second pass finds it there), and
// the zlib reader kept from one stream serves the next.
func TestDecoderReuse(t *testing.T) {
	fl := freelist.New(64 << 20)
	d := Decoder{Buffers: fl}
	shuffled := 0
	for pass := range 2 {
		for _, f := range readManifest(t, "manifest.tsv") {
			if f.expect != "ok" && f.expect != "noise" {
				continue
			}
			src := readFixture(t, f.name+".blosc")
			h, err := ReadInfo(src)
			if err != nil {
				t.Fatal(err)
			}
			if pass == 0 && h.Shuffle && h.TypeSize > 1 && !h.Memcpyed && min(h.BlockSize, h.NBytes) >= freelist.MinSize {
				shuffled++
			}
			dst := make([]byte, f.nbytes)
			n, err := d.DecompressInto(dst, src)
			if err != nil || n != f.nbytes {
				t.Fatalf("%s pass %d: DecompressInto = %d, %v", f.name, pass, n, err)
			}
			if w := want(t, f); !bytes.Equal(dst, w) {
				t.Fatalf("%s pass %d: first difference at byte %d", f.name, pass, firstDiff(dst, w))
			}
		}
	}
	if shuffled == 0 {
		t.Fatal("no shuffled fixture with a scratch block of at least freelist.MinSize")
	}
	s := fl.Stats()
	if s.Gets != int64(2*shuffled) || s.Puts != s.Gets || s.Hits < int64(shuffled) || s.Held == 0 {
		t.Fatalf("%d shuffled fixtures twice: list %+v", shuffled, s)
	}
	if d.zr == nil {
		t.Fatal("no zlib reader kept after the zlib fixtures")
	}
}
