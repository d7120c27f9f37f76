package zarr

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// TestReadV3HandWritten reads a v3 store whose metadata is
// v3TransposeJSON and whose chunks this test encodes itself, following
// the specification with the standard library (encoding/binary,
// compress/gzip): transpose by order [2, 0, 1], big-endian bytes, gzip.
// Debian's zarr-python 2.13 cannot write final-spec v3, so this and the Go
// round trips are the v3 oracles.
func TestReadV3HandWritten(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(v3TransposeJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	shape := []int{3, 4, 5}
	chunk := []int{2, 4, 3}
	order := []int{2, 0, 1}
	value := func(g [3]int) float32 { return float32(0.5*float64((g[0]*4+g[1])*5+g[2]) - 3.25) }
	fillBits := uint32(0x7fc00000)
	written := [][3]int{{0, 0, 0}, {1, 0, 1}, {0, 0, 1}} // chunk (1, 0, 0) stays missing
	for _, ci := range written {
		// Stored array t has shape chunk[order]: t[a][b][c] = chunk[idx]
		// with idx[order[0]] = a, idx[order[1]] = b, idx[order[2]] = c.
		ts := [3]int{chunk[order[0]], chunk[order[1]], chunk[order[2]]}
		var raw []byte
		for a := 0; a < ts[0]; a++ {
			for b := 0; b < ts[1]; b++ {
				for c := 0; c < ts[2]; c++ {
					var local [3]int
					local[order[0]], local[order[1]], local[order[2]] = a, b, c
					var g [3]int
					bits := fillBits
					in := true
					for ax := range g {
						g[ax] = ci[ax]*chunk[ax] + local[ax]
						in = in && g[ax] < shape[ax]
					}
					if in {
						bits = math.Float32bits(value(g))
					}
					raw = binary.BigEndian.AppendUint32(raw, bits)
				}
			}
		}
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, 1)
		zw.Write(raw)
		zw.Close()
		p := filepath.Join(dir, "c", itoa(ci[0]), itoa(ci[1]), itoa(ci[2]))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Meta().Version != 3 || a.DType() != nd.Float32 || a.Meta().Compressor != "gzip" || a.Meta().Order != "" {
		t.Fatalf("meta %+v", a.Meta())
	}
	if f, ok := a.Fill().(float32); !ok || math.Float32bits(f) != fillBits {
		t.Fatalf("Fill() = %T %v, want float32 NaN 0x7fc00000", a.Fill(), a.Fill())
	}
	v := make([]float32, 60)
	for i := range v {
		v[i] = float32(0.5*float64(i) - 3.25)
	}
	want, _ := nd.FromSlice(v, shape...)
	if missing := checkChunks(t, a, want, a.Fill()); missing != 1 {
		t.Errorf("%d chunks missing, want 1", missing)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestParseMetaV3Errors(t *testing.T) {
	base := v3TransposeJSON
	tests := []struct{ name, old, new, want string }{
		{"format", `"zarr_format": 3`, `"zarr_format": 2`, "zarr_format is not 3"},
		{"group", `"node_type": "array"`, `"node_type": "group"`, "node_type"},
		{"dtype", `"float32"`, `"float16"`, "unsupported v3 data_type"},
		{"grid", `"name": "regular"`, `"name": "rectilinear"`, "chunk_grid"},
		{"keys", `"name": "default"`, `"name": "fancy"`, "chunk_key_encoding"},
		{"codec", `"name": "gzip"`, `"name": "crc32c"`, `codec "crc32c" is not supported`},
		{"no-bytes", `{"name": "bytes", "configuration": {"endian": "big"}},`, ``, "out of place"},
		{"perm", `[2, 0, 1]`, `[2, 2, 1]`, "not a permutation"},
		{"endian", `"endian": "big"`, `"endian": "middle"`, "endian"},
		{"fill", `"0x7fc00000"`, `null`, "requires a fill value"},
		{"json", `"shape": [3, 4, 5]`, `"shape": [3, 4, 5`, "bad JSON"},
		{"sharding", `"name": "transpose"`, `"name": "sharding_indexed"`, "sharding_indexed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Replace([]byte(base), []byte(tt.old), []byte(tt.new), 1)
			if bytes.Equal(b, []byte(base)) {
				t.Fatalf("patch %q not applied", tt.old)
			}
			_, _, err := parseMetaV3(b)
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(tt.want)) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
