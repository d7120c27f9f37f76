package udfbridge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// FuzzParseMIBHeader parses fuzzed headers: an error, or a header whose
// sizes agree (a frame's stored bytes hold its decoded pixels at the
// counter depth), which renders back to a header that parses the same
// (decode(encode(x)) == x).
func FuzzParseMIBHeader(f *testing.F) {
	for _, c := range mibCases {
		s := c.spec
		w, h, chips, layout := s.rows, s.rows, 1, "1x1"
		if s.quad {
			chips, layout = 4, "2x2G"
			if s.format == "R64" {
				w, h = 2*s.rows, s.rows/2
			}
		}
		if s.format == "R64" && s.depth == 24 {
			w *= 2
		}
		f.Add(mibHeaderText(1, 384, chips, w, h, s.format, layout, s.depth))
	}
	f.Add([]byte("MQ1,1,64,1,1,1,U08,1x1,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,1,"))
	f.Add([]byte("MQ1,000001,99999999999999999999,01,0256,0256,U16,   1x1,01,12,"))
	f.Fuzz(func(t *testing.T, head []byte) {
		h, err := ParseMIBHeader(head)
		if err != nil {
			return
		}
		px := h.Sig[0] * h.Sig[1]
		if h.HeaderBytes > len(head) || px < 1 || h.StoredBytes < 1 || !h.DType.Valid() {
			t.Fatalf("header %+v from %d bytes", h, len(head))
		}
		if !h.Raw() && h.StoredBytes != px*h.DType.Size() {
			t.Fatalf("header %+v: %d stored bytes for %d pixels", h, h.StoredBytes, px)
		}
		if h.Raw() && h.StoredBytes*8 != px*map[int]int{1: 1, 6: 8, 12: 16, 24: 32}[h.Depth] {
			t.Fatalf("raw header %+v: %d stored bytes for %d pixels", h, h.StoredBytes, px)
		}
		lay := strings.Repeat(" ", 3) + string(rune('0'+h.Layout[0]%10)) + "x" + string(rune('0'+h.Layout[1]%10))
		if h.Layout[0] > 9 || h.Layout[1] > 9 || h.HeaderBytes < 384 {
			return
		}
		again, err := ParseMIBHeader(mibHeaderText(h.Seq, h.HeaderBytes, h.Chips, h.Width, h.Height, h.Format, lay, h.Depth))
		if err != nil || again != h {
			t.Fatalf("rendered header parses as %+v, %v; want %+v", again, err, h)
		}
	})
}

// FuzzOpenMIB opens fuzzed bytes as a single .mib file: refused with a
// *DatasetError naming the file, or opened, and then its first frames
// read without error and with bounded allocation.
func FuzzOpenMIB(f *testing.F) {
	dir := f.TempDir()
	for _, i := range []int{2, 5, 8, 12} {
		sub := filepath.Join(dir, "seed", mibCases[i].name)
		os.MkdirAll(sub, 0o755)
		c := mibCases[i]
		c.spec.frames = []int{2}
		paths, _ := writeMIB(f, sub, "s", c.spec, c.dt)
		b, err := os.ReadFile(paths[0])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(append(mibHeaderText(1, 384, 1, 65535, 65535, "U64", "1x1", 24), make([]byte, 64)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.mib")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ds *MIBDataset
		var err error
		grew := allocDuring(func() { ds, err = OpenMIB(path, OpenOptions{SingleFile: true}) })
		if grew > 256<<10 {
			t.Fatalf("OpenMIB of %d bytes allocated %d", len(b), grew)
		}
		if err != nil {
			var de *DatasetError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("OpenMIB: %T %v, want a *DatasetError naming the file", err, err)
			}
			return
		}
		n := min(dsProd(ds.NavShape()), 2)
		grew = allocDuring(func() { _, err = ds.Read(context.Background(), 0, n, nil, nil) })
		if err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
		if limit := uint64(40*len(b)) + 1<<20; grew > limit {
			t.Fatalf("Read(0, %d) of a %d-byte file allocated %d", n, len(b), grew)
		}
	})
}

// FuzzOpenMRC opens fuzzed bytes as an MRC file: refused with a
// *DatasetError naming the file, or opened, and then its first frames
// read without error and with bounded allocation.
func FuzzOpenMRC(f *testing.F) {
	dir := f.TempDir()
	for _, mode := range []int{0, 2, 3, 12} {
		p := filepath.Join(dir, "seed.mrc")
		writeMRC(f, p, mrcValues(f, mode, 2, 3, 4), mode, 8, mode == 3)
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.mrc")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ds *MRCDataset
		var err error
		grew := allocDuring(func() { ds, err = OpenMRC(path, OpenOptions{}) })
		if grew > 64<<10 {
			t.Fatalf("OpenMRC of %d bytes allocated %d", len(b), grew)
		}
		if err != nil {
			var de *DatasetError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("OpenMRC: %T %v, want a *DatasetError naming the file", err, err)
			}
			return
		}
		n := min(dsProd(ds.NavShape()), 2)
		grew = allocDuring(func() { _, err = ds.Read(context.Background(), 0, n, nil, nil) })
		if err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
		if limit := uint64(8*len(b)) + 1<<20; grew > limit {
			t.Fatalf("Read(0, %d) of a %d-byte file allocated %d", n, len(b), grew)
		}
	})
}

// FuzzParseSidecars parses fuzzed Merlin .hdr and EMPAD .xml files: an
// error or a result, never a panic; a nav shape taken from either has
// positive dimensions.
func FuzzParseSidecars(f *testing.F) {
	f.Add([]byte("HDR,\t\nFrames in Acquisition (Number):\t16384\nFrames per Trigger (Number):\t128\nEnd\t\n"))
	f.Add([]byte("HDR,\nScanX:\t4\nScanY:\t-3\nEnd\n"))
	f.Add([]byte(`<root><raw_file filename="a.raw"/><scan_parameters mode="acquire"><scan_resolution_x>4</scan_resolution_x><scan_resolution_y>3</scan_resolution_y></scan_parameters></root>`))
	f.Add([]byte(`<root><raw_file filename="a.raw"/><type>series</type><count>0</count></root>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		positive := func(nav []int) {
			for _, d := range nav {
				if d < 1 {
					t.Fatalf("nav %v", nav)
				}
			}
		}
		if hdr, err := ParseMIBHDR(bytes.NewReader(b)); err == nil {
			if nav, err := mibNavFromHDR(hdr); err == nil {
				positive(nav)
			}
		}
		if info, err := ParseEMPADXML(bytes.NewReader(b)); err == nil {
			positive(info.Nav)
			positive(info.Search)
			if info.RawFile == "" {
				t.Fatal("no raw file")
			}
		}
		_, _ = ParseMRCHeader(b)
	})
}

// FuzzOpenDM4 opens fuzzed bytes as a .dm4 file: refused with a
// *DatasetError naming the file, or opened, and then its first frames
// read without error and with bounded allocation.
func FuzzOpenDM4(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "seed.dm4")
	writeDM4(f, p, reshapeT(f, mrcValues(f, 2, 4, 3, 5), 2, 2, 3, 5), true)
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(dmFile(dmData("x", []uint64{20, 7, 1 << 40}, nil)))
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.dm4")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ds *DM4Dataset
		var err error
		grew := allocDuring(func() { ds, err = OpenDM4(path, OpenOptions{}) })
		if limit := uint64(64*len(b)) + 256<<10; grew > limit {
			t.Fatalf("OpenDM4 of %d bytes allocated %d", len(b), grew)
		}
		if err != nil {
			var de *DatasetError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("OpenDM4: %T %v, want a *DatasetError naming the file", err, err)
			}
			return
		}
		n := min(dsProd(ds.NavShape()), 2)
		if _, err = ds.Read(context.Background(), 0, n, nil, nil); err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
	})
}

// FuzzOpenBLO opens fuzzed bytes as a .blo file: refused with a
// *DatasetError naming the file, or opened, and then its first frames
// read without error.
func FuzzOpenBLO(f *testing.F) {
	dir := f.TempDir()
	for _, magic := range []int{258, 259} {
		p := filepath.Join(dir, "seed.blo")
		writeBLO(f, p, mibValues(f, nd.Uint8, 8, 4, 5, 1), 2, 2, magic)
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "f.blo")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := OpenBLO(path, OpenOptions{})
		if err != nil {
			var de *DatasetError
			if !errors.As(err, &de) || de.Path != path {
				t.Fatalf("OpenBLO: %T %v, want a *DatasetError naming the file", err, err)
			}
			return
		}
		n := min(dsProd(ds.NavShape()), 2)
		if _, err = ds.Read(context.Background(), 0, n, nil, nil); err != nil {
			t.Fatalf("Read(0, %d): %v", n, err)
		}
	})
}
