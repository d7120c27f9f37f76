package udfbridge

// EMPAD detector files: a .raw file of frames of 130 rows × 128 columns of
// little-endian 4-byte values (float32; uint32 from some setups), the last
// 2 rows of each frame being metadata, and an .xml file that names the
// .raw file (<raw_file filename="...">) and gives the scan's resolution
// (<scan_parameters mode="acquire"> with <scan_resolution_x> and _y, or
// a <count> for a series that is not a scan, <type> other than "scan").
// Some files hold the "search" mode's scan rather than the "acquire" one;
// as LiberTEM, the search resolution is taken when the file's size is
// that of the search scan and not of the acquire one.

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

// KindEMPAD is the dataset kind of EMPAD files (OpenEMPAD).
const KindEMPAD = "empad"

// The EMPAD frame: 128×128 pixels stored in 130 rows.
const (
	empadSide      = 128
	empadRawRows   = 130
	empadItemBytes = 4
)

func init() {
	RegisterDatasetKind(KindEMPAD, func(params []byte) (Dataset, error) {
		var p empadParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, fmt.Errorf("udfbridge: empad dataset parameters: %w", err)
		}
		dt, _, err := nd.ParseDType(p.DType)
		if err != nil {
			return nil, &DatasetError{Kind: KindEMPAD, Path: p.Path, Reason: "dtype", Err: err}
		}
		return OpenEMPAD(p.Path, OpenOptions{NavShape: p.Nav, DType: dt, SyncOffset: p.Sync})
	})
}

type empadParams struct {
	Path  string `json:"path"`
	Nav   []int  `json:"nav"`
	DType string `json:"dtype"`
	Sync  int    `json:"sync_offset,omitempty"`
}

// EMPADInfo is what an EMPAD .xml file says.
type EMPADInfo struct {
	RawFile string // the .raw file's name as written
	Nav     []int  // acquire scan (y, x), or (count,)
	Search  []int  // search scan (y, x), if given
}

type empadXML struct {
	RawFile struct {
		Filename string `xml:"filename,attr"`
	} `xml:"raw_file"`
	Type  *string `xml:"type"`
	Count string  `xml:"count"`
	Scans []struct {
		Mode string `xml:"mode,attr"`
		X    string `xml:"scan_resolution_x"`
		Y    string `xml:"scan_resolution_y"`
	} `xml:"scan_parameters"`
}

// ParseEMPADXML parses an EMPAD .xml file.
func ParseEMPADXML(r io.Reader) (EMPADInfo, error) {
	var x empadXML
	if err := xml.NewDecoder(io.LimitReader(r, 16<<20)).Decode(&x); err != nil {
		return EMPADInfo{}, fmt.Errorf("empad xml: %w", err)
	}
	if x.RawFile.Filename == "" {
		return EMPADInfo{}, fmt.Errorf("empad xml: no <raw_file filename=...>")
	}
	info := EMPADInfo{RawFile: x.RawFile.Filename}
	num := func(what, s string) (int, error) {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 1 || v > 1<<30 {
			return 0, fmt.Errorf("empad xml: %s %q is not a positive count", what, s)
		}
		return v, nil
	}
	if x.Type != nil && strings.TrimSpace(*x.Type) != "scan" {
		n, err := num("count", x.Count)
		if err != nil {
			return EMPADInfo{}, err
		}
		info.Nav = []int{n}
		return info, nil
	}
	for _, s := range x.Scans {
		if s.Mode != "acquire" && s.Mode != "search" {
			continue
		}
		nx, err := num(s.Mode+" scan_resolution_x", s.X)
		if err != nil {
			return EMPADInfo{}, err
		}
		ny, err := num(s.Mode+" scan_resolution_y", s.Y)
		if err != nil {
			return EMPADInfo{}, err
		}
		if s.Mode == "acquire" && info.Nav == nil {
			info.Nav = []int{ny, nx}
		} else if s.Mode == "search" && info.Search == nil {
			info.Search = []int{ny, nx}
		}
	}
	if info.Nav == nil {
		return EMPADInfo{}, fmt.Errorf("empad xml: no <scan_parameters mode=\"acquire\">")
	}
	return info, nil
}

// EMPADDataset is an EMPAD acquisition: 128×128 frames of float32 (or
// uint32), the 2 metadata rows of each stored frame skipped.
type EMPADDataset struct {
	framedFile
	raw string
}

var (
	_ Dataset           = (*EMPADDataset)(nil)
	_ TaskReaderDataset = (*EMPADDataset)(nil)
)

// OpenEMPAD opens an EMPAD acquisition from its .xml file (the nav shape
// is the XML's unless opts.NavShape is given) or from its .raw file
// (opts.NavShape required). opts.DType is float32 (the default) or
// uint32. A .raw file whose size is neither the XML's acquire nor its
// search scan is refused, naming both sizes.
func OpenEMPAD(path string, opts OpenOptions) (*EMPADDataset, error) {
	bad := func(p string, err error, format string, args ...any) error {
		return &DatasetError{Kind: KindEMPAD, Path: p, Reason: fmt.Sprintf(format, args...), Err: err}
	}
	if err := graph.CheckPath("udfbridge.open-empad", path); err != nil {
		return nil, bad(path, err, "refused")
	}
	dt := opts.DType
	if dt == nd.Invalid {
		dt = nd.Float32
	}
	if dt != nd.Float32 && dt != nd.Uint32 {
		return nil, bad(path, nil, "dtype %v: EMPAD frames are float32 or uint32", dt)
	}
	stride := int64(empadRawRows * empadSide * empadItemBytes)
	raw, nav := path, dsClone(opts.NavShape)
	if hasExt(path, ".xml") {
		f, err := os.Open(path)
		if err != nil {
			return nil, bad(path, err, "open")
		}
		info, err := ParseEMPADXML(f)
		f.Close()
		if err != nil {
			return nil, bad(path, err, "xml")
		}
		raw = filepath.Join(filepath.Dir(path), filepath.Base(info.RawFile))
		st, err := os.Stat(raw)
		if err != nil {
			return nil, bad(raw, err, "raw file named by %s", path)
		}
		xmlNav := info.Nav
		want := int64(dsProd(info.Nav)) * stride
		if st.Size() != want {
			alt := int64(-1)
			if info.Search != nil {
				alt = int64(dsProd(info.Search)) * stride
			}
			if st.Size() != alt {
				return nil, bad(raw, nil, "file is %d bytes; %s's acquire scan %v needs %d, its search scan %v %d",
					st.Size(), path, info.Nav, want, info.Search, alt)
			}
			xmlNav = info.Search
		}
		if nav == nil {
			nav = xmlNav
		}
	} else if nav == nil {
		return nil, bad(path, nil, "an EMPAD .raw file needs a nav shape (WithNavShape), or open its .xml")
	}
	st, err := os.Stat(raw)
	if err != nil {
		return nil, bad(raw, err, "stat")
	}
	d := &EMPADDataset{raw: raw}
	d.framedFile = framedFile{kind: KindEMPAD, skip: opts.SyncOffset, name: "empad file " + raw, path: path,
		runs: []frameRun{{path: raw, count: int(min(st.Size()/stride, 1<<40)), stride: stride}},
		nav:  nav, sig: []int{empadSide, empadSide}, dt: dt, stored: empadSide * empadSide * empadItemBytes}
	if err := d.check(); err != nil {
		return nil, err
	}
	return d, nil
}

// empadXMLFor returns the .xml file beside a .raw file that names it
// ("" if none): the one of the same base name, else the first of the
// directory's .xml files that does.
func empadXMLFor(raw string) string {
	dir, base := filepath.Split(raw)
	names := func(x string) bool {
		f, err := os.Open(x)
		if err != nil {
			return false
		}
		defer f.Close()
		info, err := ParseEMPADXML(f)
		return err == nil && filepath.Base(info.RawFile) == base
	}
	same := strings.TrimSuffix(raw, filepath.Ext(raw)) + ".xml"
	if names(same) {
		return same
	}
	ents, err := os.ReadDir(filepath.Clean(dir + "."))
	if err != nil {
		return ""
	}
	tried := 0
	for _, e := range ents {
		if e.IsDir() || !hasExt(e.Name(), ".xml") {
			continue
		}
		if tried++; tried > 64 {
			break
		}
		if x := filepath.Join(dir, e.Name()); x != same && names(x) {
			return x
		}
	}
	return ""
}

// RawPath returns the .raw file read.
func (d *EMPADDataset) RawPath() string { return d.raw }

func (d *EMPADDataset) Spec() (DatasetSpec, error) {
	b, err := json.Marshal(empadParams{Path: d.path, Nav: d.nav, DType: d.dt.Descr(), Sync: d.skip})
	return DatasetSpec{Kind: KindEMPAD, Params: b}, err
}
