package udfbridge

// Open detects a dataset file's format, as LiberTEM's load("auto"): each
// registered format looks at the path (extension, sidecar files) and the
// file's first bytes, and the first that both recognises the file and
// opens it wins. Formats register themselves with RegisterFormat, an
// explicit registry like RegisterDatasetKind, so that a format in a
// package built only with a tag (HDF5, through cgo) adds itself when it
// is linked in.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// OpenOptions are what Open and the format openers may need besides the
// path; each format reads the fields it understands and refuses the ones
// it cannot honour.
type OpenOptions struct {
	// NavShape is the nav shape, where the file does not say it (raw,
	// an MIB series without .hdr) or to override what it says (MIB,
	// EMPAD, MRC: the frame count must cover it).
	NavShape []int
	// SigShape is the sig shape of a raw file.
	SigShape []int
	// SigDims is the number of trailing axes that are the sig in an
	// n-D array file (npy, zarr, HDF5); 0 means 2.
	SigDims int
	// DType is the element type of a raw file, or of an EMPAD file
	// (default float32).
	DType nd.DType
	// Offset is the byte offset of a raw file's data.
	Offset int64
	// DatasetName is the dataset inside a container file (HDF5); empty:
	// the format's own choice, if it can make one.
	DatasetName string
	// SingleFile reads only the named .mib file, not its numbered series.
	SingleFile bool
	// SyncOffset shifts the frames of a detector file (MIB, EMPAD, MRC,
	// DM4, BLO) against the nav, as LiberTEM's sync_offset: k > 0 skips
	// the first k stored frames, k < 0 puts -k frames of zeros first.
	// The stored frames must still cover the rest of the nav.
	SyncOffset int
}

// An OpenOption sets a field of OpenOptions.
type OpenOption func(*OpenOptions)

// WithNavShape sets OpenOptions.NavShape.
func WithNavShape(nav ...int) OpenOption {
	return func(o *OpenOptions) { o.NavShape = dsClone(nav) }
}

// WithSigShape sets OpenOptions.SigShape.
func WithSigShape(sig ...int) OpenOption {
	return func(o *OpenOptions) { o.SigShape = dsClone(sig) }
}

// WithSigDims sets OpenOptions.SigDims.
func WithSigDims(n int) OpenOption { return func(o *OpenOptions) { o.SigDims = n } }

// WithDType sets OpenOptions.DType.
func WithDType(dt nd.DType) OpenOption { return func(o *OpenOptions) { o.DType = dt } }

// WithOffset sets OpenOptions.Offset.
func WithOffset(off int64) OpenOption { return func(o *OpenOptions) { o.Offset = off } }

// WithDatasetName sets OpenOptions.DatasetName.
func WithDatasetName(name string) OpenOption { return func(o *OpenOptions) { o.DatasetName = name } }

// WithSyncOffset sets OpenOptions.SyncOffset.
func WithSyncOffset(k int) OpenOption { return func(o *OpenOptions) { o.SyncOffset = k } }

// WithSingleFile sets OpenOptions.SingleFile.
func WithSingleFile() OpenOption { return func(o *OpenOptions) { o.SingleFile = true } }

// SigDimsOrDefault returns SigDims, or its default 2 when it is 0.
func (o OpenOptions) SigDimsOrDefault() int {
	if o.SigDims == 0 {
		return 2
	}
	return o.SigDims
}

// FormatDetector reports whether the file at path looks like a format's:
// head is the file's first bytes (up to 4 KiB; nil for a directory).
type FormatDetector func(path string, head []byte) bool

// FormatOpener opens a file a FormatDetector recognised.
type FormatOpener func(path string, opts OpenOptions) (Dataset, error)

type format struct {
	name   string
	detect FormatDetector
	open   FormatOpener
}

var formats = struct {
	sync.RWMutex
	list []format
}{}

// RegisterFormat adds a format that Open tries, after those registered
// before it. Meant for init functions; it panics on a duplicate name or
// a nil function, programmer errors.
func RegisterFormat(name string, detect FormatDetector, open FormatOpener) {
	if detect == nil || open == nil {
		panic("udfbridge: format " + name + " registered with a nil function")
	}
	formats.Lock()
	defer formats.Unlock()
	for _, f := range formats.list {
		if f.name == name {
			panic("udfbridge: format " + name + " registered twice")
		}
	}
	formats.list = append(formats.list, format{name, detect, open})
}

// Formats returns the registered formats' names in the order Open tries
// them.
func Formats() []string {
	formats.RLock()
	defer formats.RUnlock()
	out := make([]string, len(formats.list))
	for i, f := range formats.list {
		out[i] = f.name
	}
	return out
}

// FormatAttempt is what Open made of one format: not recognised (Err
// nil), or recognised and failed to open (Err).
type FormatAttempt struct {
	Format   string
	Detected bool
	Err      error
}

// OpenError reports a path that no format opened, with every format
// tried.
type OpenError struct {
	Path  string
	Err   error // reading the path itself, if that failed
	Tried []FormatAttempt
}

func (e *OpenError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "udfbridge: open %s: ", e.Path)
	if e.Err != nil {
		b.WriteString(e.Err.Error())
		return b.String()
	}
	b.WriteString("no format opened it; tried:")
	for _, t := range e.Tried {
		if !t.Detected {
			fmt.Fprintf(&b, " %s (not recognised);", t.Format)
		} else {
			fmt.Fprintf(&b, " %s (recognised, but: %v);", t.Format, t.Err)
		}
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns the errors of the formats that recognised the path.
func (e *OpenError) Unwrap() []error {
	var out []error
	if e.Err != nil {
		out = append(out, e.Err)
	}
	for _, t := range e.Tried {
		if t.Err != nil {
			out = append(out, t.Err)
		}
	}
	return out
}

// openHeadBytes is how much of a file detectors see.
const openHeadBytes = 4096

// Open opens the dataset at path in the format detected from its
// extension, first bytes and sidecar files (as LiberTEM's load("auto")):
// .npy, a zarr directory, Merlin .mib/.hdr, EMPAD .xml (or its .raw),
// MRC, Gatan .dm4, NanoMegas .blo, HDF5 (WithDatasetName), and whatever else is registered (RegisterFormat). A raw file needs
// WithDType, WithNavShape and WithSigShape. When no format opens it, the
// *OpenError lists each format and why.
func Open(path string, opts ...OpenOption) (Dataset, error) {
	var o OpenOptions
	for _, f := range opts {
		f(&o)
	}
	if err := graph.CheckPath("udfbridge.open", path); err != nil {
		return nil, &OpenError{Path: path, Err: err}
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, &OpenError{Path: path, Err: err}
	}
	var head []byte
	if !st.IsDir() {
		if head, err = readHead(path); err != nil {
			return nil, &OpenError{Path: path, Err: err}
		}
	}
	formats.RLock()
	list := append([]format(nil), formats.list...)
	formats.RUnlock()
	e := &OpenError{Path: path}
	for _, f := range list {
		if !f.detect(path, head) {
			e.Tried = append(e.Tried, FormatAttempt{Format: f.name})
			continue
		}
		ds, err := f.open(path, o)
		if err == nil {
			return ds, nil
		}
		e.Tried = append(e.Tried, FormatAttempt{Format: f.name, Detected: true, Err: err})
	}
	return nil, e
}

func readHead(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, openHeadBytes)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

func hasExt(path string, exts ...string) bool {
	e := filepath.Ext(path)
	for _, x := range exts {
		if strings.EqualFold(e, x) {
			return true
		}
	}
	return false
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// noNav refuses a nav shape for formats whose nav is their array's.
func noNav(kind string, path string, o OpenOptions) error {
	if o.NavShape != nil {
		return &DatasetError{Kind: kind, Path: path, Reason: fmt.Sprintf("nav shape %v given, but a %s file's nav is its array's leading axes (use WithSigDims)", o.NavShape, kind)}
	}
	return nil
}

// The formats of this package, in the order Open tries them: magic bytes
// first (npy, MIB, MRC, DM4, BLO, HDF5), then directories (zarr), then sidecar files
// (MIB .hdr, EMPAD .xml, EMPAD .raw beside its .xml), and raw last, as it
// is recognised by its extension alone.
func init() {
	RegisterFormat(KindNPY, func(path string, head []byte) bool {
		return len(head) >= 6 && string(head[:6]) == "\x93NUMPY"
	}, func(path string, o OpenOptions) (Dataset, error) {
		if err := noNav(KindNPY, path, o); err != nil {
			return nil, err
		}
		return OpenNPY(path, o.SigDimsOrDefault())
	})
	RegisterFormat(KindMIB, func(path string, head []byte) bool {
		return (len(head) >= 4 && string(head[:4]) == "MQ1,") ||
			(hasExt(path, ".hdr") && len(head) >= 3 && string(head[:3]) == "HDR")
	}, func(path string, o OpenOptions) (Dataset, error) {
		return OpenMIB(path, o)
	})
	RegisterFormat(KindMRC, func(path string, head []byte) bool {
		return len(head) >= mrcHeaderBytes && (string(head[208:212]) == "MAP " || hasExt(path, ".mrc", ".mrcs", ".st", ".ali", ".rec"))
	}, func(path string, o OpenOptions) (Dataset, error) {
		return OpenMRC(path, o)
	})
	RegisterFormat(KindDM4, func(path string, head []byte) bool {
		return len(head) >= 16 && string(head[:4]) == "\x00\x00\x00\x04" && head[12]|head[13]|head[14] == 0 && head[15] <= 1
	}, func(path string, o OpenOptions) (Dataset, error) {
		return OpenDM4(path, o)
	})
	RegisterFormat(KindBLO, func(path string, head []byte) bool {
		return len(head) >= 6 && string(head[:6]) == "IMGBLO"
	}, func(path string, o OpenOptions) (Dataset, error) {
		return OpenBLO(path, o)
	})
	RegisterFormat(KindHDF5, func(path string, head []byte) bool {
		// The signature is at 0, or after a user block of 512·2^k bytes.
		for off := 0; off+8 <= len(head); off = max(2*off, 512) {
			if string(head[off:off+8]) == "\x89HDF\r\n\x1a\n" {
				return true
			}
		}
		return false
	}, func(path string, o OpenOptions) (Dataset, error) {
		if err := noNav(KindHDF5, path, o); err != nil {
			return nil, err
		}
		if o.DatasetName == "" {
			return nil, &DatasetError{Kind: KindHDF5, Path: path, Reason: "an HDF5 file holds many datasets: name one with WithDatasetName (\"/entry/data\")"}
		}
		return OpenHDF5(path, o.DatasetName, o.SigDimsOrDefault())
	})
	RegisterFormat(KindZarr, func(path string, head []byte) bool {
		return head == nil && (exists(filepath.Join(path, ".zarray")) || exists(filepath.Join(path, "zarr.json")))
	}, func(path string, o OpenOptions) (Dataset, error) {
		if err := noNav(KindZarr, path, o); err != nil {
			return nil, err
		}
		return OpenZarr(path, o.SigDimsOrDefault())
	})
	RegisterFormat(KindEMPAD, func(path string, head []byte) bool {
		if hasExt(path, ".xml") {
			return strings.Contains(string(head), "<raw_file")
		}
		return hasExt(path, ".raw") && empadXMLFor(path) != ""
	}, func(path string, o OpenOptions) (Dataset, error) {
		if hasExt(path, ".raw") {
			path = empadXMLFor(path)
		}
		return OpenEMPAD(path, o)
	})
	RegisterFormat(KindRaw, func(path string, head []byte) bool {
		return head != nil && hasExt(path, ".raw", ".bin", ".dat")
	}, func(path string, o OpenOptions) (Dataset, error) {
		if !o.DType.Valid() || o.NavShape == nil || o.SigShape == nil {
			return nil, &DatasetError{Kind: KindRaw, Path: path, Reason: "a raw file does not say its shape or dtype: give WithDType, WithNavShape and WithSigShape (and WithOffset for a header)"}
		}
		return OpenRaw(path, o.DType, o.NavShape, o.SigShape, o.Offset)
	})
}
