package udfbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/cmplx"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/hdf5"
	"github.com/tessera-go/tessera/nd/npy"
	"github.com/tessera-go/tessera/sched"
)

// Every detector format is checked frame by frame against the array its
// generator encoded (checkDataset: whole reads, random ranges and sig
// regions, partitions × tiles through Read and a task's reader, spec
// round trip), and by SumUDF and SumSigUDF runs against sums of that
// array (checkSums).

func reshapeT(t testing.TB, a *nd.Array, shape ...int) *nd.Array {
	t.Helper()
	r, err := a.Reshape(shape...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// wantDatasetError checks that err is a *DatasetError whose message names
// path and contains each of the words.
func wantDatasetError(t *testing.T, err error, path string, words ...string) {
	t.Helper()
	var de *DatasetError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T), want a *DatasetError", err, err)
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

var mibCases = []struct {
	name string
	spec mibSpec
	dt   nd.DType
}{
	{"U08 1-bit", mibSpec{format: "U08", depth: 1, rows: 16, frames: []int{12}}, nd.Uint8},
	{"U08 6-bit", mibSpec{format: "U08", depth: 6, rows: 16, frames: []int{12}}, nd.Uint8},
	{"U16 12-bit", mibSpec{format: "U16", depth: 12, rows: 16, frames: []int{12}}, nd.Uint16},
	{"U32 24-bit", mibSpec{format: "U32", depth: 24, rows: 16, frames: []int{12}}, nd.Uint32},
	{"U64 24-bit", mibSpec{format: "U64", depth: 24, rows: 8, frames: []int{12}}, nd.Uint64},
	{"R64 1-bit", mibSpec{format: "R64", depth: 1, rows: 16, frames: []int{12}}, nd.Uint8},
	{"R64 6-bit", mibSpec{format: "R64", depth: 6, rows: 16, frames: []int{12}}, nd.Uint8},
	{"R64 12-bit", mibSpec{format: "R64", depth: 12, rows: 16, frames: []int{12}}, nd.Uint16},
	{"R64 24-bit", mibSpec{format: "R64", depth: 24, rows: 16, frames: []int{12}}, nd.Uint32},
	{"quad U16 12-bit", mibSpec{format: "U16", depth: 12, quad: true, rows: 16, frames: []int{12}}, nd.Uint16},
	{"quad R64 1-bit", mibSpec{format: "R64", depth: 1, quad: true, rows: 128, frames: []int{12}}, nd.Uint8},
	{"quad R64 6-bit", mibSpec{format: "R64", depth: 6, quad: true, rows: 16, frames: []int{12}}, nd.Uint8},
	{"quad R64 12-bit", mibSpec{format: "R64", depth: 12, quad: true, rows: 16, frames: []int{12}}, nd.Uint16},
	{"series of 12 single frames", mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, nd.Uint16},
	{"series of 3 files, R64 6-bit", mibSpec{format: "R64", depth: 6, rows: 16, frames: []int{5, 4, 3}, seq0: 40}, nd.Uint8},
	{"512-byte headers", mibSpec{format: "U16", depth: 12, rows: 16, frames: []int{12}, headerLen: 512}, nd.Uint16},
}

func TestMIBDataset(t *testing.T) {
	for i, c := range mibCases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			paths, want := writeMIB(t, dir, "scan", c.spec, c.dt)
			ds, err := OpenMIB(paths[len(paths)-1], OpenOptions{NavShape: []int{3, 4}})
			if err != nil {
				t.Fatal(err)
			}
			if got := ds.Files(); len(got) != len(paths) {
				t.Fatalf("files %v, want the %d of the series", got, len(paths))
			}
			checkFramed(t, ds, reshapeT(t, want, 3, 4, c.spec.rows, c.spec.rows), 2)
		})
	}
}

func TestMIBNavShape(t *testing.T) {
	dir := t.TempDir()
	spec := mibSpec{format: "U16", depth: 12, rows: 8, frames: make([]int, 12)}
	for i := range spec.frames {
		spec.frames[i] = 1
	}
	paths, want := writeMIB(t, dir, "scan", spec, nd.Uint16)
	for _, c := range []struct {
		name string
		hdr  [][2]string
		nav  []int
	}{
		{"ScanX and ScanY", [][2]string{{"ScanX", "4"}, {"ScanY", "3"}, {"Frames in Acquisition (Number)", "12"}, {"Frames per Trigger (Number)", "12"}}, []int{3, 4}},
		{"frames per trigger", [][2]string{{"Frames in Acquisition (Number)", "12"}, {"Frames per Trigger (Number)", "6"}}, []int{2, 6}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hdr := writeMIBHDR(t, dir, "scan", c.hdr)
			ds, err := OpenMIB(hdr, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkFramed(t, ds, reshapeT(t, want, append(dsClone(c.nav), 8, 8)...), 2)
		})
	}
	// No .hdr and no nav: a square when the count is one, else a line.
	ds, err := OpenMIB(paths[0], OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ds.NavShape()) != "[12]" {
		t.Errorf("nav %v from 12 frames, want [12]", ds.NavShape())
	}
	sq := t.TempDir()
	p16, want16 := writeMIB(t, sq, "sq", mibSpec{format: "U08", depth: 6, rows: 16, frames: []int{16}}, nd.Uint8)
	if ds, err = OpenMIB(p16[0], OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, reshapeT(t, want16, 4, 4, 16, 16), 2)
	// SingleFile: only the named file (the series is ordered by sequence
	// number, scan10.mib being the 10th frame).
	if ds, err = OpenMIB(filepath.Join(dir, "scan10.mib"), OpenOptions{SingleFile: true}); err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, reshapeT(t, sliceFrames(t, want, 9, 10), 1, 1, 8, 8), 2)
	// Fewer frames than the nav shape asks for.
	_, err = OpenMIB(paths[0], OpenOptions{NavShape: []int{4, 4}})
	wantDatasetError(t, err, paths[0], "12 frames", "16")
}

func sliceFrames(t testing.TB, a *nd.Array, lo, hi int) *nd.Array {
	t.Helper()
	sl := []nd.Slice1{{Start: lo, Stop: hi, Step: 1}}
	for _, s := range a.Shape()[1:] {
		sl = append(sl, nd.Slice1{Start: 0, Stop: s, Step: 1})
	}
	v, err := a.Slice(sl...)
	if err != nil {
		t.Fatal(err)
	}
	return v.Contiguous()
}

func TestMIBErrors(t *testing.T) {
	dir := t.TempDir()
	good := mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{4}}
	paths, _ := writeMIB(t, dir, "good", good, nd.Uint16)
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hdrWith := func(old, new string) []byte {
		b := append([]byte(nil), data...)
		i := strings.Index(string(b), old)
		copy(b[i:], new)
		return b
	}
	for _, c := range []struct {
		name  string
		b     []byte
		words []string
	}{
		{"wrong magic", append([]byte("MQ2"), data[3:]...), []string{"MQ1"}},
		{"empty", nil, []string{"MQ1"}},
		{"header size overflows", hdrWith(",00384,", ",99999,"), []string{"header size"}},
		{"header size larger than the file", hdrWith(",00384,", ",04000,"), []string{"header"}},
		{"unknown pixel format", hdrWith(",U16,", ",X16,"), []string{"X16"}},
		{"raw depth 5", hdrWith(",U16,", ",R64,")[:len(data)-5], []string{"counter depth"}},
		{"negative width", hdrWith(",0008,0008,", ",-008,0008,"), []string{"width"}},
		{"truncated to less than a frame", data[:500], []string{"no whole frame"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.b
			if c.name == "raw depth 5" {
				b = []byte(strings.Replace(string(b), ",12,", ",05,", 1))
			}
			p := write("bad.mib", b)
			_, err := OpenMIB(p, OpenOptions{NavShape: []int{1}, SingleFile: true})
			wantDatasetError(t, err, p, c.words...)
		})
	}
	// A series whose files disagree, or whose sequence numbers jump.
	sdir := t.TempDir()
	writeMIB(t, sdir, "s", mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{2, 2}}, nd.Uint16)
	other := filepath.Join(t.TempDir(), "o")
	os.Mkdir(other, 0o755)
	op, _ := writeMIB(t, other, "o", mibSpec{format: "U08", depth: 6, rows: 8, frames: []int{2}, seq0: 5}, nd.Uint8)
	b, _ := os.ReadFile(op[0])
	os.WriteFile(filepath.Join(sdir, "s3.mib"), b, 0o644)
	_, err = OpenMIB(filepath.Join(sdir, "s1.mib"), OpenOptions{NavShape: []int{4}})
	wantDatasetError(t, err, filepath.Join(sdir, "s3.mib"), "differs")
	gdir := t.TempDir()
	writeMIB(t, gdir, "g", mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{2}}, nd.Uint16)
	hole := filepath.Join(t.TempDir(), "h")
	os.Mkdir(hole, 0o755)
	hp, _ := writeMIB(t, hole, "h", mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{2}, seq0: 9}, nd.Uint16)
	b, _ = os.ReadFile(hp[0])
	os.WriteFile(filepath.Join(gdir, "g2.mib"), b, 0o644)
	_, err = OpenMIB(filepath.Join(gdir, "g.mib"), OpenOptions{NavShape: []int{4}})
	wantDatasetError(t, err, "g2.mib", "sequence number 9, want 3")
	// An .hdr without the nav keys, and one that is not an .hdr.
	hdr := writeMIBHDR(t, dir, "good", [][2]string{{"Frames in Acquisition (Number)", "4"}})
	_, err = OpenMIB(hdr, OpenOptions{})
	wantDatasetError(t, err, hdr, "Frames per Trigger")
	os.WriteFile(hdr, []byte("not a header\n"), 0o644)
	_, err = OpenMIB(hdr, OpenOptions{})
	wantDatasetError(t, err, hdr, "HDR")
	// A file truncated after open: Read fails naming it.
	ds, err := OpenMIB(paths[0], OpenOptions{NavShape: []int{4}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(paths[0], int64(len(data)/2)); err != nil {
		t.Fatal(err)
	}
	_, err = ds.Read(context.Background(), 0, 4, nil, nil)
	wantDatasetError(t, err, paths[0], "reading frame")
}

func TestEMPADDataset(t *testing.T) {
	for _, dt := range []nd.DType{nd.Float32, nd.Uint32} {
		t.Run(dt.String(), func(t *testing.T) {
			dir := t.TempDir()
			want := empadFrames(t, dt, 12)
			xml := writeEMPAD(t, dir, "scan_x4_y3", want, []int{3, 4}, []int{2, 2})
			opts := OpenOptions{DType: dt}
			ds, err := OpenEMPAD(xml, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkFramed(t, ds, reshapeT(t, want, 3, 4, 128, 128), 2)
			// The .raw with a nav shape; the xml with another nav.
			opts.NavShape = []int{12}
			if ds, err = OpenEMPAD(filepath.Join(dir, "scan_x4_y3.raw"), opts); err != nil {
				t.Fatal(err)
			}
			checkFramed(t, ds, want, 2)
			opts.NavShape = []int{2, 5}
			if ds, err = OpenEMPAD(xml, opts); err != nil {
				t.Fatal(err)
			}
			checkFramed(t, ds, reshapeT(t, sliceFrames(t, want, 0, 10), 2, 5, 128, 128), 2)
		})
	}
	dir := t.TempDir()
	// A file holding the search scan (2×3) where the acquire scan says 4×4.
	want := empadFrames(t, nd.Float32, 6)
	xml := writeEMPAD(t, dir, "search", want, []int{4, 4}, []int{2, 3})
	ds, err := OpenEMPAD(xml, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, reshapeT(t, want, 2, 3, 128, 128), 2)
	// A series (not a scan): nav (count,).
	xml = writeEMPAD(t, dir, "series", want, []int{6}, nil)
	if ds, err = OpenEMPAD(xml, OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, want, 2)
	// Errors: size of neither scan, a .raw without nav, a missing raw,
	// an xml without raw_file, a dtype EMPAD does not have.
	xml = writeEMPAD(t, dir, "short", want, []int{3, 3}, []int{1, 1})
	_, err = OpenEMPAD(xml, OpenOptions{})
	wantDatasetError(t, err, "short.raw", "acquire scan [3 3] needs 599040")
	_, err = OpenEMPAD(filepath.Join(dir, "short.raw"), OpenOptions{})
	wantDatasetError(t, err, "short.raw", "WithNavShape")
	os.Remove(filepath.Join(dir, "short.raw"))
	_, err = OpenEMPAD(xml, OpenOptions{})
	wantDatasetError(t, err, "short.raw", "raw file named by")
	bad := filepath.Join(dir, "bad.xml")
	os.WriteFile(bad, []byte("<root><type>scan</type></root>"), 0o644)
	_, err = OpenEMPAD(bad, OpenOptions{})
	wantDatasetError(t, err, bad, "raw_file")
	_, err = OpenEMPAD(filepath.Join(dir, "series.xml"), OpenOptions{DType: nd.Uint16})
	wantDatasetError(t, err, "series.xml", "float32 or uint32")
}

func TestMRCDataset(t *testing.T) {
	dir := t.TempDir()
	for _, mode := range []int{0, 1, 2, 3, 4, 6, 12} {
		for _, big := range []bool{false, true} {
			for _, next := range []int{0, 131} {
				name := fmt.Sprintf("mode%d-big%v-ext%d", mode, big, next)
				t.Run(name, func(t *testing.T) {
					want := mrcValues(t, mode, 6, 5, 7)
					path := filepath.Join(dir, name+".mrc")
					writeMRC(t, path, want, mode, next, big)
					ds, err := OpenMRC(path, OpenOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if h := ds.Header(); h.Mode != mode || h.BigEndian != big || h.NSymBT != next || h.ExtType != "FEI1" {
						t.Fatalf("header %+v", h)
					}
					checkFramed(t, ds, want, 2)
				})
			}
		}
	}
	want := mrcValues(t, 2, 6, 5, 7)
	path := filepath.Join(dir, "nav.mrc")
	writeMRC(t, path, want, 2, 0, false)
	ds, err := OpenMRC(path, OpenOptions{NavShape: []int{2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, reshapeT(t, want, 2, 3, 5, 7), 2)
}

func TestMRCErrors(t *testing.T) {
	dir := t.TempDir()
	want := mrcValues(t, 2, 4, 3, 5)
	good := filepath.Join(dir, "good.mrc")
	writeMRC(t, good, want, 2, 16, false)
	data, _ := os.ReadFile(good)
	with := func(off int, v []byte) []byte {
		b := append([]byte(nil), data...)
		copy(b[off:], v)
		return b
	}
	for _, c := range []struct {
		name  string
		b     []byte
		words []string
	}{
		{"short header", data[:1000], []string{"header"}},
		{"truncated data", data[:len(data)-1], []string{"shorter"}},
		{"NX zero", with(0, []byte{0, 0, 0, 0}), []string{"must be positive"}},
		{"mode 101", with(12, []byte{101, 0, 0, 0}), []string{"mode 101"}},
		{"NSYMBT past the file", with(92, []byte{0xff, 0xff, 0xff, 0x7f}), []string{"shorter"}},
		{"NSYMBT negative", with(92, []byte{0, 0, 0, 0x80}), []string{"negative"}},
		{"sizes overflow", with(0, []byte{0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f}), []string{"too large"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.mrc")
			os.WriteFile(p, c.b, 0o644)
			_, err := OpenMRC(p, OpenOptions{})
			wantDatasetError(t, err, p, c.words...)
		})
	}
	_, err := OpenMRC(good, OpenOptions{NavShape: []int{5}})
	wantDatasetError(t, err, good, "4 frames", "[5]")
}

// checkSums runs SumUDF and SumSigUDF over ds on Sync and Threaded, in
// several partitionings, whole-frame and row tiles, with and without a
// ROI, and compares with the sums of want (nav + sig) in complex128.
func checkSums(t *testing.T, ds Dataset, want *nd.Array) {
	t.Helper()
	sig := ds.SigShape()
	nav := ds.NavShape()
	nf, fp := dsProd(nav), dsProd(sig)
	w, err := want.AsType(nd.Complex128)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := nd.Values[complex128](w.Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	roi := make([]bool, nf)
	for i := range roi {
		roi[i] = i%3 != 1
	}
	roiArr, err := nd.FromSlice(roi, nav...)
	if err != nil {
		t.Fatal(err)
	}
	get := func(r *Results) []complex128 {
		a, err := r.RawData("intensity")
		if err != nil {
			t.Fatal(err)
		}
		if a, err = a.AsType(nd.Complex128); err != nil {
			t.Fatal(err)
		}
		v, err := nd.Values[complex128](a.Contiguous())
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	near := func(what string, got, want []complex128) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		for i := range want {
			if cmplx.Abs(got[i]-want[i]) > 1e-4*(1+cmplx.Abs(want[i])) {
				t.Fatalf("%s[%d] = %v, want %v (relative tolerance 1e-4: float32 sums)", what, i, got[i], want[i])
			}
		}
	}
	for _, useROI := range []bool{false, true} {
		wantSum := make([]complex128, fp)
		var wantSig []complex128
		for f := range nf {
			if useROI && !roi[f] {
				continue
			}
			var s complex128
			for k := range fp {
				wantSum[k] += vals[f*fp+k]
				s += vals[f*fp+k]
			}
			wantSig = append(wantSig, s)
		}
		for _, sc := range []sched.Scheduler{sched.Sync{}, sched.Threaded{}} {
			for _, parts := range []int{1, 3, 7} {
				for _, rows := range []int{0, 1 + sig[0]/3} {
					opts := []RunOption{WithScheduler(sc), WithPartitions(min(parts, nf))}
					if rows > 0 {
						opts = append(opts, WithTileShape(2, append([]int{rows}, sig[1:]...)))
					}
					if useROI {
						opts = append(opts, WithROI(roiArr))
					}
					res, err := Run(context.Background(), ds, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
					if err != nil {
						t.Fatalf("%T roi=%v parts=%d rows=%d: %v", sc, useROI, parts, rows, err)
					}
					what := fmt.Sprintf("%T roi=%v parts=%d rows=%d", sc, useROI, parts, rows)
					near(what+" SumUDF", get(res[0]), wantSum)
					near(what+" SumSigUDF", get(res[1]), wantSig)
				}
			}
		}
	}
}

func TestFormatSums(t *testing.T) {
	dir := t.TempDir()
	for _, i := range []int{2, 8, 12, 14} { // U16, R64 24-bit, quad R64 12-bit, a series of 3 files
		c := mibCases[i]
		t.Run("mib "+c.name, func(t *testing.T) {
			sub := filepath.Join(dir, fmt.Sprint(i))
			os.Mkdir(sub, 0o755)
			paths, want := writeMIB(t, sub, "scan", c.spec, c.dt)
			ds, err := OpenMIB(paths[0], OpenOptions{NavShape: []int{3, 4}})
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, ds, reshapeT(t, want, 3, 4, c.spec.rows, c.spec.rows))
		})
	}
	t.Run("empad", func(t *testing.T) {
		want := empadFrames(t, nd.Float32, 12)
		ds, err := OpenEMPAD(writeEMPAD(t, dir, "e", want, []int{3, 4}, nil), OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkSums(t, ds, reshapeT(t, want, 3, 4, 128, 128))
	})
	for _, mode := range []int{1, 4, 12} {
		t.Run(fmt.Sprint("mrc mode ", mode), func(t *testing.T) {
			want := mrcValues(t, mode, 12, 9, 11)
			p := filepath.Join(dir, fmt.Sprintf("m%d.mrc", mode))
			writeMRC(t, p, want, mode, 64, mode == 12)
			ds, err := OpenMRC(p, OpenOptions{NavShape: []int{4, 3}})
			if err != nil {
				t.Fatal(err)
			}
			checkSums(t, ds, reshapeT(t, want, 4, 3, 9, 11))
		})
	}
}

var registerTestFormat sync.Once

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	mibPaths, _ := writeMIB(t, dir, "m", mibSpec{format: "U16", depth: 12, rows: 8, frames: []int{9}}, nd.Uint16)
	hdr := writeMIBHDR(t, dir, "m", [][2]string{{"ScanX", "3"}, {"ScanY", "3"}})
	empadXML := writeEMPAD(t, dir, "e", empadFrames(t, nd.Float32, 4), []int{2, 2}, nil)
	mrc := filepath.Join(dir, "x.mrc")
	writeMRC(t, mrc, mrcValues(t, 2, 3, 4, 5), 2, 0, false)
	mrcNoExt := filepath.Join(dir, "x.data")
	b, _ := os.ReadFile(mrc)
	os.WriteFile(mrcNoExt, b, 0o644)
	dm4 := filepath.Join(dir, "s.dm4")
	writeDM4(t, dm4, reshapeT(t, mrcValues(t, 2, 6, 5, 7), 2, 3, 5, 7), true)
	npyPath := filepath.Join(dir, "a.npy")
	if err := npy.WriteFile(npyPath, formulaArray(t, nd.Float32, []int{2, 3, 4, 5}), false); err != nil {
		t.Fatal(err)
	}
	zarrPath := filepath.Join(dir, "z.zarr")
	writeZarr(t, zarrPath, formulaArray(t, nd.Uint16, []int{2, 2, 3, 3}), []int{1, 2, 3, 3}, "")
	rawPath := filepath.Join(dir, "plain.raw")
	writeRaw(t, rawPath, formulaArray(t, nd.Uint16, []int{2, 2, 3, 3}), 0)
	for _, c := range []struct {
		path string
		opts []OpenOption
		kind string
		nav  string
	}{
		{mibPaths[0], nil, KindMIB, "[3 3]"},
		{hdr, nil, KindMIB, "[3 3]"},
		{mibPaths[0], []OpenOption{WithNavShape(9)}, KindMIB, "[9]"},
		{empadXML, nil, KindEMPAD, "[2 2]"},
		{filepath.Join(dir, "e.raw"), nil, KindEMPAD, "[2 2]"},
		{mrc, nil, KindMRC, "[3]"},
		{mrcNoExt, nil, KindMRC, "[3]"},
		{dm4, nil, KindDM4, "[2 3]"},
		{npyPath, nil, KindNPY, "[2 3]"},
		{npyPath, []OpenOption{WithSigDims(3)}, KindNPY, "[2]"},
		{zarrPath, nil, KindZarr, "[2 2]"},
		{rawPath, []OpenOption{WithDType(nd.Uint16), WithNavShape(4), WithSigShape(3, 3)}, KindRaw, "[4]"},
	} {
		t.Run(filepath.Base(c.path)+fmt.Sprint(len(c.opts)), func(t *testing.T) {
			ds, err := Open(c.path, c.opts...)
			if err != nil {
				t.Fatal(err)
			}
			spec, err := ds.Spec()
			if err != nil {
				t.Fatal(err)
			}
			if spec.Kind != c.kind || fmt.Sprint(ds.NavShape()) != c.nav {
				t.Errorf("kind %s nav %v, want %s %s", spec.Kind, ds.NavShape(), c.kind, c.nav)
			}
			if _, err := ds.Read(context.Background(), 0, 1, nil, nil); err != nil {
				t.Error(err)
			}
		})
	}
	// HDF5: the dataset must be named; a build without the hdf5 tag says
	// so (errors.Is hdf5.ErrNotBuilt), one with it opens the dataset.
	h5 := filepath.Join("..", "nd", "hdf5", "testdata", "example.h5")
	if _, err := Open(h5); err == nil || !strings.Contains(err.Error(), "hdf5 (recognised, but:") || !strings.Contains(err.Error(), "WithDatasetName") {
		t.Errorf("hdf5 without a dataset name: %v", err)
	}
	if ds, err := Open(h5, WithDatasetName("/entry/data")); err != nil {
		if !errors.Is(err, hdf5.ErrNotBuilt) {
			t.Errorf("hdf5: %v", err)
		}
	} else if spec, _ := ds.Spec(); spec.Kind != KindHDF5 {
		t.Errorf("hdf5: kind %s", spec.Kind)
	}
	// A raw file without its shape: the error asks for it.
	_, err := Open(rawPath)
	if err == nil || !strings.Contains(err.Error(), "WithDType, WithNavShape and WithSigShape") {
		t.Errorf("raw without shape: %v", err)
	}
	var de *DatasetError
	if !errors.As(err, &de) || de.Path != rawPath {
		t.Errorf("raw without shape: %v does not wrap a *DatasetError naming the file", err)
	}
	// Nothing recognises a text file: every format is listed (but a
	// format another test registered, when tests run again in one
	// process with -count).
	txt := filepath.Join(dir, "notes.txt")
	os.WriteFile(txt, []byte("hello"), 0o644)
	_, err = Open(txt)
	var oe *OpenError
	if !errors.As(err, &oe) || len(oe.Tried) != len(Formats()) {
		t.Fatalf("text file: %v", err)
	}
	for _, f := range Formats() {
		if !strings.HasPrefix(f, "test-") && !strings.Contains(err.Error(), f+" (not recognised)") {
			t.Errorf("error %q does not list %s", err, f)
		}
	}
	// A file a format recognises but cannot open: its reason is given.
	badMIB := filepath.Join(dir, "bad.mib")
	os.WriteFile(badMIB, []byte("MQ1,000001,00384,nonsense"), 0o644)
	_, err = Open(badMIB)
	if err == nil || !strings.Contains(err.Error(), "mib (recognised, but:") || !strings.Contains(err.Error(), badMIB) {
		t.Errorf("bad mib: %v", err)
	}
	if _, err = Open(filepath.Join(dir, "missing.mib")); err == nil || !strings.Contains(err.Error(), "missing.mib") {
		t.Errorf("missing file: %v", err)
	}
	// A registered format is tried after the built-in ones.
	registerTestFormat.Do(func() {
		RegisterFormat("test-txt", func(path string, head []byte) bool {
			return hasExt(path, ".txt") && string(head) == "hello"
		}, func(path string, o OpenOptions) (Dataset, error) {
			return nil, fmt.Errorf("test format opens nothing")
		})
	})
	_, err = Open(txt)
	if err == nil || !strings.Contains(err.Error(), "test-txt (recognised, but: test format opens nothing)") {
		t.Errorf("registered format: %v", err)
	}
	if f := Formats(); f[len(f)-1] != "test-txt" {
		t.Errorf("formats %v: the registered one is not last", f)
	}
}

// checkFramed is checkDataset for datasets of small frames. Frames of
// more than 4096 elements get its checks with tiles of 4 KiB and more:
// its 1-byte tiles make 10^6 reads and oracle cuts of a 128×128 frame
// stack (80 s per dataset).
func checkFramed(t *testing.T, ds Dataset, data *nd.Array, sigDims int) {
	t.Helper()
	if dsProd(ds.SigShape()) <= 4096 {
		checkDataset(t, ds, data, sigDims)
		return
	}
	ctx := context.Background()
	sh := data.Shape()
	nav, sig := sh[:len(sh)-sigDims], sh[len(sh)-sigDims:]
	if fmt.Sprint(ds.NavShape()) != fmt.Sprint(nav) || fmt.Sprint(ds.SigShape()) != fmt.Sprint(sig) || ds.DType() != data.DType() {
		t.Fatalf("nav %v sig %v dtype %v, want %v %v %v", ds.NavShape(), ds.SigShape(), ds.DType(), nav, sig, data.DType())
	}
	navSize := dsProd(nav)
	check := func(what string, rd TileReader, start, n int, st, ss []int) {
		t.Helper()
		got, err := rd.Read(ctx, start, n, st, ss)
		if err != nil {
			t.Fatalf("%s Read(%d, %d, %v, %v): %v", what, start, n, st, ss, err)
		}
		if st == nil {
			st, ss = make([]int, len(sig)), sig
		}
		if err := sameArray(got.Contiguous(), oracleRead(t, data, sigDims, start, n, st, ss)); err != nil {
			t.Fatalf("%s Read(%d, %d, %v, %v): %v", what, start, n, st, ss, err)
		}
	}
	for f := range navSize { // frame by frame
		check("frame", ds, f, 1, nil, nil)
	}
	check("all", ds, 0, navSize, nil, nil)
	check("region", ds, navSize/3, navSize-navSize/3, []int{3, 5}, []int{sig[0] - 7, sig[1] - 6})
	for _, p := range []int{1, 2, 7} {
		b := Partitions(navSize, p)
		for _, target := range []int{4096, 20000, 1 << 20} {
			ts, depth := TileShape(sig, ds.DType(), target, 0)
			for i := range p {
				tiles, err := TileRegions(b[i], b[i+1], sig, ts, depth)
				if err != nil {
					t.Fatal(err)
				}
				rd := taskReader(ds)
				if h, ok := rd.(frameHinter); ok {
					h.hintFrames(b[i+1])
				}
				for _, tl := range tiles {
					check("task reader", rd, tl.Start, tl.N, tl.SigStart, tl.SigShape)
					if tl.Start == b[i] {
						check("dataset", ds, tl.Start, tl.N, tl.SigStart, tl.SigShape)
					}
				}
				if c, ok := rd.(interface{ Close() error }); ok && rd != TileReader(ds) {
					c.Close()
				}
			}
		}
	}
	for _, c := range [][2]int{{-1, 1}, {navSize, 1}, {0, navSize + 1}} {
		if _, err := ds.Read(ctx, c[0], c[1], nil, nil); err == nil {
			t.Errorf("Read(%d, %d): no error", c[0], c[1])
		}
	}
	spec, err := ds.Spec()
	if err != nil {
		t.Fatal(err)
	}
	ds2, err := OpenSpec(spec)
	if err != nil {
		t.Fatalf("OpenSpec: %v", err)
	}
	check("reopened", ds2, navSize/3, navSize-navSize/3, nil, nil)
}

func TestDM4Dataset(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		dt      nd.DType
		shape   []int
		swapped bool
	}{
		{"4-D float32", nd.Float32, []int{3, 4, 5, 7}, true},
		{"4-D uint16", nd.Uint16, []int{2, 3, 9, 6}, true},
		{"3-D int16 stack", nd.Int16, []int{6, 5, 7}, false},
		{"4-D int32", nd.Int32, []int{2, 2, 8, 8}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := mrcValues(t, 2, dsProd(c.shape)/c.shape[len(c.shape)-1], 1, c.shape[len(c.shape)-1])
			want, err := want.AsType(c.dt)
			if err != nil {
				t.Fatal(err)
			}
			want = reshapeT(t, want, c.shape...)
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".dm4")
			writeDM4(t, path, want, c.swapped)
			ds, err := OpenDM4(path, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.Image().Index != 1 {
				t.Errorf("image %d read, want 1 (the thumbnail is 0)", ds.Image().Index)
			}
			checkFramed(t, ds, want, 2)
			if len(c.shape) == 4 {
				checkSums(t, ds, want)
			}
		})
	}
	// Errors: not C order, truncated, data of another size than the
	// dimensions, another version, a tag of an unknown kind.
	want := reshapeT(t, mrcValues(t, 2, 12, 5, 7), 3, 4, 5, 7)
	path := filepath.Join(dir, "f.dm4")
	writeDM4(t, path, want, false)
	_, err := OpenDM4(path, OpenOptions{})
	wantDatasetError(t, err, path, "not in C order")
	writeDM4(t, path, want, true)
	good, _ := os.ReadFile(path)
	for _, c := range []struct {
		name  string
		b     []byte
		words []string
	}{
		{"truncated", good[:len(good)-600], []string{"unexpected EOF"}},
		{"version 3", append([]byte{0, 0, 0, 3}, good[4:]...), []string{"version 3"}},
		{"empty", nil, []string{"EOF"}},
		{"no image list", dmFile(dmU32("x", 1)), []string{"no ImageList"}},
		{"data size", dmFile(dmDir("ImageList", dmImage(want, true, 3, 4, 5, 8))), []string{"data of 1680 bytes for shape [3 4 5 8]"}},
		{"tag kind", dmFile(dmEntry(7, "x", nil)), []string{"kind 7"}},
		{"type description", dmFile(dmData("x", []uint64{20, 99, 4}, nil)), []string{"type description [20 99 4]"}},
		{"array size overflows", dmFile(dmData("x", []uint64{20, 7, 1 << 62}, nil)), []string{"overflows"}},
		{"array past the file", dmFile(dmData("x", []uint64{20, 7, 1 << 40}, nil)), []string{"runs past"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.dm4")
			os.WriteFile(p, c.b, 0o644)
			_, err := OpenDM4(p, OpenOptions{})
			wantDatasetError(t, err, p, c.words...)
		})
	}
}

func TestBLODataset(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		dt    nd.DType
		magic int
	}{{"uint8 magic 258", nd.Uint8, 258}, {"uint8 magic 259", nd.Uint8, 259}, {"uint16", nd.Uint16, 259}} {
		t.Run(c.name, func(t *testing.T) {
			want := mibValues(t, c.dt, 8*c.dt.Size(), 12, 9, uint64(c.magic))
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".blo")
			writeBLO(t, path, want, 3, 4, c.magic)
			ds, err := OpenBLO(path, OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkFramed(t, ds, reshapeT(t, want, 3, 4, 9, 9), 2)
			checkSums(t, ds, reshapeT(t, want, 3, 4, 9, 9))
		})
	}
	want := mibValues(t, nd.Uint8, 8, 12, 9, 1)
	path := filepath.Join(dir, "f.blo")
	writeBLO(t, path, want, 3, 4, 259)
	good, _ := os.ReadFile(path)
	with := func(off int, v ...byte) []byte {
		b := append([]byte(nil), good...)
		copy(b[off:], v)
		return b
	}
	for _, c := range []struct {
		name  string
		b     []byte
		words []string
	}{
		{"truncated", good[:len(good)-1], []string{"shorter"}},
		{"short header", good[:100], []string{"header"}},
		{"magic", with(6, 1, 1), []string{"magic 257"}},
		{"id", with(0, 'X'), []string{"IMGBLO"}},
		{"side 0", with(20, 0, 0), []string{"must be positive"}},
		{"patterns in the header", with(12, 10, 0, 0, 0), []string{"inside the header"}},
		{"patterns past the file", with(12, 0xff, 0xff, 0xff, 0x7f), []string{"shorter"}},
		{"bit depth 12", []byte(strings.Replace(string(good), "Depth: 8 bits", "Depth: 12bits", 1)), []string{"bit depth"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "bad.blo")
			os.WriteFile(p, c.b, 0o644)
			_, err := OpenBLO(p, OpenOptions{})
			wantDatasetError(t, err, p, c.words...)
		})
	}
	ds, err := Open(path, WithNavShape(12))
	if err != nil {
		t.Fatal(err)
	}
	if spec, _ := ds.Spec(); spec.Kind != KindBLO || fmt.Sprint(ds.NavShape()) != "[12]" {
		t.Errorf("Open: %v %v", spec.Kind, ds.NavShape())
	}
}

// TestFramedReaderAllocs: a task reader's tiles cut from its window (every
// sig region of the frames it holds) allocate nothing; a window refill
// allocates at most one closure.
func TestFramedReaderAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	dir := t.TempDir()
	paths, _ := writeMIB(t, dir, "a", mibSpec{format: "R64", depth: 12, rows: 16, frames: []int{12}}, nd.Uint16)
	ds, err := OpenMIB(paths[0], OpenOptions{NavShape: []int{12}})
	if err != nil {
		t.Fatal(err)
	}
	rd := ds.TaskReader().(*framedReader)
	defer rd.Close()
	ctx := context.Background()
	// Regions given, as a task gives them (nil means the whole frame
	// and costs checkRead two slices).
	st, sh, whole, sig := []int{4, 0}, []int{4, 16}, []int{0, 0}, []int{16, 16}
	if _, err := rd.Read(ctx, 0, 12, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := rd.Read(ctx, 3, 2, st, sh); err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Read(ctx, 5, 7, whole, sig); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("tiles inside the window: %v allocations, want 0", n)
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		i = (i + 5) % 12
		if _, err := rd.Read(ctx, i, 1, st, sh); err != nil { // a window of the frame
			t.Fatal(err)
		}
		rd.window = nil // the next read refills
	}); n > 1 {
		t.Errorf("window refill: %v allocations, want at most 1", n)
	}
}

// TestSyncOffset: a positive sync offset skips stored frames, a negative
// one puts frames of zeros first (LiberTEM's sync_offset), through Read,
// task readers, runs and the spec; stored frames too few for the shifted
// nav are refused.
func TestSyncOffset(t *testing.T) {
	dir := t.TempDir()
	paths, want := writeMIB(t, dir, "s", mibSpec{format: "R64", depth: 12, rows: 8, frames: []int{5, 7}}, nd.Uint16)
	// 3 frames of zeros, then frames 0..8: the bytes put together.
	shifted, err := nd.FromBytes(nd.Uint16, []int{12, 8, 8},
		append(make([]byte, 3*8*8*2), sliceFrames(t, want, 0, 9).AppendBytes(nil, false)...), false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sync int
		nav  []int
		want *nd.Array
	}{
		{2, []int{2, 5}, sliceFrames(t, want, 2, 12)},
		{-3, []int{3, 4}, shifted},
	} {
		t.Run(fmt.Sprint(c.sync), func(t *testing.T) {
			ds, err := Open(paths[0], WithNavShape(c.nav...), WithSyncOffset(c.sync))
			if err != nil {
				t.Fatal(err)
			}
			w := reshapeT(t, c.want, append(dsClone(c.nav), 8, 8)...)
			checkFramed(t, ds, w, 2)
			checkSums(t, ds, w)
			// One reader, late frames first: the window memory they
			// leave is reused for the first frames (zeros or not).
			rd := ds.(TaskReaderDataset).TaskReader()
			defer rd.(io.Closer).Close()
			for _, st := range []int{dsProd(c.nav) - 4, 0} {
				rd.(frameHinter).hintFrames(st + 4) // windows of 4 frames
				got, err := rd.Read(context.Background(), st, 4, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := sameArray(got.Contiguous(), sliceFrames(t, c.want, st, st+4)); err != nil {
					t.Fatalf("frames [%d, %d) after others: %v", st, st+4, err)
				}
			}
		})
	}
	_, err = OpenMIB(paths[0], OpenOptions{NavShape: []int{12}, SyncOffset: 1})
	wantDatasetError(t, err, paths[0], "12 frames stored, fewer than the 13", "sync offset 1")
	mrc := filepath.Join(dir, "m.mrc")
	mw := mrcValues(t, 2, 6, 3, 4)
	writeMRC(t, mrc, mw, 2, 0, false)
	ds, err := OpenMRC(mrc, OpenOptions{NavShape: []int{4}, SyncOffset: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkFramed(t, ds, sliceFrames(t, mw, 2, 6), 2)
}

// FormatFixture is a detector file opened, with the array it holds.
type FormatFixture struct {
	Name string
	DS   Dataset
	Data *nd.Array
}

// FormatFixtures writes a file of each detector format of small frames
// into dir (EMPAD's 128×128 frames are left to checkFramed) and opens it,
// for udftest's conformance suite, which package udfbridge_test runs
// (formats_udftest_test.go).
func FormatFixtures(t *testing.T, dir string) []FormatFixture {
	t.Helper()
	var out []FormatFixture
	for _, i := range []int{2, 7, 8, 12, 14} {
		c := mibCases[i]
		sub := filepath.Join(dir, fmt.Sprint("mib", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		paths, want := writeMIB(t, sub, "s", c.spec, c.dt)
		ds, err := OpenMIB(paths[0], OpenOptions{NavShape: []int{3, 4}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, FormatFixture{"mib " + c.name, ds, reshapeT(t, want, 3, 4, c.spec.rows, c.spec.rows)})
	}
	for _, mode := range []int{1, 3, 12} {
		want := mrcValues(t, mode, 6, 5, 7)
		p := filepath.Join(dir, fmt.Sprintf("m%d.mrc", mode))
		writeMRC(t, p, want, mode, 16, mode == 3)
		ds, err := OpenMRC(p, OpenOptions{NavShape: []int{2, 3}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, FormatFixture{fmt.Sprint("mrc mode ", mode), ds, reshapeT(t, want, 2, 3, 5, 7)})
	}
	dm := reshapeT(t, mrcValues(t, 2, 12, 5, 7), 3, 4, 5, 7)
	p := filepath.Join(dir, "d.dm4")
	writeDM4(t, p, dm, true)
	ds, err := OpenDM4(p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, FormatFixture{"dm4", ds, dm})
	blo := mibValues(t, nd.Uint16, 16, 12, 6, 3)
	p = filepath.Join(dir, "b.blo")
	writeBLO(t, p, blo, 3, 4, 259)
	bds, err := OpenBLO(p, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, FormatFixture{"blo", bds, reshapeT(t, blo, 3, 4, 6, 6)})
}
