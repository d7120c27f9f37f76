package blosc

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fixture is one row of testdata/manifest.tsv (see testdata/gen.py).
type fixture struct {
	name   string
	ts     int
	nbytes int
	expect string // "ok", "noise", or words the error must contain
}

func readManifest(t testing.TB, file string) []fixture {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []fixture
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) < 3 {
			t.Fatalf("%s: bad line %q", file, line)
		}
		ts, err1 := strconv.Atoi(cols[1])
		n, err2 := strconv.Atoi(cols[2])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad line %q", file, line)
		}
		row := fixture{name: cols[0], ts: ts, nbytes: n}
		if len(cols) > 3 {
			row.expect = cols[3]
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// payload recomputes gen.py's formula: element i is 42 in every third run of
// 4096 elements and (i*2654435761) % 1000 elsewhere, written as ts-byte
// little-endian integers (wrapping), cut to nbytes.
func payload(ts, nbytes int) []byte {
	n := (nbytes + ts - 1) / ts
	out := make([]byte, n*ts)
	var buf [8]byte
	for i := range n {
		v := uint64(i) * 2654435761 % 1000
		if (i/4096)%3 == 1 {
			v = 42
		}
		binary.LittleEndian.PutUint64(buf[:], v)
		copy(out[i*ts:], buf[:ts])
	}
	return out[:nbytes]
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func want(t testing.TB, f fixture) []byte {
	if f.expect == "noise" {
		w := make([]byte, f.nbytes)
		copy(w, readFixture(t, "noise.bin"))
		return w
	}
	return payload(f.ts, f.nbytes)
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestFixtures(t *testing.T) {
	for _, f := range readManifest(t, "manifest.tsv") {
		t.Run(f.name, func(t *testing.T) {
			src := readFixture(t, f.name+".blosc")
			got, err := Decompress(src)
			if f.expect != "ok" && f.expect != "noise" {
				if err == nil {
					t.Fatalf("Decompress = %d bytes, nil error; want an error naming %q", len(got), f.expect)
				}
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), f.expect) {
					t.Fatalf("Decompress error = %v; want ErrUnsupported naming %q", err, f.expect)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T is not *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decompress: %v", err)
			}
			w := want(t, f)
			if !bytes.Equal(got, w) {
				t.Fatalf("Decompress: %d bytes, want %d; first difference at byte %d", len(got), len(w), firstDiff(got, w))
			}
			// DecompressInto a larger destination writes the same prefix.
			dst := bytes.Repeat([]byte{0xAA}, f.nbytes+7)
			n, err := DecompressInto(dst, src)
			if err != nil || n != f.nbytes {
				t.Fatalf("DecompressInto = %d, %v; want %d, nil", n, err, f.nbytes)
			}
			if !bytes.Equal(dst[:n], w) || !bytes.Equal(dst[n:], bytes.Repeat([]byte{0xAA}, 7)) {
				t.Fatalf("DecompressInto wrote wrong bytes (first difference at %d)", firstDiff(dst[:n], w))
			}
		})
	}
}

// TestFixtureVariants checks that the fixtures cover what they claim to: the
// header fields that select the decoder's paths.
func TestFixtureVariants(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range readManifest(t, "manifest.tsv") {
		if f.expect != "ok" && f.expect != "noise" {
			continue
		}
		h, err := ReadInfo(readFixture(t, f.name+".blosc"))
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		seen["codec "+h.Codec] = true
		if h.Memcpyed {
			seen["memcpyed"] = true
			continue
		}
		nblocks := (h.NBytes + h.BlockSize - 1) / h.BlockSize
		if nblocks > 1 {
			seen["several blocks"] = true
		}
		if h.NBytes%h.BlockSize != 0 {
			seen["leftover block"] = true
		}
		if h.NBytes%h.TypeSize != 0 {
			seen["ragged"] = true
		}
		if h.DontSplit {
			seen["dont-split flag"] = true
		} else if h.TypeSize > 1 && h.BlockSize/h.TypeSize >= minBufferSize {
			seen["split "+h.Codec] = true
		}
		if h.Shuffle && h.TypeSize > 1 {
			seen["shuffle"] = true
		}
	}
	for _, k := range []string{"codec lz4", "codec zlib", "codec zstd", "memcpyed", "several blocks",
		"leftover block", "ragged", "dont-split flag", "split lz4", "split zlib", "split zstd", "shuffle"} {
		if !seen[k] {
			t.Errorf("no fixture has %s", k)
		}
	}
}

func TestLZ4Fixtures(t *testing.T) {
	for _, f := range readManifest(t, "lz4_manifest.tsv") {
		t.Run(f.name, func(t *testing.T) {
			src := readFixture(t, f.name+".lz4")
			w := payload(f.ts, f.nbytes)
			got := make([]byte, f.nbytes)
			n, err := decodeLZ4(got, src)
			if err != nil || n != f.nbytes {
				t.Fatalf("decodeLZ4 = %d, %v; want %d, nil", n, err, f.nbytes)
			}
			if !bytes.Equal(got, w) {
				t.Fatalf("first difference at byte %d", firstDiff(got, w))
			}
			// One byte less room: an error, not a write past the end.
			if f.nbytes > 0 {
				if n, err := decodeLZ4(make([]byte, f.nbytes-1), src); err == nil {
					t.Fatalf("decodeLZ4 into %d bytes = %d, nil; want an overflow error", f.nbytes-1, n)
				}
			}
		})
	}
}
