package udfbridge

// Dataset tokens: a dataset with a Token method gives a run's tasks
// deterministic keys (the same run built twice has the same keys, so
// graphs compare, cache and merge). A file's token names what its bytes
// are as far as a stat can tell: path, size and modification time, with
// the layout read from it (dtype, shapes, offset); rewriting the file
// changes the token. Hashing the contents was rejected: a token is asked
// for when a graph is built, and reading 8 GiB to build a graph defeats
// laziness (Dask's tokenize of a file path does the same stat).

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tessera-go/tessera/graph"
)

// fileToken returns the token of the file (or directory) at path read as
// kind with the given layout; an impure token when path cannot be stat'ed
// (its run fails when it reads anyway).
func fileToken(kind, path string, layout ...any) string {
	fi, err := os.Stat(path)
	if err != nil {
		return graph.ImpureToken()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	parts := append([]any{"udfbridge-dataset", kind, abs, fi.Size(), fi.ModTime().UnixNano()}, layout...)
	t, err := graph.Tokenize(parts...)
	if err != nil {
		return graph.ImpureToken()
	}
	return t
}

// Token names the raw file: path, size, mtime, dtype, shapes, offset.
func (d *RawDataset) Token() string {
	return fileToken(KindRaw, d.path, d.dt.Descr(), d.nav, d.sig, d.offset)
}

// Token names the .npy file: path, size, mtime, dtype, shapes.
func (d *NPYDataset) Token() string {
	return fileToken(KindNPY, d.path, d.DType().Descr(), d.nav, d.sig)
}

// Token names the zarr array: its directory and metadata files (path,
// size, mtime), dtype, shapes and chunk grid. A chunk rewritten in place
// without touching the directory or metadata keeps the token.
func (d *ZarrDataset) Token() string {
	var meta []any
	for _, f := range []string{".zarray", "zarr.json", ".zattrs"} {
		if fi, err := os.Stat(filepath.Join(d.path, f)); err == nil {
			meta = append(meta, f, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return fileToken(KindZarr, d.path, d.z.DType().Descr(), d.nav, d.sig, fmt.Sprint(d.bounds), fmt.Sprint(meta...))
}

// Token names the chunked array: its name (chunkarray's token of how it
// is computed) and the sig dims.
func (d *ArrayDataset) Token() string {
	t, err := graph.Tokenize("udfbridge-dataset", KindChunkArray, d.name, d.sigDims)
	if err != nil {
		return graph.ImpureToken()
	}
	return t
}
