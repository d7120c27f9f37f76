package udfbridge

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// BenchmarkFormats runs SumUDF + SumSigUDF (and, in the masks16 rows,
// ApplyMasksUDF with 16 dense float32 masks too) over a file of each
// detector format on Threaded, and reports GB/s of the file's bytes
// beside a reference measured in the same benchmark on the same file:
// the file read from the page cache with ReadAt in 4 MiB pieces on all
// cores, nothing computed (what streaming the bytes costs at best; a
// first version also summed them as uint16, in a scalar loop slower than
// SumUDF's, which put raw files at 3× the reference). of-ref is the
// ratio.
//
// Sizes: TESSERA_FMT_NAV × TESSERA_FMT_NAV frames (default 32) of 256×256
// (EMPAD: 128×128, its detector). The files are written once into
// $TMPDIR and kept for later runs.
func BenchmarkFormats(b *testing.B) {
	nav := envInt("TESSERA_FMT_NAV", 32)
	for _, f := range benchFormats {
		for _, masks := range []bool{false, true} {
			name := f.name
			if masks {
				name += "/masks16"
			} else {
				name += "/sum"
			}
			b.Run(name, func(b *testing.B) { benchmarkFormat(b, f, nav, masks) })
		}
	}
}

type benchFormat struct {
	name  string
	write func(path string, nav int) error
	open  func(path string, nav int) (Dataset, error)
}

var benchFormats = []benchFormat{
	{"raw-u16", func(p string, nav int) error {
		return writeBenchFrames(p, nil, nav*nav, 0, func(w *bufio.Writer, i int) { writeU16Frame(w, i, 256*256, binary.LittleEndian) })
	}, func(p string, nav int) (Dataset, error) {
		return OpenRaw(p, nd.Uint16, []int{nav, nav}, []int{256, 256}, 0)
	}},
	{"mib-u16", func(p string, nav int) error {
		return writeBenchMIB(p, nav, mibSpec{format: "U16", depth: 12, rows: 256})
	}, openBenchMIB},
	{"mib-r12", func(p string, nav int) error {
		return writeBenchMIB(p, nav, mibSpec{format: "R64", depth: 12, rows: 256})
	}, openBenchMIB},
	{"mib-quad-r12", func(p string, nav int) error {
		return writeBenchMIB(p, nav, mibSpec{format: "R64", depth: 12, rows: 256, quad: true})
	}, openBenchMIB},
	{"mib-r1", func(p string, nav int) error {
		return writeBenchMIB(p, nav, mibSpec{format: "R64", depth: 1, rows: 256})
	}, openBenchMIB},
	{"empad-f32", func(p string, nav int) error {
		footer := make([]byte, 2*empadSide*empadItemBytes)
		return writeBenchFrames(p, nil, nav*nav, 0, func(w *bufio.Writer, i int) {
			for k := range empadSide * empadSide {
				binary.Write(w, binary.LittleEndian, float32((i*31+k)%4093))
			}
			w.Write(footer)
		})
	}, func(p string, nav int) (Dataset, error) {
		return OpenEMPAD(p, OpenOptions{NavShape: []int{nav, nav}})
	}},
	{"mrc-u16", func(p string, nav int) error {
		return writeBenchMRC(p, nav, 6, binary.LittleEndian)
	}, openBenchMRC},
	{"mrc-u16-big", func(p string, nav int) error {
		return writeBenchMRC(p, nav, 6, binary.BigEndian)
	}, openBenchMRC},
}

func openBenchMIB(p string, nav int) (Dataset, error) {
	return OpenMIB(p, OpenOptions{NavShape: []int{nav, nav}, SingleFile: true})
}

func openBenchMRC(p string, nav int) (Dataset, error) {
	return OpenMRC(p, OpenOptions{NavShape: []int{nav, nav}})
}

// writeU16Frame writes n uint16 values of frame i in byte order bo.
func writeU16Frame(w *bufio.Writer, i, n int, bo binary.ByteOrder) {
	var b [2]byte
	for k := range n {
		bo.PutUint16(b[:], uint16((i*31+k)%4093))
		w.Write(b[:])
	}
}

// writeBenchFrames writes head, then frames 0..n-1 by frame, to path
// (through a temporary file, renamed when complete).
func writeBenchFrames(path string, head []byte, n int, _ int, frame func(w *bufio.Writer, i int)) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 4<<20)
	w.Write(head)
	for i := range n {
		frame(w, i)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

func writeBenchMIB(path string, nav int, s mibSpec) error {
	chips, layout, width, height := 1, "1x1", s.rows, s.rows
	if s.quad {
		chips, layout, width, height = 4, "2x2G", 2*s.rows, s.rows/2
	}
	hl := 384
	if s.quad {
		hl = 768
	}
	px := make([]uint64, s.rows*s.rows)
	return writeBenchFrames(path, nil, nav*nav, 0, func(w *bufio.Writer, i int) {
		for k := range px {
			px[k] = uint64(i*31+k) % (1 << s.depth)
		}
		w.Write(mibHeaderText(i+1, hl, chips, width, height, s.format, layout, s.depth))
		w.Write(mibEncodeFrame(s, px))
	})
}

func writeBenchMRC(path string, nav, mode int, bo binary.ByteOrder) error {
	h := make([]byte, mrcHeaderBytes)
	bo.PutUint32(h[0:], 256)
	bo.PutUint32(h[4:], 256)
	bo.PutUint32(h[8:], uint32(nav*nav))
	bo.PutUint32(h[12:], uint32(mode))
	copy(h[208:], "MAP ")
	if bo == binary.BigEndian {
		copy(h[212:], []byte{0x11, 0x11})
	} else {
		copy(h[212:], []byte{0x44, 0x44})
	}
	return writeBenchFrames(path, h, nav*nav, 0, func(w *bufio.Writer, i int) { writeU16Frame(w, i, 256*256, bo) })
}

func benchmarkFormat(b *testing.B, f benchFormat, nav int, masks bool) {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tessera-bench-%s-%d", f.name, nav))
	if _, err := os.Stat(path); err != nil {
		if err := f.write(path, nav); err != nil {
			b.Fatal(err)
		}
	}
	ds, err := f.open(path, nav)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	udfs := []UDF{&SumUDF{}, &SumSigUDF{}}
	if masks {
		sig := ds.SigShape()
		rng := rand.New(rand.NewPCG(16, 1))
		v := make([]float32, 16*dsProd(sig))
		for i := range v {
			v[i] = rng.Float32()
		}
		m, err := nd.FromSlice(v, append([]int{16}, sig...)...)
		if err != nil {
			b.Fatal(err)
		}
		mk, err := DenseMasks(m, sig)
		if err != nil {
			b.Fatal(err)
		}
		udfs = append(udfs, &ApplyMasksUDF{Masks: mk})
	}
	ref := fileStreamGBs(b, path)
	ctx := context.Background()
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := Run(ctx, ds, udfs, WithScheduler(sched.Threaded{})); err != nil {
			b.Fatal(err)
		}
	}
	gbs := float64(st.Size()) * float64(b.N) / time.Since(start).Seconds() / 1e9
	b.ReportMetric(gbs, "GB/s")
	b.ReportMetric(ref, "ref-GB/s")
	b.ReportMetric(gbs/ref, "of-ref")
}

// fileStreamGBs reads the file at path from the page cache with ReadAt
// in 4 MiB pieces on GOMAXPROCS goroutines: best GB/s of 3 (after one
// pass that warms the cache).
func fileStreamGBs(b *testing.B, path string) float64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		b.Fatal(err)
	}
	size := st.Size()
	const piece = 4 << 20
	p := runtimeProcs()
	bufs := make([][]byte, p)
	for k := range bufs {
		bufs[k] = make([]byte, piece)
	}
	pass := func() {
		var wg sync.WaitGroup
		for k := range p {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for off := int64(k) * piece; off < size; off += int64(p) * piece {
					f.ReadAt(bufs[k], off)
				}
			}()
		}
		wg.Wait()
	}
	pass()
	best := math.Inf(1)
	for range 3 {
		t0 := time.Now()
		pass()
		best = min(best, time.Since(t0).Seconds())
	}
	return float64(size) / best / 1e9
}
