package zarr

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/tessera-go/tessera/freelist"
	"github.com/tessera-go/tessera/nd"
)

// TestReadChunkWith reads every chunk of stores written with each
// compressor, and of the python-written blosc fixtures, with one Scratch
// on a free list and one reused chunk buffer: the values are ReadChunk's
// (the oracle: the formula the store was written from), a compressed
// store's reads take their file buffers from the list and give them back,
// and an uncompressed store's take none.
func TestReadChunkWith(t *testing.T) {
	for _, c := range []string{"", "zlib", "gzip", "zstd"} {
		t.Run("compressor="+c, func(t *testing.T) {
			shape, chunks := []int{300, 260}, []int{128, 128}
			a, err := Create(filepath.Join(t.TempDir(), "a.zarr"), Meta{Shape: shape, Chunks: chunks, DType: nd.Float64, Compressor: c, Level: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := formula(t, nd.Float64, shape...)
			forEachChunk(a, func(idx []int) {
				blk, _ := want.Slice(chunkSlices(a, idx)...)
				if err := a.WriteChunk(idx, blk); err != nil {
					t.Fatal(err)
				}
			})
			fl := freelist.New(64 << 20)
			s := &Scratch{Buffers: fl}
			buf, err := nd.Zeros(nd.Float64, a.StoredChunkSize())
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			forEachChunk(a, func(idx []int) {
				n++
				got, err := a.ReadChunkWith(idx, buf, s)
				if err != nil {
					t.Fatalf("chunk %v: %v", idx, err)
				}
				w, _ := want.Slice(chunkSlices(a, idx)...)
				if !bytes.Equal(cbytes(got), cbytes(w)) {
					t.Fatalf("chunk %v differs from the values written", idx)
				}
			})
			st := fl.Stats()
			switch {
			case c == "" && st.Gets != 0:
				t.Fatalf("uncompressed store used the list: %+v", st)
			case c != "" && (st.Gets == 0 || st.Gets > int64(n) || st.Puts != st.Gets || st.Hits == 0 || st.Held == 0):
				// Files under freelist.MinSize (edge chunks) are plain
				// allocations, so Gets may be fewer than the chunks.
				t.Fatalf("%d compressed chunks: list %+v", n, st)
			}
		})
	}
	for _, store := range []string{"float64_blosc_lz4_shuffle", "int64_blosc_zlib_shuffle", "uint16_blosc_zstd_noshuffle"} {
		t.Run(store, func(t *testing.T) {
			a, err := Open(filepath.Join("testdata", store))
			if err != nil {
				t.Fatal(err)
			}
			s := &Scratch{Buffers: freelist.New(1 << 20)}
			want := formula(t, a.DType(), a.Shape()...)
			forEachChunk(a, func(idx []int) {
				got, err := a.ReadChunkWith(idx, nil, s)
				if err != nil {
					t.Fatalf("chunk %v: %v", idx, err)
				}
				w, _ := want.Slice(chunkSlices(a, idx)...)
				if !bytes.Equal(cbytes(got), cbytes(w)) {
					t.Fatalf("chunk %v differs from the formula", idx)
				}
			})
		})
	}
}
